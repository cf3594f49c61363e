/**
 * The proof-of-service page as a contractor opens and prints it: a day of
 * the demo's floors rendered by planReport with the package's catalogues, in
 * headless Chromium, in English and Chinese: the site, each day on a page of
 * its own when printed to PDF, the coverage images shown, every name as text.
 */
import type { AlarmLogEntry } from "../../src/api/pushes/open-alarms";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import type { JobResult } from "../../src/api/jobs/job-book";
import type { OccurrenceListing, PlannedOccurrence, SettledOccurrence } from "../../src/api/plans/occurrence";
import { planReport, type ReportWords } from "../../src/api/plans/plan-report";
import { readReport } from "../../src/api/reports/reading";
import { demoFleet, drawCoverage, type SimMap } from "../../src/simulator";
import { sharedCatalogue } from "../support/catalogue";
import { launchChromium, packageRoot } from "../support/editor";

const SHOTS = path.join(os.tmpdir(), "shots-plan-report");
/** The README's picture goes to docs/images when UPDATE_SCREENSHOTS is set; every picture to the temp folder to look at. */
const screenshots = (name: string) => [
  path.join(SHOTS, name),
  ...(process.env.UPDATE_SCREENSHOTS ? [path.join(packageRoot, "docs/images", name)] : []),
];

/** The report's words from the shared catalogue, as the node's translator finds them. */
function catalogueWords(language: string): ReportWords {
  const words = sharedCatalogue(language);
  return (key, params) => words(`planReport.${key}`, params);
}

const [FLOOR_1, FLOOR_2] = demoFleet().robots[0]!.maps as [SimMap, SimMap];
const LOBBY_ROBOT = "GS-S-000101";
const KITCHEN_ROBOT = "GS-S-000102";
const NAMES: Record<string, string> = { [LOBBY_ROBOT]: "Lobby scrubber <1>", [KITCHEN_ROBOT]: "Kitchen sweeper" };
const ZONE = "Europe/Berlin";

