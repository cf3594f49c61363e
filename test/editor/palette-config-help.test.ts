/**
 * The editor in real headless Chromium against a Node-RED 4.1 of its own
 * (test/support/editor.ts), with a small flow of the robot nodes, a
 * robot-events node and a robot-config holding a token: the palette and its
 * icons, the robot-config dialog opened from a robot node, the token never
 * reaching the browser or an export (and going only to the credentials file
 * on deploy), the sidebar help of each node, and robot-events' port labels.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { packageRoot, useEditor, type FlowNode, type OpenEditor, type RunningNodeRed } from "../support/editor";

/** Node-RED's editor globals, as far as these tests use them. */
interface EditorNode {
  id: string;
  type: string;
  valid?: boolean;
  robot?: string;
}
declare const RED: {
  nodes: {
    node(id: string): EditorNode | undefined;
    filterNodes(filter: { type: string }): EditorNode[];
    eachConfig(callback: (node: EditorNode) => void): void;
    remove(id: string): void;
  };
  view: { importNodes(nodes: unknown, options: { generateIds: boolean }): void; redraw(updateActive?: boolean): void };
  editor: { edit(node: EditorNode | undefined): void; editConfig(name: string, type: string, id: string): void };
  actions: { invoke(name: string): void };
  utils: { getNodeLabel(node: EditorNode): string };
};

/** The editor's jQuery, as far as these tests use it. */
declare const $: (selector: string) => { val(): unknown; is(state: string): boolean; dialog(command: "close"): void };

const TOKEN = "tok-7f3a9c-never-in-the-browser";
const TYPED_TOKEN = "tok-typed-in-the-dialog-41b2";
const ROBOT_TYPES = ["robot-command", "robot-site-task", "robot-maps", "robot-status"] as const;
/** Every node of the palette: the robot nodes, robot-events, which has no robot and no input, the jobs, the reports and the MQTT bridge. */
const PALETTE_TYPES = [...ROBOT_TYPES, "robot-events", "robot-job", "robot-reports", "robot-mqtt", "robot-plan", "robot-upkeep"] as const;
/** The palette labels, which also title each node's help. */
const PALETTE_LABELS: Record<(typeof PALETTE_TYPES)[number], string> = {
  "robot-command": "command",
  "robot-site-task": "site task",
  "robot-maps": "maps",
  "robot-status": "fleet status",
  "robot-events": "robot events",
  "robot-reports": "reports",
  "robot-mqtt": "mqtt bridge",
  "robot-job": "job",
  "robot-plan": "plan",
  "robot-upkeep": "upkeep",
};
/** The headings of each node's help: robot-events has no input, and properties instead. */
const HELP_HEADINGS: Record<(typeof PALETTE_TYPES)[number], string[]> = {
  "robot-command": ["Inputs", "Outputs", "Details"],
  "robot-site-task": ["Inputs", "Outputs", "Details"],
  "robot-maps": ["Inputs", "Outputs", "Details"],
  "robot-status": ["Inputs", "Outputs", "Details"],
  "robot-events": ["Properties", "Outputs", "Details"],
  "robot-reports": ["Inputs", "Outputs", "Details"],
  "robot-mqtt": ["Inputs", "Outputs", "Details"],
  "robot-job": ["Inputs", "Outputs", "Details"],
  "robot-plan": ["Inputs", "Outputs", "Details"],
  "robot-upkeep": ["Inputs", "Outputs", "Details"],
};

