/** The push decoders and the receiver's bookkeeping, apart from HTTP (robot-events tests them over HTTP). */
import assert from "node:assert/strict";
import { cleaningModeMeaningOf } from "../../src/api/cleaning-modes";
import { incidentLevelOf, INCIDENT_LEVEL_CODES } from "../../src/api/incident-levels";
import { PUSH_MEMORY, PushReceiver } from "../../src/api/push-receiver";
import { pushTimeMs, readPush } from "../../src/api/pushes";
import { taskOutcomeOf, withTaskReading } from "../../src/api/task-outcomes";

const APP_ID = "app-1";
/** What the receiver sends on for a body, if anything. */
const sentOn = (receipt: ReturnType<PushReceiver["receive"]>) => (receipt.status === 200 ? receipt.push : undefined);
const incident = (incidentId: string, incidentStatus: 0 | 1, extra: Record<string, unknown> = {}) => ({
  appId: APP_ID,
  payload: { serialNumber: "R1", content: { incidentId, incidentStatus, incidentLevel: "H4", startTime: 1, ...extra } },
});

describe("pushes: decoders", () => {
  it("reads every level H0-H7 as text, lower case or number, and nothing else", () => {
    assert.deepEqual(INCIDENT_LEVEL_CODES.map((code) => incidentLevelOf(code)?.rank), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.equal(incidentLevelOf(" h6 ")?.code, "H6");
    assert.equal(incidentLevelOf(3)?.code, "H3");
    assert.equal(incidentLevelOf("7")?.meaning, "quality issue, serious failure");
    for (const bad of ["H8", 8, -1, "", "high", null, undefined, 4.5]) assert.equal(incidentLevelOf(bad), undefined, String(bad));
  });

  it("reads taskEndStatus -1..3 as numbers or strings; anything else is unknown", () => {
    assert.deepEqual([-1, 0, 1, 2, 3].map(taskOutcomeOf), ["unknown", "normal", "stoppedByHand", "error", "failedToStart"]);
    assert.deepEqual(["0", " 2 ", 4, "x", undefined, {}, "constructor"].map(taskOutcomeOf), ["normal", "error", "unknown", "unknown", "unknown", "unknown", "unknown"]);
  });

  it("gives every known mode name a meaning: a kind, or readable words; an unknown name none", () => {
    assert.deepEqual(
      ["__洗地", "尘推", "__middle_cleaning", "中度清洁", "地毯清洁", "__清扫", "月光模式", 3].map(cleaningModeMeaningOf),
      [{ kind: "scrub" }, { kind: "dustMop" }, { words: "mediumIntensity" }, { words: "mediumIntensity" }, { words: "carpet" }, { words: "sweeping" }, undefined, undefined],
    );
  });

  it("adds a cleaning kind only where the mode names one", () => {
    assert.equal(withTaskReading({ cleaningMode: "__尘推", taskEndStatus: 1 }).cleaningKind, "dustMop");
    assert.equal("cleaningKind" in withTaskReading({ cleaningMode: "重度清洁" }), false);
  });

  it("refuses only a body that is not an object or names no robot, naming the field", () => {
    assert.throws(() => readPush([1]), /body: must be a JSON object/);
    assert.throws(() => readPush({ appId: APP_ID }), /payload\.serialNumber: is missing, and so is productId/);
    assert.throws(() => readPush({ appId: APP_ID, productId: " ", payload: { serialNumber: "", content: {} } }), /payload\.serialNumber/);
    // Everything else is a push to pass on: the service does not send a refused one again.
    assert.equal(readPush({ appId: APP_ID, payload: { serialNumber: "R1", content: { incidentId: "", incidentStatus: 1 } } }).kind, "incident");
    assert.equal(readPush({ appId: APP_ID, payload: { serialNumber: "R1", taskReport: { startTime: "yesterday" } } }).kind, "taskReport");
    assert.equal(readPush({ appId: APP_ID, productId: "R1", payload: "not an object" }).kind, "other");
  });

  it("reads a time as epoch ms, a digit string or ISO 8601 / RFC 3339 text; null, 0 and what cannot be read are not a time", () => {
    const cases: Array<[unknown, number | undefined]> = [
      [1_764_000_000_000, 1_764_000_000_000],
      ["1764000000000", 1_764_000_000_000],
      ["2025-11-24T16:00:00Z", 1_764_000_000_000],
      ["2025-11-24T16:00:00.5Z", 1_764_000_000_500],
      ["2025-11-24T16:00:00.999999999Z", 1_764_000_000_999],
      ["2025-11-25T01:00:00+09:00", 1_764_000_000_000],
      ["2025-11-24T08:00:00-0800", 1_764_000_000_000],
      ["2025-11-24T16:00:00", 1_764_000_000_000],
      ["2025-11-24 16:00", 1_764_000_000_000],
      ["2025-11-24", 1_763_942_400_000],
      [null, undefined],
      [0, undefined],
      ["0", undefined],
      ["", undefined],
      [-5, undefined],
      ["yesterday", undefined],
      ["24/11/2025", undefined],
      ["2025-13-45T99:00:00Z", undefined],
      [{}, undefined],
    ];
    for (const [value, ms] of cases) assert.equal(pushTimeMs(value), ms, JSON.stringify(value));
  });

  it("reads the newer envelope: the robot from productId, the kind from messageTypeId, the other fields kept beside the event", () => {
    const push = readPush({
      appId: APP_ID,
      messageTypeId: "2",
      productId: "R7",
      messageId: "m-1",
      traceId: "t-1",
      messageTimestamp: 1,
      payload: { modelTypeCode: "S1", taskReport: { id: "r", startTime: "2025-11-24T16:00:00Z", endTime: null }, extra: true },
    });
    assert.equal(push.kind, "taskReport");
    assert.equal(push.event.serialNumber, "R7");
    assert.equal(push.event.modelTypeCode, "S1");
    assert.equal(push.event.startTimeIso, "2025-11-24T16:00:00.000Z");
    assert.equal("endTimeIso" in push.event, false);
    assert.deepEqual(push.envelope, { messageTypeId: "2", productId: "R7", messageId: "m-1", traceId: "t-1", messageTimestamp: 1, payload: { extra: true } });
    assert.equal(readPush({ appId: APP_ID, messageTypeId: 3, productId: "R7", payload: { a: 1 } }).kind, "schedulingTask");
    assert.equal(readPush({ appId: APP_ID, messageTypeId: 9, productId: "R7", payload: { content: { incidentId: "i" } } }).kind, "incident", "an unknown type: the payload decides");
    // payload.serialNumber wins over productId; an event sent without its wrapper is the payload itself.
    const bare = readPush({ appId: APP_ID, messageTypeId: 1, productId: "R7", payload: { serialNumber: "R8", incidentId: "i", incidentStatus: 0, endTime: 5 } });
    assert.deepEqual([bare.kind, bare.event.serialNumber, (bare.event as { raised: boolean }).raised, bare.event.incidentId], ["incident", "R8", false, "i"]);
    // A type that disagrees with the payload: the type decides, and nothing sent is dropped.
    const odd = readPush({ appId: APP_ID, messageTypeId: 1, productId: "R7", payload: { incidentId: "j", taskReport: { id: "r" } } });
    assert.deepEqual([odd.kind, odd.event.incidentId, odd.envelope.payload], ["incident", "j", { taskReport: { id: "r" } }]);
  });
});

describe("pushes: the receiver", () => {
  /** Incident ids that with "a" make `count`: "filler-0", "filler-1", ... */
  const fillers = (count: number) => Array.from({ length: count - 1 }, (_, index) => `filler-${index}`);

  it("forgets the oldest deliveries past its memory (PUSH_MEMORY), so a very late repeat is sent on again", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    for (const id of ["a", ...fillers(PUSH_MEMORY)]) assert.ok(sentOn(receiver.receive(incident(id, 1))), id);
    assert.equal(sentOn(receiver.receive(incident("a", 1))), undefined, "a is remembered");
    assert.ok(sentOn(receiver.receive(incident("d", 1))), "d makes a the oldest past the memory");
    assert.equal(sentOn(receiver.receive(incident("filler-0", 1))), undefined, "filler-0 is within the memory");
    assert.ok(sentOn(receiver.receive(incident("a", 1))), "a was forgotten");
  });

  it("keeps at most its memory of open alarms, and its per-robot counts agree with what it keeps", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    for (const id of ["a", ...fillers(PUSH_MEMORY)]) receiver.receive(incident(id, 1));
    const past = receiver.receive(incident("c", 1));
    assert.equal(receiver.openAlarmCount, PUSH_MEMORY);
    assert.equal(past.status === 200 && past.openAlarmsOfRobot, PUSH_MEMORY);
    const recovered = receiver.receive(incident("a", 0)); // a was forgotten: its recovery changes nothing
    assert.equal(recovered.status === 200 && recovered.openAlarmsOfRobot, PUSH_MEMORY);
    const last = receiver.receive(incident("c", 0));
    assert.equal(last.status === 200 && last.openAlarmsOfRobot, PUSH_MEMORY - 1);
  });

  it("neither sends nor counts an alarm below the minimum level", () => {
    const receiver = new PushReceiver({ appId: APP_ID, minLevelRank: 4 });
    const below = receiver.receive(incident("low", 1, { incidentLevel: "H3" }));
    assert.deepEqual(below, { status: 200, belowMinimum: true });
    const above = receiver.receive(incident("high", 1, { incidentLevel: "H5" }));
    assert.equal(above.status === 200 && above.openAlarmsOfRobot, 1);
    assert.equal(receiver.openAlarmCount, 1);
  });

  it("counts a re-raised alarm once", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    receiver.receive(incident("a", 1));
    receiver.receive(incident("a", 1, { startTime: 2 }));
    assert.equal(receiver.openAlarmCount, 1);
  });
});

