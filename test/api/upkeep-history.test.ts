/**
 * The upkeep history apart from Node-RED (robot-upkeep's own tests drive it through real Node-RED): fed by the
 * account's kept statuses and reports, a report counted once, readings thinned at the hour (at it and one ms
 * under), a counter the cloud reset or a replacement starting a segment, the 90 days kept (at the limit and one ms
 * each side), the robots bound, and what a context gets and gives back.
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { readReport } from "../../src/api/reports/reading";
import { reportsOfAccount } from "../../src/api/reports/report-store";
import { upkeepFactsOf } from "../../src/api/upkeep/facts";
import { learnedWearOf } from "../../src/api/upkeep/forecast";
import {
  HISTORY_DAYS,
  READING_SPACING_MS,
  STALE_FALL_SHARE,
  sameSegment,
  UpkeepHistory,
  cleaningHoursBetween,
  remainingOf,
  upkeepHistoryIfAsked,
  upkeepHistoryOf,
} from "../../src/api/upkeep/history";
import { upkeepTable } from "../../src/api/upkeep/table-builder";
import { fleetStatusesOf } from "../../src/api/watching/fleet-statuses";
import { reportAt } from "../support/report-fixtures";
import { DAY_MS, HOUR_MS, wearStatus, workDays } from "../support/upkeep-days";

const ROBOT = "GS-S-000101";
const ACCOUNT = "upkeep-history-test";
const START = Date.parse("2026-11-02T00:00:00Z");

/** A reading of the robot's filter counter at `at`. */
function read(history: UpkeepHistory, usedLife: number, at: number, lifeSpan = 1000): void {
  history.observe(ROBOT, upkeepFactsOf(wearStatus(ROBOT, "filter", usedLife, lifeSpan)), at);
}

const filterOf = (history: UpkeepHistory) => history.of(ROBOT)!.parts.get("filter")!;

describe("upkeep history: what feeds it", () => {
  afterEach(() => forgetAccountMemory());

  it("hears every status the account keeps (not the V3 shape, which carries no upkeep) and every report kept, each once, once asked for, and what the account kept before it was asked", () => {
    const at = START + 8 * HOUR_MS;
    fleetStatusesOf(ACCOUNT).record([wearStatus(ROBOT, "filter", 110, 1000)], at - HOUR_MS);
    reportsOfAccount(ACCOUNT).keep(readReport(reportAt("r-0", ROBOT, at - 2 * HOUR_MS, 3600), ROBOT)!);
    assert.equal(upkeepHistoryIfAsked(ACCOUNT), undefined, "nothing is kept for an account no one asked of upkeep");
    const history = upkeepHistoryOf(ACCOUNT);
    assert.deepEqual(filterOf(history).used, [110], "the status kept before it was asked for");
    assert.deepEqual(history.of(ROBOT)!.work.key, [reportsOfAccount(ACCOUNT).reportsOf(ROBOT)[0]!.reportKey], "the report kept before");
    assert.equal(upkeepHistoryOf(ACCOUNT), history);
    assert.deepEqual(filterOf(history).used, [110], "handed over once");
    fleetStatusesOf(ACCOUNT).record([wearStatus(ROBOT, "filter", 120, 1000)], at);
    fleetStatusesOf(ACCOUNT).record([{ serialNumber: "GS-S-000102", workState: 0 }], at);
    assert.deepEqual(filterOf(history).used, [110, 120]);
    assert.equal(history.of(ROBOT)!.latest!.at, at);
    assert.equal(history.of("GS-S-000102"), undefined, "a status with no upkeep facts is nothing to the history");

    const reports = reportsOfAccount(ACCOUNT);
    const first = readReport(reportAt("r-1", ROBOT, at, 3600), ROBOT)!;
    reports.keep(first);
    reports.keep(readReport(reportAt("r-1", ROBOT, at, 3600), ROBOT)!);
    // Ten more push the first out of the store; swept again, it is kept again there, and still counted once here.
    for (let index = 2; index <= 12; index++) reports.keep(readReport(reportAt(`r-${index}`, ROBOT, at + index * DAY_MS, 1800), ROBOT)!);
    assert.equal(reports.get(first.reportKey, ROBOT), undefined);
    reports.keep(first);
    const work = history.of(ROBOT)!.work;
    assert.equal(work.seconds.length, 13, "r-0, kept before, and r-1 to r-12");
    assert.equal(cleaningHoursBetween(work, 0, Infinity), 2 + 11 * 0.5);
  });
});

