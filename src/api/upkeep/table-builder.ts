/**
 * The upkeep table (table.ts's shape) of an account's robots: each robot's
 * last facts from the upkeep history, each part's share left, its wear
 * learned from the history and its forecast at the plan's hours (the plan
 * book's upcoming runs) or the robot's recent ones. Pure: no calls; the plan
 * book is read once for all robots.
 */
import { robotDirectoryOf } from "../account/robot-directory";
import { invalidInput } from "../errors";
import { plansOfAccount, type AccountPlans, type PlannedRun } from "../plans/plan-book";
import { round } from "../reports/reading";
import { dueDayOf, learnedWearOf, LocalDays, PLAN_HORIZON_DAYS, recentHoursPerDay, type DailyHours } from "./forecast";
import { DAY_MS, remainingOf, upkeepHistoryOf, type PartTrack, type RobotHistory, type UpkeepHistory } from "./history";
import { DEFAULT_THRESHOLD, type PartForecast, type UpkeepPart, type UpkeepRobot } from "./table";

export interface UpkeepTableOptions {
  /** The instant the table is for (ms); Date.now() when absent. */
  now?: number;
  /** Share left at which a part is due, 0-1 (DEFAULT_THRESHOLD). */
  threshold?: number;
  /** IANA zone of every robot's due days; absent: each robot's from the plan that gives it hours, else the runtime's. */
  zone?: string;
  /** The plan book whose upcoming runs give a robot's hours; absent: every robot at its recent hours. */
  plans?: AccountPlans;
  /** A robot's name to show; absent: no names. */
  nameOf?: (serialNumber: string) => string | undefined;
}

/**
 * The table of `serialNumbers` (in that order) from `history`. A robot the
 * history knows nothing of is left out; one that stopped answering keeps its
 * last facts, `readAt` saying how old they are. A part already at or under
 * the threshold is due today.
 */
export function upkeepTable(history: UpkeepHistory, serialNumbers: readonly string[], options: UpkeepTableOptions = {}): UpkeepRobot[] {
  const now = options.now ?? Date.now();
  const threshold = options.threshold ?? DEFAULT_THRESHOLD;
  if (typeof threshold !== "number" || !(threshold >= 0 && threshold <= 1))
    throw invalidInput("threshold", `must be a share from 0 to 1 (got ${JSON.stringify(threshold)})`);
  // A day more than the horizon: its last day ends past that in a zone ahead of UTC; what is past it is left out.
  const runsByRobot = new Map<string, PlannedRun[]>();
  for (const run of options.plans?.plannedRuns(now, now + (PLAN_HORIZON_DAYS + 1) * DAY_MS) ?? []) {
    const runs = runsByRobot.get(run.serialNumber);
    if (runs) runs.push(run);
    else runsByRobot.set(run.serialNumber, [run]);
  }
  const daysByZone = new Map<string, LocalDays>();
  const daysIn = (zone: string) => daysByZone.get(zone) ?? daysByZone.set(zone, new LocalDays(now, zone)).get(zone)!;
  const runtimeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const rows: UpkeepRobot[] = [];
  for (const serialNumber of serialNumbers) {
    const robot = history.of(serialNumber);
    if (!robot) continue;
    const runs = runsByRobot.get(serialNumber);
    // A robot's days are those of the plan that gives it hours (its first run's, should two plans in two zones share it).
    const days = daysIn(options.zone ?? runs?.[0]?.timezone ?? runtimeZone);
    const row = robotRow(serialNumber, robot, { threshold, days, planDays: runs && planHoursOf(runs, days) });
    if (!row) continue;
    const name = options.nameOf?.(serialNumber);
    rows.push(name !== undefined && name !== serialNumber ? { ...row, name } : row);
  }
  return rows;
}

/** The table of the account `accountKey`: its history, its plan book and its robot directory's names. */
export function upkeepTableOfAccount(
  accountKey: string,
  serialNumbers: readonly string[],
  options: Omit<UpkeepTableOptions, "plans" | "nameOf"> = {},
): UpkeepRobot[] {
  const directory = robotDirectoryOf(accountKey);
  return upkeepTable(upkeepHistoryOf(accountKey), serialNumbers, {
    ...options,
    plans: plansOfAccount(accountKey),
    nameOf: (serialNumber) => directory.nameOf(serialNumber),
  });
}

