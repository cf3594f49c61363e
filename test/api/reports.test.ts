/** Reading task reports, their identity, the sweep's windows and pages, the book, and the KPI rows, apart from Node-RED. */
import { robotNameOf } from "../../src/api/account/robot-directory";
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import { DAY_MS, ReportBook } from "../../src/api/reports/book";
import { dayFormatter, keptReportOf, kpiChartPoints, kpiRows, readKpiRequest, type KeptReport } from "../../src/api/reports/kpi";
import { readReport, reportIdentity, type ReadReport } from "../../src/api/reports/reading";
import { RUNNING_TASK_REACH_MS, SWEEP_PAGE_SIZE, sweepFleet, sweepWindow, wantsNextPage } from "../../src/api/reports/sweep";
import { HALL, KPI_REPORTS, LOBBY, ROBOT_NAMES, pushedEvent, reportAt } from "../support/report-fixtures";
import { ReportsStub } from "../support/reports-stub";

const read = (report: Record<string, unknown>, serialNumber?: string): ReadReport => readReport(report, serialNumber)!;
const kept = (reports = KPI_REPORTS): KeptReport[] => reports.map((report) => keptReportOf(read(report), 0));
const UTC = dayFormatter("UTC");
const NAMES = new Map(Object.entries(ROBOT_NAMES));
const nameOf = (serialNumber: string) => NAMES.get(serialNumber) ?? serialNumber;
const PERIOD = { from: "2026-11-24", to: "2026-11-25" };

describe("task reports: reading", () => {
  it("reads coverage, both efficiencies, the maps and ISO times of a polled report", () => {
    const report = read(KPI_REPORTS[2]!);
    assert.equal(report.serialNumber, HALL);
    assert.equal(report.reportKey, `${HALL}/r3`);
    assert.equal(report.outcome, "normal");
    assert.equal(report.cleaningKind, "scrub");
    assert.equal(report.coverage, 0.9, "360 of 400 m²");
    assert.equal(report.efficiency, 180, "360 m² in 2 h");
    assert.equal(report.cloudEfficiency, 170, "the cloud's own figure, kept beside");
    assert.deepEqual(report.maps, [
      { mapId: "m-1", mapName: "Floor 1", areaCleaned: 270, areaPlanned: 300 },
      { mapId: "m-2", mapName: "Floor 2", areaCleaned: 90, areaPlanned: 100 },
    ]);
    assert.equal(report.startTimeIso, "2026-11-24T10:00:00.000Z");
    assert.equal(report.endTimeIso, "2026-11-24T12:00:00.000Z");
    assert.equal(report.durationSeconds, 7200, "the cloud's fields stay");
  });

  it("reads a pushed report (epoch ms, serial number beside) as the same report as its polled shape", () => {
    const polled = read(KPI_REPORTS[4]!);
    const pushed = read(pushedEvent(KPI_REPORTS[4]!), LOBBY);
    assert.equal(pushed.reportKey, polled.reportKey);
    assert.equal(pushed.reportKey, `${LOBBY}/5`, "a numeric id is the same id as its text");
    assert.equal(reportIdentity(LOBBY, { id: "5" }), pushed.reportKey);
    for (const field of ["startTimeIso", "endTimeIso", "coverage", "efficiency", "outcome"] as const)
      assert.deepEqual(pushed[field], polled[field], field);
    assert.equal(pushed.outcome, "error");
  });

  it("knows a report without an id by its robot and start, and reads int64 strings", () => {
    const report = read({
      robotSerialNumber: LOBBY,
      startTime: "1764000000000",
      durationSeconds: "3600",
      actualCleaningAreaSquareMeter: "50",
      plannedCleaningAreaSquareMeter: 0,
      completionPercentage: 0.4,
    });
    assert.equal(report.reportKey, `${LOBBY}/start:1764000000000`);
    assert.equal(report.efficiency, 50);
    assert.equal(report.coverage, 0.4, "no planned area: the cloud's completion");
    assert.equal(readReport({ id: "x" }), undefined, "no robot, no report");
  });
});

