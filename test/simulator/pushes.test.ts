/**
 * The simulator's pushes, as the maker's Robot Push Service sends them, to a
 * recording server on loopback: task reports when a task ends, the push
 * target set and changed at run time, duplicated and dropped pushes, failed
 * deliveries that never hold up an answer, and the command-line flags.
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import type { CommandRequest } from "../../src/api/cloud/schemas";
import { CliUsageError, parseCliArgs } from "../../src/simulator/cli";
import { FaultInjector } from "../../src/simulator/faults/faults";
import { DEMO_TOKEN, MAX_PUSHES_IN_FLIGHT, NO_FAULTS, TASK_END_STATUS, startSimulator } from "../../src/simulator";
import { LoopbackServer } from "../support/loopback-server";
import { RecordingServer } from "../support/recording-server";
import { APP_ID, PUSH_PATH, START_MS, control, received, usePushReceiver, waitFor } from "../support/push-receiver";

const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";

function command(serialNumber: string, type: "START_TASK" | "STOP_TASK"): CommandRequest {
  return type === "START_TASK"
    ? {
        serialNumber,
        remoteTaskCommandType: "START_TASK",
        commandParameter: {
          startTaskParameter: {
            cleaningMode: "__middle_cleaning",
            task: { name: "Lobby round", map: "Floor 1", loop: false, loopCount: 1 },
          },
        },
      }
    : { serialNumber, remoteTaskCommandType: "STOP_TASK" };
}

describe("simulator: pushes", function () {
  const push = usePushReceiver();

  /** An incident raised by hand through the control API (one push). */
  const raise = async (level = "H3") => {
    const answer = await control(push.simulator.url, "POST", `robots/${KITCHEN}/incidents`, { incidentLevel: level });
    assert.equal(answer.status, 201, JSON.stringify(answer.json));
    return answer.json;
  };

  describe("task reports", () => {
    it("pushes the report of a task that was started and stopped: the polled fields, times in epoch ms", async () => {
      await push.client.submitCommand(command(LOBBY, "START_TASK"));
      push.clock += 90_000;
      await push.client.submitCommand(command(LOBBY, "STOP_TASK"));
      const [pushed] = await received(push.receiver, 1);
      const request = push.receiver.requests[0]!;
      assert.equal(request.method, "POST");
      assert.equal(request.path, PUSH_PATH);
      assert.match(String(request.headers["content-type"]), /^application\/json\b/);

      const body = pushed as unknown as {
        appId: string;
        pushTime: unknown;
        payload: { serialNumber: string; modelTypeCode: string; taskReport: Record<string, unknown> };
      };
      assert.equal(body.appId, APP_ID);
      assert.equal(body.pushTime, push.clock, "the undocumented extra field, a receiver must tolerate it");
      assert.deepEqual(Object.keys(body).sort(), ["appId", "payload", "pushTime"]);
      assert.equal(body.payload.serialNumber, LOBBY);
      assert.equal(body.payload.modelTypeCode, push.simulator.state.robot(LOBBY)!.model);

      const report = body.payload.taskReport;
      assert.equal(report.taskEndStatus, TASK_END_STATUS.STOPPED);
      assert.equal(typeof report.startTime, "number");
      assert.equal(typeof report.endTime, "number");
      assert.equal(report.startTime, START_MS);
      assert.equal(report.endTime, START_MS + 90_000);
      assert.equal(report.durationSeconds, 90);
      // The same report as the polled one, but for its times.
      const { robotTaskReports } = (await push.client.listTaskReports({ serialNumber: LOBBY, page: 1, pageSize: 1 })) as {
        robotTaskReports: Record<string, unknown>[];
      };
      const polled = robotTaskReports[0]!;
      assert.deepEqual({ ...report, startTime: polled.startTime, endTime: polled.endTime }, polled);
      assert.equal(Date.parse(String(polled.endTime)), report.endTime);
      await waitFor(() => push.simulator.pushes.sent > 0, "the delivery counted");
      await waitFor(
        () => push.lines.some((line) => line.startsWith(`PUSH task report ${LOBBY} to ${push.receiver.url}${PUSH_PATH} 200`)),
        "the log line",
      );
      assert.ok(!push.lines.join("\n").includes(APP_ID), "the appId is a credential: never logged");
    });

    it("ends a task stopped while the emergency stop is pressed with taskEndStatus 2 (error)", async () => {
      await push.client.submitCommand(command(LOBBY, "START_TASK"));
      push.simulator.updateRobot(LOBBY, { emergencyStop: true, taskState: "IDLE" });
      const bodies = await received(push.receiver, 2);
      const report = bodies.map((body) => body.payload.taskReport as { taskEndStatus: number } | undefined).find(Boolean);
      assert.equal(report?.taskEndStatus, TASK_END_STATUS.ERROR);
    });

    it("pushes what time does with nobody polling: a task that ran its time ends with taskEndStatus 0", async () => {
      const receiver = await new RecordingServer().start();
      let clock = START_MS;
      const timed = await startSimulator({
        quiet: true,
        rateLimit: false,
        now: () => clock,
        timing: { taskDurationMs: 60_000 },
        push: { url: receiver.url, appId: APP_ID },
      });
      const client = new RobotClient({ baseUrl: timed.url, auth: { token: DEMO_TOKEN }, retry: { maxRetries: 0 } });
      try {
        await client.submitCommand(command(LOBBY, "START_TASK"));
        clock += 61_000;
        // No request from here on: the push tick brings time up to now.
        const [body] = await received(receiver, 1);
        const report = body!.payload.taskReport as { taskEndStatus: number; startTime: number; endTime: number };
        assert.deepEqual(
          [report.taskEndStatus, report.startTime, report.endTime],
          [TASK_END_STATUS.FINISHED, START_MS, START_MS + 60_000],
          "ended when it ran out, a second before the tick",
        );
      } finally {
        client.close();
        await timed.close();
        await receiver.stop();
      }
    });
  });

  describe("the push target", () => {
    it("is read and set with GET/PUT /_sim/push, moved to another receiver and stopped with {url: null}", async () => {
      const read = await control(push.simulator.url, "GET", "push");
      assert.deepEqual(read.json, {
        url: `${push.receiver.url}${PUSH_PATH}`,
        appId: APP_ID,
        envelope: "documented",
        times: "epochMs",
        sent: push.simulator.pushes.sent,
        failed: 0,
        dropped: 0,
        duplicated: 0,
      });

      const other = await new RecordingServer().start();
      try {
        const moved = await control(push.simulator.url, "PUT", "push", { url: `${other.url}/hook?key=1`, appId: "other-app" });
        assert.equal(moved.status, 200);
        assert.equal(moved.json.url, `${other.url}/hook?key=1`);
        await raise();
        const [body] = await received(other, 1);
        assert.equal(body!.appId, "other-app");
        assert.equal(other.requests[0]!.path, "/hook?key=1");
        assert.equal(push.receiver.requests.length, 0);

        const stopped = await control(push.simulator.url, "PUT", "push", { url: null });
        assert.deepEqual([stopped.status, stopped.json.url, stopped.json.appId], [200, null, null]);
        const answer = await raise();
        assert.equal(answer.pushed, false);
        assert.deepEqual(Object.keys(answer.body as object), ["payload"], "nothing pushed: the payload alone");
        assert.equal(push.simulator.pushes.url, null);
        push.simulator.setPush({ url: `${push.receiver.url}${PUSH_PATH}`, appId: APP_ID });
        await raise();
        await received(push.receiver, 1);
        assert.equal(other.requests.length + push.receiver.requests.length, 2, "nothing went out while pushing was off");
      } finally {
        await other.stop();
      }
    });

    it("refuses a bad target naming the field, and keeps the one it had", async () => {
      for (const [body, message] of [
        [{ url: "ftp://example.com/x", appId: "a" }, /^url: must be an http\(s\) URL/],
        [{ url: 5, appId: "a" }, /^url: must be an http\(s\) URL/],
        [{ url: "http://127.0.0.1:1/x" }, /^appId: is needed with a url/],
        [{ url: "http://127.0.0.1:1/x", appId: " " }, /^appId: must be a non-empty string/],
        [{ url: null, colour: "red" }, /^colour: is not a field/],
        [{ url: "http://127.0.0.1:1/x", appId: "a", envelope: "v2" }, /^envelope: must be "documented" or "typed"/],
        [{ url: "http://127.0.0.1:1/x", appId: "a", times: "seconds" }, /^times: must be "epochMs" or "iso"/],
      ] as const) {
        const refused = await control(push.simulator.url, "PUT", "push", body);
        assert.equal(refused.status, 400, JSON.stringify(body));
        assert.match(String(refused.json.message), message);
      }
      assert.equal((await control(push.simulator.url, "PUT", "push", "{")).status, 400);
      assert.equal((await control(push.simulator.url, "DELETE", "push")).status, 405);
      assert.throws(() => push.simulator.setPush({ url: "not a url", appId: "a" }), /url: must be an http\(s\) URL/);
      assert.equal(push.simulator.pushes.url, `${push.receiver.url}${PUSH_PATH}`);
      await assert.rejects(
        startSimulator({ quiet: true, push: { url: "mailto:x@example.com", appId: "a" } }),
        /url: must be an http\(s\) URL/,
      );
    });
  });

  describe("the shapes of the push service", () => {
    it("sends the newer envelope with RFC 3339 times: messageTypeId, productId the only serial number, a messageId per push; null for not yet", async () => {
      const set = await control(push.simulator.url, "PUT", "push", {
        url: `${push.receiver.url}${PUSH_PATH}`,
        appId: APP_ID,
        envelope: "typed",
        times: "iso",
      });
      assert.deepEqual([set.status, set.json.envelope, set.json.times], [200, "typed", "iso"]);
      await raise("H5");
      await push.client.submitCommand(command(LOBBY, "START_TASK"));
      push.clock += 90_000;
      await push.client.submitCommand(command(LOBBY, "STOP_TASK"));
      const bodies = (await received(push.receiver, 2)) as unknown as Array<Record<string, unknown> & { payload: Record<string, unknown> }>;
      const incident = bodies.find((body) => body.messageTypeId === 1)!;
      const report = bodies.find((body) => body.messageTypeId === 2)!;
      assert.deepEqual(Object.keys(incident).sort(), [
        "appId",
        "messageId",
        "messageTimestamp",
        "messageTypeId",
        "payload",
        "productId",
        "pushTime",
        "traceId",
      ]);
      assert.equal(incident.productId, KITCHEN);
      assert.equal(incident.messageTimestamp, START_MS);
      assert.equal("serialNumber" in incident.payload, false, "the robot only as productId");
      const content = incident.payload.content as { startTime: unknown; endTime: unknown };
      assert.deepEqual([content.startTime, content.endTime], [new Date(START_MS).toISOString(), null]);
      assert.equal(report.productId, LOBBY);
      const taskReport = report.payload.taskReport as { startTime: unknown; endTime: unknown };
      assert.deepEqual(
        [taskReport.startTime, taskReport.endTime],
        [new Date(START_MS).toISOString(), new Date(START_MS + 90_000).toISOString()],
      );
      assert.notEqual(incident.messageId, report.messageId);
    });

    it("pushes a scheduling task's run by hand (messageTypeId 3, always typed) and names a bad field", async () => {
      const answer = await control(push.simulator.url, "POST", `robots/${KITCHEN}/scheduling-tasks`, {
        taskName: "Night",
        scheduleId: "s-1",
      });
      assert.equal(answer.status, 201, JSON.stringify(answer.json));
      const [body] = (await received(push.receiver, 1)) as unknown as Array<Record<string, unknown> & { payload: Record<string, unknown> }>;
      assert.deepEqual([body!.messageTypeId, body!.productId], [3, KITCHEN]);
      assert.deepEqual([body!.payload.taskName, body!.payload.scheduleId, body!.payload.startTime], ["Night", "s-1", START_MS]);
      const refused = await control(push.simulator.url, "POST", `robots/${KITCHEN}/scheduling-tasks`, { taskName: "" });
      assert.equal(refused.status, 400);
      assert.match(String(refused.json.message), /^taskName: must be a non-empty string/);
      assert.equal((await control(push.simulator.url, "POST", "robots/NO-SUCH/scheduling-tasks", {})).status, 404);
      assert.equal((await control(push.simulator.url, "GET", `robots/${KITCHEN}/scheduling-tasks`)).status, 405);
    });
  });

  describe("faults", () => {
    it("delivers each push twice at pushDuplicateRate 1, and none at pushDropRate 1; the counters agree", async () => {
      const set = await control(push.simulator.url, "PUT", "faults", { pushDuplicateRate: 1 });
      assert.deepEqual(set.json, { ...NO_FAULTS, pushDuplicateRate: 1 });
      const before = push.simulator.pushes;
      await raise("H1");
      await raise("H2");
      const bodies = await received(push.receiver, 4);
      await waitFor(() => push.simulator.pushes.sent === before.sent + 4, "4 deliveries counted");
      // Each push's two deliveries come one after the other; two pushes go out side by side.
      const levels = bodies.map((body) => (body.payload.content as { incidentLevel: string }).incidentLevel);
      assert.deepEqual(levels.toSorted(), ["H1", "H1", "H2", "H2"]);
      const h1 = bodies.filter((body) => (body.payload.content as { incidentLevel: string }).incidentLevel === "H1");
      assert.deepEqual(h1[0], h1[1], "the very same body twice");
      assert.equal(push.simulator.pushes.duplicated, before.duplicated + 2);

      push.simulator.setFaults({ pushDuplicateRate: 0, pushDropRate: 1 });
      const dropped = await raise("H3");
      await raise("H4");
      assert.equal(dropped.pushed, false);
      assert.equal(push.simulator.pushes.dropped, before.dropped + 2);
      push.simulator.setFaults({ pushDropRate: 0 });
      await raise("H5");
      const after = await received(push.receiver, 5);
      assert.equal(after.length, 5, "the dropped ones never arrive");
      assert.equal((after[4]!.payload.content as { incidentLevel: string }).incidentLevel, "H5");
      await waitFor(() => push.simulator.pushes.sent === before.sent + 5, "5 deliveries counted");
      assert.equal(push.simulator.pushes.failed, 0);

      const refused = await control(push.simulator.url, "PUT", "faults", { pushDropRate: 2 });
      assert.match(String(refused.json.message), /^pushDropRate: must be a number from 0 to 1/);
    });

    it("rolls the push dice apart from the request and ignore dice, so the fault sequences stay as they were", () => {
      const alone = new FaultInjector({ failRate: 0.5, ignoreRate: 0.5 }, 11);
      const withPushes = new FaultInjector({ failRate: 0.5, ignoreRate: 0.5, pushDropRate: 0.5, pushDuplicateRate: 0.5 }, 11);
      const sequence = (injector: FaultInjector, pushes: boolean) =>
        Array.from({ length: 40 }, () => {
          const pushed = pushes ? injector.pushRoll() : undefined;
          return { ...injector.roll(), ignores: injector.ignores(), dropped: pushed?.drop };
        });
      const plain = sequence(alone, false).map(({ dropped: _dropped, ...rest }) => rest);
      const mixed = sequence(withPushes, true);
      assert.deepEqual(
        mixed.map(({ dropped: _dropped, ...rest }) => rest),
        plain,
      );
      const drops = mixed.filter((roll) => roll.dropped).length;
      assert.ok(drops > 5 && drops < 35, `drops ${drops}`);
    });
  });

  describe("failed deliveries", () => {
    it("counts a 500 and a receiver that is not listening as failed, logs them, and keeps answering", async () => {
      push.receiver.respondWith(() => ({ status: 500, body: { error: "down" } }));
      const before = push.simulator.pushes;
      await raise();
      await waitFor(() => push.simulator.pushes.failed === before.failed + 1, "a failed delivery");
      assert.ok(
        push.lines.some((line) =>
          /^PUSH incident H3 raised GS-S-000102 to http:\/\/127\.0\.0\.1:\d+\/robot-events failed: HTTP 500 \d+ms$/.test(line),
        ),
        push.lines.join("\n"),
      );

      const gone = await new LoopbackServer().start();
      const url = `${gone.url}/nobody`;
      await gone.stop();
      push.simulator.setPush({ url, appId: APP_ID });
      await raise();
      await waitFor(() => push.simulator.pushes.failed === before.failed + 2, "a refused connection");
      assert.ok(
        push.lines.some((line) => line.includes("/nobody failed: ") && /ECONNREFUSED/.test(line)),
        push.lines.join("\n"),
      );
      assert.equal(push.simulator.pushes.sent, before.sent);
      assert.equal((await push.client.getRobotStatus({ serialNumber: KITCHEN })).serialNumber, KITCHEN);
    });

    it("never holds up an answer: a receiver that takes its time does not slow the request that caused the push", async () => {
      push.receiver.respondWith(() => ({ status: 200, delayMs: 1000 }));
      const { sent } = push.simulator.pushes;
      const started = Date.now();
      await raise();
      await push.client.getRobotStatus({ serialNumber: KITCHEN });
      assert.ok(Date.now() - started < 600, `answered after ${Date.now() - started} ms`);
      await received(push.receiver, 1);
      await waitFor(() => push.simulator.pushes.sent === sent + 1, "the slow delivery to end", 5000);
    });

    it(`keeps at most ${MAX_PUSHES_IN_FLIGHT} deliveries on the way: more are failed at once, with one log line`, async () => {
      push.receiver.respondWith(() => ({ status: 200, delayMs: 300 }));
      const before = push.simulator.pushes;
      const extra = 6;
      for (let i = 0; i < (MAX_PUSHES_IN_FLIGHT + extra) / 2; i++) {
        push.simulator.updateRobot(LOBBY, { emergencyStop: true });
        push.simulator.updateRobot(LOBBY, { emergencyStop: false });
      }
      assert.equal(push.simulator.pushes.failed, before.failed + extra);
      assert.equal(push.lines.filter((line) => line.includes("not sent")).length, 1, push.lines.join("\n"));
      await waitFor(() => push.simulator.pushes.sent === before.sent + MAX_PUSHES_IN_FLIGHT, "the deliveries on the way", 5000);
    });

    it("ends the deliveries still on the way on close(), counted as failed", async () => {
      const slow = await new RecordingServer().start();
      slow.respondWith(() => ({ status: 200, delayMs: 10_000 }));
      const closing = await startSimulator({ quiet: true, push: { url: slow.url, appId: APP_ID } });
      try {
        closing.updateRobot(KITCHEN, { online: false });
        await waitFor(() => slow.requests.length === 1, "the push to arrive");
        const started = Date.now();
        await closing.close();
        assert.ok(Date.now() - started < 2000, `close took ${Date.now() - started} ms`);
        assert.deepEqual([closing.pushes.sent, closing.pushes.failed], [0, 1]);
      } finally {
        await slow.stop();
      }
    });
  });

  describe("the command line", () => {
    it("takes --push-url and --push-app-id together, and the push fault rates", () => {
      const command = parseCliArgs([
        "--push-url",
        "https://receiver.example/robot",
        "--push-app-id",
        "app-1",
        "--push-duplicate-rate",
        "0.25",
        "--push-drop-rate",
        "0.1",
      ]);
      assert.equal(command.help, false);
      assert.deepEqual(command.help === false && command.options.push, { url: "https://receiver.example/robot", appId: "app-1" });
      assert.deepEqual(command.help === false && command.options.faults, { pushDuplicateRate: 0.25, pushDropRate: 0.1 });
      const none = parseCliArgs([]);
      assert.equal(none.help === false && "push" in none.options, false);
    });

    for (const [args, message] of [
      [
        ["--push-url", "ftp://receiver.example", "--push-app-id", "a"],
        /^--push-url must be an http\(s\) URL, not "ftp:\/\/receiver.example"$/,
      ],
      [["--push-url", "http://receiver.example"], /^--push-url needs --push-app-id/],
      [["--push-app-id", "a"], /^--push-app-id needs --push-url/],
      [["--push-url", "http://receiver.example", "--push-app-id", " "], /^--push-app-id must be a non-empty string/],
      [["--push-drop-rate", "2"], /^--push-drop-rate must be a number from 0 to 1, not "2"$/],
      [["--push-duplicate-rate", "x"], /^--push-duplicate-rate must be a number from 0 to 1/],
    ] as const) {
      it(`refuses ${args.join(" ")}`, () => {
        assert.throws(
          () => parseCliArgs([...args]),
          (error: unknown) => error instanceof CliUsageError && message.test(error.message),
        );
      });
    }
  });
});
