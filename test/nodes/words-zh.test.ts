/**
 * What a person reads, in a Node-RED running in Chinese (its own process, the
 * simulator on loopback): robot-job's reasons in words in the NO_ROBOT
 * message and the progress text, INVALID_INPUT messages of the rules every
 * node shares, and a confirmed command's state under robot-command. The codes
 * flows switch on (msg.error.code, cause, reason codes, field) stay as in
 * English. A catch node and the job's progress output keep what they get in
 * global context; an http in / http response flow hands it to the test.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { INPUT_PROBLEMS } from "../../src/api/settings/input-problems";
import { JOB_REASONS } from "../../src/api/jobs/dispatch";
import { DEMO_TOKEN, demoFleet, startSimulator, type RunningSimulator } from "../../src/simulator";
import { statusesOf } from "../support/comms";
import { packageRoot, startNodeRed, type FlowNode, type RunningNodeRed } from "../support/editor";
import { robotCommandNode } from "../support/fixtures";

const ROBOT = demoFleet().robots[0]!.serialNumber;

interface Caught {
  source: string;
  code: string;
  message: string;
  cause: { field?: string; robots?: Record<string, string> };
}

/** An inject of the test's tab that fires once at deploy with `payload` (and msg.serialNumber when given). */
function injectOnce(id: string, target: string, payload: unknown, serialNumber?: string): FlowNode {
  return {
    id,
    type: "inject",
    z: "t1",
    props: [{ p: "payload" }, ...(serialNumber === undefined ? [] : [{ p: "serialNumber", v: serialNumber, vt: "str" }])],
    payload: JSON.stringify(payload),
    payloadType: "json",
    repeat: "",
    crontab: "",
    once: true,
    onceDelay: 0.1,
    topic: "",
    wires: [[target]],
  };
}

/** A function node that appends `entry` to the global list `name`. */
function keeper(id: string, name: string, entry: string): FlowNode {
  const func = `const list = global.get("${name}") || []; list.push(${entry}); global.set("${name}", list); return null;`;
  return { id, type: "function", z: "t1", func, outputs: 1, wires: [[]] };
}

