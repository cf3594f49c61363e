/**
 * robot-job cancels a job of another robot-job node of the same account (a
 * console cancels any job through one node): the node that owns the job stops
 * its robot and sends its one end; the node that was asked sends nothing.
 */
import assert from "node:assert/strict";
import { POLL_SETTINGS } from "../../src/api/watching/confirmation-poller";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import robotJob from "../../src/nodes/robot-job";
import { stubSerial } from "../support/fleet-stub";
import { HttpNodeServer } from "../support/http-node";
import { JobFleetStub } from "../support/job-fleet-stub";
import { collectMessages, flowWith, helper, loadFlow, useNodeRed, waitFor, type FlowNode } from "../support/node-red";

const R1 = stubSerial(1);
type Msg = Record<string, unknown> & { payload: Record<string, unknown> };

function jobNode(id: string): FlowNode {
  return { id, type: "robot-job", robot: "config", minBattery: 30, waitUpTo: 30, tries: 3, confirmTimeout: 5, wires: [[`${id}-out`], []] };
}

describe("robot-job: a cancel reaches the node that owns the job", function () {
  this.timeout(60_000);
  let stub: JobFleetStub;
  const http = new HttpNodeServer();
  before(() => http.start());
  after(() => http.stop());
  beforeEach(() => {
    POLL_SETTINGS.intervalMs = 100;
  });
  afterEach(async () => {
    await stub?.server.stop();
    POLL_SETTINGS.intervalMs = 2000;
    forgetAccountMemory();
  });
  useNodeRed();

  it("ends the other node's job once, from that node, and stops its robot", async () => {
    stub = await new JobFleetStub(1).start();
    const catchAll: FlowNode = { id: "catch-errors", type: "catch", scope: null, uncaught: false, wires: [["caught"]] };
    await loadFlow(
      [http.serving(robotJob)],
      flowWith(stub.url, [jobNode("owner"), jobNode("console"), { id: "owner-out", type: "helper" }, { id: "console-out", type: "helper" }, catchAll, { id: "caught", type: "helper" }]),
    );
    const ownerEnds = collectMessages("owner-out") as Msg[];
    const consoleEnds = collectMessages("console-out") as Msg[];
    const caught = collectMessages("caught");
    stub.runReads = undefined;
    helper.getNode("owner").receive({ topic: "spill", payload: { task: "Kitchen", map: "Floor 1", jobId: "spill-1" } });
    await waitFor(() => stub.statuses.get(R1)!.taskState === "RUNNING", 10_000, "the job running");
    helper.getNode("console").receive({ payload: { cancel: "spill-1" } });
    await waitFor(() => ownerEnds.length + caught.length > 0, 10_000, "the cancelled job's end");
    // Time for a second end or an error to show, if one were coming.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(caught.length, 0, JSON.stringify(caught[0]?.error));
    assert.equal(ownerEnds.length, 1);
    assert.equal(consoleEnds.length, 0);
    assert.equal(ownerEnds[0]!.jobId, "spill-1");
    assert.equal(ownerEnds[0]!.topic, "spill");
    assert.equal(ownerEnds[0]!.payload.outcome, "cancelled");
    assert.equal((stub.commands.get(R1) ?? []).filter((command) => command.type === "STOP_TASK").length, 1, "the robot was stopped once");

    // A second cancel of the ended job, through either node, is an error naming payload.cancel.
    helper.getNode("console").receive({ payload: { cancel: "spill-1" } });
    await waitFor(() => caught.length === 1, 10_000, "the refused cancel");
    assert.match(String((caught[0]!.error as { message: string }).message), /payload\.cancel: no job "spill-1"/);
    assert.equal(ownerEnds.length, 1);
  });
});
