/**
 * The robot-config dialog's limits in the real editor (headless Chromium
 * against a Node-RED 4.1 of its own, test/support/editor.ts): the six
 * per-account settings with the runtime table's defaults, the dialog marking
 * a value out of range with the runtime's own words, the editor's validators
 * agreeing with the runtime's check value for value, older flows without the
 * settings staying valid, and the help in the sidebar.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import {
  ACCOUNT_SETTINGS,
  ACCOUNT_SETTING_NAMES,
  accountSettingProblem,
  readAccountSettings,
  type AccountSettingName,
  isEmptySetting,
} from "../../src/api/settings/input-rules";
import { useEditor, type FlowNode, type OpenEditor } from "../support/editor";

/** Node-RED's editor globals, as far as these tests use them. */
interface EditorNode {
  id: string;
  type: string;
  valid?: boolean;
  validationErrors?: string[];
}
type Validator = (value: unknown, opt?: { label?: string }) => unknown;
declare const RED: {
  nodes: {
    node(id: string): EditorNode | undefined;
    getType(type: string): { defaults: Record<string, { value?: unknown; validate?: Validator }> };
  };
  editor: { editConfig(name: string, type: string, id: string): void; validateNode(node: object): void };
  sidebar: { help: { show(type: string): void } };
  settings: Record<string, unknown>;
};

/** The dialog's label of each setting, as the help names it too. */
const LABELS: Record<AccountSettingName, string> = {
  timeout: "Timeout",
  maxRetries: "Retries",
  connections: "Connections",
  rateLimit: "Rate limit",
  queueLimit: "Queue limit",
  maxRetryWait: "Max retry wait",
  robotListInterval: "Robot list every",
  arrivalRadius: "Arrival radius",
};

const TAB = "limits-tab";
// Loopback port 9 (discard): nothing here sends a request.
const flow: FlowNode[] = [
  { id: TAB, type: "tab", label: "limits" },
  // Saved before the limits existed: only timeout and maxRetries.
  { id: "older-config", type: "robot-config", name: "older", baseUrl: "http://127.0.0.1:9", timeout: 5, maxRetries: 1, authMode: "token" },
  // Hand-edited out of range; no node uses it, so the runtime starts anyway.
  {
    id: "bad-config",
    type: "robot-config",
    name: "bad",
    baseUrl: "http://127.0.0.1:9",
    authMode: "token",
    connections: 0,
    rateLimit: "-1",
    queueLimit: "",
  },
];

/** Out of range, not whole, or not a number, for each setting. */
const REFUSED: Array<[AccountSettingName, string]> = [
  ["connections", "0"],
  ["connections", "257"],
  ["connections", "2.5"],
  ["rateLimit", "-1"],
  ["queueLimit", "0"],
  ["queueLimit", "10000001"],
  ["timeout", "0"],
  ["timeout", "600.5"],
  ["maxRetries", "11"],
  ["maxRetries", "1.5"],
  ["maxRetryWait", "-1"],
  ["maxRetryWait", "86401"],
  ["connections", "sixteen"],
  ["rateLimit", "fast"],
];

/** Values offered to every setting's validator and to the runtime's check. */
const SAMPLES: unknown[] = [
  0,
  1,
  -1,
  0.05,
  0.1,
  0.5,
  2.5,
  3,
  10,
  11,
  16,
  20,
  60,
  256,
  257,
  600,
  601,
  10_000,
  10_001,
  86_400,
  86_401,
  10_000_000,
  10_000_001,
  -0,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  "",
  " ",
  " 16 ",
  "16",
  "1e3",
  "0x10",
  "abc",
  "12abc",
  "Infinity",
  "-1",
  "0.1",
  ".5",
  "5.",
  "1,000",
  "256.0",
  null,
  undefined,
  true,
];

