/**
 * The robot-cloud simulator's HTTP side (node:http only). Routes come from the
 * endpoint table and request bodies are checked with the table's own zod
 * schemas, so the client and the simulator cannot drift apart. It checks what
 * the real cloud checks: bearer token, the robot's account, body, content type
 * and a per-token rate limit; and it can inject latency and faults.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { performance } from "node:perf_hooks";
import type { z } from "zod";
import { describeIssues } from "../api/errors";
import { ENDPOINTS, OPERATION_NAMES, matchPath, readQuery, type Endpoint, type OperationName, type RobotOperationName } from "../api/endpoints";
import type { CommandResource } from "../api/schemas";
import { FaultInjector, type FaultRoll, type Faults, type FaultsUpdate } from "./faults";
import { demoFleet, grownFleet, type AccountSeed, type FleetSeed, type SimRobot } from "./fleet";
import { Code, RobotChanges, SimError, World, type Parsed, type Timing } from "./world";

export interface RateLimit {
  /** Requests allowed per token in each window. */
  requests: number;
  windowMs: number;
}

export interface SimulatorOptions {
  /** 0 picks a free port. Default 0. */
  port?: number;
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Robots, sites and accounts; POST /_sim/reset goes back to it. Default: the demo fleet. */
  fleet?: FleetSeed;
  /** Access tokens of the fleet's first account (the demo account), replacing its seeded ones. */
  tokens?: string[];
  /** Per-token rate limit; false turns it off. Default 20 requests per second (field notes). */
  rateLimit?: RateLimit | false;
  faults?: Partial<Faults>;
  /** Seed of the fault dice. Default 1. */
  seed?: number;
  /** No log lines at all. */
  quiet?: boolean;
  /** Receives one line per request (method, path, outcome, ms); never the token. Default: console.log. */
  log?: (line: string) => void;
  /** Clock of token expiry, rate-limit windows and timestamps. Default Date.now. */
  now?: () => number;
  /** Lifetime of granted tokens. Default 24 h (field notes). */
  tokenLifetimeMs?: number;
  /** Larger request bodies are answered 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Older commands are forgotten past this many per robot. Default 200. */
  maxCommandsPerRobot?: number;
  /** How long a map image's pre-signed download URL works. Default 10 minutes. */
  downloadUrlLifetimeMs?: number;
  /**
   * How robots behave over time: command delay, navigation and task time,
   * battery drain and charge (ignored commands are a fault). Default: all
   * instant and still (INSTANT_TIMING); the CLI and the demo use REALISTIC_TIMING.
   */
  timing?: Partial<Timing>;
  /** Grows the demo fleet to this many robots (1-5000) for load tests; ignored when `fleet` is given. */
  robots?: number;
}

/** Read-only copies of the fleet's state, for tests and tools. */
export interface FleetView {
  serialNumbers(): string[];
  robot(serialNumber: string): SimRobot | undefined;
  /** What B1 would answer for the robot. */
  status(serialNumber: string): Record<string, unknown> | undefined;
  /** Stored commands of the robot, oldest first. */
  commands(serialNumber: string): CommandResource[];
}


export interface RunningSimulator {
  /** Base URL for the client and the robot-config node, e.g. http://127.0.0.1:18080. */
  readonly url: string;
  readonly port: number;
  readonly state: FleetView;
  readonly faults: Faults;
  /** Changes some fault settings (and reseeds the dice when `seed` is given); throws when a value is not valid. */
  setFaults(update: FaultsUpdate): Faults;
  /** Back to the seeded fleet: robots, stored commands and rate-limit counters. Tokens stay valid. */
  reset(): void;
  /** Changes a robot (offline, battery, emergency stop, ...) and returns its B1 status; throws naming a bad field. */
  updateRobot(serialNumber: string, changes: RobotChanges): Record<string, unknown>;
  close(): Promise<void>;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { requests: 20, windowMs: 1000 };
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;
const MAX_ISSUED_TOKENS = 1000;
/** Control endpoints of the simulator itself; never subject to faults. */
export const CONTROL_PREFIX = "/_sim/";
/**
 * The simulated object store that serves map images at pre-signed URLs: no
 * token, a signature and an expiry in the query. Another service than the
 * cloud, so the cloud's checks, rate limit and faults do not apply to it.
 */
export const OBJECT_PREFIX = "/_objects/";
export const DEFAULT_DOWNLOAD_URL_LIFETIME_MS = 10 * 60 * 1000;

/** Codes that the envelope endpoints (C1, C2) answer inside the envelope rather than as an HTTP status. */
const ENVELOPE_CODES = new Set<number>([Code.INVALID_ARGUMENT, Code.NOT_FOUND, Code.PERMISSION_DENIED, Code.RESOURCE_EXHAUSTED, Code.FAILED_PRECONDITION, Code.INTERNAL]);

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** An envelope or error code worth a word in the log line. */
  code?: number;
}

