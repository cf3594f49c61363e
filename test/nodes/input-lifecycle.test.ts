/**
 * One input lifecycle for every node that takes messages
 * (src/nodes/shared/robot-input.ts), tried through each of them in real
 * Node-RED against a recording cloud:
 * - a node with no account shows it under itself, logs it at deploy when it
 *   works without messages too, and ends each message with it (the bridge,
 *   fed by mqtt in, ends them quietly);
 * - a refused message whose property throws when copied still reaches the
 *   Catch node, with that property cleared, and nothing is sent to the cloud;
 * - a node closed while its message is under way abandons it: neither output
 *   nor error.
 */
import assert from "node:assert/strict";
import robotCommand from "../../src/nodes/robot-command/robot-command";
import robotEvents from "../../src/nodes/robot-events/robot-events";
import robotJob from "../../src/nodes/robot-job";
import robotMaps from "../../src/nodes/robot-maps/robot-maps";
import robotMqtt from "../../src/nodes/robot-mqtt";
import robotPlan from "../../src/nodes/robot-plan";
import robotReports from "../../src/nodes/robot-reports";
import robotSiteTask from "../../src/nodes/robot-site-task/robot-site-task";
import robotStatus from "../../src/nodes/robot-status/robot-status";
import robotUpkeep from "../../src/nodes/robot-upkeep";
import { robotCommandNode, robotMapsNode, robotSiteTaskNode, SERIAL } from "../support/fixtures";
import {
  collectMessages,
  flowWith,
  helper,
  isDirectoryRead,
  loadFlow,
  recordStatuses,
  useRecordingServerAndNodeRed,
  TEST_TOKEN,
  waitFor,
  type FlowNode,
} from "../support/node-red";

const MODULES = [robotCommand, robotSiteTask, robotMaps, robotStatus, robotEvents, robotJob, robotPlan, robotReports, robotMqtt, robotUpkeep];

/** Each node that takes messages, as a flow node with its settings, and a payload it refuses as bad input. */
interface Taker {
  type: string;
  node(id: string, robot: string): FlowNode;
  /** How a node with no account takes a message: its error each time, or quietly. */
  eachMessage: boolean;
  /** Whether a node with no account logs its problem at deploy (it works without messages too). */
  atDeploy: boolean;
  /** A message it refuses before anything is sent; undefined: it refuses no message (the bridge answers on MQTT). */
  refused?: Record<string, unknown>;
}

const TAKERS: Taker[] = [
  { type: "robot-command", node: (id, robot) => ({ ...robotCommandNode(id), robot }), eachMessage: true, atDeploy: false, refused: { payload: "x", serialNumber: "not a serial" } },
  { type: "robot-site-task", node: (id, robot) => ({ ...robotSiteTaskNode(id), robot }), eachMessage: true, atDeploy: false, refused: { payload: 42, serialNumber: "not a serial" } },
  { type: "robot-maps", node: (id, robot) => ({ ...robotMapsNode(id), robot }), eachMessage: true, atDeploy: false, refused: { payload: "x", serialNumber: "not a serial" } },
  {
    type: "robot-status",
    node: (id, robot) => ({ id, type: "robot-status", robot, operation: "status", serialNumber: "", line: "v1", interval: 30, batteryStep: 10, batteryLow: 20 }),
    eachMessage: true,
    atDeploy: false,
    refused: { payload: "x", serialNumber: "not a serial" },
  },
  {
    type: "robot-status (watching)",
    node: (id, robot) => ({ id, type: "robot-status", robot, watch: true, serialNumbers: "", line: "v1", interval: 30, batteryStep: 10, batteryLow: 20 }),
    eachMessage: true,
    atDeploy: true,
  },
  {
    type: "robot-events",
    node: (id, robot) => ({ id, type: "robot-events", robot, path: `/robot-pushes-${id}`, minLevel: "" }),
    eachMessage: true,
    atDeploy: false,
    refused: { payload: { acknowledge: { serialNumber: SERIAL } } },
  },
  {
    type: "robot-job",
    node: (id, robot) => ({ id, type: "robot-job", robot, minBattery: 0, waitUpTo: 30, tries: 3, confirmTimeout: 10 }),
    eachMessage: true,
    atDeploy: false,
    refused: { payload: { map: "Floor 1" } },
  },
  {
    type: "robot-plan",
    node: (id, robot) => ({ id, type: "robot-plan", robot, timezone: "UTC", lateBy: 15, skipDates: [], plan: [] }),
    eachMessage: true,
    atDeploy: true,
    refused: { payload: { plan: [{ name: "Lobby", days: "someday", at: "06:00", map: "Floor 1", task: "Lobby" }] } },
  },
  {
    type: "robot-reports",
    node: (id, robot) => ({ id, type: "robot-reports", robot, serialNumbers: "", every: 15, since: 7, keep: 90, timeZone: "UTC" }),
    eachMessage: true,
    atDeploy: true,
    refused: { payload: { kpi: { group: "nonsense" } } },
  },
  {
    type: "robot-upkeep",
    node: (id, robot) => ({ id, type: "robot-upkeep", robot, serialNumbers: "", every: 0, partDue: 10, cleanWaterBelow: 15, recoveryWaterAbove: 85, batteryHotAbove: 55 }),
    eachMessage: true,
    atDeploy: true,
    refused: { payload: { replaced: { serialNumber: SERIAL, part: "wheel" } } },
  },
  {
    type: "robot-mqtt",
    node: (id, robot) => ({ id, type: "robot-mqtt", robot, interval: 5, serialNumbers: "", prefix: "homeassistant", base: "robot-fleet", startTasks: "" }),
    eachMessage: false,
    atDeploy: true,
  },
];

