/**
 * The task reports' policies at their edges, written against the survivors of a StrykerJS run over src/api/reports
 * (`npm run mutate -- --mutate "src/api/reports/**\/*.ts"`): figures and identities of every type, coverage at and
 * past the planned area, the KPI rows' period, grouping, order and empty sums, the book's Keep at its limit and what it
 * takes back, the store's bounds, the sweep's window floor, page limit and robots, and the coverage image's URL.
 * The sweep and the image are driven through a stand-in client (the calls they make and what they do with the
 * answers); test/api/reports.test.ts runs a sweep against a cloud on loopback.
 *
 * Survivors accepted as equivalent (no test can tell them apart from the code as written):
 * - kpi.ts dayFormatter(): finding a part with `?.value` replaced by `.value`, and its "" fallback: Intl always gives
 *   year, month and day for these options.
 * - kpi.ts kpiRows(): the sort's `<` and `>` replaced by `<=` and `>=` (no two groups have the same sort key), and
 *   what the comparator answers when a is not before b (1 or 0): V8's sort asks only whether it is negative.
 * - kpi.ts Totals.add(): `seconds > 0` replaced by `seconds >= 0`: a report of no time adds no hours either way.
 * - kpi.ts readKpiRequest(): `typeof day !== "string"` and `typeof by !== "string"` replaced by false: a value of
 *   another type fails the pattern, or is not among the groupings, as well. The day pattern without its `$`: Date.parse
 *   refuses a day with anything after it once "T00:00:00Z" follows.
 * - reading.ts readReport(): `planned !== undefined` and `seconds !== undefined` replaced by true: the comparison
 *   `> 0` that follows is false of undefined.
 * - task-report.ts reportOfStart(): +Infinity for the end of a report with neither start nor end: it is skipped first.
 * - reading.ts identifyingPartOf() and figureOf(): `typeof id === "number"` replaced by true (Number.isFinite is
 *   true only of numbers); mapsOf(): `typeof subTask !== "object"` replaced by false (a number or string has no mapId
 *   or mapName, so it is skipped as one with neither); an array for a subTasks that is none replaced by a list holding
 *   a string (that is no map either).
 * - task-report.ts reportOfStart(): `started !== undefined` replaced by true (`undefined >= x` is false) and the empty
 *   list of a robot with no reports replaced by one holding a string (it has no start, so it is skipped).
 * - report-store.ts reportsOfAccount(): the name the account's memory keeps the store under ("task reports") replaced
 *   by "": nothing else is kept under "".
 * - sweep.ts sweepFleet(): Math.min of workers and robots replaced by Math.max: a worker finding no robot left ends.
 * - book.ts restore(): `typeof value !== "object"` replaced by false, and the empty lists standing for missing
 *   `seen` and `history` replaced by lists holding a string: a string has no version 1, and is no entry.
 */
import assert from "node:assert/strict";
import type { RobotClient } from "../../src/api/client";
import { isRobotApiError } from "../../src/api/errors";
import { DAY_MS, ReportBook } from "../../src/api/reports/book";
import { taskReportImage, taskReportImageUrls } from "../../src/api/reports/images";
import { dayFormatter, keptReportOf, kpiRows, readKpiRequest, type KeptReport, type KpiRow } from "../../src/api/reports/kpi";
import { figureOf, isIdentifiable, readReport, reportIdentity, type ReadReport } from "../../src/api/reports/reading";
import { AccountReports, REPORTS_KEPT_PER_ROBOT, ROBOTS_WITH_REPORTS } from "../../src/api/reports/report-store";
import { reportOfStart } from "../../src/api/jobs/task-report";
import {
  MAX_SWEEP_PAGES,
  SWEEP_PAGE_SIZE,
  SWEEP_ROBOTS_AT_ONCE,
  sweepCallOptions,
  sweepFleet,
  sweepRobot,
  wantsNextPage,
} from "../../src/api/reports/sweep";

const NOW = Date.parse("2026-11-26T12:00:00Z");
const read = (report: Record<string, unknown>, serialNumber = "R1"): ReadReport => readReport(report, serialNumber)!;
const kept = (report: Record<string, unknown>, serialNumber = "R1"): KeptReport => keptReportOf(read(report, serialNumber), NOW);
const UTC = dayFormatter("UTC");
const ALL_DAYS = { from: "2000-01-01", to: "2100-01-01" };

