/**
 * "Send when: the robot shows it" for a task start (robot-command's
 * START_TASK, robot-site-task's temporary task) whose task is over before any
 * status read showed it running. Its report confirms the start, as it settles
 * robot-job's (api/jobs/task-report.ts): msg.confirmation "ENDED" with the
 * report, never NOT_CONFIRMED (a flow that retries on it cleans twice); a
 * report of a task that failed to start is the failure, at the next poll
 * once pushed. A report kept before the start was sent is not the task's.
 */
import assert from "node:assert/strict";
import robotCommand from "../../src/nodes/robot-command/robot-command";
import robotEvents from "../../src/nodes/robot-events/robot-events";
import robotSiteTask from "../../src/nodes/robot-site-task/robot-site-task";
import { stubSerial } from "../support/fleet-stub";
import { useJobFleet } from "../support/job-flow";
import { STUB_MAP, type JobFleetStub } from "../support/job-fleet-stub";
import { rawRequest } from "../support/raw-http";
import { TEST_TOKEN, collectMessages, flowWith, helper, loadFlow, outputsAndCatch, waitFor, type FlowNode } from "../support/node-red";

const R1 = stubSerial(1);
type Msg = Record<string, unknown> & { payload: Record<string, unknown> };
type Caught = { error: { message: string; code?: string } };

const START_KITCHEN = { command: "START_TASK", cleaningMode: "__middle_cleaning", taskName: "Kitchen", map: STUB_MAP.name, loop: false, loopCount: 1 };
const TEMP_KITCHEN = {
  productId: R1,
  tempTaskCommand: { taskName: "Kitchen", cleaningMode: "__middle_cleaning", loop: false, loopCount: 1, mapName: STUB_MAP.name, startParam: { mapId: STUB_MAP.id, areaId: "1" } },
};

describe("a task start confirmed by its report: over before any status showed it running", function () {
  this.timeout(60_000);
  const fleet = useJobFleet();
  const http = fleet.http;
  let stub: JobFleetStub;

  /** One robot; "starter" is robot-command or robot-site-task; robot-events on the account takes pushes on /quick-reports. */
  async function start(starter: "command" | "site", confirmTimeout: number) {
    stub = await fleet.newStub(1);
    const node: FlowNode =
      starter === "command"
        ? { id: "starter", type: "robot-command", robot: "config", serialNumber: R1, serialNumberType: "str", command: "", sendWhen: "shown", confirmTimeout, wires: [["out"]] }
        : { id: "starter", type: "robot-site-task", robot: "config", serialNumber: R1, serialNumberType: "str", operation: "sendTempTask", sendWhen: "shown", confirmTimeout, wires: [["out"]] };
    const events = { id: "events", type: "robot-events", robot: "config", path: "/quick-reports", minLevel: "", wires: [[], []] };
    await loadFlow([http.serving(robotCommand), robotSiteTask, robotEvents], flowWith(stub.url, [node, ...outputsAndCatch("starter"), events]), {
      config: { token: TEST_TOKEN },
      events: { appId: "app-1" },
    });
    return { outputs: collectMessages("out") as Msg[], caught: collectMessages("caught") as unknown as Caught[] };
  }
  const send = (payload: unknown) => helper.getNode("starter").receive({ payload });
  async function push(id: string, taskEndStatus: number): Promise<void> {
    const report = { id, displayName: "Kitchen", taskEndStatus, cleaningMode: "洗地", startTime: Date.now() - 500, endTime: Date.now() };
    const answer = await rawRequest(http.url, "POST", "/quick-reports", { body: { appId: "app-1", payload: { serialNumber: R1, taskReport: report } } });
    assert.equal(answer.status, 200);
  }
  const ended = async (outputs: Msg[], caught: Caught[]) => {
    await waitFor(() => outputs.length + caught.length > 0, 20_000, "the message's end");
    assert.equal(caught.length, 0, caught[0]?.error.message);
    assert.equal(outputs.length, 1);
    return outputs[0]!.confirmation as { state: string; report?: { id: string; outcome: string } };
  };

  for (const starter of ["command", "site"] as const) {
    const payload = starter === "command" ? START_KITCHEN : TEMP_KITCHEN;
    const what = starter === "command" ? "robot-command START_TASK" : "robot-site-task's temporary task";

    it(`${what}: with no push, the report listed once the confirmation time is up confirms it, with its outcome; sent once`, async () => {
      const { outputs, caught } = await start(starter, 1);
      stub.endingAtStart.set(R1, 0);
      send(payload);
      const confirmation = await ended(outputs, caught);
      assert.equal(confirmation.state, "ENDED");
      assert.deepEqual([confirmation.report?.id, confirmation.report?.outcome], [`${R1}-1`, "normal"]);
      assert.equal(stub.startCommands(R1).length, 1);
    });

    it(`${what}: a report pushed before any status showed the task confirms it at the next poll, long before the confirmation time`, async () => {
      const { outputs, caught } = await start(starter, 30);
      stub.ignoring.add(R1); // accepts the start and never shows it: only the report tells
      send(payload);
      await waitFor(() => stub.startCommands(R1).length === 1, 10_000, "the start sent");
      await push("pushed-stopped", 1);
      const confirmation = await ended(outputs, caught); // waits 20 s at most: the 30 s confirmation time never came
      assert.deepEqual([confirmation.state, confirmation.report?.id, confirmation.report?.outcome], ["ENDED", "pushed-stopped", "stoppedByHand"]);
    });

    it(`${what}: a pushed report of a task that failed to start is NOT_CONFIRMED at once, naming it`, async () => {
      const { outputs, caught } = await start(starter, 30);
      stub.ignoring.add(R1);
      send(payload);
      await waitFor(() => stub.startCommands(R1).length === 1, 10_000, "the start sent");
      await push("failed-start", 3);
      await waitFor(() => outputs.length + caught.length > 0, 20_000, "the message's end");
      assert.equal(outputs.length, 0);
      assert.equal(caught[0]!.error.code, "NOT_CONFIRMED");
      assert.match(caught[0]!.error.message, /its task report failed-start: the task failed to start/);
    });
  }

  it("robot-command: a report kept before the start was sent is not its task's: a robot that never shows the start is NOT_CONFIRMED", async () => {
    const { outputs, caught } = await start("command", 1);
    await push("earlier-task", 0); // a task of R1 that ended a moment before the command came
    stub.ignoring.add(R1);
    send(START_KITCHEN);
    await waitFor(() => outputs.length + caught.length > 0, 20_000, "the message's end");
    assert.equal(outputs.length, 0);
    assert.equal(caught[0]!.error.code, "NOT_CONFIRMED");
    assert.doesNotMatch(caught[0]!.error.message, /earlier-task/);
  });
});
