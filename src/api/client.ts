/**
 * A small typed client of the robot cloud, with no Node-RED in it. Its methods
 * are derived from the endpoint table; every call goes through the account's
 * request engine (pool, pacing, queue, pause, retries); every failure is a
 * RobotApiError.
 */
import type { z } from "zod";
import { ClientCredentialsTokenSource, StaticTokenSource, type ClientCredentials, type TokenSource } from "./auth";
import { ATTEMPT_TIMED_OUT, RequestEngine, ResendRequest, type CallTracker } from "./engine";
import type { EngineSettings } from "./engine-settings";
import {
  ENDPOINTS,
  pathFor,
  pathParamsOf,
  queryFor,
  type Endpoint,
  type RequestOf,
  type ResultOf,
  type RobotOperationName,
} from "./endpoints";
import { API_CODE_NAMES, RobotApiError, abortedError, describeIssues, invalidInput, type IssueWording } from "./errors";
import { ANSWER_TOO_LARGE, CONNECT_TIMED_OUT, HttpRoute, PROXY_REFUSED, proxyFor, type WireAnswer } from "./http";
import { BASE_URL_RULES, DEFAULT_BASE_URL } from "./rules";
import { Envelope, ErrorBody, STATUS_BATCH_SIZE, SerialNumber } from "./schemas";

export { BASE_URL_RULES, DEFAULT_BASE_URL };
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Answers larger than this are refused rather than buffered (an edge box has little memory). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** A connection takes at most this long, or half the call's timeout when that is shorter. */
const MAX_CONNECT_MS = 5000;

/** Network failures before the request was written: nothing reached the cloud, so sending again is safe. */
const CONNECT_FAILURES = new Set([
  "ECONNREFUSED",
  PROXY_REFUSED,
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  CONNECT_TIMED_OUT,
]);
/** Failures after the request may have been written: only a read is sent again. */
const CONNECTION_RESETS = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

export interface RetryOptions {
  /** How many times a call refused for rate limiting, or whose connection failed, is sent again. Default 3. */
  maxRetries?: number;
  /** First backoff delay when the cloud gives no Retry-After; doubles each time. Default 500 ms. */
  baseDelayMs?: number;
  /** No backoff is longer than this. Default 30 s. */
  maxDelayMs?: number;
  /** A Retry-After longer than this fails the calls it would hold. Default 60 s. */
  maxRetryWaitMs?: number;
}

export interface RobotClientOptions {
  /** Default https://openapi.gs-robot.com; http and https only; a trailing slash is fine. */
  baseUrl?: string;
  /** A fixed access token, or the portal's client credentials for the open-access grant. */
  auth: { token: string } | ClientCredentials;
  timeoutMs?: number;
  retry?: RetryOptions;
  /** The account's limits: connections (16), rateLimit per second (20, 0 = none), queueLimit (10,000). */
  engine?: Partial<Pick<EngineSettings, "connections" | "rateLimit" | "queueLimit">>;
}

export interface CallOptions {
  /** Aborts the call (queued, waiting or sent); the error is then of kind "aborted". */
  signal?: AbortSignal;
  /** Counts this caller's waiting and sending calls (a node's status). */
  tracker?: CallTracker;
  /** Called when the call is first put on the wire. */
  onSend?(): void;
  /** Receives a function that withdraws the call while it still waits. */
  onQueued?(withdraw: () => boolean): void;
}

/** listAllRobots asks for pages until one is shorter than pageSize, but never for more than this many by default. */
export const DEFAULT_MAX_ROBOT_PAGES = 1000;
/** Batch requests of one batchGetStatuses on the wire at once (the public fleet connector's 5, field notes). */
export const DEFAULT_STATUS_BATCHES_IN_FLIGHT = 5;

export interface ListAllRobotsOptions extends CallOptions {
  /** Robots per page, 1-1000. Default 100. */
  pageSize?: number;
  /** Default "cugrup", what the public fleet connector sends. */
  relation?: string;
  /** A server that keeps answering full pages is given up on after this many (an error, not a short list). Default 1000. */
  maxPages?: number;
}

