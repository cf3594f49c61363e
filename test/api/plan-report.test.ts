/** The proof-of-service report apart from Node-RED: the joins, the counts, the request's limits, the CSV and the HTML's escaping. */
import assert from "node:assert/strict";
import type { JobResult } from "../../src/api/jobs/job-result";
import { dayOfOccurrence, type OccurrenceListing, type PlannedOccurrence, type SettledOccurrence } from "../../src/api/plans/occurrence";
import {
  CSV_COLUMNS,
  MAX_REPORT_DAYS,
  daysBetween,
  planReport,
  planReportRows,
  readPlanReportRequest,
  type PlanReportInput,
  type PlanReportRows,
} from "../../src/api/plans/plan-report";
import { dayFormatter, keptReportOf, kpiRows } from "../../src/api/reports/kpi";
import type { ReadReport } from "../../src/api/reports/reading";
import { halfHourReport } from "../support/report-fixtures";

const ZONE = "Europe/Berlin";
const LOBBY_ROBOT = "GS-S-000101";
const KITCHEN_ROBOT = "GS-S-000102";
const NAMES: Record<string, string> = { [LOBBY_ROBOT]: "Lobby scrubber", [KITCHEN_ROBOT]: "Kitchen sweeper" };

function planned(item: string, localMinute: string, plannedAt: string): PlannedOccurrence {
  return {
    occurrenceId: `${item}@${localMinute}`,
    item,
    plannedAt,
    itemSpec: { name: item, days: "daily", at: "06:00:00", work: { kind: "area", area: item, map: "Floor 1" }, waitUpToSeconds: 1800 },
  };
}

function jobOf(serialNumber: string, read: ReadReport | undefined, outcome: JobResult["outcome"] = "completed"): JobResult {
  return {
    jobId: "x",
    serialNumber,
    robotName: serialNumber,
    work: { kind: "area", area: "Lobby", map: "Floor 1" },
    outcome,
    endedAt: read?.endTimeIso ?? "2026-12-01T12:00:00.000Z",
    attempts: [],
    ...(read ? { report: read } : {}),
  };
}

function settled(occurrence: PlannedOccurrence, status: SettledOccurrence["status"], job?: SettledOccurrence["job"]): SettledOccurrence {
  const started = job && "endedAt" in job ? { startedAt: occurrence.plannedAt, endedAt: job.endedAt } : {};
  return {
    occurrenceId: occurrence.occurrenceId,
    item: occurrence.item,
    plannedAt: occurrence.plannedAt,
    status,
    ...started,
    ...(job ? { job } : {}),
  };
}

// Tuesday 1 and Wednesday 2 December 2026, Berlin (UTC+1).
const LOBBY_0600 = planned("Lobby", "2026-12-01T06:00", "2026-12-01T05:00:00.000Z");
const LOBBY_0800 = planned("Lobby", "2026-12-01T08:00", "2026-12-01T07:00:00.000Z");
const LOBBY_1000 = planned("Lobby", "2026-12-01T10:00", "2026-12-01T09:00:00.000Z");
const LOBBY_1200 = planned("Lobby", "2026-12-01T12:00", "2026-12-01T11:00:00.000Z");
const KITCHEN_1300 = planned("Kitchen", "2026-12-01T13:00", "2026-12-01T12:00:00.000Z");
const KITCHEN_1500 = planned("Kitchen", "2026-12-01T15:00", "2026-12-01T14:00:00.000Z");
const KITCHEN_1700 = planned("Kitchen", "2026-12-01T17:00", "2026-12-01T16:00:00.000Z");
// A night item: its occurrence at 00:30 local is on the 2nd, though 23:30 UTC is still the 1st.
const NIGHT = planned("Night round", "2026-12-02T00:30", "2026-12-01T23:30:00.000Z");
const LOBBY_DAY2 = planned("Lobby", "2026-12-02T06:00", "2026-12-02T05:00:00.000Z");
const LOBBY_DAY2_LATE = planned("Lobby", "2026-12-02T18:00", "2026-12-02T17:00:00.000Z");
// Outside the span asked for: the day before and the day after.
const BEFORE = planned("Lobby", "2026-11-30T22:00", "2026-11-30T21:00:00.000Z");
const AFTER = planned("Lobby", "2026-12-03T06:00", "2026-12-03T05:00:00.000Z");
// Settled, but no plan has its item any more.
const GONE = planned("Old corridor", "2026-12-01T09:00", "2026-12-01T08:00:00.000Z");

