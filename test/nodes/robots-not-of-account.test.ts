/**
 * A serial number the account does not have (a typo, GS-X-999) through real
 * Node-RED against robot-job's fleet stub, whose robot list is its robots:
 * robot-command, robot-status, robot-maps, robot-site-task and robot-job
 * refuse it at once, naming the field and the serial number, and nothing
 * naming it reaches the cloud; a robot-plan with an item naming it is refused
 * at deploy; robot-mqtt leaves it out of its robots. The account's robot
 * directory runs on a clock the tests move, so the minute between two reads
 * of the list for unknown robots is tried at its edge: a typo in every
 * message costs one read a minute, a robot added to the account since the
 * last read is read and accepted, and a list that cannot be read lets the
 * message through. Then against the simulator: the plan refused at deploy,
 * and fleetMap fed with msg.statuses naming a robot the list did not name at
 * the start.
 */
import assert from "node:assert/strict";
import { keptForAccount } from "../../src/api/account/account-memory";
import { RobotDirectory, UNKNOWN_ROBOT_READ_GAP_MS, robotDirectoryOf } from "../../src/api/account/robot-directory";
import { RobotClient } from "../../src/api/client";
import robotCommand from "../../src/nodes/robot-command/robot-command";
import robotJob from "../../src/nodes/robot-job";
import robotMaps from "../../src/nodes/robot-maps/robot-maps";
import robotMqtt from "../../src/nodes/robot-mqtt";
import robotPlan from "../../src/nodes/robot-plan";
import robotSiteTask from "../../src/nodes/robot-site-task/robot-site-task";
import robotStatus from "../../src/nodes/robot-status/robot-status";
import { DEMO_TOKEN, demoFleet } from "../../src/simulator";
import { robotCommandNode, robotMapsNode, robotSiteTaskNode } from "../support/fixtures";
import { stubSerial } from "../support/fleet-stub";
import { jobNode, useJobFleet } from "../support/job-flow";
import type { JobFleetStub } from "../support/job-fleet-stub";
import { TEST_TOKEN, collectMessages, flowWith, helper, isDirectoryRead, loadFlow, useNodeRed, waitFor, type FlowNode } from "../support/node-red";
import type { RecordedRequest, ScriptedReply } from "../support/recording-server";
import { useSimulator } from "../support/simulator";

const TYPO = "GS-X-999";
const R1 = stubSerial(1);
const R2 = stubSerial(2);
type Msg = Record<string, unknown>;
type Caught = Msg & { error: { message: string; code: string; source: { id: string }; cause?: { robots?: Record<string, string> } } };

/** The account's directory for the stub, made before the flow so that it reads the time from `now`. */
function directoryOnClock(baseUrl: string, now: () => number): RobotDirectory {
  const probe = new RobotClient({ baseUrl, auth: { token: TEST_TOKEN } });
  probe.close();
  return keptForAccount(probe.accountKey, "robot directory", () => new RobotDirectory(now));
}