/** A robot's planned hours of each local day from today (today's from `now` on), PLAN_HORIZON_DAYS of them; undefined when none falls within. */
function planHoursOf(runs: readonly { plannedAt: string; seconds: number }[], days: LocalDays): number[] | undefined {
  let hours: number[] | undefined;
  for (const run of runs) {
    const day = days.indexOf(Date.parse(run.plannedAt));
    if (day >= PLAN_HORIZON_DAYS) continue;
    hours ??= new Array<number>(PLAN_HORIZON_DAYS).fill(0);
    hours[day]! += run.seconds / 3600;
  }
  return hours;
}

interface RowContext {
  threshold: number;
  days: LocalDays;
  /** The robot's planned hours by day, where a plan names it. */
  planDays: number[] | undefined;
}

function robotRow(serialNumber: string, robot: RobotHistory, context: RowContext): UpkeepRobot | undefined {
  const lastReport = robot.work.end.at(-1);
  const readAt = robot.latest?.at ?? lastReport;
  if (readAt === undefined) return undefined;
  const knownSince = Math.min(
    robot.work.start.reduce((earliest, start) => Math.min(earliest, start), Infinity),
    ...[...robot.parts.values(), ...robot.reported.values()].map((track) => track.at[0] ?? Infinity),
  );
  const hours: DailyHours = context.planDays?.some((day) => day > 0)
    ? { basis: "plan", days: context.planDays, hoursPerDay: context.planDays.slice(-7).reduce((sum, day) => sum + day, 0) / 7 }
    : { basis: "recent", hoursPerDay: recentHoursPerDay(robot.work, knownSince, context.days) };
  const statusParts = robot.latest?.facts.parts ?? [];
  // A task report's shares stand in only for a robot whose status gives no wear parts (facts.ts).
  const parts: UpkeepPart[] =
    statusParts.length > 0
      ? statusParts.map((part) => {
          const track = robot.parts.get(part.part);
          return {
            ...partRow(part.part, track, robot, hours, context, (track && remainingOf(track)) ?? part.remaining),
            usedLife: part.usedLife,
            lifeSpan: part.lifeSpan,
          };
        })
      : [...robot.reported].flatMap(([part, track]) => {
          const remaining = remainingOf(track);
          return remaining === undefined ? [] : [partRow(part, track, robot, hours, context, remaining)];
        });
  return {
    serialNumber,
    readAt: new Date(readAt).toISOString(),
    zone: context.days.zone,
    parts,
    tanks: { ...robot.latest?.facts.tanks },
    battery: { ...robot.latest?.facts.battery },
  };
}

function partRow(
  part: UpkeepPart["part"],
  track: PartTrack | undefined,
  robot: RobotHistory,
  hours: DailyHours,
  context: RowContext,
  unrounded: number,
): UpkeepPart {
  // The row's share is the one the due day and the notices (attention.ts) both judge by.
  const remaining = round(unrounded, 4);
  const learned = track ? learnedWearOf(track, robot.work) : { cleaningHours: 0, historyDays: 0 };
  const rate = learned.perCleaningHour;
  const dueDay = dueDayOf(remaining, context.threshold, rate, hours, context.days);
  const forecast: PartForecast = {
    basis: rate === undefined ? "too little history" : hours.basis,
    ...(dueDay !== undefined ? { dueDay: context.days.dateOf(dueDay), dueAt: new Date(context.days.startOf(dueDay)).toISOString() } : {}),
    ...(rate !== undefined ? { hoursPerDay: round(hours.hoursPerDay, 2) } : {}),
    historyDays: learned.historyDays,
  };
  const replacedAt = track?.replacements.at(-1);
  return {
    part,
    remaining,
    ...(rate !== undefined ? { wearPerCleaningHour: rate, wearPerDay: rate * hours.hoursPerDay } : {}),
    threshold: context.threshold,
    forecast,
    ...(replacedAt !== undefined ? { replacedAt: new Date(replacedAt).toISOString() } : {}),
  };
}
