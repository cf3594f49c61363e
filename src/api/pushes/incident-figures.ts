/**
 * How fast the account's incidents were handled, per day: how many alarms
 * were raised, how many of them a person acknowledged and how many recovered,
 * and the mean and longest time to each, in seconds. A day is the incident's
 * raise in the zone asked for. What robot-events answers and the plan's proof
 * of service shows; pure.
 */
import { secondsFrom } from "../cloud/cloud-time";
import { dayFormatter } from "../reports/kpi";
import type { AlarmLogEntry } from "./open-alarms";

export interface IncidentDayFigures {
  /** YYYY-MM-DD in the zone asked for. */
  day: string;
  raised: number;
  acknowledged: number;
  recovered: number;
  /** Of those acknowledged (null: none was), from the raise to the acknowledgement. */
  toAcknowledge: Spread | null;
  /** Of those recovered (null: none was), from the raise to the recovery. */
  toRecover: Spread | null;
}

/** Seconds, whole. */
export interface Spread {
  meanSeconds: number;
  longestSeconds: number;
}

function spreadOf(seconds: readonly number[]): Spread | null {
  if (seconds.length === 0) return null;
  return { meanSeconds: Math.round(seconds.reduce((sum, each) => sum + each, 0) / seconds.length), longestSeconds: Math.max(...seconds) };
}

/** The figures of each day that had an alarm raised, in day order; the days in `timeZone` (undefined: the runtime's). */
export function incidentFiguresByDay(entries: readonly AlarmLogEntry[], timeZone: string | undefined): IncidentDayFigures[] {
  const dayOfMs = dayFormatter(timeZone);
  const dayOf = (iso: string) => dayOfMs(Date.parse(iso));
  const byDay = new Map<string, AlarmLogEntry[]>();
  for (const entry of entries) {
    const day = dayOf(entry.raisedAt);
    byDay.set(day, [...(byDay.get(day) ?? []), entry]);
  }
  return [...byDay].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([day, raised]) => ({ day, ...handlingOf(raised) }));
}

/** How many of `raised` were acknowledged and recovered, and how soon. */
export function handlingOf(raised: readonly AlarmLogEntry[]): Omit<IncidentDayFigures, "day"> {
  const toAcknowledge = raised.flatMap((entry) => secondsFrom(entry.raisedAt, entry.acknowledged?.at) ?? []);
  const toRecover = raised.flatMap((entry) => secondsFrom(entry.raisedAt, entry.recoveredAt) ?? []);
  return {
    raised: raised.length,
    acknowledged: raised.filter((entry) => entry.acknowledged !== undefined).length,
    recovered: raised.filter((entry) => entry.recoveredAt !== undefined).length,
    toAcknowledge: spreadOf(toAcknowledge),
    toRecover: spreadOf(toRecover),
  };
}

/** Zones are at most this far from UTC (UTC-12 to UTC+14): a day in any zone lies within its UTC date widened by it. */
const WIDEST_OFFSET_MS = 14 * 3600_000;

/** The logged incidents raised from day `from` to day `to` (YYYY-MM-DD, both included) in `timeZone`. */
export function incidentsOfDays(
  alarms: { incidents(fromMs: number, toMs: number): AlarmLogEntry[] },
  from: string,
  to: string,
  timeZone: string | undefined,
): AlarmLogEntry[] {
  const dayOfMs = dayFormatter(timeZone);
  const near = alarms.incidents(
    Date.parse(`${from}T00:00:00Z`) - WIDEST_OFFSET_MS,
    Date.parse(`${to}T00:00:00Z`) + 24 * 3600_000 + WIDEST_OFFSET_MS,
  );
  return near.filter((entry) => {
    const day = dayOfMs(Date.parse(entry.raisedAt));
    return day >= from && day <= to;
  });
}