describe("editor: robot-config limits dialog and help (own Node-RED, headless Chromium)", function () {
  this.timeout(60_000);
  const session = useEditor(flow, { "older-config": { token: "older-token" }, "bad-config": { token: "bad-token" } });
  let editor: OpenEditor;
  let page: Page;
  before(() => ({ editor, page } = session));

  afterEach(async function () {
    // Cancel the dialog: nothing a test typed is kept.
    while (await page.$("#node-config-dialog-cancel")) {
      await page.click("#node-config-dialog-cancel");
      await page.waitForSelector("#node-config-dialog-cancel", { state: "detached" });
    }
  });

  /** Opens the dialog of a new robot-config, as "Add new robot-config..." does. */
  async function openNewConfig(): Promise<void> {
    await page.evaluate(() => RED.editor.editConfig("", "robot-config", "_ADD_"));
    await page.waitForSelector("#node-config-input-maxRetryWait", { state: "visible" });
    await page.locator("#node-config-dialog-ok").click({ trial: true }); // the tray has slid in
  }

  /** Types `value` into a setting's field as a person does (a key press runs the dialog's validation). */
  async function typeInto(name: AccountSettingName, value: string): Promise<void> {
    const input = page.locator(`#node-config-input-${name}`);
    await input.fill(value);
    await input.press("End");
  }

  const markedInvalid = (name: AccountSettingName) =>
    page.$eval(`#node-config-input-${name}`, (input) => input.classList.contains("input-error"));

  it("reads its numbers from the runtime's table (robotConfigTables.accountSettings)", async () => {
    const exported = await page.evaluate(() => (RED.settings.robotConfigTables as { accountSettings: unknown }).accountSettings);
    assert.deepEqual(exported, ACCOUNT_SETTINGS);
  });

  it("shows the six limits below sign-in, with the table's defaults, units after the inputs and labels on one line", async () => {
    await openNewConfig();
    assert.match((await page.textContent(".red-ui-tray:last-of-type .red-ui-tray-titlebar")) ?? "", /Add new robot-config config node/);
    const layout = await page.evaluate((names) => {
      const box = (element: Element | null) => element!.getBoundingClientRect();
      const signIn = box(document.querySelector("#node-config-input-authMode"));
      const nameLabel = box(document.querySelector("label[for='node-config-input-name']"));
      const heading = document.querySelector<HTMLElement>(".robot-config-heading")!;
      return {
        heading: heading.innerText.trim(),
        headingBelowSignIn: box(heading).top > signIn.bottom,
        rows: names.map((name) => {
          const input = document.querySelector<HTMLInputElement>(`#node-config-input-${name}`)!;
          const row = input.closest<HTMLElement>(".form-row")!;
          const label = row.querySelector("label")!;
          const unit = row.querySelector<HTMLElement>(".robot-config-unit")!;
          const hint = row.querySelector<HTMLElement>(".robot-config-hint");
          return {
            name,
            value: input.value,
            placeholder: input.placeholder,
            label: label.innerText.trim(),
            shown: row.offsetParent !== null,
            belowHeading: box(row).top > box(heading).bottom,
            labelOnOneLine: box(label).height <= nameLabel.height + 1,
            unit: unit.innerText.trim(),
            unitAfterInput: box(unit).left >= box(input).right && box(unit).top < box(input).bottom && box(unit).bottom > box(input).top,
            hintOnSameLine: hint === null || (box(hint).top < box(input).bottom && box(hint).bottom > box(input).top),
            insideTray: box(hint ?? unit).right <= box(row).right + 1,
          };
        }),
      };
    }, ACCOUNT_SETTING_NAMES);
    await page.screenshot({ path: "/tmp/editor-robot-config-limits.png" });
    assert.match(layout.heading, /^Limits/);
    assert.equal(layout.headingBelowSignIn, true, "the limits come after authentication");
    const units: Record<AccountSettingName, string> = {
      timeout: "s",
      maxRetries: "times",
      connections: "at once",
      rateLimit: "requests/s",
      queueLimit: "calls",
      maxRetryWait: "s",
      robotListInterval: "min",
      arrivalRadius: "map cells",
    };
    assert.deepEqual(
      layout.rows.map((row) => row.name),
      ACCOUNT_SETTING_NAMES,
      "one row per setting of the table, in its order",
    );
    for (const row of layout.rows) {
      const name = row.name;
      const setting = ACCOUNT_SETTINGS[name];
      assert.deepEqual(
        row,
        {
          name,
          value: String(setting.default),
          placeholder: `default ${setting.default.toLocaleString("en-US")}`,
          label: LABELS[name],
          shown: true,
          belowHeading: true,
          labelOnOneLine: true,
          unit: units[name],
          unitAfterInput: true,
          hintOnSameLine: true,
          insideTray: true,
        },
        name,
      );
    }
    for (const name of ACCOUNT_SETTING_NAMES) assert.equal(await markedInvalid(name), false, `${name}'s default is valid`);
  });

  it("marks a value out of range invalid and says why in the runtime's words", async () => {
    await openNewConfig();
    for (const [name, value] of REFUSED) {
      await typeInto(name, value);
      assert.equal(await markedInvalid(name), true, `${name} = "${value}" is marked`);
      const others = ACCOUNT_SETTING_NAMES.filter((other) => other !== name);
      for (const other of others) assert.equal(await markedInvalid(other), false, `${other} stays valid while ${name} = "${value}"`);
      await typeInto(name, String(ACCOUNT_SETTINGS[name].default));
      assert.equal(await markedInvalid(name), false, `${name} valid again after its default is typed back`);
    }

    // The reason is shown on the field: the runtime's message, naming the field as a deploy error would.
    await typeInto("connections", "257");
    await page.hover("#node-config-input-connections");
    const tooltip = page.locator(".red-ui-popover", { hasText: "connections:" });
    await tooltip.waitFor({ state: "visible" });
    assert.equal((await tooltip.innerText()).trim(), `connections: ${accountSettingProblem("connections", "257")}`);
    await page.screenshot({ path: "/tmp/editor-robot-config-limit-invalid.png" });
    await typeInto("connections", "16");
    await page.hover("#node-config-input-name");
  });

  it("accepts each setting at both bounds, and empty (the runtime's default)", async () => {
    await openNewConfig();
    for (const name of ACCOUNT_SETTING_NAMES) {
      const { min, max } = ACCOUNT_SETTINGS[name];
      for (const value of [String(min), String(max), ""]) {
        await typeInto(name, value);
        assert.equal(await markedInvalid(name), false, `${name} = "${value}" is accepted`);
      }
      await typeInto(name, String(ACCOUNT_SETTINGS[name].default));
    }
  });

  it("has validators that agree with the runtime's accountSettingProblem, value for value", async () => {
    const verdicts = await page.evaluate(
      ({ names, samples }) => {
        const defaults = RED.nodes.getType("robot-config").defaults;
        return names.map((name) => ({
          name,
          arity: defaults[name]!.validate!.length,
          results: samples.map((value) => defaults[name]!.validate!(value, {})),
        }));
      },
      { names: ACCOUNT_SETTING_NAMES, samples: SAMPLES },
    );
    for (const { name: setting, arity, results } of verdicts) {
      // Two parameters: Node-RED then shows a returned string as the reason.
      assert.equal(arity, 2, `${setting}'s validate takes (v, opt)`);
      SAMPLES.forEach((value, index) => {
        const empty = isEmptySetting(value);
        let runtimeAccepts = true;
        try {
          readAccountSettings({ [setting]: value });
        } catch {
          runtimeAccepts = false;
        }
        const problem = empty ? undefined : accountSettingProblem(setting, value);
        assert.equal(problem === undefined, runtimeAccepts, `the runtime's two checks agree on ${setting} = ${String(value)}`);
        assert.equal(
          results[index],
          problem === undefined ? true : `${setting}: ${problem}`,
          `${setting} = ${JSON.stringify(value) ?? "undefined"}`,
        );
      });
    }
  });

  it("names the label Node-RED passes as opt.label, and lists the reason in the node's validation errors", async () => {
    const checked = await page.evaluate(() => {
      const def = RED.nodes.getType("robot-config");
      const node = {
        id: "validity-check",
        type: "robot-config",
        _def: def,
        name: "",
        baseUrl: "http://127.0.0.1:9",
        authMode: "token",
        timeout: 10,
        maxRetries: 3,
        connections: "300",
        rateLimit: 20,
        queueLimit: 10_000,
        maxRetryWait: 60,
      } as EditorNode & Record<string, unknown>;
      RED.editor.validateNode(node);
      return {
        valid: node.valid,
        errors: node.validationErrors,
        labelled: def.defaults.connections!.validate!("0", { label: "Connections" }),
      };
    });
    assert.deepEqual(checked, {
      valid: false,
      errors: [`connections: ${accountSettingProblem("connections", "300")}`],
      labelled: `Connections: ${accountSettingProblem("connections", "0")}`,
    });
  });

  it("keeps a flow saved before the limits existed valid, and marks a deployed value out of range", async () => {
    const nodes = await page.evaluate(() =>
      ["older-config", "bad-config"].map((id) => {
        const node = RED.nodes.node(id)!;
        RED.editor.validateNode(node);
        return { id, valid: node.valid, errors: node.validationErrors };
      }),
    );
    assert.deepEqual(nodes, [
      { id: "older-config", valid: true, errors: [] },
      {
        id: "bad-config",
        valid: false,
        errors: [`connections: ${accountSettingProblem("connections", 0)}`, `rateLimit: ${accountSettingProblem("rateLimit", "-1")}`],
      },
    ]);

    // The older config's dialog shows its limits empty, each saying which default the runtime uses.
    await page.evaluate(() => RED.editor.editConfig("", "robot-config", "older-config"));
    await page.waitForSelector("#node-config-input-connections", { state: "visible" });
    for (const name of ACCOUNT_SETTING_NAMES) {
      const expected = name === "timeout" ? "5" : name === "maxRetries" ? "1" : "";
      assert.equal(await page.inputValue(`#node-config-input-${name}`), expected, name);
      assert.equal(
        await page.getAttribute(`#node-config-input-${name}`, "placeholder"),
        `default ${ACCOUNT_SETTINGS[name].default.toLocaleString("en-US")}`,
      );
      // The placeholder is read whole: its text is narrower than the input's content box.
      const room = await page.evaluate((id) => {
        const input = document.querySelector<HTMLInputElement>(`#node-config-input-${id}`)!;
        const style = getComputedStyle(input);
        const context = document.createElement("canvas").getContext("2d")!;
        context.font = `${style.fontSize} ${style.fontFamily}`;
        return {
          text: context.measureText(input.placeholder).width,
          box: input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
        };
      }, name);
      assert.ok(room.text <= room.box, `${name}'s placeholder is ${room.text} px wide in ${room.box} px`);
      assert.equal(await markedInvalid(name), false, `${name} of an older flow is valid`);
    }
  });

  it("shows every limit in the help sidebar with the table's range and default, and what a flow can catch", async () => {
    await page.evaluate(() => RED.sidebar.help.show("robot-config"));
    await page.waitForFunction(() => document.querySelector(".red-ui-help-title")?.textContent === "robot-config");
    const help = await page.$eval(".red-ui-help-title + .red-ui-help", (element) => ({
      text: (element as HTMLElement).innerText.replace(/\s+/g, " "),
      headings: [...element.querySelectorAll("h3")].map((heading) => heading.textContent?.trim()),
      limits: [...element.querySelectorAll("dt[data-setting]")].map((term) => ({
        name: term.getAttribute("data-setting"),
        label: term.firstChild?.textContent?.trim(),
        text: (term.nextElementSibling as HTMLElement).innerText.replace(/\s+/g, " "),
      })),
    }));
    await page.screenshot({ path: "/tmp/editor-help-robot-config.png" });
    for (const heading of ["Properties", "Details"])
      assert.ok(help.headings.includes(heading), `help has ${heading}: ${help.headings.join(", ")}`);
    assert.deepEqual(
      help.limits.map((limit) => limit.name),
      ACCOUNT_SETTING_NAMES,
      "one entry per setting",
    );
    const number = (text: string) => Number(text.replace(/,/g, ""));
    for (const limit of help.limits) {
      const name = limit.name as AccountSettingName;
      assert.equal(limit.label, LABELS[name]);
      const stated = /From (\d[\d,]*(?:\.\d+)?) to (\d[\d,]*(?:\.\d+)?), default (\d[\d,]*(?:\.\d+)?)\./.exec(limit.text);
      assert.ok(stated, `${name}'s help states its range and default: ${limit.text}`);
      const { min, max, default: fallback } = ACCOUNT_SETTINGS[name];
      assert.deepEqual(
        [number(stated[1]!), number(stated[2]!), number(stated[3]!)],
        [min, max, fallback],
        `${name}'s help matches the table`,
      );
    }
    for (const phrase of [
      "QUEUE_FULL",
      "msg.error.code",
      "retryAfterSeconds",
      "Retry-After",
      "Catch",
      "paused by rate limit",
      "queued 312",
      "An empty limit means its default",
      "never sent twice",
      "connection reset",
      ...["STOP_TASK", "PAUSE_TASK", "STOP_NAVIGATE", "PAUSE_NAVIGATE", "REMOTE_CONTROL_STOP"],
    ]) {
      assert.ok(help.text.includes(phrase), `the help mentions ${phrase}`);
    }
  });

  it("raised no script error in the page", () => {
    assert.deepEqual(editor.pageErrors, []);
  });
});
