/**
 * What robot-job's tests through real Node-RED share: the job node with the
 * tests' defaults, and a describe block's set-up (status polls every 100 ms,
 * an HTTP node server, Node-RED, one job fleet stub per test, stopped after
 * it, and the account's memory forgotten).
 */
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { POLL_SETTINGS } from "../../src/api/watching/confirmation-poller";
import { HttpNodeServer } from "./http-node";
import { JobFleetStub } from "./job-fleet-stub";
import { useNodeRed, type FlowNode } from "./node-red";

/** The robot-job node "job" on the account "config", its outputs wired to "out" and "progress". */
export function jobNode(settings: Record<string, unknown> = {}): FlowNode {
  return {
    id: "job",
    type: "robot-job",
    robot: "config",
    minBattery: 30,
    waitUpTo: 30,
    tries: 3,
    confirmTimeout: 5,
    wires: [["out"], ["progress"]],
    ...settings,
  };
}

export interface JobFleet {
  readonly http: HttpNodeServer;
  /** This test's stub (after newStub). */
  readonly stub: JobFleetStub;
  /** Starts this test's stub with `robots` robots. */
  newStub(robots: number): Promise<JobFleetStub>;
}

/** Call in a describe block. */
export function useJobFleet(): JobFleet {
  const http = new HttpNodeServer();
  let stub: JobFleetStub | undefined;
  before(() => http.start());
  after(() => http.stop());
  beforeEach(() => {
    POLL_SETTINGS.intervalMs = 100;
  });
  afterEach(async () => {
    await stub?.server.stop();
    stub = undefined;
    POLL_SETTINGS.intervalMs = 2000;
    forgetAccountMemory();
  });
  useNodeRed();
  return {
    http,
    get stub() {
      if (!stub) throw new Error("no stub: call newStub first");
      return stub;
    },
    async newStub(robots) {
      stub = await new JobFleetStub(robots).start();
      return stub;
    },
  };
}
