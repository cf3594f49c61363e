/**
 * The robot-events dialog in the real editor (headless Chromium against a
 * Node-RED 4.1 of its own, test/support/editor.ts): the path and the whole URL
 * to register with the maker, under httpNodeRoot "/" and "/api", the very URL
 * where the deployed node answers; an invalid path marked in the dialog and on
 * the node; "Incidents from" with every level and its meaning; and the app id,
 * a password that never reaches the page, an export or GET /flows.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { MIN_LEVELS } from "../../src/nodes/robot-events/table";
import { packageRoot, useEditor, type ExtraSettings, type FlowNode, type OpenEditor, type RunningNodeRed } from "../support/editor";

/** Node-RED's editor globals, as far as these tests use them. */
interface EditorNode {
  id: string;
  type: string;
  path?: string;
  valid?: boolean;
  validationErrors?: string[];
}
declare const RED: {
  nodes: {
    node(id: string): EditorNode | undefined;
    createCompleteNodeSet(options?: { credentials?: boolean }): unknown[];
  };
  editor: { edit(node: EditorNode | undefined): void };
  tray: { close(): void };
  actions: { invoke(name: string): void };
};
declare const $: (selector: string) => { val(): unknown; is(state: string): boolean; dialog(command: "close"): void };

const catalogue = (
  JSON.parse(fs.readFileSync(path.join(packageRoot, "nodes/locales/en-US/robot-events.json"), "utf8")) as {
    "robot-events": { minLevel: { all: string }; levels: Record<string, string>; validation: { path: string } };
  }
)["robot-events"];

const STORED_APP_ID = "app-id-5c1e-stored-never-in-the-browser";
const TYPED_APP_ID = "app-id-typed-in-the-dialog-9d07";
const TAB = "events-tab";
const flow: FlowNode[] = [
  { id: TAB, type: "tab", label: "pushes" },
  { id: "events", type: "robot-events", z: TAB, name: "", path: "/robot-events", minLevel: "", x: 200, y: 80, wires: [[], []] },
  { id: "events-h4", type: "robot-events", z: TAB, name: "serious", path: "/serious", minLevel: "H4", x: 200, y: 160, wires: [[], []] },
];
const credentials = { events: { appId: STORED_APP_ID }, "events-h4": { appId: "another-app-id" } };

/** What the runtime answers a GET at `url`: the deployed robot-events node answers 405, allowing POST. */
async function answerAt(url: string): Promise<{ status: number; allow: string | null }> {
  const answer = await fetch(url);
  await answer.arrayBuffer();
  return { status: answer.status, allow: answer.headers.get("allow") };
}

