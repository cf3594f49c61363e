/**
 * The upkeep forecast and table apart from Node-RED: the wear learned (too little history at 2 cleaning hours and
 * one second under), the due day at the threshold and one reading each side, at midnight in the zone and one ms
 * before, at a plan's hours (the plan book's runs: the "18 % left, due on 14 January at the planned 5.5 h a
 * day", a weekday plan past the horizon) or the robot's recent ones (days without work, 0 hours a day), and a robot
 * no longer answering.
 */
import assert from "node:assert/strict";
import { DateTime } from "luxon";
import { AccountPlans } from "../../src/api/plans/plan-book";
import { readPlan } from "../../src/api/plans/plan";
import type { SettledOccurrence } from "../../src/api/plans/occurrence";
import { readReport, round } from "../../src/api/reports/reading";
import { upkeepFactsOf } from "../../src/api/upkeep/facts";
import { dueDayOf, learnedWearOf, LocalDays, MIN_CLEANING_HOURS, RECENT_DAYS } from "../../src/api/upkeep/forecast";
import { UpkeepHistory } from "../../src/api/upkeep/history";
import { DEFAULT_THRESHOLD } from "../../src/api/upkeep/table";
import { upkeepTable } from "../../src/api/upkeep/table-builder";
import { DAY_MS, HOUR_MS, wearStatus, workDays } from "../support/upkeep-days";

const ROBOT = "GS-S-000101";
const BERLIN = "Europe/Berlin";
const START = Date.parse("2026-11-02T00:00:00Z");

/** The robot's filter (life 1,000 h) after `days` days of `hoursPerDay` each, used up to `usedLife` at the end. */
function wornHistory(days: number, hoursPerDay: number, usedLife: number): UpkeepHistory {
  const history = new UpkeepHistory();
  workDays(history, { serialNumber: ROBOT, lifeSpan: 1000, usedLife: usedLife - days * hoursPerDay, from: START, days, hoursPerDay });
  return history;
}

const filterRow = (history: UpkeepHistory, options: Parameters<typeof upkeepTable>[2]) =>
  upkeepTable(history, [ROBOT], options)[0]!.parts[0]!;

describe("upkeep forecast: the wear learned", () => {
  it(`says "too little history" under ${MIN_CLEANING_HOURS} cleaning hours, and learns the rate at them`, () => {
    const learnedAfter = (seconds: number) => {
      const history = new UpkeepHistory();
      const read = (usedLife: number, at: number) => history.observe(ROBOT, upkeepFactsOf(wearStatus(ROBOT, "filter", usedLife, 1000)), at);
      read(100, START + 7 * HOUR_MS);
      const start = START + 8 * HOUR_MS;
      const report = {
        id: "r",
        startTime: new Date(start).toISOString(),
        endTime: new Date(start + seconds * 1000).toISOString(),
        durationSeconds: seconds,
      };
      history.observeReport(readReport(report, ROBOT)!);
      read(102, START + 12 * HOUR_MS);
      return { learned: learnedWearOf(history.of(ROBOT)!.parts.get("filter")!, history.of(ROBOT)!.work), history };
    };
    const at = learnedAfter(MIN_CLEANING_HOURS * 3600);
    assert.equal(at.learned.perCleaningHour, 2 / 1000 / MIN_CLEANING_HOURS);
    assert.notEqual(filterRow(at.history, { now: START + DAY_MS, zone: "UTC" }).forecast.basis, "too little history");
    const under = learnedAfter(MIN_CLEANING_HOURS * 3600 - 1);
    assert.equal(under.learned.perCleaningHour, undefined);
    const row = filterRow(under.history, { now: START + DAY_MS, zone: "UTC" });
    assert.equal(row.forecast.basis, "too little history");
    assert.equal(row.forecast.dueDay, undefined);
    assert.equal(row.wearPerCleaningHour, undefined);
    assert.equal(row.forecast.historyDays, 0.2, "5 hours between the readings");
  });

  it("learns the same rate over days without work, and counts them in the robot's recent hours a day", () => {
    const history = new UpkeepHistory();
    // 5 days of 4 h, 5 idle days, 4 days of 4 h: 14 days, 36 h.
    const after = workDays(history, { serialNumber: ROBOT, lifeSpan: 1000, usedLife: 0, from: START, days: 5, hoursPerDay: 4 });
    workDays(history, { serialNumber: ROBOT, lifeSpan: 1000, usedLife: after, from: START + 5 * DAY_MS, days: 5, hoursPerDay: 0 });
    workDays(history, { serialNumber: ROBOT, lifeSpan: 1000, usedLife: after, from: START + 10 * DAY_MS, days: 4, hoursPerDay: 4 });
    const row = filterRow(history, { now: START + RECENT_DAYS * DAY_MS, zone: "UTC" });
    assert.equal(row.wearPerCleaningHour, 1 / 1000);
    assert.equal(row.forecast.basis, "recent");
    assert.equal(row.forecast.hoursPerDay, round((9 * 4) / RECENT_DAYS, 2), "over the 14 days, the first from its midnight");
    // Today is not over: its hours so far do not count, at 10:00 (two hours into its task) as at 00:00.
    workDays(history, {
      serialNumber: ROBOT,
      lifeSpan: 1000,
      usedLife: after + 16,
      from: START + RECENT_DAYS * DAY_MS,
      days: 1,
      hoursPerDay: 4,
    });
    for (const hour of [0, 10, 23])
      assert.equal(
        filterRow(history, { now: START + RECENT_DAYS * DAY_MS + hour * 3_600_000, zone: "UTC" }).forecast.hoursPerDay,
        round((9 * 4) / RECENT_DAYS, 2),
        `at ${hour}:00`,
      );
  });

  it("gives no due day at 0 hours a day: a robot that stopped working keeps its rate, but gets no nearer", () => {
    const history = wornHistory(5, 4, 500);
    const row = filterRow(history, { now: START + 5 * DAY_MS + RECENT_DAYS * DAY_MS, zone: "UTC" });
    assert.equal(row.wearPerCleaningHour, 1 / 1000);
    assert.equal(row.forecast.hoursPerDay, 0);
    assert.equal(row.wearPerDay, 0);
    assert.equal(row.forecast.dueDay, undefined);
  });
});

