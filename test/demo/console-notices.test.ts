/**
 * The operator console's notices and its fleet-size layout, in headless
 * Chromium against the running demo (`npm start`). Three robots: a refusal
 * (a robot whose emergency stop was pressed, sent to its charger), then a
 * success on another robot, then an area job from a click on the map's area
 * name, each notice naming its own robot and what was done, and a second
 * browser seeing none of them (only the alarm raised); notices lie over the console's top, so the map
 * is where it was with none, one or three, and with none there is no empty strip. 200 robots: an alarm
 * raised is listed without scrolling at 800 and 1280 px and notified, the
 * table is in natural order and filtered to the robots that need attention.
 * Screenshots go to the temp folder (shots-console), to be looked at.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { startDemo, type RunningDemo } from "../support/demo-process";
import { launchChromium } from "../support/editor";

const shots = path.join(os.tmpdir(), "shots-console");
const CONSOLE = ".robot-console";
const row = (serial: string) => `${CONSOLE} .rc-robots tr[data-serial-number="${serial}"]`;

/** The notices a page shows, newest first: their kind and their text. */
function noticesOf(page: Page): Promise<Array<{ kind: string; text: string }>> {
  return page.$$eval(`${CONSOLE} .rc-notice`, (items) =>
    items.map((item) => ({
      kind: item.getAttribute("class")!.replace("rc-notice rc-", ""),
      text: (item.textContent ?? "").replace(/\s+/g, " ").trim(),
    })),
  );
}

/** Waits until a notice of `kind` matches `text`; fails naming the notices shown. */
async function noticeShown(page: Page, kind: string, text: RegExp, timeout = 60_000): Promise<void> {
  await page
    .waitForFunction(
      ({ selector, source }) =>
        [...document.querySelectorAll(selector)].some((item) => new RegExp(source).test((item.textContent ?? "").replace(/\s+/g, " "))),
      { selector: `${CONSOLE} .rc-notice.rc-${kind}`, source: text.source },
      { timeout },
    )
    .catch(async (error: unknown) => {
      throw new Error(`no ${kind} notice ${text}: ${JSON.stringify(await noticesOf(page))}`, { cause: error });
    });
}

async function simulatorCall(demo: RunningDemo, method: string, route: string, body: unknown): Promise<void> {
  const answer = await fetch(`${demo.urls.simulator}${route}`, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.ok(answer.status < 300, `${method} ${route}: ${answer.status} ${await answer.text()}`);
}

/** Whether the element is wholly inside the window as the page first shows it (no scrolling). */
function inFirstScreen(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (element) => {
    const box = element.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight && box.left >= 0 && box.right <= window.innerWidth;
  });
}

/**
 * Where the console's parts lie, in page coordinates (scrolling aside): the map's top, and the room between
 * the bar (floors, operator) and the first part below it (today's plan, else the alarms and the map).
 */
function layoutOf(page: Page): Promise<{ mapTop: number; belowBar: number }> {
  return page.$eval(CONSOLE, (shown) => {
    const top = (element: Element) => element.getBoundingClientRect().top + window.scrollY;
    const bar = shown.querySelector(".rc-bar")!.getBoundingClientRect();
    return {
      mapTop: top(shown.querySelector(".rc-map")!),
      belowBar: top(shown.querySelector(":scope > .rc-plan, :scope > .rc-main")!) - (bar.bottom + window.scrollY),
    };
  });
}

