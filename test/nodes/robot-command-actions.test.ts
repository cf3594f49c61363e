/**
 * robot-command's actions (what a console's buttons send) through real
 * Node-RED against the robot-cloud simulator: an action the robot's state
 * refuses ends in one NOT_ALLOWED error naming the robot and the reason, and
 * the simulator receives no command; an allowed one says "sent" on output 2
 * before its end on output 1; a flow without the setting keeps one output;
 * the refusal words in a zh-CN Node-RED, NOT_CONFIRMED's message included.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import robotCommand from "../../src/nodes/robot-command/robot-command";
import { refusalText, type ActionRefusal } from "../../src/api/watching/robot-actions";
import { refusalWords } from "../../src/nodes/shared/refusal-words";
import { DEMO_TOKEN, demoFleet, startSimulator, type RunningSimulator } from "../../src/simulator";
import { executableTasksOf } from "../../src/simulator/world/views";
import { collectMessages, flowWith, helper, loadFlow, useNodeRed, waitFor, type FlowNode } from "../support/node-red";
import { packageRoot, startNodeRed } from "../support/editor";
import { robotCommandNode } from "../support/fixtures";
import { useSimulator } from "../support/simulator";

type Msg = Record<string, unknown>;

/** Idle at Kitchen door, not charging (the demo fleet). */
const IDLE_ROBOT = "GS-S-000102";
/** Charging at its charger. */
const CHARGING_ROBOT = "GS-S-000101";

function catalogueWords(lang: string): Record<string, string> {
  const file = path.join(packageRoot, "nodes", "locales", lang, "robot-fleet.json");
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { "robot-fleet": { refusal: Record<string, string> } })["robot-fleet"].refusal;
}

/** Node-RED's way of filling a catalogue's __name__ parameters, for the catalogue's own texts. */
function translatorOf(words: Record<string, string>) {
  return (key: string, params: Record<string, string | number> = {}) =>
    words[key.replace(/^refusal\./, "")]!.replace(/__(\w+)__/g, (_whole, name: string) => String(params[name]));
}

const EVERY_REFUSAL: ActionRefusal[] = [
  { code: "offline" },
  { code: "emergencyStop" },
  { code: "lost" },
  { code: "remoteControl" },
  { code: "alreadyCharging" },
  { code: "noChargerKnown" },
  { code: "nothingToPause" },
  { code: "alreadyPaused" },
  { code: "nothingToResume" },
  { code: "nothingToStop" },
  { code: "busyWithTask", task: "Lobby" },
  { code: "busyWithTask" },
  { code: "taskPaused", task: "Lobby" },
  { code: "taskPaused" },
  { code: "busyNavigating", point: "Kitchen door" },
  { code: "busyNavigating", point: "charging" },
  { code: "busyNavigating" },
];

