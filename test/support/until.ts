/** Waiting in tests for something another process or a timer brings about. */

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds, asking every 20 ms, or fails after `withinMs` naming `what`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, withinMs = 10_000): Promise<void> {
  const giveUpAt = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`waited ${withinMs} ms for ${what}`);
    await sleep(20);
  }
}
