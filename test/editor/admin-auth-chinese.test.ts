/**
 * A Node-RED as an operator in China may run it: adminAuth on, the runtime in
 * zh-CN, the editor opened in a Chinese browser. The pickers' admin endpoint
 * answers 401 without a login and lists after it; labels, help and the status
 * under a node are Chinese; the flow still works. Real Node-RED, real
 * headless Chromium, the simulator on loopback.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { MAP_OPERATIONS } from "../../src/nodes/robot-maps/table";
import { launchChromium, packageRoot, startNodeRed, type FlowNode, type RunningNodeRed } from "../support/editor";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- Node-RED's own dependency, plain CommonJS
const bcrypt = require("bcryptjs") as { hashSync(password: string, rounds: number): string };

declare const RED: {
  nodes: { node(id: string): unknown };
  editor: { edit(node: unknown): void };
  actions: { invoke(name: string): void };
  sidebar: { show(id: string): void; help: { show(type: string): void } };
  view: { select(id: string): void };
};
declare const $: { ajax(options: object): Promise<unknown> };

const USER = "operator";
const PASSWORD = "s3cret-for-tests";
const CONFIG = "cfg";

function flow(simulatorUrl: string): FlowNode[] {
  return [
    { id: "t1", type: "tab", label: "地图" },
    { id: CONFIG, type: "robot-config", name: "模拟云", baseUrl: simulatorUrl, authMode: "token" },
    {
      id: "go",
      type: "inject",
      z: "t1",
      name: "",
      props: [{ p: "payload" }],
      repeat: "",
      crontab: "",
      once: false,
      onceDelay: 0.1,
      topic: "",
      payload: "",
      payloadType: "date",
      x: 120,
      y: 80,
      wires: [["maps"]],
    },
    {
      id: "maps",
      type: "robot-maps",
      z: "t1",
      name: "",
      robot: CONFIG,
      serialNumber: "GS-S-000101",
      serialNumberType: "str",
      operation: "listMaps",
      mapId: "",
      mapIdType: "str",
      x: 320,
      y: 80,
      wires: [["out"]],
    },
    {
      id: "out",
      type: "debug",
      z: "t1",
      name: "maps out",
      active: true,
      tosidebar: true,
      console: false,
      complete: "payload[0].mapName",
      targetType: "msg",
      x: 520,
      y: 80,
      wires: [],
    },
  ];
}

describe("editor: adminAuth and Chinese (own Node-RED, headless Chromium)", function () {
  this.timeout(120_000);
  let simulator: RunningSimulator;
  let nodeRed: RunningNodeRed;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    simulator = await startSimulator({ port: 0, quiet: true, rateLimit: false });
    nodeRed = await startNodeRed(
      flow(simulator.url),
      { [CONFIG]: { token: DEMO_TOKEN } },
      {
        lang: "zh-CN",
        adminAuth: { type: "credentials", users: [{ username: USER, password: bcrypt.hashSync(PASSWORD, 8), permissions: "*" }] },
      },
    );
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await nodeRed?.stop();
    await simulator?.close();
  });

  const lookup = `robot-fleet/config/${CONFIG}/robots`;

  it("answers the pickers' lookups with 401 to a request without a login", async () => {
    const answer = await fetch(new URL(lookup, nodeRed.url));
    assert.equal(answer.status, 401);
    assert.ok(!(await answer.text()).includes("GS-S-000101"));
  });

  it("answers them to a logged-in user: the account's robots, and no token", async () => {
    const grant = await fetch(new URL("auth/token", nodeRed.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_id: "node-red-editor", grant_type: "password", scope: "*", username: USER, password: PASSWORD }),
    });
    assert.equal(grant.status, 200);
    const { access_token: token } = (await grant.json()) as { access_token: string };
    const answer = await fetch(new URL(lookup, nodeRed.url), { headers: { authorization: `Bearer ${token}` } });
    assert.equal(answer.status, 200);
    const text = await answer.text();
    const robots = JSON.parse(text) as Array<{ serialNumber: string; displayName: string; online: boolean }>;
    assert.deepEqual(
      robots.map((robot) => robot.serialNumber),
      simulator.state.serialNumbers(),
    );
    assert.deepEqual(robots[0], { serialNumber: "GS-S-000101", displayName: "Lobby scrubber", online: true });
    assert.ok(!text.includes(DEMO_TOKEN));
  });

  describe("in a Chinese browser, after logging in", () => {
    before(async () => {
      page = await browser.newPage({ locale: "zh-CN", viewport: { width: 1400, height: 900 } });
      page.setDefaultTimeout(15_000);
      page.on("pageerror", (error) => pageErrors.push(error.message));
      await page.goto(nodeRed.url);
      await page.fill("#node-dialog-login-username", USER);
      await page.fill("#node-dialog-login-password", PASSWORD);
      await page.click("#node-dialog-login-submit");
      await page.waitForSelector(".red-ui-palette-node[data-palette-type='robot-maps']", { timeout: 30_000 });
    });

    it("shows Chinese palette labels", async () => {
      const labels = await page.$$eval(".red-ui-palette-node[data-palette-type^='robot-']", (nodes): Record<string, string> =>
        Object.fromEntries(nodes.map((node) => [node.getAttribute("data-palette-type") ?? "", (node as HTMLElement).innerText.trim()])),
      );
      assert.deepEqual(labels, {
        "robot-command": "指令",
        "robot-site-task": "站点任务",
        "robot-maps": "地图",
        "robot-status": "机群状态",
        "robot-events": "机器人事件",
        "robot-reports": "清洁报告",
        "robot-mqtt": "MQTT 桥接",
        "robot-job": "作业",
        "robot-plan": "计划",
        "robot-upkeep": "保养",
      });
      // The palette's category heading is the editor's language too.
      assert.equal(await page.innerText("#red-ui-palette-header-robot_fleet span"), "机器人车队");
    });

    it("shows a Chinese dialog whose robot list fills through the logged-in session", async () => {
      await page.evaluate(() => RED.editor.edit(RED.nodes.node("maps")));
      await page.waitForSelector(".red-ui-tray .robot-fleet-form", { state: "visible" });
      const labels = await page.$$eval(".red-ui-tray .robot-fleet-form .form-row > label", (list) =>
        list.filter((label) => (label as HTMLElement).offsetParent !== null).map((label) => label.textContent?.trim()),
      );
      assert.deepEqual(labels, ["机器人云", "序列号", "操作", "名称"]);
      // Every operation of the runtime's table, in its order, in the Chinese catalogue's words.
      const chinese = JSON.parse(fs.readFileSync(path.join(packageRoot, "nodes/locales/zh-CN/robot-maps.json"), "utf8")) as {
        "robot-maps": { operations: Record<string, string> };
      };
      assert.deepEqual(
        await page.$$eval("#node-input-operation option", (options) => options.map((option) => option.textContent)),
        MAP_OPERATIONS.map((operation) => chinese["robot-maps"].operations[operation]),
      );
      assert.equal(chinese["robot-maps"].operations.listMaps, "列出机器人的地图");
      await page.click("[data-robot-fleet-picker='serialNumber']");
      const entries = page.locator(".robot-fleet-picker-menu li a");
      await entries.first().waitFor({ state: "visible" });
      assert.equal(await entries.first().innerText(), "GS-S-000101 – Lobby scrubber (在线)");
      await page.keyboard.press("Escape");
      await page.click("#node-dialog-cancel");
      await page.waitForSelector(".red-ui-tray", { state: "detached" });
    });

    it("shows the Chinese help", async () => {
      await page.click("[id='maps'] .red-ui-flow-node");
      await page.evaluate(() => RED.actions.invoke("core:show-node-help"));
      await page.waitForFunction(() => document.querySelector(".red-ui-help-title")?.textContent === "地图");
      const headings = await page.$$eval(".red-ui-help-title + .red-ui-help h3", (list) =>
        list.map((heading) => heading.textContent?.trim()),
      );
      assert.deepEqual(headings, ["输入", "输出", "详细", "参考"]);
    });

    it("shows robot-events' Chinese help, its headings worded as the other nodes' are", async () => {
      await page.evaluate(() => RED.sidebar.help.show("robot-events"));
      await page.waitForFunction(() => document.querySelector(".red-ui-help-title")?.textContent === "机器人事件");
      const help = await page.$eval(".red-ui-help-title + .red-ui-help", (element) => ({
        headings: [...element.querySelectorAll("h3")].map((heading) => heading.textContent?.trim()),
        intro: element.querySelector("p")?.textContent?.trim() ?? "",
      }));
      assert.deepEqual(help.headings, ["属性", "输入", "输出", "详细"]);
      assert.match(help.intro, /^接收机器人云推送的内容/);
      await page.screenshot({ path: "/tmp/editor-help-robot-events-zh.png" });
    });

    it("runs the flow, with the status under the node in the runtime's Chinese", async () => {
      await page.evaluate(() => {
        RED.sidebar.show("debug");
        return $.ajax({ url: "inject/go", type: "POST" });
      });
      const message = page.locator(".red-ui-debug-msg", { hasText: "maps out" }).last();
      await message.waitFor({ state: "visible" });
      assert.match(await message.innerText(), /"Floor 1"/);
      await page.waitForFunction(() => document.querySelector("[id='maps'] .red-ui-flow-node-status-label")?.textContent === "2 张地图");
    });

    it("raised no script error in the page", () => {
      assert.deepEqual(pageErrors, []);
    });
  });
});
