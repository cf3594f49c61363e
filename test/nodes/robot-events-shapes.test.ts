/**
 * robot-events takes every shape the cloud's push service sends, through
 * Node-RED's real HTTP server for flows: the newer envelope (messageTypeId,
 * productId, messageId), times as epoch ms, digit strings or RFC 3339 text,
 * a real task report in the polled shape, scheduling tasks on output 3, and
 * one message per push across envelopes. Then the simulator sends each shape
 * to the node.
 */
import assert from "node:assert/strict";
import robotEvents from "../../src/nodes/robot-events/robot-events";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { RobotClient } from "../../src/api/client";
import { HttpNodeServer } from "../support/http-node";
import { collectMessages, helper, recordStatuses, useNodeRed, waitFor } from "../support/node-red";
import { rawRequest } from "../support/raw-http";
import { APP_ID, INCIDENT_CONTENT, PATH, RECORDED_TASK_REPORT, SERIAL, eventsFlow, incidentPush, reportPush } from "../support/robot-events";

/** An incident in the newer envelope, as a public client documents one: the robot only as productId, ISO times, no end yet. */
function typedIncident(messageId: string, content: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    appId: APP_ID,
    messageTypeId: 1,
    productId: SERIAL,
    messageId,
    traceId: `trace-${messageId}`,
    messageTimestamp: 1_764_000_000_250,
    payload: { content: { ...INCIDENT_CONTENT, startTime: "2025-11-24T16:00:00Z", endTime: null, ...content } },
  };
}

const typedReport = (messageId: string, report: Record<string, unknown>) => ({ appId: APP_ID, messageTypeId: 2, productId: SERIAL, messageId, payload: { taskReport: report } });