describe("task reports at their edges: reading", () => {
  const figures: [unknown, number | undefined][] = [
    [5, 5],
    [0, 0],
    [-2.5, -2.5],
    ["5", 5],
    [" 5 ", 5],
    ["", undefined],
    ["   ", undefined],
    ["five", undefined],
    [true, undefined],
    [null, undefined],
    [undefined, undefined],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
  ];
  for (const [value, figure] of figures) {
    it(`reads the figure ${JSON.stringify(value) ?? "missing"} (${typeof value}) as ${String(figure)}`, () => {
      assert.equal(figureOf(value), figure);
    });
  }

  const identities: [string, Record<string, unknown>, string, boolean][] = [
    ["a text id", { id: "r1" }, "R1/r1", true],
    ["a text id with spaces around", { id: " r1 " }, "R1/r1", true],
    ["a numeric id", { id: 7 }, "R1/7", true],
    ["a blank id and a start", { id: "  ", startTime: 1_764_000_000_000 }, "R1/start:1764000000000", true],
    ["NaN as id and a start", { id: Number.NaN, startTime: 1_764_000_000_000 }, "R1/start:1764000000000", true],
    ["an infinite id and no start", { id: Number.POSITIVE_INFINITY }, "R1/start:unknown", false],
    ["no id and no start", {}, "R1/start:unknown", false],
  ];
  for (const [what, report, identity, identifiable] of identities) {
    it(`knows a report with ${what} as ${identity}${identifiable ? "" : ", which tells it from no other"}`, () => {
      assert.equal(reportIdentity("R1", report), identity);
      assert.equal(isIdentifiable(report), identifiable);
    });
  }

  it("reads no robot from a robotSerialNumber that is not text", () => {
    assert.equal(readReport({ id: "r", robotSerialNumber: 5 }), undefined);
    assert.equal(readReport({ id: "r", robotSerialNumber: "R9" })?.serialNumber, "R9");
  });

  // Coverage is cleaned / planned, at most 1; without both (or with nothing planned), the cloud's completion.
  const coverages: [string, Record<string, unknown>, number | undefined][] = [
    ["more cleaned than planned", { actualCleaningAreaSquareMeter: 110, plannedCleaningAreaSquareMeter: 100 }, 1],
    ["exactly the planned area", { actualCleaningAreaSquareMeter: 100, plannedCleaningAreaSquareMeter: 100 }, 1],
    ["a little less than planned", { actualCleaningAreaSquareMeter: 99, plannedCleaningAreaSquareMeter: 100 }, 0.99],
    ["nothing planned", { actualCleaningAreaSquareMeter: 50, plannedCleaningAreaSquareMeter: 0, completionPercentage: 0.4 }, 0.4],
    ["no planned area", { actualCleaningAreaSquareMeter: 50, completionPercentage: 0.4 }, 0.4],
    ["no cleaned area", { plannedCleaningAreaSquareMeter: 100, completionPercentage: 0.4 }, 0.4],
    ["no figures at all", {}, undefined],
  ];
  for (const [what, figures, coverage] of coverages) {
    it(`gives ${what} a coverage of ${String(coverage)}`, () => {
      const report = read({ id: "r", ...figures });
      assert.equal(report.coverage, coverage);
      assert.equal("coverage" in report, coverage !== undefined, "an absent coverage is no key");
    });
  }

  const efficiencies: [string, Record<string, unknown>, number | undefined][] = [
    ["50 m² in an hour", { actualCleaningAreaSquareMeter: 50, durationSeconds: 3600 }, 50],
    ["50 m² in a second", { actualCleaningAreaSquareMeter: 50, durationSeconds: 1 }, 180_000],
    ["50 m² in no time", { actualCleaningAreaSquareMeter: 50, durationSeconds: 0 }, undefined],
    ["50 m² in a negative time", { actualCleaningAreaSquareMeter: 50, durationSeconds: -3600 }, undefined],
    ["no cleaned area", { durationSeconds: 3600 }, undefined],
    ["no duration", { actualCleaningAreaSquareMeter: 50 }, undefined],
  ];
  for (const [what, figures, efficiency] of efficiencies) {
    it(`recomputes the efficiency of ${what} as ${String(efficiency)}`, () => {
      const report = read({ id: "r", ...figures });
      assert.equal(report.efficiency, efficiency);
      assert.equal("efficiency" in report, efficiency !== undefined);
      assert.equal("cloudEfficiency" in report, false, "the cloud gave no figure of its own");
    });
  }

  it("reads the maps of its sub-tasks: by id, else by name; areas added up per map; one with neither, or not an object, skipped", () => {
    const report = read({
      id: "r",
      subTasks: [
        null,
        5,
        "sub-task",
        { mapId: 7, mapName: "Floor 1", actualCleaningAreaSquareMeter: 10, plannedCleaningAreaSquareMeter: 20 },
        { mapId: "7", actualCleaningAreaSquareMeter: "5" },
        { mapName: "Annex", actualCleaningAreaSquareMeter: 3 },
        { mapName: "Garage", actualCleaningAreaSquareMeter: 4, plannedCleaningAreaSquareMeter: 8 },
        { mapId: "m-9", mapName: 12 },
        { mapId: { id: 1 }, mapName: undefined, actualCleaningAreaSquareMeter: 99 },
      ],
    });
    assert.deepEqual(report.maps, [
      { mapId: "7", mapName: "Floor 1", areaCleaned: 15, areaPlanned: 20 },
      { mapId: "", mapName: "Annex", areaCleaned: 3 },
      { mapId: "", mapName: "Garage", areaCleaned: 4, areaPlanned: 8 },
      { mapId: "m-9", mapName: "", areaCleaned: 0 },
    ]);
    assert.deepEqual(read({ id: "r", subTasks: "none" }).maps, []);
  });
});

