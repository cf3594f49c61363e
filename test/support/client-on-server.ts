/**
 * The hooks the client's wire tests share: one recording server or one
 * simulator for the suite, reset before each test, and a RobotClient pointed
 * at it.
 */
import { RobotClient, type RobotClientOptions } from "../../src/api/client";
import { DEMO_TOKEN, startSimulator, type RunningSimulator, type SimulatorOptions } from "../../src/simulator";
import { waitFor } from "./push-receiver";
import { useRecordingServer, type RecordingServer } from "./recording-server";

export function useClientOnRecordingServer(options: Omit<RobotClientOptions, "baseUrl">): {
  readonly server: RecordingServer;
  readonly client: RobotClient;
} {
  const context = useRecordingServer() as { server: RecordingServer; client: RobotClient };
  before(() => {
    context.client = new RobotClient({ ...options, baseUrl: context.server.url });
  });
  after(() => context.client.close());
  return context;
}

/** The simulator (quiet, no rate limit unless `options` say otherwise) for the suite, reset before each test, and a client with the demo token that does not retry. */
export function useClientOnSimulator(options: SimulatorOptions = {}): {
  readonly simulator: RunningSimulator;
  readonly client: RobotClient;
} {
  const context = {} as { simulator: RunningSimulator; client: RobotClient };
  before(async () => {
    context.simulator = await startSimulator({ quiet: true, rateLimit: false, ...options });
    context.client = new RobotClient({ baseUrl: context.simulator.url, auth: { token: DEMO_TOKEN }, retry: { maxRetries: 0 } });
  });
  beforeEach(() => context.simulator.reset());
  after(async () => {
    context.client.close();
    await context.simulator.close();
  });
  return context;
}

/** Starts task `task` of map `map` on the simulated robot through the cloud's command, and waits until the robot runs it. */
export async function runTaskOn(simulator: RunningSimulator, serialNumber: string, task: string, map: string): Promise<void> {
  const client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN }, retry: { maxRetries: 0 } });
  try {
    await client.submitCommand({
      serialNumber,
      remoteTaskCommandType: "START_TASK",
      commandParameter: { startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: task, map, loop: false, loopCount: 1 } } },
    });
    await waitFor(() => simulator.state.robot(serialNumber)?.taskState === "RUNNING", `${serialNumber} to run ${task}`, 10_000);
  } finally {
    client.close();
  }
}
