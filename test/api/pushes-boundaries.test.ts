/**
 * The pushes' policies at their edges, written against the survivors of a StrykerJS run over src/api/pushes
 * (`npm run mutate -- --mutate "src/api/pushes/**\/*.ts"`): what counts as raised, recovered or unknown, what names an
 * incident, which deliveries are one message, what the open alarms and the shift's log keep and for how long.
 *
 * Survivors accepted as equivalent (no test can tell them apart from the code as written):
 * - open-alarms.ts record(): `rank !== undefined &&` replaced by true: `undefined < 2` is false, as the guard is.
 * - push-receiver.ts receive(): the guards `rank !== undefined` and `minLevelRank !== undefined` replaced by true, or
 *   joined by || (the report shows `a || b && c`; it is `(a || b) && c`): a comparison with undefined is false, as the
 *   guard is.
 * - push-receiver.ts isRepeat(): `messageId !== undefined &&` and `content !== undefined &&` before has() replaced by
 *   true: undefined is never a remembered key, since only defined ones are added; and the value stored with a messageId
 *   (true or false): only has() is asked of that memory.
 * - pushes.ts appIdOf(): `typeof body !== "object"` replaced by false: a string or number has no appId property either.
 *   serialNumberText() and incidentIdOf(): `typeof value === "number"` replaced by true or ||: Number.isFinite is
 *   true only of numbers.
 *   incidentStateOf(): "" for a status of another type replaced by any other text that is neither "1" nor "0".
 * - open-alarms.ts alarmsOfAccount(): the name it is kept under ("open alarms") replaced by "": no other module keeps
 *   anything under "".
 * - push-receiver.ts RecentKeys.delete() and .size are never called (no coverage): kept for the class's completeness.
 * - open-alarms.ts: the shift's log starting as a list holding a string: the first trim drops it (it has no time).
 * - open-alarms.ts restore(): the empty lists that stand for a missing `open` or `shift` (and the empty log of a list
 *   written by an earlier version) replaced by a list holding a string: a string is no alarm and is skipped.
 */
import assert from "node:assert/strict";
import { AccountAlarms, SHIFT_LOG_MS, type OpenAlarm } from "../../src/api/pushes/open-alarms";
import { PUSH_MEMORY, PushReceiver, type PushReceipt } from "../../src/api/pushes/push-receiver";
import { alarmIdOf, appIdOf, incidentIdOf, readPush, type IncidentEvent } from "../../src/api/pushes/pushes";

const APP_ID = "app-1";
const NOW = Date.parse("2026-11-26T12:00:00Z");
const hoursBefore = (hours: number) => new Date(NOW - hours * 3600_000);

const sentOn = (receipt: PushReceipt) => (receipt.status === 200 ? receipt.push : undefined);

/** An incident as readPush reads it, of robot R1 unless said. */
function incident(content: Record<string, unknown>, serialNumber = "R1"): IncidentEvent {
  const push = readPush({ appId: APP_ID, payload: { serialNumber, content } });
  assert.equal(push.kind, "incident");
  return push.event;
}

const raise = (incidentId: string, extra: Record<string, unknown> = {}, serialNumber = "R1") =>
  incident({ incidentId, incidentStatus: 1, incidentLevel: "H4", startTime: NOW - 60_000, ...extra }, serialNumber);
const recover = (incidentId: string, extra: Record<string, unknown> = {}, serialNumber = "R1") =>
  incident({ incidentId, incidentStatus: 0, incidentLevel: "H4", startTime: NOW - 60_000, ...extra }, serialNumber);

