/**
 * No token ever shows: a loopback cloud that grants tokens for client
 * credentials, renews them (a 401 for a revoked token, an expires_in in the
 * near past or the near future) and echoes every token and secret it was sent
 * back in its error bodies, its success bodies, its headers and its status
 * line. robot-command, robot-site-task and robot-maps make hundreds of calls
 * through one robot-config; every output, every error at a Catch node (with its
 * cause and stack), every status and every log line is searched for every token
 * ever issued, the client secret and the access key secret, and for the first
 * half of each.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { inspect } from "node:util";
import robotCommand from "../../src/nodes/robot-command/robot-command";
import robotMaps from "../../src/nodes/robot-maps/robot-maps";
import robotSiteTask from "../../src/nodes/robot-site-task/robot-site-task";
import { collectMessages, flowWith, helper, loadFlow, outputsAndCatch, recordStatuses, waitFor } from "../support/node-red";
import { robotCommandNode, robotSiteTaskNode, robotMapsNode, TEMP_SITE_TASK_BODY, TEMP_TASK_BODY, SERIAL, MAP_ID, SITE_ID } from "../support/fixtures";
import { LoopbackServer } from "../support/loopback-server";
import { seeded, type Rng, pick } from "../support/seeded";

type Msg = Record<string, unknown>;
/** Node-RED's error log level (the helper's log spy carries the levels, its type does not). */
const LOG_ERROR = 20;

const GRANT_PATH = "/gas/api/v1alpha1/oauth/token";


/** Secret-looking text with the characters of base64 in it ("+" and "/"), from the PRNG. */
function secretText(rng: Rng, prefix: string): string {
  const bytes = Buffer.from(Array.from({ length: 18 }, () => Math.floor(rng() * 256)));
  return `${prefix}${bytes.toString("base64")}`;
}

const CREDENTIALS = (() => {
  const rng = seeded(99);
  return { clientId: "client-public-id", clientSecret: secretText(rng, "cs-"), accessKeySecret: secretText(rng, "aks-") };
})();

type Outcome =
  | "success"
  | "revoke"
  | "forbidden"
  | "plain500"
  | "rateLimited"
  | "errorIn200"
  | "statusLineOnly"
  | "badAnswer"
  | "drop";

const OUTCOMES: Array<[Outcome, number]> = [
  ["success", 50],
  ["revoke", 10],
  ["forbidden", 5],
  ["plain500", 5],
  ["rateLimited", 6],
  ["errorIn200", 6],
  ["statusLineOnly", 6],
  ["badAnswer", 6],
  ["drop", 3],
];

interface EchoCloudOptions {
  seed: number;
  /** A static token the cloud accepts (authMode "token"). */
  staticToken?: string;
  /** How often a grant fails (echoing what it was sent). */
  grantFailureRate?: number;
  /** Writes JSON the way some servers do: "/" as "\/" (PHP) or every non-alphanumeric character as \u00XX. */
  jsonEscapes?: "none" | "slash" | "unicode";
  /** Which outcome each API call gets; default a seeded pick from OUTCOMES. */
  outcome?: (path: string) => Outcome;
  /** The grant's expires_in; default a seeded pick that keeps the client renewing. */
  expiresIn?: () => unknown;
}

/**
 * The robot cloud as a leaky debugging proxy would be: it grants tokens, may
 * revoke them, and repeats every secret it ever received in whatever it answers.
 */
class EchoCloud extends LoopbackServer {
  /** Every token it granted, oldest first. */
  readonly issued: string[] = [];
  /** Every secret or token it was sent, in the order first seen. */
  readonly received: string[] = [];
  readonly counts = { grants: 0, grantFailures: 0, renewedEarly: 0, revoked: 0, calls: 0, echoes: 0 };
  private readonly valid = new Set<string>();
  private readonly rng: Rng;

