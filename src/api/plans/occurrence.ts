/**
 * An occurrence of a cleaning plan: one item at one local date-time of the
 * plan's zone, its id `<item name>@<YYYY-MM-DDTHH:MM>`. What the calendar
 * plans, what the plan book settles, and what the proof-of-service report
 * joins with the kept task reports. Plain JSON (kept in context as it is).
 */
import type { JobWork, NearSpec } from "../jobs/dispatch";
import type { JobResult } from "../jobs/job-result";

/** A plan's time of day, `HH:MM` or `HH:MM:SS` (the dialog checks typed times with it too: this module loads no library). */
export const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/;

export const WEEK_DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type WeekDay = (typeof WEEK_DAYS)[number];

/** One item of a plan, as read and checked (plan.ts). */
export interface PlanItem {
  name: string;
  days: "daily" | WeekDay[];
  /** Local time of the first occurrence of a day, `HH:MM:SS`. */
  at: string;
  /** Minutes between occurrences from `at`, up to and including `until` (else the day's end). */
  every?: number;
  /** Local time `HH:MM:SS`, not before `at`. */
  until?: string;
  work: JobWork;
  near?: NearSpec;
  robots?: string[];
  mode?: string;
  minBattery?: number;
  /** Seconds a job waits for a robot: the item's, else its interval, else 1,800. */
  waitUpToSeconds: number;
}

/** An occurrence the plan has, settled or not. */
export interface PlannedOccurrence {
  /** `<item name>@<YYYY-MM-DDTHH:MM>`, local to the plan's zone. */
  occurrenceId: string;
  /** The item's name. */
  item: string;
  /** The instant it is planned for, ISO 8601 in UTC. */
  plannedAt: string;
  itemSpec: PlanItem;
}

export const SETTLED_STATUSES = ["done", "late", "failed", "missed", "skipped", "cancelled"] as const;
export type SettledStatus = (typeof SETTLED_STATUSES)[number];

/** What ended a job that found no robot (NO_ROBOT): robot-job's error, as data. */
export interface FailedJob {
  code: string;
  message: string;
  /** Why each robot was not used, by serial number. */
  robots: Record<string, string>;
}

/** An occurrence that is over: output 1's payload, and what the plan book keeps. */
export interface SettledOccurrence {
  occurrenceId: string;
  item: string;
  plannedAt: string;
  startedAt?: string;
  endedAt?: string;
  status: SettledStatus;
  /** The plan's zone, whose local day and minute the id names (absent in what was settled before it was kept). */
  timezone?: string;
  /** robot-job's end payload (robot, outcome, report); for `failed` the NO_ROBOT error's code, message and reasons. */
  job?: JobResult | FailedJob;
}

/** An account's occurrences between two instants (the plan book's `between`): the report's input. */
export interface OccurrenceListing {
  /** The zone the plans of the account are in (the first plan's, when nodes differ): an item `zones` does not name is in it. */
  timezone: string;
  /** Each item's plan's zone by item name (an item's name is the account's one item: nodes cannot give it two zones). */
  zones?: Record<string, string>;
  /** Every occurrence the plans in force have in the span, settled or not, and those claimed (one run now), by plannedAt. */
  planned: PlannedOccurrence[];
  /** Every occurrence settled in the span (also of items no plan has any more), by plannedAt. */
  settled: SettledOccurrence[];
}

/** The id of an item's occurrence at a local date-time `YYYY-MM-DDTHH:MM`. */
export function occurrenceIdOf(item: string, localMinute: string): string {
  return `${item}@${localMinute}`;
}

/** The local day of an occurrence: the date in its id (`<item>@<YYYY-MM-DDTHH:MM>`; an item's name may hold an @). */
export function dayOfOccurrence(occurrenceId: string): string {
  return occurrenceId.slice(occurrenceId.lastIndexOf("@") + 1, occurrenceId.lastIndexOf("@") + 11);
}