describe("robot-events: every shape the cloud pushes", function () {
  this.timeout(20_000);
  const http = new HttpNodeServer();
  before(() => http.start());
  after(() => http.stop());
  useNodeRed();

  async function deploy() {
    await helper.load(http.serving(robotEvents) as never, eventsFlow(), { events: { appId: APP_ID } });
    return { incidents: collectMessages("incidents"), reports: collectMessages("reports"), scheduling: collectMessages("scheduling") };
  }
  const post = async (body: unknown) => {
    const answer = await rawRequest(http.url, "POST", PATH, { body });
    assert.equal(answer.status, 200, answer.text);
  };
  /** Lets what was answered travel through the flow, so that a message sent twice would show. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

  it("takes an incident in the newer envelope: the robot from productId, ISO times read, endTime null as not yet, the envelope in msg.push", async () => {
    const { incidents, reports, scheduling } = await deploy();
    await post(typedIncident("m-1"));
    await waitFor(() => incidents.length === 1, 2000, "the incident");
    const msg = incidents[0]!;
    const payload = msg.payload as Record<string, unknown>;
    assert.equal(msg.topic, SERIAL);
    assert.equal(msg.pushType, "incident");
    assert.equal(payload.serialNumber, SERIAL);
    assert.equal(payload.raised, true);
    assert.equal(payload.startTimeIso, "2025-11-24T16:00:00.000Z");
    assert.equal(payload.endTime, null, "kept as sent");
    assert.equal(payload.endTimeIso, undefined);
    assert.deepEqual(msg.push, { messageTypeId: 1, productId: SERIAL, messageId: "m-1", traceId: "trace-m-1", messageTimestamp: 1_764_000_000_250 });
    assert.ok(!JSON.stringify(msg).includes(APP_ID), "never the appId");
    assert.equal(msg.openAlarms, 1);
    await settle();
    assert.equal(reports.length + scheduling.length, 0);
  });

  it("takes a real task report in the polled shape (RFC 3339 times) and converts its times; the same report in the newer envelope is the same message", async () => {
    const { reports } = await deploy();
    await post({ appId: APP_ID, payload: { serialNumber: SERIAL, modelTypeCode: "S50", taskReport: RECORDED_TASK_REPORT } });
    await post(typedReport("m-report", RECORDED_TASK_REPORT));
    await waitFor(() => reports.length === 1, 2000, "the report");
    await settle();
    assert.equal(reports.length, 1, "one report, however it was wrapped");
    const payload = reports[0]!.payload as Record<string, unknown>;
    assert.equal(payload.startTimeIso, "2025-02-26T01:14:07.118Z");
    assert.equal(payload.endTimeIso, "2025-02-26T01:52:15.000Z");
    assert.equal(payload.startTime, RECORDED_TASK_REPORT.startTime, "the text as sent");
    assert.deepEqual([payload.outcome, payload.cleaningKind], ["stoppedByHand", "scrub"]);
    assert.deepEqual(payload.subTasks, RECORDED_TASK_REPORT.subTasks);
    assert.deepEqual(payload.consumablesResidualPercentage, RECORDED_TASK_REPORT.consumablesResidualPercentage);
    assert.equal(payload.modelTypeCode, "S50");
  });

  it("reads times as epoch ms, digit strings or ISO text with an offset; null and 0 are not yet; unreadable text is kept, never refused", async () => {
    const { reports } = await deploy();
    const times: Array<[unknown, string | undefined]> = [
      [1_764_000_000_000, "2025-11-24T16:00:00.000Z"],
      ["1764000000000", "2025-11-24T16:00:00.000Z"],
      ["2025-11-25T00:00:00+08:00", "2025-11-24T16:00:00.000Z"],
      ["2025-11-24T16:00:00.123456789Z", "2025-11-24T16:00:00.123Z"],
      [null, undefined],
      [0, undefined],
      ["yesterday", undefined],
    ];
    for (const [index, [startTime]] of times.entries()) await post(reportPush({ id: `report-${index}`, startTime, endTime: 0 }));
    await waitFor(() => reports.length === times.length, 2000, "every report");
    assert.deepEqual(reports.map((msg) => (msg.payload as { startTimeIso?: string }).startTimeIso), times.map(([, iso]) => iso));
    assert.ok(reports.every((msg) => (msg.payload as { endTimeIso?: string }).endTimeIso === undefined));
    assert.equal((reports.at(-1)!.payload as { startTime: string }).startTime, "yesterday");
  });

  it("sends a scheduling task (messageTypeId 3) on output 3 as sent, once per messageId; a push of an unknown kind goes there too", async () => {
    const { incidents, reports, scheduling } = await deploy();
    const run = { appId: APP_ID, messageTypeId: 3, productId: SERIAL, messageId: "m-3", payload: { scheduleId: "s-9", taskName: "Night scrub", startTime: 1_764_000_000_000 } };
    await post(run);
    await post(run);
    await post({ appId: APP_ID, messageTypeId: 7, productId: SERIAL, payload: { something: "new" } });
    await waitFor(() => scheduling.length === 2, 2000, "the scheduling task and the other push");
    await settle();
    assert.equal(scheduling.length, 2);
    assert.deepEqual(
      scheduling.map((msg) => msg.pushType),
      ["schedulingTask", "other"],
    );
    const payload = scheduling[0]!.payload as Record<string, unknown>;
    assert.deepEqual([payload.serialNumber, payload.scheduleId, payload.taskName, payload.startTimeIso], [SERIAL, "s-9", "Night scrub", "2025-11-24T16:00:00.000Z"]);
    assert.equal((scheduling[1]!.payload as { something: string }).something, "new");
    assert.equal(incidents.length + reports.length, 0);
  });

  it("one message per push across shapes: an incident in the documented and the newer envelope is one; two messageIds are two", async () => {
    const { incidents } = await deploy();
    const startTime = 1_764_000_000_000;
    await post(incidentPush({ startTime }));
    await post(typedIncident("m-a", { startTime }));
    await post(typedIncident("m-a", { startTime }));
    // Newer envelope first, then the documented one.
    await post(typedIncident("m-b", { incidentId: "inc-2" }));
    await post(incidentPush({ incidentId: "inc-2" }));
    // The service says these are two messages: both are sent on.
    await post(typedIncident("m-c", { incidentId: "inc-3" }));
    await post(typedIncident("m-d", { incidentId: "inc-3" }));
    await waitFor(() => incidents.length === 4, 2000, "four incidents");
    await settle();
    assert.deepEqual(
      incidents.map((msg) => (msg.payload as { incidentId: string }).incidentId),
      ["inc-1", "inc-2", "inc-3", "inc-3"],
    );
  });

  it("passes on an incident whose status is neither raised nor recovered, or that has no id, but opens no alarm with it", async () => {
    const { incidents } = await deploy();
    const statuses = recordStatuses("events");
    const odd = [
      { incidentId: "odd-1", incidentStatus: 5, endTime: 0 },
      { incidentId: "odd-2", incidentStatus: "?", endTime: 0 },
      { incidentId: "odd-3", incidentStatus: null, endTime: 0 },
      { incidentId: undefined, incidentStatus: 1 },
      { incidentId: " ", incidentStatus: 1 },
    ];
    for (const content of odd) await post(incidentPush(content));
    await waitFor(() => incidents.length === odd.length, 2000, "every odd incident passed on");
    const read = incidents.map((msg) => {
      const payload = msg.payload as { incidentState: string; raised: boolean };
      return [payload.incidentState, payload.raised, msg.openAlarms];
    });
    assert.deepEqual(read, [
      ["unknown", false, 0],
      ["unknown", false, 0],
      ["unknown", false, 0],
      ["raised", true, 0],
      ["raised", true, 0],
    ]);
    assert.ok(!statuses.some((status) => /\d+ alarms? open/.test(status.text ?? "")), JSON.stringify(statuses));
    // At the boundary: status 1 with an id opens one, and a status neither 1 nor 0 for that id does not close it; 0 does.
    await post(incidentPush({ incidentId: "alarm-1", incidentStatus: 1 }));
    await waitFor(() => statuses.at(-1)?.text === "/robot-events: 1 alarm open", 2000, "the alarm raised with status 1");
    await post(incidentPush({ incidentId: "alarm-1", incidentStatus: 2, endTime: 1_764_000_090_000 }));
    await waitFor(() => incidents.length === odd.length + 2, 2000, "the odd status passed on");
    assert.equal(incidents.at(-1)!.openAlarms, 1, "status 2 closes nothing");
    await post(incidentPush({ incidentId: "alarm-1", incidentStatus: 0, endTime: 1_764_000_090_000 }));
    await waitFor(() => statuses.at(-1)?.text === "/robot-events: no alarm open", 2000, "the alarm recovered with status 0");
  });

  describe("from the simulator, in each of its push shapes", function () {
    let simulator: RunningSimulator;
    let client: RobotClient;
    before(async () => {
      simulator = await startSimulator({ quiet: true, rateLimit: false, timing: { commandDelayMs: 0 } });
      client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN }, retry: { maxRetries: 0 } });
    });
    after(async () => {
      client.close();
      await simulator.close();
    });

    for (const [envelope, times] of [
      ["documented", "epochMs"],
      ["typed", "iso"],
    ] as const) {
      it(`${envelope} envelope, times as ${times}: an incident, a task report and (always typed) a scheduling task arrive once each, times read`, async () => {
        const { incidents, reports, scheduling } = await deploy();
        simulator.setPush({ url: `${http.url}${PATH}`, appId: APP_ID, envelope, times });
        simulator.reset();
        const serial = "GS-S-000102";
        const raised = await rawRequest(simulator.url, "POST", `/_sim/robots/${serial}/incidents`, { body: { incidentLevel: "H5" } });
        assert.equal(raised.status, 201, raised.text);
        await client.submitCommand({
          serialNumber: serial,
          remoteTaskCommandType: "START_TASK",
          commandParameter: { startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Kitchen", map: "Floor 1", loop: false, loopCount: 1 } } },
        });
        await waitFor(() => simulator.state.status(serial)?.taskState === "RUNNING", 3000, "the task to start");
        await client.submitCommand({ serialNumber: serial, remoteTaskCommandType: "STOP_TASK" });
        const scheduled = await rawRequest(simulator.url, "POST", `/_sim/robots/${serial}/scheduling-tasks`, { body: { taskName: "Night" } });
        assert.equal(scheduled.status, 201, scheduled.text);
        await waitFor(() => incidents.length === 1 && reports.length === 1 && scheduling.length === 1, 3000, "the three pushes");
        await settle();
        assert.deepEqual([incidents.length, reports.length, scheduling.length], [1, 1, 1]);
        const incident = incidents[0]!.payload as Record<string, unknown>;
        const report = reports[0]!.payload as Record<string, unknown>;
        assert.equal(incident.serialNumber, serial);
        assert.equal(typeof incident.startTimeIso, "string");
        assert.equal(incident.endTimeIso, undefined, "still raised");
        assert.equal(incident.endTime, times === "iso" ? null : 0);
        assert.equal(report.serialNumber, serial);
        assert.equal(Date.parse(String(report.endTimeIso)) >= Date.parse(String(report.startTimeIso)), true);
        assert.equal(typeof report.startTime, times === "iso" ? "string" : "number");
        assert.equal((incidents[0]!.push as { messageTypeId?: number }).messageTypeId, envelope === "typed" ? 1 : undefined);
        assert.equal((scheduling[0]!.payload as { taskName: string }).taskName, "Night");
        assert.equal(scheduling[0]!.pushType, "schedulingTask");
      });
    }
  });
});