  constructor(private readonly options: EchoCloudOptions) {
    super();
    this.rng = seeded(options.seed);
    if (options.staticToken) this.valid.add(options.staticToken);
    this.server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => this.handle(req, res));
  }

  /** Every secret this cloud has, to be echoed: the last few tokens and both credentials. */
  private echo(authorization: string): Record<string, unknown> {
    this.counts.echoes++;
    return {
      authorization,
      recentTokens: this.issued.slice(-4),
      received: this.received.slice(-6),
      credentials: { client_secret: CREDENTIALS.clientSecret, open_access_key: CREDENTIALS.accessKeySecret },
    };
  }

  private echoText(authorization: string): string {
    return `you sent ${authorization}; I also know ${[...this.issued.slice(-4), ...this.received.slice(-6)].join(" and ")}`;
  }

  private remember(secret: unknown): void {
    if (typeof secret === "string" && secret !== "" && !this.received.includes(secret)) this.received.push(secret);
  }

  private json(body: unknown): string {
    const text = JSON.stringify(body);
    switch (this.options.jsonEscapes ?? "none") {
      case "none":
        return text;
      case "slash":
        return text.replace(/\//g, "\\/");
      case "unicode":
        // Inside strings only matters, but escaping every non-alphanumeric character outside them would break
        // the JSON; the characters tokens hold ("+", "/", "=", "-") never appear outside strings here.
        return text.replace(/[+/=-]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    }
  }

  private answer(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, statusLine?: string): void {
    const text = typeof body === "string" ? body : this.json(body);
    if (statusLine === undefined) res.writeHead(status, { "Content-Type": "application/json", ...headers });
    else res.writeHead(status, statusLine, { "Content-Type": "application/json", ...headers });
    res.end(text);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: Record<string, unknown>;
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        body = {};
      }
      if (req.url === GRANT_PATH) this.grant(body, res);
      else this.call(req, body, res);
    });
  }

  private grant(body: Record<string, unknown>, res: http.ServerResponse): void {
    this.remember(body.client_secret);
    this.remember(body.open_access_key);
    const sent = `client_secret=${String(body.client_secret)}&open_access_key=${String(body.open_access_key)}`;
    if (this.rng() < (this.options.grantFailureRate ?? 0)) {
      this.counts.grantFailures++;
      const how = pick(this.rng, [400, 401, 500] as const);
      if (how === 500) this.answer(res, 500, `grant failed for ${sent}`, { "X-Echo": sent });
      else this.answer(res, how, { code: how === 400 ? 3 : 16, message: `bad credentials ${sent}`, ...this.echo(sent) }, { "X-Echo": sent });
      return;
    }
    // A grant while the previous token is still accepted is the client renewing on its own (expiry), not after a 401.
    const previous = this.issued.at(-1);
    if (previous !== undefined && this.valid.has(previous)) this.counts.renewedEarly++;
    const token = secretText(this.rng, `tok${this.issued.length}-`);
    this.issued.push(token);
    this.valid.add(token);
    this.counts.grants++;
    const expiresIn =
      this.options.expiresIn?.() ??
      pick(this.rng, [
        () => undefined,
        () => 86_400,
        () => 1,
        () => "1",
        () => Date.now() + 50, // epoch milliseconds, about to expire
        () => Math.floor(Date.now() / 1000) + 1, // epoch seconds, about to expire
        () => Date.now() + 700, // epoch milliseconds, about to pass
      ])();
    this.answer(
      res,
      200,
      { access_token: token, token_type: "Bearer", ...(expiresIn === undefined ? {} : { expires_in: expiresIn }), debug: this.echo(sent) },
      { "X-Echo": sent },
    );
  }

  private call(req: http.IncomingMessage, body: Record<string, unknown>, res: http.ServerResponse): void {
    this.counts.calls++;
    const authorization = req.headers.authorization ?? "";
    const token = authorization.replace(/^Bearer /, "");
    this.remember(token);
    const path = req.url ?? "";
    const headers = { "X-Echo-Authorization": authorization, "WWW-Authenticate": `Bearer error="invalid_token", token="${token}"` };
    const envelope = path.startsWith("/openapi/v1/map/");
    if (!this.valid.has(token)) {
      this.answer(res, 401, { code: 16, message: `token ${token} is not valid: ${this.echoText(authorization)}` }, headers, `Unauthorized ${token}`);
      return;
    }
    const outcome = this.options.outcome?.(path) ?? this.weighted();
    switch (outcome) {
      case "success":
        this.answer(res, 200, this.success(path, body, authorization), headers);
        return;
      case "revoke":
        this.counts.revoked++;
        if (!this.options.staticToken) this.valid.delete(token);
        this.answer(res, 401, { code: 16, message: `token ${token} revoked: ${this.echoText(authorization)}` }, headers, `Revoked ${token}`);
        return;
      case "forbidden":
        this.answer(res, 403, { code: 7, msg: `PERMISSION_DENIED: ${this.echoText(authorization)}` }, headers);
        return;
      case "plain500":
        // Long enough that a 200-character cut would fall inside the echoed token.
        this.answer(res, 500, `${"x".repeat(Math.floor(this.rng() * 200))}${this.echoText(authorization)}`, headers, `Oops ${token}`);
        return;
      case "rateLimited":
        this.answer(res, 429, { code: 8, message: `slow down, ${this.echoText(authorization)}` }, { ...headers, "Retry-After": "0" });
        return;
      case "errorIn200":
        this.answer(res, 200, envelope ? { code: 7, msg: this.echoText(authorization), data: [] } : { code: 16, message: this.echoText(authorization) }, headers);
        return;
      case "statusLineOnly":
        res.writeHead(404, `Not Found for ${authorization}`, headers);
        res.end();
        return;
      case "badAnswer":
        this.answer(res, 200, envelope ? { code: 0, msg: "SUCCESS", data: [{ mapId: token, mapName: 5 }] } : [token, this.echo(authorization)], headers);
        return;
      case "drop":
        req.socket.destroy();
        return;
    }
  }

  private weighted(): Outcome {
    const total = OUTCOMES.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.rng() * total;
    for (const [outcome, weight] of OUTCOMES) {
      roll -= weight;
      if (roll < 0) return outcome;
    }
    return "success";
  }

  /** A valid answer for each endpoint, with the echo in a field the schemas let through to msg.payload. */
  private success(path: string, body: Record<string, unknown>, authorization: string): unknown {
    const echo = this.echo(authorization);
    if (path.endsWith("/commands")) {
      return { name: `robots/${SERIAL}/commands/1`, state: `WAITING ${authorization}`, serialNumber: body.serialNumber, rawCommandType: "resume_task", echo };
    }
    if (path.endsWith("/status")) return { serialNumber: SERIAL, taskState: `IDLE ${authorization}`, online: true, echo };
    if (path.endsWith("/getSiteInfo")) return { siteId: SITE_ID, siteName: `HQ ${authorization}`, echo };
    if (path === "/openapi/v2/robot/tasks/temp/withSite") return { taskId: "task-1", echo };
    if (path === "/v2alpha1/robotCommand/tempTask:send") return { productId: SERIAL, cmdStatus: 5, echo };
    if (path === "/openapi/v1/map/robotMap/list") return { code: 0, msg: `SUCCESS ${authorization}`, data: [{ mapId: MAP_ID, mapName: `Floor ${authorization}`, echo }] };
    if (path === "/openapi/v1/map/subareas/get") {
      return { code: 0, msg: "SUCCESS", data: { mapId: MAP_ID, subareas: { partitions: [{ id: 1, name: authorization }] }, echo } };
    }
    return { code: 5, message: `no such path ${authorization}` };
  }
}