describe("a robot the account does not have, refused where a flow names it", function () {
  this.timeout(60_000);

  describe("against robot-job's fleet stub", () => {
    const fleet = useJobFleet();
    let stub: JobFleetStub;
    let now: number;
    let caught: Caught[];
    let outputs: Msg[];

    const listReads = () => stub.server.requests.filter(isDirectoryRead).length;
    const naming = (serialNumber: string) => (request: RecordedRequest) => request.path.includes(serialNumber) || request.rawBody.includes(serialNumber);

    async function load(nodes: FlowNode[], robots = 2): Promise<void> {
      stub = await fleet.newStub(robots);
      now = Date.now();
      directoryOnClock(stub.url, () => now);
      const catchAll: FlowNode[] = [
        { id: "out", type: "helper" },
        { id: "catch-errors", type: "catch", scope: null, uncaught: false, wires: [["caught"]] },
        { id: "caught", type: "helper" },
      ];
      await loadFlow([fleet.http.serving(robotJob), robotCommand, robotStatus, robotMaps, robotPlan, robotMqtt, robotSiteTask], flowWith(stub.url, [...nodes, ...catchAll]));
      caught = collectMessages("caught") as Caught[];
      outputs = collectMessages("out");
    }

    /** The error node `id` ends `msg` with (nothing sent on its output). */
    async function refusalOf(id: string, msg: Msg): Promise<Caught["error"]> {
      const before = { caught: caught.length, outputs: outputs.length };
      helper.getNode(id).receive(msg);
      await waitFor(() => caught.length > before.caught || outputs.length > before.outputs, 10_000, `${id}'s answer`);
      assert.equal(outputs.length, before.outputs, `${id} sent ${JSON.stringify(outputs.at(-1)?.payload)}`);
      const error = caught.at(-1)!.error;
      assert.equal(error.source.id, id);
      return error;
    }

    const commandNode = robotCommandNode("cmd", { command: "PAUSE_TASK", serialNumber: R1, wires: [["out"]] });

    it("robot-command, robot-status, robot-maps, robot-site-task and robot-job end at once naming the field and the serial number; nothing naming it reaches the cloud", async () => {
      await load([
        commandNode,
        { id: "reader", type: "robot-status", robot: "config", operation: "status", serialNumber: R1, serialNumberType: "str", wires: [["out"]] },
        robotMapsNode("map", { operation: "fleetMap", serialNumber: R1, mapId: "" }),
        robotSiteTaskNode("site", { serialNumber: R1, wires: [["out"]] }),
        jobNode({ wires: [["out"], []] }),
      ]);
      const cases: [id: string, msg: Msg, expected: string][] = [
        ["cmd", { serialNumber: TYPO }, "msg.serialNumber: the account has no robot GS-X-999"],
        ["cmd", { payload: { action: "pause", serialNumber: TYPO } }, "payload.serialNumber: the account has no robot GS-X-999"],
        ["reader", { serialNumber: TYPO }, "msg.serialNumber: the account has no robot GS-X-999"],
        ["reader", { operation: "fleetStatus", payload: [R1, TYPO] }, "payload: the account has no robot GS-X-999"],
        ["map", { serialNumbers: [R1, TYPO] }, "msg.serialNumbers: the account has no robot GS-X-999"],
        ["map", { payload: { robotSn: TYPO } }, "payload.robotSn: the account has no robot GS-X-999"],
        ["site", { serialNumber: TYPO }, "msg.serialNumber: the account has no robot GS-X-999"],
      ];
      for (const [id, msg, expected] of cases) {
        const error = await refusalOf(id, msg);
        assert.equal(error.code, "INVALID_INPUT", error.message);
        assert.equal(error.message, `RobotApiError: ${expected}`);
      }
      const ended = await refusalOf("job", { payload: { task: "Kitchen", map: "Floor 1", robots: [R2, TYPO] } });
      assert.equal(ended.code, "NO_ROBOT");
      assert.equal(ended.message, "JobError: NO_ROBOT: the job names a robot the account does not have (GS-X-999: the account has no such robot)");
      assert.deepEqual(ended.cause?.robots, { [TYPO]: "not a robot of the account" });
      assert.deepEqual(stub.server.requests.filter(naming(TYPO)), [], "no call named it");
      assert.equal(stub.commands.size, 0, "no command was sent");
      assert.equal(listReads(), 1, "the list read at the deploy is under a minute old: not read again");
    });

    it("robot-plan with an item naming it is refused whole at deploy (the log and every message name the item and the serial number), and by message", async () => {
      const item = { name: "Kitchen", days: "daily", at: "06:00", map: "Floor 1", task: "Kitchen", robots: [R1, TYPO] };
      const planNode = (id: string, plan: unknown[]): FlowNode => ({ id, type: "robot-plan", robot: "config", timezone: "UTC", lateBy: 15, skipDates: [], plan, wires: [["out"], [], ["out"]] });
      await load([planNode("plan", [item]), planNode("plan2", [{ ...item, name: "Lobby", task: "Lobby", robots: [R1] }])]);
      const expected = 'RobotApiError: plan[0].robots: the account has no robot GS-X-999 (item "Kitchen")';
      const logged = () =>
        (helper.log().getCalls() as Array<{ args: unknown[] }>)
          .map((call) => call.args[0] as { level: number; msg?: unknown })
          .filter((entry) => entry.level === 20)
          .map((entry) => String(entry.msg));
      await waitFor(() => logged().length > 0, 10_000, "the refusal in the log");
      assert.deepEqual(logged(), [expected]);
      for (const payload of [{ upcoming: { hours: 24 } }, { runNow: "Kitchen" }]) {
        const error = await refusalOf("plan", { payload });
        assert.equal(error.code, "INVALID_INPUT");
        assert.equal(error.message, expected);
      }
      // A plan set by message is refused the same way; the plan in force stays.
      const error = await refusalOf("plan2", { payload: { plan: [{ ...item, name: "Hall", robots: [TYPO] }] } });
      assert.equal(error.message, 'RobotApiError: payload.plan[0].robots: the account has no robot GS-X-999 (item "Hall")');
      helper.getNode("plan2").receive({ payload: { upcoming: { hours: 24 } } });
      await waitFor(() => outputs.length > 0, 10_000, "the upcoming occurrences");
      assert.deepEqual((outputs[0]!.payload as { upcoming: { item: string }[] }).upcoming.map((entry) => entry.item), ["Lobby"]);
      assert.deepEqual(stub.server.requests.filter(naming(TYPO)), []);
      assert.equal(stub.commands.size, 0);
    });

    it("robot-mqtt leaves a robot of its list the account does not have out, warned once; the others are published and no call names it", async () => {
      await load([{ id: "bridge", type: "robot-mqtt", robot: "config", interval: 5, serialNumbers: `${R1},${TYPO}`, prefix: "homeassistant", base: "robot-fleet", startTasks: "", wires: [["out"]] }]);
      await waitFor(() => outputs.some((msg) => msg.topic === `homeassistant/device/robot_fleet_${R1}/config`), 15_000, "the listed robot's device");
      const warned = (helper.log().getCalls() as Array<{ args: unknown[] }>).map((call) => call.args[0] as { level: number; msg?: unknown }).filter((entry) => entry.level === 30);
      assert.deepEqual(
        warned.map((entry) => String(entry.msg)).filter((text) => text.includes(TYPO)),
        [`robot "${TYPO}" is not published: its serial number names no robot of the account (the robot list does not name it)`],
      );
      assert.ok(!outputs.some((msg) => String(msg.topic).includes(TYPO)), "no device for it");
      assert.deepEqual(stub.server.requests.filter(naming(TYPO)), []);
    });

    it("a typo in every message reads the list once a minute: 50 at 1 ms under the minute read nothing, 50 at the minute read it once", async () => {
      await load([commandNode]);
      const firstRead = now;
      const typos = async (count: number) => {
        const before = caught.length;
        for (let index = 0; index < count; index++) helper.getNode("cmd").receive({ serialNumber: TYPO });
        await waitFor(() => caught.length === before + count, 10_000, `${count} refusals`);
        for (const each of caught.slice(before)) assert.equal(each.error.message, "RobotApiError: msg.serialNumber: the account has no robot GS-X-999");
      };
      now = firstRead + UNKNOWN_ROBOT_READ_GAP_MS - 1;
      await typos(50);
      assert.equal(listReads(), 1, "a list 59.999 s old is fresh enough to refuse");
      now = firstRead + UNKNOWN_ROBOT_READ_GAP_MS;
      await typos(50);
      assert.equal(listReads(), 2, "a list a minute old is read again, once for the 50");
      now += UNKNOWN_ROBOT_READ_GAP_MS - 1;
      await typos(1);
      assert.equal(listReads(), 2);
      assert.deepEqual(stub.server.requests.filter(naming(TYPO)).filter((request) => !isDirectoryRead(request)), []);
    });

    it("a robot added to the account after the list was read is read again and accepted", async () => {
      await load([commandNode]);
      const added = stubSerial(3);
      stub.statuses.set(added, { ...structuredClone(stub.statuses.get(R1)!), serialNumber: added, displayName: "Night shift" });
      now += UNKNOWN_ROBOT_READ_GAP_MS;
      helper.getNode("cmd").receive({ serialNumber: added });
      await waitFor(() => outputs.length + caught.length > 0, 10_000, "the command's answer");
      assert.equal(caught.length, 0, caught[0]?.error.message);
      assert.deepEqual(stub.commands.get(added)?.map((command) => command.type), ["PAUSE_TASK"]);
      assert.equal(listReads(), 2, "read once more for it");
    });

    it("a robot list that cannot be read lets the message through (tried again once a minute)", async () => {
      const unreadable: ScriptedReply = { status: 403, body: { code: 7, message: "Permission denied." } };
      stub = await fleet.newStub(2);
      const fleetAnswer = (stub as unknown as { answer(request: RecordedRequest): ScriptedReply }).answer.bind(stub);
      stub.server.respondWith((request) => (isDirectoryRead(request) ? unreadable : fleetAnswer(request)));
      now = Date.now();
      directoryOnClock(stub.url, () => now);
      await loadFlow([robotCommand], flowWith(stub.url, [commandNode, { id: "out", type: "helper" }, { id: "catch-errors", type: "catch", scope: null, uncaught: false, wires: [["caught"]] }, { id: "caught", type: "helper" }]));
      caught = collectMessages("caught") as Caught[];
      outputs = collectMessages("out");
      helper.getNode("cmd").receive({ serialNumber: R2 });
      helper.getNode("cmd").receive({ serialNumber: R2 });
      await waitFor(() => outputs.length + caught.length === 2, 10_000, "both commands' answers");
      assert.equal(caught.length, 0, caught[0]?.error.message);
      assert.deepEqual(stub.commands.get(R2)?.map((command) => command.type), ["PAUSE_TASK", "PAUSE_TASK"]);
      assert.equal(listReads(), 2, "the deploy's read and one more for the robot it could not tell, not one per message");
    });
  });

  describe("against the simulator", () => {
    const cloud = useSimulator({}, true);
    useNodeRed();
    const LOBBY = "GS-S-000101";
    const KITCHEN = "GS-S-000102";
    const nameOf = (serialNumber: string) => demoFleet().robots.find((robot) => robot.serialNumber === serialNumber)!.displayName;

    it("robot-plan deployed with an item naming GS-X-999 is refused at deploy naming the item and the serial", async () => {
      const item = { name: "Kitchen", days: "daily", at: "06:00", map: "Floor 1", task: "Kitchen", robots: [KITCHEN, TYPO] };
      const plan: FlowNode = { id: "plan", type: "robot-plan", robot: "config", timezone: "UTC", lateBy: 15, skipDates: [], plan: [item], wires: [["out"], [], ["out"]] };
      const flow = [plan, { id: "out", type: "helper" }, { id: "catch-errors", type: "catch", scope: null, uncaught: false, wires: [["caught"]] }, { id: "caught", type: "helper" }];
      await loadFlow([robotPlan], flowWith(cloud.simulator.url, flow), { config: { token: DEMO_TOKEN } });
      const caught = collectMessages("caught") as Caught[];
      const expected = 'RobotApiError: plan[0].robots: the account has no robot GS-X-999 (item "Kitchen")';
      const errorsLogged = () => (helper.log().getCalls() as Array<{ args: unknown[] }>).map((call) => call.args[0] as { level: number; msg?: unknown }).filter((entry) => entry.level === 20);
      await waitFor(() => errorsLogged().length > 0, 10_000, "the refusal in the log");
      assert.deepEqual(errorsLogged().map((entry) => String(entry.msg)), [expected]);
      helper.getNode("plan").receive({ payload: { upcoming: { hours: 24 } } });
      await waitFor(() => caught.length > 0, 10_000, "the next message's error");
      assert.equal(caught[0]!.error.message, expected);
    });

    it("fleetMap fed with msg.statuses names a robot the robot list did not name when the flow started", async () => {
      await loadFlow([robotMaps], flowWith(cloud.simulator.url, [robotMapsNode("map", { operation: "fleetMap", serialNumber: LOBBY, mapId: "" }), { id: "out", type: "helper" }], {}), { config: { token: DEMO_TOKEN } });
      // The statuses as robot-status sends them, read by a client of its own (a client tells the directory nothing of them).
      const reader = new RobotClient({ baseUrl: cloud.simulator.url, auth: { token: DEMO_TOKEN } });
      const statuses = await reader.batchGetStatuses([LOBBY, KITCHEN], { line: "s" });
      reader.close();
      // The list as it was before the kitchen robot joined the account.
      const directory = robotDirectoryOf(reader.accountKey);
      directory.learn([{ serialNumber: LOBBY, displayName: nameOf(LOBBY) }]);
      assert.equal(directory.nameOf(KITCHEN), KITCHEN);
      const drawn = collectMessages("out");
      helper.getNode("map").receive({ statuses });
      await waitFor(() => drawn.length > 0, 20_000, "the picture");
      const robots = (drawn[0] as { robots: { serialNumber: string; name: string }[] }).robots;
      assert.equal(robots.find((robot) => robot.serialNumber === KITCHEN)?.name, nameOf(KITCHEN), JSON.stringify(robots));
      assert.match(drawn[0]!.payload as string, new RegExp(`<title>${nameOf(KITCHEN)} \\(${KITCHEN}\\)`));
    });
  });
});
