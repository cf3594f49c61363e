/**
 * A part's forecast: its wear per cleaning hour learned from the upkeep
 * history (history.ts), applied to the hours a day its robot will clean, to
 * the calendar day it reaches its threshold. Pure: no calls.
 *
 * The rate is the wear of every segment (readings with no reset, replacement
 * or other life span between them) over the cleaning hours between each
 * segment's first and last reading, summed: a ratio of sums rather than a
 * median of reading pairs. The cloud's counters move in whole steps (hours in
 * the recordings) and are read about hourly, so one pair's rate is 0 or a
 * whole step and a median of them says little; a segment's sum is right to
 * one step however it was thinned, days without work add neither wear nor
 * hours, and a reset counter or a replacement only ends a segment.
 */
import { DateTime } from "luxon";
import { startOfLocalDate } from "../plans/calendar";
import { round } from "../reports/reading";
import { cleaningHoursBetween, DAY_MS, sameSegment, type PartTrack, type WorkTrack } from "./history";

/** Under this many cleaning hours between readings of one segment (in all segments), the rate is "too little history". */
export const MIN_CLEANING_HOURS = 2;
/** A robot no plan names cleans as many hours a day as it did over this many days (or its history, when shorter, a day at least). */
export const RECENT_DAYS = 14;
/**
 * Days of the plan looked at: today from now on, then a whole week, which
 * repeats (a plan's items are daily or on days of the week).
 */
export const PLAN_HORIZON_DAYS = 8;
/** No due day is given further out than this. */
const MAX_FORECAST_DAYS = 730;

export interface LearnedWear {
  /** Share of life worn per cleaning hour; undefined under MIN_CLEANING_HOURS. */
  perCleaningHour?: number;
  cleaningHours: number;
  /** Days between the first and last reading the rate was learned from, to 0.1. */
  historyDays: number;
}

/** What the history says of a part's wear per cleaning hour. Wear before the robot's first known report is not used: there are no hours to set it against. */
export function learnedWearOf(track: PartTrack, work: WorkTrack): LearnedWear {
  const since = work.start.reduce((earliest, start) => Math.min(earliest, start), Infinity);
  let [wear, hours, earliest, latest] = [0, 0, Infinity, -Infinity];
  let segmentStart = -1;
  const closeSegment = (end: number) => {
    if (segmentStart < 0 || end <= segmentStart) return;
    const [from, to] = [track.at[segmentStart]!, track.at[end]!];
    wear += (track.used[end]! - track.used[segmentStart]!) / track.life[end]!;
    hours += cleaningHoursBetween(work, from, to);
    [earliest, latest] = [Math.min(earliest, from), Math.max(latest, to)];
  };
  // The counter when the first known report began: the last reading at or before it (else the first after).
  let first = 0;
  while (first + 1 < track.at.length && track.at[first + 1]! <= since) first++;
  for (let index = first; index < track.at.length; index++) {
    if (segmentStart >= 0 && !sameSegment(track, index)) {
      closeSegment(index - 1);
      segmentStart = index;
    } else if (segmentStart < 0) segmentStart = index;
  }
  closeSegment(track.at.length - 1);
  const historyDays = latest > earliest ? round((latest - earliest) / DAY_MS, 1) : 0;
  return { ...(hours >= MIN_CLEANING_HOURS ? { perCleaningHour: wear / hours } : {}), cleaningHours: hours, historyDays };
}

/** The cleaning hours a day a forecast assumes: a plan's, day by day from today, or the robot's recent average. */
export type DailyHours =
  | {
      basis: "plan";
      /** Hours of each local day from today (today's from now on), PLAN_HORIZON_DAYS of them; the last 7 repeat. */
      days: number[];
      /** The repeating week's mean: what a person reads ("at the planned 5.5 h a day"). */
      hoursPerDay: number;
    }
  | { basis: "recent"; hoursPerDay: number };

