/** The benchmark's knobs (environment) and fixed sizes, in one place. */

function positiveEnv(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? "");
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}

/** Messages per row. */
export const MESSAGES_PER_ROW = positiveEnv("BENCH_MESSAGES", 10_000);
/** The big robot-command burst. */
export const BIG_BURST = positiveEnv("BENCH_BIG", 100_000);
export const SKIP_PACING = Boolean(process.env.BENCH_SKIP_PACING);
/** Seconds a row may take before it is reported unfinished. */
export const ROW_LIMIT_MS = positiveEnv("BENCH_ROW_LIMIT_S", 120) * 1000;
/**
 * The 16-in-flight rows run interleaved, this many rounds of a share of their
 * messages each, so that a change in machine load during the run weighs on
 * every path alike instead of on whichever row was running.
 */
export const ROUNDS = positiveEnv("BENCH_ROUNDS", 5);

/** In flight for the worker rows; also the pool size every path is given. */
export const CONNECTIONS = 16;
export const WARMUP_MESSAGES = 300;
/** A burst: every message started synchronously, before the first answer. */
export const ALL_AT_ONCE = Number.POSITIVE_INFINITY;
/** How long a row that ran out of time may take to wind down before the next row starts. */
export const DRAIN_MS = 30_000;
/** Pause before the heap is read after a row, so sockets closing at its end are gone. */
export const SETTLE_MS = 200;
export const PACING_MESSAGES = 400;
/** The pacing row's account setting, equal to the simulator's default limit (20 per second per token). */
export const PACING_RATE_LIMIT = 20;
/** Retries as a user has them by default: a rate-limited answer then costs time before it costs an error. */
export const PACING_MAX_RETRIES = 3;
/** robot-command's big-burst goals. */
export const BIG_HEAP_GOAL_MB = 20;
export const RATIO_GOALS = { commandOverHttpRequest: 2.0, commandOverAxios: 0.9, clientOverAxios: 0.9 } as const;
/** The shared-account soak: three Node-RED processes watching the simulator's fleet through one Redis. */
export const SHARED_SECONDS = positiveEnv("BENCH_SHARED_S", 180);
export const SKIP_SHARED = Boolean(process.env.BENCH_SKIP_SHARED);
/** Status age under a command burst: the commands, the account's rate and the watching node's interval. */
export const STATUS_AGE_MESSAGES = 900;
export const STATUS_AGE_RATE_LIMIT = 20;
export const WATCH_INTERVAL_S = 5;
/** Parts of the bench to run (its arguments, e.g. `npm run bench -- status-age`); none: all of them. */
export const BENCH_PARTS = process.argv.slice(2);