describe("pushes at their edges: reading an incident", () => {
  const states: [unknown, string][] = [
    [1, "raised"],
    ["1", "raised"],
    [" 1 ", "raised"],
    [0, "recovered"],
    ["0", "recovered"],
    [" 0\n", "recovered"],
    [2, "unknown"],
    [-1, "unknown"],
    ["01", "unknown"],
    [[1], "unknown"],
    [true, "unknown"],
    [null, "unknown"],
    [undefined, "unknown"],
  ];
  for (const [incidentStatus, state] of states) {
    it(`reads incidentStatus ${JSON.stringify(incidentStatus) ?? "missing"} as ${state}, and opens an alarm only when raised or recovered`, () => {
      const event = incident({ incidentId: "i1", incidentStatus });
      assert.equal(event.incidentState, state);
      assert.equal(event.raised, state === "raised");
      assert.equal(alarmIdOf(event), state === "unknown" ? undefined : "i1");
    });
  }

  const ids: [unknown, string | undefined][] = [
    ["i1", "i1"],
    [" i1 ", "i1"],
    ["", undefined],
    ["   ", undefined],
    [42, "42"],
    [0, "0"],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    [{ id: 1 }, undefined],
  ];
  for (const [incidentId, text] of ids) {
    it(`takes incidentId ${String(incidentId)} (${typeof incidentId}) as ${JSON.stringify(text) ?? "no id"}`, () => {
      assert.equal(incidentIdOf(incident({ incidentId, incidentStatus: 1 })), text);
    });
  }

  it("reads a serial number trimmed, or a finite number as text; a blank one or NaN names no robot", () => {
    assert.equal(readPush({ appId: APP_ID, payload: { serialNumber: " R7 ", content: {} } }).event.serialNumber, "R7");
    assert.equal(readPush({ appId: APP_ID, payload: { serialNumber: 7, content: {} } }).event.serialNumber, "7");
    for (const serialNumber of [" ", Number.NaN, Number.POSITIVE_INFINITY, true])
      assert.throws(() => readPush({ appId: APP_ID, payload: { serialNumber, content: {} } }), /serialNumber/);
  });

  it("finds no appId in what is not an object, or in null", () => {
    for (const body of ["appId", 5, null, undefined]) assert.equal(appIdOf(body), undefined);
  });
});

describe("pushes at their edges: a push that is neither an incident nor a report", () => {
  it("gives a scheduling task's payload as its event, content and taskReport fields kept, with nothing else in the envelope", () => {
    const push = readPush({
      appId: APP_ID,
      messageTypeId: 3,
      productId: "R1",
      payload: { serialNumber: "R1", taskName: "night", content: "as sent", taskReport: 5 },
    });
    assert.deepEqual(push, {
      kind: "schedulingTask",
      event: { taskName: "night", content: "as sent", taskReport: 5, serialNumber: "R1" },
      envelope: { messageTypeId: 3, productId: "R1" },
    });
  });

  it("keeps a payload that is not an object in the envelope as it was sent, and adds none when there was none", () => {
    const sent = readPush({ appId: APP_ID, messageTypeId: 3, productId: "R1", payload: "text" });
    assert.deepEqual(sent.envelope, { messageTypeId: 3, productId: "R1", payload: "text" });
    const none = readPush({ appId: APP_ID, messageTypeId: 3, productId: "R1" });
    assert.deepEqual(none.envelope, { messageTypeId: 3, productId: "R1" });
  });
});