describe("task reports at their edges: what the history keeps of a report", () => {
  const ids: [unknown, string][] = [
    ["r1", "r1"],
    [5, "5"],
    [undefined, ""],
    [{ id: 5 }, ""],
  ];
  for (const [id, reportId] of ids) {
    it(`keeps the id ${JSON.stringify(id) ?? "missing"} as ${JSON.stringify(reportId)}`, () => {
      assert.equal(kept({ id, startTime: NOW }).reportId, reportId);
    });
  }

  const batteries: [string, Record<string, unknown>, number | undefined][] = [
    ["both ends", { startBatteryPercentage: 90, endBatteryPercentage: 60 }, 30],
    ["only the start", { startBatteryPercentage: 90 }, undefined],
    ["only the end", { endBatteryPercentage: 60 }, undefined],
  ];
  for (const [what, figures, used] of batteries) {
    it(`keeps the battery used of a report with ${what} as ${String(used)}`, () => {
      const report = kept({ id: "r", ...figures });
      assert.equal(report.batteryUsed, used);
      assert.equal("batteryUsed" in report, used !== undefined);
    });
  }

  it("keeps the cloud's efficiency and the coverage image only when the report gives them", () => {
    const bare = kept({ id: "r" });
    assert.deepEqual(["cloudEfficiency" in bare, "pngUri" in bare], [false, false]);
    const full = kept({ id: "r", efficiencySquareMeterPerHour: 170, taskReportPngUri: "https://objects.example/r.png" });
    assert.deepEqual([full.cloudEfficiency, full.pngUri], [170, "https://objects.example/r.png"]);
    assert.equal("pngUri" in kept({ id: "r", taskReportPngUri: "" }), false, "an empty URI");
    assert.equal("pngUri" in kept({ id: "r", taskReportPngUri: 5 }), false, "a URI that is not text");
  });
});

describe("task reports at their edges: days", () => {
  it("formats once per quarter hour, and keeps at most a year of quarter hours", () => {
    const prototype = Intl.DateTimeFormat.prototype;
    const original = Object.getOwnPropertyDescriptor(prototype, "formatToParts")!.value as (
      date?: Date | number,
    ) => Intl.DateTimeFormatPart[];
    let formatted = 0;
    prototype.formatToParts = function (this: Intl.DateTimeFormat, date?: Date | number) {
      formatted++;
      return original.call(this, date);
    };
    try {
      const dayOf = dayFormatter("UTC");
      const quarter = 15 * 60_000;
      const start = Date.parse("2026-01-01T00:00:00Z");
      for (let ms = start; ms < start + quarter; ms += 7_000) assert.equal(dayOf(ms), "2026-01-01");
      assert.equal(formatted, 1, "one quarter hour: one formatting");
      const yearOfQuarters = 366 * 96;
      for (let index = 1; index < yearOfQuarters; index++) dayOf(start + index * quarter);
      assert.equal(formatted, yearOfQuarters);
      dayOf(start);
      assert.equal(formatted, yearOfQuarters, "a year of quarter hours is kept");
      assert.equal(dayOf(start + yearOfQuarters * quarter), "2027-01-02");
      assert.equal(formatted, yearOfQuarters + 1);
      dayOf(start + quarter);
      assert.equal(formatted, yearOfQuarters + 2, "past a year the kept days were forgotten");
    } finally {
      prototype.formatToParts = original;
    }
  });
});