interface Route {
  operation: OperationName;
  endpoint: Endpoint;
}

/** Every row of the table, plus the path other real clients use for B4 (field notes). */
const ROUTES: Route[] = [
  ...OPERATION_NAMES.map((operation) => ({ operation, endpoint: ENDPOINTS[operation] })),
  {
    operation: "sendTempTask",
    endpoint: { ...(ENDPOINTS.sendTempTask as unknown as Endpoint), path: `/openapi${ENDPOINTS.sendTempTask.path}` },
  },
];

type Resolved =
  | { kind: "operation"; route: Route; params: Record<string, string> }
  | { kind: "wrongMethod"; allowed: string[] }
  | { kind: "unknown" };

function resolve(method: string, pathname: string): Resolved {
  const allowed = new Set<string>();
  for (const route of ROUTES) {
    const params = matchPath(route.endpoint, pathname);
    if (params === undefined) continue;
    if (route.endpoint.method === method) return { kind: "operation", route, params };
    allowed.add(route.endpoint.method);
  }
  return allowed.size ? { kind: "wrongMethod", allowed: [...allowed] } : { kind: "unknown" };
}

/** What a handler may use besides the parsed request. */
interface HandlerContext {
  account: AccountSeed;
  /** The request as it came (body or path and query fields), before the schema turned numbers into strings. */
  raw: unknown;
  /** The robot the request names, already checked against the account (endpoints with a serial number only). */
  readonly robot: () => SimRobot;
  /** An absolute pre-signed URL of an object (a path under OBJECT_PREFIX, its segments encoded). */
  readonly objectUrl: (key: string) => string;
}

type Handler<Op extends RobotOperationName> = (world: World, request: Parsed<Op>, context: HandlerContext) => unknown;

/** One handler per robot operation of the table: a new row without a handler does not compile. */
const HANDLERS: { [Op in RobotOperationName]: Handler<Op> } = {
  submitCommand: (world, request, { robot, account }) => world.submitCommand(robot(), request, account),
  getCommand: (world, request, { robot }) => world.readCommand(robot(), request.commandId),
  getRobotStatus: (world, _request, { robot }) => world.status(robot()),
  getSiteInfo: (world, _request, { robot }) => world.siteInfo(robot()),
  createTempSiteTask: (world, request, { robot, raw }) => world.createTempSiteTask(robot(), request, raw),
  sendTempTask: (world, request, { robot, raw }) => world.sendTempTask(robot(), request, raw),
  getSubareas: (world, request, { robot }) => world.subareas(robot(), request.mapId),
  listMaps: (world, _request, { robot }) => world.mapList(robot()),
  listRobots: (world, request, { account }) => world.listRobots(account, request.page, request.pageSize),
  batchGetRobotStatus: (world, request, { account }) => ({
    robotStatuses: world.batchRobots(account, request.names).map((robot) => world.fleetStatus(robot)),
  }),
  batchGetSRobotStatus: (world, request, { account }) => ({
    robotStatus: world.batchRobots(account, request.names).map((robot) => world.status(robot)),
  }),
  listTaskReports: (world, request, { robot }) => world.listTaskReports(robot(), request.page, request.pageSize),
  getMapImageUri: (world, request, { robot, objectUrl }) => {
    const map = world.imageMap(robot(), request);
    return { downloadUri: objectUrl(`maps/${encodeURIComponent(request.serialNumber)}/${encodeURIComponent(map.id)}.png`) };
  },
};

