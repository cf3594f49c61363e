/**
 * This process's calendar moved to another time, for a test that lives
 * through weeks of one account in seconds: Date.now() and new Date() read
 * the real clock plus a shift the test sets and jumps forward; the engine's
 * clock (performance.now) and timers keep real time. Every part of the
 * account (robot-job's polls, the upkeep history, the simulator) then reads
 * one timeline, as on a real machine.
 */
const RealDate = Date;

let shiftMs = 0;

class ShiftedDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(RealDate.now() + shiftMs);
    else super(...(args as [string]));
  }

  static override now(): number {
    return RealDate.now() + shiftMs;
  }
}

/** Moves the calendar so that it reads `at` (epoch ms) now, and on from there in real time; installs the shifted Date. */
export function shiftDateTo(at: number): void {
  shiftMs = at - RealDate.now();
  globalThis.Date = ShiftedDate as DateConstructor;
}

/** The real calendar again. */
export function restoreDate(): void {
  shiftMs = 0;
  globalThis.Date = RealDate;
}