describe("task reports at their edges: the fleet's figures", () => {
  const report = (id: string, serialNumber: string, startMs: number, fields: Record<string, unknown> = {}) =>
    kept({ id, startTime: new Date(startMs).toISOString(), taskEndStatus: 0, ...fields }, serialNumber);
  const day = (text: string) => Date.parse(`${text}T12:00:00Z`);

  it("counts the reports of the days from `from` to `to`, both included, and none of the day before or after", () => {
    const reports = ["2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26"].map((text) => report(text, "R1", day(text)));
    const rows = kpiRows(reports, { from: "2026-11-24", to: "2026-11-25", by: "day" }, UTC);
    assert.deepEqual(
      rows.map((row) => "day" in row && row.day),
      ["2026-11-24", "2026-11-25"],
    );
  });

  it("counts a report of unknown outcome as a task of no outcome column", () => {
    const [row] = kpiRows([report("r", "R1", NOW, { taskEndStatus: 9 })], { ...ALL_DAYS, by: "robot" }, UTC);
    assert.deepEqual([row!.tasks, row!.completed, row!.stoppedByHand, row!.error, row!.failedToStart], [1, 0, 0, 0, 0]);
  });

  it("gives null for coverage, efficiency and the cloud's efficiency where nothing was planned, timed or given", () => {
    const [row] = kpiRows(
      [report("r", "R1", NOW, { actualCleaningAreaSquareMeter: 10, plannedCleaningAreaSquareMeter: 0, durationSeconds: 0 })],
      { ...ALL_DAYS, by: "robot" },
      UTC,
    );
    assert.deepEqual([row!.coverage, row!.efficiency, row!.cloudEfficiency], [null, null, null]);
  });

  it("averages the cloud's efficiency over the hours of the reports that give one, and no time that is not positive", () => {
    const rows = kpiRows(
      [
        report("a", "R1", NOW, { durationSeconds: 3600, efficiencySquareMeterPerHour: 100 }),
        report("b", "R1", NOW, { durationSeconds: 3 * 3600, efficiencySquareMeterPerHour: 200 }),
        report("c", "R1", NOW, { durationSeconds: 7200 }),
        report("d", "R1", NOW, { durationSeconds: -3600, efficiencySquareMeterPerHour: 900 }),
      ],
      { ...ALL_DAYS, by: "robot" },
      UTC,
    );
    assert.equal(rows[0]!.cloudEfficiency, 175, "(100 × 1 h + 200 × 3 h) / 4 h");
  });

  it("names a robot by its serial number when no names are given", () => {
    const [row] = kpiRows([report("r", "R1", NOW)], { ...ALL_DAYS, by: "robot" }, UTC);
    assert.equal(row && "robotName" in row && row.robotName, "R1");
  });

  const orderOf = (rows: KpiRow[]) =>
    rows.map((row) => ("serialNumber" in row ? row.serialNumber : "mapName" in row ? `${row.mapName}/${row.mapId}` : row.day));

  it("orders the rows by serial number, by map name then id, or by day, whatever the order of the reports", () => {
    const robots = ["R3", "R1", "R4", "R2"].map((serialNumber) => report(`r-${serialNumber}`, serialNumber, NOW));
    assert.deepEqual(orderOf(kpiRows(robots, { ...ALL_DAYS, by: "robot" }, UTC)), ["R1", "R2", "R3", "R4"]);
    const days = ["2026-11-25", "2026-11-23", "2026-11-26", "2026-11-24"].map((text) => report(text, "R1", day(text)));
    assert.deepEqual(orderOf(kpiRows(days, { ...ALL_DAYS, by: "day" }, UTC)), ["2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26"]);
    const onMap = (id: string, mapId: string, mapName: string) =>
      report(id, "R1", NOW, { subTasks: [{ mapId, mapName, actualCleaningAreaSquareMeter: 1 }] });
    const maps = [onMap("a", "m-3", "Hall"), onMap("b", "m-2", "Annex"), onMap("c", "m-1", "Hall"), onMap("d", "", "Basement")];
    assert.deepEqual(orderOf(kpiRows(maps, { ...ALL_DAYS, by: "map" }, UTC)), ["Annex/m-2", "Basement/", "Hall/m-1", "Hall/m-3"]);
  });

  it("keeps two maps known only by name apart, and gives a report without maps a row of no map", () => {
    const rows = kpiRows(
      [
        report("a", "R1", NOW, { actualCleaningAreaSquareMeter: 1, subTasks: [{ mapName: "Annex" }] }),
        report("b", "R1", NOW, { actualCleaningAreaSquareMeter: 2, subTasks: [{ mapName: "Basement" }] }),
        report("c", "R1", NOW, { actualCleaningAreaSquareMeter: 3 }),
      ],
      { ...ALL_DAYS, by: "map" },
      UTC,
    );
    assert.deepEqual(
      rows.map((row) => ["mapId" in row && row.mapId, "mapName" in row && row.mapName, row.areaCleaned]),
      [
        ["", "", 3],
        ["", "Annex", 1],
        ["", "Basement", 2],
      ],
    );
  });

  it("gives a report on one map the report's own areas, not its sub-tasks' sum", () => {
    const [row] = kpiRows(
      [
        report("a", "R1", NOW, {
          actualCleaningAreaSquareMeter: 100,
          plannedCleaningAreaSquareMeter: 120,
          subTasks: [{ mapId: "m-1", mapName: "Hall", actualCleaningAreaSquareMeter: 80, plannedCleaningAreaSquareMeter: 90 }],
        }),
      ],
      { ...ALL_DAYS, by: "map" },
      UTC,
    );
    assert.deepEqual([row!.areaCleaned, row!.areaPlanned], [100, 120]);
  });

  it("shares a report on two maps by their cleaned areas, the planned area too when the maps give none; equally when nothing was cleaned", () => {
    const byShare = kpiRows(
      [
        report("a", "R1", NOW, {
          durationSeconds: 3600,
          plannedCleaningAreaSquareMeter: 100,
          subTasks: [
            { mapId: "m-1", mapName: "A", actualCleaningAreaSquareMeter: 30 },
            { mapId: "m-2", mapName: "B", actualCleaningAreaSquareMeter: 10 },
          ],
        }),
      ],
      { ...ALL_DAYS, by: "map" },
      UTC,
    );
    assert.deepEqual(
      byShare.map((row) => [row.areaCleaned, row.areaPlanned, row.hours]),
      [
        [30, 75, 0.75],
        [10, 25, 0.25],
      ],
    );
    const nothingCleaned = kpiRows(
      [
        report("b", "R1", NOW, {
          durationSeconds: 3600,
          plannedCleaningAreaSquareMeter: 100,
          subTasks: [
            { mapId: "m-1", mapName: "A", actualCleaningAreaSquareMeter: 0 },
            { mapId: "m-2", mapName: "B", actualCleaningAreaSquareMeter: 0 },
            { mapId: "m-3", mapName: "C", actualCleaningAreaSquareMeter: 0 },
            { mapId: "m-4", mapName: "D", actualCleaningAreaSquareMeter: 0 },
          ],
        }),
      ],
      { ...ALL_DAYS, by: "map" },
      UTC,
    );
    assert.deepEqual(
      nothingCleaned.map((row) => [row.areaPlanned, row.hours]),
      [
        [25, 0.25],
        [25, 0.25],
        [25, 0.25],
        [25, 0.25],
      ],
    );
  });
});

