/**
 * The plan's calendar and its reading, as tables: which occurrences an item has (every and until at their
 * boundaries, HH:MM:SS, daily against a list of days), the clock changes of Europe/Berlin (spring: 02:00-02:59
 * do not exist; autumn: they happen twice) and of zones whose change is not at 02:00 or not an hour (Lord Howe's
 * 30 minutes, Santiago's midnight, Samoa's skipped day), and a plan refused whole on each kind of bad field, naming
 * item and field.
 */
import assert from "node:assert/strict";
import { Settings } from "luxon";
import { instantOfWallTime, localDateOf, occurrencesBetween, startOfLocalDate, timesOfDay } from "../../src/api/plans/calendar";
import { readPlan, readSkipDates, readTimezone } from "../../src/api/plans/plan";
import { RobotApiError } from "../../src/api/errors";

const BERLIN = "Europe/Berlin";
const LORD_HOWE = "Australia/Lord_Howe";
const SANTIAGO = "America/Santiago";
const item = (fields: Record<string, unknown>) => ({ name: "Lobby", days: "daily", at: "06:00", map: "Floor 1", area: "Lobby", ...fields });
/** The occurrence ids (and UTC times) of one plan over one local day of Berlin. */
function dayOf(date: string, fields: Record<string, unknown>[], zone = BERLIN): string[] {
  const start = startOfLocalDate(date, zone);
  const next = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return occurrencesBetween(readPlan(fields), zone, start, startOfLocalDate(next, zone)).map(
    (occurrence) => `${occurrence.occurrenceId} ${occurrence.plannedAt.slice(11, 16)}Z`,
  );
}

