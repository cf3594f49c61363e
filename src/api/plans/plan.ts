/**
 * Reading a cleaning plan: its items (when, and what work), its zone and its
 * skipped dates. A plan that cannot be read is refused whole, with
 * INVALID_INPUT naming the item and the field; the caller keeps the plan in
 * force. The job fields' own bounds (minBattery, waitUpTo, near, robots) are
 * robot-job's, checked where the occurrence's job is made.
 */
import { z } from "zod";
import { IANAZone } from "luxon";
import { invalidInput } from "../errors";
import { isCalendarDate } from "../cloud/cloud-time";
import { TIME_OF_DAY, WEEK_DAYS, type PlanItem } from "./occurrence";

/** A job waits this long for a robot when its item has neither waitUpTo nor an interval. */
export const DEFAULT_ITEM_WAIT_SECONDS = 1_800;

const text = z.string({ error: "must be a text" }).trim().min(1, "must not be empty");
const timeOfDay = z
  .string({ error: 'must be a time "HH:MM" or "HH:MM:SS"' })
  .regex(TIME_OF_DAY, 'must be a time "HH:MM" or "HH:MM:SS" (00:00 to 23:59:59)');

const itemSchema = z.strictObject(
  {
    name: text,
    days: z.union(
      [
        z.literal("daily"),
        z.array(z.enum(WEEK_DAYS), { error: `must be "daily" or a list of ${WEEK_DAYS.join(", ")}` }).min(1, "must name a day at least"),
      ],
      {
        error: `must be "daily" or a list of ${WEEK_DAYS.join(", ")}`,
      },
    ),
    at: timeOfDay,
    every: z
      .number({ error: "must be a number of minutes" })
      .int("must be a whole number of minutes")
      .min(1, "must be 1 minute or more")
      .max(1_440, "must be 1,440 minutes or fewer")
      .optional(),
    until: timeOfDay.optional(),
    map: text,
    task: text.optional(),
    area: text.optional(),
    goto: text.optional(),
    near: z.unknown().optional(),
    robots: z.unknown().optional(),
    mode: z.unknown().optional(),
    minBattery: z.unknown().optional(),
    waitUpTo: z.unknown().optional(),
  },
  { error: "must be an object: name, days, at, map and one of task, area or goto" },
);

/** Seconds since midnight of `HH:MM[:SS]`. */
export function secondsOfDay(time: string): number {
  const [, hours, minutes, seconds] = TIME_OF_DAY.exec(time)!;
  return Number(hours) * 3_600 + Number(minutes) * 60 + Number(seconds ?? 0);
}

function clockText(seconds: number): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${pad(Math.floor(seconds / 3_600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
}

/** The items of a plan, each checked; the first problem refuses the whole plan. `field` names the plan where the message had it. */
export function readPlan(value: unknown, field = "plan"): PlanItem[] {
  if (!Array.isArray(value)) throw invalidInput(field, "must be a list of items");
  const names = new Set<string>();
  return value.map((entry: unknown, index) => {
    const where = (part?: PropertyKey) => `${field}[${index}]${part === undefined ? "" : `.${String(part)}`}`;
    const named = typeof (entry as { name?: unknown })?.name === "string" ? ` (item "${(entry as { name: string }).name}")` : "";
    const parsed = itemSchema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const key = issue.code === "unrecognized_keys" ? issue.keys[0] : issue.path[0];
      throw invalidInput(where(key), `${issue.code === "unrecognized_keys" ? "is no field of a plan item" : issue.message}${named}`);
    }
    const item = parsed.data;
    if (names.has(item.name)) throw invalidInput(where("name"), `"${item.name}" names two items: each item needs its own name`);
    names.add(item.name);
    if (item.name.includes("@")) throw invalidInput(where("name"), `must not hold "@" (it parts an occurrence's id)${named}`);
    const kinds = (["task", "area", "goto"] as const).filter((kind) => item[kind] !== undefined);
    if (kinds.length === 0) throw invalidInput(where("task"), `no work: give one of task, area or goto${named}`);
    if (kinds.length > 1) throw invalidInput(where(kinds[1]), `give one of task, area or goto, not ${kinds.join(" and ")}${named}`);
    const at = secondsOfDay(item.at);
    if (item.until !== undefined) {
      if (item.every === undefined) throw invalidInput(where("until"), `needs every (the minutes between occurrences)${named}`);
      if (secondsOfDay(item.until) < at) throw invalidInput(where("until"), `"${item.until}" is before at "${item.at}"${named}`);
    }
    const kind = kinds[0]!;
    const target = item[kind]!;
    const days = item.days === "daily" ? "daily" : WEEK_DAYS.filter((day) => (item.days as string[]).includes(day));
    const waitUpTo = item.waitUpTo ?? (item.every !== undefined ? item.every * 60 : DEFAULT_ITEM_WAIT_SECONDS);
    return {
      name: item.name,
      days,
      at: clockText(at),
      ...(item.every !== undefined ? { every: item.every } : {}),
      ...(item.until !== undefined ? { until: clockText(secondsOfDay(item.until)) } : {}),
      work:
        kind === "task"
          ? { kind, task: target, map: item.map }
          : kind === "area"
            ? { kind, area: target, map: item.map }
            : { kind, point: target, map: item.map },
      ...(item.near !== undefined ? { near: item.near as PlanItem["near"] } : {}),
      ...(item.robots !== undefined ? { robots: item.robots as string[] } : {}),
      ...(item.mode !== undefined ? { mode: item.mode as string } : {}),
      ...(item.minBattery !== undefined ? { minBattery: item.minBattery as number } : {}),
      waitUpToSeconds: waitUpTo as number,
    } satisfies PlanItem;
  });
}

/** An IANA zone name Luxon (and so Intl) knows; "" or absent: the runtime's. */
export function readTimezone(value: unknown, field = "timezone"): string {
  if (value === undefined || value === null || (typeof value === "string" && value.trim() === ""))
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (typeof value !== "string" || !IANAZone.isValidZone(value.trim()))
    throw invalidInput(field, `must be an IANA time zone such as "Europe/Berlin" (got ${JSON.stringify(value)})`);
  return value.trim();
}

/** A list of dates `YYYY-MM-DD` (a text of them parted by commas or spaces too, as the dialog keeps it), sorted, each once. */
export function readSkipDates(value: unknown, field = "skipDates"): string[] {
  const entries = typeof value === "string" ? value.split(/[\s,]+/).filter((entry) => entry !== "") : (value ?? []);
  if (!Array.isArray(entries)) throw invalidInput(field, 'must be a list of dates "YYYY-MM-DD"');
  entries.forEach((entry: unknown, index) => {
    if (!isCalendarDate(entry)) throw invalidInput(`${field}[${index}]`, `must be a date "YYYY-MM-DD" (got ${JSON.stringify(entry)})`);
  });
  return [...new Set(entries as string[])].sort();
}
