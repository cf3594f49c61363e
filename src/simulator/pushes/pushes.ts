/**
 * Pushes as the maker's Robot Push Service sends them (docs/cloud-api.md,
 * Pushed events): a JSON POST to the receiver's URL with the appId in the
 * body as its only authentication, no retry, no delivery guarantee. Sent with
 * axios in the background (never awaited by the world or by a request's
 * answer), at most MAX_PUSHES_IN_FLIGHT at once; every failure is counted and
 * logged, never thrown, and close() ends what is still on the way.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import https from "node:https";
import { performance } from "node:perf_hooks";
import axios, { type AxiosInstance } from "axios";
import { z } from "zod";
import type { PushRoll } from "../faults/faults";

/**
 * The envelopes the push service is known to use (docs/cloud-api.md, Pushed
 * events): "documented" `{appId, payload {serialNumber, modelTypeCode, content |
 * taskReport}}`; "typed", the one of subscriptions saved since 2025-05-15, with
 * `messageTypeId`, `productId` (the serial number, then only there), `messageId`,
 * `traceId` and `messageTimestamp` at the top level.
 */
export const PUSH_ENVELOPES = ["documented", "typed"] as const;
export type PushEnvelope = (typeof PUSH_ENVELOPES)[number];
/** How an incident's or a report's startTime and endTime are sent: epoch ms (0 for "not yet"), or RFC 3339 text (null for "not yet"). */
export const PUSH_TIME_FORMATS = ["epochMs", "iso"] as const;
export type PushTimeFormat = (typeof PUSH_TIME_FORMATS)[number];

/** Where pushes go: the receiver's URL and the appId every push carries, and in which shape (default documented, epoch ms). */
export interface PushTarget {
  url: string;
  appId: string;
  envelope?: PushEnvelope;
  times?: PushTimeFormat;
}

/** Deliveries since the simulator started (a reset keeps them). */
export interface PushCounters {
  /** Deliveries the receiver answered with a 2xx status (a duplicated push counts twice). */
  sent: number;
  /** Deliveries that got another status, no answer in time, no connection, or no room (too many in flight). */
  failed: number;
  /** Pushes never delivered (pushDropRate). */
  dropped: number;
  /** Pushes delivered twice (pushDuplicateRate). */
  duplicated: number;
}

/** GET /_sim/push: the target (url and appId null when pushing is off), its shape, and the counters. */
export interface PushState extends PushCounters {
  url: string | null;
  appId: string | null;
  envelope: PushEnvelope;
  times: PushTimeFormat;
}

/** What is POSTed: the appId and payload, the typed envelope's fields, and one undocumented field, as the real service sends more than documented. */
export interface PushBody {
  appId: string;
  payload: Record<string, unknown>;
  /** When the simulator sent it, epoch ms. Not in the maker's documentation: receivers must tolerate fields they do not know. */
  pushTime: number;
  messageTypeId?: number;
  productId?: string;
  messageId?: string;
  traceId?: string;
  messageTimestamp?: number;
}

/** messageTypeId of each kind of push, by the payload field that holds it (docs/cloud-api.md). */
const MESSAGE_TYPES = { content: 1, taskReport: 2, schedulingTask: 3 } as const;

/** A time as `times` sends it; 0 (or none) is "not yet". */
function timeAs(value: unknown, times: PushTimeFormat): unknown {
  if (times === "epochMs" || typeof value !== "number") return value;
  return value > 0 ? new Date(value).toISOString() : null;
}

/**
 * The body of one push in the target's shape. `payload` comes in the
 * documented shape, `{serialNumber, modelTypeCode, <kind>: {...}}`. A
 * scheduling task's run has no documented envelope: it always goes typed.
 */