describe("the plan's calendar", () => {
  it("repeats every N minutes from at up to and including until, or to the day's end", () => {
    const table: [Record<string, unknown>, string[]][] = [
      [{ at: "06:00" }, ["06:00"]],
      [{ at: "06:00", every: 120, until: "10:00" }, ["06:00", "08:00", "10:00"]],
      [{ at: "06:00", every: 120, until: "09:59" }, ["06:00", "08:00"]],
      [{ at: "06:00", every: 120, until: "10:01" }, ["06:00", "08:00", "10:00"]],
      [{ at: "06:00", every: 120, until: "06:00" }, ["06:00"]],
      [{ at: "20:00", every: 90 }, ["20:00", "21:30", "23:00"]],
      [{ at: "23:59:59", every: 1 }, ["23:59"]],
      [{ at: "06:00:30", every: 1, until: "06:02" }, ["06:00", "06:01"]],
      [{ at: "06:00:30", every: 1, until: "06:02:30" }, ["06:00", "06:01", "06:02"]],
    ];
    for (const [fields, minutes] of table)
      assert.deepEqual(
        dayOf("2026-06-10", [item(fields)]).map((line) => line.slice(17, 22)),
        minutes,
        JSON.stringify(fields),
      );
    assert.deepEqual(timesOfDay({ at: "06:00:30", every: 1, until: "06:01:29" }), [21_630]);
  });

  it("keeps to the item's days: daily, a list of days, and the zone's date rather than UTC's", () => {
    // 2026-06-08 is a Monday.
    const week = ["2026-06-08", "2026-06-09", "2026-06-10", "2026-06-11", "2026-06-12", "2026-06-13", "2026-06-14"];
    const count = (days: unknown) => week.map((date) => dayOf(date, [item({ days })]).length);
    assert.deepEqual(count("daily"), [1, 1, 1, 1, 1, 1, 1]);
    assert.deepEqual(count(["mon", "tue", "wed", "thu", "fri"]), [1, 1, 1, 1, 1, 0, 0]);
    assert.deepEqual(count(["sun"]), [0, 0, 0, 0, 0, 0, 1]);
    // 00:30 on a Monday in Berlin is Sunday 22:30 UTC: still Monday's.
    assert.deepEqual(dayOf("2026-06-08", [item({ days: ["mon"], at: "00:30" })]), ["Lobby@2026-06-08T00:30 22:30Z"]);
    assert.deepEqual(dayOf("2026-06-07", [item({ days: ["mon"], at: "00:30" })]), []);
  });

  it("runs a time the spring clock change skips at the next minute that exists, once", () => {
    // 2026-03-29: Berlin goes from 02:00 (+01:00) to 03:00 (+02:00), at 01:00 UTC.
    assert.deepEqual(dayOf("2026-03-29", [item({ at: "01:30", every: 30, until: "03:30" })]), [
      "Lobby@2026-03-29T01:30 00:30Z",
      "Lobby@2026-03-29T02:00 01:00Z",
      "Lobby@2026-03-29T02:30 01:00Z",
      "Lobby@2026-03-29T03:00 01:00Z",
      "Lobby@2026-03-29T03:30 01:30Z",
    ]);
    assert.deepEqual(dayOf("2026-03-29", [item({ at: "02:59:59" })]), ["Lobby@2026-03-29T02:59 01:00Z"]);
    // Every minute of the day: 23 hours of them, and the 60 skipped ones at 03:00.
    const minutes = dayOf("2026-03-29", [item({ at: "00:00", every: 1 })]);
    assert.equal(minutes.length, 1_440);
    assert.equal(minutes.filter((line) => line.endsWith("01:00Z")).length, 61);
  });

  it("runs a time the autumn clock change repeats once, the first time the clock shows it", () => {
    // 2026-10-25: Berlin goes back from 03:00 (+02:00) to 02:00 (+01:00), at 01:00 UTC.
    assert.deepEqual(dayOf("2026-10-25", [item({ at: "01:30", every: 30, until: "03:30" })]), [
      "Lobby@2026-10-25T01:30 23:30Z",
      "Lobby@2026-10-25T02:00 00:00Z",
      "Lobby@2026-10-25T02:30 00:30Z",
      "Lobby@2026-10-25T03:00 02:00Z",
      "Lobby@2026-10-25T03:30 02:30Z",
    ]);
    const minutes = dayOf("2026-10-25", [item({ at: "00:00", every: 1 })]);
    assert.equal(minutes.length, 1_440);
    assert.equal(new Set(minutes.map((line) => line.split(" ")[0])).size, 1_440);
  });

  it("moves a skipped time to the next minute that exists where the change is not at 02:00 or not an hour", () => {
    // Lord Howe goes from 02:00 (+10:30) to 02:30 (+11:00) on 2026-10-04: the hour stays, the minutes jump.
    assert.deepEqual(dayOf("2026-10-04", [item({ at: "01:45", every: 15, until: "02:45" })], LORD_HOWE), [
      "Lobby@2026-10-04T01:45 15:15Z",
      "Lobby@2026-10-04T02:00 15:30Z",
      "Lobby@2026-10-04T02:15 15:30Z",
      "Lobby@2026-10-04T02:30 15:30Z",
      "Lobby@2026-10-04T02:45 15:45Z",
    ]);
    // Santiago goes from 00:00 (-04:00) to 01:00 (-03:00) on 2026-09-06: the day starts at 01:00.
    assert.equal(startOfLocalDate("2026-09-06", SANTIAGO).toISOString(), "2026-09-06T04:00:00.000Z");
    assert.deepEqual(dayOf("2026-09-06", [item({ at: "00:30" })], SANTIAGO), ["Lobby@2026-09-06T00:30 04:00Z"]);
    // Samoa skipped 2011-12-30 whole (-10:00 to +14:00): its times run at the first minute of the 31st.
    assert.equal(
      instantOfWallTime({ year: 2011, month: 12, day: 30 }, 10 * 3_600, "Pacific/Apia")
        .toUTC()
        .toISO(),
      "2011-12-30T10:00:00.000Z",
    );
  });

  it("runs a repeated time once, the first time, where the change is not at 02:00 or not an hour", () => {
    // Lord Howe goes back from 02:00 (+11:00) to 01:30 (+10:30) on 2026-04-05.
    assert.deepEqual(dayOf("2026-04-05", [item({ at: "01:00", every: 15, until: "02:00" })], LORD_HOWE), [
      "Lobby@2026-04-05T01:00 14:00Z",
      "Lobby@2026-04-05T01:15 14:15Z",
      "Lobby@2026-04-05T01:30 14:30Z",
      "Lobby@2026-04-05T01:45 14:45Z",
      "Lobby@2026-04-05T02:00 15:30Z",
    ]);
    // Santiago goes back from 24:00 (-03:00) to 23:00 (-04:00) on 2026-04-04.
    assert.deepEqual(dayOf("2026-04-04", [item({ at: "23:30" })], SANTIAGO), ["Lobby@2026-04-04T23:30 02:30Z"]);
  });

  it("plans in the plan's zone whatever the runtime's zone is", () => {
    const runtimeZone = Settings.defaultZone;
    try {
      // Kiritimati is 13 hours ahead of Berlin: its midnight is no day's start in Berlin.
      for (const zone of ["Europe/Berlin", "America/Santiago", "Pacific/Kiritimati"]) {
        Settings.defaultZone = zone;
        assert.deepEqual(dayOf("2026-03-29", [item({ at: "02:30" }), item({ name: "Hall", at: "03:30" })]), [
          "Lobby@2026-03-29T02:30 01:00Z",
          "Hall@2026-03-29T03:30 01:30Z",
        ]);
        assert.deepEqual(dayOf("2026-10-25", [item({ at: "02:30" })]), ["Lobby@2026-10-25T02:30 00:30Z"]);
        assert.equal(localDateOf(Date.parse("2026-06-07T22:30:00Z"), BERLIN), "2026-06-08");
      }
    } finally {
      Settings.defaultZone = runtimeZone;
    }
  });

  it("lists occurrences at or after from and before to, by time then item", () => {
    const items = readPlan([item({ name: "B", at: "06:00" }), item({ name: "A", at: "06:00" }), item({ name: "C", at: "07:00" })]);
    const six = Date.parse("2026-06-10T04:00:00Z");
    const ids = (from: number, to: number) => occurrencesBetween(items, BERLIN, from, to).map((occurrence) => occurrence.occurrenceId);
    assert.deepEqual(ids(six, six + 3_600_000), ["A@2026-06-10T06:00", "B@2026-06-10T06:00"]);
    assert.deepEqual(ids(six + 1, six + 3_600_001), ["C@2026-06-10T07:00"]);
    assert.deepEqual(ids(six - 1, six), []);
    assert.deepEqual(ids(six, six), []);
  });
});