describe("task reports at their edges: a table request", () => {
  const refusals: [string, unknown, string][] = [
    ["null", null, "payload.kpi"],
    ["a list", [], "payload.kpi"],
    ["a day with a sign and six digits of year", { from: "+002026-11-24" }, "payload.kpi.from"],
    ["a day of one digit", { from: "2026-11-2" }, "payload.kpi.from"],
    ["a chart with one figure not known", { from: "today", chart: ["tasks", "speed"] }, "payload.kpi.chart"],
    ["an empty chart", { from: "today", chart: [] }, "payload.kpi.chart"],
  ];
  for (const [what, value, field] of refusals) {
    it(`refuses ${what}, naming ${field}`, () => {
      assert.throws(
        () => readKpiRequest(value, "2026-11-26"),
        (error: unknown) => isRobotApiError(error) && error.kind === "invalid_input" && error.field === field,
      );
    });
  }

  it("lists the figures a chart may plot when refusing one", () => {
    assert.throws(() => readKpiRequest({ from: "today", chart: ["speed"] }, "2026-11-26"), /among tasks, completed, cutShort, /);
  });
});

describe("task reports at their edges: the book", () => {
  const at = (id: string, startMs: number) => read({ id, startTime: new Date(startMs).toISOString() });
  const KEEP = 90 * DAY_MS;

  it("starts not restored from any context", () => {
    assert.equal(new ReportBook().restored, false);
  });

  const ages: [string, number, boolean][] = [
    ["a millisecond inside Keep", KEEP - 1, true],
    ["exactly Keep", KEEP, true],
    ["a millisecond past Keep", KEEP + 1, false],
  ];
  for (const [what, age, counted] of ages) {
    it(`${counted ? "counts" : "sends on but does not count"} a report started ${what} ago, and prunes it ${counted ? "no sooner than" : "as"} Keep says`, () => {
      const book = new ReportBook();
      const admission = book.admit(at("r", NOW - age), NOW, KEEP);
      assert.equal(admission.fresh, true);
      assert.equal(admission.fresh && admission.kept !== undefined, counted);
      assert.equal(book.has(read({ id: "r" }).reportKey), true);
      assert.equal(book.prune(NOW, KEEP), false, "a mark set now and a report within Keep stay");
      assert.deepEqual(book.size, { seen: 1, history: counted ? 1 : 0 });
    });
  }

  const markAges: [string, number, boolean][] = [
    ["a millisecond inside Keep", KEEP - 1, true],
    ["exactly Keep", KEEP, true],
    ["a millisecond past Keep", KEEP + 1, false],
  ];
  for (const [what, age, stays] of markAges) {
    it(`${stays ? "keeps" : "prunes"} a report and its seen mark set ${what} ago`, () => {
      const book = new ReportBook();
      book.admit(at("r", NOW - age), NOW - age, KEEP);
      assert.equal(book.prune(NOW, KEEP), !stays, "whether anything went");
      assert.deepEqual(book.size, stays ? { seen: 1, history: 1 } : { seen: 0, history: 0 });
      assert.deepEqual([...book.reports()].length, stays ? 1 : 0);
    });
  }

  it("finds a kept report by its id, of one robot or of any", () => {
    const book = new ReportBook();
    book.admit(read({ id: "r1", startTime: new Date(NOW).toISOString() }, "R1"), NOW, KEEP);
    book.admit(read({ id: "r2", startTime: new Date(NOW).toISOString() }, "R2"), NOW, KEEP);
    assert.equal(book.findReport("r2")?.serialNumber, "R2");
    assert.equal(book.findReport("r1", "R1")?.serialNumber, "R1");
    assert.equal(book.findReport("r1", "R2"), undefined);
    assert.equal(book.findReport("r3"), undefined);
  });

  it("takes back only well-formed entries, and never overwrites what it knows", () => {
    const book = new ReportBook();
    book.admit(at("known", NOW), NOW, KEEP);
    book.sweptUntil.set("R1", NOW);
    const known = read({ id: "known" }).reportKey;
    const good = kept({ id: "good", startTime: new Date(NOW).toISOString() });
    book.restore(null);
    book.restore({
      version: 1,
      seen: [[known, 1], ["fresh", 2], "xy", ["no-time"], [5, 3], ["text-time", "4"], { 0: "object", 1: 5 }],
      history: [
        null,
        good,
        { ...good, key: known, reportId: "other" },
        { ...good, key: 5 },
        { ...good, key: "no-start", startMs: "x" },
        { ...good, key: "no-maps", maps: undefined },
      ],
      sweptUntil: { R1: NOW - 1000, R2: NOW - 5, R3: "late" },
    });
    const snapshot = book.snapshot();
    assert.deepEqual(
      snapshot.seen.map(([key, time]) => [key, time]),
      [
        [known, NOW],
        ["fresh", 2],
      ],
    );
    assert.deepEqual(
      snapshot.history.map((report) => [report.key, report.reportId]),
      [
        [known, "known"],
        [good.key, "good"],
      ],
    );
    assert.deepEqual(snapshot.sweptUntil, { R1: NOW, R2: NOW - 5 });
  });
});