export function pushBody(target: PushTarget, payload: Record<string, unknown>, now: number): PushBody {
  const times = target.times ?? "epochMs";
  const kind = (Object.keys(MESSAGE_TYPES) as (keyof typeof MESSAGE_TYPES)[]).find((key) => key in payload);
  const event = kind === undefined ? undefined : (payload[kind] as Record<string, unknown>);
  const shaped =
    kind === undefined || event === undefined
      ? payload
      : { ...payload, [kind]: { ...event, startTime: timeAs(event.startTime, times), endTime: timeAs(event.endTime, times) } };
  if ((target.envelope ?? "documented") === "documented" && kind !== "schedulingTask")
    return { appId: target.appId, payload: shaped, pushTime: now };
  const { serialNumber, ...rest } = shaped;
  // A scheduling task's fields are the payload itself (their shape is not published).
  const typedPayload =
    kind === "schedulingTask" ? { ...(rest.schedulingTask as Record<string, unknown>), modelTypeCode: rest.modelTypeCode } : rest;
  return {
    appId: target.appId,
    messageTypeId: kind === undefined ? 0 : MESSAGE_TYPES[kind],
    productId: String(serialNumber),
    messageId: randomUUID(),
    traceId: randomUUID(),
    messageTimestamp: now,
    payload: typedPayload,
    pushTime: now,
  };
}

/** What became of one push: `body` is what was (or, dropped, would have been) sent; none without a target. */
export interface PushOutcome {
  pushed: boolean;
  body: PushBody | undefined;
}

/** A delivery that has no answer in this time fails (the real sender documents no retry, so neither does this). */
export const PUSH_TIMEOUT_MS = 5000;
/** Deliveries on the way at once; over this a push is not sent, counted as failed. */
export const MAX_PUSHES_IN_FLIGHT = 64;

const HTTP_URL = "must be an http(s) URL";
const APP_ID = "must be a non-empty string";

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

const httpUrl = z.string({ error: HTTP_URL }).refine(isHttpUrl, HTTP_URL);
const appId = z.string({ error: APP_ID }).refine((text) => text.trim() !== "", APP_ID);

const envelope = z.enum(PUSH_ENVELOPES, { error: `must be ${PUSH_ENVELOPES.map((name) => `"${name}"`).join(" or ")}` }).optional();
const times = z.enum(PUSH_TIME_FORMATS, { error: `must be ${PUSH_TIME_FORMATS.map((name) => `"${name}"`).join(" or ")}` }).optional();

/** A push target as the options, setPush and the command line take it: one schema, the same words. */
export const PushTargetSchema = z.strictObject({ url: httpUrl, appId, envelope, times });

/** PUT /_sim/push: a target, or {url: null} to stop pushing. */
export const PushUpdate = z
  .strictObject({ url: httpUrl.nullable(), appId: appId.optional(), envelope, times })
  .superRefine((update, context) => {
    if (update.url !== null && update.appId === undefined)
      context.addIssue({ code: "custom", path: ["appId"], message: "is needed with a url" });
  });

export interface PushSenderOptions {
  /** The push fault dice (FaultInjector.pushRoll). */
  roll: () => PushRoll;
  now: () => number;
  /** One line per delivery (only failures when `failuresOnly`); never the appId. */
  log: ((line: string) => void) | undefined;
  failuresOnly?: boolean;
  maxInFlight?: number;
  timeoutMs?: number;
}

