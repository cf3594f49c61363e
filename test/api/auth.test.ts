/**
 * The open-access token grant: the exact grant request, reading expires_in by
 * magnitude, renewal before expiry (on an injected clock), one re-grant and
 * one resend after a 401, one shared grant for concurrent calls, and a failed
 * grant that is reported and not cached.
 */
import assert from "node:assert/strict";
import { ClientCredentialsTokenSource, StaticTokenSource, expiryFromExpiresIn } from "../../src/api/account/auth";
import { RobotClient } from "../../src/api/client";
import { OPEN_ACCESS_GRANT_TYPE, type TokenAnswer, type TokenRequest } from "../../src/api/cloud/schemas";
import { useRecordingServer, type RecordedRequest, type ScriptedReply } from "../support/recording-server";
import { failureOf } from "../support/failures";

const GRANT_PATH = "/gas/api/v1alpha1/oauth/token";
const SN = "GS-S-000101";
const STATUS_PATH = `/openapi/v2alpha1/s/robots/${SN}/status`;
const CREDENTIALS = { clientId: "client-7", clientSecret: "cs-auth-4411", accessKeySecret: "aks-auth-9922" };
const STATUS = { serialNumber: SN, taskState: "IDLE", online: true };
const DAY_S = 86_400;

describe("api: expiryFromExpiresIn reads expires_in by magnitude", function () {
  const now = 1_760_000_000_000;
  const cases: [string, number | string | undefined, number | undefined][] = [
    ["epoch milliseconds (what the real cloud sends)", 1772804832183, 1772804832183],
    ["epoch milliseconds as a string (int64)", "1772804832183", 1772804832183],
    ["epoch seconds", 1772804832, 1772804832000],
    ["epoch seconds as a string", "1772804832", 1772804832000],
    ["relative seconds", 3600, now + 3_600_000],
    ["relative seconds as a string", "86400", now + 86_400_000],
    ["a day in seconds, still relative", DAY_S, now + DAY_S * 1000],
    ["missing", undefined, undefined],
    ["empty string", "", undefined],
    ["not a number", "soon", undefined],
    ["zero", 0, undefined],
    ["negative", -60, undefined],
    ["NaN", Number.NaN, undefined],
    ["infinite", Number.POSITIVE_INFINITY, undefined],
  ];
  for (const [name, expiresIn, expected] of cases) {
    it(`${name}: ${String(expiresIn)} -> ${String(expected)}`, function () {
      assert.equal(expiryFromExpiresIn(expiresIn, now), expected);
    });
  }
});