describe("upkeep forecast: the due day", () => {
  it(`is today at the threshold (${DEFAULT_THRESHOLD}) and one reading under it, later one reading over`, () => {
    const now = START + 20 * DAY_MS + 22 * HOUR_MS;
    const dueOf = (usedLife: number) => filterRow(wornHistory(20, 5, usedLife), { now, zone: "UTC" });
    assert.equal(dueOf(900).forecast.dueDay, "2026-11-22");
    assert.equal(dueOf(901).forecast.dueDay, "2026-11-22");
    const over = dueOf(899);
    assert.equal(over.remaining, 0.101);
    assert.equal(over.forecast.dueDay, "2026-11-23", "1 h of wear left at about 5 h a day: past midnight");
    const later = dueOf(880);
    assert.equal(
      later.forecast.dueDay,
      "2026-11-26",
      "20 h of wear left at 5 h a day over the 14 whole days before today: 4 days on from 22:00",
    );
  });

  it("falls on the day that begins at a local midnight reached exactly, and on the day before one ms earlier", () => {
    const midnight = Date.parse("2027-01-14T00:00:00+01:00");
    // A quarter of the life to wear at 0.125 a cleaning hour, 1 h a day: 2 days.
    const hours = { basis: "recent", hoursPerDay: 1 } as const;
    const dueDateOf = (now: number, zone: string) => {
      const days = new LocalDays(now, zone);
      return days.dateOf(dueDayOf(0.5, 0.25, 0.125, hours, days)!);
    };
    assert.equal(dueDateOf(midnight - 2 * DAY_MS, BERLIN), "2027-01-14");
    assert.equal(dueDateOf(midnight - 2 * DAY_MS - 1, BERLIN), "2027-01-13");
    assert.equal(dueDateOf(midnight - 2 * DAY_MS - 1, "UTC"), "2027-01-13");
    assert.equal(dueDateOf(midnight - 2 * DAY_MS, "UTC"), "2027-01-13", "23:00 in UTC");
  });

  it("keeps a robot no longer answering, its facts as old as they are; one never heard of is left out", () => {
    const history = wornHistory(10, 5, 600);
    const rows = upkeepTable(history, ["GS-S-000199", ROBOT], { now: START + 40 * DAY_MS, zone: "UTC" });
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.readAt, new Date(START + 9 * DAY_MS + 20 * HOUR_MS).toISOString());
    assert.equal(rows[0]!.parts[0]!.remaining, 0.4);
  });

  it("refuses a threshold outside 0-1, naming the field", () => {
    for (const threshold of [-0.01, 1.01, Number.NaN])
      assert.throws(() => upkeepTable(new UpkeepHistory(), [], { threshold }), /threshold/);
    assert.deepEqual(upkeepTable(new UpkeepHistory(), [], { threshold: 1 }), []);
  });
});

