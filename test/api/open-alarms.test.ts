/** The account's open alarms and its memory across node lifetimes, apart from Node-RED. */
import assert from "node:assert/strict";
import { accountKeyOf, forgetAccountMemory, keptForAccount } from "../../src/api/account/account-memory";
import { AccountAlarms, alarmsOfAccount } from "../../src/api/pushes/open-alarms";
import { readPush, type IncidentEvent } from "../../src/api/pushes/pushes";

const incident = (
  serialNumber: string,
  incidentId: string,
  raised: boolean,
  level: unknown,
  extra: Record<string, unknown> = {},
): IncidentEvent => {
  const push = readPush({
    appId: "a",
    payload: {
      serialNumber,
      content: { incidentId, incidentStatus: raised ? 1 : 0, incidentLevel: level, startTime: 1764000000000, ...extra },
    },
  });
  assert.equal(push.kind, "incident");
  return push.event;
};

describe("open alarms of an account", () => {
  afterEach(forgetAccountMemory);

  it("opens an alarm at H2 and above or of an unreadable level, and closes it when recovered", () => {
    const alarms = new AccountAlarms();
    assert.equal(alarms.record(incident("R1", "i0", true, "H1")), undefined, "H1 is no alarm");
    assert.equal(
      alarms.record(incident("R1", "i1", true, "H4", { incidentName: "brush stuck", incidentCode: "E12", mapName: "Floor 1" }))?.kind,
      "raised",
    );
    assert.equal(alarms.record(incident("R1", "i2", true, "odd"))?.kind, "raised");
    assert.deepEqual(alarms.ofRobot("R1")[0], {
      serialNumber: "R1",
      incidentId: "i1",
      level: { code: "H4", rank: 4 },
      code: "E12",
      name: "brush stuck",
      mapName: "Floor 1",
      raisedAt: "2025-11-24T16:00:00.000Z",
    });
    assert.equal(alarms.highestOf("R1")?.incidentId, "i2", "an unreadable level counts as the most severe");
    assert.equal(alarms.record(incident("R1", "i2", false, "odd"))?.kind, "recovered");
    assert.equal(alarms.highestOf("R1")?.incidentId, "i1");
    assert.equal(alarms.record(incident("R1", "i9", false, "H4")), undefined, "recovering what is not open changes nothing");
    assert.equal(alarms.highestOf("R2"), undefined);
  });

  it('is an alarm from H2 up (H0 as 0 or "0" and H1 are events), and two robots\' incidents with one id are two alarms', () => {
    const alarms = new AccountAlarms();
    for (const level of [0, "0", "H0", "H1"])
      assert.equal(alarms.record(incident("R1", `e-${String(level)}`, true, level)), undefined, `level ${String(level)}`);
    assert.equal(alarms.size, 0);
    assert.equal(alarms.record(incident("R1", "routine", true, "H2"))?.kind, "raised", "H2 is the first alarm level");
    assert.equal(alarms.record(incident("R2", "routine", true, "H2"))?.kind, "raised", "the same id on another robot");
    assert.equal(alarms.size, 2);
    assert.deepEqual([alarms.ofRobot("R1").length, alarms.ofRobot("R2").length], [1, 1]);
    alarms.record(incident("R1", "routine", false, "H2"));
    assert.deepEqual(
      alarms.list().map((alarm) => alarm.serialNumber),
      ["R2"],
      "recovering one robot's alarm leaves the other's",
    );
  });

  it("keeps an acknowledgement through a repeated raise, and forgets the oldest past its capacity", () => {
    const alarms = new AccountAlarms(2);
    const changes: string[] = [];
    alarms.onChange((change) => changes.push(`${change.kind} ${change.alarm.incidentId}`));
    alarms.record(incident("R1", "a", true, "H5"));
    assert.equal(alarms.acknowledge("R1", "a", "Ana", new Date(0))?.acknowledged?.by, "Ana");
    assert.equal(alarms.acknowledge("R1", "nope", "Ana"), undefined);
    assert.equal(alarms.record(incident("R1", "a", true, "H5")), undefined, "a second delivery of the raise is no change");
    assert.deepEqual(alarms.ofRobot("R1")[0]?.acknowledged, { by: "Ana", at: "1970-01-01T00:00:00.000Z" });
    alarms.record(incident("R2", "b", true, "H4"));
    alarms.record(incident("R3", "c", true, "H4"));
    assert.deepEqual(
      alarms.list().map((alarm) => alarm.incidentId),
      ["b", "c"],
    );
    assert.deepEqual(changes, ["raised a", "acknowledged a", "raised b", "raised c"]);
  });

  it("goes to plain JSON and back, with acknowledgements and the shift's log, skipping what is not an alarm", () => {
    const alarms = new AccountAlarms();
    alarms.record(incident("R1", "a", true, "H6", { startTime: Date.now() - 60_000 }));
    alarms.acknowledge("R1", "a", "Bo");
    alarms.record(incident("R2", "b", true, "H4", { startTime: Date.now() - 30_000 }));
    alarms.record(incident("R2", "b", false, "H4", { startTime: Date.now() - 30_000 }));
    const plain = JSON.parse(JSON.stringify(alarms.toPlain())) as { open: unknown[]; incidents: unknown[] };
    const copy = new AccountAlarms();
    copy.restore({ open: [...plain.open, { serialNumber: 5 }, null], incidents: [...plain.incidents, "x"] });
    assert.deepEqual(copy.list(), alarms.list());
    assert.deepEqual(copy.list()[0]?.acknowledged?.by, "Bo");
    assert.deepEqual(copy.log(), alarms.log());
    // Read twice (a restart after a redeploy): the log gains nothing it has.
    copy.restore(plain);
    assert.equal(copy.log().length, 2);
    copy.restore("nonsense");
    assert.equal(copy.list().length, 1);
    // What an earlier version stored: the open alarms as a list.
    const earlier = new AccountAlarms();
    earlier.restore(plain.open);
    assert.deepEqual(earlier.list(), alarms.list());
    // What the version before the incident log stored: the log as "shift".
    const shiftOnly = new AccountAlarms();
    shiftOnly.restore({ open: plain.open, shift: plain.incidents });
    assert.deepEqual(shiftOnly.log(), alarms.log());
  });

  it("keeps the shift: each alarm raised with who acknowledged it when and when it recovered, for 24 hours, open ones longer", () => {
    const now = Date.parse("2026-11-26T12:00:00Z");
    const at = (hoursAgo: number) => new Date(now - hoursAgo * 3600_000);
    const alarms = new AccountAlarms(10_000, 4);
    alarms.record(incident("R1", "old", true, "H5", { startTime: now - 30 * 3600_000 }), at(30));
    alarms.record(incident("R1", "gone", true, "H5", { startTime: now - 26 * 3600_000 }), at(26));
    alarms.record(incident("R1", "gone", false, "H5", { startTime: now - 26 * 3600_000, endTime: now - 25 * 3600_000 }), at(25));
    alarms.record(incident("R2", "today", true, "H6", { startTime: now - 2 * 3600_000 }), at(2));
    alarms.acknowledge("R2", "today", "Ana", at(1));
    alarms.record(incident("R2", "today", false, "H6", { startTime: now - 2 * 3600_000, endTime: now - 1800_000 }), at(0.5));
    assert.deepEqual(
      alarms.log(new Date(now)).map((entry) => [entry.incidentId, entry.acknowledged?.by, entry.recoveredAt]),
      [
        // Raised 30 hours ago and still open: kept; recovered 25 hours ago: gone.
        ["old", undefined, undefined],
        ["today", "Ana", new Date(now - 1800_000).toISOString()],
      ],
    );
    assert.deepEqual(
      alarms.list().map((alarm) => alarm.incidentId),
      ["old"],
      "the log keeps what the open list no longer has",
    );
    // Raised long ago by the cloud's clock, recovered now: a day in the log from its recovery.
    alarms.record(incident("R4", "stale", true, "H4", { startTime: now - 40 * 3600_000 }), new Date(now));
    alarms.record(incident("R4", "stale", false, "H4", { startTime: now - 40 * 3600_000, endTime: now }), new Date(now));
    assert.deepEqual(
      alarms.log(new Date(now)).map((entry) => entry.incidentId),
      ["old", "today", "stale"],
      "in the order they came",
    );
    // Past the log's size the oldest goes, open or not.
    for (const id of ["x", "y", "z"]) alarms.record(incident("R3", id, true, "H4", { startTime: now - 60_000 }), new Date(now));
    assert.deepEqual(
      alarms.log(new Date(now)).map((entry) => entry.incidentId),
      ["stale", "x", "y", "z"],
    );
  });

  it("keeps every alarm in its incident log 35 days after its last news (a month's report), not a millisecond more, open ones longer", () => {
    const now = Date.parse("2026-11-26T12:00:00Z");
    const daysAgo = (days: number, ms = 0) => new Date(now - days * 86_400_000 + ms);
    const alarms = new AccountAlarms();
    const raiseAndRecover = (id: string, at: Date) => {
      alarms.record(incident("R1", id, true, "H5", { startTime: at.getTime() }), at);
      alarms.record(incident("R1", id, false, "H5", { startTime: at.getTime(), endTime: at.getTime() }), at);
    };
    raiseAndRecover("at-limit", daysAgo(35));
    raiseAndRecover("past-limit", daysAgo(35, -1));
    raiseAndRecover("within", daysAgo(35, 1));
    alarms.record(incident("R2", "open", true, "H5", { startTime: daysAgo(40).getTime() }), daysAgo(40));
    alarms.record(incident("R2", "acknowledged-late", true, "H5", { startTime: daysAgo(36).getTime() }), daysAgo(36));
    alarms.acknowledge("R2", "acknowledged-late", "Ana", daysAgo(1));
    alarms.record(
      incident("R2", "acknowledged-late", false, "H5", { startTime: daysAgo(36).getTime(), endTime: daysAgo(1).getTime() }),
      daysAgo(1),
    );
    const kept = (fromMs: number, toMs: number) => {
      alarms.log(new Date(now)); // trims the log as of now
      return alarms.incidents(fromMs, toMs).map((entry) => entry.incidentId);
    };
    assert.deepEqual(kept(0, now + 1), ["at-limit", "within", "open", "acknowledged-late"]);
    assert.deepEqual(kept(daysAgo(35).getTime(), daysAgo(35, 1).getTime()), ["at-limit"], "from `from` on, before `to`");
    assert.deepEqual(
      alarms.log(new Date(now)).map((entry) => entry.incidentId),
      ["open", "acknowledged-late"],
      "the shift: a day's news, or open",
    );
  });

  it("is one object per account for the life of the process, another for another account", () => {
    const production = accountKeyOf("https://cloud.example", "client-1");
    const staging = accountKeyOf("https://staging.example", "client-1");
    assert.notEqual(production, staging);
    assert.equal(alarmsOfAccount(production), alarmsOfAccount(production));
    assert.notEqual(alarmsOfAccount(production), alarmsOfAccount(staging));
    let made = 0;
    keptForAccount(production, "count", () => ++made);
    assert.equal(
      keptForAccount(production, "count", () => ++made),
      1,
    );
    forgetAccountMemory();
    assert.equal(
      keptForAccount(production, "count", () => ++made),
      2,
    );
  });
});