export class PushSender {
  private target: PushTarget | undefined;
  private readonly counters: PushCounters = { sent: 0, failed: 0, dropped: 0, duplicated: 0 };
  private readonly inFlight = new Set<AbortController>();
  /** Pushes whose deliveries are not all over (close() waits for them). */
  private readonly settling = new Set<Promise<void>>();
  /** Whether the bound was hit since deliveries were last all over: one log line per such spell. */
  private overflowing = false;
  private closed = false;
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  private readonly client: AxiosInstance;
  private readonly maxInFlight: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: PushSenderOptions) {
    this.maxInFlight = options.maxInFlight ?? MAX_PUSHES_IN_FLIGHT;
    this.timeoutMs = options.timeoutMs ?? PUSH_TIMEOUT_MS;
    this.client = axios.create({
      timeout: this.timeoutMs,
      // A simulator on a developer's machine pushes to where it is told, not through the environment's proxy.
      proxy: false,
      maxRedirects: 0,
      validateStatus: () => true,
      responseType: "text",
      maxContentLength: 1024 * 1024,
      headers: { "Content-Type": "application/json" },
      // The body is serialized when the push is made: later changes of the fleet do not reach it.
      transformRequest: [(data: unknown) => data],
      httpAgent: this.agents.http,
      httpsAgent: this.agents.https,
    });
  }

  get state(): PushState {
    const target = this.target;
    return {
      url: target?.url ?? null,
      appId: target?.appId ?? null,
      envelope: target?.envelope ?? "documented",
      times: target?.times ?? "epochMs",
      ...this.counters,
    };
  }

  /** Sets the target (undefined stops pushing); throws a ZodError naming the field when it is not valid. */
  setTarget(target: PushTarget | undefined): PushState {
    this.target = target === undefined ? undefined : PushTargetSchema.parse(target);
    return this.state;
  }

  /** Applies PUT /_sim/push's body; throws a ZodError naming the field. */
  update(raw: unknown): PushState {
    const update = PushUpdate.parse(raw);
    const { url, appId: id, ...shape } = update;
    return this.setTarget(url === null ? undefined : { url, appId: id!, ...shape });
  }

  get active(): boolean {
    return this.target !== undefined && !this.closed;
  }

  /** Pushes `payload` (about `label`, for the log; in the documented shape, sent in the target's) to the target, if there is one, in the background. */
  push(label: string, payload: Record<string, unknown>): PushOutcome {
    const target = this.target;
    if (!target || this.closed) return { pushed: false, body: undefined };
    const body = pushBody(target, payload, this.options.now());
    const roll = this.options.roll();
    if (roll.drop) {
      this.counters.dropped++;
      return { pushed: false, body };
    }
    if (roll.duplicate) this.counters.duplicated++;
    const text = JSON.stringify(body);
    const deliveries = async () => {
      for (let copy = roll.duplicate ? 2 : 1; copy > 0; copy--) await this.deliver(target.url, text, label);
    };
    const settled = deliveries().catch((error: unknown) => this.options.log?.(`PUSH ${label} failed unexpectedly: ${String(error)}`));
    this.settling.add(settled);
    void settled.finally(() => this.settling.delete(settled));
    return { pushed: true, body };
  }

  /** One POST; resolves in every case, its outcome counted and logged. */
  private async deliver(url: string, text: string, label: string): Promise<void> {
    if (this.closed) return;
    const where = describeUrl(url);
    if (this.inFlight.size >= this.maxInFlight) {
      this.counters.failed++;
      if (!this.overflowing) {
        this.overflowing = true;
        this.options.log?.(
          `PUSH ${label} to ${where} not sent: ${this.maxInFlight} pushes already on the way (more are counted as failed until they are done)`,
        );
      }
      return;
    }
    const controller = new AbortController();
    this.inFlight.add(controller);
    const started = performance.now();
    let problem: string | undefined;
    let status = 0;
    try {
      const answer = await this.client.post(url, text, { signal: controller.signal });
      status = answer.status;
      if (status < 200 || status > 299) problem = `HTTP ${status}`;
    } catch (error) {
      problem = controller.signal.aborted ? "ended: the simulator is closing" : this.describeFailure(error);
    } finally {
      this.inFlight.delete(controller);
      if (this.inFlight.size === 0) this.overflowing = false;
    }
    const ms = Math.round(performance.now() - started);
    if (problem === undefined) {
      this.counters.sent++;
      if (!this.options.failuresOnly) this.options.log?.(`PUSH ${label} to ${where} ${status} ${ms}ms`);
      return;
    }
    this.counters.failed++;
    if (!this.closed) this.options.log?.(`PUSH ${label} to ${where} failed: ${problem} ${ms}ms`);
  }

  private describeFailure(error: unknown): string {
    if (!axios.isAxiosError(error)) return String(error);
    if (error.code === "ECONNABORTED" || error.code === "ETIMEDOUT") return `no answer within ${this.timeoutMs} ms`;
    return error.message;
  }

  /** Ends every delivery still on the way (counted as failed) and sends no more. */
  async close(): Promise<void> {
    this.closed = true;
    for (const controller of this.inFlight) controller.abort();
    await Promise.all([...this.settling]);
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

/** The URL without its query (which may carry a secret of the receiver's). */
function describeUrl(text: string): string {
  const url = new URL(text);
  return `${url.origin}${url.pathname}`;
}