describe("pushes: one message per push, across envelopes", () => {
  const typed = (messageId: string | undefined, incidentId: string, incidentStatus: 0 | 1) => ({
    appId: APP_ID,
    messageTypeId: 1,
    productId: "R1",
    ...(messageId === undefined ? {} : { messageId }),
    payload: { content: { incidentId, incidentStatus, incidentLevel: "H4" } },
  });

  it("is one message whichever envelope comes first; a messageId seen is a repeat; two messageIds are two messages", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    assert.ok(sentOn(receiver.receive(incident("a", 1))));
    assert.equal(sentOn(receiver.receive(typed("m1", "a", 1))), undefined, "documented, then newer");
    assert.ok(sentOn(receiver.receive(typed("m2", "b", 1))));
    assert.equal(sentOn(receiver.receive(incident("b", 1))), undefined, "newer, then documented");
    assert.equal(sentOn(receiver.receive(typed("m2", "b", 1))), undefined, "the same messageId");
    assert.ok(sentOn(receiver.receive(typed("m3", "b", 1))), "another messageId: another message");
    assert.ok(sentOn(receiver.receive(typed("m4", "b", 0))), "the recovery");
    // A push with a messageId and nothing else to know it by (a scheduling task) is told apart by the messageId alone.
    const run = { appId: APP_ID, messageTypeId: 3, productId: "R1", messageId: "m5", payload: {} };
    assert.ok(sentOn(receiver.receive(run)));
    assert.equal(sentOn(receiver.receive(run)), undefined);
    assert.ok(sentOn(receiver.receive({ ...run, messageId: undefined })), "without any id: every delivery is sent on");
    assert.ok(sentOn(receiver.receive({ ...run, messageId: undefined })));
  });

  it("counts no open alarm for an incident without an id, and still sends it on", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    const receipt = receiver.receive({ appId: APP_ID, payload: { serialNumber: "R1", content: { incidentLevel: "H6", incidentStatus: 1 } } });
    assert.ok(sentOn(receipt));
    assert.equal(receiver.openAlarmCount, 0);
  });
});