/** The start's report as reportOfStart chooses it with no clock offset known (the blind window). */
function reportSince(kept: AccountReports, serialNumber: string, sinceMs: number, keptBefore?: ReadonlySet<string>) {
  return reportOfStart(kept, { serialNumber, sinceMs, ...(keptBefore ? { keptBefore } : {}) });
}

describe("task reports at their edges: the account's store", () => {
  const report = (serialNumber: string, id: string, fields: Record<string, unknown> = {}) => read({ id, ...fields }, serialNumber);

  it("gives nothing for a robot it has no reports of", () => {
    const store = new AccountReports();
    assert.equal(store.get("R1/r", "R1"), undefined);
    assert.equal(reportSince(store, "R1", 0), undefined);
  });

  it(`keeps the reports of ${ROBOTS_WITH_REPORTS} robots, and past that forgets the robot heard of longest ago`, () => {
    const store = new AccountReports();
    for (let index = 0; index < ROBOTS_WITH_REPORTS; index++) store.keep(report(`R${index}`, "r"));
    assert.ok(store.get("R0/r", "R0"), `${ROBOTS_WITH_REPORTS} robots fit`);
    store.keep(report("R0", "r2"));
    store.keep(report("new", "r"));
    assert.ok(store.get("R0/r", "R0"), "R0 was heard of again, so it is not the oldest");
    assert.equal(store.get("R1/r", "R1"), undefined, "R1 was the robot heard of longest ago");
  });

  it(`keeps the newest ${REPORTS_KEPT_PER_ROBOT} reports of a robot`, () => {
    const store = new AccountReports();
    for (let index = 0; index <= REPORTS_KEPT_PER_ROBOT; index++) store.keep(report("R1", `r${index}`));
    assert.equal(store.get("R1/r0", "R1"), undefined);
    assert.ok(store.get("R1/r1", "R1"));
  });

  it("finds among the tasks started since a time the one that ended last, not the last kept or the last started", () => {
    const store = new AccountReports();
    const iso = (ms: number) => new Date(ms).toISOString();
    store.keep(report("R1", "long", { startTime: iso(NOW), endTime: iso(NOW + 3 * 3600_000) }));
    store.keep(report("R1", "short", { startTime: iso(NOW + 3600_000), endTime: iso(NOW + 2 * 3600_000) }));
    store.keep(report("R1", "before", { startTime: iso(NOW - 3600_000), endTime: iso(NOW + 4 * 3600_000) }));
    assert.equal(reportSince(store, "R1", NOW)?.id, "long");
  });

  it("takes of two tasks that ended at once the one kept last", () => {
    const store = new AccountReports();
    const iso = (ms: number) => new Date(ms).toISOString();
    store.keep(report("R1", "first", { startTime: iso(NOW), endTime: iso(NOW + 3600_000) }));
    store.keep(report("R1", "second", { startTime: iso(NOW + 60_000), endTime: iso(NOW + 3600_000) }));
    assert.equal(reportSince(store, "R1", NOW)?.id, "second");
  });
});

