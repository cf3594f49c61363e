/**
 * robot-job when a task is over before any status read showed it running (a
 * short task, a stop by hand, a fault at once: the robot's start and end fall
 * between two reads). Its report settles the start: the job ends with it, and
 * the robot is never sent the task again; a report of a task that failed to
 * start sets the robot aside at once. A report kept before the start was sent
 * is never taken for the job's.
 */
import assert from "node:assert/strict";
import robotEvents from "../../src/nodes/robot-events/robot-events";
import robotJob from "../../src/nodes/robot-job";
import { stubSerial } from "../support/fleet-stub";
import { jobNode, useJobFleet } from "../support/job-flow";
import type { JobFleetStub } from "../support/job-fleet-stub";
import { rawRequest } from "../support/raw-http";
import { TEST_TOKEN, collectMessages, flowWith, loadFlow, outputsAndCatch, helper, waitFor } from "../support/node-red";

const [R1, R2] = [1, 2].map(stubSerial) as [string, string];
type Msg = Record<string, unknown> & { payload: Record<string, unknown> };

describe("robot-job: a task over before any status showed it running", function () {
  this.timeout(60_000);
  const fleet = useJobFleet();
  const http = fleet.http;
  let stub: JobFleetStub;

  /** Two robots, R1 nearest the kitchen door; robot-events on the account takes pushes on /quick-reports. */
  async function start(confirmTimeout: number) {
    stub = await fleet.newStub(2);
    stub.place(R1, 600, 300);
    stub.place(R2, 900, 300);
    const events = { id: "events", type: "robot-events", robot: "config", path: "/quick-reports", minLevel: "", wires: [[], []] };
    await loadFlow(
      [http.serving(robotJob), robotEvents],
      flowWith(stub.url, [jobNode({ confirmTimeout }), ...outputsAndCatch("job", "console"), { id: "progress", type: "helper" }, events]),
      { config: { token: TEST_TOKEN }, events: { appId: "app-1" } },
    );
    return { ends: collectMessages("out") as Msg[], caught: collectMessages("caught"), progress: collectMessages("progress") as Msg[] };
  }
  const send = (payload: unknown) => helper.getNode("job").receive({ payload });
  async function push(id: string, taskEndStatus: number): Promise<void> {
    const report = { id, displayName: "Kitchen", taskEndStatus, cleaningMode: "洗地", startTime: Date.now() - 500, endTime: Date.now() };
    const answer = await rawRequest(http.url, "POST", "/quick-reports", { body: { appId: "app-1", payload: { serialNumber: R1, taskReport: report } } });
    assert.equal(answer.status, 200);
  }

  it("with no push, the report listed once the confirmation time is up ends the job: completed, one start, no other robot tried", async () => {
    const { ends, caught } = await start(1);
    stub.endingAtStart.set(R1, 0);
    send({ task: "Kitchen", map: "Floor 1", near: "Kitchen door" });
    await waitFor(() => ends.length + caught.length > 0, 20_000, "the job's end");
    assert.equal(caught.length, 0, JSON.stringify(caught[0]?.error));
    const end = ends[0]!.payload;
    assert.equal(end.serialNumber, R1);
    assert.equal(end.outcome, "completed");
    assert.deepEqual(end.attempts, [{ serialNumber: R1, result: "started" }]);
    assert.equal((end.report as { id: string }).id, `${R1}-1`);
    assert.equal(stub.startCommands(R1).length, 1, "the task is not sent again");
    assert.equal(stub.startCommands(R2).length, 0, "no other robot cleans it again");
  });

  it("a report pushed before any status showed the task ends the job at the next poll, long before the confirmation time", async () => {
    const { ends, progress } = await start(30);
    stub.ignoring.add(R1); // accepts the start and never shows it: only the report tells
    send({ task: "Kitchen", map: "Floor 1", near: "Kitchen door" });
    await waitFor(() => stub.startCommands(R1).length === 1, 10_000, "the start sent");
    const sentAt = Date.now();
    await push("pushed-stopped", 1);
    await waitFor(() => ends.length === 1, 10_000, "the job's end");
    assert.ok(Date.now() - sentAt < 10_000, "ended by the report, not by the 30 s confirmation time");
    const end = ends[0]!.payload;
    assert.deepEqual([end.serialNumber, end.outcome, (end.report as { id: string }).id], [R1, "stoppedByHand", "pushed-stopped"]);
    assert.deepEqual(
      progress.map((msg) => msg.payload.event),
      ["assigned", "started"],
    );
    assert.equal(stub.startCommands(R2).length, 0);
  });

  it("a pushed report of a task that failed to start sets the robot aside at once, and the next robot runs the job", async () => {
    const { ends } = await start(30);
    stub.ignoring.add(R1);
    send({ task: "Kitchen", map: "Floor 1", near: "Kitchen door" });
    await waitFor(() => stub.startCommands(R1).length === 1, 10_000, "the start sent");
    await push("failed-start", 3);
    await waitFor(() => ends.length === 1, 15_000, "the job's end");
    const end = ends[0]!.payload;
    assert.equal(end.serialNumber, R2);
    assert.deepEqual(end.attempts, [
      { serialNumber: R1, result: "not confirmed" },
      { serialNumber: R2, result: "started" },
    ]);
  });

  it("a report kept before the start was sent is not the job's: a robot that never shows the start is set aside", async () => {
    const { ends } = await start(1);
    await push("earlier-task", 0); // a task of R1 that ended a moment before the job came
    stub.ignoring.add(R1);
    send({ task: "Kitchen", map: "Floor 1", near: "Kitchen door" });
    await waitFor(() => ends.length === 1, 20_000, "the job's end");
    const end = ends[0]!.payload;
    assert.equal(end.serialNumber, R2);
    assert.deepEqual(end.attempts, [
      { serialNumber: R1, result: "not confirmed" },
      { serialNumber: R2, result: "started" },
    ]);
    assert.notEqual((end.report as { id: string }).id, "earlier-task");
  });
});
