/**
 * Retries: only "slow down" answers (envelope code 8, HTTP 429) are sent again,
 * at most maxRetries times, honouring Retry-After up to maxDelayMs. Anything
 * that may have reached the robot (500, timeout, dropped connection) is
 * reported once, never re-sent: a robot command must not run twice.
 * Counts and order are asserted, never timings.
 */
import assert from "node:assert/strict";
import { RobotClient, type RetryOptions } from "../../src/api/client";
import { useRecordingServer, type ScriptedReply } from "../support/recording-server";
import { failureOf } from "../support/failures";

const TOKEN = "tok-retries-81f0";
const SN = "GS-S-000101";
const COMMAND = {
  serialNumber: SN,
  remoteControlCommandType: "REMOTE_CONTROL_MOVE",
  commandParameter: { controlMovingParameter: { direction: "FORWARD" } },
} as const;
const RESOURCE = { name: `robots/${SN}/commands/1`, state: "WAITING", rawCommandType: "remote_control_move" };
const MAPS = [{ mapId: "m-1", mapName: "Floor 1" }];
/** So long that a test relying on it would hit mocha's timeout: proves Retry-After replaced the backoff. */
const HOUR_MS = 3_600_000;

const rateLimited: ScriptedReply = { status: 429, body: { code: 8, message: "too many requests" }, headers: { "Retry-After": "0" } };
const envelope8: ScriptedReply = { body: { code: 8, msg: "RESOURCE_EXHAUSTED", data: [] }, headers: { "Retry-After": "0" } };

