/** The push decoders and the receiver's bookkeeping, apart from HTTP (robot-events tests them over HTTP). */
import assert from "node:assert/strict";
import { incidentLevelOf, INCIDENT_LEVEL_CODES } from "../../src/api/incident-levels";
import { PushReceiver } from "../../src/api/push-receiver";
import { isRobotApiError } from "../../src/api/errors";
import { appIdOf, readPush } from "../../src/api/pushes";
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
    for (const bad of ["H8", 8, -1, "", "high", null, undefined, 4.5, [4], ["H4"], { toString: () => "H4" }]) assert.equal(incidentLevelOf(bad), undefined, String(bad));
  });

  it("reads level 0 and \"0\" as H0 (0 is a level, not a missing one), in a push too", () => {
    for (const zero of [0, "0", " 0 ", "h0"]) assert.deepEqual(incidentLevelOf(zero), { code: "H0", rank: 0, meaning: "event notification, not an alarm" }, JSON.stringify(zero));
    const push = readPush(incident("z", 1, { incidentLevel: 0 }));
    assert.equal(push.kind === "incident" && push.event.level?.code, "H0");
  });

  it("reads taskEndStatus -1..3 as numbers or strings; anything else is unknown", () => {
    assert.deepEqual([-1, 0, 1, 2, 3].map(taskOutcomeOf), ["unknown", "normal", "stoppedByHand", "error", "failedToStart"]);
    assert.deepEqual(["0", " 2 ", 4, "x", undefined, {}, "constructor"].map(taskOutcomeOf), ["normal", "error", "unknown", "unknown", "unknown", "unknown", "unknown"]);
  });

  it("adds a cleaning kind only where the mode names one", () => {
    assert.equal(withTaskReading({ cleaningMode: "__尘推", taskEndStatus: 1 }).cleaningKind, "dustMop");
    assert.equal("cleaningKind" in withTaskReading({ cleaningMode: "重度清洁" }), false);
  });

  it("names the field of a bad push and refuses one holding both kinds", () => {
    assert.throws(() => readPush({ appId: APP_ID, payload: { serialNumber: "R1", content: { incidentId: "", incidentStatus: 1 } } }), /payload\.content\.incidentId: must not be empty/);
    assert.throws(() => readPush({ appId: APP_ID, payload: { serialNumber: "R1", taskReport: { startTime: "yesterday" } } }), /payload\.taskReport\.startTime/);
    assert.throws(() => readPush({ appId: APP_ID, payload: { serialNumber: "R1", content: incident("a", 1).payload.content, taskReport: {} } }), /payload: holds both/);
    assert.throws(() => readPush({ appId: APP_ID }), /payload: must be an object/);
  });
});

/** The field and message of readPush's refusal of `body`. */
function refusalOf(body: unknown): { field: string | undefined; message: string } {
  try {
    readPush(body);
  } catch (error) {
    assert.ok(isRobotApiError(error), String(error));
    assert.equal(error.kind, "invalid_input");
    return { field: error.field, message: error.message };
  }
  return assert.fail(`accepted ${JSON.stringify(body)}`);
}

const MAY_1_MS = 1714550400000;
const MAY_1_ISO = "2024-05-01T08:00:00.000Z";

