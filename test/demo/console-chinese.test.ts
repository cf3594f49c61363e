/**
 * The operator console of the demo run in Chinese (`npm start -- --lang zh-CN`), in headless Chromium
 * whose own locale is English: the tab's title, every word of the page and the times are Node-RED's
 * language, not the browser's. What stays Latin is the cloud's and the flows' own names (robots, maps,
 * areas, the plan's items, an incident's name), taken out before looking; of the English words the
 * console can show (its catalogue), none is on the page. The fleet page (fleet-page example) likewise
 * titles its tab and writes its times in Node-RED's language. Screenshot in the temp folder (shots-console-zh).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { startDemo, root, type RunningDemo } from "../support/demo-process";
import { launchChromium } from "../support/editor";

const shots = path.join(os.tmpdir(), "shots-console-zh");
const CONSOLE = ".robot-console";
const INCIDENT = "Lidar blocked";

/** Every string under `value`. */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(stringsOf);
  return [];
}

/** The English words the console can show: its words in the English catalogues, without what is filled in. */
function englishWords(): string[] {
  const catalogue = (name: string) =>
    JSON.parse(fs.readFileSync(path.join(root, "nodes", "locales", "en-US", `${name}.json`), "utf8")) as Record<
      string,
      Record<string, unknown>
    >;
  const maps = catalogue("robot-maps")["robot-maps"]!;
  const shared = catalogue("robot-fleet")["robot-fleet"]!;
  const texts = [
    ...stringsOf(maps.view),
    ...stringsOf((maps.fleetMap as Record<string, unknown>).states),
    ...stringsOf((shared.planReport as Record<string, unknown>).status),
  ];
  return [
    ...new Set(texts.flatMap((text) => text.split(/\{\w+\}|__\w+__/).map((part) => part.replace(/[^A-Za-z' ]+/g, " ").trim()))),
  ].filter((part) => /[A-Za-z]{2,}/.test(part));
}

/** The console's text outside the map's drawing (fleet-view-zh checks the drawing's words), the cloud's and the flows' names taken out. */
async function ownText(page: Page, names: readonly string[]): Promise<string> {
  const text = await page.$eval(CONSOLE, (element) => {
    const copy = element.cloneNode(true) as HTMLElement;
    copy.querySelector(".rc-map")?.remove();
    // Pickers' choices are the cloud's task and point names.
    for (const option of copy.querySelectorAll("option:not([value=''])")) option.remove();
    document.body.append(copy);
    const shown = copy.innerText;
    copy.remove();
    return shown;
  });
  return [...names].sort((a, b) => b.length - a.length).reduce((rest, name) => rest.split(name).join(" "), text);
}

/** Raises the H5 incident on a simulated robot: an open alarm with a time to show. */
async function raiseAlarm(demo: RunningDemo, serialNumber: string): Promise<void> {
  const raised = await fetch(`${demo.urls.simulator}/_sim/robots/${serialNumber}/incidents`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ incidentLevel: "H5", incidentName: INCIDENT }),
  });
  assert.ok(raised.status < 300, await raised.text());
}

describe("demo console in Chinese: no English word of the package's own, times in Node-RED's language (headless Chromium)", function () {
  this.timeout(300_000);
  let demo: RunningDemo;
  let browser: Browser;
  let page: Page;

  before(async () => {
    fs.mkdirSync(shots, { recursive: true });
    demo = await startDemo({}, ["--lang", "zh-CN"]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
    page.setDefaultTimeout(30_000);
    await page.goto(`${demo.urls.editor}/dashboard/fleet`);
    await page.waitForSelector(`${CONSOLE} .rc-map-inner svg [data-serial-number]`);
    await page.waitForSelector(`${CONSOLE} .rc-plan[open] .rc-plan-floor li`);
  });

  after(async () => {
    await browser?.close();
    if (demo) assert.equal(await demo.stop(), 0);
  });

  it("titles the tab, words every part and writes an alarm's time as Node-RED's language does, not the browser's", async () => {
    await raiseAlarm(demo, "GS-S-000101");
    const alarm = await page.waitForSelector(`${CONSOLE} .rc-alarms .rc-alarm small`);
    const since = (await alarm.textContent()) ?? "";
    assert.match(since, /自 \d\d:\d\d 起/, since);
    assert.doesNotMatch(since, /AM|PM|上午|下午/, since);
    assert.equal(await page.title(), "机器人车队");

    const plan = JSON.parse(fs.readFileSync(path.join(root, "examples", "cleaning-plan.json"), "utf8")) as Array<{
      type: string;
      plan?: Array<{ name: string }>;
    }>;
    const items = plan.find((node) => node.type === "robot-plan")!.plan!.map((item) => item.name);
    const robots = await page.$$eval(`${CONSOLE} .rc-robots .rc-name`, (cells) =>
      cells.flatMap((cell) => [cell.firstChild?.textContent?.trim() ?? "", cell.querySelector("small")?.textContent?.trim() ?? ""]),
    );
    const floors = await page.$$eval(`${CONSOLE} .rc-floor`, (buttons) =>
      buttons.map((button) => button.getAttribute("data-map-id") ?? "").filter(Boolean),
    );
    const floorNames = await page.$$eval(`${CONSOLE} .rc-plan-floor > b, ${CONSOLE} .rc-filter option`, (elements) =>
      elements.map((element) => element.textContent?.trim() ?? ""),
    );
    const names = [...items, ...robots, ...floors, ...floorNames, INCIDENT, "H5"].filter((name) => /[A-Za-z]/.test(name));
    const text = await ownText(page, names);
    assert.match(text, /今日计划/);
    assert.match(text, /待执行|未执行/);
    const latin = text.match(/[A-Za-z]{2,}[A-Za-z ]*/g) ?? [];
    assert.deepEqual(latin, [], `Latin words left on the page:\n${text}`);
    const english = englishWords();
    assert.ok(english.length > 100, `${english.length} English words listed`);
    assert.deepEqual(
      english.filter((word) => new RegExp(`\\b${word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`).test(text)),
      [],
    );
    await page.screenshot({ path: path.join(shots, "console-zh-1280.png") });
  });

  it("the fleet page (fleet-page example) titles its tab and writes times in Node-RED's language too", async () => {
    const fleetPage = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
    try {
      fleetPage.setDefaultTimeout(30_000);
      await raiseAlarm(demo, "GS-S-000201");
      await fleetPage.goto(`${demo.urls.editor}/fleet`);
      const alarm = await fleetPage.waitForSelector('#alarms li[data-serial-number="GS-S-000201"] small');
      const since = (await alarm.textContent()) ?? "";
      assert.match(since, /自 \d\d:\d\d 起/, since);
      assert.doesNotMatch(since, /AM|PM|上午|下午/, since);
      const updated = (await fleetPage.textContent("#updated")) ?? "";
      assert.doesNotMatch(updated, /AM|PM|上午|下午/, updated);
      assert.equal(await fleetPage.title(), "机器人车队");
      await fleetPage.screenshot({ path: path.join(shots, "fleet-page-zh-1280.png") });
    } finally {
      await fleetPage.close();
    }
  });
});
