/**
 * What a caller hands the request engine with each call (engine.ts): the
 * attempt to run, its options, the tracker a node's status reads, and the two
 * signals an attempt and the engine exchange (run again at once, timed out).
 */
import type { SharedCallClass } from "./call-classes";
import type { RobotApiError } from "./errors";

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

export type Attempt<T> = (signal: AbortSignal) => Promise<T>;