export interface BatchStatusOptions extends CallOptions {
  /**
   * "v1": GET /v1alpha1/robots/-/status:batchGet, any line, the richer status;
   * "s": GET /openapi/v2alpha1/s/robots/*\/status:batchGet, S-line robots, B1's status.
   */
  line: "v1" | "s";
  /** Batch requests on the wire at once, 1-16. Default 5. */
  inFlight?: number;
}

type V1Status = ResultOf<"batchGetRobotStatus">["robotStatuses"][number];
type SLineStatus = ResultOf<"batchGetSRobotStatus">["robotStatus"][number];

/** Map images larger than this are refused (downloadMapImage's default maxBytes): 10 MiB. */
export const DEFAULT_MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/** Downloads from object storage on the wire at once, per client: each holds up to maxBytes in memory. */
export const DOWNLOAD_CONNECTIONS = 4;

export interface DownloadOptions extends CallOptions {
  /** A larger answer is refused (a bad_response) rather than buffered. Default 10 MiB. */
  maxBytes?: number;
}

/** A downloaded image: the bytes as they came, and the type the object store gave them. */
export interface MapImage {
  data: Buffer;
  /** The answer's Content-Type, e.g. image/png; application/octet-stream when it gave none. */
  contentType: string;
}

/**
 * Checks a pre-signed download URL before anything is sent: absolute, http or
 * https only (no file:, data: or other schemes), no user name or password.
 */
export function checkDownloadUri(raw: unknown, operation = "downloadMapImage"): URL {
  if (typeof raw !== "string" || raw.trim() === "") throw invalidInput("downloadUri", "must be an absolute http(s) URL", operation);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalidInput("downloadUri", "is not an absolute URL", operation);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalidInput("downloadUri", `only http and https are fetched, not ${url.protocol}`, operation);
  }
  if (url.username || url.password) throw invalidInput("downloadUri", "must not hold a user name or password", operation);
  return url;
}

/** An object store's error text: the Code and Message of an S3-style XML body, else the start of the text. */
function objectStoreReason(text: string): string {
  const code = /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];
  const message = /<Message>([^<]{1,300})<\/Message>/.exec(text)?.[1];
  if (code || message) return [code, message].filter(Boolean).join(": ");
  return text.slice(0, 200).trim();
}

/** A request checked against its endpoint's schema, with its path and body ready to send. */
export interface PreparedCall<Op extends RobotOperationName = RobotOperationName> {
  readonly operation: Op;
  readonly endpoint: Endpoint;
  /** The robot the request is for (undefined for the token grant). */
  readonly serialNumber: string | undefined;
  /** Path with its parameters encoded, and the query string ("" or "?..."): the request target. */
  readonly path: string;
  readonly query: string;
  readonly body: string | undefined;
  readonly urgent: boolean;
}

type ClientMethods = {
  [Op in RobotOperationName]: (input: RequestOf<Op>, options?: CallOptions) => Promise<ResultOf<Op>>;
};

/** Checks and normalises a base URL: http(s) only, no query or fragment, no trailing slash. */
export function normaliseBaseUrl(raw: string): string {
  // Callers from plain JavaScript (function nodes) may pass anything.
  if (typeof raw !== "string") throw invalidInput("baseUrl", "must be a string");
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    // The text is not repeated: a malformed URL may still hold a user name and password.
    throw invalidInput("baseUrl", "is not a URL");
  }
  if (!(BASE_URL_RULES.protocols as readonly string[]).includes(url.protocol)) {
    throw invalidInput("baseUrl", `only http and https are accepted, not ${url.protocol}`);
  }
  if (BASE_URL_RULES.forbiddenParts.some((part) => url[part] !== "")) {
    throw invalidInput("baseUrl", "must not hold credentials, a query or a fragment");
  }
  return url.href.replace(/\/+$/, "");
}

/**
 * Checks a request once, where it is built: the one validation of the call.
 * `wording` lets a caller name the fields as its user gave them.
 */