describe("pushes at their edges: the receiver", () => {
  it("sends every incident on when it has no minimum level, H0 included", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    const receipt = receiver.receive({
      appId: APP_ID,
      payload: { serialNumber: "R1", content: { incidentId: "e", incidentStatus: 1, incidentLevel: "H0" } },
    });
    assert.deepEqual(Object.keys(receipt).sort(), ["push", "status"]);
  });

  it("never holds a task report back by the level minimum, even one carrying a field named level", () => {
    const receiver = new PushReceiver({ appId: APP_ID, minLevelRank: 5 });
    const receipt = receiver.receive({ appId: APP_ID, payload: { serialNumber: "R1", taskReport: { id: "r1", level: { rank: 0 } } } });
    assert.equal(sentOn(receipt)?.kind, "taskReport");
  });

  it("lets an error that is not a refusal of the push propagate, rather than answer it as a bad request", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    const body = {
      appId: APP_ID,
      get payload(): never {
        throw new TypeError("a getter failed");
      },
    };
    assert.throws(() => receiver.receive(body), TypeError);
  });

  const scheduled = (messageId: unknown, payload: Record<string, unknown> = {}) => ({
    appId: APP_ID,
    messageTypeId: 3,
    productId: "R1",
    messageId,
    payload,
  });
  const messageIds: [string, unknown, unknown, boolean][] = [
    ["the same text", "m1", "m1", true],
    ["text and the same text with spaces around", "m1", " m1 ", true],
    ["a number and the same number", 7, 7, true],
    ["a number and its text", 7, "7", true],
    ["two blank ones (no messageId)", "  ", "  ", false],
    ["two empty ones (no messageId)", "", "", false],
    ["two objects (no messageId)", { id: 1 }, { id: 1 }, false],
    ["two different ones", "m1", "m2", false],
  ];
  for (const [what, first, second, repeated] of messageIds) {
    it(`takes a second scheduling push ${repeated ? "for a repeat" : "for a new message"}: messageIds ${what}`, () => {
      const receiver = new PushReceiver({ appId: APP_ID });
      assert.ok(sentOn(receiver.receive(scheduled(first))));
      assert.equal(sentOn(receiver.receive(scheduled(second))) === undefined, repeated);
    });
  }

  it("does not take two scheduling pushes for one because their payloads carry the same incidentId", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    const run = scheduled(undefined, { incidentId: "i1", incidentStatus: 1 });
    assert.ok(sentOn(receiver.receive(run)));
    assert.ok(sentOn(receiver.receive(run)));
  });

  /** A documented-envelope incident without a messageId. */
  const plainIncident = (incidentId: string) => ({
    appId: APP_ID,
    payload: { serialNumber: "R1", content: { incidentId, incidentStatus: 1, incidentLevel: "H4" } },
  });
  const typedIncident = (messageId: string, incidentId: string) => ({
    appId: APP_ID,
    messageTypeId: 1,
    productId: "R1",
    messageId,
    payload: { content: { incidentId, incidentStatus: 1, incidentLevel: "H4" } },
  });

  it("knows a delivery again by its content and messageId after the messageIds alone have forgotten it", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    assert.ok(sentOn(receiver.receive(typedIncident("m-first", "c"))));
    // Scheduling runs fill the memory of messageIds, not that of contents.
    // After them m-first is no longer among the messageIds: only the content c, remembered with m-first, knows it.
    for (let index = 0; index < PUSH_MEMORY; index++) assert.ok(sentOn(receiver.receive(scheduled(`run-${index}`))));
    assert.deepEqual(receiver.receive(typedIncident("m-first", "c")), { status: 200, repeated: true });
  });

  it("gives a push without a messageId no place in the memory of messageIds", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    for (let index = 0; index < PUSH_MEMORY; index++) assert.ok(sentOn(receiver.receive(scheduled(`run-${index}`))));
    assert.ok(sentOn(receiver.receive(scheduled(undefined))));
    assert.deepEqual(receiver.receive(scheduled("run-0")), { status: 200, repeated: true }, "run-0 is still remembered");
  });

  it("gives a push with nothing to know it by no place in the memory of contents", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    for (let index = 0; index < PUSH_MEMORY; index++) assert.ok(sentOn(receiver.receive(plainIncident(`i-${index}`))));
    assert.ok(sentOn(receiver.receive(scheduled(undefined))));
    assert.deepEqual(receiver.receive(plainIncident("i-0")), { status: 200, repeated: true }, "i-0 is still remembered");
  });

  it("makes a content seen again under another messageId the newest in its memory", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    assert.ok(sentOn(receiver.receive(typedIncident("m1", "c"))));
    assert.ok(sentOn(receiver.receive(plainIncident("filler-0"))));
    assert.ok(sentOn(receiver.receive(typedIncident("m2", "c"))), "another messageId: another message, remembered anew");
    // With c and filler-0..filler-9999 the memory is one past full: the oldest, filler-0, goes.
    for (let index = 1; index < PUSH_MEMORY; index++) assert.ok(sentOn(receiver.receive(plainIncident(`filler-${index}`))));
    assert.deepEqual(receiver.receive(plainIncident("c")), { status: 200, repeated: true }, "c was made the newest");
    assert.ok(sentOn(receiver.receive(plainIncident("filler-0"))), "filler-0 was the oldest");
  });
});

