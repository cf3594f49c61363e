/**
 * The editor in real headless Chromium, against the running demo (Node-RED 4.1
 * with this package installed and the example flows deployed): the palette and
 * its icons, the dialogs showing only what the chosen command or operation
 * needs, the sidebar help, and the token never reaching the browser.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { startDemo, type RunningDemo } from "../support/demo-process";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const DEMO_TOKEN = "demo-token";

/** Node-RED's editor globals, as far as these tests use them. */
declare const RED: {
  nodes: {
    node(id: string): unknown;
    createCompleteNodeSet(options?: object): unknown[];
  };
  editor: { edit(node: unknown): void; editConfig(name: string, type: string, id: string): void };
  sidebar: { help: { show(type: string): void } };
  tray: { close(): void };
  settings: Record<string, unknown>;
};

describe("editor (headless Chromium)", function () {
  this.timeout(120_000);
  let demo: RunningDemo;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install chromium)`);
    demo = await startDemo();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(`${demo.urls.editor}/`);
    await page.waitForSelector('.red-ui-palette-node[data-palette-type="robot-command"]', { timeout: 60_000 });
  });

  after(async () => {
    await browser?.close();
    if (demo) assert.equal(await demo.stop(), 0);
  });

  /** Cancels every open edit dialog, innermost first. */
  async function closeDialogs(): Promise<void> {
    for (let open = await page.$$(".red-ui-tray"); open.length > 0; open = await page.$$(".red-ui-tray")) {
      await page.evaluate(() => RED.tray.close());
      await page.waitForFunction((count) => document.querySelectorAll(".red-ui-tray").length < count, open.length);
    }
  }

  afterEach(closeDialogs);

  it("lists the three robot nodes in their palette category, each with its own icon that loads", async () => {
    const palette = await page.$$eval(".red-ui-palette-node[data-palette-type^='robot-']", (nodes) =>
      nodes.map((node) => ({
        type: node.getAttribute("data-palette-type"),
        label: node.textContent?.replace(/\s+/g, " ").trim(),
        category: node.closest(".red-ui-palette-category")?.getAttribute("id"),
        icon: node.querySelector<HTMLElement>(".red-ui-palette-icon")?.style.backgroundImage,
      })),
    );
    assert.deepEqual(palette.map((entry) => entry.type).sort(), ["robot-command", "robot-maps", "robot-site-task"]);
    assert.deepEqual(palette.map((entry) => entry.label).sort(), ["robot command", "robot maps", "robot site task"]);
    for (const entry of palette) {
      assert.match(entry.category ?? "", /robot/, `${entry.type} category`);
      const url = /url\("?([^")]+)"?\)/.exec(entry.icon ?? "")?.[1];
      assert.ok(url?.endsWith(`/${entry.type}.svg`), `${entry.type} uses its own icon, not ${url}`);
      const response = await fetch(new URL(url!, `${demo.urls.editor}/`));
      assert.equal(response.status, 200, url);
      assert.match(await response.text(), /^<svg[\s\S]*<\/svg>\s*$/);
    }
  });

  it("shows only the fields of the chosen command in the robot-command dialog", async () => {
    await page.evaluate(() => RED.editor.edit(RED.nodes.node("command-charger")));
    await page.waitForSelector("#node-input-command", { state: "visible" });
    const visibleRows = (command: string) =>
      page.evaluate((chosen) => {
        const select = document.querySelector<HTMLSelectElement>("#node-input-command")!;
        select.value = chosen;
        select.dispatchEvent(new Event("change", { bubbles: true }));
        return ["cleaningMode", "taskName", "map", "loop", "loopCount", "position", "direction"].filter((row) => {
          const element = document.querySelector<HTMLElement>(`.robot-command-row-${row}`);
          return element !== null && element.offsetParent !== null;
        });
      }, command);
    assert.deepEqual(await visibleRows("START_TASK"), ["cleaningMode", "taskName", "map", "loop", "loopCount"]);
    assert.deepEqual(await visibleRows("CROSS_NAVIGATE"), ["map", "position"]);
    assert.deepEqual(await visibleRows("STOP_NAVIGATE"), ["map", "position"]);
    assert.deepEqual(await visibleRows("REMOTE_CONTROL_MOVE"), ["direction"]);
    assert.deepEqual(await visibleRows("PAUSE_TASK"), []);
    const options = await page.$$eval("#node-input-command option", (list) => list.map((option) => (option as HTMLOptionElement).value));
    assert.equal(options.filter((value) => value !== "").length, 11);
    await page.screenshot({ path: "/tmp/robot-command-dialog.png" });
  });

  it("shows only the fields of the chosen operation in the site-task and maps dialogs", async () => {
    await page.evaluate(() => RED.editor.edit(RED.nodes.node("sitetask-b3-create")));
    await page.waitForSelector("#node-input-operation", { state: "visible" });
    const visible = (prefix: string, operation: string) =>
      page.evaluate(
        ([rowPrefix, chosen]) => {
          const select = document.querySelector<HTMLSelectElement>("#node-input-operation")!;
          select.value = chosen!;
          select.dispatchEvent(new Event("change", { bubbles: true }));
          return [...document.querySelectorAll<HTMLElement>(`[class*='${rowPrefix}']`)]
            .filter((row) => row.offsetParent !== null)
            .map((row) => [...row.classList].find((name) => name.startsWith(rowPrefix!))!.slice(rowPrefix!.length));
        },
        [prefix, operation],
      );
    assert.deepEqual(await visible("robot-site-task-row-", "status"), []);
    const b3 = await visible("robot-site-task-row-", "createTempTask");
    const b4 = await visible("robot-site-task-row-", "sendTempTask");
    assert.ok(b3.includes("siteId") && b3.includes("floorName") && !b3.includes("mapName"), `B3 rows: ${b3.join(", ")}`);
    assert.ok(b4.includes("mapName") && b4.includes("areaId") && !b4.includes("siteId"), `B4 rows: ${b4.join(", ")}`);
    await closeDialogs();

    await page.evaluate(() => RED.editor.edit(RED.nodes.node("maps-list")));
    await page.waitForSelector("#node-input-operation", { state: "visible" });
    const mapIdShown = (operation: string) =>
      page.evaluate((chosen) => {
        const select = document.querySelector<HTMLSelectElement>("#node-input-operation")!;
        select.value = chosen;
        select.dispatchEvent(new Event("change", { bubbles: true }));
        return document.querySelector<HTMLElement>("#node-input-mapId")!.closest<HTMLElement>(".form-row")!.offsetParent !== null;
      }, operation);
    assert.equal(await mapIdShown("listMaps"), false);
    assert.equal(await mapIdShown("getSubareas"), true);
  });

  it("keeps the token as a password field, and switches to client-credential fields", async () => {
    await page.evaluate(() => RED.editor.editConfig("", "robot-config", "command-robot-cloud"));
    await page.waitForSelector("#node-config-input-authMode", { state: "visible" });
    assert.equal(await page.getAttribute("#node-config-input-token", "type"), "password");
    assert.notEqual(await page.inputValue("#node-config-input-token"), DEMO_TOKEN, "the token is not sent to the editor");
    const shown = () =>
      page.evaluate(() =>
        ["token", "clientId", "clientSecret", "accessKeySecret"].filter(
          (field) => document.querySelector<HTMLElement>(`#node-config-input-${field}`)!.closest<HTMLElement>(".form-row")!.offsetParent !== null,
        ),
      );
    assert.deepEqual(await shown(), ["token"]);
    await page.selectOption("#node-config-input-authMode", "clientCredentials");
    assert.deepEqual(await shown(), ["clientId", "clientSecret", "accessKeySecret"]);
    assert.equal(await page.getAttribute("#node-config-input-clientSecret", "type"), "password");
    assert.equal(await page.getAttribute("#node-config-input-accessKeySecret", "type"), "password");
    await page.screenshot({ path: "/tmp/robot-config-dialog.png" });
  });

  it("never lets the token reach the browser or an export", async () => {
    const flows = await (await fetch(`${demo.urls.editor}/flows`)).text();
    assert.ok(!flows.includes(DEMO_TOKEN));
    const credentials = (await (await fetch(`${demo.urls.editor}/credentials/robot-config/command-robot-cloud`)).json()) as Record<string, unknown>;
    assert.deepEqual(credentials, { has_token: true, clientId: "", has_clientSecret: false, has_accessKeySecret: false });
    const exported = await page.evaluate(() => JSON.stringify(RED.nodes.createCompleteNodeSet()));
    assert.ok(exported.includes("robot-config"));
    assert.ok(!exported.includes(DEMO_TOKEN));
  });

  const HELP_MUST_SAY: Record<string, string[]> = {
    "robot-command": ["Inputs", "Outputs", "Details", "References", "compact"],
    "robot-site-task": ["Inputs", "Outputs", "Details", "References", "sendTempTask"],
    "robot-maps": ["Inputs", "Outputs", "Details", "References", "getSubareas"],
    "robot-config": ["Base URL", "client credentials", "Retries"],
  };
  for (const [type, phrases] of Object.entries(HELP_MUST_SAY)) {
    it(`shows ${type}'s help in the sidebar`, async () => {
      await page.evaluate((nodeType) => RED.sidebar.help.show(nodeType), type);
      const helpSays = (wanted: string[]) =>
        page.waitForFunction(
          (all) => all.every((phrase) => document.querySelector(".red-ui-sidebar-help-stack")?.textContent?.includes(phrase)),
          wanted,
          { timeout: 10_000 },
        );
      await helpSays(phrases);
    });
  }

  it("raised no script error in the page", () => {
    assert.deepEqual(pageErrors, []);
  });
});