describe("task reports: the fleet's figures", () => {
  it("by robot: every column, as worked out by hand", () => {
    assert.deepEqual(kpiRows(kept(), { ...PERIOD, by: "robot" }, UTC, nameOf), [
      // r1, r2, r5: 180+30+150 m² of 200+100+200, 1+0.5+1 h; cloud (190·1 + 70·0.5 + 160·1) / 2.5; battery 20+8+15.
      {
        serialNumber: LOBBY,
        robotName: "Lobby scrubber",
        tasks: 3,
        completed: 1,
        stoppedByHand: 1,
        error: 1,
        failedToStart: 0,
        areaCleaned: 360,
        areaPlanned: 500,
        coverage: 0.72,
        hours: 2.5,
        efficiency: 144,
        cloudEfficiency: 154,
        water: 7.2,
        batteryUsed: 43,
      },
      // r3, r4: 360 m² of 400+150, 2 h (r4 never started); battery 40+0.
      {
        serialNumber: HALL,
        robotName: "Hall sweeper",
        tasks: 2,
        completed: 1,
        stoppedByHand: 0,
        error: 0,
        failedToStart: 1,
        areaCleaned: 360,
        areaPlanned: 550,
        coverage: 0.655,
        hours: 2,
        efficiency: 180,
        cloudEfficiency: 170,
        water: 7.2,
        batteryUsed: 40,
      },
    ]);
  });

  it("by map: a report on two floors counts on each with that floor's area and its share of time, water and battery", () => {
    assert.deepEqual(kpiRows(kept(), { ...PERIOD, by: "map" }, UTC), [
      // r1 (180/200, 1 h), r3's floor 1 (270/300, 3/4 of 2 h, 5.4 L, 30 %), r5 (150/200, 1 h).
      {
        mapId: "m-1",
        mapName: "Floor 1",
        tasks: 3,
        completed: 2,
        stoppedByHand: 0,
        error: 1,
        failedToStart: 0,
        areaCleaned: 600,
        areaPlanned: 700,
        coverage: 0.857,
        hours: 3.5,
        efficiency: 171.4,
        cloudEfficiency: 172.9,
        water: 12,
        batteryUsed: 65,
      },
      // r2 (30/100, 0.5 h), r3's floor 2 (90/100, 1/4 of 2 h, 1.8 L, 10 %), r4 (0/150).
      {
        mapId: "m-2",
        mapName: "Floor 2",
        tasks: 3,
        completed: 1,
        stoppedByHand: 1,
        error: 0,
        failedToStart: 1,
        areaCleaned: 120,
        areaPlanned: 350,
        coverage: 0.343,
        hours: 1,
        efficiency: 120,
        cloudEfficiency: 120,
        water: 2.4,
        batteryUsed: 18,
      },
    ]);
  });

  it("as chart points: figure by figure, each row named by its map, cut short counting every outcome but a normal end", () => {
    const rows = kpiRows(kept(), { ...PERIOD, by: "map" }, UTC);
    const names: Record<string, string> = { areaCleaned: "m² cleaned", cutShort: "cut short" };
    assert.deepEqual(
      kpiChartPoints(rows, ["areaCleaned", "cutShort"], (figure) => names[figure]!),
      [
        { x: "Floor 1", series: "m² cleaned", y: 600 },
        { x: "Floor 2", series: "m² cleaned", y: 120 },
        // Floor 1: one error; Floor 2: one stopped by hand, one failed to start.
        { x: "Floor 1", series: "cut short", y: 1 },
        { x: "Floor 2", series: "cut short", y: 2 },
      ],
    );
    const byRobot = kpiRows(kept(), { ...PERIOD, by: "robot" }, UTC, nameOf);
    assert.deepEqual(
      kpiChartPoints(byRobot, ["completed"], () => "done").map((point) => point.x),
      byRobot.map((row) => ("robotName" in row ? row.robotName : "")),
    );
  });

  it("by day, in UTC and in another time zone", () => {
    assert.deepEqual(kpiRows(kept(), { ...PERIOD, by: "day" }, UTC), [
      {
        day: "2026-11-24",
        tasks: 3,
        completed: 2,
        stoppedByHand: 1,
        error: 0,
        failedToStart: 0,
        areaCleaned: 570,
        areaPlanned: 700,
        coverage: 0.814,
        hours: 3.5,
        efficiency: 162.9,
        cloudEfficiency: 161.4,
        water: 11.4,
        batteryUsed: 68,
      },
      {
        day: "2026-11-25",
        tasks: 2,
        completed: 0,
        stoppedByHand: 0,
        error: 1,
        failedToStart: 1,
        areaCleaned: 150,
        areaPlanned: 350,
        coverage: 0.429,
        hours: 1,
        efficiency: 150,
        cloudEfficiency: 160,
        water: 3,
        batteryUsed: 15,
      },
    ]);
    // In Los Angeles (UTC-8) r5 (07:00 UTC on the 25th) started at 23:00 on the 24th.
    const losAngeles = kpiRows(kept(), { from: "2026-11-23", to: "2026-11-25", by: "day" }, dayFormatter("America/Los_Angeles"));
    assert.deepEqual(
      losAngeles.map((row) => [(row as { day: string }).day, row.tasks]),
      [
        ["2026-11-24", 4],
        ["2026-11-25", 1],
      ],
    );
    assert.deepEqual(
      kpiRows(kept(), { from: "2026-11-25", to: "2026-11-25", by: "robot" }, UTC).map((row) => row.tasks),
      [1, 1],
      "both days included, no other",
    );
  });

  it("reads a table request, naming the wrong field", () => {
    assert.deepEqual(readKpiRequest({ from: "today", by: "map" }, "2026-11-26"), { from: "2026-11-26", to: "2026-11-26", by: "map" });
    assert.throws(() => readKpiRequest({ from: "26.11.2026" }, "2026-11-26"), /payload\.kpi\.from: must be a day/);
    assert.throws(() => readKpiRequest({ from: "2026-11-26", to: "2026-11-01" }, "x"), /payload\.kpi\.to: must not be before/);
    assert.throws(() => readKpiRequest({ from: "2026-11-26", by: "floor" }, "x"), /payload\.kpi\.by: must be one of robot, map, day/);
    assert.throws(() => readKpiRequest("2026", "x"), /payload\.kpi: must be/);
    assert.deepEqual(readKpiRequest({ from: "today", by: "map", chart: ["areaCleaned", "cutShort"] }, "2026-11-26").chart, [
      "areaCleaned",
      "cutShort",
    ]);
    assert.throws(
      () => readKpiRequest({ from: "today", chart: ["coverage"] }, "2026-11-26"),
      /payload\.kpi\.chart: must be a list of figures among tasks/,
    );
    assert.throws(() => readKpiRequest({ from: "today", chart: [] }, "2026-11-26"), /payload\.kpi\.chart/);
    assert.throws(() => dayFormatter("Mars/Olympus"), /timeZone: "Mars\/Olympus" is not a time zone/);
  });
});