describe("pushes at their edges: the open alarms", () => {
  const texts: [unknown, string | undefined][] = [
    ["E12", "E12"],
    ["", undefined],
    [12, "12"],
    [0, "0"],
    [{ code: "E12" }, undefined],
    [true, undefined],
  ];
  for (const [value, kept] of texts) {
    it(`keeps incidentCode, incidentName and mapName ${JSON.stringify(value)} as ${JSON.stringify(kept) ?? "absent"}`, () => {
      const alarms = new AccountAlarms();
      alarms.record(raise("i1", { incidentCode: value, incidentName: value, mapName: value }), new Date(NOW));
      const alarm = alarms.list()[0]!;
      assert.deepEqual([alarm.code, alarm.name, alarm.mapName], [kept, kept, kept]);
      assert.deepEqual("code" in alarm, kept !== undefined, "an absent field is not there as undefined");
    });
  }

  it("starts with an empty shift", () => {
    assert.deepEqual(new AccountAlarms().log(new Date(NOW)), []);
  });

  it("opens no alarm for an incident without an id, or of an unknown status", () => {
    const alarms = new AccountAlarms();
    assert.equal(alarms.record(incident({ incidentStatus: 1, incidentLevel: "H6" })), undefined);
    assert.equal(alarms.record(incident({ incidentId: "i1", incidentStatus: 2, incidentLevel: "H6" })), undefined);
    assert.equal(alarms.size, 0);
  });

  it("takes the level, name and time of a repeated raise, without a change and keeping its place", () => {
    const alarms = new AccountAlarms();
    const changes: string[] = [];
    alarms.onChange((change) => changes.push(change.kind));
    alarms.record(raise("a", { incidentLevel: "H3", incidentName: "brush" }));
    alarms.record(raise("b"));
    assert.equal(alarms.record(raise("a", { incidentLevel: "H6", incidentName: "brush stuck" })), undefined);
    assert.deepEqual(
      alarms.list().map((alarm) => [alarm.incidentId, alarm.level?.code, alarm.name]),
      [
        ["a", "H6", "brush stuck"],
        ["b", "H4", undefined],
      ],
    );
    assert.deepEqual(changes, ["raised", "raised"]);
  });

  it("keeps the time a raise without a start time arrived through a repeated raise without one", () => {
    const alarms = new AccountAlarms();
    const noStart = { incidentId: "a", incidentStatus: 1, incidentLevel: "H4" };
    alarms.record(incident(noStart), hoursBefore(2));
    alarms.record(incident(noStart), hoursBefore(1));
    assert.equal(alarms.list()[0]?.raisedAt, hoursBefore(2).toISOString());
  });

  it("stops calling a listener once stopped", () => {
    const alarms = new AccountAlarms();
    const changes: string[] = [];
    const stop = alarms.onChange((change) => changes.push(change.alarm.incidentId));
    alarms.record(raise("a"));
    stop();
    alarms.record(raise("b"));
    assert.deepEqual(changes, ["a"]);
  });

  it("gives as the highest the most severe alarm of the robot, the oldest among equals", () => {
    const alarms = new AccountAlarms();
    alarms.record(raise("first-h5", { incidentLevel: "H5" }));
    alarms.record(raise("then-h3", { incidentLevel: "H3" }));
    alarms.record(raise("then-h5", { incidentLevel: "H5" }));
    alarms.record(raise("other-robot-h7", { incidentLevel: "H7" }, "R2"));
    assert.equal(alarms.highestOf("R1")?.incidentId, "first-h5");
  });

  it("marks the recovery and the acknowledgement on the alarm's own log entry, the first one included", () => {
    const alarms = new AccountAlarms();
    alarms.record(raise("a"), new Date(NOW));
    alarms.record(raise("a", {}, "R2"), new Date(NOW));
    alarms.record(raise("b"), new Date(NOW));
    alarms.acknowledge("R1", "a", "Ana", new Date(NOW));
    alarms.record(recover("a", { endTime: NOW }), new Date(NOW));
    assert.deepEqual(
      alarms.log(new Date(NOW)).map((entry) => [entry.serialNumber, entry.incidentId, entry.acknowledged?.by, entry.recoveredAt]),
      [
        ["R1", "a", "Ana", new Date(NOW).toISOString()],
        ["R2", "a", undefined, undefined],
        ["R1", "b", undefined, undefined],
      ],
    );
  });

  it("recovers and acknowledges an alarm whose log entry is gone past the log's size", () => {
    const alarms = new AccountAlarms(10, 1);
    alarms.record(raise("a"), new Date(NOW));
    alarms.record(raise("b"), new Date(NOW));
    assert.equal(alarms.acknowledge("R1", "a", "Ana", new Date(NOW))?.acknowledged?.by, "Ana");
    assert.equal(alarms.record(recover("a"), new Date(NOW))?.kind, "recovered");
    assert.deepEqual(
      alarms.log(new Date(NOW)).map((entry) => entry.incidentId),
      ["b"],
    );
  });

  it("keeps in the log an alarm forgotten past the open alarms' capacity while it is news, and drops it after a day", () => {
    const alarms = new AccountAlarms(1);
    alarms.record(raise("old", { startTime: NOW - 30 * 3600_000 }), hoursBefore(30));
    alarms.record(raise("new", { startTime: NOW - 60_000 }), new Date(NOW));
    alarms.record(raise("newer", { startTime: NOW - 30_000 }), new Date(NOW));
    assert.deepEqual(
      alarms.list().map((alarm) => alarm.incidentId),
      ["newer"],
    );
    assert.deepEqual(
      alarms.log(new Date(NOW)).map((entry) => entry.incidentId),
      ["new", "newer"],
      "new is no longer open but raised a minute ago; old was raised 30 hours ago",
    );
  });

  // The shift keeps an alarm no longer open while its last news is at most SHIFT_LOG_MS old.
  const ages: [string, number, boolean][] = [
    ["a millisecond less than a day", SHIFT_LOG_MS - 1, true],
    ["exactly a day", SHIFT_LOG_MS, true],
    ["a millisecond more than a day", SHIFT_LOG_MS + 1, false],
  ];
  for (const [what, age, kept] of ages) {
    it(`${kept ? "keeps" : "drops"} a recovered alarm whose recovery is ${what} old`, () => {
      const alarms = new AccountAlarms();
      const raisedAt = NOW - age - 3600_000;
      alarms.record(raise("a", { startTime: raisedAt }), new Date(raisedAt));
      alarms.record(recover("a", { startTime: raisedAt, endTime: NOW - age }), new Date(NOW - age));
      assert.equal(alarms.log(new Date(NOW)).length, kept ? 1 : 0);
    });
  }

  it("does not bring back a day-old recovered entry when the same incident is raised again", () => {
    const alarms = new AccountAlarms();
    alarms.record(raise("x", { startTime: NOW - 30 * 3600_000 }), hoursBefore(30));
    alarms.record(recover("x", { startTime: NOW - 30 * 3600_000, endTime: NOW - 25 * 3600_000 }), hoursBefore(25));
    alarms.record(raise("y"), new Date(NOW));
    alarms.record(raise("x", { startTime: NOW - 1000 }), new Date(NOW));
    assert.deepEqual(
      alarms.log(new Date(NOW)).map((entry) => [entry.incidentId, entry.raisedAt]),
      [
        ["y", new Date(NOW - 60_000).toISOString()],
        ["x", new Date(NOW - 1000).toISOString()],
      ],
    );
  });
});

