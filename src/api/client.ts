/**
 * A small typed client of the robot cloud, with no Node-RED in it. Its methods
 * are derived from the endpoint table; every failure is a RobotApiError.
 */
import axios, { type AxiosInstance, type AxiosResponse } from "axios";
import type { z } from "zod";
import { ClientCredentialsTokenSource, StaticTokenSource, type ClientCredentials, type TokenSource } from "./auth";
import {
  ENDPOINTS,
  pathFor,
  type Endpoint,
  type RequestOf,
  type ResultOf,
  type RobotOperationName,
} from "./endpoints";
import { API_CODE_NAMES, RobotApiError, describeIssues, invalidInput } from "./errors";
import { Envelope, ErrorBody } from "./schemas";

export const DEFAULT_BASE_URL = "https://openapi.gs-robot.com";
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Answers larger than this are refused rather than buffered (an edge box has little memory). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export interface RetryOptions {
  /** How many times a rate-limited call (code 8, HTTP 429) is sent again. Default 3. */
  maxRetries?: number;
  /** First backoff delay; doubles each time. Default 500 ms. */
  baseDelayMs?: number;
  /** No wait is longer than this, Retry-After included. Default 30 s. */
  maxDelayMs?: number;
}

export interface RobotClientOptions {
  /** Default https://openapi.gs-robot.com; http and https only; a trailing slash is fine. */
  baseUrl?: string;
  /** A fixed access token, or the portal's client credentials for the open-access grant. */
  auth: { token: string } | ClientCredentials;
  timeoutMs?: number;
  retry?: RetryOptions;
}

export interface CallOptions {
  /** Aborts the call (and any backoff wait); the error is then of kind "aborted". */
  signal?: AbortSignal;
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
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalidInput("baseUrl", `only http and https are accepted, not ${url.protocol}`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw invalidInput("baseUrl", "must not hold credentials, a query or a fragment");
  }
  return url.href.replace(/\/+$/, "");
}

function sleep(ms: number, signal: AbortSignal | undefined, operation: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(operation));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(operation));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortedError(operation?: string): RobotApiError {
  return new RobotApiError({ kind: "aborted", operation, message: "request aborted" });
}