describe("pushes: reading a body", () => {
  it("refuses what is not a JSON object as the body", () => {
    for (const body of ["text", 5, null, [incident("a", 1)], undefined]) {
      assert.deepEqual(refusalOf(body), { field: "body", message: "body: must be a JSON object" }, JSON.stringify(body));
    }
  });

  it("names each bad field with its problem", () => {
    const content = (extra: Record<string, unknown>) => ({ appId: APP_ID, payload: { serialNumber: "R1", content: { incidentId: "a", incidentStatus: 1, ...extra } } });
    const cases: [unknown, string, string][] = [
      [{ appId: APP_ID, payload: { serialNumber: 7, content: {} } }, "payload.serialNumber", "must be a string"],
      [{ appId: APP_ID, payload: { serialNumber: "R 1", content: {} } }, "payload.serialNumber", "must be 1-128 letters, digits, '-' or '_'"],
      [content({ incidentId: {} }), "payload.content.incidentId", "must be a string or a number"],
      [content({ incidentStatus: "2" }), "payload.content.incidentStatus", "must be 1 (raised) or 0 (recovered)"],
      [content({ incidentStatus: "" }), "payload.content.incidentStatus", "must be 1 (raised) or 0 (recovered)"],
      [content({ startTime: "12x" }), "payload.content.startTime", "must be epoch milliseconds"],
      [content({ startTime: "x12" }), "payload.content.startTime", "must be epoch milliseconds"],
      [content({ endTime: true }), "payload.content.endTime", "must be epoch milliseconds"],
      [{ appId: APP_ID, payload: { serialNumber: "R1" } }, "payload", "is neither an incident push"],
    ];
    for (const [body, field, problem] of cases) {
      const refusal = refusalOf(body);
      assert.equal(refusal.field, field, JSON.stringify(body));
      assert.ok(refusal.message.startsWith(`${field}: ${problem}`), `${JSON.stringify(body)}: ${refusal.message}`);
    }
  });

  it("reads an incident: raised from 1 or \"1\", recovered from 0 or \"0\", the robot's model kept, times as ISO", () => {
    for (const [status, raised] of [[1, true], ["1", true], [0, false], ["0", false]] as const) {
      const push = readPush({ appId: APP_ID, payload: { serialNumber: "R1", modelTypeCode: "S50", content: { incidentId: 42, incidentStatus: status, startTime: MAY_1_MS, endTime: String(MAY_1_MS + 1000) } } });
      assert.deepEqual(push, {
        kind: "incident",
        event: { incidentId: 42, incidentStatus: status, startTime: MAY_1_MS, endTime: String(MAY_1_MS + 1000), serialNumber: "R1", modelTypeCode: "S50", raised, startTimeIso: MAY_1_ISO, endTimeIso: "2024-05-01T08:00:01.000Z" },
      });
    }
  });

  it("leaves out a model that is not given, and a time that is 0 or missing (not yet)", () => {
    const push = readPush({ appId: APP_ID, payload: { serialNumber: "R1", content: { incidentId: "a", incidentStatus: 1, startTime: 0 } } });
    assert.deepEqual(push.event, { incidentId: "a", incidentStatus: 1, startTime: 0, serialNumber: "R1", raised: true });
  });

  it("reads a task report with its outcome and ISO times", () => {
    const push = readPush({ appId: APP_ID, payload: { serialNumber: "R1", taskReport: { id: "r-1", taskEndStatus: 1, startTime: String(MAY_1_MS), endTime: 0 } } });
    assert.deepEqual(push, { kind: "taskReport", event: { id: "r-1", taskEndStatus: 1, startTime: String(MAY_1_MS), endTime: 0, outcome: "stoppedByHand", serialNumber: "R1", startTimeIso: MAY_1_ISO } });
  });

  it("finds the appId only as a string at the top of an object", () => {
    assert.deepEqual([{ appId: "a" }, { appId: 5 }, {}, null, "appId", ["a"]].map(appIdOf), ["a", undefined, undefined, undefined, undefined, undefined]);
  });
});