const R_0600 = halfHourReport(LOBBY_ROBOT, "r1", "2026-12-01T05:01:00Z", 90, 100, {
  taskReportPngUri: "http://127.0.0.1:18080/_objects/r1.png?sig=1",
});
const R_0800 = halfHourReport(LOBBY_ROBOT, "r2", "2026-12-01T07:20:00Z", 30, 100, { taskEndStatus: 1 });
/** The job's read of r1 has an older figure; the account keeps the newer read. */
const R_1300_JOB = halfHourReport(KITCHEN_ROBOT, "r3", "2026-12-01T12:02:00Z", 10, 80);
const R_1300_KEPT = halfHourReport(KITCHEN_ROBOT, "r3", "2026-12-01T12:02:00Z", 60, 80);
const R_NIGHT = halfHourReport(KITCHEN_ROBOT, "r4", "2026-12-01T23:31:00Z", 40, 40);
const R_GONE = halfHourReport(LOBBY_ROBOT, "r5", "2026-12-01T08:02:00Z", 25, 50);
const R_DAY2 = halfHourReport(LOBBY_ROBOT, "r6", "2026-12-02T05:00:30Z", 100, 100);
const R_BEFORE = halfHourReport(LOBBY_ROBOT, "r0", "2026-11-30T21:00:00Z", 100, 100);

const NO_ROBOT = {
  code: "NO_ROBOT",
  message: "no robot could take the job",
  robots: { [LOBBY_ROBOT]: "busy", [KITCHEN_ROBOT]: "battery 12 %" },
};

const LISTING: OccurrenceListing = {
  timezone: ZONE,
  planned: [
    BEFORE,
    LOBBY_0600,
    LOBBY_0800,
    LOBBY_1000,
    LOBBY_1200,
    KITCHEN_1300,
    KITCHEN_1500,
    KITCHEN_1700,
    NIGHT,
    LOBBY_DAY2,
    LOBBY_DAY2_LATE,
    AFTER,
  ],
  settled: [
    settled(BEFORE, "done", jobOf(LOBBY_ROBOT, R_BEFORE)),
    settled(LOBBY_0600, "done", jobOf(LOBBY_ROBOT, R_0600)),
    settled(LOBBY_0800, "late", jobOf(LOBBY_ROBOT, R_0800, "stoppedByHand")),
    settled(LOBBY_1000, "failed", NO_ROBOT),
    settled(LOBBY_1200, "missed"),
    settled(GONE, "done", jobOf(LOBBY_ROBOT, R_GONE)),
    settled(KITCHEN_1300, "done", jobOf(KITCHEN_ROBOT, R_1300_JOB)),
    settled(KITCHEN_1500, "skipped"),
    settled(KITCHEN_1700, "cancelled", { ...jobOf(KITCHEN_ROBOT, undefined, "cancelled"), reason: "stopped by the flow" }),
    settled(NIGHT, "done", jobOf(KITCHEN_ROBOT, R_NIGHT)),
    settled(LOBBY_DAY2, "done", jobOf(LOBBY_ROBOT, R_DAY2)),
    settled(AFTER, "done", jobOf(LOBBY_ROBOT, halfHourReport(LOBBY_ROBOT, "r7", "2026-12-03T05:00:00Z", 1, 1))),
  ],
};

const KEPT = new Map([[R_1300_KEPT.reportKey, R_1300_KEPT]]);
/** Now: the 2nd at 12:00 Berlin, after LOBBY_DAY2 and before LOBBY_DAY2_LATE. */
const NOW = Date.parse("2026-12-02T11:00:00Z");

function input(overrides: Partial<PlanReportInput> = {}): PlanReportInput {
  return {
    listing: LISTING,
    request: { from: "2026-12-01", to: "2026-12-02", format: "rows" },
    site: "Riverside Office Park",
    language: "en-US",
    words: (key, params) => (params ? `${key} ${JSON.stringify(params)}` : key),
    nowMs: NOW,
    keptReport: (key) => KEPT.get(key),
    robotName: (serialNumber) => NAMES[serialNumber] ?? serialNumber,
    ...overrides,
  };
}