describe("demo console: each notice answers its own click, in the browser that clicked (headless Chromium)", function () {
  this.timeout(300_000);
  let demo: RunningDemo;
  let browser: Browser;
  let page: Page;
  let other: Page;

  before(async () => {
    fs.mkdirSync(shots, { recursive: true });
    demo = await startDemo();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 800, height: 1000 } });
    other = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    for (const each of [page, other]) {
      each.setDefaultTimeout(30_000);
      await each.goto(`${demo.urls.editor}/dashboard/fleet`);
      await each.waitForSelector(`${CONSOLE} .rc-map-inner svg [data-serial-number]`);
    }
  });

  after(async () => {
    await browser?.close();
    if (demo) assert.equal(await demo.stop(), 0);
  });

  it("a refusal, then a success on another robot: each notice names its own robot and says what happened", async () => {
    await page.waitForSelector(`${row("GS-S-000201")} [data-action="toCharger"]`);
    // Notices lie over the console's top: with none there is no empty strip, with some the map stays where it was.
    assert.deepEqual(await noticesOf(page), []);
    const bare = await layoutOf(page);
    assert.ok(bare.belowBar <= 8, `${bare.belowBar} px of room between the bar and what follows it`);
    await page.screenshot({ path: path.join(shots, "no-notice-800.png") });
    // Pressed just after a picture was drawn: the console still offers "to charger" for a while.
    await page.evaluate(() => new Promise((resolve) => window.addEventListener("robot-console-updated", resolve, { once: true })));
    await simulatorCall(demo, "PATCH", "/_sim/robots/GS-S-000201", { emergencyStop: true });
    await page.click(`${row("GS-S-000201")} [data-action="toCharger"]`);
    await noticeShown(page, "failed", /^Warehouse sweeper: .*emergency stop/, 20_000);
    assert.deepEqual(await layoutOf(page), bare, "one notice moves nothing");
    // Every browser is told of the alarm the emergency stop raised.
    await noticeShown(other, "raised", /^Warehouse sweeper: alarm raised: /, 20_000);
    await simulatorCall(demo, "PATCH", "/_sim/robots/GS-S-000201", { emergencyStop: false });

    await page.click(`${row("GS-S-000102")} [data-action="toCharger"]`);
    await noticeShown(page, "done", /^Kitchen scrubber: to charger, arrived$/, 120_000);
    // Never ahead of the row: by then the row shows it there.
    assert.match((await page.textContent(`${row("GS-S-000102")} td:nth-child(2)`)) ?? "", /charging|idle/);
    const notices = await noticesOf(page);
    const kitchen = notices.filter((notice) => notice.text.startsWith("Kitchen scrubber"));
    assert.deepEqual(kitchen, [{ kind: "done", text: "Kitchen scrubber: to charger, arrived" }], JSON.stringify(notices));
    assert.ok(
      !notices.some((notice) => notice.text.includes("Kitchen scrubber") && /emergency/.test(notice.text)),
      "no old refusal on a later notice",
    );
    assert.deepEqual(
      notices.filter((notice) => notice.kind === "failed").map((notice) => notice.text),
      ["Warehouse sweeper: has its emergency stop pressed: release it on the robot first"],
    );
    assert.ok(notices.length >= 3, JSON.stringify(notices));
    assert.deepEqual(await layoutOf(page), bare, "three notices move nothing");
    await page.screenshot({ path: path.join(shots, "notices-800.png") });
  });

  it("an area's name on the map offers 'clean this area' by the nearest free robot, followed to its outcome", async () => {
    await page.click(`${CONSOLE} .rc-floor:has-text("Floor 1")`);
    await page.click(`${CONSOLE} .rc-map-inner .area[data-area="Kitchen"] text`);
    assert.equal((await page.textContent(`${CONSOLE} .rc-clean-area`))?.trim(), "clean Kitchen with the nearest free robot");
    await page.click(`${CONSOLE} .rc-clean-area`);
    await noticeShown(page, "progress", /: clean this area: Kitchen: started$/);
    const started = (await noticesOf(page)).find((notice) => notice.text.includes("Kitchen: started"))!;
    const robot = started.text.slice(0, started.text.indexOf(":"));
    assert.ok(["Lobby scrubber", "Kitchen scrubber"].includes(robot), started.text);
    const serial = robot === "Lobby scrubber" ? "GS-S-000101" : "GS-S-000102";
    await page.screenshot({ path: path.join(shots, "area-job-800.png") });
    await simulatorCall(demo, "POST", `/_sim/robots/${serial}/task/end`, { taskEndStatus: 0 });
    await noticeShown(page, "done", new RegExp(`^${robot}: clean this area: Kitchen: done$`));
  });

  it("shows none of those notices in a second browser", async () => {
    const seen = await noticesOf(other);
    assert.ok(
      seen.every((notice) => notice.kind === "raised"),
      JSON.stringify(seen),
    );
    await other.screenshot({ path: path.join(shots, "other-browser-1280.png") });
  });

  it("an acknowledgement needs a name: with the Operator field empty it is not sent, and says why", async () => {
    await simulatorCall(demo, "POST", "/_sim/robots/GS-S-000101/incidents", { incidentLevel: "H3", incidentName: "Water tank empty" });
    const alarm = `${CONSOLE} .rc-alarms .rc-alarm[data-serial-number="GS-S-000101"]`;
    await page.waitForSelector(`${alarm} .rc-ack`, { timeout: 20_000 });
    await page.fill(`${CONSOLE} .rc-operator input`, "");
    await page.click(`${alarm} .rc-ack`);
    await noticeShown(page, "failed", /type your name in Operator first/, 5_000);
    assert.equal(
      await page.evaluate(() => document.activeElement?.closest(".rc-operator") !== null),
      true,
      "the Operator field is focused",
    );
    await page.fill(`${CONSOLE} .rc-operator input`, "Ana");
    await page.click(`${alarm} .rc-ack`);
    await page.waitForSelector(`${alarm} .rc-acked`, { timeout: 20_000 });
    assert.match((await page.textContent(`${alarm} .rc-acked`)) ?? "", /Ana/);
  });
});