/** Polls `found` until it holds (Node-RED's answers come over HTTP and its comms). */
async function until(found: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const started = Date.now();
  while (!(await found())) {
    if (Date.now() - started > ms) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function catalogue(lang: string, name: string): Record<string, unknown> {
  return (JSON.parse(fs.readFileSync(path.join(packageRoot, "nodes", "locales", lang, `${name}.json`), "utf8")) as Record<string, Record<string, unknown>>)[name]!;
}

describe("words a person reads, in Chinese", function () {
  this.timeout(90_000);

  it("has the English of every shared input problem as the API says it, and each in Chinese", () => {
    const english = catalogue("en-US", "robot-fleet").input as Record<string, string>;
    const chinese = catalogue("zh-CN", "robot-fleet").input as Record<string, string>;
    for (const [key, text] of Object.entries(INPUT_PROBLEMS)) {
      assert.equal(english[key], text, key);
      assert.match(chinese[key]!, /\p{Script=Han}/u, key);
    }
  });

  it("has words for every reason a job gives, in both languages", () => {
    for (const lang of ["en-US", "zh-CN"]) {
      const reasons = catalogue(lang, "robot-job").reasons as Record<string, string>;
      for (const key of Object.keys(JOB_REASONS)) assert.ok(reasons[key], `${lang} ${key}`);
    }
  });

  describe("a Node-RED running in zh-CN", () => {
    let simulator: RunningSimulator;
    let nodeRed: RunningNodeRed;

    before(async () => {
      simulator = await startSimulator({ rateLimit: false, quiet: true });
      nodeRed = await startNodeRed(
        [
          { id: "t1", type: "tab", label: "文字" },
          { id: "config", type: "robot-config", baseUrl: simulator.url, authMode: "token" },
          { id: "catchAll", type: "catch", z: "t1", scope: null, uncaught: false, wires: [["keepCaught"]] },
          keeper("keepCaught", "caught", "{ source: msg.error.source.id, code: msg.error.code, message: msg.error.message, cause: msg.error.cause }"),
          keeper("keepProgress", "progress", "msg.payload"),
          { id: "in", type: "http in", z: "t1", url: "/kept", method: "get", wires: [["read"]] },
          {
            id: "read",
            type: "function",
            z: "t1",
            func: 'msg.payload = { caught: global.get("caught") || [], progress: global.get("progress") || [] }; return msg;',
            outputs: 1,
            wires: [["out"]],
          },
          { id: "out", type: "http response", z: "t1", wires: [] },
          // A job no robot is charged enough for (or, off Floor 1, on that map): NO_ROBOT after 5 s, progress "waiting" first.
          injectOnce("ask", "job", { goto: "charging", map: "Floor 1" }),
          { id: "job", type: "robot-job", z: "t1", robot: "config", minBattery: 100, waitUpTo: 5, tries: 3, confirmTimeout: 5, wires: [[], ["keepProgress"]] },
          // A number out of its range: refused before anything is sent.
          injectOnce("tooFull", "job2", { goto: "charging", map: "Floor 1", minBattery: 101 }),
          { id: "job2", type: "robot-job", z: "t1", robot: "config", wires: [[], []] },
          // A serial number that breaks the rule, an action not among the choices, a required field missing.
          injectOnce("badSerial", "command", "", "GS/1"),
          { ...robotCommandNode("command", { command: "PAUSE_TASK", serialNumber: "" }), z: "t1", wires: [[]] },
          injectOnce("dance", "action", { action: "dance" }),
          { ...robotCommandNode("action", { serialNumber: ROBOT }), z: "t1", wires: [[]] },
          injectOnce("goNowhere", "goTo", { action: "goTo" }),
          { ...robotCommandNode("goTo", { serialNumber: ROBOT }), z: "t1", wires: [[]] },
          // A start the robot shows: the confirmed state in words under the node.
          injectOnce("start", "started", ""),
          { ...robotCommandNode("started", { serialNumber: ROBOT, sendWhen: "shown", confirmTimeout: 30 }), z: "t1", wires: [[]] },
        ],
        { config: { token: DEMO_TOKEN } },
        { lang: "zh-CN" },
      );
    });
    after(async () => {
      await nodeRed?.stop();
      await simulator?.close();
    });

    async function kept(): Promise<{ caught: Caught[]; progress: Array<Record<string, unknown>> }> {
      const answer = await fetch(new URL("api/kept", nodeRed.url));
      return (await answer.json()) as { caught: Caught[]; progress: Array<Record<string, unknown>> };
    }

    async function caughtFrom(source: string): Promise<Caught> {
      let found: Caught | undefined;
      await until(async () => {
        found = (await kept()).caught.find((each) => each.source === source);
        return found !== undefined;
      }, `an error from ${source}`);
      return found!;
    }

    it("ends a job no robot can take with each robot's reason in Chinese; the cause keeps the codes", async () => {
      const error = await caughtFrom("job");
      assert.equal(error.code, "NO_ROBOT");
      const robots = error.cause.robots!;
      assert.ok(Object.keys(robots).length >= 3, JSON.stringify(robots));
      // The robot the start below runs a task on is busy.
      for (const reason of Object.values(robots)) assert.match(reason, /^(other map|busy|battery \d+ %)$/);
      const [first, reason] = Object.entries(robots)[0]!;
      const words = reason === "other map" ? "在其他地图上" : reason === "busy" ? "忙碌" : reason.replace(/^battery (\d+) %$/, "电量 $1%");
      assert.match(error.message, new RegExp(`^JobError: NO_ROBOT: 5 秒内没有机器人能接这项作业（${first}：${words}；`));
      assert.doesNotMatch(error.message, /other map|busy|battery/);
      const { progress } = await kept();
      const waiting = progress.find((each) => each.event === "waiting")!;
      assert.ok(waiting, JSON.stringify(progress));
      assert.deepEqual(waiting.reasons, robots);
      assert.match(String(waiting.text), new RegExp(`^等待空闲机器人：${first}：${words}；`));
    });

    it("says a number out of its range in Chinese, the field and code as in English", async () => {
      const error = await caughtFrom("job2");
      assert.equal(error.code, "INVALID_INPUT");
      assert.equal(error.cause.field, "payload.minBattery");
      assert.equal(error.message, "RobotApiError: payload.minBattery: 必须在 0 至 100 % 之间");
    });

    it("says the serial number's rule, the choices and a missing field in Chinese", async () => {
      const serial = await caughtFrom("command");
      assert.equal(serial.code, "INVALID_INPUT");
      assert.equal(serial.message, "RobotApiError: msg.serialNumber: 必须是 1-128 个字母、数字、'-' 或 '_'");
      const action = await caughtFrom("action");
      assert.equal(action.cause.field, "payload.action");
      assert.match(action.message, /^RobotApiError: payload\.action: 必须是以下之一：startTask, goTo, toCharger, pause, resume, stop（收到 "dance"）$/);
      const goTo = await caughtFrom("goTo");
      assert.equal(goTo.message, "RobotApiError: payload.point: 未设置（goTo 需要导航点）");
    });

    it("shows a confirmed command's state in words under robot-command", async () => {
      let statuses = new Map<string, string>();
      await until(async () => {
        statuses = await statusesOf(nodeRed.url, 1000);
        return /运行中/.test(statuses.get("started") ?? "");
      }, "the start shown");
      assert.match(statuses.get("started")!, /^开始任务: 运行中（\d+ 秒）$/);
    });
  });
});