const rows = (overrides?: Partial<PlanReportInput>) => planReportRows(input(overrides));
const occurrence = (result: PlanReportRows, id: string) => result.occurrences.find((row) => row.occurrenceId === id);

describe("plan report: joins", () => {
  it("joins a done occurrence with its job's report: times, robot by its directory name, outcome, areas, coverage, image", () => {
    assert.deepEqual(occurrence(rows(), LOBBY_0600.occurrenceId), {
      day: "2026-12-01",
      timezone: ZONE,
      occurrenceId: "Lobby@2026-12-01T06:00",
      item: "Lobby",
      plannedAt: "2026-12-01T05:00:00.000Z",
      startedAt: "2026-12-01T05:00:00.000Z",
      endedAt: "2026-12-01T05:31:00.000Z",
      status: "done",
      durationSeconds: 1_860,
      serialNumber: LOBBY_ROBOT,
      robotName: "Lobby scrubber",
      outcome: "completed",
      reportId: "r1",
      areaCleaned: 90,
      areaPlanned: 100,
      coverage: 0.9,
      image: "http://127.0.0.1:18080/_objects/r1.png?sig=1",
    });
  });

  it("takes the account's newest read of a job's report over the job's own copy", () => {
    const row = occurrence(rows(), KITCHEN_1300.occurrenceId)!;
    assert.equal(row.areaCleaned, 60, "the kept read's 60 m², not the job's 10");
    assert.equal(row.coverage, 0.75);
    const withoutStore = occurrence(rows({ keptReport: undefined }), KITCHEN_1300.occurrenceId)!;
    assert.equal(withoutStore.areaCleaned, 10, "with no kept read, the job's copy");
  });

  it("a failed occurrence gives each robot's reason by name, and no figures", () => {
    const row = occurrence(rows(), LOBBY_1000.occurrenceId)!;
    assert.equal(row.status, "failed");
    assert.equal(row.reason, "Lobby scrubber: busy; Kitchen sweeper: battery 12 %");
    assert.deepEqual([row.areaCleaned, row.areaPlanned, row.coverage], [null, null, null]);
    assert.equal(row.serialNumber, undefined);
  });

  it("missed and skipped occurrences have no times and no figures; a cancelled one keeps its job's reason", () => {
    for (const id of [LOBBY_1200.occurrenceId, KITCHEN_1500.occurrenceId]) {
      const row = occurrence(rows(), id)!;
      assert.equal(row.startedAt, undefined, id);
      assert.equal(row.areaCleaned, null, id);
    }
    const cancelled = occurrence(rows(), KITCHEN_1700.occurrenceId)!;
    assert.equal(cancelled.outcome, "cancelled");
    assert.equal(cancelled.reason, "stopped by the flow");
  });

  it("an occurrence never taken up is upcoming after now and not run from now on, at the boundary too", () => {
    const at = Date.parse(LOBBY_DAY2_LATE.plannedAt);
    assert.equal(occurrence(rows({ nowMs: at - 1 }), LOBBY_DAY2_LATE.occurrenceId)!.status, "upcoming");
    assert.equal(occurrence(rows({ nowMs: at }), LOBBY_DAY2_LATE.occurrenceId)!.status, "notRun");
    assert.equal(occurrence(rows({ nowMs: at + 1 }), LOBBY_DAY2_LATE.occurrenceId)!.status, "notRun");
  });

  it("an occurrence under way is running, with its robot and start once its job has them, before its time too (run now)", () => {
    const id = LOBBY_DAY2_LATE.occurrenceId;
    const at = Date.parse(LOBBY_DAY2_LATE.plannedAt);
    const waiting = occurrence(rows({ nowMs: at + 1, underWay: (each) => (each === id ? {} : undefined) }), id)!;
    assert.deepEqual([waiting.status, waiting.robotName, waiting.startedAt], ["running", undefined, undefined]);
    const cleaning = occurrence(
      rows({
        nowMs: at - 1,
        underWay: (each) => (each === id ? { serialNumber: "GS-S-000101", startedAt: "2026-12-02T21:00:05Z" } : undefined),
      }),
      id,
    )!;
    assert.deepEqual(
      [cleaning.status, cleaning.serialNumber, cleaning.robotName, cleaning.startedAt],
      ["running", "GS-S-000101", NAMES["GS-S-000101"] ?? "GS-S-000101", "2026-12-02T21:00:05Z"],
    );
  });

  it("counts an occurrence on its local day in the plan's zone, whatever its UTC date", () => {
    assert.equal(occurrence(rows(), NIGHT.occurrenceId)!.day, "2026-12-02");
    assert.equal(dayOfOccurrence("Lunch @ noon@2026-12-01T12:00"), "2026-12-01", "an item's name may hold an @");
  });

  it("keeps a settled occurrence whose item no plan has any more", () => {
    assert.equal(occurrence(rows(), GONE.occurrenceId)!.areaCleaned, 25);
  });

  it("takes the days from and to, both included, and neither day beside them", () => {
    const ids = rows().occurrences.map((row) => row.occurrenceId);
    assert.ok(ids.includes(LOBBY_0600.occurrenceId) && ids.includes(LOBBY_DAY2_LATE.occurrenceId));
    assert.ok(!ids.includes(BEFORE.occurrenceId) && !ids.includes(AFTER.occurrenceId));
    const oneDay = rows({ request: { from: "2026-12-02", to: "2026-12-02", format: "rows" } });
    assert.deepEqual(
      oneDay.occurrences.map((row) => row.occurrenceId),
      [NIGHT.occurrenceId, LOBBY_DAY2.occurrenceId, LOBBY_DAY2_LATE.occurrenceId],
      "in planned order",
    );
  });
});

