/** What a caller can set per client (retries) and per call (abort, tracking): shared by the client and its downloads. */
import type { SharedCallClass } from "./call-classes";
import type { CallTracker } from "./engine-calls";

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
