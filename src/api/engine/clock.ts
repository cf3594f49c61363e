/** The clock the engine and the watcher run on: the real one, or a test's, so their policies are tested without waiting. */
export interface EngineClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const REAL_CLOCK: EngineClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** The promise's value, or "timeout" when it has not settled within `ms` (the timer cleared either way). */
export function settledWithin<T>(ms: number, promise: Promise<T>, clock: EngineClock = REAL_CLOCK): Promise<T | "timeout"> {
  let timer: unknown;
  const timeout = new Promise<"timeout">((resolve) => (timer = clock.setTimeout(() => resolve("timeout"), ms)));
  return Promise.race([promise, timeout]).finally(() => clock.clearTimeout(timer));
}