describe("plan report: counts per day and item", () => {
  it("counts planned, done, late, failed, missed, skipped and cancelled, with the reports' areas and coverage", () => {
    const result = rows();
    const pick = (day: string, item: string) => result.days.find((row) => row.day === day && row.item === item);
    assert.deepEqual(pick("2026-12-01", "Lobby"), {
      day: "2026-12-01",
      item: "Lobby",
      planned: 4,
      done: 1,
      late: 1,
      failed: 1,
      missed: 1,
      skipped: 0,
      cancelled: 0,
      areaCleaned: 120,
      areaPlanned: 200,
      coverage: 0.6,
    });
    assert.deepEqual(pick("2026-12-01", "Kitchen"), {
      day: "2026-12-01",
      item: "Kitchen",
      planned: 3,
      done: 1,
      late: 0,
      failed: 0,
      missed: 0,
      skipped: 1,
      cancelled: 1,
      areaCleaned: 60,
      areaPlanned: 80,
      coverage: 0.75,
    });
    const day2 = pick("2026-12-02", "Lobby")!;
    assert.deepEqual(
      [day2.planned, day2.done, day2.coverage],
      [2, 1, 1],
      "the upcoming one is planned and not yet counted as anything else",
    );
    assert.equal(pick("2026-12-02", "Night round")?.areaCleaned, 40);
    assert.deepEqual(
      result.days.map((row) => `${row.day} ${row.item}`),
      ["2026-12-01 Kitchen", "2026-12-01 Lobby", "2026-12-01 Old corridor", "2026-12-02 Lobby", "2026-12-02 Night round"],
    );
  });

  it("an item with no report has no coverage (null), as a KPI row with nothing planned", () => {
    const failedOnly = rows({ listing: { ...LISTING, planned: [LOBBY_1000], settled: [settled(LOBBY_1000, "failed", NO_ROBOT)] } });
    assert.deepEqual([failedOnly.days[0]!.areaCleaned, failedOnly.days[0]!.areaPlanned, failedOnly.days[0]!.coverage], [0, 0, null]);
  });

  it("each day's totals are robot-reports' KPI row of that day for the same reports", () => {
    const result = rows();
    const reports = [R_0600, R_0800, R_1300_KEPT, R_GONE, R_NIGHT, R_DAY2].map((read) => keptReportOf(read, 0));
    const kpi = kpiRows(reports, { from: "2026-12-01", to: "2026-12-02", by: "day" }, dayFormatter(ZONE));
    assert.equal(kpi.length, 2);
    for (const kpiRow of kpi) {
      const total = result.dayTotals.find((row) => "day" in kpiRow && row.day === kpiRow.day)!;
      assert.deepEqual([total.areaCleaned, total.areaPlanned, total.coverage], [kpiRow.areaCleaned, kpiRow.areaPlanned, kpiRow.coverage]);
    }
    assert.deepEqual(
      result.dayTotals.map((row) => [row.day, row.planned, row.done]),
      [
        ["2026-12-01", 8, 3],
        ["2026-12-02", 3, 2],
      ],
    );
  });
});