function dialogSuite(
  title: string,
  settings: ExtraSettings,
  root: string,
  run: (session: () => { nodeRed: RunningNodeRed; editor: OpenEditor; page: Page }) => void,
) {
  describe(title, function () {
    this.timeout(60_000);
    const session = useEditor(flow, credentials, settings);
    let page: Page;
    before(() => (page = session.page));

    afterEach(async function () {
      await page.evaluate(() => {
        if ($("#red-ui-clipboard-dialog").is(":visible")) $("#red-ui-clipboard-dialog").dialog("close");
      });
      for (let open = await page.$$(".red-ui-tray"); open.length > 0; open = await page.$$(".red-ui-tray")) {
        await page.evaluate(() => RED.tray.close());
        await page.waitForFunction((count) => document.querySelectorAll(".red-ui-tray").length < count, open.length);
      }
    });

    it(`shows the URL to register under httpNodeRoot "${root}", the one where the deployed node answers, and follows a typed path`, async () => {
      const origin = new URL(session.nodeRed.url).origin;
      const base = origin + root.replace(/\/+$/, "");
      await openDialog(page, "events");
      assert.equal(await page.inputValue("#node-input-path"), "/robot-events");
      const shown = await urlShown(page);
      assert.equal(shown, `${base}/robot-events`);
      assert.deepEqual(await answerAt(shown), { status: 405, allow: "POST" }, "the deployed node answers at the URL the dialog shows");
      await page.screenshot({ path: root === "/" ? "/tmp/robot-events-dialog.png" : "/tmp/robot-events-dialog-api.png" });

      await page.fill("#node-input-path", "/site-a/pushes");
      assert.equal(await urlShown(page), `${base}/site-a/pushes`);
      await page.fill("#node-input-path", "  /site-a/pushes  ");
      assert.equal(await urlShown(page), `${base}/site-a/pushes`, "spaces around the path are dropped, as the runtime drops them");
      await typePath(page, "");
      assert.equal(await urlShown(page), `${base}/robot-events`, "an empty path listens on the default one");
      assert.equal(await page.getAttribute("#node-input-path", "placeholder"), "/robot-events");
      assert.equal(await pathMarked(page), false, "empty is valid");
    });

    it("keeps the whole URL line readable: under the path, aligned with it, inside the tray, a long URL breaking within itself", async () => {
      await openDialog(page, "events");
      const trayWidth = () => page.$eval(".red-ui-tray:last-of-type", (tray) => tray.getBoundingClientRect().width);
      const widthBefore = await trayWidth();
      const measure = () =>
        page.evaluate(() => {
          const box = (element: Element) => element.getBoundingClientRect();
          const code = document.querySelector(".robot-events-url-value")!;
          const line = code.closest<HTMLElement>(".robot-events-url-line")!;
          const input = document.querySelector("#node-input-path")!;
          const tray = code.closest(".red-ui-tray-body")!;
          const lines = [...code.getClientRects()];
          return {
            text: (code as HTMLElement).innerText,
            lines: lines.length,
            belowPath: box(line).top >= box(input).bottom,
            alignedWithPath: [box(line.querySelector(".robot-events-url")!), ...lines].every((rect) => rect.left >= box(input).left - 1),
            insideTray: lines.every((rect) => rect.right <= box(tray).right),
            lineScrolls: line.scrollWidth > line.clientWidth + 1,
            font: Number.parseFloat(getComputedStyle(code).fontSize),
          };
        });

      const short = await measure();
      assert.deepEqual(
        {
          belowPath: short.belowPath,
          alignedWithPath: short.alignedWithPath,
          insideTray: short.insideTray,
          lineScrolls: short.lineScrolls,
          oneLine: short.lines === 1,
        },
        { belowPath: true, alignedWithPath: true, insideTray: true, lineScrolls: false, oneLine: true },
        JSON.stringify(short),
      );
      assert.ok(short.font >= 11, `a readable font: ${short.font}px`);

      // A long path, to see it is neither cut off nor pushed out of the tray.
      await typePath(page, "/site-a/building-7/pushes-from-the-cloud/of-the-north-wing");
      const long = await measure();
      await page.screenshot({ path: `/tmp/robot-events-dialog-long-${root === "/" ? "root" : "api"}.png` });
      assert.ok(long.text.endsWith("/site-a/building-7/pushes-from-the-cloud/of-the-north-wing"), long.text);
      assert.deepEqual(
        { alignedWithPath: long.alignedWithPath, insideTray: long.insideTray, lineScrolls: long.lineScrolls },
        { alignedWithPath: true, insideTray: true, lineScrolls: false },
        JSON.stringify(long),
      );
      assert.equal(await trayWidth(), widthBefore, "the tray keeps its width");
    });

    run(() => ({ nodeRed: session.nodeRed, editor: session.editor, page }));
  });
}

async function openDialog(page: Page, id: string): Promise<void> {
  await page.evaluate((nodeId) => RED.editor.edit(RED.nodes.node(nodeId)), id);
  await page.waitForSelector("#node-input-path", { state: "visible" });
  await page.locator("#node-dialog-ok").click({ trial: true }); // the tray has slid in
}

/** Types a path as a person does: Node-RED validates a field on a key going up. */
async function typePath(page: Page, value: string): Promise<void> {
  const input = page.locator("#node-input-path");
  await input.fill(value);
  await input.press("End");
}