describe("pushes: the receiver", () => {
  it("answers 401 to a missing or another appId, and to every body when its own appId is empty", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    assert.deepEqual(receiver.receive({ payload: incident("a", 1).payload }), { status: 401, error: "appId is missing" });
    assert.deepEqual(receiver.receive({ ...incident("a", 1), appId: "app-2" }), { status: 401, error: "appId is not this receiver's" });
    assert.deepEqual(new PushReceiver({ appId: "" }).receive({ ...incident("a", 1), appId: "" }), { status: 401, error: "appId is not this receiver's" });
  });

  it("answers 400 naming the field of a bad push, and remembers nothing of it", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    const receipt = receiver.receive(incident("", 1));
    assert.equal(receipt.status, 400);
    assert.equal(receipt.status === 400 && receipt.field, "payload.content.incidentId");
    assert.match(receipt.status === 400 ? receipt.error : "", /^payload\.content\.incidentId: must not be empty/);
    assert.equal(receiver.openAlarmCount, 0);
  });

  it("sends a task report on once per id (or taskId); one without either every time", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    const report = (taskReport: Record<string, unknown>) => ({ appId: APP_ID, payload: { serialNumber: "R1", taskReport } });
    const first = receiver.receive(report({ id: "r-1" }));
    assert.deepEqual(first, { status: 200, push: readPush(report({ id: "r-1" })) }, "sent on, with no alarm count");
    assert.deepEqual(receiver.receive(report({ id: "r-1" })), { status: 200, repeated: true });
    assert.ok(sentOn(receiver.receive(report({ id: "r-2" }))), "another report of the same robot");
    assert.ok(sentOn(receiver.receive(report({ taskId: 7 }))));
    assert.deepEqual(receiver.receive(report({ taskId: 7 })), { status: 200, repeated: true });
    assert.ok(sentOn(receiver.receive(report({ taskId: "t-1" }))), "a string taskId");
    assert.deepEqual(receiver.receive(report({ taskId: "t-1" })), { status: 200, repeated: true });
    for (let i = 0; i < 2; i++) assert.ok(sentOn(receiver.receive(report({ displayName: "no id" }))), "a report without an id is never taken for a repeat");
    for (let i = 0; i < 2; i++) assert.ok(sentOn(receiver.receive(report({ id: { nested: true } }))), "nor one whose id is no string or number");
    assert.equal(receiver.openAlarmCount, 0, "a task report is no alarm");
  });

  it("counts a robot's alarm until it recovers, then none", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    const raised = receiver.receive(incident("a", 1));
    assert.equal(raised.status === 200 && raised.openAlarmsOfRobot, 1);
    const again = receiver.receive(incident("a", 1, { startTime: 2 }));
    assert.deepEqual(again, { status: 200, repeated: true }, "the same raise delivered twice");
    const recovered = receiver.receive(incident("a", 0));
    assert.equal(recovered.status === 200 && recovered.openAlarmsOfRobot, 0);
    assert.equal(receiver.openAlarmCount, 0);
  });

  it("sends and counts an alarm at exactly the minimum level, and one whose level cannot be read", () => {
    const receiver = new PushReceiver({ appId: APP_ID, minLevelRank: 4 });
    const atMinimum = receiver.receive(incident("at", 1, { incidentLevel: "H4" }));
    assert.equal(atMinimum.status === 200 && atMinimum.openAlarmsOfRobot, 1);
    const unreadable = receiver.receive(incident("odd", 1, { incidentLevel: "H9" }));
    assert.equal(unreadable.status === 200 && unreadable.push?.kind === "incident" && unreadable.push.event.level, undefined);
    assert.equal(unreadable.status === 200 && unreadable.openAlarmsOfRobot, 2);
  });

  it("counts H2 and above as alarms, sends H1 on without counting it", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    const h1 = receiver.receive(incident("stat", 1, { incidentLevel: "H1" }));
    assert.ok(sentOn(h1));
    assert.equal(h1.status === 200 && h1.openAlarmsOfRobot, 0);
    const h2 = receiver.receive(incident("routine", 1, { incidentLevel: "H2" }));
    assert.equal(h2.status === 200 && h2.openAlarmsOfRobot, 1);
  });

  it("forgets the oldest deliveries past its memory, so a very late repeat is sent on again", () => {
    const receiver = new PushReceiver({ appId: APP_ID, memory: 3 });
    for (const id of ["a", "b", "c"]) assert.ok(sentOn(receiver.receive(incident(id, 1))));
    assert.equal(sentOn(receiver.receive(incident("a", 1))), undefined, "a is remembered");
    assert.ok(sentOn(receiver.receive(incident("d", 1))), "d makes a the fourth newest");
    assert.equal(sentOn(receiver.receive(incident("c", 1))), undefined, "c is within the last 3");
    assert.ok(sentOn(receiver.receive(incident("a", 1))), "a was forgotten");
  });

  it("keeps at most its memory of open alarms, and its per-robot counts agree with what it keeps", () => {
    const receiver = new PushReceiver({ appId: APP_ID, memory: 2 });
    receiver.receive(incident("a", 1));
    receiver.receive(incident("b", 1));
    const third = receiver.receive(incident("c", 1));
    assert.equal(receiver.openAlarmCount, 2);
    assert.equal(third.status === 200 && third.openAlarmsOfRobot, 2);
    const recovered = receiver.receive(incident("a", 0)); // a was forgotten: its recovery changes nothing
    assert.equal(recovered.status === 200 && recovered.openAlarmsOfRobot, 2);
    const last = receiver.receive(incident("c", 0));
    assert.equal(last.status === 200 && last.openAlarmsOfRobot, 1);
  });

  it("neither sends nor counts an alarm below the minimum level", () => {
    const receiver = new PushReceiver({ appId: APP_ID, minLevelRank: 4 });
    const below = receiver.receive(incident("low", 1, { incidentLevel: "H3" }));
    assert.deepEqual(below, { status: 200, belowMinimum: true });
    const above = receiver.receive(incident("high", 1, { incidentLevel: "H5" }));
    assert.equal(above.status === 200 && above.openAlarmsOfRobot, 1);
    assert.equal(receiver.openAlarmCount, 1);
  });

  it("sends on an H0 given as 0 or \"0\" but counts it as no alarm, and drops it below a minimum of 1", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    for (const [id, level] of [["n", 0], ["s", "0"]] as const) {
      const receipt = receiver.receive(incident(id, 1, { incidentLevel: level }));
      assert.equal(receipt.status === 200 && receipt.push?.kind === "incident" && receipt.push.event.level?.rank, 0, `level ${JSON.stringify(level)}`);
      assert.equal(receipt.status === 200 && receipt.openAlarmsOfRobot, 0, `level ${JSON.stringify(level)}`);
    }
    assert.equal(receiver.openAlarmCount, 0);
    const filtered = new PushReceiver({ appId: APP_ID, minLevelRank: 1 });
    assert.deepEqual(filtered.receive(incident("n", 1, { incidentLevel: 0 })), { status: 200, belowMinimum: true });
  });

  it("counts a re-raised alarm once, for the robot too", () => {
    const receiver = new PushReceiver({ appId: APP_ID, memory: 2 });
    receiver.receive(incident("a", 1));
    // Two task reports push the raise out of the remembered deliveries, so the same raise is taken again.
    for (const id of ["r-1", "r-2"]) receiver.receive({ appId: APP_ID, payload: { serialNumber: "R1", taskReport: { id } } });
    const again = receiver.receive(incident("a", 1, { startTime: 2 }));
    assert.ok(sentOn(again));
    assert.equal(again.status === 200 && again.openAlarmsOfRobot, 1);
    assert.equal(receiver.openAlarmCount, 1);
  });
});
