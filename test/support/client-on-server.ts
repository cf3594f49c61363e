/**
 * The hooks the client's wire tests share: one recording server for the
 * suite, reset before each test, and a RobotClient pointed at it.
 */
import { RobotClient, type RobotClientOptions } from "../../src/api/client";
import { useRecordingServer, type RecordingServer } from "./recording-server";

export function useClientOnRecordingServer(options: Omit<RobotClientOptions, "baseUrl">): { readonly server: RecordingServer; readonly client: RobotClient } {
  const context = useRecordingServer() as { server: RecordingServer; client: RobotClient };
  before(() => {
    context.client = new RobotClient({ ...options, baseUrl: context.server.url });
  });
  after(() => context.client.close());
  return context;
}