describe("api: ClientCredentialsTokenSource on an injected clock", function () {
  const t0 = 1_760_000_000_000;
  let clock = t0;
  let grants: TokenRequest[] = [];
  let answers: (Partial<TokenAnswer> | Error)[] = [];

  /** Records each grant and answers token T<n>, with the next scripted expiry or failure. */
  const grant = (request: TokenRequest): Promise<TokenAnswer> => {
    grants.push(request);
    const next = answers.shift() ?? {};
    if (next instanceof Error) return Promise.reject(next);
    return Promise.resolve({ access_token: `T${grants.length}`, ...next });
  };
  const source = () => new ClientCredentialsTokenSource(CREDENTIALS, grant, { now: () => clock });

  beforeEach(() => {
    clock = t0;
    grants = [];
    answers = [];
  });

  it("asks with the open-access grant type and the access key secret", async function () {
    assert.equal(await source().getToken(), "T1");
    assert.deepEqual(grants, [
      {
        grant_type: OPEN_ACCESS_GRANT_TYPE,
        client_id: "client-7",
        client_secret: "cs-auth-4411",
        open_access_key: "aks-auth-9922",
      },
    ]);
  });

  it("relative seconds: renews five minutes before expiry, not earlier", async function () {
    answers = [{ expires_in: 3600 }, { expires_in: 3600 }];
    const tokens = source();
    const renewAt = t0 + 3_600_000 - 5 * 60_000;
    assert.equal(await tokens.getToken(), "T1");
    clock = renewAt - 1;
    assert.equal(await tokens.getToken(), "T1");
    assert.equal(grants.length, 1);
    clock = renewAt;
    assert.equal(await tokens.getToken(), "T2");
    assert.equal(grants.length, 2);
    clock = renewAt + 60_000;
    assert.equal(await tokens.getToken(), "T2", "the new token lives from the second grant");
    assert.equal(grants.length, 2);
  });

  it("epoch milliseconds: renews five minutes before that instant", async function () {
    answers = [{ expires_in: t0 + DAY_S * 1000 }];
    const tokens = source();
    const renewAt = t0 + DAY_S * 1000 - 5 * 60_000;
    await tokens.getToken();
    clock = renewAt - 1;
    assert.equal(await tokens.getToken(), "T1");
    clock = renewAt;
    assert.equal(await tokens.getToken(), "T2");
    assert.equal(grants.length, 2);
  });

  it("epoch seconds: renews before that instant (not 55 years later)", async function () {
    answers = [{ expires_in: String(t0 / 1000 + 7200) }];
    const tokens = source();
    await tokens.getToken();
    clock = t0 + 7200_000 - 5 * 60_000 - 1;
    assert.equal(await tokens.getToken(), "T1");
    clock += 1;
    assert.equal(await tokens.getToken(), "T2");
  });

  it("a short lifetime renews at nine tenths of it (the margin is capped at a tenth)", async function () {
    answers = [{ expires_in: 10 }];
    const tokens = source();
    await tokens.getToken();
    clock = t0 + 8999;
    assert.equal(await tokens.getToken(), "T1");
    clock = t0 + 9000;
    assert.equal(await tokens.getToken(), "T2");
  });

  it("no expires_in: the token is kept until a 401 invalidates it", async function () {
    const tokens = source();
    await tokens.getToken();
    clock = t0 + 10 * 365 * DAY_S * 1000;
    assert.equal(await tokens.getToken(), "T1");
    assert.equal(grants.length, 1);
    assert.equal(tokens.invalidate("T1"), true);
    assert.equal(await tokens.getToken(), "T2");
  });

  it("invalidating an older token keeps the current one", async function () {
    const tokens = source();
    await tokens.getToken();
    tokens.invalidate("T1");
    assert.equal(await tokens.getToken(), "T2");
    tokens.invalidate("T1");
    assert.equal(await tokens.getToken(), "T2");
    assert.equal(grants.length, 2);
  });

  it("concurrent callers share one grant", async function () {
    const tokens = source();
    const all = await Promise.all(Array.from({ length: 20 }, () => tokens.getToken()));
    assert.deepEqual(new Set(all), new Set(["T1"]));
    assert.equal(grants.length, 1);
  });

  it("a failed grant is not cached: the next call asks again", async function () {
    answers = [new Error("grant failed")];
    const tokens = source();
    await assert.rejects(tokens.getToken(), /grant failed/);
    assert.equal(await tokens.getToken(), "T2");
    assert.equal(grants.length, 2);
  });

  it("secrets() lists the client secret, the access key secret and the current token", async function () {
    const tokens = source();
    assert.deepEqual(tokens.secrets().sort(), ["aks-auth-9922", "cs-auth-4411"]);
    await tokens.getToken();
    assert.deepEqual(tokens.secrets().sort(), ["T1", "aks-auth-9922", "cs-auth-4411"]);
  });

  it("a static token is never invalidated (a 401 is then final)", async function () {
    const tokens = new StaticTokenSource("fixed");
    assert.equal(await tokens.getToken(), "fixed");
    assert.equal(tokens.invalidate(), false);
    assert.deepEqual(tokens.secrets(), ["fixed"]);
  });
});