describe("upkeep history: readings", () => {
  it("keeps one reading an hour while the counter moves: one within the hour of the one before the last replaces the last", () => {
    const under = new UpkeepHistory();
    read(under, 100, START);
    read(under, 101, START + 30 * 60_000);
    read(under, 102, START + READING_SPACING_MS - 1);
    assert.deepEqual(filterOf(under).at, [START, START + READING_SPACING_MS - 1]);
    assert.deepEqual(filterOf(under).used, [100, 102]);

    const at = new UpkeepHistory();
    read(at, 100, START);
    read(at, 101, START + 30 * 60_000);
    read(at, 102, START + READING_SPACING_MS);
    assert.deepEqual(filterOf(at).at, [START, START + 30 * 60_000, START + READING_SPACING_MS]);
  });

  it("keeps a standing counter's first and last reading, the last moving on; a reading older than the last is nothing", () => {
    const history = new UpkeepHistory();
    read(history, 100, START);
    read(history, 100, START + 5 * HOUR_MS);
    read(history, 100, START + 9 * HOUR_MS);
    assert.deepEqual(filterOf(history).at, [START, START + 9 * HOUR_MS]);
    read(history, 101, START + 10 * HOUR_MS);
    read(history, 105, START + 2 * HOUR_MS);
    assert.deepEqual(filterOf(history).used, [100, 100, 101]);
    assert.equal(history.of(ROBOT)!.latest!.at, START + 10 * HOUR_MS);
  });

  it("reads a counter the cloud reset as a new segment: no negative wear, the wear on both sides counted", () => {
    const history = new UpkeepHistory();
    let used = workDays(history, { serialNumber: ROBOT, lifeSpan: 1000, usedLife: 900, from: START, days: 4, hoursPerDay: 5 });
    assert.equal(used, 920);
    // The service engineer resets the counter overnight; work goes on from 0.
    read(history, 0, START + 4 * DAY_MS + 2 * HOUR_MS);
    used = workDays(history, { serialNumber: ROBOT, lifeSpan: 1000, usedLife: 0, from: START + 4 * DAY_MS, days: 4, hoursPerDay: 5 });
    assert.equal(used, 20);
    assert.equal(remainingOf(filterOf(history)), 0.98);
    const learned = learnedWearOf(filterOf(history), history.of(ROBOT)!.work);
    assert.equal(learned.cleaningHours, 40);
    assert.equal(learned.perCleaningHour, 40 / 1000 / 40, "1/1000 of the life per hour, as the counter ran");
  });

  it(`skips a counter less than ${STALE_FALL_SHARE * 100} % of the life under the last (a stale read), and reads a fall of that as a reset`, () => {
    const history = new UpkeepHistory();
    read(history, 500, START);
    read(history, 490.01, START + 2 * HOUR_MS);
    assert.deepEqual(filterOf(history).used, [500], "9.99 under: stale");
    read(history, 490, START + 4 * HOUR_MS);
    assert.deepEqual(filterOf(history).used, [500, 490], "10 under: a reset");
    assert.equal(sameSegment(filterOf(history), 1), false);
  });

  it("starts the part again at a replacement, counting from the counter's value then until the cloud resets it", () => {
    const history = new UpkeepHistory();
    workDays(history, { serialNumber: ROBOT, lifeSpan: 1000, usedLife: 880, from: START, days: 2, hoursPerDay: 5 });
    const replacedAt = START + 2 * DAY_MS;
    history.replaced(ROBOT, "filter", replacedAt);
    assert.equal(remainingOf(filterOf(history)), 1, "a new part, whatever the lagging counter says");
    // The counter lags: it runs on from 890.
    workDays(history, { serialNumber: ROBOT, lifeSpan: 1000, usedLife: 890, from: START + 2 * DAY_MS, days: 2, hoursPerDay: 5 });
    assert.equal(remainingOf(filterOf(history)), 0.99);
    // Then the cloud resets it: the counter is the part's own again.
    read(history, 3, START + 4 * DAY_MS + 9 * HOUR_MS);
    assert.equal(remainingOf(filterOf(history)), 0.997);
    const learned = learnedWearOf(filterOf(history), history.of(ROBOT)!.work);
    assert.equal(learned.perCleaningHour, 1 / 1000, "the replacement ended a segment; no wear across it");
    const [row] = upkeepTable(history, [ROBOT], { now: START + 4 * DAY_MS + 10 * HOUR_MS, zone: "UTC" });
    assert.equal(row!.parts[0]!.replacedAt, new Date(replacedAt).toISOString());
  });

  it("takes a reading at a replacement's very time as the old part's", () => {
    const history = new UpkeepHistory();
    read(history, 500, START);
    read(history, 510, START + HOUR_MS);
    history.replaced(ROBOT, "filter", START + HOUR_MS);
    read(history, 511, START + 2 * HOUR_MS);
    assert.equal(remainingOf(filterOf(history)), 0.999, "511 less the 510 the old part had");
  });
});