describe("task reports: sweep windows, pages and the book", () => {
  const now = Date.parse("2026-11-26T12:00:00Z");

  it("reads back Since days first, then from a day before the last sweep, never before Keep", () => {
    assert.deepEqual(sweepWindow(undefined, now, 7 * DAY_MS, 90 * DAY_MS), { floorMs: now - 7 * DAY_MS, upperMs: now });
    const last = now - 15 * 60_000;
    assert.deepEqual(sweepWindow(last, now, 7 * DAY_MS, 90 * DAY_MS), { floorMs: last - RUNNING_TASK_REACH_MS, upperMs: now });
    assert.equal(
      sweepWindow(now - 400 * DAY_MS, now, 7 * DAY_MS, 90 * DAY_MS).floorMs,
      now - 90 * DAY_MS,
      "a node stopped for long reads back Keep days",
    );
  });

  it("asks for the next page only after a full one that neither reached the window's start nor held only seen reports", () => {
    const page = (count: number, startMs: number) =>
      Array.from({ length: count }, (_, index) => read(reportAt(`p${index}`, LOBBY, startMs - index * 1000)));
    assert.equal(
      wantsNextPage(page(3, now), 3, now - DAY_MS, () => false),
      true,
    );
    assert.equal(
      wantsNextPage(page(2, now), 3, now - DAY_MS, () => false),
      false,
      "a short page is the last",
    );
    assert.equal(
      wantsNextPage(page(3, now - 2 * DAY_MS), 3, now - DAY_MS, () => false),
      false,
      "older than the window: a cloud ignoring it",
    );
    assert.equal(
      wantsNextPage(page(3, now), 3, now - DAY_MS, () => true),
      false,
      "nothing new on it",
    );
  });

  it("sends a report once ever, keeps only Keep days, and survives a snapshot round trip", () => {
    const book = new ReportBook();
    const recent = read(reportAt("a", LOBBY, now - DAY_MS));
    const old = read(reportAt("b", LOBBY, now - 100 * DAY_MS));
    assert.equal(book.admit(recent, now, 90 * DAY_MS).fresh, true);
    assert.equal(
      book.admit(read(pushedEvent(reportAt("a", LOBBY, now - DAY_MS)), LOBBY), now, 90 * DAY_MS).fresh,
      false,
      "pushed after swept: one report",
    );
    const oldAdmission = book.admit(old, now, 90 * DAY_MS);
    assert.deepEqual(oldAdmission, { fresh: true, kept: undefined }, "older than Keep: sent, not counted");
    assert.equal(book.admit(old, now, 90 * DAY_MS).fresh, false);
    book.sweptUntil.set(LOBBY, now);
    const copy = new ReportBook();
    copy.restore(JSON.parse(JSON.stringify(book.snapshot())));
    assert.deepEqual(copy.snapshot(), book.snapshot());
    assert.equal(copy.admit(recent, now, 90 * DAY_MS).fresh, false);
    assert.equal(book.prune(now + 91 * DAY_MS, 90 * DAY_MS), true);
    assert.deepEqual(book.size, { seen: 0, history: 0 }, "the memory is bounded by Keep");
    copy.restore({ version: 2, seen: [["x", 1]] });
    copy.restore("garbage");
    assert.deepEqual(copy.size, { seen: 2, history: 1 }, "an unreadable copy adds nothing");
  });
});

