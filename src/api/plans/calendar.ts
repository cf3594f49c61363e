/**
 * The occurrences of a plan between two instants: pure, in the plan's IANA
 * zone, with Luxon's zone rules (no hand-written clock changes). An item
 * happens on its days at `at`, then every `every` minutes up to and including
 * `until` (else the day's end), all in local wall time. A local time a clock
 * change skips runs at the next minute that exists; a time it repeats runs
 * once, the first time the clock shows it. The id is the item and the
 * planned local minute, so each occurrence is one key to claim.
 */
import { DateTime } from "luxon";
import { occurrenceIdOf, WEEK_DAYS, type PlanItem, type PlannedOccurrence } from "./occurrence";
import { secondsOfDay } from "./plan";

const DAY_SECONDS = 86_400;
/** Longer than any clock change of the zone database (2 h), so a skipped time always finds its next minute. */
const LONGEST_GAP_MINUTES = 24 * 60;
/** More than any zone's offset moves in a day: a wall time this far outside the span cannot fall in it. */
const SLACK_MS = 6 * 3_600_000;

interface LocalDay {
  year: number;
  month: number;
  day: number;
}

/** A local date-time as an occurrence's id has it, `YYYY-MM-DDTHH:MM`. */
export function localMinuteOf(wall: DateTime): string {
  return wall.toFormat("yyyy-MM-dd'T'HH:mm");
}

/** Seconds since midnight of each occurrence of the item on one of its days. */
export function timesOfDay(item: Pick<PlanItem, "at" | "every" | "until">): number[] {
  const first = secondsOfDay(item.at);
  if (item.every === undefined) return [first];
  const last = item.until !== undefined ? secondsOfDay(item.until) : DAY_SECONDS - 1;
  const times: number[] = [];
  for (let time = first; time <= last; time += item.every * 60) times.push(time);
  return times;
}

function onDay(item: Pick<PlanItem, "days">, weekday: number): boolean {
  return item.days === "daily" || item.days.includes(WEEK_DAYS[weekday - 1]!);
}

function sameWallTime(instant: DateTime, wall: DateTime): boolean {
  return (
    instant.year === wall.year &&
    instant.month === wall.month &&
    instant.day === wall.day &&
    instant.hour === wall.hour &&
    instant.minute === wall.minute
  );
}

/** The instant a local wall time stands for in `zone`: the first of two (clock set back), the next minute that exists (clock set forward). */
export function instantOfWallTime(day: LocalDay, seconds: number, zone: string): DateTime {
  const wall = DateTime.fromObject({ ...day, hour: 0 }, { zone: "utc" }).plus({ seconds });
  const instant = DateTime.fromObject(wallFields(wall), { zone });
  if (sameWallTime(instant, wall)) {
    // A repeated time: Luxon takes the later offset; the earlier instant shows the same wall time too.
    const shift = instant.minus({ hours: 12 }).offset - instant.offset;
    const earlier = shift > 0 ? instant.minus({ minutes: shift }) : instant;
    return sameWallTime(earlier, wall) ? earlier : instant;
  }
  for (let minutes = 1; minutes <= LONGEST_GAP_MINUTES; minutes++) {
    const next = wall.startOf("minute").plus({ minutes });
    const candidate = DateTime.fromObject(wallFields(next), { zone });
    if (sameWallTime(candidate, next)) return candidate;
  }
  return instant;
}

function wallFields(wall: DateTime): LocalDay & { hour: number; minute: number; second: number } {
  return { year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute, second: wall.second };
}

/** The local date `YYYY-MM-DD` of an instant in `zone`. */
export function localDateOf(instant: Date | number, zone: string): string {
  return DateTime.fromMillis(+instant, { zone }).toISODate()!;
}

/** The instant a local date begins in `zone` (its first minute that exists). */
export function startOfLocalDate(date: string, zone: string): Date {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  return instantOfWallTime({ year, month, day }, 0, zone).toJSDate();
}

/** Every occurrence of the items planned at or after `from` and before `to`, by plannedAt (then item). */
export function occurrencesBetween(items: readonly PlanItem[], zone: string, from: Date | number, to: Date | number): PlannedOccurrence[] {
  const fromMs = +from;
  const toMs = +to;
  const found: PlannedOccurrence[] = [];
  if (toMs <= fromMs || items.length === 0) return found;
  // A day before and after: a skipped time moves forward, and an instant's local date differs from UTC's.
  const last = DateTime.fromMillis(toMs, { zone }).startOf("day").plus({ days: 1 });
  let date = DateTime.fromMillis(fromMs, { zone }).startOf("day").minus({ days: 1 });
  while (date <= last) {
    const next = date.plus({ days: 1 }).startOf("day");
    // A day that begins at 00:00 with the offset the next day begins with has no clock change: its wall times are
    // that offset from UTC, with no lookup in the zone (the lookups were most of a large plan's cost).
    const steady = next.offset === date.offset && date.hour === 0 && date.minute === 0;
    const day = { year: date.year, month: date.month, day: date.day };
    const dayStartMs = date.toMillis();
    const wallMidnightMs = Date.UTC(date.year, date.month - 1, date.day);
    for (const item of items) {
      if (!onDay(item, date.weekday)) continue;
      for (const seconds of timesOfDay(item)) {
        // Only the times near the span are looked up in the zone (a minute-by-minute item has 1,440 a day).
        if (dayStartMs + seconds * 1000 < fromMs - SLACK_MS || dayStartMs + seconds * 1000 >= toMs + SLACK_MS) continue;
        const instantMs = steady ? dayStartMs + seconds * 1000 : instantOfWallTime(day, seconds, zone).toMillis();
        if (instantMs < fromMs || instantMs >= toMs) continue;
        found.push({
          occurrenceId: occurrenceIdOf(item.name, new Date(wallMidnightMs + seconds * 1000).toISOString().slice(0, 16)),
          item: item.name,
          plannedAt: new Date(instantMs).toISOString(),
          itemSpec: item,
        });
      }
    }
    date = next;
  }
  return found.sort((a, b) => Date.parse(a.plannedAt) - Date.parse(b.plannedAt) || (a.item < b.item ? -1 : a.item > b.item ? 1 : 0));
}
