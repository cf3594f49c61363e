/** The push decoders and the receiver's bookkeeping, apart from HTTP (robot-events tests them over HTTP). */
import assert from "node:assert/strict";
import { cleaningModeMeaningOf } from "../../src/api/cloud/cleaning-modes";
import { incidentLevelOf, INCIDENT_LEVEL_CODES } from "../../src/api/cloud/incident-levels";
import { isRobotApiError } from "../../src/api/errors";
import { PUSH_MEMORY, PushReceiver } from "../../src/api/pushes/push-receiver";
import { appIdOf, readPush } from "../../src/api/pushes/pushes";
import { taskOutcomeOf, withTaskReading } from "../../src/api/cloud/task-outcomes";

const APP_ID = "app-1";
/** What the receiver sends on for a body, if anything. */
const sentOn = (receipt: ReturnType<PushReceiver["receive"]>) => (receipt.status === 200 ? receipt.push : undefined);
const incident = (incidentId: string, incidentStatus: 0 | 1, extra: Record<string, unknown> = {}) => ({
  appId: APP_ID,
  payload: { serialNumber: "R1", content: { incidentId, incidentStatus, incidentLevel: "H4", startTime: 1, ...extra } },
});

describe("pushes: decoders", () => {
  it("reads every level H0-H7 as text, lower case or number, and nothing else", () => {
    assert.deepEqual(
      INCIDENT_LEVEL_CODES.map((code) => incidentLevelOf(code)?.rank),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    assert.equal(incidentLevelOf(" h6 ")?.code, "H6");
    assert.equal(incidentLevelOf(3)?.code, "H3");
    assert.equal(incidentLevelOf("7")?.meaning, "quality issue, serious failure");
    for (const bad of ["H8", 8, -1, "", "high", null, undefined, 4.5, [4], ["H4"], { toString: () => "H4" }])
      assert.equal(incidentLevelOf(bad), undefined, String(bad));
  });

  it('reads level 0 and "0" as H0 (0 is a level, not a missing one), in a push too', () => {
    for (const zero of [0, "0", " 0 ", "h0"])
      assert.deepEqual(incidentLevelOf(zero), { code: "H0", rank: 0, meaning: "event notification, not an alarm" }, JSON.stringify(zero));
    const push = readPush(incident("z", 1, { incidentLevel: 0 }));
    assert.equal(push.kind === "incident" && push.event.level?.code, "H0");
  });

  it("reads taskEndStatus -1..3 as numbers or strings; anything else is unknown", () => {
    assert.deepEqual([-1, 0, 1, 2, 3].map(taskOutcomeOf), ["unknown", "normal", "stoppedByHand", "error", "failedToStart"]);
    assert.deepEqual(["0", " 2 ", 4, "x", undefined, {}, "constructor"].map(taskOutcomeOf), [
      "normal",
      "error",
      "unknown",
      "unknown",
      "unknown",
      "unknown",
      "unknown",
    ]);
  });

  it("gives every known mode name a meaning: a kind, or readable words; an unknown name none", () => {
    assert.deepEqual(["__洗地", "尘推", "__middle_cleaning", "中度清洁", "地毯清洁", "__清扫", "月光模式", 3].map(cleaningModeMeaningOf), [
      { kind: "scrub" },
      { kind: "dustMop" },
      { words: "mediumIntensity" },
      { words: "mediumIntensity" },
      { words: "carpet" },
      { words: "sweeping" },
      undefined,
      undefined,
    ]);
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
    assert.equal(
      readPush({ appId: APP_ID, payload: { serialNumber: "R1", content: { incidentId: "", incidentStatus: 1 } } }).kind,
      "incident",
    );
    assert.equal(readPush({ appId: APP_ID, payload: { serialNumber: "R1", taskReport: { startTime: "yesterday" } } }).kind, "taskReport");
    assert.equal(readPush({ appId: APP_ID, productId: "R1", payload: "not an object" }).kind, "other");
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
    assert.deepEqual(push.envelope, {
      messageTypeId: "2",
      productId: "R7",
      messageId: "m-1",
      traceId: "t-1",
      messageTimestamp: 1,
      payload: { extra: true },
    });
    assert.equal(readPush({ appId: APP_ID, messageTypeId: 3, productId: "R7", payload: { a: 1 } }).kind, "schedulingTask");
    assert.equal(
      readPush({ appId: APP_ID, messageTypeId: 9, productId: "R7", payload: { content: { incidentId: "i" } } }).kind,
      "incident",
      "an unknown type: the payload decides",
    );
    // payload.serialNumber wins over productId; an event sent without its wrapper is the payload itself.
    const bare = readPush({
      appId: APP_ID,
      messageTypeId: 1,
      productId: "R7",
      payload: { serialNumber: "R8", incidentId: "i", incidentStatus: 0, endTime: 5 },
    });
    assert.deepEqual(
      [bare.kind, bare.event.serialNumber, (bare.event as { raised: boolean }).raised, bare.event.incidentId],
      ["incident", "R8", false, "i"],
    );
    // A type that disagrees with the payload: the type decides, and nothing sent is dropped.
    const odd = readPush({ appId: APP_ID, messageTypeId: 1, productId: "R7", payload: { incidentId: "j", taskReport: { id: "r" } } });
    assert.deepEqual([odd.kind, odd.event.incidentId, odd.envelope.payload], ["incident", "j", { taskReport: { id: "r" } }]);
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

  it("refuses only a push that names no robot, naming the field; an odd field is passed on, since a refused push is lost", () => {
    for (const body of [{ appId: APP_ID, payload: { content: {} } }, { appId: APP_ID }, { appId: APP_ID, payload: 5 }]) {
      const refusal = refusalOf(body);
      assert.equal(refusal.field, "payload.serialNumber", JSON.stringify(body));
      assert.match(refusal.message, /^payload\.serialNumber: is missing, and so is productId: a push must name its robot/);
    }
    const content = (extra: Record<string, unknown>) => ({
      appId: APP_ID,
      payload: { serialNumber: "R1", content: { incidentId: "a", incidentStatus: 1, ...extra } },
    });
    for (const body of [
      { appId: APP_ID, payload: { serialNumber: 7, content: {} } },
      content({ incidentId: {} }),
      content({ startTime: "12x" }),
      content({ endTime: true }),
    ]) {
      assert.equal(readPush(body).kind, "incident", JSON.stringify(body));
    }
    assert.equal(readPush({ appId: APP_ID, payload: { serialNumber: "R1" } }).kind, "other", "a push of no known kind goes on as other");
  });

  it('reads an incident: raised from 1 or "1", recovered from 0 or "0", the robot\'s model kept, times as ISO', () => {
    for (const [status, raised] of [
      [1, true],
      ["1", true],
      [0, false],
      ["0", false],
    ] as const) {
      const push = readPush({
        appId: APP_ID,
        payload: {
          serialNumber: "R1",
          modelTypeCode: "S50",
          content: { incidentId: 42, incidentStatus: status, startTime: MAY_1_MS, endTime: String(MAY_1_MS + 1000) },
        },
      });
      assert.deepEqual(push, {
        kind: "incident",
        envelope: {},
        event: {
          incidentId: 42,
          incidentStatus: status,
          startTime: MAY_1_MS,
          endTime: String(MAY_1_MS + 1000),
          serialNumber: "R1",
          modelTypeCode: "S50",
          incidentState: raised ? "raised" : "recovered",
          raised,
          startTimeIso: MAY_1_ISO,
          endTimeIso: "2024-05-01T08:00:01.000Z",
        },
      });
    }
  });

  it("leaves out a model that is not given, and a time that is 0 or missing (not yet)", () => {
    const push = readPush({
      appId: APP_ID,
      payload: { serialNumber: "R1", content: { incidentId: "a", incidentStatus: 1, startTime: 0 } },
    });
    assert.deepEqual(push.event, {
      incidentId: "a",
      incidentStatus: 1,
      startTime: 0,
      serialNumber: "R1",
      incidentState: "raised",
      raised: true,
    });
  });

  it("reads a task report as a swept one is read: its outcome, ISO times, maps and identity", () => {
    const push = readPush({
      appId: APP_ID,
      payload: { serialNumber: "R1", taskReport: { id: "r-1", taskEndStatus: 1, startTime: String(MAY_1_MS), endTime: 0 } },
    });
    assert.deepEqual(push, {
      kind: "taskReport",
      envelope: {},
      event: {
        id: "r-1",
        taskEndStatus: 1,
        startTime: String(MAY_1_MS),
        endTime: 0,
        outcome: "stoppedByHand",
        serialNumber: "R1",
        reportKey: "R1/r-1",
        maps: [],
        startTimeIso: MAY_1_ISO,
      },
    });
  });

  it("finds the appId only as a string at the top of an object", () => {
    assert.deepEqual([{ appId: "a" }, { appId: 5 }, {}, null, "appId", ["a"]].map(appIdOf), [
      "a",
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe("pushes: the receiver", () => {
  it("answers 401 to a missing or another appId, and to every body when its own appId is empty", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    assert.deepEqual(receiver.receive({ payload: incident("a", 1).payload }), { status: 401, error: "appId is missing" });
    assert.deepEqual(receiver.receive({ ...incident("a", 1), appId: "app-2" }), { status: 401, error: "appId is not this receiver's" });
    assert.deepEqual(new PushReceiver({ appId: "" }).receive({ ...incident("a", 1), appId: "" }), {
      status: 401,
      error: "appId is not this receiver's",
    });
  });

  it("answers 400 naming the field of a push that names no robot, and remembers nothing of it", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    const receipt = receiver.receive({ appId: APP_ID, payload: { content: { incidentId: "a", incidentStatus: 1 } } });
    assert.equal(receipt.status, 400);
    assert.equal(receipt.status === 400 && receipt.field, "payload.serialNumber");
    assert.ok(
      sentOn(receiver.receive({ appId: APP_ID, payload: { serialNumber: "R1", content: { incidentId: "a", incidentStatus: 1 } } })),
      "the same incident with its robot is new",
    );
  });

  it("sends a task report on once per identity (robot and id, else robot and start); one with neither every time", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    const report = (taskReport: Record<string, unknown>, serialNumber = "R1") => ({ appId: APP_ID, payload: { serialNumber, taskReport } });
    const first = receiver.receive(report({ id: "r-1" }));
    assert.deepEqual(first, { status: 200, push: readPush(report({ id: "r-1" })) });
    assert.deepEqual(receiver.receive(report({ id: "r-1" })), { status: 200, repeated: true });
    assert.ok(sentOn(receiver.receive(report({ id: "r-2" }))), "another report of the same robot");
    assert.ok(sentOn(receiver.receive(report({ id: "r-1" }, "R2"))), "another robot's report with the same id");
    // taskId names the task run, not the report: two runs of one task are two reports.
    assert.ok(sentOn(receiver.receive(report({ taskId: 7, startTime: 1_764_000_000_000 }))));
    assert.ok(sentOn(receiver.receive(report({ taskId: 7, startTime: 1_764_000_900_000 }))), "the same task run again");
    assert.deepEqual(
      receiver.receive(report({ taskId: 7, startTime: 1_764_000_900_000 })),
      { status: 200, repeated: true },
      "no id: the robot and start",
    );
    for (let i = 0; i < 2; i++)
      assert.ok(sentOn(receiver.receive(report({ displayName: "no id" }))), "a report without an id or start is never taken for a repeat");
    for (let i = 0; i < 2; i++)
      assert.ok(sentOn(receiver.receive(report({ id: { nested: true } }))), "nor one whose id is no string or number");
  });

  it("sends a repeated raise on once, and its recovery", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    assert.ok(sentOn(receiver.receive(incident("a", 1))));
    assert.deepEqual(
      receiver.receive(incident("a", 1, { startTime: 2 })),
      { status: 200, repeated: true },
      "the same raise delivered twice",
    );
    assert.ok(sentOn(receiver.receive(incident("a", 0))));
    const otherRobot = {
      appId: APP_ID,
      payload: { serialNumber: "R2", content: { incidentId: "a", incidentStatus: 1, incidentLevel: "H4" } },
    };
    assert.ok(sentOn(receiver.receive(otherRobot)), "another robot's incident with the same id");
  });

  it("sends an incident at exactly the minimum level, and one whose level cannot be read", () => {
    const receiver = new PushReceiver({ appId: APP_ID, minLevelRank: 4 });
    assert.ok(sentOn(receiver.receive(incident("at", 1, { incidentLevel: "H4" }))));
    const unreadable = receiver.receive(incident("odd", 1, { incidentLevel: "H9" }));
    assert.equal(unreadable.status === 200 && unreadable.push?.kind === "incident" && unreadable.push.event.level, undefined);
  });

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

  it("does not send an incident below the minimum level on, but holds it back for the alarms", () => {
    const receiver = new PushReceiver({ appId: APP_ID, minLevelRank: 4 });
    const below = receiver.receive(incident("low", 1, { incidentLevel: "H3" }));
    assert.ok(below.status === 200 && below.belowMinimum && below.push === undefined);
    assert.equal(below.heldBack?.kind === "incident" && below.heldBack.event.incidentId, "low");
    assert.ok(sentOn(receiver.receive(incident("high", 1, { incidentLevel: "H5" }))));
  });

  it('sends on an H0 given as 0 or "0", and drops it below a minimum of 1', () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    for (const [id, level] of [
      ["n", 0],
      ["s", "0"],
    ] as const) {
      const receipt = receiver.receive(incident(id, 1, { incidentLevel: level }));
      assert.equal(
        receipt.status === 200 && receipt.push?.kind === "incident" && receipt.push.event.level?.rank,
        0,
        `level ${JSON.stringify(level)}`,
      );
    }
    const filtered = new PushReceiver({ appId: APP_ID, minLevelRank: 1 });
    const dropped = filtered.receive(incident("n", 1, { incidentLevel: 0 }));
    assert.ok(dropped.status === 200 && dropped.belowMinimum && dropped.push === undefined && dropped.heldBack !== undefined);
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

  it("sends an incident without an id on every time: nothing tells two of them apart", () => {
    const receiver = new PushReceiver({ appId: APP_ID });
    const noId = { appId: APP_ID, payload: { serialNumber: "R1", content: { incidentLevel: "H6", incidentStatus: 1 } } };
    assert.ok(sentOn(receiver.receive(noId)));
    assert.ok(sentOn(receiver.receive(noId)));
  });
});
