/**
 * The hooks the push tests share: a recording server on loopback that
 * receives the simulator's pushes, a simulator pushing to it on a clock the
 * test moves, its log lines, and a way to wait for deliveries (they are sent
 * in the background, so a test waits for them rather than for its request).
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import { DEMO_TOKEN, NO_FAULTS, startSimulator, type PushBody, type RunningSimulator, type SimulatorOptions } from "../../src/simulator";
import { useRecordingServer, type RecordedRequest, type RecordingServer } from "./recording-server";

export const APP_ID = "app-7f3c";
export const PUSH_PATH = "/robot-events";
/** 2026-01-01T00:00:00Z: the simulator's clock starts here in every test. */
export const START_MS = 1_767_225_600_000;

export interface PushContext {
  readonly receiver: RecordingServer;
  readonly simulator: RunningSimulator;
  readonly client: RobotClient;
  /** The simulator's log since the test began. */
  readonly lines: string[];
  /** The simulator's clock; set it to move time. */
  clock: number;
}

/** Waits until `predicate` holds, polling; fails after `ms` naming `what`. */
export async function waitFor(predicate: () => boolean, what: string, ms = 3000): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > ms) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The bodies of the pushes `server` received, in order. */
export function bodiesOf(server: RecordingServer): PushBody[] {
  return server.requests.map((request: RecordedRequest) => request.body as PushBody);
}

/** Waits until `server` has received `count` pushes and returns their bodies. */
export async function received(server: RecordingServer, count: number): Promise<PushBody[]> {
  await waitFor(() => server.requests.length >= count, `${count} push(es), ${server.requests.length} so far`);
  return bodiesOf(server);
}

export async function control(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${base}/_sim/${path}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** One receiver and one simulator pushing to it for the suite; before each test: no faults, the fleet and the receiver reset, the clock at START_MS. */
export function usePushReceiver(options: SimulatorOptions = {}): PushContext {
  const recording = useRecordingServer();
  const context = { lines: [] as string[], clock: START_MS } as { -readonly [K in keyof PushContext]: PushContext[K] };
  Object.defineProperty(context, "receiver", { get: () => recording.server });
  before(async () => {
    context.simulator = await startSimulator({
      rateLimit: false,
      log: (line) => context.lines.push(line),
      now: () => context.clock,
      push: { url: `${recording.server.url}${PUSH_PATH}`, appId: APP_ID },
      ...options,
    });
  });
  beforeEach(() => {
    // A client per test: a kept-alive connection idle past the server's keep-alive timeout may be reset as it is reused.
    context.client = new RobotClient({ baseUrl: context.simulator.url, auth: { token: DEMO_TOKEN }, retry: { maxRetries: 0 } });
    context.clock = START_MS;
    context.simulator.setFaults({ ...NO_FAULTS });
    context.simulator.setPush({ url: `${recording.server.url}${PUSH_PATH}`, appId: APP_ID });
    context.simulator.reset();
    context.lines.length = 0;
  });
  afterEach(() => context.client.close());
  after(() => context.simulator.close());
  return context;
}
