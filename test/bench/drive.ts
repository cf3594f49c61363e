/**
 * Feeds messages to a path under test and counts how they end. One driver for
 * every path, so "16 in flight" and "burst" mean the same thing everywhere.
 */

/** Reports the end of one message: no argument when it was answered, the error when it failed. */
export type Settle = (error?: unknown) => void;
/** Starts message number `index`; the path calls its Settle once for it, later or at once. */
export type Start = (index: number) => void;
/** A path under test: given where to report endings, how to start a message. */
export type Target = (settle: Settle) => Start;

export interface Outcome {
  /** Messages answered without error within the limit. */
  answered: number;
  failed: number;
  firstError: string | undefined;
  seconds: number;
  /** False when the time limit came first. */
  finished: boolean;
  /** Messages still under way at the limit; resolves with how many are left after waiting up to `ms`. */
  drain(ms: number): Promise<number>;
}

export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/**
 * Sends `count` messages with at most `concurrency` under way (the next starts
 * when one ends; concurrency >= count is a burst: all started synchronously).
 */
export function drive(target: Target, count: number, concurrency: number, limitMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    let started = 0;
    let underWay = 0;
    let answered = 0;
    let failed = 0;
    let firstError: unknown;
    let pumping = false;
    let over = false;
    let onIdle: (() => void) | undefined;
    const begin = performance.now();

    const finish = (finished: boolean) => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      resolve({
        answered,
        failed,
        firstError: failed > 0 ? describeError(firstError) : undefined,
        seconds: (performance.now() - begin) / 1000,
        finished,
        drain: (ms) =>
          new Promise<number>((done) => {
            if (underWay === 0) return done(0);
            const giveUp = setTimeout(() => done(underWay), ms);
            onIdle = () => {
              clearTimeout(giveUp);
              done(0);
            };
          }),
      });
    };

    // Guarded so that a path answering synchronously loops here instead of recursing.
    const pump = () => {
      if (pumping) return;
      pumping = true;
      try {
        while (!over && underWay < concurrency && started < count) {
          underWay++;
          const index = started++;
          try {
            start(index);
          } catch (error) {
            settle(error ?? new Error("threw"));
          }
        }
      } finally {
        pumping = false;
      }
    };

    const settle: Settle = (...args) => {
      underWay--;
      if (over) {
        // Late endings of a row that ran out of time: only the drain cares.
        if (underWay === 0) onIdle?.();
        return;
      }
      if (args.length === 0 || args[0] === undefined) answered++;
      else {
        failed++;
        firstError ??= args[0];
      }
      if (answered + failed === count) finish(true);
      else pump();
    };

    const start = target(settle);
    const timer = setTimeout(() => finish(false), limitMs);
    if (count <= 0) finish(true);
    else pump();
  });
}

const collect = (globalThis as { gc?: () => void }).gc;

/** Bytes of heap in use after a full collection (two passes: the first may only queue finalizers). */
export function heapAfterGc(): number {
  collect?.();
  collect?.();
  return process.memoryUsage().heapUsed;
}

export const canCollect = collect !== undefined;