const TAB = "robots-tab";
/** What the robot-command dialog saves for the fields PAUSE_TASK does not use. */
const COMMAND_DEFAULTS = {
  cleaningMode: "__middle_cleaning",
  cleaningModeType: "str",
  taskName: "",
  taskNameType: "str",
  map: "",
  mapType: "str",
  loop: "false",
  loopType: "bool",
  loopCount: 1,
  loopCountType: "num",
  position: "charging",
  positionType: "str",
  direction: "FORWARD",
  directionType: "direction",
};
const CONFIG = "robot-cloud";
// Loopback port 9 (discard): nothing here sends a request, and nothing could reach a real cloud.
const flow: FlowNode[] = [
  { id: TAB, type: "tab", label: "robots" },
  { id: CONFIG, type: "robot-config", name: "site cloud", baseUrl: "http://127.0.0.1:9", timeout: 5, maxRetries: 1, authMode: "token" },
  {
    id: "command",
    type: "robot-command",
    z: TAB,
    robot: CONFIG,
    name: "pause",
    serialNumber: "GS-S-000101",
    serialNumberType: "str",
    command: "PAUSE_TASK",
    ...COMMAND_DEFAULTS,
    x: 200,
    y: 80,
    wires: [[]],
  },
  {
    id: "site-task",
    type: "robot-site-task",
    z: TAB,
    robot: CONFIG,
    name: "status",
    serialNumber: "GS-S-000101",
    serialNumberType: "str",
    operation: "status",
    x: 200,
    y: 160,
    wires: [[]],
  },
  {
    id: "maps",
    type: "robot-maps",
    z: TAB,
    robot: CONFIG,
    name: "maps",
    serialNumber: "GS-S-000101",
    serialNumberType: "str",
    operation: "listMaps",
    x: 200,
    y: 240,
    wires: [[]],
  },
  {
    id: "status",
    type: "robot-status",
    z: TAB,
    robot: CONFIG,
    name: "fleet",
    operation: "fleetStatus",
    serialNumber: "",
    serialNumberType: "str",
    serialNumbers: "",
    fleetOutput: "each",
    line: "v1",
    watch: false,
    interval: 30,
    batteryStep: 10,
    batteryLow: 20,
    x: 200,
    y: 320,
    wires: [[], []],
  },
  { id: "events", type: "robot-events", z: TAB, name: "", path: "/robot-events", minLevel: "H4", x: 200, y: 400, wires: [[], [], []] },
  {
    id: "reports",
    type: "robot-reports",
    z: TAB,
    robot: CONFIG,
    name: "",
    serialNumber: "",
    serialNumberType: "str",
    serialNumbers: "",
    every: 15,
    since: 7,
    keep: 90,
    timeZone: "",
    x: 200,
    y: 480,
    wires: [[], []],
  },
  {
    id: "bridge",
    type: "robot-mqtt",
    z: TAB,
    robot: CONFIG,
    name: "",
    interval: 10,
    serialNumbers: "",
    prefix: "homeassistant",
    base: "robot-fleet",
    startTasks: "",
    x: 200,
    y: 640,
    wires: [[]],
  },
  {
    id: "job",
    type: "robot-job",
    z: TAB,
    robot: CONFIG,
    name: "",
    work: "area",
    map: "Floor 1",
    target: "Kitchen",
    mode: "",
    minBattery: "",
    waitUpTo: "",
    tries: "",
    confirmTimeout: "",
    x: 200,
    y: 560,
    wires: [[], []],
  },
  {
    id: "plan",
    type: "robot-plan",
    z: TAB,
    robot: CONFIG,
    name: "",
    plan: [],
    timezone: "",
    lateBy: "",
    skipDates: [],
    x: 200,
    y: 720,
    wires: [[], [], []],
  },
  {
    id: "upkeep",
    type: "robot-upkeep",
    z: TAB,
    robot: CONFIG,
    name: "",
    serialNumbers: "",
    every: 60,
    partDue: 10,
    cleanWaterBelow: 15,
    recoveryWaterAbove: 85,
    batteryHotAbove: 55,
    x: 200,
    y: 800,
    wires: [[], []],
  },
];

/** Whether the form row holding `selector` is shown. */
function rowShown(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (input) => {
    const row = input.closest<HTMLElement>(".form-row");
    return row !== null && row.offsetParent !== null && getComputedStyle(row).display !== "none";
  });
}

