/**
 * The dialogs' live pickers in real headless Chromium against the running
 * demo (the simulator behind its deployed robot-config): a value picked from
 * the cloud's lists is deployed and works; a config not yet deployed says so;
 * and the dialogs accept exactly what the runtime accepts (serial numbers,
 * base URL, bounds, required fields).
 */
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { normaliseBaseUrl } from "../../src/api/client";
import { DEMO_TOKEN } from "../../src/simulator";
import { DEMO_CONFIG_ID } from "../../src/demo/flows";
import { confirmTimeoutMs } from "../../src/nodes/shared/confirm";
import { WATCH_LIMITS } from "../../src/nodes/robot-status/table";
import { SerialNumber } from "../../src/api/cloud/schemas";
import { startDemo, type RunningDemo } from "../support/demo-process";
import { launchChromium, openEditor, packageRoot, type FlowNode, type OpenEditor } from "../support/editor";

/** Node-RED's editor globals, as far as these tests use them. */
declare const RED: {
  nodes: {
    dirty(): boolean;
    node(id: string): { valid?: boolean; validationErrors?: string[] } | null;
    getType(type: string): { defaults: Record<string, { validate?: (this: unknown, v: unknown, opt?: object) => unknown }> };
  };
  view: { importNodes(nodes: object[], options?: object): void };
  workspaces: { show(id: string): void };
  editor: { edit(node: unknown): void; editConfig(name: string, type: string, id: string): void; validateNode(node: object): void };
  sidebar: { show(id: string): void };
  actions: { invoke(name: string): void };
  tray: { close(): void };
};
declare const $: ((selector: string) => { typedInput(method: string, value?: unknown): unknown }) & {
  ajax(options: object): Promise<unknown>;
};

const TAB = "pickers-tab";

let placed = 0;
/** Adds nodes to the test's tab, below those added before; nothing is deployed. */
function add(page: Page, nodes: FlowNode[]): Promise<void> {
  const row = placed++;
  // Config nodes belong to no tab and have no place on it.
  const onTab = nodes.map((node, index) =>
    node.type === "robot-config" ? node : { z: TAB, x: 160 + 220 * index, y: 80 + 80 * row, ...node },
  );
  return page.evaluate((flow) => RED.view.importNodes(flow, { generateIds: false }), onTab);
}

/** inject → node → debug showing `shown` of each message. */
function injectInto(id: string, node: { type: string } & Record<string, unknown>, shown: string): FlowNode[] {
  // The inject last: a full deploy answers before the flows have started, and Node-RED creates a flow's nodes in
  // order; an inject that exists before the node it feeds would send into nothing (Node-RED drops the message).
  return [
    {
      id: `${id}-debug`,
      type: "debug",
      name: `${id} out`,
      active: true,
      tosidebar: true,
      // Also in the demo's log: a failed wait then tells a message never sent from one the sidebar did not show.
      console: true,
      complete: shown,
      targetType: "msg",
      wires: [],
    },
    { ...node, id, robot: DEMO_CONFIG_ID, wires: node.type === "robot-status" ? [[`${id}-debug`], []] : [[`${id}-debug`]] },
    {
      id: `${id}-inject`,
      type: "inject",
      name: "",
      props: [{ p: "payload" }],
      repeat: "",
      crontab: "",
      once: false,
      onceDelay: 0.1,
      topic: "",
      payload: "",
      payloadType: "date",
      wires: [[id]],
    },
  ];
}