function urlShown(page: Page): Promise<string> {
  return page.$eval(".robot-events-url-value", (code) => (code as HTMLElement).innerText.trim());
}

function pathMarked(page: Page): Promise<boolean> {
  return page.$eval("#node-input-path", (input) => input.classList.contains("input-error"));
}

describe("editor: the robot-events dialog (own Node-RED, headless Chromium)", () => {
  dialogSuite('with httpNodeRoot "/"', { httpNodeRoot: "/" }, "/", (session) => {
    it("marks an invalid path in the dialog, and Done leaves the node invalid with the reason", async () => {
      const { page } = session();
      await openDialog(page, "events");
      for (const refused of ["no-slash", "/a//b", "/a/", "/a:b", "/x y"]) {
        await typePath(page, refused);
        assert.equal(await pathMarked(page), true, `"${refused}" is marked`);
      }
      await typePath(page, "/site-a/pushes");
      assert.equal(await pathMarked(page), false);

      await typePath(page, "/a//b");
      await page.click("#node-dialog-ok");
      await page.waitForSelector(".red-ui-tray", { state: "detached" });
      const saved = await page.evaluate(() => {
        const node = RED.nodes.node("events")!;
        return { path: node.path, valid: node.valid, errors: node.validationErrors };
      });
      assert.deepEqual(saved, { path: "/a//b", valid: false, errors: [catalogue.validation.path] });
      await page.waitForSelector("[id='events'] .red-ui-flow-node-error", { state: "visible" });

      // Typed right again, the node is valid and its mark goes.
      await openDialog(page, "events");
      assert.equal(await pathMarked(page), true, "the dialog opens with the saved invalid path marked");
      await typePath(page, "/robot-events");
      await page.click("#node-dialog-ok");
      await page.waitForSelector(".red-ui-tray", { state: "detached" });
      assert.equal(await page.evaluate(() => RED.nodes.node("events")!.valid), true);
      await page.waitForSelector("[id='events'] .red-ui-flow-node-error", { state: "hidden" });
    });

    it('lists "every level" then H0 to H7, each with its meaning, under "Incidents from", and selects the saved level', async () => {
      const { page } = session();
      await openDialog(page, "events");
      assert.equal((await page.textContent("label[for='node-input-minLevel']"))?.trim(), "Incidents from");
      const options = await page.$$eval("#node-input-minLevel option", (list) =>
        list.map((option) => ({ value: (option as HTMLOptionElement).value, text: option.textContent })),
      );
      assert.deepEqual(
        options.map((option) => option.value),
        [...MIN_LEVELS],
      );
      assert.deepEqual(
        options.map((option) => option.text),
        MIN_LEVELS.map((level) => (level === "" ? catalogue.minLevel.all : `${level} – ${catalogue.levels[level]}`)),
      );
      assert.equal(options[0]!.text, "every level");
      assert.equal(options.find((option) => option.value === "H4")!.text, "H4 – task affected, user can resolve");
      assert.equal(await page.inputValue("#node-input-minLevel"), "");
      await page.evaluate(() => RED.tray.close());
      await page.waitForSelector(".red-ui-tray", { state: "detached" });

      await openDialog(page, "events-h4");
      assert.equal(await page.inputValue("#node-input-minLevel"), "H4");
    });

    it("keeps the app id a password field whose value never reaches the page, an export or GET /flows, and stores a typed one as a credential", async () => {
      const { page, nodeRed, editor } = session();
      await openDialog(page, "events");
      assert.equal(await page.getAttribute("#node-input-appId", "type"), "password");
      const shownValue = await page.inputValue("#node-input-appId");
      assert.notEqual(shownValue, "", "the field shows that an app id is set");
      assert.notEqual(shownValue, STORED_APP_ID);
      assert.ok(!(await page.content()).includes(STORED_APP_ID), "not anywhere in the page");

      await page.fill("#node-input-appId", TYPED_APP_ID);
      await page.click("#node-dialog-ok");
      await page.waitForSelector(".red-ui-tray", { state: "detached" });

      // As "Export all flows" builds its set; the set a deploy sends (credentials included) is the only one with
      // the typed app id, on its way to the runtime, and even it never had the stored one.
      const sets = await page.evaluate(() => ({
        exported: JSON.stringify(RED.nodes.createCompleteNodeSet({ credentials: false })),
        deployed: JSON.stringify(RED.nodes.createCompleteNodeSet()),
      }));
      assert.ok(sets.exported.includes('"robot-events"'), "the node set holds the node");
      assert.ok(
        !sets.exported.includes(TYPED_APP_ID) && !sets.exported.includes(STORED_APP_ID),
        "createCompleteNodeSet({credentials: false}) has no app id",
      );
      assert.ok(
        sets.deployed.includes(TYPED_APP_ID) && !sets.deployed.includes(STORED_APP_ID),
        "the deploy set carries only the typed app id",
      );

      // Through the export dialog, as a user shares a flow: this flow, then all flows.
      await page.evaluate(() => RED.actions.invoke("core:show-export-dialog"));
      await page.click("#red-ui-tab-red-ui-clipboard-dialog-export-tab-clipboard-json .red-ui-tab-label");
      await page.waitForSelector("#red-ui-clipboard-dialog-export-text", { state: "visible" });
      for (const range of ["flow", "full"]) {
        await page.click(`#red-ui-clipboard-dialog-export-rng-${range}`);
        await page.waitForFunction(() => String($("#red-ui-clipboard-dialog-export-text").val()).includes("robot-events"));
        const exported = await page.inputValue("#red-ui-clipboard-dialog-export-text");
        const node = (JSON.parse(exported) as FlowNode[]).find((entry) => entry.id === "events");
        assert.ok(node, `${range} export holds the node`);
        assert.equal(node.credentials, undefined, `${range} export has no credentials`);
        assert.ok(!exported.includes(TYPED_APP_ID) && !exported.includes(STORED_APP_ID), `${range} export has no app id`);
      }
      await page.click("#red-ui-clipboard-dialog-cancel");
      await page.waitForSelector("#red-ui-clipboard-dialog", { state: "hidden" });

      const deployed = page.waitForResponse(
        (response) => new URL(response.url()).pathname === "/flows" && response.request().method() === "POST",
      );
      await page.click("#red-ui-header-button-deploy");
      assert.equal((await deployed).status(), 200);
      const stored = JSON.parse(fs.readFileSync(path.join(nodeRed.userDir, "flows_cred.json"), "utf8")) as Record<
        string,
        Record<string, string>
      >;
      assert.equal(stored.events?.appId, TYPED_APP_ID, "the runtime stored the typed app id as a credential");
      assert.ok(!fs.readFileSync(path.join(nodeRed.userDir, "flows.json"), "utf8").includes(TYPED_APP_ID), "flows.json has no app id");
      const flows = await (await fetch(new URL("flows", nodeRed.url))).text();
      assert.ok(flows.includes("robot-events"), "GET /flows holds the node");
      assert.ok(!flows.includes(TYPED_APP_ID) && !flows.includes(STORED_APP_ID), "GET /flows has no app id");
      const received = await editor.received();
      assert.deepEqual(
        received.filter((item) => item.text.includes(TYPED_APP_ID) || item.text.includes(STORED_APP_ID)).map((item) => item.from),
        [],
        "no answer or websocket frame carried an app id",
      );
    });

    it("raised no script error in the page", () => {
      assert.deepEqual(session().editor.pageErrors, []);
    });
  });

  // The harness's own setting, said here.
  dialogSuite('with httpNodeRoot "/api"', { httpNodeRoot: "/api" }, "/api", (session) => {
    it("raised no script error in the page", () => {
      assert.deepEqual(session().editor.pageErrors, []);
    });
  });
});