function parseRetryAfter(header: unknown, now: number): number | undefined {
  if (typeof header !== "string" || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
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

/** Which token a request went out with, so a 401 invalidates that one and no other. */
interface SentWith {
  token?: string;
}

// Declaration merging gives the class one typed method per row of the endpoint table.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface RobotClient extends ClientMethods {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class RobotClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  private readonly tokens: TokenSource;
  private readonly http: AxiosInstance;
  private readonly retry: Required<RetryOptions>;

  constructor(options: RobotClientOptions) {
    this.baseUrl = normaliseBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(this.timeoutMs) || this.timeoutMs <= 0) {
      throw invalidInput("timeoutMs", "must be a positive number of milliseconds");
    }
    this.retry = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000, ...options.retry };
    this.tokens =
      "token" in options.auth
        ? new StaticTokenSource(options.auth.token)
        : new ClientCredentialsTokenSource(options.auth, (request) => this.send(ENDPOINTS.grantToken, request, "grantToken"));
    this.http = axios.create({
      baseURL: this.baseUrl,
      // The answer is read as text and parsed here, so that a malformed body is
      // reported as such and every status reaches one place.
      responseType: "text",
      transformResponse: [(data: unknown) => data],
      validateStatus: () => true,
      // A redirect could carry the token to another host.
      maxRedirects: 0,
      maxContentLength: MAX_ANSWER_BYTES,
    });
    for (const operation of Object.keys(ENDPOINTS) as RobotOperationName[]) {
      if (operation === ("grantToken" as string)) continue;
      Object.defineProperty(this, operation, {
        value: (input: unknown, callOptions?: CallOptions) => this.call(operation, input as never, callOptions),
      });
    }
  }

  /** Calls one operation of the endpoint table by name. */
  async call<Op extends RobotOperationName>(
    operation: Op,
    input: RequestOf<Op>,
    options: CallOptions = {},
  ): Promise<ResultOf<Op>> {
    const endpoint = ENDPOINTS[operation] as unknown as Endpoint;
    const { signal } = options;
    let renewedToken = false;
    // Counts rate-limit retries only: the one resend after a 401 does not use one up.
    let retries = 0;
    for (;;) {
      const sent: SentWith = {};
      try {
        return (await this.send(endpoint, input, operation, signal, sent)) as ResultOf<Op>;
      } catch (error) {
        if (!(error instanceof RobotApiError)) throw error;
        // 401 means the request was not accepted: safe to send once more with a fresh token.
        if (error.status === 401 && !renewedToken && sent.token && this.tokens.invalidate(sent.token)) {
          renewedToken = true;
          continue;
        }
        // Rate limiting means the request was refused, so a retry cannot duplicate a command.
        if (error.isRateLimited && retries < this.retry.maxRetries) {
          await sleep(this.backoffMs(retries, error.retryAfterSeconds), signal, operation);
          retries++;
          continue;
        }
        throw error;
      }
    }
  }

  private backoffMs(attempt: number, retryAfterSeconds: number | undefined): number {
    const { baseDelayMs, maxDelayMs } = this.retry;
    if (retryAfterSeconds !== undefined) return Math.min(retryAfterSeconds * 1000, maxDelayMs);
    const exponential = Math.min(baseDelayMs * 2 ** attempt, maxDelayMs);
    return exponential / 2 + (Math.random() * exponential) / 2;
  }

  /** Validates, sends once and interprets the answer of one endpoint. */
  private async send<Req extends z.ZodType, Res extends z.ZodType>(
    endpoint: Endpoint<Req, Res>,
    input: unknown,
    operation: string,
    signal?: AbortSignal,
    sent: SentWith = {},
  ): Promise<z.output<Res>> {
    const parsed = endpoint.request.safeParse(input);
    if (!parsed.success) {
      const { field, message } = describeIssues(parsed.error);
      throw new RobotApiError({ kind: "invalid_input", field, operation, message });
    }
    const request = parsed.data;
    const path = pathFor(endpoint, endpoint.serialNumberOf?.(request));
    const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
    if (endpoint.authenticated) {
      const token = await this.tokens.getToken();
      sent.token = token;
      headers.Authorization = `Bearer ${token}`;
    }
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let response: AxiosResponse<string>;
    try {
      response = await this.http.request<string>({
        method: endpoint.method,
        url: path,
        headers,
        data: endpoint.sendsBody ? JSON.stringify(request) : undefined,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      throw this.transportError(error, operation, signal, timeout);
    }
    return this.interpret(endpoint, operation, response);
  }

  private transportError(error: unknown, operation: string, signal: AbortSignal | undefined, timeout: AbortSignal) {
    if (signal?.aborted) return abortedError(operation);
    if (timeout.aborted) {
      return new RobotApiError({
        kind: "timeout",
        operation,
        message: `${operation}: no answer within ${this.timeoutMs / 1000} s`,
      });
    }
    // Only the code and text are kept: the axios error holds the request headers, token included.
    const code = axios.isAxiosError(error) ? error.code : undefined;
    if (code === "ERR_BAD_RESPONSE" || code === "ERR_FR_MAX_CONTENT_LENGTH_EXCEEDED") {
      return new RobotApiError({ kind: "bad_response", operation, message: `${operation}: answer could not be read` });
    }
    const text = error instanceof Error ? error.message : String(error);
    return new RobotApiError({ kind: "network", operation, message: this.redact(`${operation}: network error: ${text}`) });
  }

  private interpret<Res extends z.ZodType>(
    endpoint: Endpoint<z.ZodType, Res>,
    operation: string,
    response: AxiosResponse<string>,
  ): z.output<Res> {
    const { status } = response;
    const text = typeof response.data === "string" ? response.data : "";
    let body: unknown;
    let isJson = true;
    try {
      body = text.trim() === "" ? undefined : JSON.parse(text);
    } catch {
      isJson = false;
    }

    if (status < 200 || status > 299) {
      const errorBody = isJson ? ErrorBody.safeParse(body) : undefined;
      const fields = errorBody?.success ? errorBody.data : {};
      const apiCode = fields.code === undefined || fields.code === "" ? NaN : Number(fields.code);
      // Redacted before it is cut short, so a secret straddling the cut cannot leave half of itself.
      const serverText = fields.message ?? fields.msg ?? (isJson ? "" : this.redact(text).slice(0, 200).trim());
      const reason = serverText || response.statusText || "";
      const known = Number.isInteger(apiCode) ? apiCode : undefined;
      const codeName = known === undefined ? "" : ` ${API_CODE_NAMES[known] ?? `code ${known}`}`;
      return this.fail({
        kind: "http",
        operation,
        status,
        apiCode: known,
        retryAfterSeconds: parseRetryAfter(response.headers["retry-after"], Date.now()),
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
        retryAfterSeconds: parseRetryAfter(response.headers["retry-after"], Date.now()),
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
          retryAfterSeconds: parseRetryAfter(response.headers["retry-after"], Date.now()),
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

  /** Servers sometimes echo what they were sent; no secret leaves through an error message. */
  private redact(text: string): string {
    let redacted = text;
    for (const secret of this.tokens.secrets()) redacted = redacted.split(secret).join("***");
    return redacted;
  }
}
