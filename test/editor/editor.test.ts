/**
 * The robot nodes' dialogs in real headless Chromium, against the running demo
 * (Node-RED 4.1 with this package installed and the example flows deployed):
 * each shows only what the chosen command or operation needs, and validity
 * follows the command. Palette, icons, the config dialog, the token and the
 * help are tested on an empty editor in palette-config-help.test.ts.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { startDemo, type RunningDemo } from "../support/demo-process";
import { launchChromium } from "../support/editor";

/** Node-RED's editor globals, as far as these tests use them. */
declare const RED: {
  nodes: {
    node(id: string): unknown;
    getType(type: string): unknown;
  };
  editor: { edit(node: unknown): void; validateNode(node: object): void };
  tray: { close(): void };
  settings: Record<string, unknown>;
};

describe("editor: robot node dialogs on the demo's flows (headless Chromium)", function () {
  this.timeout(120_000);
  let demo: RunningDemo;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  before(async function () {
    demo = await startDemo();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(`${demo.urls.editor}/`);
    await page.waitForSelector('.red-ui-palette-node[data-palette-type="robot-command"]', { timeout: 60_000 });
    // The palette comes before the flows: a node is edited once the editor holds the demo's flows.
    await page.waitForFunction(() => RED.nodes.node("command-charger") !== undefined, undefined, { timeout: 60_000 });
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

  it("gives robot-command a second output while Sent output is ticked, one for a node saved without it", async () => {
    const node = () =>
      page.evaluate(() => {
        const edited = RED.nodes.node("command-charger") as { outputs?: number; sentOutput?: boolean };
        return { outputs: edited.outputs, sentOutput: edited.sentOutput };
      });
    const editAndTick = async (ticked: boolean) => {
      await page.evaluate(() => RED.editor.edit(RED.nodes.node("command-charger")));
      await page.waitForSelector("#node-input-sentOutput", { state: "visible" });
      await page.setChecked("#node-input-sentOutput", ticked);
      await page.click("#node-dialog-ok");
      await page.waitForFunction(() => document.querySelectorAll(".red-ui-tray").length === 0);
    };
    // The example was saved before the setting: one output.
    assert.notEqual((await node()).outputs, 2);
    await editAndTick(true);
    assert.deepEqual(await node(), { outputs: 2, sentOutput: true });
    await editAndTick(false);
    assert.deepEqual(await node(), { outputs: 1, sentOutput: false });
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
          // Rows every operation shows are left out: the question is which operation rows appear.
          const always = ["robot", "serialNumber", "operation", "name"];
          return [...document.querySelectorAll<HTMLElement>(`[class*='${rowPrefix}']`)]
            .filter((row) => row.offsetParent !== null)
            .map((row) => [...row.classList].find((name) => name.startsWith(rowPrefix!))!.slice(rowPrefix!.length))
            .filter((row) => !always.includes(row));
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

  it("shows the robot-status rows of watch mode or of the chosen operation, and the confirmation timeout only when waiting for the robot", async () => {
    await page.evaluate(() => RED.editor.edit(RED.nodes.node("fleetwatch-status")));
    await page.waitForSelector("#node-input-watch", { state: "visible" });
    const rows = (watch: boolean, operation: string) =>
      page.evaluate(
        ([watching, chosen]) => {
          const checkbox = document.querySelector<HTMLInputElement>("#node-input-watch")!;
          checkbox.checked = watching;
          checkbox.dispatchEvent(new Event("change", { bubbles: true }));
          const select = document.querySelector<HTMLSelectElement>("#node-input-operation")!;
          select.value = chosen;
          select.dispatchEvent(new Event("change", { bubbles: true }));
          return [...document.querySelectorAll<HTMLElement>("[class*='robot-status-row-']")]
            .filter((row) => row.offsetParent !== null)
            .map((row) => [...row.classList].find((name) => name.startsWith("robot-status-row-"))!.slice("robot-status-row-".length))
            .filter((row) => row !== "robot" && row !== "name");
        },
        [watch, operation] as const,
      );
    assert.deepEqual([...new Set(await rows(true, "fleetStatus"))].sort(), ["line", "serialNumbers", "watch-settings"]);
    // A checkbox's words stay beside it, right of the label, however they wrap: never under the label.
    const checkRows = await page.evaluate(() =>
      ["#node-input-watch", "#node-input-watchMoves"].map((id) => {
        const checkbox = document.querySelector<HTMLElement>(id)!;
        const row = checkbox.closest<HTMLElement>(".form-row")!;
        const label = row.querySelector("label")!.getBoundingClientRect();
        const words = row.querySelector<HTMLElement>(":scope > span")!.getBoundingClientRect();
        const box = checkbox.getBoundingClientRect();
        return {
          id,
          wordsRightOfLabel: words.left >= label.right && words.left >= box.right,
          wordsStartOnCheckboxLine: words.top <= box.bottom,
        };
      }),
    );
    for (const row of checkRows) assert.deepEqual(row, { id: row.id, wordsRightOfLabel: true, wordsStartOnCheckboxLine: true });
    assert.deepEqual(await rows(false, "status"), ["operation", "serialNumber"]);
    assert.deepEqual(await rows(false, "fleetStatus"), ["operation", "serialNumbers", "line", "fleetOutput"]);
    assert.deepEqual(await rows(false, "listRobots"), ["operation"]);
    await closeDialogs();

    await page.evaluate(() => RED.editor.edit(RED.nodes.node("fleetwatch-to-charger")));
    await page.waitForSelector("#node-input-sendWhen", { state: "visible" });
    const timeoutShown = (sendWhen: string) =>
      page.evaluate((chosen) => {
        const select = document.querySelector<HTMLSelectElement>("#node-input-sendWhen")!;
        select.value = chosen;
        select.dispatchEvent(new Event("change", { bubbles: true }));
        return document.querySelector<HTMLElement>("#node-input-confirmTimeout")!.closest<HTMLElement>(".form-row")!.offsetParent !== null;
      }, sendWhen);
    assert.equal(await timeoutShown("shown"), true);
    assert.equal(await timeoutShown("accepted"), false);
  });

  it("counts a parameter the chosen command does not use as valid, even when a flow lacks it", async () => {
    const validity = await page.evaluate(() => {
      const check = (properties: Record<string, unknown>) => {
        const node = {
          id: `validity-${String(properties.command)}`,
          type: "robot-command",
          _def: RED.nodes.getType("robot-command"),
          robot: "demo-robot-cloud",
          serialNumber: "GS-S-000101",
          serialNumberType: "str",
          ...properties,
        } as { valid?: boolean; validationErrors?: string[] };
        RED.editor.validateNode(node);
        return { valid: node.valid, errors: node.validationErrors ?? [] };
      };
      return {
        pauseWithoutParameters: check({ command: "PAUSE_TASK" }),
        moveWithoutDirection: check({ command: "REMOTE_CONTROL_MOVE", directionType: "direction" }),
        moveWithDirection: check({ command: "REMOTE_CONTROL_MOVE", direction: "LEFT", directionType: "direction" }),
      };
    });
    assert.equal(validity.pauseWithoutParameters.valid, true, JSON.stringify(validity.pauseWithoutParameters.errors));
    assert.equal(validity.moveWithoutDirection.valid, false);
    assert.equal(validity.moveWithDirection.valid, true, JSON.stringify(validity.moveWithDirection.errors));
  });

  it("raised no script error in the page", () => {
    assert.deepEqual(pageErrors, []);
  });
});
