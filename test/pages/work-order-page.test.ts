/**
 * The work order as a technician opens and prints it: workOrderAnswer's page
 * with the package's catalogues, in headless Chromium, in English and
 * Chinese: the parts due first with their day and basis, the tanks, the
 * batteries, a box to tick per line, names as text; printed to PDF, a short
 * list is one page and a long one repeats its table heads on each page.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import type { UpkeepPart, UpkeepRobot } from "../../src/api/upkeep/table";
import { workOrderAnswer } from "../../src/api/upkeep/work-order";
import { sharedCatalogue } from "../support/catalogue";
import { launchChromium, packageRoot } from "../support/editor";

const SHOTS = path.join(os.tmpdir(), "shots-work-order");
const screenshots = (name: string) => [
  path.join(SHOTS, name),
  ...(process.env.UPDATE_SCREENSHOTS ? [path.join(packageRoot, "docs/images", name)] : []),
];
const NOW = new Date("2026-12-07T09:00:00Z");
const ZONE = "Europe/Berlin";

function part(name: UpkeepPart["part"], remaining: number, dueDay?: string, basis: UpkeepPart["forecast"]["basis"] = "plan"): UpkeepPart {
  const hoursPerDay = basis === "plan" ? 5.5 : 3;
  return { part: name, remaining, threshold: 0.1, forecast: { basis, historyDays: 24, ...(dueDay ? { dueDay, hoursPerDay } : {}) } };
}

/** A site's fleet on a Monday: a filter under its threshold, parts due this and next week, a tank to empty, a hot battery. */
const FLEET: UpkeepRobot[] = [
  {
    serialNumber: "GS-S-000101",
    name: "Lobby scrubber",
    readAt: NOW.toISOString(),
    parts: [part("filter", 0.08, "2026-12-06"), part("rollingBrush", 0.16, "2026-12-11"), part("softSqueegee", 0.6, "2027-02-01")],
    tanks: { cleanWater: 60, recoveryWater: 91 },
    battery: { health: "HEALTHY", cycles: 412, hottestCell: 38 },
  },
  {
    serialNumber: "GS-S-000102",
    name: "Kitchen sweeper",
    readAt: NOW.toISOString(),
    parts: [part("scrubberBrush", 0.21, "2026-12-18", "recent"), part("filter", 0.5, undefined, "too little history")],
    tanks: { cleanWater: 9, recoveryWater: 0 },
    battery: { health: "HEALTHY", cycles: 1210, hottestCell: 58 },
  },
];

const pageOf = (table: UpkeepRobot[], language: string) =>
  workOrderAnswer(table, "html", sharedCatalogue(language), { now: NOW, timeZone: ZONE });