/** A stand-in client for the sweep: each robot's pages as given, recording the calls. */
function sweepClient(
  pages: (serialNumber: string, page: number) => Record<string, unknown>[] | Error,
  robots: string[] = [],
): { client: RobotClient; calls: { serialNumber: string; page: number; callClass?: string }[]; most: () => number } {
  const calls: { serialNumber: string; page: number; callClass?: string }[] = [];
  let active = 0;
  let most = 0;
  const client = {
    async listTaskReports(params: { serialNumber: string; page: number }, options: { callClass?: string }) {
      calls.push({ serialNumber: params.serialNumber, page: params.page, callClass: options.callClass });
      active++;
      most = Math.max(most, active);
      await new Promise((resolve) => setTimeout(resolve, 1));
      active--;
      const answer = pages(params.serialNumber, params.page);
      if (answer instanceof Error) throw answer;
      return { robotTaskReports: answer };
    },
    listAllRobots() {
      return Promise.resolve(robots.map((serialNumber) => ({ serialNumber })));
    },
  };
  return { client: client as unknown as RobotClient, calls, most: () => most };
}

describe("task reports at their edges: sweeping", () => {
  const at = (id: string, startMs: number) => ({ id, startTime: new Date(startMs).toISOString() });
  const floorMs = NOW - DAY_MS;
  const window = { floorMs, upperMs: NOW };

  const pageEdges: [string, number, boolean][] = [
    ["a millisecond before the window", floorMs - 1, false],
    ["exactly at the window's start", floorMs, true],
    ["a millisecond after it", floorMs + 1, true],
  ];
  for (const [what, lastStart, more] of pageEdges) {
    it(`${more ? "asks" : "does not ask"} for the next full page when the oldest report started ${what}`, () => {
      const page = [read(at("a", NOW)), read(at("b", lastStart))];
      assert.equal(
        wantsNextPage(page, 2, floorMs, () => false),
        more,
      );
    });
  }

  it("asks for the next page when only some reports of a full page were seen", () => {
    const page = [read(at("a", NOW)), read(at("b", NOW - 1000))];
    assert.equal(
      wantsNextPage(page, 2, floorMs, (report) => report.id === "a"),
      true,
    );
  });

  it("makes every call of a sweep one of the sweep class, keeping the caller's options", () => {
    const signal = new AbortController().signal;
    assert.deepEqual(sweepCallOptions({ signal, callClass: "status" }), { signal, callClass: "sweep" });
  });

  it("keeps of a robot's reports those started at or after the window's start, and those without a start", async () => {
    const { client } = sweepClient(() => [at("in", NOW), at("at-floor", floorMs), at("before", floorMs - 1), { id: "no-start" }]);
    const found = await sweepRobot(client, "R1", window, () => false, {});
    assert.deepEqual(
      found.map((report) => report.id),
      ["in", "at-floor", "no-start"],
    );
  });

  it(`reads at most ${MAX_SWEEP_PAGES} full pages of a robot, then gives up on it for this sweep with a bad_response`, async () => {
    let next = 0;
    const { client, calls } = sweepClient(() => Array.from({ length: SWEEP_PAGE_SIZE }, () => at(`r${next++}`, NOW)));
    await assert.rejects(
      sweepRobot(client, "R1", window, () => false, {}),
      (error: unknown) =>
        isRobotApiError(error) &&
        error.kind === "bad_response" &&
        error.operation === "listTaskReports" &&
        error.message.includes(`robot R1 still had full pages after ${MAX_SWEEP_PAGES} pages of ${SWEEP_PAGE_SIZE}`),
    );
    assert.equal(calls.length, MAX_SWEEP_PAGES);
    assert.ok(calls.every((call) => call.callClass === "sweep"));
  });

  it(`sweeps only the robots asked for, ${SWEEP_ROBOTS_AT_ONCE} at a time, and every robot of the account when none is`, async () => {
    const robots = Array.from({ length: 10 }, (_, index) => `R${index}`);
    const asked = sweepClient(() => [], robots);
    const request = {
      serialNumbers: ["R2", "R5"],
      nowMs: NOW,
      sinceMs: DAY_MS,
      keepMs: DAY_MS,
      sweptUntil: new Map<string, number>(),
      seen: () => false,
      found: () => undefined,
      options: {},
    };
    assert.deepEqual(await sweepFleet(asked.client, request), { robots: 2, reports: 0, failures: [] });
    assert.deepEqual(asked.calls.map((call) => call.serialNumber).sort(), ["R2", "R5"]);
    const all = sweepClient(() => [], robots);
    assert.equal((await sweepFleet(all.client, { ...request, serialNumbers: [] })).robots, 10);
    assert.equal(all.most(), SWEEP_ROBOTS_AT_ONCE);
  });

  it("stops the sweep on a failure once it was aborted, instead of counting the robot as failed", async () => {
    const controller = new AbortController();
    const { client } = sweepClient(() => {
      controller.abort();
      return new Error("aborted");
    });
    const request = {
      serialNumbers: ["R1", "R2"],
      nowMs: NOW,
      sinceMs: DAY_MS,
      keepMs: DAY_MS,
      sweptUntil: new Map<string, number>(),
      seen: () => false,
      found: () => undefined,
      options: { signal: controller.signal },
    };
    await assert.rejects(sweepFleet(client, request), /aborted/);
  });
});