describe("editor: palette, robot-config dialog, token and help (own Node-RED, headless Chromium)", function () {
  this.timeout(60_000);
  const session = useEditor(flow, { [CONFIG]: { token: TOKEN }, events: { appId: "app-id-of-the-flow" } });
  let nodeRed: RunningNodeRed;
  let editor: OpenEditor;
  let page: Page;
  before(() => ({ nodeRed, editor, page } = session));

  afterEach(async function () {
    // Leave no tray or dialog open for the next test (useEditor keeps what a failed test saw).
    await page.evaluate(() => {
      if ($("#red-ui-clipboard-dialog").is(":visible")) $("#red-ui-clipboard-dialog").dialog("close");
    });
    for (let open = 0; open < 3 && (await page.$(".red-ui-tray")); open++) {
      await page.keyboard.press("Escape");
      await page.waitForSelector(".red-ui-tray", { state: "detached", timeout: 2000 }).catch(() => undefined);
    }
  });

  it("lists command, site task, maps, fleet status, robot events, job, reports, mqtt bridge and plan under the robot fleet category, each label on one line clear of its port", async () => {
    const entries = await page.$$eval(".red-ui-palette-node[data-palette-type^='robot-']", (nodes) =>
      nodes.map((node) => ({
        type: node.getAttribute("data-palette-type"),
        label: (node as HTMLElement).innerText.replace(/\s+/g, " ").trim(),
        // One line of text, ending at least 6 px before the node's right edge (where an output port sits).
        fits: (() => {
          const label = node.querySelector(".red-ui-palette-label")!;
          const range = document.createRange();
          range.selectNodeContents(label);
          const lines = range.getClientRects().length;
          return lines === 1 && range.getBoundingClientRect().right <= node.getBoundingClientRect().right - 6;
        })(),
        category: node.closest(".red-ui-palette-category")?.querySelector(".red-ui-palette-header")?.textContent?.trim(),
        shown: (node as HTMLElement).offsetParent !== null,
      })),
    );
    assert.deepEqual(
      entries.sort((a, b) => String(a.type).localeCompare(String(b.type))),
      [
        { type: "robot-command", label: "command", fits: true, category: "robot fleet", shown: true },
        { type: "robot-events", label: "robot events", fits: true, category: "robot fleet", shown: true },
        { type: "robot-job", label: "job", fits: true, category: "robot fleet", shown: true },
        { type: "robot-maps", label: "maps", fits: true, category: "robot fleet", shown: true },
        { type: "robot-mqtt", label: "mqtt bridge", fits: true, category: "robot fleet", shown: true },
        { type: "robot-plan", label: "plan", fits: true, category: "robot fleet", shown: true },
        { type: "robot-reports", label: "reports", fits: true, category: "robot fleet", shown: true },
        { type: "robot-site-task", label: "site task", fits: true, category: "robot fleet", shown: true },
        { type: "robot-status", label: "fleet status", fits: true, category: "robot fleet", shown: true },
        { type: "robot-upkeep", label: "upkeep", fits: true, category: "robot fleet", shown: true },
      ],
      "robot-config is a config node and stays out of the palette",
    );
  });

  it("gives each palette entry its own icon, served from the package and drawn by the browser", async () => {
    const icons = await page.$$eval(".red-ui-palette-node[data-palette-type^='robot-']", (nodes) =>
      nodes.map((node) => ({
        type: node.getAttribute("data-palette-type")!,
        css: node.querySelector<HTMLElement>(".red-ui-palette-icon")?.style.backgroundImage ?? "",
      })),
    );
    assert.equal(icons.length, PALETTE_TYPES.length);
    for (const { type, css } of icons) {
      const relative = /url\("?([^")]+)"?\)/.exec(css)?.[1];
      assert.equal(relative, `icons/node-red-contrib-robot-fleet/${type}.svg`, `${type}'s palette icon`);
      const url = new URL(relative, nodeRed.url).href;
      const response = await fetch(url);
      assert.equal(response.status, 200, url);
      assert.match(response.headers.get("content-type") ?? "", /^image\/svg\+xml/, url);
      // The very file in icons/: a stale copy from an old build would differ.
      assert.equal(await response.text(), fs.readFileSync(path.join(packageRoot, "icons", `${type}.svg`), "utf8"), url);
      const drawn = await page.evaluate(
        (source) =>
          new Promise<{ width: number; height: number }>((resolve, reject) => {
            const image = new Image();
            image.onload = () => resolve({ width: image.naturalWidth, height: image.naturalHeight });
            image.onerror = () => reject(new Error(`the browser could not draw ${source}`));
            image.src = source;
          }),
        relative,
      );
      assert.deepEqual(drawn, { width: 40, height: 60 }, `${type}: Node-RED's 40x60 icon frame`);
    }
    const contents = await Promise.all(
      PALETTE_TYPES.map((type) => fs.promises.readFile(path.join(packageRoot, "icons", `${type}.svg`), "utf8")),
    );
    assert.equal(new Set(contents).size, PALETTE_TYPES.length, "a different drawing for each node");
  });

  /** Drags a palette entry onto the canvas at (x, y), as a person adds a node; resolves with the new node's id. */
  async function dropFromPalette(type: string, x: number, y: number): Promise<string> {
    const before = await page.evaluate((t) => RED.nodes.filterNodes({ type: t }).map((node) => node.id), type);
    const entry = page.locator(`.red-ui-palette-node[data-palette-type='${type}']`);
    await entry.scrollIntoViewIfNeeded();
    const canvas = await page.locator("#red-ui-workspace-chart").boundingBox();
    const from = await entry.boundingBox();
    assert.ok(canvas && from);
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(canvas.x + x, canvas.y + y, { steps: 12 });
    await page.mouse.up();
    const added = await page.waitForFunction(
      ({ t, known }) => RED.nodes.filterNodes({ type: t }).find((node) => !known.includes(node.id))?.id,
      { t: type, known: before },
    );
    return (await added.jsonValue())!;
  }

  it('labels each robot node dropped from the palette after its own job: a new site task is no "robot status"', async () => {
    const labels: Record<string, string> = {};
    let offset = 0;
    for (const type of PALETTE_TYPES) {
      const id = await dropFromPalette(type, 300, 120 + (offset += 60));
      labels[type] = await page.evaluate((nodeId) => RED.utils.getNodeLabel(RED.nodes.node(nodeId)!), id);
      await page.evaluate((nodeId) => {
        RED.nodes.remove(nodeId);
        RED.view.redraw(true);
      }, id);
    }
    assert.deepEqual(labels, {
      "robot-command": "start task",
      "robot-site-task": "site robot status",
      "robot-maps": "list maps",
      "robot-status": "fleet status",
      "robot-events": "/robot-events",
      "robot-reports": "reports",
      "robot-mqtt": "mqtt bridge",
      "robot-job": "job",
      "robot-plan": "plan",
      "robot-upkeep": "upkeep",
    });
  });

  it("opens a new robot-config from a dropped robot command: a password token, or client id and secrets instead", async () => {
    const addedId = await dropFromPalette("robot-command", 450, 320);

    await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), addedId);
    await page.waitForSelector("#node-input-btn-robot-add", { state: "visible" });
    await page.click("#node-input-btn-robot-add");
    await page.waitForSelector("#node-config-input-authMode", { state: "visible" });
    assert.match((await page.textContent(".red-ui-tray:last-of-type .red-ui-tray-titlebar")) ?? "", /Add new robot-config config node/);

    assert.equal(await page.inputValue("#node-config-input-authMode"), "token");
    assert.equal(await page.getAttribute("#node-config-input-token", "type"), "password");
    assert.equal(await rowShown(page, "#node-config-input-token"), true);
    for (const field of ["clientId", "clientSecret", "accessKeySecret"]) {
      assert.equal(await rowShown(page, `#node-config-input-${field}`), false, `${field} hidden while signing in with a token`);
    }

    await page.selectOption("#node-config-input-authMode", "clientCredentials");
    assert.equal(await rowShown(page, "#node-config-input-token"), false, "token hidden with client credentials");
    assert.equal(await rowShown(page, "#node-config-input-clientId"), true);
    assert.equal(await rowShown(page, "#node-config-input-clientSecret"), true);
    assert.equal(await rowShown(page, "#node-config-input-accessKeySecret"), true);
    assert.equal(await page.getAttribute("#node-config-input-clientId", "type"), "text");
    assert.equal(await page.getAttribute("#node-config-input-clientSecret", "type"), "password");
    assert.equal(await page.getAttribute("#node-config-input-accessKeySecret", "type"), "password");
    await page.locator("#node-config-dialog-ok").click({ trial: true });
    await page.screenshot({ path: "/tmp/editor-robot-config-new.png" });

    await page.selectOption("#node-config-input-authMode", "token");
    assert.equal(await rowShown(page, "#node-config-input-token"), true, "back to a token");
    assert.equal(await rowShown(page, "#node-config-input-clientSecret"), false);

    // Cancel both trays and take the dropped node away again.
    await page.click("#node-config-dialog-cancel");
    await page.click("#node-dialog-cancel");
    await page.waitForSelector(".red-ui-tray", { state: "detached" });
    await page.click(`[id='${addedId}'] .red-ui-flow-node`);
    await page.keyboard.press("Delete");
    await page.waitForSelector(`[id='${addedId}']`, { state: "detached" });
    assert.equal(await page.evaluate((id) => Boolean(RED.nodes.node(id)), addedId), false, "the dropped node is gone");
    const configs = await page.evaluate(() => {
      const ids: string[] = [];
      RED.nodes.eachConfig((node) => {
        if (node.type === "robot-config") ids.push(node.id);
      });
      return ids;
    });
    assert.deepEqual(configs, [CONFIG], "the cancelled config was not kept");
  });

  it("never sends the stored token to the browser: /flows, /credentials and the config dialog show only has_token", async () => {
    const flows = await (await fetch(new URL("flows", nodeRed.url))).text();
    assert.ok(flows.includes(CONFIG), "the flow is there");
    assert.ok(!flows.includes(TOKEN), "GET /flows carries no token");

    const answer = await fetch(new URL(`credentials/robot-config/${CONFIG}`, nodeRed.url));
    assert.equal(answer.status, 200);
    const credentials = (await answer.json()) as Record<string, unknown>;
    assert.equal(credentials.has_token, true, "the editor learns that a token is set");
    assert.equal(credentials.token, undefined);
    assert.ok(!JSON.stringify(credentials).includes(TOKEN));

    await page.evaluate((id) => RED.editor.editConfig("", "robot-config", id), CONFIG);
    await page.waitForSelector("#node-config-input-token", { state: "visible" });
    const shownValue = await page.inputValue("#node-config-input-token");
    assert.notEqual(shownValue, "", "the field shows that a token is set");
    assert.notEqual(shownValue, TOKEN);
    assert.ok(!(await page.content()).includes(TOKEN), "not anywhere in the page");
    await page.locator("#node-config-dialog-ok").click({ trial: true }); // the tray has slid in
    await page.screenshot({ path: "/tmp/editor-robot-config-stored.png" });
    await page.click("#node-config-dialog-cancel");

    const received = await editor.received();
    assert.ok(
      received.some((item) => item.text.includes(CONFIG)),
      "the recording saw the flows",
    );
    const leaks = received.filter((item) => item.text.includes(TOKEN)).map((item) => item.from);
    assert.deepEqual(leaks, [], "no answer or websocket frame carried the token");
  });

  it("keeps a token typed in the dialog out of every export, and deploys it only to the credentials file", async () => {
    await page.evaluate((id) => RED.editor.editConfig("", "robot-config", id), CONFIG);
    await page.waitForSelector("#node-config-input-token", { state: "visible" });
    await page.fill("#node-config-input-token", TYPED_TOKEN);
    await page.click("#node-config-dialog-ok");
    await page.waitForSelector(".red-ui-tray", { state: "detached" });

    // Through the export dialog, as a user shares a flow: this flow, then all flows.
    await page.evaluate(() => RED.actions.invoke("core:show-export-dialog"));
    await page.click("#red-ui-tab-red-ui-clipboard-dialog-export-tab-clipboard-json .red-ui-tab-label");
    await page.waitForSelector("#red-ui-clipboard-dialog-export-text", { state: "visible" });
    for (const range of ["flow", "full"]) {
      await page.click(`#red-ui-clipboard-dialog-export-rng-${range}`);
      await page.waitForFunction(() => String($("#red-ui-clipboard-dialog-export-text").val()).includes("robot-config"));
      const exported = await page.inputValue("#red-ui-clipboard-dialog-export-text");
      const nodes = JSON.parse(exported) as FlowNode[];
      const config = nodes.find((node) => node.id === CONFIG);
      assert.ok(config, `${range} export holds the robot-config`);
      assert.equal(config.credentials, undefined, `${range} export has no credentials`);
      assert.ok(!exported.includes(TYPED_TOKEN) && !exported.includes(TOKEN), `${range} export has no token`);
    }
    await page.screenshot({ path: "/tmp/editor-export-dialog.png" });
    await page.click("#red-ui-clipboard-dialog-cancel");
    await page.waitForSelector("#red-ui-clipboard-dialog", { state: "hidden" });

    const invalid = await page.evaluate(
      (types) =>
        types.flatMap((type) =>
          RED.nodes
            .filterNodes({ type })
            .filter((node) => !node.valid)
            .map((node) => node.id),
        ),
      ["robot-config", ...PALETTE_TYPES],
    );
    assert.deepEqual(invalid, [], "every node is valid, so deploy asks nothing");
    assert.equal(
      await page.evaluate(() => RED.nodes.filterNodes({ type: "robot-events" }).length),
      1,
      "the robot-events node is among them",
    );
    const deployed = page.waitForResponse(
      (response) => new URL(response.url()).pathname === "/flows" && response.request().method() === "POST",
    );
    await page.click("#red-ui-header-button-deploy");
    assert.equal((await deployed).status(), 200);
    const credentialsFile = path.join(nodeRed.userDir, "flows_cred.json");
    const stored = JSON.parse(fs.readFileSync(credentialsFile, "utf8")) as Record<string, Record<string, string>>;
    assert.equal(stored[CONFIG]?.token, TYPED_TOKEN, "the runtime stored the typed token as a credential");
    assert.ok(!fs.readFileSync(path.join(nodeRed.userDir, "flows.json"), "utf8").includes(TYPED_TOKEN), "flows.json has no token");
    assert.ok(!(await (await fetch(new URL("flows", nodeRed.url))).text()).includes(TYPED_TOKEN), "GET /flows has no token after deploy");
    const received = await editor.received();
    assert.deepEqual(
      received.filter((item) => item.text.includes(TYPED_TOKEN)).map((item) => item.from),
      [],
      "nothing sent the typed token back to the browser",
    );
  });

  for (const type of PALETTE_TYPES) {
    it(`shows ${type}'s help, with ${HELP_HEADINGS[type].slice(0, 2).join(" and ")}, when the node is selected`, async () => {
      const id = flow.find((node) => node.type === type)!.id;
      // Click the node on the canvas, then ask for its help as the context menu does.
      await page.click(`[id='${id}'] .red-ui-flow-node`);
      await page.evaluate(() => RED.actions.invoke("core:show-node-help"));
      const title = await page.waitForSelector(".red-ui-help-title", { state: "visible" });
      await page.waitForFunction((label) => document.querySelector(".red-ui-help-title")?.textContent === label, PALETTE_LABELS[type]);
      assert.equal(await title.textContent(), PALETTE_LABELS[type]);
      const headings = await page.$$eval(".red-ui-help-title + .red-ui-help h3", (list) =>
        list.map((heading) => heading.textContent?.trim()),
      );
      for (const heading of HELP_HEADINGS[type])
        assert.ok(headings.includes(heading), `${type} help has ${heading}: ${headings.join(", ")}`);
      const intro = await page.$eval(".red-ui-help-title + .red-ui-help p", (paragraph) => paragraph.textContent?.trim() ?? "");
      assert.ok(intro.length > 20, `${type} help opens with a sentence, not "${intro}"`);
      if (type === "robot-events") assert.ok(!headings.includes("Inputs"), "robot-events has no input");
      await page.screenshot({ path: `/tmp/editor-help-${type}.png` });
    });
  }

  it("labels robot-events' input (the account's alarms) and its three outputs incidents, task reports and scheduling tasks where a person hovers each port", async () => {
    const node = page.locator("[id='events']");
    assert.equal(await node.locator(".red-ui-flow-port-input").count(), 1, "an input port: the account's alarms listed and acknowledged");
    const ports = node.locator(".red-ui-flow-port-output .red-ui-flow-port");
    assert.equal(await ports.count(), 3);
    const labels: string[] = [];
    for (let index = 0; index < 3; index++) {
      await ports.nth(index).hover();
      const tooltip = page.locator(".red-ui-flow-port-tooltip");
      await tooltip.waitFor({ state: "visible" });
      labels.push((await tooltip.textContent())?.trim() ?? "");
      if (index === 0) await page.screenshot({ path: "/tmp/editor-robot-events-port.png" });
      await page.mouse.move(5, 5);
      await tooltip.waitFor({ state: "detached" });
    }
    assert.deepEqual(labels, ["incidents (alarms raised and recovered)", "task reports", "scheduling tasks and pushes of other kinds"]);
  });

  // Last but one: the imported nodes stay in the workspace.
  it("reuses the configured robot-config when a second example is imported: the examples share one config node", async () => {
    const read = (name: string) => JSON.parse(fs.readFileSync(path.join(packageRoot, "examples", `${name}.json`), "utf8")) as FlowNode[];
    const outcome = await page.evaluate(
      ({ first, second }) => {
        const configs = () => {
          const found: string[] = [];
          RED.nodes.eachConfig((node) => {
            if (node.type === "robot-config") found.push(node.id);
          });
          return found;
        };
        const before = configs().length;
        // As the Examples dialog imports (ids kept); the second import meets the shared config node,
        // and Node-RED offers "Import copy", which imports with new ids and keeps existing config nodes.
        RED.view.importNodes(first, { generateIds: false });
        let conflict = "";
        try {
          RED.view.importNodes(second, { generateIds: false });
        } catch (error) {
          conflict = (error as { code?: string }).code ?? String(error);
          RED.view.importNodes(second, { generateIds: true });
        }
        const added = configs().slice(before);
        const users = RED.nodes
          .filterNodes({ type: "robot-command" })
          .concat(RED.nodes.filterNodes({ type: "robot-status" }))
          .map((node) => String(node.robot));
        return { added, conflict, users: [...new Set(users)] };
      },
      { first: read("robot-command"), second: read("fleet-watch") },
    );
    assert.equal(outcome.added.length, 1, `one robot-config for both examples: ${outcome.added.join(", ")}`);
    assert.equal(outcome.conflict, "import_conflict");
    assert.deepEqual(outcome.users.filter((id) => id !== CONFIG).sort(), [outcome.added[0]]);
  });

  it("opens the mqtt bridge's dialog with its settings, and marks a base topic with a wildcard", async () => {
    await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), "bridge");
    await page.waitForSelector("#node-input-base", { state: "visible" });
    assert.equal(await page.inputValue("#node-input-prefix"), "homeassistant");
    assert.equal(await page.inputValue("#node-input-base"), "robot-fleet");
    assert.equal(await page.inputValue("#node-input-interval"), "10");
    assert.ok(await page.isVisible("#node-input-startTasks"));
    await page.fill("#node-input-base", "robot-fleet/#");
    await page.locator("#node-input-base").blur();
    await page.waitForFunction(() => document.querySelector("#node-input-base")?.classList.contains("input-error"));
    // Commands from topics: every robot by default; a list of robots shows its field, which may not be empty.
    assert.equal(await page.inputValue("#node-input-accept"), "all");
    assert.equal(await page.isVisible("#node-input-acceptRobots"), false);
    await page.selectOption("#node-input-accept", "listed");
    await page.waitForSelector("#node-input-acceptRobots", { state: "visible" });
    await page.locator("#node-input-acceptRobots").focus();
    await page.locator("#node-input-acceptRobots").blur();
    await page.waitForFunction(() => document.querySelector("#node-input-acceptRobots")?.classList.contains("input-error"));
    await page.fill("#node-input-acceptRobots", "GS-S-000101");
    await page.locator("#node-input-acceptRobots").blur();
    await page.waitForFunction(() => !document.querySelector("#node-input-acceptRobots")?.classList.contains("input-error"));
    await page.screenshot({ path: "/tmp/editor-robot-mqtt-dialog.png" });
    await page.selectOption("#node-input-accept", "none");
    await page.waitForSelector("#node-input-acceptRobots", { state: "hidden" });
    await page.click("#node-dialog-cancel");
    await page.waitForSelector("#node-input-base", { state: "detached" });
  });

  it("raised no script error in the page", () => {
    assert.deepEqual(editor.pageErrors, []);
  });
});
