/**
 * The robot-plan dialog's dates and times in the real editor (headless
 * Chromium against a Node-RED 4.1 of its own): a zone, a skip date or an
 * item's time that the runtime would refuse at deploy marks the node invalid
 * before deploy, with the runtime's field name; a time typed in a row is
 * marked as it is typed. Each at the value and one each side.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { packageRoot, useEditor, type FlowNode } from "../support/editor";

interface EditorNode {
  id: string;
  type: string;
  timezone?: string;
  skipDates?: string;
  plan?: Record<string, unknown>[];
  valid?: boolean;
  validationErrors?: string[];
}
declare const RED: {
  nodes: { node(id: string): EditorNode | undefined };
  editor: { edit(node: EditorNode | undefined): void; validateNode(node: object): void };
  tray: { close(): void };
};

const words = (
  JSON.parse(fs.readFileSync(path.join(packageRoot, "nodes/locales/en-US/robot-plan.json"), "utf8")) as {
    "robot-plan": { validation: Record<"timezone" | "skipDate" | "time", string> };
  }
)["robot-plan"].validation;
const fill = (text: string, values: Record<string, string>) => text.replace(/__(\w+)__/g, (_, key: string) => values[key] ?? "");

const TAB = "plan-tab";
const ITEM = { name: "Lobby", days: "daily", at: "07:30", map: "Floor 1", area: "Lobby" };
const flow: FlowNode[] = [
  { id: TAB, type: "tab", label: "plan" },
  { id: "config", type: "robot-config", name: "cloud", baseUrl: "http://127.0.0.1:9", authMode: "token" },
  {
    id: "plan",
    type: "robot-plan",
    z: TAB,
    name: "",
    robot: "config",
    plan: [ITEM],
    timezone: "",
    lateBy: "",
    skipDates: "",
    x: 200,
    y: 80,
    wires: [[], [], []],
  },
];

/** The node's verdict after its properties are set to `changes`, judged as the editor judges a node. */
function verdict(page: Page, changes: Partial<EditorNode>): Promise<{ valid: boolean; errors: string[] }> {
  return page.evaluate((properties) => {
    const node = RED.nodes.node("plan")!;
    Object.assign(node, properties);
    RED.editor.validateNode(node);
    return { valid: node.valid === true, errors: node.validationErrors ?? [] };
  }, changes);
}

describe("editor: the robot-plan dialog checks zones, dates and times before deploy (own Node-RED, headless Chromium)", function () {
  this.timeout(60_000);
  const session = useEditor(flow, { config: { token: "t" } });
  const valid = { timezone: "", skipDates: "", plan: [ITEM] };

  afterEach(async () => {
    await session.page.evaluate(() => RED.tray.close()).catch(() => undefined);
  });

  it("refuses a zone Intl does not know, as the runtime does: Europe/Berln, not Europe/Berlin or empty", async () => {
    const { page } = session;
    assert.deepEqual(await verdict(page, { ...valid, timezone: "Europe/Berln" }), {
      valid: false,
      errors: [fill(words.timezone, { value: "Europe/Berln" })],
    });
    assert.deepEqual(await verdict(page, { ...valid, timezone: "Europe/Berlin" }), { valid: true, errors: [] });
    assert.deepEqual(await verdict(page, { ...valid, timezone: "Pacific/Auckland" }), { valid: true, errors: [] });
    assert.deepEqual(await verdict(page, { ...valid, timezone: "" }), { valid: true, errors: [] });
  });

  it("refuses a skip date that does not exist: 2026-13-01 and 2023-02-29, not 2024-02-29 or 2026-12-31", async () => {
    const { page } = session;
    for (const refused of ["2026-12-25, 2026-13-01", "2023-02-29", "2026-12-32", "25.12.2026"]) {
      const bad = refused.split(", ").at(-1)!;
      assert.deepEqual(
        await verdict(page, { ...valid, skipDates: refused }),
        { valid: false, errors: [fill(words.skipDate, { value: bad })] },
        refused,
      );
    }
    for (const taken of ["2024-02-29", "2026-12-31 2027-01-01", ""])
      assert.deepEqual(await verdict(page, { ...valid, skipDates: taken }), { valid: true, errors: [] }, taken);
  });

  it("refuses an item's time that is no HH:MM[:SS], naming plan[n].at or .until as the runtime does", async () => {
    const { page } = session;
    const second = { ...ITEM, name: "Kitchen" };
    const refusedAt = (at: string) => verdict(page, { ...valid, plan: [ITEM, { ...second, at }] });
    assert.deepEqual(await refusedAt("7.30"), {
      valid: false,
      errors: [fill(words.time, { field: "plan[1].at", value: "7.30", item: "Kitchen" })],
    });
    assert.deepEqual(await refusedAt("24:00"), {
      valid: false,
      errors: [fill(words.time, { field: "plan[1].at", value: "24:00", item: "Kitchen" })],
    });
    assert.equal((await refusedAt("23:59:59")).valid, true);
    assert.equal((await refusedAt("00:00")).valid, true);
    const until = await verdict(page, { ...valid, plan: [{ ...ITEM, every: 30, until: "18.00" }] });
    assert.deepEqual(until, { valid: false, errors: [fill(words.time, { field: "plan[0].until", value: "18.00", item: "Lobby" })] });
    assert.equal((await verdict(page, { ...valid, plan: [{ ...ITEM, every: 30, until: "18:00" }] })).valid, true);
  });

  it("marks a row's time as it is typed, and Done leaves the node invalid with the reason", async () => {
    const { page } = session;
    await verdict(page, valid);
    await page.evaluate(() => RED.editor.edit(RED.nodes.node("plan")));
    const at = page.locator(".robot-plan-at").first();
    await at.waitFor({ state: "visible" });
    const marked = () => at.evaluate((input) => input.classList.contains("input-error"));
    for (const [typed, bad] of [
      ["7.30", true],
      ["07:30", false],
      ["24:00", true],
      ["23:59", false],
    ] as const) {
      await at.fill(typed);
      await at.press("End");
      assert.equal(await marked(), bad, `"${typed}"`);
    }
    await at.fill("7.30");
    await page.fill("#node-input-timezone", "Europe/Berln");
    await page.click("#node-dialog-ok");
    await page.waitForSelector(".red-ui-tray", { state: "detached" });
    await page.screenshot({ path: "/tmp/robot-plan-dialog-invalid.png" });
    const saved = await page.evaluate(() => {
      const node = RED.nodes.node("plan")!;
      return { valid: node.valid, errors: node.validationErrors };
    });
    assert.deepEqual(saved, {
      valid: false,
      errors: [fill(words.time, { field: "plan[0].at", value: "7.30", item: "Lobby" }), fill(words.timezone, { value: "Europe/Berln" })],
    });
    await page.waitForSelector("[id='plan'] .red-ui-flow-node-error", { state: "visible" });
  });
});