describe("robot-command: actions", function () {
  this.timeout(60_000);

  describe("the refusal words", () => {
    it("are refusalText's in English and have Chinese for each", () => {
      const english = translatorOf(catalogueWords("en-US"));
      const chinese = translatorOf(catalogueWords("zh-CN"));
      for (const refusal of EVERY_REFUSAL) {
        assert.equal(refusalWords(english, refusal), refusalText(refusal), JSON.stringify(refusal));
        assert.match(refusalWords(chinese, refusal), /\p{Script=Han}/u, JSON.stringify(refusal));
      }
      assert.deepEqual(Object.keys(catalogueWords("zh-CN")).sort(), Object.keys(catalogueWords("en-US")).sort());
    });
  });

  describe("against the simulator", () => {
    const running = useSimulator();
    let simulator: RunningSimulator;
    let seen: { outputs: Msg[]; sent: Msg[]; caught: Msg[]; order: string[] };

    beforeEach(() => {
      simulator = running.simulator;
      // Each test's robots start from the simulator's seed, not from a status an earlier test kept.
      forgetAccountMemory();
    });
    useNodeRed();

    async function load(settings: Record<string, unknown>): Promise<void> {
      const command: FlowNode = { ...robotCommandNode("cmd", { command: "", serialNumber: "", ...settings }), wires: [["out"], ["sent"]] };
      const flow = flowWith(simulator.url, [
        command,
        { id: "out", type: "helper" },
        { id: "sent", type: "helper" },
        { id: "catch-errors", type: "catch", scope: ["cmd"], uncaught: false, wires: [["caught"]] },
        { id: "caught", type: "helper" },
      ]);
      await loadFlow([robotCommand], flow, { config: { token: DEMO_TOKEN } });
      seen = { outputs: collectMessages("out"), sent: collectMessages("sent"), caught: collectMessages("caught"), order: [] };
      for (const id of ["out", "sent", "caught"]) helper.getNode(id).on("input", () => seen.order.push(id));
    }

    const commandsTo = (serialNumber: string) => simulator.state.commands(serialNumber).length;

    it("refuses pause on an idle robot at once: NOT_ALLOWED with its name and the reason, no command sent", async () => {
      await load({ sentOutput: true });
      helper.getNode("cmd").receive({ topic: "console", serialNumber: IDLE_ROBOT, payload: { action: "pause" } });
      await waitFor(() => seen.caught.length > 0, 10_000, "the refusal");
      const error = seen.caught[0]!.error as { message: string; code: string; cause: { refusal: ActionRefusal } };
      assert.equal(error.code, "NOT_ALLOWED");
      assert.equal(error.message, "RobotApiError: Kitchen scrubber is not cleaning or driving: nothing to pause");
      assert.deepEqual(error.cause.refusal, { code: "nothingToPause" });
      assert.equal(seen.caught[0]!.topic, "console");
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(commandsTo(IDLE_ROBOT), 0);
      assert.deepEqual([seen.outputs.length, seen.sent.length, seen.caught.length], [0, 0, 1]);
    });

    it("refuses toCharger on a robot that is charging, and startTask on one that is cleaning", async () => {
      await load({});
      helper.getNode("cmd").receive({ serialNumber: CHARGING_ROBOT, payload: { action: "toCharger" } });
      simulator.updateRobot(IDLE_ROBOT, { taskState: "RUNNING" });
      helper.getNode("cmd").receive({ serialNumber: IDLE_ROBOT, payload: { action: "startTask", task: "Lobby" } });
      await waitFor(() => seen.caught.length === 2, 10_000, "both refusals");
      const messages = seen.caught.map((msg) => (msg.error as { message: string }).message).sort();
      assert.match(messages[0]!, /^RobotApiError: Kitchen scrubber is cleaning\b.*: pause or stop it first$/);
      assert.equal(messages[1], "RobotApiError: Lobby scrubber is already charging");
      assert.equal(commandsTo(CHARGING_ROBOT) + commandsTo(IDLE_ROBOT), 0);
    });

    describe("toCharger: a task the robot runs or has paused is stopped, and the stop confirmed, before it drives to its charger", () => {
      const sentTypes = (serialNumber: string) => simulator.state.commands(serialNumber).map((command) => command.rawCommandType);
      const ask = async (payload: Msg, ended: number) => {
        helper.getNode("cmd").receive({ serialNumber: IDLE_ROBOT, payload });
        await waitFor(() => seen.outputs.length + seen.caught.length >= ended, 30_000, `${String(payload.action)}'s end`);
        assert.equal(seen.caught.length, 0, JSON.stringify(seen.caught[0]?.error));
      };
      const atCharger = () => {
        assert.match((seen.outputs.at(-1)!.confirmation as { state: string }).state, /^(ARRIVED at charging|charging)$/);
        assert.equal(simulator.state.robot(IDLE_ROBOT)!.battery.charging, true);
      };

      it("cleaning: STOP_TASK, then CROSS_NAVIGATE to charging, arrived", async () => {
        await load({ sendWhen: "shown", confirmTimeout: "20" });
        await ask({ action: "startTask", task: "Lobby", map: "Floor 1" }, 1);
        await ask({ action: "toCharger" }, 2);
        assert.deepEqual(sentTypes(IDLE_ROBOT), ["start_task", "stop_task", "cross_navigate"]);
        atCharger();
      });

      it("its task paused: the same two steps", async () => {
        await load({ sendWhen: "shown", confirmTimeout: "20" });
        await ask({ action: "startTask", task: "Lobby", map: "Floor 1" }, 1);
        await ask({ action: "pause" }, 2);
        await ask({ action: "toCharger" }, 3);
        assert.deepEqual(sentTypes(IDLE_ROBOT), ["start_task", "pause_task", "stop_task", "cross_navigate"]);
        atCharger();
      });

      it("idle: no stop, straight to its charger", async () => {
        await load({ sendWhen: "shown", confirmTimeout: "20" });
        await ask({ action: "toCharger" }, 1);
        assert.deepEqual(sentTypes(IDLE_ROBOT), ["cross_navigate"]);
        atCharger();
      });

      it("a task that does not stop: NOT_CONFIRMED for the stop, and the robot is not sent to its charger", async () => {
        await load({ sendWhen: "shown", confirmTimeout: "5" });
        await ask({ action: "startTask", task: "Lobby", map: "Floor 1" }, 1);
        simulator.setFaults({ ignoreRate: 1 });
        try {
          helper.getNode("cmd").receive({ serialNumber: IDLE_ROBOT, payload: { action: "toCharger" } });
          await waitFor(() => seen.caught.length > 0, 30_000, "the stop not confirmed");
        } finally {
          simulator.setFaults({ ignoreRate: 0 });
        }
        const error = seen.caught[0]!.error as { code: string; message: string };
        assert.equal(error.code, "NOT_CONFIRMED");
        assert.match(error.message, /task state IDLE/);
        assert.deepEqual(sentTypes(IDLE_ROBOT), ["start_task", "stop_task"]);
        assert.equal(seen.outputs.length, 1, "the start's output alone");
      });
    });

    it("sends an allowed action: output 2 says sent before output 1 ends it, once each", async () => {
      await load({ sentOutput: true, sendWhen: "shown", confirmTimeout: "20" });
      const click = { id: "console-1", robot: "Kitchen scrubber" };
      helper.getNode("cmd").receive({ topic: "console", consoleRequest: click, serialNumber: IDLE_ROBOT, payload: { action: "startTask", task: "Lobby", map: "Floor 1" } });
      await waitFor(() => seen.outputs.length + seen.caught.length > 0, 30_000, "the end");
      assert.equal(seen.caught.length, 0, JSON.stringify(seen.caught[0]?.error));
      assert.deepEqual(seen.order, ["sent", "out"]);
      assert.deepEqual(seen.sent[0]!.payload, { event: "sent", command: "START_TASK", action: "startTask" });
      assert.equal(seen.sent[0]!.serialNumber, IDLE_ROBOT);
      assert.equal(seen.sent[0]!.topic, "console");
      assert.deepEqual(seen.sent[0]!.consoleRequest, click, "the asking message's own properties, for a dashboard to match it to its click");
      assert.equal((seen.outputs[0]!.confirmation as { state: string }).state, "RUNNING");
      assert.equal(commandsTo(IDLE_ROBOT), 1);
      assert.equal(simulator.state.robot(IDLE_ROBOT)!.currentTask?.name, "Lobby");
    });

    it("keeps one output for a flow saved without the setting", async () => {
      await load({});
      helper.getNode("cmd").receive({ serialNumber: IDLE_ROBOT, payload: { action: "goTo", point: "charging" } });
      await waitFor(() => seen.outputs.length + seen.caught.length > 0, 10_000, "the end");
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(seen.caught.length, 0, JSON.stringify(seen.caught[0]?.error));
      assert.equal(seen.sent.length, 0);
      assert.equal((seen.outputs[0]!.payload as { rawCommandType: string }).rawCommandType, "cross_navigate");
      assert.equal(commandsTo(IDLE_ROBOT), 1);
    });

    it("names a bad action field and sends nothing", async () => {
      await load({});
      helper.getNode("cmd").receive({ serialNumber: IDLE_ROBOT, payload: { action: "dance" } });
      helper.getNode("cmd").receive({ serialNumber: IDLE_ROBOT, payload: { action: "goTo" } });
      await waitFor(() => seen.caught.length === 2, 10_000, "both errors");
      const messages = seen.caught.map((msg) => (msg.error as { message: string }).message);
      assert.ok(messages.some((text) => text.startsWith("RobotApiError: payload.action: must be one of")), messages.join("\n"));
      assert.ok(messages.some((text) => text.startsWith("RobotApiError: payload.point: is not set")), messages.join("\n"));
      assert.equal(commandsTo(IDLE_ROBOT), 0);
    });
  });

  describe("the examples", () => {
    it("name only tasks and areas the simulator's robots offer", () => {
      const fleet = demoFleet();
      const tasks = new Set(fleet.robots.flatMap((robot) => robot.maps.flatMap((map) => executableTasksOf(robot, map).map((task) => task.name))));
      const areas = new Set(fleet.robots.flatMap((robot) => robot.maps.flatMap((map) => map.partitions.map((partition) => partition.name))));
      const named: string[] = [];
      for (const file of fs.readdirSync(path.join(packageRoot, "examples")).filter((name) => name.endsWith(".json"))) {
        const nodes = JSON.parse(fs.readFileSync(path.join(packageRoot, "examples", file), "utf8")) as FlowNode[];
        for (const node of nodes) {
          const where = `${file} ${String(node.id)}`;
          if (node.type === "robot-command" && node.command === "START_TASK" && (node.taskNameType ?? "str") === "str") {
            assert.ok(tasks.has(String(node.taskName)), `${where}: task "${String(node.taskName)}" is not among ${[...tasks].join(", ")}`);
            named.push(String(node.taskName));
          }
          if (node.type === "robot-job" && (node.work === "task" || node.work === "area")) {
            assert.ok((node.work === "task" ? tasks : areas).has(String(node.target)), `${where}: ${String(node.work)} "${String(node.target)}"`);
            named.push(String(node.target));
          }
        }
      }
      assert.ok(named.length >= 2, `the examples name tasks: ${named.join(", ")}`);
    });
  });

  describe("a Node-RED running in Chinese", () => {
    it("words a refused action and a NOT_CONFIRMED reason in Chinese", async () => {
      const simulator = await startSimulator({ port: 0, quiet: true, rateLimit: false });
      const inject = (id: string, wire: string, msg: Record<string, unknown>): FlowNode => ({
        id,
        type: "inject",
        z: "t1",
        props: [{ p: "payload" }, { p: "serialNumber", v: IDLE_ROBOT, vt: "str" }],
        payload: JSON.stringify(msg),
        payloadType: "json",
        repeat: "",
        crontab: "",
        once: true,
        onceDelay: 0.1,
        topic: "",
        wires: [[wire]],
      });
      const nodeRed = await startNodeRed(
        [
          { id: "t1", type: "tab", label: "指令" },
          { id: "config", type: "robot-config", baseUrl: simulator.url, authMode: "token" },
          inject("press", "action", { action: "pause" }),
          { ...robotCommandNode("action", { command: "", serialNumber: "" }), z: "t1", wires: [[]] },
          inject("plain", "wait", { command: "PAUSE_TASK" }),
          { ...robotCommandNode("wait", { command: "", serialNumber: "", sendWhen: "shown", confirmTimeout: "5" }), z: "t1", wires: [[]] },
        ],
        { config: { token: DEMO_TOKEN } },
        { lang: "zh-CN" },
      );
      try {
        await waitFor(() => nodeRed.output().includes("Kitchen scrubber 未在清洁"), 30_000, "the refusal in Node-RED's log");
        assert.match(nodeRed.output(), /Kitchen scrubber 未在清洁或行驶：无可暂停/);
        await waitFor(() => nodeRed.output().includes("已等待 5 秒"), 30_000, "NOT_CONFIRMED in Node-RED's log");
        assert.match(nodeRed.output(), /[^：]机器人 GS-S-000102 未在清洁或行驶：无可暂停（已等待 5 秒/);
        // The action sent nothing; the plain command was sent (and not carried out).
        assert.equal(simulator.state.commands(IDLE_ROBOT).length, 1);
      } finally {
        await nodeRed.stop();
        await simulator.close();
      }
    });
  });
});