export function prepareCall<Op extends RobotOperationName>(operation: Op, input: unknown, wording?: IssueWording): PreparedCall<Op> {
  const endpoint = ENDPOINTS[operation] as unknown as Endpoint;
  const parsed = endpoint.request.safeParse(input);
  if (!parsed.success) {
    const { field, message } = describeIssues(parsed.error, wording);
    throw new RobotApiError({ kind: "invalid_input", field, operation, message });
  }
  return preparedFrom(operation, endpoint, parsed.data);
}

function preparedFrom<Op extends RobotOperationName>(operation: Op, endpoint: Endpoint, request: unknown): PreparedCall<Op> {
  const serialNumber = endpoint.serialNumberOf?.(request);
  const fields = request as Record<string, unknown>;
  // Path parameters are strings the request schema checked (SerialNumber, CommandId).
  const params: Record<string, string | undefined> = {};
  for (const name of pathParamsOf(endpoint.path)) params[name] = typeof fields[name] === "string" ? fields[name] : undefined;
  const query = queryFor(endpoint, request);
  return {
    operation,
    endpoint,
    serialNumber,
    path: pathFor(endpoint, params),
    query: query === "" ? "" : `?${query}`,
    // Also on a GET when the table says so (the S-line batch status): the transport writes it with its Content-Length.
    body: endpoint.sendsBody ? JSON.stringify(request) : undefined,
    urgent: endpoint.urgent?.(request) ?? false,
  };
}