/**
 * The robot's recent cleaning hours a day: over its whole local days before
 * today, at most RECENT_DAYS, from the day its history begins on (a first
 * reading at 06:00 is not a day with six hours fewer). Today is left out: a
 * day not over would count as a short one, and the figure would fall and rise
 * with the time of day. A history begun today counts today so far as its day.
 */
export function recentHoursPerDay(work: WorkTrack, knownSince: number, days: LocalDays): number {
  const firstDay = Math.max(days.indexOf(knownSince), -RECENT_DAYS);
  if (firstDay >= 0) return cleaningHoursBetween(work, days.startOf(0), days.now);
  return cleaningHoursBetween(work, days.startOf(firstDay), days.startOf(0)) / -firstDay;
}

/**
 * The local days of a zone from the day of `now` (day 0), each worked out
 * once: a table's thousands of parts fall on a few hundred days, and a zone's
 * offset is the costly part of a date.
 */
export class LocalDays {
  private readonly today: DateTime;
  private readonly dates = new Map<number, string>();
  private readonly starts = new Map<number, number>();

  constructor(
    readonly now: number,
    readonly zone: string,
  ) {
    this.today = DateTime.fromMillis(now, { zone }).startOf("day");
  }

  /** Day `index`'s date, YYYY-MM-DD (0 today, -1 yesterday). */
  dateOf(index: number): string {
    let date = this.dates.get(index);
    if (date === undefined) this.dates.set(index, (date = this.today.plus({ days: index }).toISODate()!));
    return date;
  }

  /** When day `index` begins (ms): its first minute that exists. */
  startOf(index: number): number {
    let start = this.starts.get(index);
    if (start === undefined) this.starts.set(index, (start = startOfLocalDate(this.dateOf(index), this.zone).getTime()));
    return start;
  }

  /** The day an instant falls on (before today: below 0). */
  indexOf(instant: number): number {
    let index = Math.floor((instant - this.startOf(0)) / DAY_MS);
    while (this.startOf(index) > instant) index--;
    while (this.startOf(index + 1) <= instant) index++;
    return index;
  }
}

/**
 * The day (an index of `days`) a part with `remaining` left wears to
 * `threshold` at `perCleaningHour` over `hours`: today (0) when it is there
 * already; undefined when it gets no nearer (no wear, no hours) or not within
 * MAX_FORECAST_DAYS. A plan is walked day by day (the day its hours cross);
 * recent hours are spread evenly, so the crossing instant's day.
 */
export function dueDayOf(
  remaining: number,
  threshold: number,
  perCleaningHour: number | undefined,
  hours: DailyHours,
  days: LocalDays,
): number | undefined {
  if (remaining <= threshold) return 0;
  if (perCleaningHour === undefined || perCleaningHour <= 0) return undefined;
  const toWear = remaining - threshold;
  if (hours.basis === "recent") {
    if (hours.hoursPerDay <= 0) return undefined;
    const daysToGo = toWear / (perCleaningHour * hours.hoursPerDay);
    return daysToGo > MAX_FORECAST_DAYS ? undefined : days.indexOf(days.now + daysToGo * DAY_MS);
  }
  const planned = hours.days;
  const week = planned.slice(-7);
  const weekWear = week.reduce((sum, day) => sum + day, 0) * perCleaningHour;
  let worn = 0;
  for (let index = 0; index < planned.length; index++) {
    worn += planned[index]! * perCleaningHour;
    if (worn >= toWear) return index;
  }
  if (weekWear <= 0) return undefined;
  // Past the horizon the plan's week repeats: whole weeks at once, then day by day.
  const weeks = Math.max(0, Math.ceil((toWear - worn) / weekWear) - 1);
  worn += weeks * weekWear;
  for (let index = planned.length + weeks * 7; index <= MAX_FORECAST_DAYS; index++) {
    worn += week[(index - planned.length) % 7]! * perCleaningHour;
    if (worn >= toWear) return index;
  }
  return undefined;
}