describe("editor: live pickers on the demo (headless Chromium)", function () {
  this.timeout(180_000);
  let demo: RunningDemo;
  let browser: Browser;
  let editor: OpenEditor;
  let page: Page;

  before(async () => {
    demo = await startDemo();
    browser = await launchChromium();
    editor = await openEditor(browser, `${demo.urls.editor}/`);
    page = editor.page;
    await page.evaluate((tab) => {
      RED.view.importNodes([{ id: tab, type: "tab", label: "pickers" }], { generateIds: false });
      RED.workspaces.show(tab);
      RED.sidebar.show("debug");
    }, TAB);
  });

  after(async () => {
    await browser?.close();
    if (demo) assert.equal(await demo.stop(), 0);
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed")
      await page.screenshot({ path: `/tmp/pickers-failed-${Date.now()}.png` }).catch(() => undefined);
    for (let open = await page.$$(".red-ui-tray"); open.length > 0; open = await page.$$(".red-ui-tray")) {
      await page.evaluate(() => RED.tray.close());
      await page.waitForFunction((count) => document.querySelectorAll(".red-ui-tray").length < count, open.length);
    }
  });

  async function edit(id: string): Promise<void> {
    await page.evaluate((node) => RED.editor.edit(RED.nodes.node(node)), id);
    await page.waitForSelector(".red-ui-tray .robot-fleet-form", { state: "visible" });
  }

  /**
   * Opens the picker beside `field`, waits for its list and picks the entry
   * holding `entry`; with `screenshot`, the open dialog is photographed first.
   */
  async function pick(field: string, entry: string, screenshot?: string): Promise<string[]> {
    await page.click(`[data-robot-fleet-picker='${field}']`);
    const menu = page.locator(".robot-fleet-picker-menu li a");
    await menu.first().waitFor({ state: "visible" });
    const entries = await menu.allInnerTexts();
    if (screenshot) {
      const tray = (await page.locator(".red-ui-tray .red-ui-tray-body").last().boundingBox())!;
      await page.screenshot({ path: screenshot, clip: { ...tray, height: Math.min(tray.height, 480) } });
    }
    await menu.filter({ hasText: entry }).first().click();
    // A click that lands while the popover is still placing itself can miss (seen once in CI): click again once.
    const closed = await page.waitForSelector(".robot-fleet-picker-menu", { state: "detached", timeout: 3000 }).then(
      () => true,
      () => false,
    );
    if (!closed) {
      await menu.filter({ hasText: entry }).first().click();
      await page.waitForSelector(".robot-fleet-picker-menu", { state: "detached" });
    }
    return entries;
  }

  const value = (field: string) => page.inputValue(`#node-input-${field}`);
  const valid = (id: string) => page.evaluate((node) => RED.nodes.node(node)!.valid, id);

  /** Where a screenshot for the README goes: docs/images/ with UPDATE_SCREENSHOTS=1, else the temp directory. */
  const screenshotPath = (name: string) =>
    path.join(process.env.UPDATE_SCREENSHOTS ? path.join(packageRoot, "docs/images") : os.tmpdir(), name);

  async function deployAndInject(id: string, expected: RegExp): Promise<string> {
    await page.click("#red-ui-header-button-deploy");
    await page.waitForFunction(() => !RED.nodes.dirty());
    // Only this message in the sidebar (the demo's watch flow talks too), and no notification over the canvas.
    await page.evaluate(() => {
      RED.actions.invoke("core:clear-debug-messages");
      document.querySelectorAll<HTMLElement>(".red-ui-notification").forEach((notification) => (notification.style.visibility = "hidden"));
    });
    const message = page.locator(".red-ui-debug-msg", { hasText: `${id} out` }).last();
    // A full deploy answers before the flows have started again: the inject exists once its flow has (it is the
    // flow's last node). Should an inject still be lost while the flows start, it is sent again, three times at most.
    // The node's answer takes calls to the simulator after every flow restarted (every poller, the robot list, the
    // reports' sweep, paced at the account's 20 calls/s): in the whole suite on two cores, up to 15 s (alone: 1 s).
    for (let injects = 1; ; injects++) {
      await page.waitForFunction(
        (node) =>
          $.ajax({ url: `inject/${node}-inject`, type: "POST" }).then(
            () => true,
            () => false,
          ),
        id,
        { polling: 250 },
      );
      const answered = await message.waitFor({ state: "visible", timeout: 30_000 }).then(
        () => true,
        () => false,
      );
      if (answered) break;
      if (injects === 3) {
        const sidebar = await page.evaluate(() =>
          [...document.querySelectorAll<HTMLElement>(".red-ui-debug-msg")].slice(-5).map((shown) => shown.innerText.replace(/\s+/g, " ")),
        );
        throw new Error(
          `no "${id} out" debug message after 3 injects 30 s apart; the sidebar's last messages:\n${sidebar.join("\n")}\nthe demo's last output:\n${demo.output().slice(-3000)}`,
        );
      }
    }
    const text = (await message.innerText()).replace(/\s+/g, " ");
    assert.match(text, expected);
    return text;
  }

  it("shows the deployed robot-config with the simulator's base URL and a stored token (the README's first step)", async () => {
    await page.evaluate((id) => RED.editor.editConfig("", "robot-config", id), DEMO_CONFIG_ID);
    await page.waitForSelector("#node-config-input-baseUrl", { state: "visible" });
    assert.equal(await page.inputValue("#node-config-input-baseUrl"), demo.urls.simulator);
    // A stored token shows as a placeholder value, never as the token.
    assert.notEqual(await page.inputValue("#node-config-input-token"), DEMO_TOKEN);
    const tray = (await page.locator(".red-ui-tray .red-ui-tray-body").last().boundingBox())!;
    await page.screenshot({ path: screenshotPath("first-flow-config.png"), clip: { ...tray, height: Math.min(tray.height, 260) } });
  });

  it("robot-command: the robot, map and position come from the cloud's lists; deployed, the command is accepted", async () => {
    await add(
      page,
      injectInto(
        "pick-command",
        { type: "robot-command", command: "CROSS_NAVIGATE", serialNumber: "", map: "", position: "" },
        "payload.state",
      ),
    );
    assert.equal(await valid("pick-command"), false, "map and position empty: invalid before deploy");
    await edit("pick-command");
    const robots = await pick("serialNumber", "GS-S-000102");
    assert.ok(
      robots.some((text) => /^GS-S-000101 – Lobby scrubber \(online\)$/.test(text)),
      robots.join(" | "),
    );
    const maps = await pick("map", "Floor 2");
    assert.deepEqual(
      maps.map((text) => text.replace(/ \(.*\)$/, "")),
      ["Floor 1", "Floor 2"],
    );
    // The README shows this picker: UPDATE_SCREENSHOTS=1 npm test writes it to docs/images/.
    const positions = await pick("position", "charging", screenshotPath("picker-position.png"));
    assert.ok(positions.includes("Kitchen door"), positions.join(" | "));
    assert.deepEqual([await value("serialNumber"), await value("map"), await value("position")], ["GS-S-000102", "Floor 2", "charging"]);
    await page.click("#node-dialog-ok");
    assert.equal(await valid("pick-command"), true);
    await deployAndInject("pick-command", /WAITING/);
    // The README's first flow ends with this: the flow, the accepted command under its node.
    await page.screenshot({ path: screenshotPath("first-flow-deployed.png"), clip: { x: 180, y: 40, width: 700, height: 120 } });
  });

  it("robot-site-task: picking a map fills its id and name, picking an area its id and name; the temporary task is accepted", async () => {
    await add(
      page,
      injectInto(
        "pick-site-task",
        {
          type: "robot-site-task",
          operation: "sendTempTask",
          bodyFrom: "fields",
          serialNumber: "",
          taskName: "Spill",
          mapName: "",
          mapId: "",
          areaId: "",
          areaName: "",
          cleaningMode: "",
        },
        "payload.orderType",
      ),
    );
    const errors = await page.evaluate(() => RED.nodes.node("pick-site-task")!.validationErrors ?? []);
    assert.deepEqual(
      [...errors].sort(),
      ["Area id is required", "Cleaning mode is required", "Map id is required", "Map name is required"],
      "the four empty fields the task needs",
    );
    await edit("pick-site-task");
    await pick("serialNumber", "GS-S-000101");
    await pick("mapId", "Floor 1");
    assert.equal(await value("mapName"), "Floor 1", "the map's name came with its id");
    assert.match(await value("mapId"), /^[0-9a-f-]{36}$/);
    const areas = await pick("areaId", "Kitchen");
    assert.deepEqual(areas, ["Lobby (1)", "Corridor (2)", "Kitchen (3)"]);
    assert.deepEqual([await value("areaId"), await value("areaName")], ["3", "Kitchen"]);
    const modes = await pick("cleaningMode", "清扫");
    assert.ok(modes.includes("middle_cleaning – medium intensity"), modes.join(" | "));
    await page.click("#node-dialog-ok");
    assert.equal(await valid("pick-site-task"), true);
    await deployAndInject("pick-site-task", /start_task/);
  });

  it("robot-maps: the map id is picked from the robot's maps; deployed, its areas are read", async () => {
    await add(
      page,
      injectInto(
        "pick-maps",
        { type: "robot-maps", operation: "getSubareas", serialNumber: "", mapId: "" },
        "payload.subareas.partitions[1].name",
      ),
    );
    await edit("pick-maps");
    await pick("serialNumber", "GS-S-000101");
    await pick("mapId", "Floor 2");
    await page.click("#node-dialog-ok");
    await deployAndInject("pick-maps", /"Meeting rooms"/);
  });

  it("robot-maps fleetView: no robot or map id to fill in; deployed, the console's model comes out in the runtime's words", async () => {
    await add(
      page,
      injectInto("pick-view", { type: "robot-maps", operation: "listMaps", serialNumber: "", mapId: "" }, "payload.words.openAlarms"),
    );
    await edit("pick-view");
    assert.equal(await page.isVisible(".robot-maps-row-serialNumber"), true);
    await page.selectOption("#node-input-operation", "fleetView");
    assert.equal(await page.isVisible(".robot-maps-row-serialNumber"), false, "the whole account's: no robot to name");
    assert.equal(await page.isVisible(".robot-maps-row-mapId"), false);
    await page.click("#node-dialog-ok");
    await deployAndInject("pick-view", /Open alarms/);
  });

  // Left undeployed (its task fields stay empty): it comes after the tests that deploy.
  it("robot-site-task: the site and floor of a site task come from the robot's site (id with name, floor with index)", async () => {
    await add(page, [
      {
        id: "pick-site",
        type: "robot-site-task",
        robot: DEMO_CONFIG_ID,
        operation: "createTempTask",
        bodyFrom: "fields",
        serialNumber: "GS-S-000101",
        floorIndex: "",
        wires: [[]],
      },
    ]);
    await edit("pick-site");
    const sites = await pick("siteId", "Riverside");
    assert.equal(sites.length, 1);
    assert.match(await value("siteId"), /^[0-9a-f-]{36}$/);
    assert.match(await value("siteName"), /Riverside/);
    const floors = await pick("floorName", "Floor 2");
    assert.deepEqual(floors.map((floor) => floor.replace(/ \(\d+\)$/, "")).sort(), ["Floor 1", "Floor 2"]);
    assert.deepEqual(
      [await value("floorName"), await value("floorIndex")],
      ["Floor 2", floors.find((floor) => floor.startsWith("Floor 2"))!.replace(/.*\((\d+)\)$/, "$1")],
    );
  });

  it("robot-command START_TASK: the task is picked from the tasks the robot can run (its map comes with it), cleaning modes show their meaning", async () => {
    await add(page, [
      {
        id: "pick-task",
        type: "robot-command",
        robot: DEMO_CONFIG_ID,
        command: "START_TASK",
        serialNumber: "",
        taskName: "",
        map: "",
        cleaningMode: "",
        wires: [[]],
      },
    ]);
    await edit("pick-task");
    await pick("serialNumber", "GS-S-000101");
    // The tasks of the map the robot is on (the v1 status's executableTasks): the whole map and each area.
    const tasks = await pick("taskName", "Kitchen");
    assert.deepEqual(tasks, ["All of Floor 1 (Floor 1)", "Lobby (Floor 1)", "Corridor (Floor 1)", "Kitchen (Floor 1)"]);
    assert.deepEqual([await value("taskName"), await value("map")], ["Kitchen", "Floor 1"], "the task's map came with it");
    const modes = await pick("cleaningMode", "尘推", screenshotPath("picker-cleaning-mode.png"));
    // Every mode reads as words: its kind in the editor's language where the name says one, else a readable name
    // (intensities, 清扫, 清洗); the cloud's "__" prefix is not shown, the value picked is the name as the robot lists it.
    assert.deepEqual(modes, [
      "middle_cleaning – medium intensity",
      "heavy_cleaning – heavy intensity",
      "light_cleaning – light intensity",
      "清扫 – sweeping",
      "清洗 – washing",
      "尘推 – dust mop",
      "吸尘 – vacuum",
    ]);
    assert.equal(await value("cleaningMode"), "尘推");
    await page.click("#node-dialog-ok");
    assert.equal(await valid("pick-task"), true);
  });

  it("robot-status watching: each robot picked beside Robots is added to the list", async () => {
    await add(page, [{ id: "pick-watch", type: "robot-status", robot: DEMO_CONFIG_ID, watch: true, serialNumbers: "", wires: [[], []] }]);
    await edit("pick-watch");
    await pick("serialNumbers", "GS-S-000102");
    await pick("serialNumbers", "GS-S-000101");
    await pick("serialNumbers", "GS-S-000102");
    assert.equal(await value("serialNumbers"), "GS-S-000102, GS-S-000101", "added once each, in the order picked");
    await page.click("#node-dialog-ok");
    assert.equal(await valid("pick-watch"), true);
  });

  it("robot-config's Test button lists the account's robots through the deployed config, or says why it cannot", async () => {
    const testConfig = async (id: string): Promise<string> => {
      await page.evaluate((config) => RED.editor.editConfig("", "robot-config", config), id);
      await page.waitForSelector("#robot-config-test", { state: "visible" });
      await page.click("#robot-config-test");
      await page.waitForFunction(() => !/asking/.test(document.querySelector("#robot-config-test-result")?.textContent ?? "asking"));
      return page.innerText("#robot-config-test-result");
    };
    const listed = await testConfig(DEMO_CONFIG_ID);
    const robots = (await page.evaluate(
      (config) => $.ajax({ url: `robot-fleet/config/${config}/robots`, dataType: "json" }),
      DEMO_CONFIG_ID,
    )) as unknown[];
    assert.match(listed, new RegExp(`^${robots.length} robots, listed in \\d+ ms$`));
    const tray = (await page.locator(".red-ui-tray .red-ui-tray-body").last().boundingBox())!;
    await page.screenshot({ path: screenshotPath("robot-config-test.png"), clip: { ...tray, height: Math.min(tray.height, 320) } });
    await page.evaluate(() => RED.tray.close());
    await page.waitForSelector(".red-ui-tray", { state: "detached" });
    await add(page, [{ id: "test-not-deployed", type: "robot-config", name: "never deployed", baseUrl: "http://127.0.0.1:9" }]);
    assert.match(await testConfig("test-not-deployed"), /^deploy the robot-config first/);
  });

  it("says what to do when a picker cannot list: a robot-config not yet deployed, no robot chosen", async () => {
    await add(page, [
      { id: "not-deployed", type: "robot-config", name: "not deployed yet", baseUrl: "http://127.0.0.1:9" },
      { id: "uses-not-deployed", type: "robot-maps", robot: "not-deployed", operation: "listMaps", wires: [[]] },
    ]);
    await edit("uses-not-deployed");
    await page.click("[data-robot-fleet-picker='serialNumber']");
    const message = page.locator("[data-robot-fleet-picker-message='serialNumber']");
    // The admin endpoint answers after the deploys and injects before it: a loaded machine takes its time.
    await page.waitForFunction(
      () =>
        /deploy the robot-config first/.test(document.querySelector("[data-robot-fleet-picker-message='serialNumber']")?.textContent ?? ""),
      undefined,
      { timeout: 30_000 },
    );
    assert.match(await message.innerText(), /^deploy the robot-config first/);
    await page.evaluate(() => RED.tray.close());
    await page.waitForSelector(".red-ui-tray", { state: "detached" });
    await edit("pick-maps");
    await page.evaluate(() => $("#node-input-serialNumber").typedInput("value", ""));
    await page.click("[data-robot-fleet-picker='mapId']");
    assert.match(await page.locator("[data-robot-fleet-picker-message='mapId']").innerText(), /type or pick the serial number first/);
  });

  it("never brings a token to the browser: the admin endpoint answers with lists only", async () => {
    const received = await editor.received();
    const lookups = received.filter((item) => item.from.includes("/robot-fleet/config/"));
    assert.ok(lookups.length >= 6, `${lookups.length} lookups seen`);
    assert.deepEqual(
      lookups.filter((item) => item.text.includes(DEMO_TOKEN)).map((item) => item.from),
      [],
    );
  });

  it("accepts in the dialog exactly what the runtime accepts: serial numbers, base URL, bounds", async () => {
    const serials = ["GS-S-000101", "a", "A_b-9", "-leading", "../x", "with space", "x".repeat(128), "x".repeat(129), "ünï"];
    // A node's typed serial number is trimmed, then checked by the request schema.
    const runtimeSerial = serials.map((serial) => SerialNumber.safeParse(serial.trim()).success);
    const urls = [
      "https://openapi.gs-robot.com",
      "http://127.0.0.1:18080/base",
      "https://x/?a=1",
      "https://x/#top",
      "https://u:p@x",
      "ftp://x",
      "not a url",
      "https://x/?",
    ];
    const runtimeUrl = urls.map((url) => {
      try {
        normaliseBaseUrl(url);
        return true;
      } catch {
        return false;
      }
    });
    const timeouts = ["", "1", "3600", "0", "3601", "abc", "60.5"];
    const runtimeTimeout = timeouts.map((timeout) => {
      try {
        confirmTimeoutMs(timeout);
        return true;
      } catch {
        return false;
      }
    });
    const intervals = ["", String(WATCH_LIMITS.interval.min), String(WATCH_LIMITS.interval.min - 1), String(WATCH_LIMITS.interval.max + 1)];
    const dialog = await page.evaluate(
      ({ serials, urls, timeouts, intervals }) => {
        const verdict = (type: string, field: string, v: unknown, self: object = {}) =>
          RED.nodes.getType(type).defaults[field]!.validate!.call({ ...self }, v) === true;
        return {
          serial: ["robot-command", "robot-site-task", "robot-maps", "robot-status"].map((type) =>
            serials.map((s) => verdict(type, "serialNumber", s, { serialNumberType: "str" })),
          ),
          url: urls.map((u) => verdict("robot-config", "baseUrl", u)),
          timeout: ["robot-command", "robot-site-task"].map((type) => timeouts.map((t) => verdict(type, "confirmTimeout", t))),
          interval: intervals.map((i) => verdict("robot-status", "interval", i)),
        };
      },
      { serials, urls, timeouts, intervals },
    );
    for (const verdicts of dialog.serial)
      assert.deepEqual(
        Object.fromEntries(serials.map((s, i) => [s, verdicts[i]])),
        Object.fromEntries(serials.map((s, i) => [s, runtimeSerial[i]])),
      );
    assert.deepEqual(dialog.url, runtimeUrl);
    for (const verdicts of dialog.timeout) assert.deepEqual(verdicts, runtimeTimeout);
    assert.deepEqual(dialog.interval, [true, true, false, false]);
  });

  it("marks a new START_TASK node (as dropped from the palette) invalid, naming the empty task name and map", async () => {
    const errors = await page.evaluate(() => {
      const node: Record<string, unknown> = { id: "new-start", type: "robot-command", z: "pickers-tab", x: 700, y: 400, wires: [[]] };
      const defaults = RED.nodes.getType("robot-command").defaults as Record<string, { value?: unknown }>;
      for (const [name, setting] of Object.entries(defaults)) node[name] = setting.value;
      node.robot = "demo-robot-cloud";
      RED.view.importNodes([node], { generateIds: false });
      const added = RED.nodes.node("new-start")!;
      RED.editor.validateNode(added);
      return { command: node.command, valid: added.valid, errors: added.validationErrors ?? [] };
    });
    assert.deepEqual(errors, { command: "START_TASK", valid: false, errors: ["Task name is required", "Map is required"] });
  });

  it("keeps every dialog label on one line", async () => {
    for (const id of ["pick-command", "pick-site-task", "pick-maps"]) {
      await edit(id);
      const wrapped = await page.$$eval(".red-ui-tray .robot-fleet-form .form-row > label", (labels) =>
        labels
          .filter(
            (label) =>
              (label as HTMLElement).offsetParent !== null && label.getClientRects().length > 0 && (label as HTMLElement).scrollHeight > 24,
          )
          .map((label) => label.textContent?.trim()),
      );
      assert.deepEqual(wrapped, [], id);
      await page.evaluate(() => RED.tray.close());
      await page.waitForSelector(".red-ui-tray", { state: "detached" });
    }
  });

  it("raised no script error in the page", () => {
    // Chromium logs every failed request too: the pickers' refused lookups (asserted above) and the
    // palette manager's catalogue.nodered.org, out of reach on these machines. Those are not script errors.
    assert.deepEqual(
      editor.pageErrors.filter((error) => !error.startsWith("Failed to load resource")),
      [],
    );
  });
});
