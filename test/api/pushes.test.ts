/** The push decoders and the receiver's bookkeeping, apart from HTTP (robot-events tests them over HTTP). */
import assert from "node:assert/strict";
import { incidentLevelOf, INCIDENT_LEVEL_CODES } from "../../src/api/incident-levels";
import { PushReceiver } from "../../src/api/push-receiver";
import { readPush } from "../../src/api/pushes";
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

describe("pushes: the receiver", () => {
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

  it("counts a re-raised alarm once", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    receiver.receive(incident("a", 1));
    receiver.receive(incident("a", 1, { startTime: 2 }));
    assert.equal(receiver.openAlarmCount, 1);
  });
});