/** One day (2026-12-01, Berlin) of the demo's floors, every status on it; the next day planned only. */
function demoDay(): { listing: OccurrenceListing; images: Map<string, string> } {
  const planned: PlannedOccurrence[] = [];
  const settled: SettledOccurrence[] = [];
  const images = new Map<string, string>();
  const add = (
    item: string,
    map: SimMap,
    area: string,
    local: string,
    outcome?: { status: SettledOccurrence["status"]; robot?: string; completion?: number; reason?: string },
  ) => {
    const [day, time] = local.split("T") as [string, string];
    const plannedAt = new Date(Date.parse(`${day}T${time}:00+01:00`)).toISOString();
    const occurrence: PlannedOccurrence = {
      occurrenceId: `${item}@${local}`,
      item,
      plannedAt,
      itemSpec: { name: item, days: "daily", at: `${time}:00`, work: { kind: "area", area, map: map.name }, waitUpToSeconds: 1800 },
    };
    planned.push(occurrence);
    if (!outcome) return;
    const base = { occurrenceId: occurrence.occurrenceId, item, plannedAt, status: outcome.status };
    if (outcome.status === "failed") {
      settled.push({
        ...base,
        job: { code: "NO_ROBOT", message: "no robot", robots: { [LOBBY_ROBOT]: "busy", [KITCHEN_ROBOT]: "battery 4 %" } },
      });
      return;
    }
    if (!outcome.robot) {
      settled.push(base);
      return;
    }
    const partition = map.partitions.find((each) => each.name === area)!;
    const startMs = Date.parse(plannedAt) + (outcome.status === "late" ? 9 : 1) * 60_000;
    const areaPlanned = Math.round(partition.rect.width * partition.rect.height * map.resolution * map.resolution);
    const report = readReport(
      {
        id: `r-${item}-${time}`,
        startTime: new Date(startMs).toISOString(),
        endTime: new Date(startMs + 25 * 60_000).toISOString(),
        durationSeconds: 1500,
        taskEndStatus: outcome.completion === 1 ? 0 : 2,
        actualCleaningAreaSquareMeter: Math.round(areaPlanned * outcome.completion! * 10) / 10,
        plannedCleaningAreaSquareMeter: areaPlanned,
        subTasks: [{ mapId: map.id, mapName: map.name }],
      },
      outcome.robot,
    )!;
    images.set(
      report.reportKey,
      `data:image/png;base64,${drawCoverage(map, [String(partition.id)], outcome.completion!).toString("base64")}`,
    );
    const job: JobResult = {
      jobId: occurrence.occurrenceId,
      serialNumber: outcome.robot,
      work: occurrence.itemSpec.work,
      outcome: outcome.completion === 1 ? "completed" : "error",
      startedAt: report.startTimeIso,
      endedAt: report.endTimeIso!,
      attempts: [],
      report,
    };
    settled.push({ ...base, startedAt: job.startedAt, endedAt: job.endedAt, job });
  };
  add("Lobby", FLOOR_1, "Lobby", "2026-12-01T06:00", { status: "done", robot: LOBBY_ROBOT, completion: 1 });
  add("Lobby", FLOOR_1, "Lobby", "2026-12-01T08:00", { status: "late", robot: LOBBY_ROBOT, completion: 0.82 });
  add("Lobby", FLOOR_1, "Lobby", "2026-12-01T10:00", { status: "failed" });
  add("Lobby", FLOOR_1, "Lobby", "2026-12-01T12:00", { status: "missed" });
  add("Lobby", FLOOR_1, "Lobby", "2026-12-01T14:00", { status: "done", robot: LOBBY_ROBOT, completion: 1 });
  add("Kitchen <after lunch>", FLOOR_1, "Kitchen", "2026-12-01T13:30", { status: "done", robot: KITCHEN_ROBOT, completion: 0.95 });
  add("Canteen", FLOOR_2, "Canteen", "2026-12-01T15:00", { status: "skipped" });
  add("Canteen", FLOOR_2, "Canteen", "2026-12-01T17:00", { status: "cancelled", robot: undefined });
  add("Lobby", FLOOR_1, "Lobby", "2026-12-02T06:00");
  add("Kitchen <after lunch>", FLOOR_1, "Kitchen", "2026-12-02T13:30");
  return { listing: { timezone: ZONE, planned, settled }, images };
}

/** Two alarms raised while robots cleaned: one acknowledged and recovered, one acknowledged only. */
const INCIDENTS: AlarmLogEntry[] = [
  {
    serialNumber: LOBBY_ROBOT,
    incidentId: "i-1",
    level: { code: "H6", rank: 6 },
    code: "2010302",
    name: "Brush motor stalled",
    raisedAt: "2026-12-01T07:20:00.000Z",
    acknowledged: { by: "Ana", at: "2026-12-01T07:22:30.000Z" },
    recoveredAt: "2026-12-01T07:30:00.000Z",
  },
  {
    serialNumber: KITCHEN_ROBOT,
    incidentId: "i-2",
    level: { code: "H4", rank: 4 },
    name: "Clean water low",
    raisedAt: "2026-12-01T12:40:00.000Z",
    acknowledged: { by: "Bo", at: "2026-12-01T12:47:00.000Z" },
  },
];

function page(language: string, from: string, to: string): string {
  const { listing, images } = demoDay();
  return planReport({
    listing,
    request: { from, to, format: "html" },
    site: "Riverside Office Park",
    customer: "Riverside Estates Ltd",
    incidents: (fromMs, toMs) => INCIDENTS.filter((entry) => Date.parse(entry.raisedAt) >= fromMs && Date.parse(entry.raisedAt) < toMs),
    contractor: "Acme Facility Services",
    language,
    words: catalogueWords(language),
    nowMs: Date.parse("2026-12-01T17:00:00Z"),
    robotName: (serialNumber) => NAMES[serialNumber] ?? serialNumber,
    images,
  }) as string;
}