describe("task reports at their edges: the coverage image", () => {
  function imageClient(listed: string[]) {
    const calls: { what: string; params: unknown; options: unknown }[] = [];
    const client = {
      getTaskReportImages(params: unknown, options: unknown) {
        calls.push({ what: "list", params, options });
        return Promise.resolve({ data: listed });
      },
      downloadMapImage(url: string, options: unknown) {
        calls.push({ what: "download", params: url, options });
        return Promise.resolve({ data: Buffer.from("png"), contentType: "image/png" });
      },
    };
    return { client: client as unknown as RobotClient, calls };
  }

  it("lists a report's images by robot and report id, leaving the download's size limit out of the call", async () => {
    const { client, calls } = imageClient(["https://objects.example/a.png"]);
    const signal = new AbortController().signal;
    assert.deepEqual(await taskReportImageUrls(client, "R1", "r1", { maxBytes: 5, signal }), ["https://objects.example/a.png"]);
    assert.deepEqual(calls, [{ what: "list", params: { robotSn: "R1", taskReportId: "r1" }, options: { signal } }]);
  });

  it("downloads the report's own image without listing, and answers its URL without the query", async () => {
    const { client, calls } = imageClient([]);
    const image = await taskReportImage(client, {
      serialNumber: "R1",
      reportId: "r1",
      pngUri: "https://objects.example/own.png?sig=secret",
    });
    assert.deepEqual(image, { data: Buffer.from("png"), contentType: "image/png", url: "https://objects.example/own.png" });
    assert.deepEqual(
      calls.map((call) => [call.what, call.params]),
      [["download", "https://objects.example/own.png?sig=secret"]],
    );
  });

  it("downloads the first image listed when the report names none, with the options given", async () => {
    const { client, calls } = imageClient(["https://objects.example/1.png?x=1", "https://objects.example/2.png"]);
    const image = await taskReportImage(client, { serialNumber: "R1", reportId: "r1", pngUri: "" }, { maxBytes: 7 });
    assert.equal(image.url, "https://objects.example/1.png");
    assert.deepEqual(calls[1], { what: "download", params: "https://objects.example/1.png?x=1", options: { maxBytes: 7 } });
  });

  it("answers a bad_response naming the report when the cloud lists no image", async () => {
    const { client } = imageClient([]);
    await assert.rejects(
      taskReportImage(client, { serialNumber: "R1", reportId: "r1" }),
      (error: unknown) =>
        isRobotApiError(error) &&
        error.kind === "bad_response" &&
        error.operation === "getTaskReportImages" &&
        error.message === "getTaskReportImages: the cloud lists no coverage image for report r1",
    );
  });
});
