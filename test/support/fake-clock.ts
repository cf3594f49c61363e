/**
 * A clock for the request engine whose time moves only when a test moves it:
 * timers fire in time order (same time: in the order they were set), and every
 * promise callback they cause runs before the next one fires, so an engine
 * policy can be followed to the millisecond without sockets or waiting.
 */
import type { EngineClock } from "../../src/api/engine/clock";

/** Resolves once every pending promise callback has run (a macrotask starts only when the microtask queue is empty). */
export const drained = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface FakeTimer {
  readonly at: number;
  readonly id: number;
  readonly callback: () => void;
}

export class FakeClock implements EngineClock {
  private time: number;
  private readonly timers = new Map<number, FakeTimer>();
  private nextId = 1;

  constructor(start = 0) {
    this.time = start;
  }

  readonly now = (): number => this.time;

  readonly setTimeout = (callback: () => void, ms: number): unknown => {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), id, callback });
    return id;
  };

  readonly clearTimeout = (handle: unknown): void => {
    if (typeof handle === "number") this.timers.delete(handle);
  };

  /** Timers set and neither fired nor cleared. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time `ms` forward, firing every timer that falls due on the way, each at its own time. */
  advance(ms: number): Promise<void> {
    return this.advanceTo(this.time + ms);
  }

  async advanceTo(end: number): Promise<void> {
    // What the test started before moving the clock happens at the time it was started.
    await drained();
    for (let fired = 0; ; fired++) {
      if (fired > 1_000_000) throw new Error("fake clock: timers keep setting timers that are already due");
      let next: FakeTimer | undefined;
      for (const timer of this.timers.values()) {
        if (timer.at > end) continue;
        if (!next || timer.at < next.at || (timer.at === next.at && timer.id < next.id)) next = timer;
      }
      if (!next) break;
      this.timers.delete(next.id);
      this.time = Math.max(this.time, next.at);
      next.callback();
      await drained();
    }
    this.time = Math.max(this.time, end);
    await drained();
  }
}