/** The seconds an answer's Retry-After asks for (a number of seconds, or a date), if it says. */
function retryAfterOf(answer: WireAnswer): number | undefined {
  const header = answer.header("retry-after");
  if (header === undefined || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** The proxy for a target; a setting that cannot be used is bad input naming its variable. */
function proxyOf(target: URL, operation?: string): URL | undefined {
  try {
    return proxyFor(target);
  } catch (error) {
    throw invalidInput(target.protocol === "https:" ? "HTTPS_PROXY" : "HTTP_PROXY", error instanceof Error ? error.message : String(error), operation);
  }
}

/**
 * A google.rpc.Status-like {code, message[, details]} body with a non-zero code
 * is an error even under HTTP 200 (the cloud's error numbering, field notes).
 */
function errorBodyOf(body: unknown): { code: number; message: string } | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const keys = Object.keys(body);
  if (!keys.every((key) => ["code", "message", "msg", "details"].includes(key))) return undefined;
  const { code, message, msg } = body as { code?: unknown; message?: unknown; msg?: unknown };
  if (typeof code !== "number" || code === 0) return undefined;
  const text = typeof message === "string" ? message : typeof msg === "string" ? msg : "";
  return { code, message: text };
}

/** The constructor details of an error, to build one like it. */
function failureDetails(error: RobotApiError): ConstructorParameters<typeof RobotApiError>[0] {
  return {
    kind: error.kind,
    message: error.message,
    operation: error.operation,
    status: error.status,
    apiCode: error.apiCode,
    resultCode: error.resultCode,
    field: error.field,
    retryAfterSeconds: error.retryAfterSeconds,
    connectFailed: error.connectFailed,
    connectionReset: error.connectionReset,
  };
}

const JSON_HEADERS = { "Content-Type": "application/json", Accept: "application/json" };
/** A download's only credential is its URL's signature: no Authorization, no cookie. */
const IMAGE_HEADERS = { Accept: "image/png, image/*;q=0.9, */*;q=0.1" };

// Declaration merging gives the class one typed method per row of the endpoint table.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface RobotClient extends ClientMethods {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class RobotClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** The account's request engine: every call of this client goes through it. */
  readonly engine: RequestEngine;
  private readonly tokens: TokenSource;
  /** The way to the cloud: its keep-alive pool, direct, through an http proxy, or tunnelled through it. */
  private readonly cloud: HttpRoute;
  /**
   * The token grant has an engine of its own, so that calls waiting for a
   * token (each holding a place on the account's engine) never keep the grant
   * from its connection; it is retried by the same rules as any call.
   */
  private readonly grants: RequestEngine;
  /**
   * Downloads from pre-signed URLs (object storage, another host) have their
   * own engine and pools: they do not count against the account's request
   * rate, wait behind its calls or pause with it, and carry nothing of the
   * cloud client (base URL, token).
   */
  private readonly downloads: RequestEngine;
  /** Download routes by scheme and proxy: object storage may be another host each time, maybe behind another proxy rule. */
  private readonly downloadRoutes = new Map<string, HttpRoute>();
  private readonly connectMs: number;

  constructor(options: RobotClientOptions) {
    this.baseUrl = normaliseBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(this.timeoutMs) || this.timeoutMs <= 0) {
      throw invalidInput("timeoutMs", "must be a positive number of milliseconds");
    }
    this.engine = new RequestEngine({ ...options.retry, ...options.engine, timeoutMs: this.timeoutMs });
    this.tokens =
      "token" in options.auth
        ? new StaticTokenSource(options.auth.token)
        : new ClientCredentialsTokenSource(options.auth, (request) => this.grant(request));
    const base = new URL(this.baseUrl);
    // The cloud's proxy is read from the environment once, when the client (a robot-config) is made.
    const proxy = proxyOf(base);
    this.connectMs = Math.min(MAX_CONNECT_MS, this.timeoutMs / 2);
    // One keep-alive pool per account, never larger than the engine's connections.
    this.cloud = new HttpRoute(base.protocol === "https:", proxy, {
      sockets: this.engine.settings.connections,
      connectMs: this.connectMs,
      maxBytes: MAX_ANSWER_BYTES,
      headers: JSON_HEADERS,
    });
    this.grants = new RequestEngine({ ...options.retry, timeoutMs: this.timeoutMs, connections: 1, rateLimit: 0 });
    this.downloads = new RequestEngine({ ...options.retry, timeoutMs: this.timeoutMs, connections: DOWNLOAD_CONNECTIONS, rateLimit: 0 });
    for (const operation of Object.keys(ENDPOINTS) as RobotOperationName[]) {
      if (operation === ("grantToken" as string)) continue;
      Object.defineProperty(this, operation, {
        value: (input: unknown, callOptions?: CallOptions) => this.call(operation, input as never, callOptions),
      });
    }
  }

  /** Calls one operation of the endpoint table by name. */
  async call<Op extends RobotOperationName>(operation: Op, input: RequestOf<Op>, options: CallOptions = {}): Promise<ResultOf<Op>> {
    return this.send(prepareCall(operation, input), options);
  }

  /** Sends a request that prepareCall already checked, through the account's engine. */
  send<Op extends RobotOperationName>(prepared: PreparedCall<Op>, options: CallOptions = {}): Promise<ResultOf<Op>> {
    const { operation, endpoint } = prepared;
    // One fresh token after a 401, per call: the request was refused, so sending it again is safe.
    let renewedToken = false;
    const attempt = async (signal: AbortSignal): Promise<ResultOf<Op>> => {
      const token = endpoint.authenticated ? await this.tokenFor(signal, operation) : undefined;
      try {
        return (await this.exchange(prepared, signal, token)) as ResultOf<Op>;
      } catch (error) {
        if (error instanceof RobotApiError && error.status === 401 && token && !renewedToken && this.tokens.invalidate(token)) {
          renewedToken = true;
          throw new ResendRequest(error);
        }
        throw error;
      }
    };
    return this.engine.run(attempt, { ...options, urgent: prepared.urgent, read: endpoint.read, operation });
  }

  /**
   * Every robot of the account: pages of `pageSize` one after the other until a
   * page is shorter, each page a call through the engine. A robot listed twice
   * (the fleet changed while paging) is kept once. A full page that brings no
   * new robot (a server that ignores `page`), or more than `maxPages` full
   * pages, is a bad_response error rather than an endless loop.
   */
  async listAllRobots(options: ListAllRobotsOptions = {}): Promise<ResultOf<"listRobots">["robots"]> {
    const { pageSize = 100, relation, maxPages = DEFAULT_MAX_ROBOT_PAGES, ...callOptions } = options;
    if (!Number.isInteger(maxPages) || maxPages < 1) throw invalidInput("maxPages", "must be a whole number of 1 or more", "listRobots");
    const robots = new Map<string, ResultOf<"listRobots">["robots"][number]>();
    for (let page = 1; page <= maxPages; page++) {
      const prepared = prepareCall("listRobots", { page, pageSize, ...(relation === undefined ? {} : { relation }) });
      const answer = await this.send(prepared, callOptions);
      const before = robots.size;
      for (const robot of answer.robots) if (!robots.has(robot.serialNumber)) robots.set(robot.serialNumber, robot);
      if (answer.robots.length < Number(pageSize)) return [...robots.values()];
      if (robots.size === before) {
        throw new RobotApiError({
          kind: "bad_response",
          operation: "listRobots",
          message: `listRobots: page ${page} listed only robots of earlier pages: the cloud seems to ignore paging`,
        });
      }
    }
    throw new RobotApiError({
      kind: "bad_response",
      operation: "listRobots",
      message: `listRobots: still full pages after ${maxPages} pages of ${pageSize} robots; stopped (maxPages)`,
    });
  }

  /**
   * The status of any number of robots: the serial numbers (each checked before
   * anything is sent, duplicates asked for once) go in batches of at most 11,
   * each batch a call through the engine (paced and queued like any other), at
   * most `inFlight` at once. The statuses come back in the order the cloud
   * answers each batch, batch after batch. The first failing batch fails the
   * whole call and withdraws the batches not yet answered.
   */
  batchGetStatuses(serialNumbers: readonly string[], options: BatchStatusOptions & { line: "v1" }): Promise<V1Status[]>;
  batchGetStatuses(serialNumbers: readonly string[], options: BatchStatusOptions & { line: "s" }): Promise<SLineStatus[]>;
  batchGetStatuses(serialNumbers: readonly string[], options: BatchStatusOptions): Promise<(V1Status | SLineStatus)[]>;
  async batchGetStatuses(serialNumbers: readonly string[], options: BatchStatusOptions): Promise<(V1Status | SLineStatus)[]> {
    const { line, inFlight = DEFAULT_STATUS_BATCHES_IN_FLIGHT, signal, ...callOptions } = options;
    const operation = line === "v1" ? "batchGetRobotStatus" : line === "s" ? "batchGetSRobotStatus" : undefined;
    if (!operation) throw invalidInput("line", 'must be "v1" or "s"', "batchGetStatuses");
    if (!Number.isInteger(inFlight) || inFlight < 1 || inFlight > 16) throw invalidInput("inFlight", "must be a whole number from 1 to 16", operation);
    if (!Array.isArray(serialNumbers)) throw invalidInput("serialNumbers", "must be a list of serial numbers", operation);
    serialNumbers.forEach((serialNumber, index) => {
      const checked = SerialNumber.safeParse(serialNumber);
      if (!checked.success) {
        const field = `serialNumbers.${index}`;
        throw invalidInput(field, describeIssues(checked.error).message.replace(/^input: /, ""), operation);
      }
    });
    const unique = [...new Set(serialNumbers)];
    const batches: PreparedCall[] = [];
    for (let start = 0; start < unique.length; start += STATUS_BATCH_SIZE) {
      batches.push(prepareCall(operation, { names: unique.slice(start, start + STATUS_BATCH_SIZE) }));
    }
    // One failed batch ends the call: the others are withdrawn (queued) or aborted (on the wire, only reads).
    const stop = new AbortController();
    const linked = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    const results: (V1Status | SLineStatus)[][] = new Array<(V1Status | SLineStatus)[]>(batches.length);
    let next = 0;
    const worker = async () => {
      while (next < batches.length && !linked.aborted) {
        const index = next++;
        const answer = (await this.send(batches[index]!, { ...callOptions, signal: linked })) as Record<string, unknown>;
        results[index] = (line === "v1" ? answer.robotStatuses : answer.robotStatus) as (V1Status | SLineStatus)[];
      }
    };
    // The first failure is the one reported, not the aborts it caused in the other batches.
    let failure: { error: unknown } | undefined;
    const workers = Array.from({ length: Math.min(inFlight, batches.length) }, () =>
      worker().catch((error: unknown) => {
        failure ??= { error };
        stop.abort();
      }),
    );
    await Promise.all(workers);
    if (failure) throw failure.error;
    return results.flat();
  }

  /**
   * A map image: asks the cloud for the map's pre-signed download URL (a call
   * through the account's engine), then fetches the PNG from it with
   * downloadMapImage. A downloadUri that is not an http(s) URL is the cloud's
   * fault: a bad_response, and nothing is fetched.
   */
  async getMapImage(request: RequestOf<"getMapImageUri">, options: DownloadOptions = {}): Promise<MapImage> {
    const { maxBytes, ...callOptions } = options;
    const { downloadUri } = await this.getMapImageUri(request, callOptions);
    try {
      checkDownloadUri(downloadUri, "getMapImageUri");
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      throw new RobotApiError({ kind: "bad_response", operation: "getMapImageUri", message: `getMapImageUri: the cloud's ${problem}` });
    }
    return this.downloadMapImage(downloadUri, { ...callOptions, ...(maxBytes === undefined ? {} : { maxBytes }) });
  }

  /**
   * Fetches an image from an absolute pre-signed URL (the map endpoint's
   * downloadUri). It is another host: the request carries no Authorization
   * header and no cookie, only what the URL holds. http and https only, no
   * redirects, at most `maxBytes` (10 MiB), within the client's timeout.
   *
   * Not through the account's engine: its pacing guards the cloud account's
   * quota, which object storage does not count. Downloads have an engine of
   * their own instead, with no pacing but at most 4 at once (each may hold
   * maxBytes), the same timeout, abort and retries of failed connects.
   * Error messages name the URL without its query (the signature grants access).
   */
  async downloadMapImage(downloadUri: string, options: DownloadOptions = {}): Promise<MapImage> {
    const operation = "downloadMapImage";
    const { maxBytes = DEFAULT_MAX_IMAGE_BYTES, ...callOptions } = options;
    if (!Number.isInteger(maxBytes) || maxBytes < 1) throw invalidInput("maxBytes", "must be a whole number of bytes, 1 or more", operation);
    const url = checkDownloadUri(downloadUri, operation);
    const where = `${url.origin}${url.pathname}`;
    const hide = (text: string) => (url.search ? text.split(url.search).join("?***") : text);
    const route = this.downloadRoute(url, operation);
    const attempt = async (signal: AbortSignal): Promise<MapImage> => {
      let response: WireAnswer;
      try {
        response = await route.send({ method: "GET", url: url.href, signal, maxBytes });
      } catch (error) {
        if ((error as { code?: unknown }).code === ANSWER_TOO_LARGE && !signal.aborted) {
          throw new RobotApiError({
            kind: "bad_response",
            operation,
            message: `${operation}: the image at ${where} is larger than ${maxBytes} bytes (maxBytes); not downloaded`,
          });
        }
        const failure = this.transportError(error, operation, signal);
        throw new RobotApiError({ ...failureDetails(failure), message: hide(failure.message) });
      }
      const { status } = response;
      const bytes = response.body;
      if (status >= 200 && status <= 299) {
        const type = response.header("content-type")?.trim();
        return { data: bytes, contentType: type ? type : "application/octet-stream" };
      }
      const reason =
        status >= 300 && status <= 399
          ? "a redirect, which is not followed"
          : this.redact(objectStoreReason(bytes.subarray(0, 2000).toString("utf8"))) || response.statusText || "";
      const hint = status === 403 ? " (the link may have expired: ask for the map image again)" : "";
      throw new RobotApiError({
        kind: "http",
        operation,
        status,
        retryAfterSeconds: retryAfterOf(response),
        message: hide(`${operation}: HTTP ${status} from ${where}${reason ? `: ${reason}` : ""}${hint}`),
      });
    };
    return this.downloads.run(attempt, { ...callOptions, read: true, operation });
  }

  /** Drops every queued and running call of this client and frees its sockets. */
  close(): void {
    this.engine.close();
    this.grants.close();
    this.downloads.close();
    this.cloud.destroy();
    for (const route of this.downloadRoutes.values()) route.destroy();
  }

  /** The route of a download URL, by the proxy rules as they are now. */
  private downloadRoute(url: URL, operation: string): HttpRoute {
    const proxy = proxyOf(url, operation);
    const key = `${url.protocol}${proxy?.href ?? ""}`;
    let route = this.downloadRoutes.get(key);
    if (!route) {
      route = new HttpRoute(url.protocol === "https:", proxy, {
        sockets: DOWNLOAD_CONNECTIONS,
        connectMs: this.connectMs,
        maxBytes: DEFAULT_MAX_IMAGE_BYTES,
        headers: IMAGE_HEADERS,
      });
      this.downloadRoutes.set(key, route);
    }
    return route;
  }

  /** The token grant, on its own engine (see `grants`) and the cloud's route. */
  private grant(request: unknown): Promise<ResultOf<"grantToken">> {
    const prepared = prepareCall("grantToken" as RobotOperationName, request);
    // Asking for a token again is harmless: a reset after sending is retried as for a read.
    return this.grants.run((signal) => this.exchange(prepared, signal, undefined) as Promise<ResultOf<"grantToken">>, {
      read: true,
      operation: "grantToken",
    });
  }

  /**
   * The token for an attempt. Waiting for a grant counts against the attempt's
   * own time: when it runs out first, the call ends in a TIMEOUT like any call
   * without an answer, while the grant goes on for the others waiting on it.
   */
  private async tokenFor(signal: AbortSignal, operation: string): Promise<string> {
    try {
      return await this.tokens.getToken(signal);
    } catch (error) {
      if (signal.aborted) throw this.abortError(signal, operation, "access token (the token grant has not answered)");
      throw error;
    }
  }

  /** One request and its answer. */
  private async exchange(prepared: PreparedCall, signal: AbortSignal, token: string | undefined): Promise<unknown> {
    const { endpoint, operation } = prepared;
    let answer: WireAnswer;
    try {
      answer = await this.cloud.send({
        method: endpoint.method,
        url: this.baseUrl + prepared.path + prepared.query,
        ...(token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } }),
        body: prepared.body,
        signal,
      });
    } catch (error) {
      throw this.transportError(error, operation, signal);
    }
    return this.interpret(endpoint, operation, answer);
  }

  /** Why a call's signal ended it: its attempt ran out of time, or its caller (or a close) aborted it. */
  private abortError(signal: AbortSignal, operation: string, waitingFor = "answer"): RobotApiError {
    if (signal.reason === ATTEMPT_TIMED_OUT) {
      return new RobotApiError({ kind: "timeout", operation, message: `${operation}: no ${waitingFor} within ${this.timeoutMs / 1000} s` });
    }
    return abortedError(operation);
  }

  private transportError(error: unknown, operation: string, signal: AbortSignal): RobotApiError {
    if (signal.aborted) return this.abortError(signal, operation);
    // Only the code and text are kept: nothing of the request (its headers hold the token) is.
    const code = typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string" ? (error as { code: string }).code : undefined;
    if (code === ANSWER_TOO_LARGE || code?.startsWith("Z_")) {
      return new RobotApiError({ kind: "bad_response", operation, message: `${operation}: answer could not be read` });
    }
    const text = error instanceof Error ? error.message : String(error);
    return new RobotApiError({
      kind: "network",
      operation,
      message: this.redact(`${operation}: network error: ${text}`),
      connectFailed: code !== undefined && CONNECT_FAILURES.has(code),
      connectionReset: code !== undefined && CONNECTION_RESETS.has(code),
    });
  }

  private interpret<Res extends z.ZodType>(
    endpoint: Endpoint<z.ZodType, Res>,
    operation: string,
    response: WireAnswer,
  ): z.output<Res> {
    const { status } = response;
    // A server may echo what it was sent: no secret leaves through an answer, an error or an output.
    // Only the grant's own successful answer may hold a token: it is where tokens come from.
    const mayEcho = endpoint.authenticated || status < 200 || status > 299;
    const raw = response.body.toString("utf8");
    const text = mayEcho ? this.redact(raw) : raw;
    let body: unknown;
    let isJson = true;
    try {
      body = text.trim() === "" ? undefined : JSON.parse(text);
    } catch {
      isJson = false;
    }
    // A JSON escape (\/ or \u00XX) can hide a token from the text and bring it back when parsed.
    if (mayEcho && isJson && text.includes("\\")) body = this.redactValues(body);

    if (status < 200 || status > 299) {
      const errorBody = isJson ? ErrorBody.safeParse(body) : undefined;
      const fields = errorBody?.success ? errorBody.data : {};
      const apiCode = fields.code === undefined || fields.code === "" ? NaN : Number(fields.code);
      const serverText = fields.message ?? fields.msg ?? (isJson ? "" : text.slice(0, 200).trim());
      const reason = serverText || this.redact(response.statusText || "");
      const known = Number.isInteger(apiCode) ? apiCode : undefined;
      const codeName = known === undefined ? "" : ` ${API_CODE_NAMES[known] ?? `code ${known}`}`;
      return this.fail({
        kind: "http",
        operation,
        status,
        apiCode: known,
        retryAfterSeconds: retryAfterOf(response),
        message: `${operation}: HTTP ${status}${codeName}${reason ? `: ${reason}` : ""}`,
      });
    }
    if (!isJson) {
      return this.fail({ kind: "bad_response", operation, status, message: `${operation}: answer is not JSON` });
    }

    let data: unknown = body ?? {};
    const errorInSuccess = endpoint.envelope ? undefined : errorBodyOf(body);
    if (errorInSuccess) {
      const name = API_CODE_NAMES[errorInSuccess.code] ?? `code ${errorInSuccess.code}`;
      return this.fail({
        kind: "envelope",
        operation,
        status,
        apiCode: errorInSuccess.code,
        // A code 8 here is rate limiting like the envelope's: the server's wait is honoured the same way.
        retryAfterSeconds: retryAfterOf(response),
        message: `${operation}: ${name}${errorInSuccess.message ? `: ${errorInSuccess.message}` : ""}`,
      });
    }
    if (endpoint.envelope) {
      const envelope = Envelope.safeParse(body);
      if (!envelope.success) {
        return this.fail({ kind: "bad_response", operation, status, message: `${operation}: answer is not a {code, msg, data} envelope` });
      }
      if (envelope.data.code !== 0) {
        const name = API_CODE_NAMES[envelope.data.code] ?? `code ${envelope.data.code}`;
        return this.fail({
          kind: "envelope",
          operation,
          status,
          apiCode: envelope.data.code,
          retryAfterSeconds: retryAfterOf(response),
          message: `${operation}: ${name}${envelope.data.msg ? `: ${envelope.data.msg}` : ""}`,
        });
      }
      data = envelope.data.data;
    }

    const result = endpoint.response.safeParse(data);
    if (!result.success) {
      const { message } = describeIssues(result.error);
      return this.fail({ kind: "bad_response", operation, status, message: `${operation}: unexpected answer: ${message}` });
    }
    const rejection = endpoint.rejectionOf?.(result.data);
    if (rejection) {
      return this.fail({ kind: "rejected", operation, status, resultCode: rejection.resultCode, message: `${operation}: ${rejection.message}` });
    }
    return result.data;
  }

  private fail(details: ConstructorParameters<typeof RobotApiError>[0]): never {
    throw new RobotApiError({ ...details, message: this.redact(details.message) });
  }

  /** Every string (and key) in a parsed answer, redacted. */
  private redactValues(value: unknown): unknown {
    if (typeof value === "string") return this.redact(value);
    if (Array.isArray(value)) return value.map((item) => this.redactValues(item));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.redact(key), this.redactValues(item)]));
    }
    return value;
  }

  /** Every secret and every token this client has sent, replaced by ***. */
  private redact(text: string): string {
    let redacted = text;
    for (const secret of this.tokens.secrets()) {
      if (redacted.includes(secret)) redacted = redacted.split(secret).join("***");
    }
    return redacted;
  }
}