describe("reading a plan", () => {
  const refusal = (plan: unknown, field: string, words: RegExp) =>
    assert.throws(
      () => readPlan(plan),
      (error: unknown) =>
        error instanceof RobotApiError && error.kind === "invalid_input" && error.field === field && words.test(error.message),
      `${JSON.stringify(plan)} refused at ${field}`,
    );

  it("refuses the whole plan at its first bad field, naming the item and the field", () => {
    refusal({}, "plan", /list of items/);
    refusal(["Lobby"], "plan[0]", /must be an object/);
    refusal([item({}), item({ name: "Kitchen", days: ["mon", "fry"] })], "plan[1].days", /mon, tue/);
    refusal([item({ days: [] })], "plan[0].days", /a day/);
    refusal([item({ days: "weekly" })], "plan[0].days", /daily/);
    refusal([item({ at: "6:00" })], "plan[0].at", /HH:MM/);
    refusal([item({ at: "24:00" })], "plan[0].at", /HH:MM/);
    refusal([item({ at: "06:60" })], "plan[0].at", /HH:MM/);
    refusal([item({ every: 0, until: "07:00" })], "plan[0].every", /1 minute or more/);
    refusal([item({ every: 1.5 })], "plan[0].every", /whole number/);
    refusal([item({ every: 1_441 })], "plan[0].every", /1,440/);
    refusal([item({ every: 60, until: "05:59" })], "plan[0].until", /"05:59" is before at "06:00" \(item "Lobby"\)/);
    refusal([item({ until: "07:00" })], "plan[0].until", /needs every/);
    refusal([item({}), item({})], "plan[1].name", /names two items/);
    refusal([item({ name: "a@b" })], "plan[0].name", /"@"/);
    refusal([item({ name: " " })], "plan[0].name", /empty/);
    refusal([item({ area: undefined })], "plan[0].task", /no work.*item "Lobby"/);
    refusal([item({ task: "Daily" })], "plan[0].area", /not task and area/);
    refusal([item({ map: undefined })], "plan[0].map", /text/);
    refusal([item({ untill: "22:00" })], "plan[0].untill", /no field/);
  });

  it("accepts the boundaries: until equal to at, every 1 and 1,440, HH:MM:SS, days in any order", () => {
    const [first, second, third] = readPlan([
      item({ name: "a", every: 1, until: "06:00" }),
      item({ name: "b", every: 1_440, at: "23:59:59" }),
      item({ name: "c", days: ["sun", "mon"], goto: "Dock", area: undefined }),
    ]);
    assert.equal(first!.until, "06:00:00");
    assert.equal(second!.at, "23:59:59");
    assert.deepEqual(third!.days, ["mon", "sun"]);
    assert.deepEqual(third!.work, { kind: "goto", point: "Dock", map: "Floor 1" });
    // waitUpTo: the item's, else its interval, else 1,800 s.
    assert.deepEqual(
      readPlan([item({ name: "a", waitUpTo: 60 }), item({ name: "b", every: 120 }), item({ name: "c" })]).map(
        (entry) => entry.waitUpToSeconds,
      ),
      [60, 7_200, 1_800],
    );
  });

  it("words each refusal as the dialog's help does, naming the item where it has a name", () => {
    refusal([item({ at: 6 })], "plan[0].at", /^plan\[0\]\.at: must be a time "HH:MM" or "HH:MM:SS" \(item "Lobby"\)$/);
    refusal([item({ at: "6:00" })], "plan[0].at", /\(00:00 to 23:59:59\) \(item "Lobby"\)$/);
    refusal([item({ at: "106:00" })], "plan[0].at", /HH:MM/);
    refusal([item({ at: "06:00:001" })], "plan[0].at", /HH:MM/);
    refusal([item({ days: ["mon", "fry"] })], "plan[0].days", /must be "daily" or a list of mon, tue, wed, thu, fri, sat, sun/);
    refusal([item({ days: 5 })], "plan[0].days", /must be "daily" or a list of mon, tue, wed, thu, fri, sat, sun/);
    refusal([item({ every: "60" })], "plan[0].every", /must be a number of minutes/);
    refusal([{ days: "daily" }], "plan[0].name", /^plan\[0\]\.name: must be a text$/);
    refusal([null], "plan[0]", /must be an object/);
    refusal([5], "plan[0]", /must be an object/);
  });

  it("keeps each item's job fields as given, and only those given", () => {
    const job = { near: { x: 1, y: 2 }, robots: ["GS-S-000101"], mode: "__middle_cleaning", minBattery: 40 };
    assert.deepEqual(readPlan([item({ task: "Daily", area: undefined, every: 60, until: "08:00", ...job })]), [
      {
        name: "Lobby",
        days: "daily",
        at: "06:00:00",
        every: 60,
        until: "08:00:00",
        work: { kind: "task", task: "Daily", map: "Floor 1" },
        ...job,
        waitUpToSeconds: 3_600,
      },
    ]);
    assert.deepEqual(readPlan([item({})]), [
      { name: "Lobby", days: "daily", at: "06:00:00", work: { kind: "area", area: "Lobby", map: "Floor 1" }, waitUpToSeconds: 1_800 },
    ]);
  });

  it("reads zones and skipped dates, refusing what is none", () => {
    assert.equal(readTimezone("Europe/Berlin"), "Europe/Berlin");
    for (const none of ["", "  ", null, undefined]) assert.equal(readTimezone(none), Intl.DateTimeFormat().resolvedOptions().timeZone);
    assert.equal(readTimezone(" Asia/Shanghai "), "Asia/Shanghai");
    assert.throws(() => readTimezone("Europe/Nowhere"), /timezone: must be an IANA time zone/);
    assert.throws(
      () => readTimezone(5),
      (error: unknown) => error instanceof RobotApiError && error.field === "timezone",
    );
    assert.deepEqual(readSkipDates("2026-12-25, 2026-01-01 2026-12-25"), ["2026-01-01", "2026-12-25"]);
    assert.deepEqual(readSkipDates(undefined), []);
    assert.throws(() => readSkipDates(["2026-02-30"]), /skipDates\[0\]: must be a date/);
    // Month 13 is an invalid Date, whose toISOString threw a RangeError instead of the field's refusal.
    assert.throws(() => readSkipDates(["2026-12-25", "2026-13-01"]), /skipDates\[1\]: must be a date "YYYY-MM-DD" \(got "2026-13-01"\)/);
    assert.deepEqual(readSkipDates(["2026-12-01"]), ["2026-12-01"]);
    assert.throws(() => readSkipDates(["2026-00-01"]), /skipDates\[0\]/);
    assert.throws(() => readSkipDates(["2026-1-01"]), /skipDates\[0\]/);
    assert.deepEqual(readSkipDates(", 2026-12-25 ,"), ["2026-12-25"]);
    assert.throws(() => readSkipDates(5), /skipDates: must be a list of dates "YYYY-MM-DD"/);
    for (const odd of ["x2026-12-25", "2026-12-25x", ["2026-12-25"]])
      assert.throws(
        () => readSkipDates([odd]),
        (error: unknown) => error instanceof RobotApiError && error.field === "skipDates[0]",
        JSON.stringify(odd),
      );
  });
});
