/**
 * The iot-spill-sensor-cleaning example against the simulator in real
 * Node-RED: a sensor message saying where the spill is starts the kitchen's
 * cleaning on the robot nearest to the kitchen door, with the job's progress
 * on the second debug node.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import robotJob from "../../src/nodes/robot-job";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { collectMessages, coreNodes, helper, loadExampleFlow, useNodeRed, waitFor, type FlowNode } from "../support/node-red";
import { PACKAGE_ROOT } from "../support/child-node";

const EXAMPLE = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "examples/iot-spill-sensor-cleaning.json"), "utf8")) as FlowNode[];

describe("robot-job: the spill sensor example", function () {
  this.timeout(30_000);
  let simulator: RunningSimulator;
  afterEach(async () => {
    await simulator?.close();
    forgetAccountMemory();
  });
  useNodeRed();

  it("sends the robot nearest to the kitchen door to clean the kitchen, shows the job's progress and its end with the task report", async () => {
    simulator = await startSimulator({ log: () => undefined, timing: { taskDurationMs: 3000 } });
    // The MQTT nodes need a broker: the test sends the sensor's message to the job node as the MQTT node would.
    const flow = EXAMPLE.filter((node) => !node.type.startsWith("mqtt"));
    await loadExampleFlow(flow, [robotJob, ...coreNodes("inject", "comment")], simulator.url, DEMO_TOKEN);
    const progress = collectMessages("iot-progress-debug");
    const ends = collectMessages("iot-job-debug");
    helper.getNode("iot-job").receive({ topic: "facility/sensors/kitchen/spill", payload: { map: "Floor 1", near: "Kitchen door" } });
    await waitFor(() => progress.some((msg) => (msg.payload as { event: string }).event === "started"), 20_000, "the job started");
    const assigned = progress.find((msg) => (msg.payload as { event: string }).event === "assigned")!.payload as { serialNumber: string };
    assert.equal(assigned.serialNumber, "GS-S-000102", "the kitchen scrubber stands at the kitchen door");
    assert.equal(simulator.state.status("GS-S-000102")!.taskState, "RUNNING");
    await waitFor(() => ends.length === 1, 25_000, "the job's end");
    const end = ends[0]!.payload as { serialNumber: string; outcome: string; work: unknown; report: { outcome: string; robotSerialNumber?: string } };
    assert.equal(end.serialNumber, "GS-S-000102");
    assert.deepEqual(end.work, { kind: "area", area: "Kitchen", map: "Floor 1" });
    assert.equal(end.outcome, "completed");
    assert.equal(end.report.outcome, "normal");
    if (process.env.SHOW_EXAMPLE_OUTPUT) console.log(JSON.stringify({ progress: progress.map((msg) => msg.payload), end }, null, 1));
  });
});
