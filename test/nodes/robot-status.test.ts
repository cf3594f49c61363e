/**
 * robot-status through real Node-RED: once per message against the simulator
 * (status, fleetStatus one per robot or all, listRobots, taskReports, bad
 * input, watching every robot, the Test button; the simulator refuses a
 * Content-Type on the robot list as the cloud does), and watch mode against a fleet of 200 robots whose statuses the test
 * changes (every robot once, then exactly the changes, offline on output 2,
 * batches of 11, one Catch message per run of failed polls, nothing after
 * close).
 */
import assert from "node:assert/strict";
import type { Node } from "node-red";
import robotStatus from "../../src/nodes/robot-status/robot-status";
import type { RobotConfigNode } from "../../src/nodes/shared/types";

import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { FleetStub, stubSerial } from "../support/fleet-stub";
import { robotStatusNode } from "../support/fixtures";
import { collectMessages, flowWith, helper, loadFlow, nextMessage, outcomeOf, outputsAndCatch, recordStatuses, useNodeRed, waitFor, type FlowNode, COMPLETE_NODE } from "../support/node-red";

function statusNode(settings: Record<string, unknown> = {}): FlowNode {
  return robotStatusNode("fleet-node", settings);
}

describe("robot-status", function () {
  describe("once per message, against the simulator", function () {
    let simulator: RunningSimulator;
    const requests: string[] = [];

    before(async () => {
      simulator = await startSimulator({ rateLimit: false, log: (line) => requests.push(line) });
    });
    after(async () => {
      await simulator.close();
    });
    beforeEach(() => {
      simulator.reset();
      requests.length = 0;
    });
    useNodeRed();

    async function load(settings: Record<string, unknown> = {}) {
      await loadFlow([robotStatus], flowWith(simulator.url, [statusNode(settings), { id: "offline", type: "helper" }, ...outputsAndCatch("fleet-node")]), {
        config: { token: DEMO_TOKEN },
      });
    }

    it("status: one robot's status, and its state and battery under the node", async () => {
      await load();
      const statuses = recordStatuses("fleet-node");
      const { output } = await outcomeOf("fleet-node", { payload: "go" });
      assert.equal((output?.payload as { serialNumber: string }).serialNumber, "GS-S-000101");
      assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "IDLE 96%" });
    });

    it("reads a bug inside the package as a bug: a thrown non-Error reaches the Catch node as INTERNAL_ERROR, not as bad input", async () => {
      await load({ operation: "fleetStatus", fleetOutput: "all", serialNumbers: "GS-S-000101" });
      // A stand-in for a bug: the account's client throws a string where it promises a RobotApiError.
      const config = helper.getNode("config") as unknown as RobotConfigNode;
      assert.ok("client" in config.robot);
      config.robot.client.batchGetStatuses = () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the bug this test stands in for
        throw "not an error";
      };
      const { output, caught } = await outcomeOf("fleet-node", { payload: "go" });
      assert.equal(output, undefined);
      const error = caught?.error as { code: string; message: string };
      assert.equal(error.code, "INTERNAL_ERROR");
      assert.match(error.message, /a bug in node-red-contrib-robot-fleet, not a fault of the cloud: a thrown string \(not an error\)/);
    });

    it("fleetStatus, one message per robot: every robot of the account when none are named, msg.topic its serial, each its own object", async () => {
      await load({ operation: "fleetStatus" });
      const out = collectMessages("out");
      helper.getNode("fleet-node").receive({ payload: "go", topic: "tick" });
      await waitFor(() => out.length === 3, 5000, "three messages");
      assert.deepEqual(out.map((msg) => msg.topic).sort(), ["GS-S-000101", "GS-S-000102", "GS-S-000201"]);
      assert.ok(out.every((msg) => (msg.payload as { serialNumber: string }).serialNumber === msg.topic));
      assert.notEqual(out[0], out[1], "separate messages");
      assert.equal(requests.filter((line) => line.startsWith("GET /v1alpha1/robots ")).length, 1, "the robot list was read");
    });

    it("fleetStatus, one message with all, for the serial numbers in msg.payload; the S-line batch when set", async () => {
      await load({ operation: "fleetStatus", fleetOutput: "all", line: "s", serialNumbers: "GS-S-000201" });
      const { output } = await outcomeOf("fleet-node", { payload: ["GS-S-000101", "GS-S-000102"] });
      const statuses = output?.payload as Array<{ serialNumber: string }>;
      assert.deepEqual(statuses.map((status) => status.serialNumber), ["GS-S-000101", "GS-S-000102"]);
      assert.deepEqual(requests.filter((line) => line.includes("status:batchGet")).map((line) => line.split(" ")[1]), ["/openapi/v2alpha1/s/robots/*/status:batchGet"]);
    });

    it("fleetStatus of the node's list, and listRobots and taskReports through msg.operation", async () => {
      await load({ operation: "fleetStatus", fleetOutput: "all", serialNumbers: "GS-S-000102, GS-S-000201" });
      const fleet = await outcomeOf("fleet-node", { payload: 1 });
      assert.deepEqual((fleet.output?.payload as Array<{ serialNumber: string }>).map((status) => status.serialNumber), ["GS-S-000102", "GS-S-000201"]);
      const robots = await outcomeOf("fleet-node", { operation: "listRobots" });
      assert.equal((robots.output?.payload as unknown[]).length, 3);
      const reports = await outcomeOf("fleet-node", { operation: "taskReports", payload: { serialNumber: "GS-S-000102", page: 1, pageSize: 1 } });
      const answer = reports.output?.payload as { robotTaskReports: unknown[]; total: string };
      assert.equal(answer.robotTaskReports.length, 1);
      assert.equal(answer.total, "2");
      // Both seeded reports: the newest finished (taskEndStatus 0), the older stopped by hand (1); their mode an intensity.
      const both = await outcomeOf("fleet-node", { operation: "taskReports", payload: { serialNumber: "GS-S-000102", pageSize: 2 } });
      const read = (both.output?.payload as { robotTaskReports: Array<{ taskEndStatus: number; outcome: string; cleaningMode: string; cleaningKind?: string }> }).robotTaskReports;
      assert.deepEqual(read.map((report) => [report.taskEndStatus, report.outcome]), [[0, "normal"], [1, "stoppedByHand"]]);
      assert.equal(read[0]!.cleaningMode, "__middle_cleaning");
      assert.equal(read[0]!.cleaningKind, undefined, "an intensity says no kind");
    });

    // The simulator answers the robot list 415 when it carries a Content-Type, as the cloud does: these pass only when it has none.
    it("watch mode over every robot of the account: each robot once, read from the robot list", async () => {
      await load({ watch: true, interval: 5, operation: "fleetStatus" });
      const out = collectMessages("out");
      await waitFor(() => out.length === 3, 5000, "every robot once");
      assert.deepEqual(out.map((msg) => msg.topic).sort(), ["GS-S-000101", "GS-S-000102", "GS-S-000201"]);
      assert.ok(out.every((msg) => msg.initial === true));
      assert.ok(requests.some((line) => /^GET \/v1alpha1\/robots 200 /.test(line)), requests.join("\n"));
    });

    it("robot-config's Test button (the editor API it calls) lists the account's robots", async () => {
      await load();
      const answer = await helper.request().get("/robot-fleet/config/config/test").expect(200);
      const body = answer.body as { robots: number; milliseconds: number };
      assert.equal(body.robots, 3);
      assert.equal(typeof body.milliseconds, "number");
      assert.ok(requests.some((line) => /^GET \/v1alpha1\/robots 200 /.test(line)), requests.join("\n"));
    });

    it("refuses a bad serial number in msg.payload with one catchable error naming it, and sends nothing", async () => {
      await load({ operation: "fleetStatus" });
      const { output, caught } = await outcomeOf("fleet-node", { payload: ["GS-S-000101", "no good!"] });
      assert.equal(output, undefined);
      const error = caught?.error as { code: string; message: string };
      assert.equal(error.code, "INVALID_INPUT");
      assert.match(error.message, /serialNumbers\.1/);
      assert.deepEqual(requests, []);
    });

    it("fails every message naming a setting out of bounds (an interval under 5 s)", async () => {
      await load({ watch: true, interval: 2 });
      const { caught } = await outcomeOf("fleet-node", { payload: 1 });
      assert.match((caught?.error as { message: string }).message, /interval: must be from 5 to 86400 s/);
      assert.deepEqual(requests, [], "no poll started");
    });
  });

  describe("watch mode, 200 robots", function () {
    const ROBOTS = 200;
    let stub: FleetStub;

    before(async () => {
      stub = await new FleetStub(ROBOTS).start();
    });
    after(async () => {
      await stub.server.stop();
    });
    useNodeRed();

    async function loadWatching(settings: Record<string, unknown> = {}) {
      await loadFlow(
        [robotStatus, ...COMPLETE_NODE],
        flowWith(
          stub.url,
          [
            statusNode({ watch: true, interval: 5, operation: "fleetStatus", ...settings }),
            { id: "offline", type: "helper" },
            { id: "on-done", type: "complete", scope: ["fleet-node"], uncaught: false, wires: [["completed"]] },
            { id: "completed", type: "helper" },
            ...outputsAndCatch("fleet-node"),
          ],
          { rateLimit: 0 },
        ),
      );
    }

    /** Asks for a poll now and waits until it ended: the node ends the input message then (a Complete node sees it). */
    async function pollNow(): Promise<void> {
      const completed = nextMessage("completed");
      helper.getNode("fleet-node").receive({ payload: "poll" });
      await completed;
      // Let the poll's messages travel through the flow.
      await new Promise((resolve) => setImmediate(resolve));
    }

    it("sends every robot once, then nothing, then exactly the changes made; offline also on output 2", async function () {
      this.timeout(30_000);
      await loadWatching();
      const out = collectMessages("out");
      const offline = collectMessages("offline");
      await waitFor(() => out.length === ROBOTS, 10_000, "the first poll's messages");
      assert.ok(out.every((msg) => msg.initial === true && typeof msg.topic === "string"));
      assert.deepEqual((out[0]!.changes as Record<string, unknown>).online, { new: true });

      out.length = 0;
      stub.clearRequests();
      await pollNow();
      assert.equal(out.length, 0, "nothing changed, nothing sent");
      const batches = stub.batchRequests();
      assert.equal(batches.length, Math.ceil(ROBOTS / 11));
      assert.ok(batches.every((batch) => batch.names.length <= 11));

      stub.update(stubSerial(3), (status) => (status.online = false));
      stub.update(stubSerial(40), (status) => (status.battery.powerPercentage = 19));
      stub.update(stubSerial(150), (status) => (status.taskState = "RUNNING"));
      await pollNow();
      await waitFor(() => out.length === 3, 3000, "three changes");
      const changes: Record<string, unknown> = Object.fromEntries(out.map((msg): [string, unknown] => [String(msg.topic), msg.changes]));
      assert.deepEqual(changes, {
        [stubSerial(3)]: { online: { old: true, new: false } },
        [stubSerial(40)]: { battery: { old: 85, new: 19 }, batteryLow: { old: false, new: true } },
        [stubSerial(150)]: { taskState: { old: "IDLE", new: "RUNNING" } },
      });
      assert.ok(out.every((msg) => msg.initial === false));
      assert.deepEqual(offline.map((msg) => msg.topic), [stubSerial(3)]);
      stub.update(stubSerial(3), (status) => (status.online = true));
      stub.update(stubSerial(40), (status) => (status.battery.powerPercentage = 85));
      stub.update(stubSerial(150), (status) => (status.taskState = "IDLE"));
    });

    it("reports a run of failed polls to a Catch node once, warns once when polls work again, and keeps the last state", async function () {
      this.timeout(30_000);
      await loadWatching();
      const out = collectMessages("out");
      const caught = collectMessages("caught");
      await waitFor(() => out.length === ROBOTS, 10_000, "the first poll");
      const statuses = recordStatuses("fleet-node");
      const node = helper.getNode("fleet-node") as Node & { warn: { callCount?: number; args?: unknown[][] } };
      stub.failure = { status: 500, body: { code: 13, message: "down for maintenance" } };
      try {
        for (let poll = 0; poll < 3; poll++) await pollNow();
      } finally {
        stub.failure = undefined;
      }
      await waitFor(() => statuses.some((status) => /poll failed ×3/.test(String(status.text))), 3000, "the third failure shown");
      assert.equal(caught.length, 1, "one error for the whole run of failures");
      assert.equal((caught[0]!.error as { code: string }).code, "INTERNAL");
      assert.equal(caught[0]!.topic, "poll");
      assert.match(String(statuses.at(-1)?.text), /^poll failed ×3: INTERNAL$/);

      out.length = 0;
      await pollNow();
      assert.equal(out.length, 0, "the last known state was kept: nothing looks changed");
      assert.equal(caught.length, 1);
      const warnings = (node.warn.args ?? []).map((args) => String(args[0]));
      assert.deepEqual(warnings.filter((text) => /polls work again/.test(text)), ["polls work again after 3 failed polls"]);
      assert.match(String(statuses.at(-1)?.text), new RegExp(`^${ROBOTS} robots, ${ROBOTS} online, \\d\\d:\\d\\d:\\d\\d$`));
    });

    it("stops polling when the flow stops", async function () {
      await loadWatching();
      const out = collectMessages("out");
      await waitFor(() => out.length === ROBOTS, 10_000, "the first poll");
      await helper.unload();
      stub.clearRequests();
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(stub.server.requests.length, 0);
    });
  });
});