// ------------------------------------------------------------ the flow and what it shows

/** One message for one of the nodes: every node, every operation, in turn. */
const MESSAGES: Array<[string, () => Msg]> = [
  ["cmd", () => ({ payload: "resume" })],
  ["site", () => ({ payload: 1, operation: "status" })],
  ["site", () => ({ payload: 1, operation: "siteInfo" })],
  ["site", () => ({ payload: structuredClone(TEMP_SITE_TASK_BODY), operation: "createTempTask" })],
  ["site", () => ({ payload: structuredClone(TEMP_TASK_BODY), operation: "sendTempTask" })],
  ["maps", () => ({ payload: 1, operation: "listMaps" })],
  ["maps", () => ({ payload: 1, operation: "getSubareas" })],
];

interface Seen {
  outputs: Msg[];
  caught: Msg[];
  statuses: Record<string, Array<{ text?: string }>>;
}

/**
 * Loads the three nodes on one config; returns what they will show. Errors of
 * nodes left out of `caughtFrom` are not caught: Node-RED logs them instead.
 */
async function loadEchoFlow(
  cloud: EchoCloud,
  config: Record<string, unknown>,
  credentials: Record<string, string>,
  caughtFrom = ["cmd", "site", "maps"],
): Promise<Seen> {
  const nodes = [robotCommandNode("cmd", { command: "RESUME_TASK" }), robotSiteTaskNode("site"), robotMapsNode("maps"), ...outputsAndCatch(...caughtFrom)];
  await loadFlow([robotCommand, robotSiteTask, robotMaps], flowWith(cloud.url, nodes, { rateLimit: 0, connections: 4, maxRetries: 2, ...config }), {
    config: credentials,
  });
  return {
    outputs: collectMessages("out"),
    caught: collectMessages("caught"),
    statuses: Object.fromEntries(["cmd", "site", "maps"].map((id) => [id, recordStatuses(id)])),
  };
}