/** The account's token, and robot-events' app id (without one it refuses every push, and says so at deploy). */
const CREDENTIALS = { config: { token: TEST_TOKEN }, lonely: { appId: "lifecycle-app" }, taker: { appId: "lifecycle-app" } };

/** Log entries at error level that name node `id`. */
function errorsLoggedBy(id: string, from: number): unknown[] {
  const calls = helper.log().getCalls().slice(from) as Array<{ args: unknown[] }>;
  return calls.map((call) => call.args[0] as { level?: number; id?: string }).filter((entry) => entry.level === 20 && entry.id === id);
}

/** Deploys `node` with its first output at the helper "out" and its errors caught at "caught". */
async function deploy(node: FlowNode, cloudUrl: string): Promise<void> {
  const nodes: FlowNode[] = [
    { ...node, wires: [["out"], [], []] },
    { id: "out", type: "helper" },
    { id: "catch-errors", type: "catch", scope: [node.id], uncaught: false, wires: [["caught"]] },
    { id: "caught", type: "helper" },
  ];
  await loadFlow(MODULES, flowWith(cloudUrl, nodes), CREDENTIALS);
}

describe("one input lifecycle through every node that takes messages", function () {
  this.timeout(30_000);
  const stub = useRecordingServerAndNodeRed();

  describe("a node with no robot-config", () => {
    for (const taker of TAKERS) {
      it(`${taker.type}: says so under itself, ${taker.atDeploy ? "logs it at deploy" : "logs nothing at deploy"}, and ${taker.eachMessage ? "ends each message with it" : "ends messages quietly"}`, async () => {
        const logFrom = 0;
        await deploy(taker.node("lonely", ""), stub.server.url);
        const caught = collectMessages("caught");
        const out = collectMessages("out");
        const statuses = recordStatuses("lonely");
        assert.equal(errorsLoggedBy("lonely", logFrom).length, taker.atDeploy ? 1 : 0, `errors logged at deploy: ${JSON.stringify(errorsLoggedBy("lonely", logFrom))}`);
        for (let i = 0; i < 3; i++) helper.getNode("lonely").receive({ payload: { map: "Floor 1", task: "Lobby" }, topic: `m${i}` });
        if (taker.eachMessage) await waitFor(() => caught.length === 3, 5000, "three errors at the Catch node");
        else await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(caught.length, taker.eachMessage ? 3 : 0);
        for (const [i, msg] of caught.entries()) {
          assert.equal(msg.topic, `m${i}`);
          assert.match((msg.error as { message: string }).message, /robot-config|robot/);
        }
        assert.equal(out.length, 0, "no output");
        assert.equal(stub.server.requests.filter((request) => !isDirectoryRead(request)).length, 0, "nothing sent");
        assert.equal(errorsLoggedBy("lonely", logFrom).length, taker.atDeploy ? 1 : 0, "no error logged per message");
        // Redrawn per refused message, or drawn once at deploy: whichever, it is red and names the config.
        assert.ok(statuses.every((status) => status.fill === "red"), JSON.stringify(statuses));
      });
    }
  });

  describe("a refused message whose property throws when copied", () => {
    for (const taker of TAKERS.filter((each) => each.refused)) {
      it(`${taker.type}: the Catch node gets the error, the property cleared, nothing sent`, async () => {
        await deploy(taker.node("taker", "config"), stub.server.url);
        const caught = collectMessages("caught");
        const out = collectMessages("out");
        const msg: Record<string, unknown> = { ...taker.refused, topic: "hostile" };
        Object.defineProperty(msg, "trap", {
          enumerable: true,
          configurable: true,
          get() {
            throw new Error("read me not");
          },
        });
        helper.getNode("taker").receive(msg);
        await waitFor(() => caught.length === 1, 5000, "the error at the Catch node");
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(caught.length, 1, "one error");
        assert.equal(caught[0]!.topic, "hostile");
        assert.equal(caught[0]!.trap, undefined);
        assert.equal((caught[0]!.error as { code?: string }).code, "INVALID_INPUT", JSON.stringify(caught[0]!.error));
        assert.equal(out.length, 0, "no output");
        assert.equal(stub.server.requests.filter((request) => !isDirectoryRead(request)).length, 0, "nothing sent");
      });
    }
  });

  describe("a node closed while its message is under way", () => {
    const underWay: Array<[string, Record<string, unknown>]> = [
      ["robot-command", { payload: { commandType: "PAUSE_TASK" }, serialNumber: SERIAL }],
      ["robot-maps", { payload: "x", serialNumber: SERIAL }],
      ["robot-status", { payload: "x", serialNumber: SERIAL }],
    ];
    for (const [type, message] of underWay) {
      it(`${type}: abandons it, with neither output nor error`, async () => {
        // The cloud answers nothing within the test: every call stays under way until the node closes.
        stub.server.respondWith((request) => (isDirectoryRead(request) ? { body: { robots: [], total: 0 } } : { body: {}, delayMs: 20_000 }));
        const taker = TAKERS.find((each) => each.type === type)!;
        await deploy(taker.node("taker", "config"), stub.server.url);
        const caught = collectMessages("caught");
        const out = collectMessages("out");
        const logFrom = helper.log().callCount;
        helper.getNode("taker").receive(message);
        await waitFor(() => stub.server.requests.some((request) => !isDirectoryRead(request)), 5000, "a call under way");
        const closing = helper.getNode("taker") as unknown as { close(removed: boolean): Promise<void> };
        await closing.close(false);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(out.length, 0, "no output");
        assert.equal(caught.length, 0, "no error at the Catch node");
        assert.equal(errorsLoggedBy("taker", logFrom).length, 0, "no error logged");
      });
    }
  });
});