interface BinaryReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function xmlEscape(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** An object store's error: an S3-style XML body. */
function objectError(status: number, code: string, message: string, headers: Record<string, string> = {}): BinaryReply {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`;
  return { status, headers: { "Content-Type": "application/xml", ...headers }, body: Buffer.from(body) };
}

/** A Host header safe to put into a URL (letters, digits, dots, dashes, brackets, a port). */
const HOST_PATTERN = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/**
 * The v1 batch reads each `names` value as one name: a comma-joined list is an
 * unknown robot and answers 403 (field notes), before any format check.
 */
function refuseJoinedNames(operation: OperationName, raw: unknown): void {
  if (operation !== "batchGetRobotStatus") return;
  const names = (raw as { names?: unknown }).names;
  const joined = Array.isArray(names) ? (names as unknown[]).find((name): name is string => typeof name === "string" && name.includes(",")) : undefined;
  if (joined !== undefined) {
    throw new SimError(Code.PERMISSION_DENIED, `The caller has no permission on robot ${joined} (or no such robot exists).`);
  }
}

interface TokenGrant {
  account: AccountSeed;
  /** Undefined for the seeded tokens, which never expire. */
  expiresAt: number | undefined;
}

class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: RateLimit | undefined,
    private readonly now: () => number,
  ) {}

  /** Counts one request of `key`; returns the seconds to wait when it is over the limit. */
  take(key: string): number | undefined {
    if (!this.limit) return undefined;
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.limit.windowMs) {
      if (this.windows.size > 10_000) this.windows.clear();
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= this.limit.requests) return Math.ceil((window.start + this.limit.windowMs - now) / 1000);
    window.count++;
    return undefined;
  }

  clear(): void {
    this.windows.clear();
  }
}

type BodyResult = { ok: true; text: string } | { ok: false };

function readBody(req: http.IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ ok: false });
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        settled = true;
        resolvePromise({ ok: false });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (settled) return;
      settled = true;
      resolvePromise({ ok: true, text: Buffer.concat(chunks).toString("utf8") });
    });
    req.on("error", (error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
  });
}

function isJsonContentType(header: string | undefined): boolean {
  return (header ?? "").split(";")[0]!.trim().toLowerCase() === "application/json";
}

function errorBody(code: number, message: string): { code: number; message: string; details: unknown[] } {
  return { code, message, details: [] };
}

function envelope(code: number, msg: string, data: unknown): { code: number; msg: string; data: unknown } {
  return { code, msg, data };
}

/** The error data of C1 is {} and of C2 [] (spec's error table; INVALID_ARGUMENT is {} in both). */
function envelopeErrorData(operation: OperationName, code: number): unknown {
  return operation === "listMaps" && code !== Code.INVALID_ARGUMENT ? [] : {};
}

class Simulator {
  private world: World;
  private readonly faults: FaultInjector;
  private readonly limiter: RateLimiter;
  private readonly tokens = new Map<string, TokenGrant>();
  private readonly issued: string[] = [];
  private readonly accounts: AccountSeed[];
  private readonly now: () => number;
  private readonly log: ((line: string) => void) | undefined;
  private readonly maxBodyBytes: number;
  private readonly tokenLifetimeMs: number;
  private readonly maxCommandsPerRobot: number;
  private readonly downloadUrlLifetimeMs: number;
  /** Signs the object store's URLs; new on every start, so old links stop working, as real ones would. */
  private readonly signingKey = randomBytes(32);
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly sockets = new Set<Socket>();
  readonly server: http.Server;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: SimulatorOptions) {
    this.now = options.now ?? Date.now;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.tokenLifetimeMs = options.tokenLifetimeMs ?? DEFAULT_TOKEN_LIFETIME_MS;
    this.maxCommandsPerRobot = options.maxCommandsPerRobot ?? 200;
    this.downloadUrlLifetimeMs = options.downloadUrlLifetimeMs ?? DEFAULT_DOWNLOAD_URL_LIFETIME_MS;
    if (!(this.downloadUrlLifetimeMs > 0)) throw new Error("downloadUrlLifetimeMs must be more than 0");
    this.log = options.quiet ? undefined : (options.log ?? ((line) => console.log(`${new Date().toISOString()} ${line}`)));
    const rateLimit = options.rateLimit === false ? undefined : (options.rateLimit ?? DEFAULT_RATE_LIMIT);
    if (rateLimit && !(rateLimit.requests >= 1 && rateLimit.windowMs > 0)) {
      throw new Error("rateLimit needs requests >= 1 and windowMs > 0");
    }
    this.limiter = new RateLimiter(rateLimit, this.now);
    this.faults = new FaultInjector(options.faults ?? {}, options.seed ?? 1);
    this.world = this.freshWorld();
    this.accounts = structuredClone(this.seed().accounts);
    if (options.tokens && this.accounts[0]) this.accounts[0].tokens = [...options.tokens];
    for (const account of this.accounts) {
      for (const token of account.tokens) this.tokens.set(token, { account, expiresAt: undefined });
    }
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        // Last resort: an unexpected failure still gets an answer and never crashes the process.
        if (!res.headersSent) this.write(res, { status: 500, body: errorBody(Code.INTERNAL, `simulator error: ${String(error)}`) });
        else res.destroy();
      });
    });
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  private seed(): FleetSeed {
    if (this.options.fleet) return this.options.fleet;
    return this.options.robots === undefined ? demoFleet() : grownFleet(this.options.robots);
  }

  private freshWorld(): World {
    return new World(this.seed(), {
      now: this.now,
      maxCommandsPerRobot: this.maxCommandsPerRobot,
      timing: this.options.timing,
      ignores: () => this.faults.ignores(),
    });
  }


  /** The world brought up to now: every read and every request sees time pass. */
  private current(): World {
    this.world.advance(this.now());
    return this.world;
  }

  updateRobot(serialNumber: string, raw: unknown): Record<string, unknown> {
    const robot = this.world.robots.get(serialNumber);
    if (!robot) throw new SimError(Code.NOT_FOUND, `Robot ${serialNumber} not found.`);
    const parsed = RobotChanges.safeParse(raw);
    if (!parsed.success) throw new SimError(Code.INVALID_ARGUMENT, describeIssues(parsed.error).message);
    this.world.updateRobot(robot, parsed.data);
    return this.world.status(robot);
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolvePromise, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        resolvePromise(this.server.address() as AddressInfo);
      });
    });
  }

  close(): Promise<void> {
    this.closing ??= new Promise((resolvePromise) => {
      for (const timer of this.timers) clearTimeout(timer);
      this.timers.clear();
      this.server.close(() => resolvePromise());
      for (const socket of this.sockets) socket.destroy();
    });
    return this.closing;
  }

  get currentFaults(): Faults {
    return this.faults.current;
  }

  setFaults(update: FaultsUpdate): Faults {
    return this.faults.update(update);
  }

  reset(): void {
    this.world = this.freshWorld();
    this.limiter.clear();
  }

  view(): FleetView {
    return {
      serialNumbers: () => [...this.world.robots.keys()],
      robot: (serialNumber) => {
        const robot = this.current().robots.get(serialNumber);
        return robot ? structuredClone(robot) : undefined;
      },
      status: (serialNumber) => {
        const robot = this.current().robots.get(serialNumber);
        return robot ? this.world.status(robot) : undefined;
      },
      commands: (serialNumber) => structuredClone([...(this.world.commands.get(serialNumber)?.values() ?? [])]),
    };
  }

  // ------------------------------------------------------------ one request

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const started = performance.now();
    const method = req.method ?? "GET";
    const [pathname = "/", queryString = ""] = (req.url ?? "/").split(/\?(.*)/s);
    const search = new URLSearchParams(queryString);
    const logLine = (outcome: string) => this.log?.(`${method} ${pathname} ${outcome} ${Math.round(performance.now() - started)}ms`);
    this.current();

    if (pathname.startsWith(CONTROL_PREFIX)) {
      const reply = await this.control(req, method, pathname);
      this.write(res, reply);
      logLine(String(reply.status));
      return;
    }

    if (pathname.startsWith(OBJECT_PREFIX)) {
      const reply = this.objectStore(req, method, pathname, search);
      res.writeHead(reply.status, { "Content-Length": String(reply.body.length), ...reply.headers });
      res.end(method === "HEAD" ? undefined : reply.body);
      // The path only: the query's signature is a credential.
      logLine(`${reply.status} object`);
      return;
    }

    const resolved = resolve(method, pathname);
    const roll: FaultRoll = this.faults.roll();
    await this.delay(this.faults.current.latencyMs);
    if (this.closing) return;

    let reply: Reply;
    if (roll.fail) {
      reply = this.failure(resolved);
    } else {
      try {
        reply = await this.process(req, method, pathname, resolved, search);
      } catch (error) {
        if (!(error instanceof SimError)) throw error;
        reply = this.errorReply(resolved, error);
      }
    }

    if (roll.drop) {
      // The request took effect; only its answer is lost, as when a connection breaks on the way back.
      req.socket.destroy();
      logLine("dropped");
      return;
    }
    const codeNote = reply.code ? ` code ${reply.code}` : "";
    if (roll.malformed) {
      this.write(res, reply, true);
      logLine(`${reply.status}${codeNote} malformed`);
      return;
    }
    this.write(res, reply);
    logLine(`${reply.status}${codeNote}`);
  }

  private delay(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolvePromise) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolvePromise();
      }, ms);
      this.timers.add(timer);
    });
  }

  private write(res: http.ServerResponse, reply: Reply, malformed = false): void {
    let text = JSON.stringify(reply.body);
    // Half an object or array is never valid JSON.
    if (malformed) text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
    res.writeHead(reply.status, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": String(Buffer.byteLength(text)),
      ...reply.headers,
    });
    res.end(text);
  }

  /** The simulated failure: HTTP 500, or INTERNAL inside the envelope on C1 and C2. */
  private failure(resolved: Resolved): Reply {
    return this.errorReply(resolved, new SimError(Code.INTERNAL, "Internal error (simulated failure)."));
  }

  private errorReply(resolved: Resolved, error: SimError): Reply {
    const { headers } = error;
    if (resolved.kind === "operation" && resolved.route.endpoint.envelope && !error.transport && ENVELOPE_CODES.has(error.code)) {
      return {
        status: 200,
        body: envelope(error.code, error.message, envelopeErrorData(resolved.route.operation, error.code)),
        headers,
        code: error.code,
      };
    }
    return { status: error.httpStatus, body: errorBody(error.code, error.message), headers, code: error.code };
  }

  private async process(
    req: http.IncomingMessage,
    method: string,
    pathname: string,
    resolved: Resolved,
    search: URLSearchParams,
  ): Promise<Reply> {
    switch (resolved.kind) {
      case "unknown":
        throw new SimError(Code.NOT_FOUND, `No route for ${method} ${pathname}.`);
      case "wrongMethod":
        throw new SimError(Code.UNIMPLEMENTED, `Method ${method} is not allowed here; use ${resolved.allowed.join(", ")}.`, {
          transport: true,
          headers: { Allow: resolved.allowed.join(", ") },
        });
      case "operation":
        return this.operation(req, resolved.route, resolved.params, search);
    }
  }

  private async operation(req: http.IncomingMessage, route: Route, params: Record<string, string>, search: URLSearchParams): Promise<Reply> {
    const { endpoint, operation } = route;
    const account = endpoint.authenticated ? this.authenticate(req) : undefined;
    let raw: unknown;
    if (endpoint.sendsBody) {
      // Read on a GET as well: the S-line batch status sends its names as a JSON body.
      raw = await this.jsonBody(req);
    } else {
      const query = readQuery(endpoint, search);
      if (query.twice) throw new SimError(Code.INVALID_ARGUMENT, `${query.twice}: given more than once`);
      raw = { ...query.fields, ...params };
      // Drain what a GET may carry, so the connection stays usable.
      req.resume();
    }
    refuseJoinedNames(operation, raw);
    const parsed = endpoint.request.safeParse(raw);
    if (!parsed.success) {
      const { message } = describeIssues(parsed.error);
      throw new SimError(Code.INVALID_ARGUMENT, message);
    }
    if (operation === "grantToken") return { status: 200, body: this.grant(parsed.data as Parsed<"grantToken">) };

    const fields = parsed.data as Record<string, unknown>;
    for (const [name, value] of Object.entries(params)) {
      if (fields[name] !== value) {
        const words = name.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`);
        throw new SimError(Code.INVALID_ARGUMENT, `${name}: must equal the ${words} in the path (${value})`);
      }
    }
    const serialNumber = endpoint.serialNumberOf?.(parsed.data);
    const robot = serialNumber === undefined ? undefined : this.world.robotFor(account!, serialNumber);
    const context: HandlerContext = {
      account: account!,
      raw,
      robot: () => {
        if (!robot) throw new Error(`${operation} names no robot`);
        return robot;
      },
      objectUrl: (key) => this.presign(req, key),
    };
    const handler = HANDLERS[operation] as Handler<RobotOperationName>;
    const result = handler(this.world, parsed.data as never, context);
    return endpoint.envelope ? { status: 200, body: envelope(0, "SUCCESS", result), code: 0 } : { status: 200, body: result };
  }

  // ------------------------------------------------------------ the object store (map images)

  /** The base the caller reached the simulator at (its Host header), or the address it listens on. */
  private baseOf(req: http.IncomingMessage): string {
    const host = req.headers.host ?? "";
    if (HOST_PATTERN.test(host)) return `http://${host}`;
    const address = this.server.address() as AddressInfo;
    return `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
  }

  private signature(pathname: string, expires: string): Buffer {
    return createHmac("sha256", this.signingKey).update(`${pathname}\n${expires}`).digest();
  }

  /** A pre-signed URL of the object: its expiry (epoch seconds) and an HMAC of path and expiry in the query. */
  private presign(req: http.IncomingMessage, key: string): string {
    const pathname = `${OBJECT_PREFIX}${key}`;
    const expires = String(Math.floor((this.now() + this.downloadUrlLifetimeMs) / 1000));
    return `${this.baseOf(req)}${pathname}?expires=${expires}&signature=${this.signature(pathname, expires).toString("hex")}`;
  }

  /**
   * GET of a pre-signed object, as object stores answer it: 400 when an
   * Authorization header comes along (one way of authenticating only), 403 for
   * a missing or wrong signature and once expired, 404 for no such object.
   */
  private objectStore(req: http.IncomingMessage, method: string, pathname: string, search: URLSearchParams): BinaryReply {
    req.resume();
    if (method !== "GET" && method !== "HEAD") return objectError(405, "MethodNotAllowed", `${method} is not allowed on an object.`, { Allow: "GET, HEAD" });
    if (req.headers.authorization !== undefined) {
      return objectError(400, "InvalidArgument", "Only one auth mechanism allowed: the signature in the query, or an Authorization header, not both.");
    }
    const expires = search.get("expires");
    const signature = search.get("signature");
    if (!expires || !signature) return objectError(403, "AccessDenied", "Query-string authentication requires the expires and signature parameters.");
    const expected = this.signature(pathname, expires);
    const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, "hex") : Buffer.alloc(0);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return objectError(403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.");
    }
    if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 <= this.now()) return objectError(403, "AccessDenied", "Request has expired");
    const object = /^\/_objects\/maps\/([^/]+)\/([^/]+)\.png$/.exec(pathname);
    const png = object ? this.world.mapImage(safeDecode(object[1]!), safeDecode(object[2]!)) : undefined;
    if (!png) return objectError(404, "NoSuchKey", "The specified key does not exist.");
    return { status: 200, headers: { "Content-Type": "image/png", "Cache-Control": "private, max-age=60" }, body: png };
  }

  /** The bearer token's account, then one request counted against the token's rate limit. */
  private authenticate(req: http.IncomingMessage): AccountSeed {
    const header = req.headers.authorization ?? "";
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (!token) {
      throw new SimError(Code.UNAUTHENTICATED, "Request is missing a bearer access token.", {
        transport: true,
        headers: { "WWW-Authenticate": "Bearer" },
      });
    }
    const grant = this.tokens.get(token);
    if (!grant || (grant.expiresAt !== undefined && this.now() >= grant.expiresAt)) {
      throw new SimError(Code.UNAUTHENTICATED, "The access token is invalid or has expired.", {
        transport: true,
        headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
      });
    }
    const waitSeconds = this.limiter.take(token);
    if (waitSeconds !== undefined) {
      throw new SimError(Code.RESOURCE_EXHAUSTED, "Rate limit exceeded: slow down and retry later.", {
        headers: { "Retry-After": String(waitSeconds) },
      });
    }
    return grant.account;
  }

  private async jsonBody(req: http.IncomingMessage): Promise<unknown> {
    if (!isJsonContentType(req.headers["content-type"])) {
      req.resume();
      throw new SimError(Code.INVALID_ARGUMENT, "Content-Type must be application/json.", { httpStatus: 415, transport: true });
    }
    const body = await readBody(req, this.maxBodyBytes);
    if (!body.ok) {
      throw new SimError(Code.INVALID_ARGUMENT, `Request body is larger than ${this.maxBodyBytes} bytes.`, {
        httpStatus: 413,
        transport: true,
        headers: { Connection: "close" },
      });
    }
    try {
      return JSON.parse(body.text) as unknown;
    } catch {
      throw new SimError(Code.INVALID_ARGUMENT, "Request body is not valid JSON.");
    }
  }

  /** The open-access grant (field notes): client id and secret, then the AccessKeySecret as open_access_key. */
  private grant(request: Parsed<"grantToken">): Record<string, unknown> {
    const account = this.accounts.find((candidate) =>
      candidate.clients.some((client) => client.clientId === request.client_id && client.clientSecret === request.client_secret),
    );
    const client = account?.clients.find((candidate) => candidate.clientId === request.client_id);
    if (!account || !client) throw new SimError(Code.UNAUTHENTICATED, "Invalid client credentials.");
    if (request.open_access_key !== client.accessKeySecret) throw new SimError(Code.INVALID_ARGUMENT, "Invalid open access key");
    const accessToken = `sim-${randomBytes(18).toString("hex")}`;
    const expiresAt = this.now() + this.tokenLifetimeMs;
    this.tokens.set(accessToken, { account, expiresAt });
    this.issued.push(accessToken);
    while (this.issued.length > MAX_ISSUED_TOKENS) this.tokens.delete(this.issued.shift()!);
    // expires_in is an absolute epoch in milliseconds, as the real cloud answers it.
    return { token_type: "bearer", access_token: accessToken, expires_in: expiresAt, refresh_token: `sim-refresh-${randomBytes(18).toString("hex")}` };
  }

  // ------------------------------------------------------------ control endpoints

  private async control(req: http.IncomingMessage, method: string, pathname: string): Promise<Reply> {
    const rest = pathname.slice(CONTROL_PREFIX.length);
    if (rest === "faults" && method === "GET") {
      req.resume();
      return { status: 200, body: this.faults.current };
    }
    if (rest === "faults" && method === "PUT") {
      const body = await readBody(req, this.maxBodyBytes);
      if (!body.ok) return { status: 413, body: errorBody(Code.INVALID_ARGUMENT, "Request body is too large."), headers: { Connection: "close" } };
      let update: unknown;
      try {
        update = JSON.parse(body.text);
      } catch {
        return { status: 400, body: errorBody(Code.INVALID_ARGUMENT, "Request body is not valid JSON.") };
      }
      try {
        return { status: 200, body: this.faults.update(update) };
      } catch (error) {
        const message = isZodError(error) ? describeIssues(error).message : String(error);
        return { status: 400, body: errorBody(Code.INVALID_ARGUMENT, message) };
      }
    }
    const robotPath = /^robots\/([^/]+)$/.exec(rest);
    if (robotPath && method === "PATCH") {
      const body = await readBody(req, this.maxBodyBytes);
      if (!body.ok) return { status: 413, body: errorBody(Code.INVALID_ARGUMENT, "Request body is too large."), headers: { Connection: "close" } };
      try {
        return { status: 200, body: this.updateRobot(safeDecode(robotPath[1]!), JSON.parse(body.text)) };
      } catch (error) {
        if (error instanceof SimError) return { status: error.httpStatus, body: errorBody(error.code, error.message) };
        return { status: 400, body: errorBody(Code.INVALID_ARGUMENT, "Request body is not valid JSON.") };
      }
    }
    if (robotPath) {
      req.resume();
      return { status: 405, body: errorBody(Code.UNIMPLEMENTED, `Method ${method} is not allowed here; use PATCH.`), headers: { Allow: "PATCH" } };
    }
    if (rest === "reset" && method === "POST") {
      req.resume();
      this.reset();
      return { status: 200, body: { reset: true, robots: [...this.world.robots.keys()] } };
    }
    req.resume();
    if (rest === "faults" || rest === "reset") {
      const allowed = rest === "faults" ? "GET, PUT" : "POST";
      return { status: 405, body: errorBody(Code.UNIMPLEMENTED, `Method ${method} is not allowed here; use ${allowed}.`), headers: { Allow: allowed } };
    }
    return { status: 404, body: errorBody(Code.NOT_FOUND, `No route for ${method} ${pathname}.`) };
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function isZodError(error: unknown): error is z.ZodError {
  return typeof error === "object" && error !== null && Array.isArray((error as { issues?: unknown }).issues);
}

/** Starts the simulator; resolves once it listens. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const simulator = new Simulator(options);
  const host = options.host ?? "127.0.0.1";
  const address = await simulator.listen(options.port ?? 0, host);
  // A wildcard address is not something to type into a browser: show loopback instead.
  const reachable = address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
  const urlHost = address.family === "IPv6" ? `[${reachable}]` : reachable;
  const state = simulator.view();
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    state,
    get faults() {
      return simulator.currentFaults;
    },
    setFaults: (update) => simulator.setFaults(update),
    reset: () => simulator.reset(),
    updateRobot: (serialNumber, changes) => simulator.updateRobot(serialNumber, changes),
    close: () => simulator.close(),
  };
}