describe("api: the token grant over HTTP", function () {
  const stub = useRecordingServer();
  let grantCount = 0;

  /** A cloud that grants G1, G2, ... and answers robot calls with `robot` (default: the status). */
  function cloud(options: { grant?: (n: number) => ScriptedReply; robot?: (request: RecordedRequest) => ScriptedReply } = {}) {
    grantCount = 0;
    stub.server.respondWith((request) => {
      if (request.path === GRANT_PATH) {
        grantCount++;
        return options.grant?.(grantCount) ?? { body: { token_type: "bearer", access_token: `G${grantCount}`, expires_in: DAY_S } };
      }
      return options.robot?.(request) ?? { body: STATUS };
    });
  }
  const grantsSeen = () => stub.server.requests.filter((request) => request.path === GRANT_PATH);
  const robotCallsSeen = () => stub.server.requests.filter((request) => request.path !== GRANT_PATH);
  const newClient = () => new RobotClient({ baseUrl: stub.server.url, auth: CREDENTIALS, retry: { maxRetries: 2, baseDelayMs: 1 } });

  it("sends the exact grant request, then the call with the granted token", async function () {
    cloud();
    assert.deepEqual(await newClient().getRobotStatus({ serialNumber: SN }), STATUS);
    assert.equal(stub.server.requests.length, 2);
    const [grantRequest, call] = stub.server.requests;
    assert.equal(grantRequest!.method, "POST");
    assert.equal(grantRequest!.path, GRANT_PATH);
    assert.equal(grantRequest!.headers["content-type"], "application/json");
    assert.equal(grantRequest!.headers.authorization, undefined, "the grant carries no Authorization");
    assert.deepEqual(JSON.parse(grantRequest!.rawBody), {
      grant_type: "urn:gaussian:params:oauth:grant-type:open-access-token",
      client_id: "client-7",
      client_secret: "cs-auth-4411",
      open_access_key: "aks-auth-9922",
    });
    assert.equal(call!.path, STATUS_PATH);
    assert.equal(call!.headers.authorization, "Bearer G1");
  });

  it("a granted token is reused for later calls", async function () {
    cloud();
    const client = newClient();
    await client.getRobotStatus({ serialNumber: SN });
    await client.getSiteInfo({ serialNumber: SN });
    assert.equal(grantsSeen().length, 1);
    assert.deepEqual(
      robotCallsSeen().map((request) => request.headers.authorization),
      ["Bearer G1", "Bearer G1"],
    );
  });

  it("expires_in is read by magnitude on the wire: epoch ms in the future keeps the token", async function () {
    cloud({ grant: (n) => ({ body: { access_token: `G${n}`, expires_in: Date.now() + DAY_S * 1000 } }) });
    const client = newClient();
    await client.getRobotStatus({ serialNumber: SN });
    await client.getRobotStatus({ serialNumber: SN });
    assert.equal(grantsSeen().length, 1);
  });

  it("expires_in is read by magnitude on the wire: epoch seconds about to pass renew once they have", async function () {
    // Read as relative seconds this would be a 55-year lifetime and the token would never be renewed.
    cloud({ grant: (n) => ({ body: { access_token: `G${n}`, expires_in: Math.floor(Date.now() / 1000) + 1 } }) });
    const client = newClient();
    await client.getRobotStatus({ serialNumber: SN });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await client.getRobotStatus({ serialNumber: SN });
    assert.equal(grantsSeen().length, 2);
    assert.deepEqual(
      robotCallsSeen().map((request) => request.headers.authorization),
      ["Bearer G1", "Bearer G2"],
    );
  });

  it("a token granted already expired (clocks apart) is used until the cloud answers 401, not fetched again per call", async function () {
    const revoked = new Set<string>();
    cloud({
      grant: (n) => ({ body: { access_token: `G${n}`, expires_in: Math.floor(Date.now() / 1000) - 60 } }),
      robot: (request) => (revoked.has(request.headers.authorization ?? "") ? { status: 401, body: {} } : { body: STATUS }),
    });
    const client = newClient();
    await client.getRobotStatus({ serialNumber: SN });
    await client.getRobotStatus({ serialNumber: SN });
    assert.equal(grantsSeen().length, 1);
    revoked.add("Bearer G1");
    await client.getRobotStatus({ serialNumber: SN });
    assert.equal(grantsSeen().length, 2);
    assert.deepEqual(
      robotCallsSeen().map((request) => request.headers.authorization),
      ["Bearer G1", "Bearer G1", "Bearer G1", "Bearer G2"],
    );
  });

  it("a 401 triggers exactly one new grant and one resend with the new token", async function () {
    cloud({
      robot: (request) =>
        request.headers.authorization === "Bearer G1" ? { status: 401, body: { code: 16, message: "token expired" } } : { body: STATUS },
    });
    assert.deepEqual(await newClient().getRobotStatus({ serialNumber: SN }), STATUS);
    assert.deepEqual(
      stub.server.requests.map((request) => `${request.path === GRANT_PATH ? "grant" : "call"} ${request.headers.authorization ?? "-"}`),
      ["grant -", "call Bearer G1", "grant -", "call Bearer G2"],
    );
  });

  it("a second 401 is reported, after exactly one re-grant", async function () {
    cloud({ robot: () => ({ status: 401, body: { code: 16, message: "token not accepted" } }) });
    const error = await failureOf(newClient().submitCommand({ serialNumber: SN, remoteTaskCommandType: "STOP_TASK" }));
    assert.equal(error.kind, "http");
    assert.equal(error.status, 401);
    assert.equal(error.code, "UNAUTHENTICATED");
    assert.equal(grantsSeen().length, 2);
    assert.equal(robotCallsSeen().length, 2);
  });

  it("the resend after a 401 does not use up a rate-limit retry", async function () {
    const replies: ScriptedReply[] = [
      { status: 401, body: {} },
      { status: 429, body: {}, headers: { "Retry-After": "0" } },
      { status: 429, body: {}, headers: { "Retry-After": "0" } },
      { body: STATUS },
    ];
    cloud({ robot: () => replies.shift()! });
    assert.deepEqual(await newClient().getRobotStatus({ serialNumber: SN }), STATUS);
    assert.equal(robotCallsSeen().length, 4, "401 resend + maxRetries (2) rate-limit retries");
    assert.equal(grantsSeen().length, 2);
  });

  it("20 concurrent calls with no token yet share one grant", async function () {
    cloud({ grant: (n) => ({ body: { access_token: `G${n}`, expires_in: DAY_S }, delayMs: 20 }) });
    const client = newClient();
    const results = await Promise.all(Array.from({ length: 20 }, () => client.getRobotStatus({ serialNumber: SN })));
    assert.equal(results.length, 20);
    assert.equal(grantsSeen().length, 1);
    assert.equal(robotCallsSeen().length, 20);
    assert.ok(robotCallsSeen().every((request) => request.headers.authorization === "Bearer G1"));
  });

  it("20 concurrent calls all answered 401 share one re-grant", async function () {
    const expired = new Set<string>();
    cloud({ robot: (request) => (expired.has(request.headers.authorization ?? "") ? { status: 401, body: {} } : { body: STATUS }) });
    const client = newClient();
    await client.getRobotStatus({ serialNumber: SN });
    expired.add("Bearer G1");
    const results = await Promise.all(Array.from({ length: 20 }, () => client.getRobotStatus({ serialNumber: SN })));
    assert.equal(results.length, 20);
    assert.equal(grantsSeen().length, 2, "one re-grant for all twenty");
    // At most one call per connection (16) goes out with the dead token before the first 401 retires it.
    const withOldToken = robotCallsSeen().filter((request) => request.headers.authorization === "Bearer G1").length;
    assert.ok(withOldToken >= 2 && withOldToken <= 17, `${withOldToken} calls sent with the expired token`);
    assert.equal(robotCallsSeen().filter((request) => request.headers.authorization === "Bearer G2").length, 20);
  });

  it("a failed grant (HTTP 400 Invalid open access key) is an http error and is not cached", async function () {
    cloud({
      grant: (n) =>
        n === 1
          ? { status: 400, body: { code: 3, message: "Invalid open access key" } }
          : { body: { access_token: `G${n}`, expires_in: DAY_S } },
    });
    const client = newClient();
    const error = await failureOf(client.getRobotStatus({ serialNumber: SN }));
    assert.equal(error.kind, "http");
    assert.equal(error.status, 400);
    assert.equal(error.operation, "grantToken");
    assert.match(error.message, /Invalid open access key/);
    assert.equal(robotCallsSeen().length, 0, "no robot call without a token");

    assert.deepEqual(await client.getRobotStatus({ serialNumber: SN }), STATUS);
    assert.equal(grantsSeen().length, 2, "the next call asks again");
    assert.equal(robotCallsSeen()[0]!.headers.authorization, "Bearer G2");
  });

  it("a grant answer without access_token is a bad_response", async function () {
    cloud({ grant: () => ({ body: { token_type: "bearer", expires_in: DAY_S } }) });
    const error = await failureOf(newClient().getRobotStatus({ serialNumber: SN }));
    assert.equal(error.kind, "bad_response");
    assert.equal(error.operation, "grantToken");
    assert.match(error.message, /access_token/);
    assert.equal(robotCallsSeen().length, 0);
  });

  it("a 401 on the grant itself is reported, not looped on", async function () {
    cloud({ grant: () => ({ status: 401, body: { message: "unknown client" } }) });
    const error = await failureOf(newClient().getRobotStatus({ serialNumber: SN }));
    assert.equal(error.status, 401);
    assert.equal(error.operation, "grantToken");
    assert.equal(grantsSeen().length, 1);
  });

  it("an empty client secret is refused before anything is sent", async function () {
    const client = new RobotClient({ baseUrl: stub.server.url, auth: { ...CREDENTIALS, clientSecret: "" } });
    const error = await failureOf(client.getRobotStatus({ serialNumber: SN }));
    assert.equal(error.kind, "invalid_input");
    assert.equal(error.field, "client_secret");
    assert.equal(stub.server.requests.length, 0);
  });

  it("with a static token a 401 is reported, not retried", async function () {
    stub.server.respondWith(() => ({ status: 401, body: { code: 16, message: "expired" } }));
    const client = new RobotClient({ baseUrl: stub.server.url, auth: { token: "static-1" } });
    const error = await failureOf(client.getRobotStatus({ serialNumber: SN }));
    assert.equal(error.status, 401);
    assert.equal(stub.server.requests.length, 1);
    assert.equal(grantsSeen().length, 0);
  });
});
