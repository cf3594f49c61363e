/** What a caller can set per client (retries) and per call (abort, tracking): shared by the client and its downloads. */
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
}