describe("upkeep table: what a robot shows", () => {
  /** A day's report of 4 h with the shares left the cloud gives (consumablesResidualPercentage, 0-100). */
  const reportOfDay = (day: number, residual: Record<string, number>) => {
    const start = START + day * DAY_MS + 8 * HOUR_MS;
    const report = {
      id: `day-${day}`,
      startTime: new Date(start).toISOString(),
      endTime: new Date(start + 4 * HOUR_MS).toISOString(),
      durationSeconds: 4 * 3600,
      consumablesResidualPercentage: residual,
    };
    return readReport(report, ROBOT)!;
  };

  it("shows a report's shares for a robot whose status gives no wear parts, their wear learned over the reports' hours", () => {
    const history = new UpkeepHistory();
    for (let day = 0; day < 5; day++) history.observeReport(reportOfDay(day, { brush: 90 - day * 2, filter: 70, suctionBlade: 50 - day }));
    const [row] = upkeepTable(history, [ROBOT], { now: START + 5 * DAY_MS, zone: "UTC" });
    assert.equal(row!.readAt, new Date(START + 4 * DAY_MS + 12 * HOUR_MS).toISOString(), "no status: the last report's end");
    assert.deepEqual(
      row!.parts.map((part) => [part.part, part.remaining, part.usedLife]),
      [
        ["brush", 0.82, undefined],
        ["filter", 0.7, undefined],
        ["suctionBlade", 0.46, undefined],
      ],
    );
    // Between the first report's end and the last's: four reports of 4 h, 8 and 4 points.
    const [brush, filter] = row!.parts;
    assert.ok(Math.abs(brush!.wearPerCleaningHour! - 0.08 / 16) < 1e-12, String(brush!.wearPerCleaningHour));
    assert.equal(filter!.wearPerCleaningHour, 0);
    assert.equal(filter!.forecast.dueDay, undefined, "no wear: no due day");
  });

  it("shows the status's parts over a report's, and its tanks and battery as read", () => {
    const history = new UpkeepHistory();
    history.observeReport(reportOfDay(0, { brush: 10, filter: 10, suctionBlade: 10 }));
    const status = wearStatus(ROBOT, "filter", 50, 100);
    const device = { ...(status.device as Record<string, unknown>), cleanWaterTank: { level: 12 }, recoveryWaterTank: { level: 90 } };
    const battery = { soh: "HEALTHY", cycleTimes: "321", temperature1: 31, temperature2: 44, fullCapacity: 60 };
    history.observe(ROBOT, upkeepFactsOf({ ...status, device, battery }), START + DAY_MS);
    const [row] = upkeepTable(history, [ROBOT], { now: START + DAY_MS, zone: "UTC" });
    assert.deepEqual(
      row!.parts.map((part) => [part.part, part.remaining, part.usedLife, part.lifeSpan]),
      [["filter", 0.5, 50, 100]],
    );
    assert.deepEqual(row!.tanks, { cleanWater: 12, recoveryWater: 90 });
    assert.deepEqual(row!.battery, { health: "HEALTHY", cycles: 321, hottestCell: 44, fullCapacity: 60 });
  });
});

