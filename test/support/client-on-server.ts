/**
 * The hooks the client's wire tests share: one recording server or one
 * simulator for the suite, reset before each test, and a RobotClient pointed
 * at it.
 */
import { RobotClient, type RobotClientOptions } from "../../src/api/client";
import { DEMO_TOKEN, startSimulator, type RunningSimulator, type SimulatorOptions } from "../../src/simulator";
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