describe("plan report page in Chromium", function () {
  this.timeout(120_000);
  let browser: Browser;
  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  it("shows the site, the day, every status and the coverage images; names are text, not markup", async () => {
    const tab = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    await tab.setContent(page("en-US", "2026-12-01", "2026-12-01"), { waitUntil: "load" });
    assert.equal(await tab.locator("h1").first().textContent(), "Riverside Office Park");
    assert.match((await tab.locator(".date").first().textContent())!, /Proof of service · Tuesday, December 1, 2026/);
    const states = await tab.locator("table.occurrences .state").allTextContents();
    for (const state of ["done", "late", "failed", "missed", "skipped", "cancelled"])
      assert.ok(states.includes(state), `${state} in ${states.join(", ")}`);
    assert.ok((await tab.locator("table.occurrences").textContent())!.includes("Kitchen <after lunch>"), "the item's name shown as typed");
    assert.equal(await tab.locator("table b, table after").count(), 0, "no element made of a name");
    assert.ok((await tab.locator("table.occurrences").textContent())!.includes("Lobby scrubber <1>: busy; Kitchen sweeper: battery 4 %"));
    const loaded = await tab.locator("figure img").evaluateAll((images) => images.map((image) => (image as HTMLImageElement).naturalWidth));
    assert.equal(loaded.length, 4, "one image per report");
    assert.ok(
      loaded.every((width) => width > 0),
      `images drawn: ${loaded.join(", ")}`,
    );
    const total = await tab.locator("table.summary tr.total").textContent();
    assert.ok(total?.startsWith("Total8"), `the day's total: ${total}`);
    for (const file of screenshots("plan-report.png")) await tab.screenshot({ path: file, fullPage: true });
  });

  it("reads in Chinese in a runtime set to zh-CN", async () => {
    const tab = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    await tab.setContent(page("zh-CN", "2026-12-01", "2026-12-01"), { waitUntil: "load" });
    assert.equal(await tab.locator("html").getAttribute("lang"), "zh-CN");
    assert.match((await tab.locator(".date").first().textContent())!, /服务证明 · 2026年12月1日星期二/);
    const states = await tab.locator("table.occurrences .state").allTextContents();
    assert.deepEqual(new Set(states), new Set(["已完成", "延后完成", "失败", "错过", "已跳过", "已取消"]));
    for (const file of screenshots("plan-report-zh.png")) await tab.screenshot({ path: file, fullPage: true });
  });

  it("printed to PDF, each day starts a page of its own", async () => {
    const tab = await browser.newPage();
    // Counted without the sign-off, which ends whichever page is last: a day alone and the same day among others take as many pages.
    const pages = async (from: string, to: string) => {
      await tab.setContent(page("en-US", from, to), { waitUntil: "load" });
      await tab.addStyleTag({ content: ".sign-off { display: none; }" });
      const pdf = await tab.pdf({ format: "A4", printBackground: true });
      return pdf.toString("latin1").match(/\/Type\s*\/Page[^s]/g)?.length ?? 0;
    };
    const first = await pages("2026-12-01", "2026-12-01");
    const second = await pages("2026-12-02", "2026-12-02");
    const third = await pages("2026-12-03", "2026-12-03");
    assert.deepEqual([second, third], [1, 1], "a short day fits a page");
    assert.equal(
      await pages("2026-12-01", "2026-12-03"),
      first + second + third + 1,
      "three days and the period's totals: each its pages, none shared",
    );
    await tab.setContent(page("en-US", "2026-12-01", "2026-12-03"), { waitUntil: "load" });
    fs.writeFileSync(path.join(SHOTS, "plan-report.pdf"), await tab.pdf({ format: "A4" }));
  });
});
