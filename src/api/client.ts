/**
 * A small typed client of the robot cloud, with no Node-RED in it. Its methods
 * are derived from the endpoint table; every call goes through the account's
 * request engine (pool, pacing, queue, pause, retries); every failure is a
 * RobotApiError.
 */
import { readAnswer } from "./http/answers";
import { REAL_CLOCK } from "./engine/clock";
import { ClientCredentialsTokenSource, StaticTokenSource, type ClientCredentials, type TokenSource } from "./account/auth";
import { MapDownloads, checkDownloadUri, type DownloadOptions, type MapImage } from "./http/downloads";
import { RequestEngine } from "./engine/engine";
import { ResendRequest, type EngineSettings, type CallOptions, type RetryOptions } from "./settings/call-settings";
import { SHARED_CALL_CLASSES, isSharedCallClass } from "./settings/call-settings";
import { ENDPOINTS, type RequestOf, type ResultOf, type RobotOperationName } from "./cloud/endpoints";
import { RobotApiError, invalidInput } from "./errors";
import { HttpRoute, proxyFor, type WireAnswer } from "./http/http";
import { normaliseBaseUrl, prepareCall, type PreparedCall } from "./http/prepare";
import { redactorOf, type Redact } from "./http/redaction";
import { BASE_URL_RULES, DEFAULT_BASE_URL } from "./settings/input-rules";
import { STATUS_BATCH_SIZE } from "./cloud/schemas";
import type { AccountSharing } from "./account/shared-account";
import { accountKeyOf } from "./account/account-memory";
import { DEFAULT_ARRIVAL_RADIUS_CELLS, sentNavigationsOf } from "./watching/navigation";
import { robotDirectoryOf } from "./account/robot-directory";
import { readBatchFindingFault, unreachableRobotsOf } from "./watching/unreachable-robots";
import { abortFailure, wireFailure } from "./http/wire-failures";
import { notOneOf } from "./settings/input-problems";

// What the client's callers in this package use with it; the package's public names are index.ts's.
export { CALL_CLASS_SHARES, SHARED_CALL_CLASSES, type CallClass, type SharedCallClass } from "./settings/call-settings";
export { checkDownloadUri, DEFAULT_MAX_IMAGE_BYTES, DOWNLOAD_CONNECTIONS, type DownloadOptions, type MapImage } from "./http/downloads";
export type { CallOptions, RetryOptions } from "./settings/call-settings";
export { normaliseBaseUrl, prepareCall, type PreparedCall } from "./http/prepare";
export { BASE_URL_RULES, DEFAULT_BASE_URL };
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Answers larger than this are refused rather than buffered (an edge box has little memory). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** A connection takes at most this long, or half the call's timeout when that is shorter. */
const MAX_CONNECT_MS = 5000;
const ACCEPT_JSON = { Accept: "application/json" };
/** Sent with every call whose endpoint row does not say it goes without (docs/cloud-api.md, Calls and authentication). */
const JSON_CONTENT_TYPE = { "Content-Type": "application/json" };

export interface RobotClientOptions {
  /** Default https://openapi.gs-robot.com; http and https only; a trailing slash is fine. */
  baseUrl?: string;
  /** A fixed access token, or the portal's client credentials for the open-access grant. */
  auth: { token: string } | ClientCredentials;
  timeoutMs?: number;
  retry?: RetryOptions;
  /** The account's limits: connections (16), rateLimit per second (20, 0 = none), queueLimit (10,000). */
  engine?: Partial<Pick<EngineSettings, "connections" | "rateLimit" | "queueLimit">>;
  /** Grid cells within which a robot has arrived at a navigation point (watching/navigation.ts); default 10. */
  arrivalRadius?: number;
  /** The account is shared with other processes (src/api/sharing): its rate, pause, token and watching. The client closes it. */
  sharing?: AccountSharing;
}

/** listAllRobots asks for pages until one is shorter than pageSize, but never for more than this many by default. */
export const DEFAULT_MAX_ROBOT_PAGES = 1000;
/** Batch requests of one batchGetStatuses on the wire at once (the public fleet connector's 5, docs/cloud-api.md). */
const STATUS_BATCHES_IN_FLIGHT = 5;

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
}

type V1Status = ResultOf<"batchGetRobotStatus">["robotStatuses"][number];
type SLineStatus = ResultOf<"batchGetSRobotStatus">["robotStatus"][number];