/** Sends `count` messages in waves of `wave`, each wave answered in full before the next; sometimes pauses so short-lived tokens expire. */
async function drive(seen: Seen, count: number, wave: number, rng: Rng, uncaught: () => number = () => 0): Promise<void> {
  let sent = 0;
  while (sent < count) {
    for (let i = 0; i < wave && sent < count; i++, sent++) {
      const [node, make] = MESSAGES[sent % MESSAGES.length]!;
      helper.getNode(node).receive({ ...make(), tag: `m${sent}` });
    }
    const expected = sent;
    await waitFor(() => seen.outputs.length + seen.caught.length + uncaught() >= expected, 15_000, `${expected} outcomes`);
    if (rng() < 0.25) await new Promise((resolve) => setTimeout(resolve, 100 + Math.floor(rng() * 400)));
  }
}

/** Every text a flow author or an operator could see: outputs, caught errors (message, stack, cause), statuses and log lines. */
function everythingShown(seen: Seen): Array<{ where: string; text: string }> {
  const shown: Array<{ where: string; text: string }> = [];
  for (const msg of seen.outputs) shown.push({ where: `output ${String(msg.tag)}`, text: JSON.stringify(msg) + inspect(msg, { depth: 10 }) });
  for (const msg of seen.caught) {
    const error = msg.error as { message?: string; stack?: string; cause?: unknown };
    shown.push({ where: `caught ${String(msg.tag)}`, text: `${JSON.stringify(msg)}\n${error.stack ?? ""}\n${inspect(error.cause, { depth: 10 })}` });
  }
  for (const [id, statuses] of Object.entries(seen.statuses)) shown.push({ where: `status of ${id}`, text: JSON.stringify(statuses) });
  helper
    .log()
    .getCalls()
    .forEach((call, i) => shown.push({ where: `log line ${i}`, text: call.args.map((arg) => `${JSON.stringify(arg)} ${inspect(arg, { depth: 10, showHidden: true })}`).join(" ") }));
  return shown;
}

/** No secret, nor the first half of one, anywhere. */
function assertNoLeak(seen: Seen, secrets: string[]): void {
  const leaks: string[] = [];
  const places = new Map<string, number>();
  const shown = everythingShown(seen);
  for (const secret of secrets) {
    const half = secret.slice(0, Math.ceil(secret.length / 2));
    for (const { where, text } of shown) {
      const at = text.indexOf(half);
      if (at === -1) continue;
      const place = where.split(" ")[0]!;
      places.set(place, (places.get(place) ?? 0) + 1);
      leaks.push(`${where} shows ${text.includes(secret) ? "" : "the first half of "}${secret}: …${text.slice(Math.max(0, at - 60), at + secret.length + 20)}…`);
    }
  }
  const where = [...places].map(([place, count]) => `${count} in ${place}`).join(", ");
  assert.equal(leaks.length, 0, `${leaks.length} leaks among ${shown.length} texts (${where}), e.g.\n  ${leaks.slice(0, 6).join("\n  ")}`);
}

/** Each message ended exactly once: one output or one caught error. */
function assertEachEndedOnce(seen: Seen, count: number): void {
  const tags = [...seen.outputs, ...seen.caught].map((msg) => String(msg.tag)).sort();
  assert.deepEqual(tags, Array.from({ length: count }, (_, i) => `m${i}`).sort());
}

