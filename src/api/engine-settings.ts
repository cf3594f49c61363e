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
