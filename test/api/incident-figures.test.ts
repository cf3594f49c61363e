/**
 * How fast a day's incidents were handled (incident-figures.ts): each alarm
 * counted on its raise's day in the zone asked, at midnight and a second
 * either side; the mean and the longest time to acknowledge and to recover,
 * of those that were, with none where none was; and a time that runs
 * backwards (a cloud clock ahead of the acknowledgement) counted as none.
 */
import assert from "node:assert/strict";
import { incidentFiguresByDay, incidentsOfDays } from "../../src/api/pushes/incident-figures";
import { AccountAlarms, type AlarmLogEntry } from "../../src/api/pushes/open-alarms";

const entry = (incidentId: string, raisedAt: string, extra: Partial<AlarmLogEntry> = {}): AlarmLogEntry => ({
  serialNumber: "R1",
  incidentId,
  raisedAt,
  ...extra,
});

describe("incident figures per day", () => {
  it("counts each alarm on its raise's day in the zone: midnight is the new day, a second before is the old one", () => {
    // Berlin is UTC+1 in December: its midnight is 23:00 UTC.
    const figures = incidentFiguresByDay(
      [entry("before", "2026-12-01T22:59:59Z"), entry("at", "2026-12-01T23:00:00Z"), entry("after", "2026-12-01T23:00:01Z")],
      "Europe/Berlin",
    );
    assert.deepEqual(
      figures.map((day) => [day.day, day.raised]),
      [
        ["2026-12-01", 1],
        ["2026-12-02", 2],
      ],
    );
    assert.deepEqual(
      incidentFiguresByDay([entry("before", "2026-12-01T22:59:59Z")], "UTC").map((day) => day.day),
      ["2026-12-01"],
    );
  });

  it("lists the days in order whatever order the alarms came in", () => {
    const days = incidentFiguresByDay(
      [entry("c", "2026-12-03T10:00:00Z"), entry("a", "2026-12-01T10:00:00Z"), entry("b", "2026-12-02T10:00:00Z")],
      "UTC",
    );
    assert.deepEqual(
      days.map((day) => day.day),
      ["2026-12-01", "2026-12-02", "2026-12-03"],
    );
  });

  it("gives the mean (rounded) and the longest time to acknowledge and to recover of those that were, null where none was", () => {
    const [day] = incidentFiguresByDay(
      [
        entry("a", "2026-12-01T10:00:00Z", {
          acknowledged: { by: "Ana", at: "2026-12-01T10:00:00Z" },
          recoveredAt: "2026-12-01T10:10:00Z",
        }),
        entry("b", "2026-12-01T11:00:00Z", { acknowledged: { by: "Bo", at: "2026-12-01T11:00:03Z" } }),
        entry("c", "2026-12-01T12:00:00Z"),
        // The cloud's clock ahead of this one: an acknowledgement before the raise counts as none.
        entry("d", "2026-12-01T13:00:05Z", { acknowledged: { by: "Cy", at: "2026-12-01T13:00:00Z" } }),
      ],
      "UTC",
    );
    assert.deepEqual(day, {
      day: "2026-12-01",
      raised: 4,
      acknowledged: 3,
      recovered: 1,
      toAcknowledge: { meanSeconds: 2, longestSeconds: 3 },
      toRecover: { meanSeconds: 600, longestSeconds: 600 },
    });
    const [none] = incidentFiguresByDay([entry("c", "2026-12-01T12:00:00Z")], "UTC");
    assert.deepEqual([none!.toAcknowledge, none!.toRecover], [null, null]);
  });

  it("takes the incidents of whole days in the zone from the account's log, the far ends of UTC-12 and UTC+14 included", () => {
    const alarms = new AccountAlarms();
    const now = new Date("2026-12-03T00:00:00Z");
    for (const [id, at] of [
      ["kiribati-first", "2026-12-01T10:00:00Z"], // 00:00 on the 2nd at UTC+14
      ["kiribati-day-before", "2026-12-01T09:59:59Z"],
      ["kiribati-last", "2026-12-02T09:59:59Z"],
      ["kiribati-next", "2026-12-02T10:00:00Z"],
    ] as const)
      alarms.record({ serialNumber: "R1", incidentId: id, incidentState: "raised", raised: true, startTimeIso: at } as never, now);
    assert.deepEqual(
      incidentsOfDays(alarms, "2026-12-02", "2026-12-02", "Pacific/Kiritimati").map((each) => each.incidentId),
      ["kiribati-first", "kiribati-last"],
    );
  });

  it("takes the last second of a day at UTC-12, and leaves out the day before that the window around the UTC date reaches", () => {
    const alarms = new AccountAlarms();
    const now = new Date("2026-12-04T00:00:00Z");
    for (const [id, at] of [
      ["day-before", "2026-12-01T23:00:00Z"], // the 1st in UTC, inside the widened window of the 2nd
      ["first", "2026-12-02T00:00:00Z"],
      ["west-last", "2026-12-03T11:59:59Z"], // 23:59:59 on the 2nd at UTC-12
      ["west-next", "2026-12-03T12:00:00Z"],
    ] as const)
      alarms.record({ serialNumber: "R1", incidentId: id, incidentState: "raised", raised: true, startTimeIso: at } as never, now);
    assert.deepEqual(
      incidentsOfDays(alarms, "2026-12-02", "2026-12-02", "UTC").map((each) => each.incidentId),
      ["first"],
    );
    assert.deepEqual(
      incidentsOfDays(alarms, "2026-12-02", "2026-12-02", "Etc/GMT+12").map((each) => each.incidentId),
      ["west-last"],
      "00:00 UTC on the 2nd is noon of the 1st at UTC-12",
    );
  });
});