describe("pushes at their edges: restoring the open alarms", () => {
  const stored = (incidentId: string, extra: Partial<OpenAlarm> = {}): OpenAlarm => ({
    serialNumber: "R1",
    incidentId,
    raisedAt: new Date(Date.now() - 60_000).toISOString(),
    ...extra,
  });

  it("takes back open alarms up to its capacity, no more", () => {
    const alarms = new AccountAlarms(2);
    alarms.restore({ open: [stored("a"), stored("b"), stored("c")], shift: [] });
    assert.deepEqual(
      alarms.list().map((alarm) => alarm.incidentId),
      ["a", "b"],
    );
  });

  it("leaves an alarm already open as it is, its acknowledgement with it", () => {
    const alarms = new AccountAlarms();
    alarms.record(raise("a", { startTime: Date.now() - 60_000 }));
    alarms.acknowledge("R1", "a", "Ana");
    alarms.restore({ open: [stored("a")], shift: [] });
    assert.equal(alarms.list()[0]?.acknowledged?.by, "Ana");
  });

  const missing: [string, Record<string, unknown>][] = [
    ["a serialNumber that is not text", { serialNumber: 5 }],
    ["an incidentId that is not text", { incidentId: 5 }],
    ["a raisedAt that is not text", { raisedAt: 5 }],
  ];
  for (const [what, change] of missing) {
    it(`skips an open alarm and a log entry with ${what}`, () => {
      const alarms = new AccountAlarms();
      const entry = { ...stored("a"), ...change };
      alarms.restore({ open: [entry], shift: [entry] });
      assert.deepEqual([alarms.size, alarms.log().length], [0, 0]);
    });
  }

  it("adds to the log the entries it lacks, beside those it has", () => {
    const alarms = new AccountAlarms();
    alarms.record(raise("a", { startTime: Date.now() - 60_000 }));
    alarms.restore({ open: [], shift: [stored("b"), stored("a", { raisedAt: new Date(Date.now() - 30_000).toISOString() })] });
    assert.deepEqual(
      alarms.log().map((entry) => entry.incidentId),
      ["a", "b", "a"],
    );
  });

  it("drops on restoring the log entries a day old and no longer open, so a new raise of one does not bring it back", () => {
    const alarms = new AccountAlarms();
    const dayOld = stored("x", {
      raisedAt: new Date(Date.now() - 30 * 3600_000).toISOString(),
      recoveredAt: new Date(Date.now() - 25 * 3600_000).toISOString(),
    } as Partial<OpenAlarm>);
    alarms.restore({ open: [], shift: [dayOld] });
    alarms.record(raise("x", { startTime: Date.now() - 1000 }));
    assert.deepEqual(
      alarms.log().map((entry) => [entry.incidentId, entry.recoveredAt]),
      [["x", undefined]],
      "only the new raise",
    );
  });
});