describe("task reports: a sweep against a cloud on loopback", function () {
  this.timeout(20_000);
  let stub: ReportsStub;
  let client: RobotClient;
  beforeEach(async () => {
    stub = await new ReportsStub().start();
    client = new RobotClient({ baseUrl: stub.url, auth: { token: "t-reports" }, engine: { rateLimit: 0 } });
  });
  afterEach(async () => {
    client.close();
    await stub.stop();
  });

  it("reads each robot's window in one call when it fits a page, and pages while pages are full", async () => {
    const now = Date.now();
    stub.addRobot(LOBBY, "Lobby scrubber");
    stub.addRobot(HALL, "Hall sweeper");
    for (let index = 0; index < SWEEP_PAGE_SIZE + 5; index++) stub.file(reportAt(`h${index}`, HALL, now - 3 * DAY_MS + index * 60_000));
    stub.file(reportAt("l1", LOBBY, now - 2 * DAY_MS));
    stub.file(reportAt("l-old", LOBBY, now - 9 * DAY_MS));
    const found: ReadReport[] = [];
    const request = {
      serialNumbers: [],
      nowMs: now,
      sinceMs: 7 * DAY_MS,
      keepMs: 90 * DAY_MS,
      sweptUntil: new Map<string, number>(),
      seen: () => false,
      found: (report: ReadReport) => found.push(report),
      options: {},
    };
    const summary = await sweepFleet(client, request);
    assert.deepEqual(summary, { robots: 2, reports: SWEEP_PAGE_SIZE + 6, failures: [] });
    assert.equal(found.length, SWEEP_PAGE_SIZE + 6);
    assert.ok(!found.some((report) => report.id === "l-old"), "older than Since is not asked for");
    const calls = stub.reportRequests();
    assert.deepEqual(calls.map((call) => `${call.serialNumber} ${call.page}`).sort(), [`${LOBBY} 1`, `${HALL} 1`, `${HALL} 2`]);
    const floor = new Date(now - 7 * DAY_MS).toISOString().replace(/\.\d{3}Z$/, "Z");
    assert.ok(calls.every((call) => call.floor === floor && call.pageSize === SWEEP_PAGE_SIZE));
    assert.equal(
      robotNameOf(client.accountKey, HALL),
      "Hall sweeper",
      "the sweep's robot list names the robots of the account's directory",
    );
    assert.equal(request.sweptUntil.get(LOBBY), now);

    // One robot failing: the other is read, the failing one keeps its old window end.
    stub.failing.add(LOBBY);
    const later = now + 15 * 60_000;
    const again = await sweepFleet(client, { ...request, nowMs: later, seen: () => true });
    assert.deepEqual(
      again.failures.map((failure) => failure.serialNumber),
      [LOBBY],
    );
    assert.equal(request.sweptUntil.get(LOBBY), now);
    assert.equal(request.sweptUntil.get(HALL), later);
  });
});
