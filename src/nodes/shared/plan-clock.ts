/**
 * The clock of plans: what a plan node runs on, and what robot-upkeep's
 * forecast, which reads the plans' upcoming hours, takes as now: the real one, or, for tests only, one given
 * in Node-RED's settings as `robotPlanClock`: a clock object (now() in epoch
 * ms, setTimeout, clearTimeout) in the test's own process, or `{startAt}` (an
 * ISO time) in a child process, where the real clock runs on from there:
 * from the node's deploy, or from `realAt` (epoch ms) when given, so that the
 * plans of several processes read one time at one moment.
 * Hidden: no dialog or document offers it. robot-job's runner keeps real time.
 */
import type { EngineClock } from "../../api/engine/clock";

/** now() is epoch milliseconds. */
export type PlanClock = EngineClock;

export const REAL_PLAN_CLOCK: PlanClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export function planClockOf(setting: unknown): PlanClock {
  if (typeof setting !== "object" || setting === null) return REAL_PLAN_CLOCK;
  const given = setting as Partial<PlanClock> & { startAt?: unknown; realAt?: unknown };
  if (typeof given.now === "function" && typeof given.setTimeout === "function" && typeof given.clearTimeout === "function") return given as PlanClock;
  const startAt = typeof given.startAt === "string" ? Date.parse(given.startAt) : NaN;
  if (Number.isNaN(startAt)) return REAL_PLAN_CLOCK;
  const shift = startAt - (typeof given.realAt === "number" ? given.realAt : Date.now());
  return { ...REAL_PLAN_CLOCK, now: () => Date.now() + shift };
}
