/** What the request engine is set with and what each call carries: the engine's settings and defaults, a call's options and tracker, the client's retry and call options. */

import type { RobotApiError } from "../errors";

/** What an account's request engine is set with, and its defaults (the cloud's known quota among them). */
export interface EngineSettings {
  /** Calls on the wire at once (and so sockets). */
  connections: number;
  /** Call starts per second for the account; 0 = no pacing. */
  rateLimit: number;
  /** Calls allowed to wait; one more fails with QUEUE_FULL (stop commands excepted). */
  queueLimit: number;
  /** Resends of one call after a rate-limit answer or a failed connection. */
  maxRetries: number;
  /** A Retry-After longer than this fails the calls it would hold instead of waiting. */
  maxRetryWaitMs: number;
  /** Each attempt's limit, from sending to the whole answer. */
  timeoutMs: number;
  /** First backoff when the cloud gives no Retry-After; doubles per retry. */
  baseDelayMs: number;
  /** No backoff is longer than this. */
  maxDelayMs: number;
}

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  connections: 16,
  rateLimit: 20,
  queueLimit: 10_000,
  maxRetries: 3,
  maxRetryWaitMs: 60_000,
  timeoutMs: 10_000,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

/**
 * What a caller hands the request engine with each call (engine.ts): the
 * attempt to run, its options, the tracker a node's status reads, and the two
 * signals an attempt and the engine exchange (run again at once, timed out).
 */

/** What one caller (a node) has under way, kept up to date by the engine for its status. */
export interface CallTracker {
  /** Calls waiting: in the queue, or backing off before a retry. */
  waiting: number;
  /** Calls on the wire. */
  sending: number;
  /** Called after either count changed. */
  changed?(): void;
}

export interface EngineCallOptions {
  /** Aborting it drops the call (queued, backing off or on the wire); the call rejects with kind "aborted". */
  signal?: AbortSignal;
  /** Goes ahead of every waiting call and is not refused for a full queue (stop commands). */
  urgent?: boolean;
  /** The class whose share of the rate the call takes (call-classes.ts); default "other". Ignored for an urgent call. */
  callClass?: SharedCallClass;
  /** The call only reads, so a connection reset after sending may be retried. */
  read?: boolean;
  tracker?: CallTracker;
  /** Operation name, for error messages. */
  operation?: string;
  /** Called once, when the call is first put on the wire (withdraw still works while a refused call waits to retry). */
  onSend?(): void;
  /** Receives a function that withdraws the call while it still waits (true when it did). */
  onQueued?(withdraw: () => boolean): void;
}

/** Thrown by an attempt to be run again at once, not counted as a retry (a fresh token after a 401). */
export class ResendRequest extends Error {
  constructor(override readonly cause: RobotApiError) {
    super(cause.message);
  }
}

/** The abort reason the engine uses when an attempt runs out of time. */
export const ATTEMPT_TIMED_OUT = Symbol("attempt timed out");

/** One try of a call. It removes any listener it adds to `signal` when it ends: the engine reuses an answered attempt's signal. */
export type Attempt<T> = (signal: AbortSignal) => Promise<T>;

/** What a caller can set per client (retries) and per call (abort, tracking): shared by the client and its downloads. */

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

export interface CallOptions {
  /** Aborts the call (queued, waiting or sent); the error is then of kind "aborted". */
  signal?: AbortSignal;
  /** Counts this caller's waiting and sending calls (a node's status). */
  tracker?: CallTracker;
  /** Called when the call is first put on the wire. */
  onSend?(): void;
  /** Receives a function that withdraws the call while it still waits. */
  onQueued?(withdraw: () => boolean): void;
  /**
   * Whose share of the account's rate the call takes while calls wait
   * (call-classes.ts): "status" (status reads for watching, confirmation and
   * jobs), "other" (other commands and reads) or "sweep" (report sweeps). Each
   * class keeps its share (30 %, 60 %, 10 %) and none waits for another to
   * empty; stop commands go ahead of all whatever this says. Default: the
   * endpoint's (status reads "status", the rest "other").
   */
  callClass?: SharedCallClass;
}

/** Classes of calls and the share of the account's rate each keeps (engine/call-classes.ts schedules them). */
export const CALL_CLASSES = ["stop", "status", "other", "sweep"] as const;
/**
 * - `stop`: commands that stop motion (the endpoint table's `urgent`), ahead of every other call;
 * - `status`: status reads for watching, confirmation and jobs (the default of the status endpoints);
 * - `other`: every other command and read (the default);
 * - `sweep`: report sweeps, reading history nobody waits on.
 */
export type CallClass = (typeof CALL_CLASSES)[number];
/** The classes a caller may choose (a stop command is known by its type, whatever the caller says). */
export type SharedCallClass = Exclude<CallClass, "stop">;
export const SHARED_CALL_CLASSES: readonly SharedCallClass[] = ["status", "other", "sweep"];

/**
 * Each class's share of the starts while every class has calls waiting: at
 * 20 calls/s, 6 status reads (a poll of 60 robots in 11-robot batches each
 * second), 12 commands and reads, 2 report pages.
 */
export const CALL_CLASS_SHARES: Readonly<Record<SharedCallClass, number>> = { status: 0.3, other: 0.6, sweep: 0.1 };

export function isSharedCallClass(value: unknown): value is SharedCallClass {
  return typeof value === "string" && (SHARED_CALL_CLASSES as readonly string[]).includes(value);
}