describe("plan report: the request", () => {
  const today = "2026-12-02";
  it("reads from, to (default from), format (default rows), and today", () => {
    assert.deepEqual(readPlanReportRequest({ from: "2026-12-01" }, today), { from: "2026-12-01", to: "2026-12-01", format: "rows" });
    assert.deepEqual(readPlanReportRequest({ from: "today", format: "csv" }, today), { from: today, to: today, format: "csv" });
  });

  it("refuses bad input naming the field", () => {
    const refused = (value: unknown, field: string) =>
      assert.throws(
        () => readPlanReportRequest(value, today),
        (error: { code?: string; field?: string }) => error.code === "INVALID_INPUT" && error.field === field,
      );
    refused("2026-12-01", "payload.report");
    refused({ from: "2026-13-01" }, "payload.report.from");
    refused({ from: "2026-12-01", to: "1.12.2026" }, "payload.report.to");
    refused({ from: "2026-12-01", format: "pdf" }, "payload.report.format");
  });

  it("a day that does not exist is refused with the value, not rolled over to the next month", () => {
    assert.throws(
      () => readPlanReportRequest({ from: "2024-02-30" }, today),
      /payload\.report\.from: must be a day as "YYYY-MM-DD" or "today" \(got "2024-02-30"\)/,
    );
    assert.throws(() => readPlanReportRequest({ from: "2023-02-29" }, today), /payload\.report\.from/);
    assert.equal(readPlanReportRequest({ from: "2024-02-29" }, today).from, "2024-02-29");
    assert.equal(readPlanReportRequest({ from: "2024-02-28" }, today).from, "2024-02-28");
    assert.throws(
      () => readPlanReportRequest({ from: "2026-12-01", to: "2026-12-32" }, today),
      /payload\.report\.to: .*\(got "2026-12-32"\)/,
    );
    assert.equal(readPlanReportRequest({ from: "2026-12-01", to: "2026-12-31" }, today).to, "2026-12-31");
    assert.throws(() => readPlanReportRequest({ from: "2026-00-10" }, today), /payload\.report\.from/);
    assert.throws(() => readPlanReportRequest({ from: "2026-13-01" }, today), /payload\.report\.from/);
    assert.equal(readPlanReportRequest({ from: "2026-12-01" }, today).from, "2026-12-01");
  });

  it("to: the day before from is refused, from itself and the day after are taken", () => {
    assert.throws(() => readPlanReportRequest({ from: "2026-12-02", to: "2026-12-01" }, today), /not be before from/);
    assert.equal(readPlanReportRequest({ from: "2026-12-02", to: "2026-12-02" }, today).to, "2026-12-02");
    assert.equal(readPlanReportRequest({ from: "2026-12-02", to: "2026-12-03" }, today).to, "2026-12-03");
  });

  it(`spans at most ${MAX_REPORT_DAYS} days: one fewer and exactly that taken, one more refused`, () => {
    const from = "2026-01-01";
    const dayAfter = (days: number) => new Date(Date.parse(`${from}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
    assert.equal(daysBetween(from, dayAfter(MAX_REPORT_DAYS - 1)).length, MAX_REPORT_DAYS);
    readPlanReportRequest({ from, to: dayAfter(MAX_REPORT_DAYS - 2) }, today);
    readPlanReportRequest({ from, to: dayAfter(MAX_REPORT_DAYS - 1) }, today);
    assert.throws(
      () => readPlanReportRequest({ from, to: dayAfter(MAX_REPORT_DAYS) }, today),
      (error: { field?: string }) => error.field === "payload.report.to",
    );
  });
});

describe("plan report: CSV", () => {
  it("has a header with units and one line per occurrence; coverage in per cent as the KPI's", () => {
    const csv = planReport(input({ request: { from: "2026-12-01", to: "2026-12-01", format: "csv" } })) as string;
    const lines = csv.trimEnd().split("\n");
    assert.equal(lines[0], CSV_COLUMNS.join(","));
    assert.ok(lines[0].includes("area_cleaned_m2") && lines[0].includes("coverage_percent"));
    assert.equal(lines.length, 1 + 8);
    assert.equal(
      lines[1],
      `2026-12-01,${ZONE},Lobby@2026-12-01T06:00,Lobby,2026-12-01T05:00:00.000Z,2026-12-01T05:00:00.000Z,2026-12-01T05:31:00.000Z,1860,done,status.done,GS-S-000101,Lobby scrubber,completed,outcome.completed,90,100,90,r1,0,,`,
    );
    assert.ok(
      lines.includes(
        `2026-12-01,${ZONE},Lobby@2026-12-01T10:00,Lobby,2026-12-01T09:00:00.000Z,,,,failed,status.failed,,,,,,,,,,Lobby scrubber: busy; Kitchen sweeper: battery 12 %,"reason.noRobot {""robots"":""Lobby scrubber: busy; Kitchen sweeper: battery 12 %""}"`,
      ),
    );
  });

  it("quotes a field with a comma, a quote or a line break as robot-reports' CSV does", () => {
    const item = 'Hall "A", east\nwing';
    const odd = planned(item, "2026-12-01T06:00", "2026-12-01T05:00:00.000Z");
    const csv = planReport(
      input({ listing: { timezone: ZONE, planned: [odd], settled: [] }, request: { from: "2026-12-01", to: "2026-12-01", format: "csv" } }),
    ) as string;
    assert.ok(csv.includes(`"Hall ""A"", east\nwing@2026-12-01T06:00","Hall ""A"", east\nwing",`));
  });
});

describe("plan report: HTML", () => {
  const hostile = "<img src=x onerror=alert(1)>&";
  const html = (overrides: Partial<PlanReportInput> = {}) =>
    planReport(input({ request: { from: "2026-12-01", to: "2026-12-04", format: "html" }, ...overrides })) as string;

  it("one section per day asked for, each breaking the page after it but the last", () => {
    const page = html();
    assert.deepEqual(
      [...page.matchAll(/<section class="day" data-day="([\d-]+)"/g)].map((match) => match[1]),
      ["2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04"],
    );
    assert.match(page, /\.day \{[^}]*break-after: page/);
    assert.match(page, /\.day:last-child \{[^}]*break-after: auto/);
    assert.ok(page.includes("nothingPlanned"), "a day without occurrences says so");
  });

  it("escapes every name from the cloud or the flow: site, item, robot, reason, image URL", () => {
    const hostileReport = halfHourReport(LOBBY_ROBOT, "h1", "2026-12-01T05:01:00Z", 1, 2, { taskReportPngUri: `http://x/"${hostile}` });
    const item = planned(hostile, "2026-12-01T06:00", "2026-12-01T05:00:00.000Z");
    const page = html({
      site: hostile,
      robotName: () => hostile,
      listing: {
        timezone: ZONE,
        planned: [item],
        settled: [settled(item, "done", { ...jobOf(LOBBY_ROBOT, hostileReport), reason: hostile })],
      },
    });
    assert.ok(!page.includes("<img src=x"), "no markup from a name");
    assert.ok(!page.includes('x/"<'), "no attribute broken out of");
    assert.ok(page.includes("&lt;img src=x onerror=alert(1)&gt;&amp;"));
  });

  it("shows a coverage image only from http(s) or an embedded PNG or JPEG, and prefers the embedded one", () => {
    const embedded = "data:image/png;base64,iVBORw0KGgo=";
    assert.ok(html().includes('src="http://127.0.0.1:18080/_objects/r1.png?sig=1"'));
    assert.ok(html({ images: new Map([[R_0600.reportKey, embedded]]) }).includes(`src="${embedded}"`));
    const scripted = halfHourReport(LOBBY_ROBOT, "j1", "2026-12-01T05:01:00Z", 1, 2, { taskReportPngUri: "javascript:alert(1)" });
    const page = html({
      listing: { timezone: ZONE, planned: [LOBBY_0600], settled: [settled(LOBBY_0600, "done", jobOf(LOBBY_ROBOT, scripted))] },
    });
    assert.ok(!page.includes("javascript:"));
  });

  it("writes times in the plan's zone and dates in the runtime's language", () => {
    assert.match(html(), /<td>06:00<\/td><td>Lobby<\/td>/);
    assert.ok(html().includes("Tuesday, December 1, 2026") || html().includes("Tuesday, 1 December 2026"));
    const chinese = html({ language: "zh-CN" });
    assert.ok(chinese.includes('lang="zh-CN"'));
    assert.ok(chinese.includes("2026年12月1日星期二"));
  });
});
