/**
 * No secret leaves through an error: not the access token, not the client
 * secret, not the access key secret; not in the message, the stack,
 * JSON.stringify, String() or util.inspect; also when the server echoes them
 * back and for transport failures.
 */
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { RobotClient } from "../../src/api/client";
import { RobotApiError } from "../../src/api/errors";
import { type ScriptedReply } from "../support/recording-server";
import { RecordingServer } from "../support/recording-server";
import { failureOf } from "../support/failures";
import { useClientOnRecordingServer } from "../support/client-on-server";

const TOKEN = "tok-7f3a9c2e-SECRET-5b81";
const CREDENTIALS = { clientId: "client-public-id", clientSecret: "cs-e4d2b7-SECRET-0c19", accessKeySecret: "aks-91f0aa-SECRET-77d3" };
const GRANTED = "granted-3b7e11-SECRET-a2c4";
const GRANT_PATH = "/gas/api/v1alpha1/oauth/token";
const SN = "GS-S-000101";
const ALL_SECRETS = [TOKEN, CREDENTIALS.clientSecret, CREDENTIALS.accessKeySecret, GRANTED];

/** Every way an error is commonly shown; not even the first half of a secret may appear. */
function assertNoSecret(error: RobotApiError): void {
  const views = {
    message: error.message,
    stack: error.stack ?? "",
    json: JSON.stringify(error),
    string: String(error),
    inspect: inspect(error, { depth: 5, showHidden: true }),
  };
  for (const secret of ALL_SECRETS) {
    const half = secret.slice(0, Math.ceil(secret.length / 2));
    for (const [view, text] of Object.entries(views)) {
      assert.ok(!text.includes(half), `${view} shows (part of) ${secret}: ${text}`);
    }
  }
}