describe("demo console at 200 robots: alarms first, natural order, a filter (headless Chromium)", function () {
  this.timeout(300_000);
  let demo: RunningDemo;
  let browser: Browser;

  before(async () => {
    fs.mkdirSync(shots, { recursive: true });
    demo = await startDemo({ SIMULATOR_ROBOTS: "200" });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    if (demo) assert.equal(await demo.stop(), 0);
  });

  for (const width of [800, 1280]) {
    it(`at ${width} px, lists an alarm raised without scrolling and notifies it; the table in natural order`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      page.setDefaultTimeout(60_000);
      await page.goto(`${demo.urls.editor}/dashboard/fleet`);
      await page.waitForFunction((selector) => document.querySelectorAll(selector).length === 200, `${CONSOLE} .rc-robots tbody tr`);
      const serial = width === 800 ? "GS-S-100150" : "GS-S-100151";
      await simulatorCall(demo, "POST", `/_sim/robots/${serial}/incidents`, { incidentLevel: "H6", incidentName: "Brush motor fault" });
      const alarm = `${CONSOLE} .rc-alarms .rc-alarm[data-serial-number="${serial}"]`;
      await page.waitForSelector(alarm, { timeout: 30_000 });
      await noticeShown(page, "raised", /alarm raised: H6 Brush motor fault/, 30_000);
      assert.equal(await inFirstScreen(page, alarm), true, "the alarm is in the first screen");
      assert.equal(await inFirstScreen(page, `${CONSOLE} .rc-notices`), true, "so is its notice");
      const names = await page.$$eval(`${CONSOLE} .rc-robots tbody td.rc-name`, (cells) =>
        cells.map((cell) => cell.firstChild?.textContent?.trim() ?? ""),
      );
      const sorted = [...names].sort(new Intl.Collator("en", { numeric: true, sensitivity: "base" }).compare);
      assert.deepEqual(names, sorted, "natural order");
      await page.screenshot({ path: path.join(shots, `console-200-${width}.png`) });

      await page.check(`${CONSOLE} .rc-filter input[type="checkbox"]`);
      const attention = await page.$$eval(`${CONSOLE} .rc-robots tbody tr`, (rows) =>
        rows.map((each) => each.getAttribute("data-serial-number")),
      );
      assert.ok(attention.includes(serial) && attention.length < 200, `${attention.length} robots need attention`);
      assert.ok(
        await page.$$eval(`${CONSOLE} .rc-robots tbody tr`, (rows) => rows.every((each) => each.classList.contains("rc-attention"))),
        "every robot shown needs attention",
      );
      await page.close();
    });
  }
});