describe("work order page in Chromium", function () {
  this.timeout(120_000);
  let browser: Browser;
  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  it("lists the parts due by the 14th day ahead (the one under its threshold first), the tanks and the batteries", async () => {
    const tab = await browser.newPage({ viewport: { width: 900, height: 900 } });
    await tab.setContent(pageOf(FLEET, "en-US"), { waitUntil: "load" });
    assert.deepEqual(await tab.locator("h2").allTextContents(), [
      "Parts due by Dec 21, 2026",
      "Tanks that need a person now",
      "Batteries out of normal",
      "Technician",
    ]);
    const parts = await tab
      .locator("table.parts tbody tr")
      .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll("td")].slice(1).map((cell) => cell.textContent)));
    assert.deepEqual(parts, [
      ["Lobby scrubberGS-S-000101", "Filter", "8%", "under its threshold now", "at the planned 5.5 h a day · 24 days of history"],
      ["Lobby scrubberGS-S-000101", "Rolling brush", "16%", "Dec 11, 2026", "at the planned 5.5 h a day · 24 days of history"],
      ["Kitchen sweeperGS-S-000102", "Scrubber brush", "21%", "Dec 18, 2026", "at its recent 3 h a day · 24 days of history"],
    ]);
    assert.deepEqual(
      await tab
        .locator("table.tanks tbody tr")
        .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-serial-number") + " " + row.getAttribute("data-tank"))),
      ["GS-S-000102 cleanWater", "GS-S-000101 recoveryWater"],
    );
    assert.equal(await tab.locator("table.batteries tbody tr").getAttribute("data-serial-number"), "GS-S-000102");
    assert.equal(await tab.locator("td.tick span").count(), 3 + 2 + 1, "a box to tick per line");
    for (const file of screenshots("upkeep-work-order.png")) await tab.screenshot({ path: file, fullPage: true });
  });

  it("shows a robot's name made of markup as text", async () => {
    const tab = await browser.newPage();
    await tab.setContent(pageOf([{ ...FLEET[0]!, name: "Lobby <b>scrubber</b>" }], "en-US"), { waitUntil: "load" });
    assert.equal(await tab.locator("table.parts tbody tr td:nth-child(2)").first().textContent(), "Lobby <b>scrubber</b>GS-S-000101");
    assert.equal(await tab.locator("tbody b").count(), 0, "no element made of a name");
  });

  it("reads in Chinese in a runtime set to zh-CN", async () => {
    const tab = await browser.newPage({ viewport: { width: 900, height: 900 } });
    await tab.setContent(pageOf(FLEET, "zh-CN"), { waitUntil: "load" });
    assert.equal(await tab.locator("html").getAttribute("lang"), "zh-CN");
    assert.equal(await tab.locator("h1").textContent(), "维护工单");
    assert.deepEqual(await tab.locator("table.parts tbody td:nth-child(3)").allTextContents(), ["滤网", "滚刷", "刷盘"]);
    assert.deepEqual(await tab.locator("table.tanks tbody td:nth-child(5)").allTextContents(), ["加水", "排空"]);
    for (const file of screenshots("upkeep-work-order-zh.png")) await tab.screenshot({ path: file, fullPage: true });
  });

  it("says nothing needs a person when nothing does", async () => {
    const tab = await browser.newPage();
    await tab.setContent(
      pageOf(
        [
          {
            ...FLEET[1]!,
            parts: [part("filter", 0.5, "2026-12-22")],
            tanks: { cleanWater: 15 },
            battery: { health: "HEALTHY", hottestCell: 55 },
          },
        ],
        "en-US",
      ),
      {
        waitUntil: "load",
      },
    );
    assert.equal(await tab.locator("table").count(), 0);
    assert.equal(await tab.locator("body > p.muted").textContent(), "Nothing needs a person.");
  });

  it("printed to PDF: a short list on one page; 200 robots' parts on several, each page with the table's heads", async () => {
    const tab = await browser.newPage();
    const pagesOf = (pdf: Buffer) => pdf.toString("latin1").match(/\/Type\s*\/Page[^s]/g)?.length ?? 0;
    await tab.setContent(pageOf(FLEET, "en-US"), { waitUntil: "load" });
    assert.equal(pagesOf(await tab.pdf({ format: "A4" })), 1);
    const fleet = Array.from({ length: 200 }, (_, index): UpkeepRobot => ({
      ...FLEET[0]!,
      serialNumber: `GS-S-${String(index).padStart(6, "0")}`,
      name: `Scrubber ${index}`,
    }));
    await tab.setContent(pageOf(fleet, "en-US"), { waitUntil: "load" });
    const pdf = await tab.pdf({ format: "A4" });
    fs.writeFileSync(path.join(SHOTS, "work-order-200.pdf"), pdf);
    const pages = pagesOf(pdf);
    // 400 part lines and 200 tanks at about 30 lines a page.
    assert.ok(pages >= 15, `${pages} pages`);
    await tab.emulateMedia({ media: "print" });
    // In print, a table's head repeats on each page it spans (thead as a header group).
    assert.equal(await tab.locator("table.parts thead").evaluate((head) => getComputedStyle(head).display), "table-header-group");
  });
});