describe("api: retries", function () {
  const stub = useRecordingServer();
  // Generous: an answer must never look like a timeout because a loaded machine was slow to read it.
  const clientWith = (retry: RetryOptions, timeoutMs = 10_000) =>
    new RobotClient({ baseUrl: stub.server.url, auth: { token: TOKEN }, timeoutMs, retry });

  for (const maxRetries of [0, 1, 3]) {
    it(`HTTP 429 is sent maxRetries+1 = ${maxRetries + 1} times, then reported`, async function () {
      stub.server.respondWith(() => rateLimited);
      const error = await failureOf(clientWith({ maxRetries, baseDelayMs: HOUR_MS }).submitCommand(COMMAND));
      assert.equal(error.kind, "http");
      assert.equal(error.status, 429);
      assert.equal(error.isRateLimited, true);
      assert.equal(error.retryAfterSeconds, 0);
      assert.equal(stub.server.requests.length, maxRetries + 1);
      // Each retry is the same request again.
      for (const request of stub.server.requests) {
        assert.equal(request.path, `/v1alpha1/robots/${SN}/commands`);
        assert.equal(request.rawBody, stub.server.requests[0]!.rawBody);
      }
    });

    it(`envelope code 8 is sent maxRetries+1 = ${maxRetries + 1} times, then reported`, async function () {
      stub.server.respondWith(() => envelope8);
      const error = await failureOf(clientWith({ maxRetries, baseDelayMs: HOUR_MS }).listMaps({ robotSn: SN }));
      assert.equal(error.kind, "envelope");
      assert.equal(error.code, "RESOURCE_EXHAUSTED");
      assert.equal(stub.server.requests.length, maxRetries + 1);
    });
  }

  it("the default is three retries", async function () {
    stub.server.respondWith(() => rateLimited);
    const client = new RobotClient({ baseUrl: stub.server.url, auth: { token: TOKEN } });
    await failureOf(client.listMaps({ robotSn: SN }));
    assert.equal(stub.server.requests.length, 4);
  });

  it("a retry that succeeds returns the later answer (429, then code 8 in a google.rpc-like body)", async function () {
    stub.server.reply(rateLimited, { body: { code: 8, message: "slow down" }, headers: { "Retry-After": "0" } }, { body: RESOURCE });
    const result = await clientWith({ maxRetries: 3, baseDelayMs: HOUR_MS }).submitCommand(COMMAND);
    assert.deepEqual(result, RESOURCE);
    assert.equal(stub.server.requests.length, 3);
  });

  it("without Retry-After the exponential backoff (small base delay) is used", async function () {
    stub.server.reply({ status: 429, body: {} }, { status: 429, body: {} }, { body: { code: 0, msg: "SUCCESS", data: MAPS } });
    const result = await clientWith({ maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 }).listMaps({ robotSn: SN });
    assert.deepEqual(result, MAPS);
    assert.equal(stub.server.requests.length, 3);
  });

  it("a Retry-After longer than maxRetryWaitMs fails at once, saying how long the cloud asked for", async function () {
    stub.server.reply({ status: 429, body: {}, headers: { "Retry-After": "3600" } }, { body: { code: 0, msg: "SUCCESS", data: MAPS } });
    const error = await failureOf(clientWith({ maxRetries: 3, maxRetryWaitMs: 60_000 }).listMaps({ robotSn: SN }));
    assert.equal(error.status, 429);
    assert.equal(error.retryAfterSeconds, 3600);
    assert.equal(stub.server.requests.length, 1);
  });

  it("a Retry-After within maxRetryWaitMs is waited out in full, not cut to maxDelayMs", async function () {
    stub.server.reply({ status: 429, body: {}, headers: { "Retry-After": "1" } }, { body: { code: 0, msg: "SUCCESS", data: MAPS } });
    const client = clientWith({ maxRetries: 1, baseDelayMs: 1, maxDelayMs: 5 });
    const result = client.listMaps({ robotSn: SN });
    assert.deepEqual(await result, MAPS);
    assert.equal(stub.server.requests.length, 2);
    // A lower bound only (a loaded machine makes the gap longer, never shorter): cut to 5 ms, it would be a few ms.
    const gapMs = stub.server.requests[1]!.at - stub.server.requests[0]!.at;
    assert.ok(gapMs >= 950, `the retry came ${gapMs.toFixed(0)} ms after the 429 asking for 1 s`);
  });

  it("a Retry-After given as an HTTP date is honoured (a past date: retry now)", async function () {
    stub.server.reply(
      { status: 429, body: {}, headers: { "Retry-After": new Date(Date.now() - 60_000).toUTCString() } },
      { body: { code: 0, msg: "SUCCESS", data: MAPS } },
    );
    assert.deepEqual(await clientWith({ maxRetries: 1, baseDelayMs: HOUR_MS }).listMaps({ robotSn: SN }), MAPS);
    assert.equal(stub.server.requests.length, 2);
  });

  it("the Retry-After value is on the reported error", async function () {
    stub.server.respondWith(() => ({ status: 429, body: {}, headers: { "Retry-After": "120" } }));
    const error = await failureOf(clientWith({ maxRetries: 0 }).listMaps({ robotSn: SN }));
    assert.equal(error.retryAfterSeconds, 120);
    assert.equal(stub.server.requests.length, 1);
  });

  describe("never re-sent: the robot may already have the command", function () {
    const cases: { name: string; reply: ScriptedReply; kind: string; timeoutMs?: number }[] = [
      { name: "HTTP 500", reply: { status: 500, body: { code: 13, message: "internal" } }, kind: "http" },
      { name: "HTTP 503", reply: { status: 503, body: "unavailable" }, kind: "http" },
      { name: "envelope-like code 13 under HTTP 200", reply: { body: { code: 13, message: "internal" } }, kind: "envelope" },
      // The answer comes 2 s after the 200 ms timeout: both timers run in this process, so load cannot reorder them.
      { name: "a timeout", reply: { body: RESOURCE, delayMs: 2000 }, kind: "timeout", timeoutMs: 200 },
      { name: "a dropped connection", reply: { drop: true }, kind: "network" },
      { name: "a malformed answer", reply: { body: "not json" }, kind: "bad_response" },
    ];
    for (const { name, reply, kind, timeoutMs } of cases) {
      it(`submitCommand after ${name}: exactly one request`, async function () {
        stub.server.respondWith(() => reply);
        const error = await failureOf(clientWith({ maxRetries: 3, baseDelayMs: 1 }, timeoutMs).submitCommand(COMMAND));
        assert.equal(error.kind, kind);
        assert.equal(stub.server.requests.length, 1);
      });
    }
  });

  it("a 401 with a static token is reported at once, not retried", async function () {
    stub.server.respondWith(() => ({ status: 401, body: { code: 16, message: "token expired" } }));
    const error = await failureOf(clientWith({ maxRetries: 3, baseDelayMs: 1 }).submitCommand(COMMAND));
    assert.equal(error.kind, "http");
    assert.equal(error.status, 401);
    assert.equal(error.code, "UNAUTHENTICATED");
    assert.equal(stub.server.requests.length, 1);
  });
});