type ClientMethods = {
  [Op in RobotOperationName]: (input: RequestOf<Op>, options?: CallOptions) => Promise<ResultOf<Op>>;
};

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
  /** Downloads from pre-signed URLs, on an engine and pools of their own (downloads.ts says why). */
  private readonly downloads: MapDownloads;
  /** Every secret and every token this client has sent, replaced by ***. */
  private readonly redact: Redact;
  /** The processes this account is shared with, when it is (robot-status asks it who watches). */
  readonly sharing: AccountSharing | undefined;
  /** The account in the package's memory (account-memory.ts): the same for every robot-config of one account. */
  readonly accountKey: string;
  /** Grid cells (pixels of the map image) within which a robot has arrived at a navigation point: the account's maps' scale. */
  readonly arrivalRadius: number;

  constructor(options: RobotClientOptions) {
    this.baseUrl = normaliseBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(this.timeoutMs) || this.timeoutMs <= 0) {
      throw invalidInput("timeoutMs", "must be a positive number of milliseconds");
    }
    this.sharing = options.sharing;
    this.arrivalRadius = options.arrivalRadius ?? DEFAULT_ARRIVAL_RADIUS_CELLS;
    if (!Number.isFinite(this.arrivalRadius) || this.arrivalRadius < 0)
      throw invalidInput("arrivalRadius", "must be a number of grid cells, 0 or more");
    this.accountKey = accountKeyOf(this.baseUrl, "token" in options.auth ? options.auth.token : options.auth.clientId);
    this.engine = new RequestEngine({ ...options.retry, ...options.engine, timeoutMs: this.timeoutMs }, REAL_CLOCK, this.sharing?.gate);
    this.tokens =
      "token" in options.auth
        ? new StaticTokenSource(options.auth.token)
        : new ClientCredentialsTokenSource(options.auth, (request) => this.grant(request), { shared: this.sharing?.token });
    const base = new URL(this.baseUrl);
    // The cloud's proxy is read from the environment once, when the client (a robot-config) is made.
    const proxy = proxyFor(base);
    const connectMs = Math.min(MAX_CONNECT_MS, this.timeoutMs / 2);
    // One keep-alive pool per account, never larger than the engine's connections.
    this.cloud = new HttpRoute(base.protocol === "https:", proxy, {
      sockets: this.engine.settings.connections,
      connectMs,
      maxBytes: MAX_ANSWER_BYTES,
      headers: ACCEPT_JSON,
    });
    this.grants = new RequestEngine({ ...options.retry, timeoutMs: this.timeoutMs, connections: 1, rateLimit: 0 });
    this.redact = redactorOf(() => this.tokens.secrets());
    this.downloads = new MapDownloads({ retry: options.retry, timeoutMs: this.timeoutMs, connectMs, redact: this.redact });
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
    const callClass = options.callClass ?? endpoint.callClass;
    if (callClass !== undefined && !isSharedCallClass(callClass)) {
      return Promise.reject(invalidInput("callClass", notOneOf(SHARED_CALL_CLASSES), operation));
    }
    const answered = this.engine.run(attempt, { ...options, urgent: prepared.urgent, read: endpoint.read, operation, callClass });
    if (operation !== "submitCommand") return answered;
    // Where a robot was sent: a status never says, and pausing, resuming or stopping the navigation names it.
    return answered.then((answer) => {
      sentNavigationsOf(this.accountKey).noteSent(prepared.request);
      return answer;
    });
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
      if (answer.robots.length < Number(pageSize)) {
        // Whoever lists the robots brings the account's directory up to date (names, models, versions).
        robotDirectoryOf(this.accountKey).learn([...robots.values()]);
        return [...robots.values()];
      }
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
   * most STATUS_BATCHES_IN_FLIGHT at once. The statuses come back in the order the cloud
   * answers each batch, batch after batch. A batch refused whole because of a
   * robot is split until the robot at fault is alone, which is reported
   * unreachable (unreachable-robots.ts: its last status offline, with the
   * reason), left out of later batches and asked again alone with backoff; a
   * call naming that one robot ends in the cloud's refusal. Any other failing
   * batch (the account's or the cloud's) fails the whole call and withdraws
   * the batches not yet answered.
   */
  batchGetStatuses(serialNumbers: readonly string[], options: BatchStatusOptions & { line: "v1" }): Promise<V1Status[]>;
  batchGetStatuses(serialNumbers: readonly string[], options: BatchStatusOptions & { line: "s" }): Promise<SLineStatus[]>;
  batchGetStatuses(serialNumbers: readonly string[], options: BatchStatusOptions): Promise<(V1Status | SLineStatus)[]>;
  async batchGetStatuses(serialNumbers: readonly string[], options: BatchStatusOptions): Promise<(V1Status | SLineStatus)[]> {
    const { line, signal, ...callOptions } = options;
    const operation = line === "v1" ? "batchGetRobotStatus" : line === "s" ? "batchGetSRobotStatus" : undefined;
    if (!operation) throw invalidInput("line", 'must be "v1" or "s"', "batchGetStatuses");
    if (!Array.isArray(serialNumbers)) throw invalidInput("serialNumbers", "must be a list of serial numbers", operation);
    const unique: string[] = [...new Set<string>(serialNumbers)];
    const unreachable = unreachableRobotsOf(this.accountKey);
    const resting = unique.filter((serialNumber) => unreachable.isResting(serialNumber));
    // A robot at fault whose time has come is asked alone (by one call at a time): still refused, it costs one call, not a split of its batch.
    const due = unreachable.takeDue(unique);
    const others = unique.filter((serialNumber) => unreachable.get(serialNumber) === undefined);
    const batches: string[][] = due.map((serialNumber) => [serialNumber]);
    for (let start = 0; start < others.length; start += STATUS_BATCH_SIZE) batches.push(others.slice(start, start + STATUS_BATCH_SIZE));
    // The one check of each serial number (before anything is sent), named by its place in the caller's list.
    const prepare = (names: readonly string[]) =>
      prepareCall(
        operation,
        { names: [...names] },
        {
          nameOf: (path) =>
            path[0] === "names" && typeof path[1] === "number"
              ? `serialNumbers.${serialNumbers.indexOf(names[path[1]]!)}`
              : path.map(String).join(".") || "input",
        },
      );
    const prepared = new Map(batches.map((names) => [names, prepare(names)]));
    // One failed batch ends the call: the others are withdrawn (queued) or aborted (on the wire, only reads).
    const stop = new AbortController();
    const linked = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    const ask = async (names: readonly string[]) => {
      const answer = (await this.send(prepared.get(names as string[]) ?? prepare(names), { ...callOptions, signal: linked })) as Record<
        string,
        unknown
      >;
      return (line === "v1" ? answer.robotStatuses : answer.robotStatus) as Record<string, unknown>[];
    };
    const results: Record<string, unknown>[][] = new Array<Record<string, unknown>[]>(batches.length);
    let next = 0;
    const worker = async () => {
      while (next < batches.length && !linked.aborted) {
        const index = next++;
        results[index] = await readBatchFindingFault(unreachable, batches[index]!, line, ask);
      }
    };
    // The first failure is the one reported, not the aborts it caused in the other batches.
    let failure: { error: unknown } | undefined;
    const workers = Array.from({ length: Math.min(STATUS_BATCHES_IN_FLIGHT, batches.length) }, () =>
      worker().catch((error: unknown) => {
        failure ??= { error };
        stop.abort();
      }),
    );
    await Promise.all(workers);
    unreachable.release(due);
    if (failure) throw failure.error;
    // A read of one robot alone that is at fault (resting before, or found now) ends in the cloud's refusal.
    const [alone] = unique;
    if (unique.length === 1 && unreachable.isResting(alone!)) throw unreachable.errorOf(alone!);
    return [...results.flat(), ...resting.map((serialNumber) => unreachable.statusOf(serialNumber, line))] as (V1Status | SLineStatus)[];
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
    let url: URL;
    try {
      url = checkDownloadUri(downloadUri, "getMapImageUri");
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      throw new RobotApiError({ kind: "bad_response", operation: "getMapImageUri", message: `getMapImageUri: the cloud's ${problem}` });
    }
    return this.downloads.download(url, { ...callOptions, ...(maxBytes === undefined ? {} : { maxBytes }) });
  }

  /**
   * Fetches an image from an absolute pre-signed URL (the map endpoint's
   * downloadUri): no Authorization header and no cookie, http and https only,
   * no redirects, at most `maxBytes` (10 MiB), within the client's timeout,
   * at most 4 at once and not paced with the account's calls; error messages
   * name the URL without its query (downloads.ts).
   */
  downloadMapImage(downloadUri: string, options: DownloadOptions = {}): Promise<MapImage> {
    return this.downloads.download(downloadUri, options);
  }

  /** Drops every queued and running call of this client and frees its sockets. */
  close(): void {
    this.engine.close();
    this.grants.close();
    this.downloads.close();
    this.cloud.destroy();
    this.sharing?.close();
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
      if (signal.aborted) throw abortFailure(signal, operation, this.timeoutMs, "access token (the token grant has not answered)");
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
        headers: {
          ...(endpoint.withoutContentType ? {} : JSON_CONTENT_TYPE),
          ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
        },
        body: prepared.body,
        signal,
      });
    } catch (error) {
      throw wireFailure(error, operation, signal, this.timeoutMs, this.redact);
    }
    return readAnswer(endpoint, operation, answer, this.redact);
  }
}
