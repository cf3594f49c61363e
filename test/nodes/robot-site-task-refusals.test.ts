/**
 * A temporary task the robot refuses names what its code means, in the
 * runtime's language: the catalogues say what the API's table says, and a
 * Node-RED running in zh-CN (its own process, the simulator on loopback)
 * reports the simulator's refusal in Chinese, the code beside it.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { TEMP_TASK_REFUSALS } from "../../src/api/errors";
import { DEMO_TOKEN, demoFleet, startSimulator, type RunningSimulator } from "../../src/simulator";
import { statusesOf } from "../support/comms";
import { packageRoot, startNodeRed, type FlowNode, type RunningNodeRed } from "../support/editor";
import { robotCommandNode, robotSiteTaskNode } from "../support/fixtures";
import { waitFor } from "../support/push-receiver";

/** An inject node of the test's tab that fires once at deploy, with `payload` as JSON (an empty string without). */
function injectOnce(id: string, target: string, payload?: unknown): FlowNode {
  return {
    id,
    type: "inject",
    z: "t1",
    props: [{ p: "payload" }],
    ...(payload === undefined ? { payload: "", payloadType: "str" } : { payload: JSON.stringify(payload), payloadType: "json" }),
    repeat: "",
    crontab: "",
    once: true,
    onceDelay: 0.1,
    topic: "",
    wires: [[target]],
  };
}

function catalogue(lang: string): { rejected: Record<string, string>; refusals: Record<string, string> } {
  const file = path.join(packageRoot, "nodes", "locales", lang, "robot-site-task.json");
  return (JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, { rejected: Record<string, string>; refusals: Record<string, string> }>)["robot-site-task"]!;
}

describe("robot-site-task: refusal codes in words", function () {
  it("has each published meaning in English (as the API words it) and in Chinese", () => {
    const english = catalogue("en-US");
    const chinese = catalogue("zh-CN");
    for (const [code, { key, meaning }] of Object.entries(TEMP_TASK_REFUSALS)) {
      assert.equal(english.refusals[key], meaning, code);
      assert.match(String(chinese.refusals[key]), /\p{Script=Han}/u, code);
    }
    assert.deepEqual(Object.keys(chinese.refusals).sort(), Object.keys(english.refusals).sort());
    for (const text of [...Object.values(english.rejected), ...Object.values(chinese.rejected)]) assert.match(text, /__code__/);
  });

  describe("a Node-RED running in Chinese", function () {
    this.timeout(60_000);
    let simulator: RunningSimulator;
    let nodeRed: RunningNodeRed;
    const robot = demoFleet().robots[0]!;
    const map = robot.maps[0]!;

    before(async () => {
      simulator = await startSimulator({ quiet: true, rateLimit: false });
      // An area the map does not have: the simulator refuses it with 2010100009 (task parameters rejected).
      const body = {
        productId: robot.serialNumber,
        tempTaskCommand: {
          taskName: "Spot clean",
          cleaningMode: robot.cleanModes[0],
          loop: "false",
          loopCount: "1",
          mapName: map.name,
          startParam: { mapId: map.id, areaId: "99" },
        },
      };
      nodeRed = await startNodeRed(
        [
          { id: "t1", type: "tab", label: "任务" },
          { id: "config", type: "robot-config", baseUrl: simulator.url, authMode: "token" },
          injectOnce("go", "site", body),
          { ...robotSiteTaskNode("site", { operation: "sendTempTask", bodyFrom: "payload" }), z: "t1", wires: [[]] },
          // A status read: its task state under the node, in Chinese.
          injectOnce("read", "state"),
          { ...robotSiteTaskNode("state", { operation: "status", serialNumber: robot.serialNumber }), z: "t1", wires: [[]] },
          // A command the cloud accepted: its name and state under the node, in Chinese.
          injectOnce("pause", "command"),
          { ...robotCommandNode("command", { command: "PAUSE_TASK", serialNumber: robot.serialNumber }), z: "t1", wires: [[]] },
          // A job no robot can take (on a map none of them is on): NO_ROBOT after a second, its words in Chinese.
          injectOnce("ask", "job", { goto: "charging", map: "No such floor" }),
          { id: "job", type: "robot-job", z: "t1", robot: "config", minBattery: 0, waitUpTo: 1, tries: 3, confirmTimeout: 5, wires: [[], []] },
        ],
        { config: { token: DEMO_TOKEN } },
        { lang: "zh-CN" },
      );
    });

    after(async () => {
      await nodeRed?.stop();
      await simulator?.close();
    });

    it("reports COMMAND_REJECTED with the code and its meaning in Chinese", async () => {
      await waitFor(() => nodeRed.output().includes("2010100009"), "the refusal in Node-RED's log", 30_000);
      const line = nodeRed.output().split("\n").find((text) => text.includes("2010100009"))!;
      assert.match(line, /sendTempTask: 机器人拒绝了临时任务（cmdResultCode 2010100009：任务参数被拒绝（最常见的原因是 areaId 错误，或机器人不支持该清洁模式））/);
    });

    it("ends a job no robot can take with NO_ROBOT in Chinese", async () => {
      await waitFor(() => nodeRed.output().includes("NO_ROBOT"), "the job's end in Node-RED's log", 30_000);
      const line = nodeRed.output().split("\n").find((text) => text.includes("NO_ROBOT"))!;
      assert.match(line, /NO_ROBOT: 1 秒内没有机器人能接这项作业/);
    });

    it("shows a status read's task state and an accepted command in Chinese under the node", async () => {
      const statuses = await statusesOf(nodeRed.url);
      assert.match(statuses.get("state") ?? "", /^空闲 \d+%$/, JSON.stringify([...statuses]));
      assert.equal(statuses.get("command"), "暂停任务: 等待中");
    });
  });
});
