/**
 * Today's cleaning plan as the console shows it: every occurrence the
 * account's robot-plan nodes have today (in their zone), per floor, each with
 * its time, its state (upcoming, running, done, late, failed, missed,
 * skipped, cancelled, or not run: past its time and never taken up, as at
 * the time of a Node-RED that was down) and why it failed. Read from the
 * account's plan book and job book (what robot-plan keeps, whichever node
 * ran it), joined as the proof-of-service report joins them (plan-report.ts),
 * so a console opened at any time shows the whole day.
 */
import type { DateTime as LuxonDateTime } from "luxon";
import type { OccurrenceListing } from "../../api/plans/occurrence";
import { OCCURRENCE_STATES, planReportRows, type OccurrenceRow, type OccurrenceState } from "../../api/plans/plan-report";
import type { plansOfAccount as PlansOfAccount } from "../../api/plans/plan-book";
import type { underWayOf as UnderWayOf } from "../../api/plans/under-way";

/**
 * The plan book and Luxon, required with the first console picture rather than
 * when Node-RED loads the nodes: the plan book brings the plan's schemas (zod)
 * and the time zones (Luxon), which a flow with no console and no plan never needs.
 */
let planModules: { plansOfAccount: typeof PlansOfAccount; underWayOf: typeof UnderWayOf; DateTime: typeof LuxonDateTime } | undefined;
function loadPlanModules(): NonNullable<typeof planModules> {
  /* eslint-disable @typescript-eslint/no-require-imports -- deferred on purpose, see above */
  planModules ??= {
    plansOfAccount: (require("../../api/plans/plan-book") as typeof import("../../api/plans/plan-book")).plansOfAccount,
    underWayOf: (require("../../api/plans/under-way") as typeof import("../../api/plans/under-way")).underWayOf,
    DateTime: (require("luxon") as typeof import("luxon")).DateTime,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return planModules;
}
import { reportsOfAccount } from "../../api/reports/report-store";

/** An occurrence's state on the timeline: the report's own, in its order. */
export type TimelineState = OccurrenceState;
export const TIMELINE_STATES = OCCURRENCE_STATES;

export interface TimelineOccurrence {
  occurrenceId: string;
  item: string;
  /** Its planned local time, HH:MM in the plan's zone (the id's own). */
  time: string;
  state: TimelineState;
  robotName?: string;
  /** How its job ended, where not completed (robot-job's outcome). */
  outcome?: string;
  /** Why it failed: each robot's reason, or the job's message. */
  reason?: string;
}

export interface PlanTimeline {
  /** Today, YYYY-MM-DD in the plan's zone. */
  day: string;
  /** Per floor (the items' map), in the order of the floors given, then the others by name; "" for occurrences no plan names a map for any more. */
  floors: Array<{ mapName: string; occurrences: TimelineOccurrence[] }>;
  /** How many occurrences are in each state, the states that have any, in TIMELINE_STATES' order. */
  counts: Array<{ state: TimelineState; count: number }>;
}

/** What the timeline is decided from: today's joined rows and each occurrence's floor. */
export interface TodaysPlan {
  day: string;
  rows: OccurrenceRow[];
  floorOf: ReadonlyMap<string, string>;
}

const DAY_MS = 86_400_000;

/** Reads today's plan of the account from the books robot-plan keeps; undefined when no plan ran or runs on it. */
export function todaysPlanOf(accountKey: string, now: Date, robotName: (serialNumber: string) => string): TodaysPlan | undefined {
  const { plansOfAccount, underWayOf, DateTime } = loadPlanModules();
  const plans = plansOfAccount(accountKey);
  // A day and a half each side: whatever the plans' zone, today's occurrences are among them.
  const listing: OccurrenceListing = plans.between(now.getTime() - 1.5 * DAY_MS, now.getTime() + 1.5 * DAY_MS);
  if (listing.planned.length === 0 && listing.settled.length === 0) return undefined;
  const day = DateTime.fromJSDate(now, { zone: listing.timezone }).toISODate()!;
  const reports = reportsOfAccount(accountKey);
  const { occurrences } = planReportRows({
    listing,
    request: { from: day, to: day, format: "rows" },
    site: "",
    language: "",
    words: (key) => key,
    nowMs: now.getTime(),
    keptReport: (reportKey, serialNumber) => reports.get(reportKey, serialNumber),
    underWay: underWayOf(accountKey),
    robotName,
  });
  const floorOf = new Map<string, string>();
  for (const settled of listing.settled) {
    const job = settled.job;
    if (job && "work" in job) floorOf.set(settled.occurrenceId, job.work.map);
  }
  for (const planned of listing.planned) floorOf.set(planned.occurrenceId, planned.itemSpec.work.map);
  return { day, rows: occurrences, floorOf };
}

/** The local time of an occurrence, from its id (`<item>@<YYYY-MM-DDTHH:MM>`). */
function timeOf(occurrenceId: string): string {
  return occurrenceId.slice(occurrenceId.lastIndexOf("@") + 12);
}

/** The console's timeline of today's plan; `floorOrder` the floors' names as the console lists them. */
export function planTimeline(plan: TodaysPlan, floorOrder: readonly string[]): PlanTimeline {
  const byFloor = new Map<string, TimelineOccurrence[]>();
  const counts = new Map<TimelineState, number>();
  for (const row of plan.rows) {
    const state = row.status;
    const robotName = row.robotName;
    const occurrence: TimelineOccurrence = {
      occurrenceId: row.occurrenceId,
      item: row.item,
      time: timeOf(row.occurrenceId),
      state,
      ...(robotName !== undefined ? { robotName } : {}),
      ...(row.outcome !== undefined && row.outcome !== "completed" ? { outcome: row.outcome } : {}),
      ...(row.reason !== undefined ? { reason: row.reason } : {}),
    };
    const mapName = plan.floorOf.get(row.occurrenceId) ?? "";
    byFloor.set(mapName, [...(byFloor.get(mapName) ?? []), occurrence]);
    counts.set(state, (counts.get(state) ?? 0) + 1);
  }
  const rank = (mapName: string) => (mapName === "" ? floorOrder.length + 1 : floorOrder.includes(mapName) ? floorOrder.indexOf(mapName) : floorOrder.length);
  const floors = [...byFloor]
    .sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
    .map(([mapName, occurrences]) => ({ mapName, occurrences }));
  return { day: plan.day, floors, counts: TIMELINE_STATES.flatMap((state) => (counts.has(state) ? [{ state, count: counts.get(state)! }] : [])) };
}