describe("upkeep forecast: at the plan's hours", () => {
  /** A plan book with `items` in force since long ago, each run once by the robot for `seconds` (a settled occurrence). */
  function planBook(items: Record<string, unknown>[], ran: { item: string; seconds: number; serialNumber?: string }[]): AccountPlans {
    const book = new AccountPlans();
    book.setPlan("plan-node", { items: readPlan(items), timezone: BERLIN }, START - 60 * DAY_MS);
    ran.forEach((run, index) => {
      const plannedAt = new Date(START - (index + 1) * DAY_MS).toISOString();
      const occurrence: SettledOccurrence = {
        occurrenceId: `${run.item}@run-${index}`,
        item: run.item,
        plannedAt,
        status: "done",
        job: {
          jobId: `job-${index}`,
          serialNumber: run.serialNumber ?? ROBOT,
          work: { kind: "area", area: run.item, map: "Floor 1" },
          outcome: "completed",
          endedAt: plannedAt,
          durationSeconds: run.seconds,
          attempts: [],
        },
      };
      book.settle("plan-node", occurrence);
    });
    return book;
  }

  const item = (fields: Record<string, unknown>) => ({
    name: "Lobby",
    days: "daily",
    at: "18:00",
    map: "Floor 1",
    area: "Lobby",
    ...fields,
  });

  it('gives the issue\'s "18 % left, due on 14 January at the planned 5.5 h a day"', () => {
    // 1/1000 of the filter's life a cleaning hour, learned over 20 days of 4 h; 820 of 1,000 used.
    const history = wornHistory(20, 4, 820);
    const plans = planBook([item({})], [{ item: "Lobby", seconds: 5.5 * 3600 }]);
    const now = Date.parse("2026-12-31T05:00:00+01:00");
    const row = filterRow(history, { now, plans });
    assert.equal(row.remaining, 0.18);
    assert.deepEqual(row.forecast, {
      basis: "plan",
      dueDay: "2027-01-14",
      dueAt: "2027-01-13T23:00:00.000Z",
      hoursPerDay: 5.5,
      historyDays: 19.5,
    });
    // 80 h of wear left at 5.5 h a day: the 15th run (the 31st's included) crosses it.
    assert.equal(row.wearPerDay, 5.5 / 1000);
  });

  it("counts a run at 23:59 local on its day and one at 00:00 on the next", () => {
    const history = wornHistory(20, 4, 890);
    const now = Date.parse("2027-01-04T12:00:00+01:00");
    // 10 h of wear left; one run a day of 10 h: today's run at 23:59 crosses today, at 00:00 tomorrow.
    const dueAt = (at: string) =>
      filterRow(history, { now, plans: planBook([item({ at })], [{ item: "Lobby", seconds: 36_000 }]) }).forecast.dueDay;
    assert.equal(dueAt("23:59"), "2027-01-04");
    assert.equal(dueAt("00:00"), "2027-01-05");
  });

  it("walks a weekday plan past the days it lists (today and a week) as that week repeated", () => {
    const history = wornHistory(20, 4, 100);
    // 800 h of wear left at 5 h a weekday: the 160th weekday run from today (a Monday, before its run).
    const now = Date.parse("2027-01-04T06:00:00+01:00");
    const plans = planBook([item({ days: ["mon", "tue", "wed", "thu", "fri"] })], [{ item: "Lobby", seconds: 5 * 3600 }]);
    let day = DateTime.fromMillis(now, { zone: BERLIN });
    for (let runs = day.weekday <= 5 ? 1 : 0; runs < 160;) {
      day = day.plus({ days: 1 });
      if (day.weekday <= 5) runs++;
    }
    const row = filterRow(history, { now, plans });
    assert.equal(row.forecast.basis, "plan");
    assert.equal(row.forecast.hoursPerDay, round((5 * 5) / 7, 2));
    assert.equal(row.forecast.dueDay, day.toISODate());
  });

  it("takes the robot's recent hours where no plan names it: an item another robot runs, or one never run", () => {
    const history = wornHistory(20, 4, 500);
    const now = START + 20 * DAY_MS;
    const elsewhere = planBook([item({})], [{ item: "Lobby", seconds: 3600, serialNumber: "GS-S-000102" }]);
    assert.equal(filterRow(history, { now, zone: BERLIN, plans: elsewhere }).forecast.basis, "recent");
    assert.equal(filterRow(history, { now, zone: BERLIN, plans: planBook([item({})], []) }).forecast.basis, "recent");
  });
});