describe("secrets: an echoing cloud with granted and renewed tokens, not one leak", function () {
  this.timeout(60_000);
  let cloud: EchoCloud | undefined;

  beforeEach((done) => {
    helper.startServer(done);
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
    await cloud?.stop();
    cloud = undefined;
  });

  it("client credentials: 420 calls through three nodes, tokens granted, revoked, renewed early and late, all echoed", async () => {
    cloud = await new EchoCloud({ seed: 1, grantFailureRate: 0.08 }).start();
    const seen = await loadEchoFlow(cloud, { authMode: "clientCredentials" }, CREDENTIALS);
    await drive(seen, 420, 14, seeded(2));
    await new Promise((resolve) => setTimeout(resolve, 100));

    // The cloud really did all of it.
    assert.ok(cloud.counts.grants >= 30, `tokens granted: ${cloud.counts.grants}`);
    assert.ok(cloud.counts.revoked >= 10, `tokens revoked with a 401: ${cloud.counts.revoked}`);
    assert.ok(cloud.counts.renewedEarly >= 2, `renewed before a 401 (expiry): ${cloud.counts.renewedEarly}`);
    assert.ok(cloud.counts.grantFailures >= 2, `failed grants: ${cloud.counts.grantFailures}`);
    assert.ok(cloud.issued.length <= 100, `${cloud.issued.length} tokens: the client remembers the last 100 (see the test below)`);
    assert.ok(cloud.received.includes(CREDENTIALS.clientSecret) && cloud.received.includes(CREDENTIALS.accessKeySecret));
    assertEachEndedOnce(seen, 420);
    // The echoes reached what the nodes show, redacted.
    assert.ok(seen.outputs.length >= 100, `outputs: ${seen.outputs.length}`);
    assert.ok(seen.outputs.every((msg) => JSON.stringify(msg.payload).includes("Bearer ***")), "every answer echoed the token, redacted");
    assert.ok(seen.caught.filter((msg) => (msg.error as { message: string }).message.includes("***")).length >= 30, "errors echoed secrets, redacted");

    assertNoLeak(seen, [...cloud.issued, CREDENTIALS.clientSecret, CREDENTIALS.accessKeySecret]);
  });

  it("a static token (authMode token): 210 calls, every answer echoing it; robot-maps' errors uncaught, so logged", async () => {
    const token = secretText(seeded(3), "static-");
    cloud = await new EchoCloud({ seed: 4, staticToken: token }).start();
    const seen = await loadEchoFlow(cloud, { authMode: "token" }, { token }, ["cmd", "site"]);
    const logged = () => helper.log().args.filter(([entry]) => (entry as { level: number; id?: string }).level === LOG_ERROR && (entry as { id?: string }).id === "maps").length;
    await drive(seen, 210, 14, seeded(5), logged);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(seen.outputs.length + seen.caught.length + logged(), 210, "each message ended once");
    assert.ok(logged() >= 5, `robot-maps errors logged: ${logged()}`);
    assert.ok(
      helper.log().args.some(([entry]) => (entry as { level: number }).level === LOG_ERROR && String((entry as { msg?: unknown }).msg).includes("***")),
      "a logged error echoed the token, redacted",
    );
    assert.equal(cloud.counts.grants, 0);
    assert.ok(seen.outputs.some((msg) => JSON.stringify(msg.payload).includes(`Bearer ***`)));
    assert.ok(seen.caught.some((msg) => /401/.test((msg.error as { message: string }).message)), "a 401 is final for a static token");
    assertNoLeak(seen, [token]);
  });

  for (const jsonEscapes of ["slash", "unicode"] as const) {
    it(`a cloud whose JSON escapes ${jsonEscapes === "slash" ? '"/" as "\\/" (PHP\'s json_encode)' : "+ / = - as \\u00XX"}: the echoed token stays hidden`, async () => {
      const token = "tok/with+slashes/and=pluses-0123456789";
      cloud = await new EchoCloud({ seed: 6, staticToken: token, jsonEscapes, outcome: () => "success" }).start();
      const seen = await loadEchoFlow(cloud, { authMode: "token" }, { token });
      await drive(seen, 28, 7, seeded(7));
      // One at a time, so that each node's status shows its answer (while a node is busy it shows its queue).
      for (const [node, msg] of [["site", { payload: 1, operation: "status" }], ["site", { payload: 1, operation: "siteInfo" }], ["cmd", { payload: 1 }], ["maps", { payload: 1, operation: "listMaps" }]] as const) {
        const before = seen.outputs.length;
        helper.getNode(node).receive({ ...msg, tag: `m${before}` });
        await waitFor(() => seen.outputs.length > before, 5000, "the answer");
      }
      assertEachEndedOnce(seen, 32);
      assert.equal(seen.caught.length, 0);
      assertNoLeak(seen, [token]);
    });
  }

  it("a token granted more than 100 renewals ago, echoed, is still hidden", async () => {
    // Every grant answers with a lifetime of a few milliseconds, so each call renews; then the cloud echoes the very first token.
    let echoFirst = false;
    cloud = await new EchoCloud({ seed: 8, expiresIn: () => Date.now() + 5, outcome: () => (echoFirst ? "forbidden" : "success") }).start();
    const seen = await loadEchoFlow(cloud, { authMode: "clientCredentials" }, CREDENTIALS);
    const maps = helper.getNode("maps");
    for (let i = 0; i < 130; i++) {
      maps.receive({ payload: 1, operation: "listMaps", tag: `m${i}` });
      await waitFor(() => seen.outputs.length + seen.caught.length > i, 5000, `answer ${i}`);
    }
    assert.ok(cloud.issued.length > 100, `tokens granted: ${cloud.issued.length}`);
    const first = cloud.issued[0]!;
    // The cloud now repeats the first token it ever granted.
    cloud.issued.push(first);
    echoFirst = true;
    maps.receive({ payload: 1, operation: "listMaps", tag: "m130" });
    await waitFor(() => seen.caught.length === 1, 5000, "the 403");
    assert.match((seen.caught[0]!.error as { message: string }).message, /PERMISSION_DENIED/);
    assertNoLeak(seen, [first]);
  });
});