describe("upkeep history: bounds", () => {
  it(`keeps ${HISTORY_DAYS} days: a reading or report at the limit stays, one ms older goes`, () => {
    const history = new UpkeepHistory();
    const now = START + HISTORY_DAYS * DAY_MS + 5 * HOUR_MS;
    const oldest = now - HISTORY_DAYS * DAY_MS;
    read(history, 10, oldest - 1);
    read(history, 11, oldest);
    read(history, 12, oldest + 2 * HOUR_MS);
    const report = (id: string, end: number) =>
      readReport(
        { id, startTime: new Date(end - HOUR_MS).toISOString(), endTime: new Date(end).toISOString(), durationSeconds: 3600 },
        ROBOT,
      )!;
    history.observeReport(report("a", oldest - 1));
    history.observeReport(report("b", oldest));
    read(history, 13, now);
    assert.deepEqual(filterOf(history).used, [11, 12, 13]);
    assert.deepEqual(history.of(ROBOT)!.work.end, [oldest]);
    assert.deepEqual([...history.of(ROBOT)!.reportKeys.keys()], [`${ROBOT}/b`]);
  });

  it("keeps the robots heard of last, up to its capacity", () => {
    const history = new UpkeepHistory(2);
    for (const serialNumber of ["A", "B", "C"])
      history.observe(serialNumber, upkeepFactsOf(wearStatus(serialNumber, "filter", 1, 10)), START);
    assert.deepEqual(history.serialNumbers(), ["B", "C"]);
  });
});

describe("upkeep history: a context's copy", () => {
  it("gives back the same table after a restart, the readings thinned to one a day, with the replacements and the reports' identities", () => {
    const history = new UpkeepHistory();
    workDays(history, { serialNumber: ROBOT, lifeSpan: 1000, usedLife: 100, from: START, days: 20, hoursPerDay: 3 });
    history.replaced(ROBOT, "filter", START + 10 * DAY_MS + 12 * HOUR_MS);
    // Hourly readings of a long task: thinned to one a day in the copy.
    for (let hour = 0; hour < 10; hour++) read(history, 200 + hour, START + 20 * DAY_MS + hour * HOUR_MS);
    const options = { now: START + 21 * DAY_MS, zone: "UTC" };
    const plain = JSON.parse(JSON.stringify(history.toPlain())) as ReturnType<UpkeepHistory["toPlain"]>;
    assert.ok(plain.robots[ROBOT]!.parts.filter!.at.length < filterOf(history).at.length);
    const restored = new UpkeepHistory();
    restored.restore(plain);
    assert.deepEqual(upkeepTable(restored, [ROBOT], options), upkeepTable(history, [ROBOT], options));
    const start = START + 8 * HOUR_MS;
    const sweptAgain = {
      id: `${ROBOT}-${START}`,
      startTime: new Date(start).toISOString(),
      endTime: new Date(start + 3 * HOUR_MS).toISOString(),
      durationSeconds: 10_800,
    };
    restored.observeReport(readReport(sweptAgain, ROBOT)!);
    assert.equal(restored.of(ROBOT)!.work.seconds.length, 20, "a report swept again after the restart is counted once");
  });

  it("puts the copy under what this process heard before reading it: older readings, reports and replacements it lacks, the newer facts", () => {
    const history = new UpkeepHistory();
    const report = (id: string, start: number) =>
      readReport(
        { id, startTime: new Date(start).toISOString(), endTime: new Date(start + HOUR_MS).toISOString(), durationSeconds: 3600 },
        ROBOT,
      )!;
    const earlier = new UpkeepHistory();
    read(earlier, 5, START);
    read(earlier, 6, START + 2 * HOUR_MS);
    earlier.observeReport(report("a", START + HOUR_MS));
    earlier.observeReport(report("b", START + 3 * HOUR_MS));
    earlier.replaced(ROBOT, "filter", START + 90 * 60_000);
    read(earlier, 8, START + 6 * HOUR_MS);
    // This process heard the robot before the copy was read: a reading at 4 h and report b.
    read(history, 7, START + 4 * HOUR_MS);
    history.observeReport(report("b", START + 3 * HOUR_MS));
    history.restore(JSON.parse(JSON.stringify(earlier.toPlain())));
    assert.deepEqual(filterOf(history).used, [5, 6, 7], "the copy's reading at 6 h is newer than this process's first");
    assert.deepEqual(filterOf(history).replacements, [START + 90 * 60_000]);
    assert.deepEqual(history.of(ROBOT)!.work.key, [`${ROBOT}/a`, `${ROBOT}/b`]);
    assert.equal(history.of(ROBOT)!.latest!.at, START + 6 * HOUR_MS, "the copy's facts are the newer");
  });

  it("takes nothing it cannot read", () => {
    const history = new UpkeepHistory();
    history.restore({
      version: 1,
      robots: {
        [ROBOT]: { parts: { filter: { at: [2, 1], used: [1, 2], life: [10, 10], replacements: [] } } },
        "GS-S-000102": {
          parts: {
            filter: { at: [1, 2], used: [1], life: [10, 10], replacements: [] },
            scrubberBrush: { at: [1], used: [1], life: [0], replacements: [] },
          },
          work: { key: ["x"], start: [1], end: "2", seconds: [1] },
          latest: { at: "now" },
        },
      },
    });
    for (const serialNumber of [ROBOT, "GS-S-000102"]) {
      const robot = history.of(serialNumber)!;
      assert.equal(robot.parts.size, 0, "readings out of order, lists of unequal length and a life of 0 are not taken");
      assert.equal(robot.work.end.length, 0);
      assert.equal(robot.latest, undefined);
    }
    history.restore("garbage");
    history.restore(undefined);
    assert.deepEqual(history.serialNumbers(), [ROBOT, "GS-S-000102"]);
  });
});
