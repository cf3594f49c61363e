/**
 * fleetView in a Node-RED running in Chinese (its own process, the simulator
 * on loopback, the model fetched through an http in / http response flow):
 * no English word of the package's own anywhere in the model, only the
 * cloud's names (robots, maps, tasks, points) stay as the cloud gave them.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { FleetView } from "../../src/nodes/robot-maps/fleet-view";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { packageRoot, startNodeRed, type RunningNodeRed } from "../support/editor";
import { robotMapsNode } from "../support/fixtures";
import { runTaskOn } from "../support/client-on-server";

const LOBBY = "GS-S-000101";
const LATIN_WORD = /[A-Za-z]{2,}/;

/** Every string in `value`, with where it sits. */
function stringsOf(value: unknown, at = ""): Array<[string, string]> {
  if (typeof value === "string") return [[at, value]];
  if (Array.isArray(value)) return value.flatMap((each, index) => stringsOf(each, `${at}[${index}]`));
  if (typeof value === "object" && value !== null) return Object.entries(value).flatMap(([key, each]) => stringsOf(each, `${at}.${key}`));
  return [];
}

describe("robot-maps: fleetView in Chinese", function () {
  this.timeout(60_000);
  let simulator: RunningSimulator;
  let nodeRed: RunningNodeRed;

  before(async () => {
    simulator = await startSimulator({ rateLimit: false, quiet: true });
    nodeRed = await startNodeRed(
      [
        { id: "t1", type: "tab", label: "操作台" },
        { id: "config", type: "robot-config", baseUrl: simulator.url, authMode: "token" },
        { id: "in", type: "http in", z: "t1", url: "/view", method: "get", wires: [["maps"]] },
        { ...robotMapsNode("maps", { operation: "fleetView", serialNumber: "", mapId: "" }), z: "t1", wires: [["out"]] },
        { id: "out", type: "http response", z: "t1", wires: [] },
      ],
      { config: { token: DEMO_TOKEN } },
      { lang: "zh-CN" },
    );
  });
  after(async () => {
    await nodeRed?.stop();
    await simulator?.close();
  });

  it("has the same words in both catalogues", () => {
    const viewOf = (lang: string) =>
      (JSON.parse(fs.readFileSync(path.join(packageRoot, "nodes", "locales", lang, "robot-maps.json"), "utf8")) as { "robot-maps": { view: unknown } })["robot-maps"].view;
    assert.deepEqual(
      stringsOf(viewOf("zh-CN")).map(([at]) => at),
      stringsOf(viewOf("en-US")).map(([at]) => at),
    );
  });

  it("says states, actions, task progress, levels and every word in Chinese", async () => {
    await runTaskOn(simulator, LOBBY, "All of Floor 1", "Floor 1");

    const response = await fetch(new URL("api/view", nodeRed.url));
    assert.equal(response.status, 200, nodeRed.output());
    const model = (await response.json()) as FleetView;
    assert.ok(model.robots.length > 0);

    // {time}, {by}, {robot}: what the console fills in, not words.
    const english = stringsOf(model.words).filter(([, text]) => LATIN_WORD.test(text.replace(/\{\w+\}/g, "")));
    assert.deepEqual(english, [], "words");
    for (const robot of model.robots) {
      // The cloud's own names (the task's) are left as they are; the package's words around them are not English.
      const own = robot.stateText.replace(robot.task?.name ?? "\u0000", "");
      assert.doesNotMatch(own, LATIN_WORD, `${robot.name}: ${robot.stateText}`);
      assert.match(own, /\p{Script=Han}/u, robot.stateText);
      for (const { label } of robot.actions) assert.match(label, /^[\p{Script=Han}\s]+$/u, label);
    }
    const lobby = model.robots.find((robot) => robot.serialNumber === LOBBY)!;
    assert.equal(lobby.stateText, "正在清洁All of Floor 1");
    assert.match(lobby.task!.text, /^\d+% · 剩余(不到 1 分钟| \d+ 分钟)$/);
    assert.deepEqual(
      lobby.actions.map((action) => action.label),
      ["回充电桩", "暂停", "停止"],
    );
    for (const floor of model.floors) {
      // The legend only: "charging" is also the cloud's name of the charger's navigation point.
      // Without the areas' chips: their names are the cloud's ("Lobby").
      const legend = floor.svg.slice(floor.svg.indexOf('<g class="legend"')).replace(/<g class="area" .*?<\/g>/g, "");
      assert.match(legend, /<text[^>]*>空闲<\/text>/, "the legend's states in Chinese");
      assert.doesNotMatch(legend, />[^<]*[A-Za-z]{2,}[^<]*</, floor.mapName);
    }
  });
});
