/**
 * One robot that cannot be reached blinds no other (issue 44), through real
 * Node-RED against the simulator: with the kitchen scrubber made unreachable
 * (every status read naming it answered 230003 whole), robot-status's fleet
 * read still answers every other robot, the unreachable one offline with the
 * cloud's reason, and in watch mode goes offline once on output 2 while the
 * others' changes keep coming; robot-config names it once in the log over
 * several polls, not at each; and a robot-job on another robot starts once
 * and ends with its own report.
 */
import { robotStatusNode } from "../support/fixtures";
import assert from "node:assert/strict";
import robotJob from "../../src/nodes/robot-job";
import robotStatus from "../../src/nodes/robot-status/robot-status";
import { DEMO_TOKEN } from "../../src/simulator";
import { POLL_SETTINGS } from "../../src/api/watching/confirmation-poller";
import { COMPLETE_NODE, collectMessages, flowWith, helper, loadFlow, nextMessage, outcomeOf, outputsAndCatch, recordWarnings, waitFor, useNodeRed, type FlowNode } from "../support/node-red";
import { useSimulator } from "../support/simulator";

const KITCHEN = "GS-S-000102";
const ROBOTS = 20;

type Status = { serialNumber: string; online?: boolean; unreachable?: { code: string; message: string } };

describe("one robot that cannot be reached, through Node-RED", function () {
  this.timeout(40_000);
  const sim = useSimulator({ robots: ROBOTS, timing: { taskDurationMs: 1500 } }, true);
  useNodeRed();
  beforeEach(() => {
    POLL_SETTINGS.intervalMs = 200;
  });
  afterEach(() => {
    POLL_SETTINGS.intervalMs = 2000;
  });

  const fleetNode: FlowNode = robotStatusNode("fleet", { operation: "fleetStatus", serialNumber: "", fleetOutput: "all" });
  const jobNode: FlowNode = {
    id: "job",
    type: "robot-job",
    robot: "config",
    work: "area",
    map: "Floor 1",
    target: "Kitchen",
    mode: "",
    minBattery: 30,
    waitUpTo: 20,
    tries: 3,
    confirmTimeout: 10,
    wires: [["ends"], ["progress"]],
  };

  async function deploy(): Promise<string[]> {
    await loadFlow(
      [robotStatus, robotJob],
      flowWith(sim.simulator.url, [fleetNode, jobNode, { id: "offline", type: "helper" }, { id: "ends", type: "helper" }, { id: "progress", type: "helper" }, ...outputsAndCatch("fleet")]),
      { config: { token: DEMO_TOKEN } },
    );
    return recordWarnings("config");
  }

  it("robot-status's fleet read answers every other robot and this one offline with the reason; the log names it once over several polls", async () => {
    sim.simulator.updateRobot(KITCHEN, { reachable: false });
    const warnings = await deploy();
    for (let poll = 0; poll < 4; poll++) {
      const { output, caught } = await outcomeOf("fleet", { payload: "" });
      assert.equal(caught, undefined, JSON.stringify(caught?.error));
      const statuses = output!.payload as Status[];
      assert.equal(statuses.length, ROBOTS, `poll ${poll}: every robot`);
      const kitchen = statuses.find((status) => status.serialNumber === KITCHEN)!;
      assert.equal(kitchen.online, false);
      assert.equal(kitchen.unreachable?.code, "ROBOT_UNREACHABLE");
      assert.match(kitchen.unreachable.message, /cannot be reached/);
      assert.equal(statuses.filter((status) => status.online === true).length, ROBOTS - 1, `poll ${poll}: the others online`);
    }
    assert.equal(warnings.filter((text) => text.includes(KITCHEN)).length, 1, warnings.join("\n"));
    assert.match(warnings[0]!, /ROBOT_UNREACHABLE.*asked again in 30 s/);
  });

  it("watch mode: the robot goes offline once on output 2 with the reason, the others' statuses keep coming, the log names it once", async () => {
    await loadFlow(
      [robotStatus, ...COMPLETE_NODE],
      flowWith(
        sim.simulator.url,
        [
          { ...fleetNode, fleetOutput: "each", watch: true, interval: 5 },
          { id: "offline", type: "helper" },
          { id: "on-done", type: "complete", scope: ["fleet"], uncaught: false, wires: [["completed"]] },
          { id: "completed", type: "helper" },
          ...outputsAndCatch("fleet"),
        ],
      ),
      { config: { token: DEMO_TOKEN } },
    );
    const warnings = recordWarnings("config");
    const out = collectMessages("out");
    const offline = collectMessages("offline");
    const caught = collectMessages("caught");
    await waitFor(() => out.length === ROBOTS, 10_000, "every robot once");
    const pollNow = async () => {
      const completed = nextMessage("completed");
      helper.getNode("fleet").receive({ payload: "poll" });
      await completed;
    };
    sim.simulator.updateRobot(KITCHEN, { reachable: false });
    sim.simulator.updateRobot("GS-S-000101", { batteryPercentage: 15 });
    for (let poll = 0; poll < 3; poll++) await pollNow();
    await waitFor(() => offline.length === 1, 3000, "the robot offline on output 2");
    const gone = offline[0]!;
    assert.equal(gone.topic, KITCHEN);
    assert.equal((gone.payload as Status).unreachable?.code, "ROBOT_UNREACHABLE");
    assert.ok(out.some((msg) => msg.topic === "GS-S-000101" && (msg.changes as Record<string, unknown>).battery), "another robot's change came");
    assert.equal(caught.length, 0, "no poll failed");
    assert.equal(warnings.filter((text) => text.includes(KITCHEN)).length, 1, warnings.join("\n"));
  });

  it("a robot-job that the unreachable robot would have taken (nearest the kitchen) starts once on another robot and ends with its own report", async () => {
    sim.simulator.updateRobot(KITCHEN, { reachable: false });
    await deploy();
    const progress = collectMessages("progress");
    const ends = collectMessages("ends");
    helper.getNode("job").receive({ payload: { near: "Kitchen door" } });
    await waitFor(() => ends.length === 1, 30_000, "the job's end");
    const events = progress.map((msg) => (msg.payload as { event: string }).event);
    assert.equal(events.filter((event) => event === "assigned").length, 1, events.join());
    assert.equal(events.filter((event) => event === "started").length, 1, events.join());
    assert.ok(!events.includes("retrying"), events.join());
    const end = ends[0]!.payload as { serialNumber: string; outcome: string; report?: { robotSerialNumber?: string; outcome: string } };
    assert.notEqual(end.serialNumber, KITCHEN);
    assert.equal(end.outcome, "completed");
    assert.equal(end.report?.outcome, "normal");
    assert.equal(sim.simulator.state.robot(end.serialNumber)?.taskState, "IDLE");
  });
});