describe("upkeep table: each robot's days in the zone of the plan that gives it hours", () => {
  const HALL_ROBOT = "GS-S-000102";
  /** A plan node in `timezone` whose daily item `item` the robot ran once, for 2 h. */
  function planIn(book: AccountPlans, timezone: string, item: string, serialNumber: string) {
    book.setPlan(
      `plan-${item}`,
      { items: readPlan([{ name: item, days: "daily", at: "18:00", map: "Floor 1", area: item }]), timezone },
      START - 60 * DAY_MS,
    );
    const plannedAt = new Date(START - DAY_MS).toISOString();
    book.settle(`plan-${item}`, {
      occurrenceId: `${item}@ran`,
      item,
      plannedAt,
      status: "done",
      job: {
        jobId: `job-${item}`,
        serialNumber,
        work: { kind: "area", area: item, map: "Floor 1" },
        outcome: "completed",
        endedAt: plannedAt,
        durationSeconds: 7200,
        attempts: [],
      },
    });
  }

  it("a robot on an Auckland plan and one on a Los Angeles plan: each part at its threshold is due on its own zone's today, from its local midnight", () => {
    const history = new UpkeepHistory();
    for (const serialNumber of [ROBOT, HALL_ROBOT])
      workDays(history, { serialNumber, lifeSpan: 1000, usedLife: 800, from: START, days: 20, hoursPerDay: 5 });
    const plans = new AccountPlans();
    planIn(plans, "Pacific/Auckland", "Lobby", ROBOT);
    planIn(plans, "America/Los_Angeles", "Hall", HALL_ROBOT);
    const dueDays = (now: number) =>
      upkeepTable(history, [ROBOT, HALL_ROBOT], { now, plans }).map((row) => [
        row.zone,
        row.parts[0]!.forecast.basis,
        row.parts[0]!.forecast.dueDay,
      ]);
    const aucklandMidnight = Date.parse("2026-12-01T00:00:00+13:00");
    assert.deepEqual(dueDays(aucklandMidnight), [
      ["Pacific/Auckland", "plan", "2026-12-01"],
      ["America/Los_Angeles", "plan", "2026-11-30"],
    ]);
    assert.deepEqual(
      dueDays(aucklandMidnight - 1).map(([, , day]) => day),
      ["2026-11-30", "2026-11-30"],
    );
    const losAngelesMidnight = Date.parse("2026-12-01T00:00:00-08:00");
    assert.deepEqual(
      dueDays(losAngelesMidnight).map(([, , day]) => day),
      ["2026-12-01", "2026-12-01"],
    );
    assert.deepEqual(
      dueDays(losAngelesMidnight - 1).map(([, , day]) => day),
      ["2026-12-01", "2026-11-30"],
    );
  });
});

describe("plan book: planned runs", () => {
  it("names each upcoming occurrence's robot by the item's latest run and its seconds by the median of its runs", () => {
    const book = new AccountPlans();
    book.setPlan(
      "n",
      { items: readPlan([{ name: "Lobby", days: "daily", at: "06:00", map: "Floor 1", area: "Lobby" }]), timezone: BERLIN },
      0,
    );
    const settle = (day: number, serialNumber: string, durationSeconds: number | undefined) => {
      const date = new Date(START + day * DAY_MS).toISOString().slice(0, 10);
      const plannedAt = new Date(`${date}T06:00:00+01:00`).toISOString();
      book.settle("n", {
        occurrenceId: `Lobby@${date}T06:00`,
        item: "Lobby",
        plannedAt,
        status: "done",
        job: {
          jobId: `j${day}`,
          serialNumber,
          work: { kind: "area", area: "Lobby", map: "Floor 1" },
          outcome: "completed",
          endedAt: plannedAt,
          attempts: [],
          ...(durationSeconds === undefined ? {} : { durationSeconds }),
        },
      });
    };
    settle(0, "A", 100);
    settle(1, "B", 300);
    settle(2, "C", undefined);
    const from = START + 3 * DAY_MS;
    const even = book.plannedRuns(from, from + 2 * DAY_MS);
    assert.deepEqual(
      even.map((run) => [run.serialNumber, run.seconds, run.timezone]),
      [
        ["B", 200, BERLIN],
        ["B", 200, BERLIN],
      ],
      "C's run says no duration: B's is the latest that does; each in its plan's zone",
    );
    settle(3, "A", 1000);
    assert.deepEqual(
      book.plannedRuns(from, from + 2 * DAY_MS).map((run) => [run.serialNumber, run.seconds]),
      [["A", 300]],
      "the occurrence settled is no longer upcoming; the median of 100, 300, 1,000",
    );
  });
});