describe("api: secrets never appear in errors", function () {
  // Generous: an answer must never look like a timeout because a loaded machine was slow to read it.
  const stub = useClientOnRecordingServer({ auth: { token: TOKEN }, timeoutMs: 10_000, retry: { maxRetries: 1, baseDelayMs: 1 } });

  const echoes: { name: string; reply: ScriptedReply; kind: string }[] = [
    {
      name: "401 echoing the token in message",
      reply: { status: 401, body: { code: 16, message: `token ${TOKEN} has expired` } },
      kind: "http",
    },
    {
      name: "403 echoing the bearer header in msg",
      reply: { status: 403, body: { code: 7, msg: `Authorization: Bearer ${TOKEN} denied` } },
      kind: "http",
    },
    {
      name: "500 non-JSON echoing the request",
      reply: { status: 500, body: `Bearer ${TOKEN}\nAuthorization failed for ${TOKEN}` },
      kind: "http",
    },
    {
      // Without redaction before truncation, the 200-character cut would leave half the token behind.
      name: "500 non-JSON with the token across the 200-character cut",
      reply: { status: 500, body: `${"x".repeat(190)}${TOKEN} trailing` },
      kind: "http",
    },
    { name: "error body under HTTP 200 echoing the token", reply: { body: { code: 16, message: `bad token ${TOKEN}` } }, kind: "envelope" },
    {
      name: "429 echoing the token (after retries)",
      reply: { status: 429, body: { message: TOKEN }, headers: { "Retry-After": "0" } },
      kind: "http",
    },
  ];
  for (const { name, reply, kind } of echoes) {
    it(`${name}`, async function () {
      stub.server.respondWith(() => reply);
      const error = await failureOf(stub.client.getRobotStatus({ serialNumber: SN }));
      assert.equal(error.kind, kind);
      assert.match(error.message, /\*\*\*/, "the echoed secret is replaced, the rest of the message kept");
      assertNoSecret(error);
      assert.equal(stub.server.requests[0]!.headers.authorization, `Bearer ${TOKEN}`, "the token was really sent");
    });
  }

  it("envelope msg echoing the token", async function () {
    stub.server.reply({ body: { code: 7, msg: `PERMISSION_DENIED for ${TOKEN}`, data: [] } });
    const error = await failureOf(stub.client.listMaps({ robotSn: SN }));
    assert.equal(error.kind, "envelope");
    assert.match(error.message, /PERMISSION_DENIED for \*\*\*/);
    assertNoSecret(error);
  });

  const transport: { name: string; reply: ScriptedReply; kind: string; timeoutMs?: number }[] = [
    { name: "dropped connection", reply: { drop: true }, kind: "network" },
    // The answer comes 2 s after the 200 ms timeout: both timers run in this process, so load cannot reorder them.
    { name: "timeout", reply: { body: {}, delayMs: 2000 }, kind: "timeout", timeoutMs: 200 },
    { name: "non-JSON 200", reply: { body: `<p>${TOKEN}</p>` }, kind: "bad_response" },
    {
      name: "answer failing the schema",
      reply: { body: { code: 0, msg: "SUCCESS", data: [{ mapId: TOKEN, mapName: 1 }] } },
      kind: "bad_response",
    },
  ];
  for (const { name, reply, kind, timeoutMs } of transport) {
    it(`${name}`, async function () {
      // Every attempt gets the same answer: a read is sent again after a dropped connection.
      stub.server.respondWith(() => reply);
      const client = timeoutMs
        ? new RobotClient({ baseUrl: stub.server.url, auth: { token: TOKEN }, timeoutMs, retry: { maxRetries: 1, baseDelayMs: 1 } })
        : stub.client;
      const error = await failureOf(client.listMaps({ robotSn: SN })).finally(() => client !== stub.client && client.close());
      assert.equal(error.kind, kind);
      assertNoSecret(error);
    });
  }

  it("connection refused", async function () {
    const closed = await new RecordingServer().start();
    const url = closed.url;
    await closed.stop();
    const error = await failureOf(new RobotClient({ baseUrl: url, auth: { token: TOKEN } }).listMaps({ robotSn: SN }));
    assert.equal(error.kind, "network");
    assertNoSecret(error);
  });

  it("aborted mid-request", async function () {
    const controller = new AbortController();
    stub.server.reply({ body: {}, delayMs: 1000 });
    const slow = new RobotClient({ baseUrl: stub.server.url, auth: { token: TOKEN } });
    const pending = failureOf(slow.getRobotStatus({ serialNumber: SN }, { signal: controller.signal }));
    while (stub.server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    controller.abort();
    const error = await pending;
    assert.equal(error.kind, "aborted");
    assertNoSecret(error);
  });

  describe("a token of one to three characters, found in any answer's own text", function () {
    // Each also stands in every answer below: a letter and a digit in its values, a brace and a quote in its JSON, "id" in a name.
    const SHORT_TOKENS = ["a", "1", "id", "{", '"'];
    const MAPS = [{ mapId: "map-1", mapName: 'Hall {a} "id" 1' }];

    for (const token of SHORT_TOKENS) {
      describe(`the token ${JSON.stringify(token)}`, function () {
        let client: RobotClient;
        beforeEach(() => {
          client = new RobotClient({ baseUrl: stub.server.url, auth: { token }, retry: { maxRetries: 0 } });
        });
        afterEach(() => client.close());

        it("leaves a successful answer intact", async function () {
          stub.server.reply({ body: { code: 0, msg: "SUCCESS", data: MAPS } });
          const maps = await client.listMaps({ robotSn: SN });
          assert.deepEqual(maps, MAPS);
          assert.equal(stub.server.requests[0]!.headers.authorization, `Bearer ${token}`, "the token was really sent");
        });

        // The envelope is listMaps' (a map endpoint); the others are getRobotStatus's, whose answers have none.
        const quoting: { name: string; reply: ScriptedReply; operation: "getRobotStatus" | "listMaps" }[] = [
          {
            name: "a JSON error body",
            reply: { status: 401, body: { code: 16, message: `token [${token}] has expired` } },
            operation: "getRobotStatus",
          },
          {
            name: "a non-JSON error body",
            reply: { status: 500, body: `Authorization failed for [${token}]` },
            operation: "getRobotStatus",
          },
          {
            name: "an error body under HTTP 200",
            reply: { body: { code: 16, message: `bad token [${token}]` } },
            operation: "getRobotStatus",
          },
          {
            name: "an envelope's msg",
            reply: { body: { code: 7, msg: `PERMISSION_DENIED for [${token}]`, data: [] } },
            operation: "listMaps",
          },
        ];
        for (const { name, reply, operation } of quoting) {
          it(`shows *** where ${name} quotes it`, async function () {
            stub.server.reply(reply);
            const called = operation === "listMaps" ? client.listMaps({ robotSn: SN }) : client.getRobotStatus({ serialNumber: SN });
            const error = await failureOf(called);
            assert.match(error.message, /\[\*\*\*\]/, error.message);
            assert.ok(!error.message.includes(`[${token}]`), error.message);
            assert.ok(error.message.startsWith(`${operation}: `), `the package's own words are kept: ${error.message}`);
          });
        }
      });
    }
  });

  describe("client credentials", function () {
    const newClient = () => new RobotClient({ baseUrl: stub.server.url, auth: CREDENTIALS, retry: { maxRetries: 0 } });

    it("a failed grant echoing the client secret and the access key secret", async function () {
      stub.server.reply({
        status: 400,
        body: { code: 3, message: `Invalid open access key ${CREDENTIALS.accessKeySecret} for secret ${CREDENTIALS.clientSecret}` },
      });
      const error = await failureOf(newClient().getRobotStatus({ serialNumber: SN }));
      assert.equal(error.operation, "grantToken");
      assert.match(error.message, /Invalid open access key \*\*\* for secret \*\*\*/);
      assertNoSecret(error);
      assert.equal(
        (stub.server.requests[0]!.body as { client_secret?: string }).client_secret,
        CREDENTIALS.clientSecret,
        "the secret was really sent",
      );
    });

    it("a failed grant whose non-JSON body echoes the credentials", async function () {
      stub.server.reply({
        status: 500,
        body: `grant_type=...&client_secret=${CREDENTIALS.clientSecret}&open_access_key=${CREDENTIALS.accessKeySecret}`,
      });
      const error = await failureOf(newClient().getRobotStatus({ serialNumber: SN }));
      assertNoSecret(error);
    });

    it("a granted token echoed in the final 401", async function () {
      stub.server.respondWith((request) =>
        request.path === GRANT_PATH
          ? { body: { access_token: GRANTED, expires_in: 86_400 } }
          : { status: 401, body: { code: 16, message: `token ${GRANTED} revoked` } },
      );
      const error = await failureOf(newClient().getRobotStatus({ serialNumber: SN }));
      assert.equal(error.status, 401);
      assert.equal(stub.server.requests.length, 4, "grant, call, re-grant, resend");
      assertNoSecret(error);
    });

    it("a dropped connection after a grant", async function () {
      stub.server.reply({ body: { access_token: GRANTED, expires_in: 86_400 } }).respondWith(() => ({ drop: true }));
      const error = await failureOf(newClient().getRobotStatus({ serialNumber: SN }));
      assert.equal(error.kind, "network");
      assertNoSecret(error);
    });
  });
});
