/**
 * The one reading of a time the cloud sends (docs/cloud-api.md, "Times"):
 * pushed incidents and task reports, polled task reports, a v1 status's
 * latestReportTime. Every node reads a time through this, so a report read
 * by robot-events, robot-job and robot-reports is the same instant whatever
 * the machine's time zone.
 *
 * - A number, or a string of digits (int64 values come as strings), is epoch
 *   milliseconds, as the push service documents. A value under 10^11 cannot
 *   be epoch ms of a real report (that is before March 1973), so from 10^9 to
 *   10^11 it is read as epoch seconds (2001 to 5138); below 10^9 it is not a
 *   time at all. The same magnitude rule reads a token's expires_in.
 * - Text is ISO 8601 / RFC 3339: a date, optionally a time with any number of
 *   fraction digits, optionally a zone (Z or ±hh:mm). A time without a zone is
 *   UTC, never the machine's local time: the cloud's recorded answers all
 *   carry a zone, and local time would give another instant on every server.
 * - 0, null, empty and missing are "not yet" (a raised incident's end), and
 *   anything else is unreadable: both undefined, and the value is kept as sent.
 */

/** From here a number is epoch milliseconds (1973-03-03 as ms, year 5138 as seconds). */
const EPOCH_MS_FROM = 1e11;
/** From here to EPOCH_MS_FROM a number is epoch seconds (2001-09-09). */
const EPOCH_SECONDS_FROM = 1e9;
/** The last instant a JavaScript Date holds. */
const LATEST_MS = 8.64e15;

/** A date, optionally a time with a fraction, optionally a zone; the separator may be T, t or a space. */
const ISO_TIME = /^(\d{4}-\d{2}-\d{2})(?:[Tt ](\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/** A cloud time as epoch milliseconds; undefined for "not yet" and for what cannot be read. */
export function cloudTimeMs(value: unknown): number | undefined {
  if (typeof value === "number") return epochNumber(value);
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return epochNumber(Number(text));
  const iso = ISO_TIME.exec(text);
  if (!iso) return undefined;
  const [, date, time = "00:00:00", fraction = "", zone = "Z"] = iso;
  const seconds = time.length === 5 ? `${time}:00` : time;
  // Date.parse takes three fraction digits at most; RFC 3339 times may carry nine.
  const ms = fraction === "" ? "" : `.${fraction.slice(0, 3).padEnd(3, "0")}`;
  const offset = zone.toUpperCase() === "Z" ? "Z" : zone.includes(":") ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  // Always with an offset, so Date.parse never falls back to the machine's zone.
  const parsed = Date.parse(`${date}T${seconds}${ms}${offset}`);
  return Number.isFinite(parsed) ? parsed : undefined;
}

function epochNumber(value: number): number | undefined {
  if (!Number.isFinite(value) || value < EPOCH_SECONDS_FROM) return undefined;
  const ms = value < EPOCH_MS_FROM ? value * 1000 : value;
  return ms <= LATEST_MS ? ms : undefined;
}

/** A cloud time as an ISO 8601 UTC string ("2026-01-01T00:00:00.000Z"); undefined where cloudTimeMs is. */
export function cloudTimeIso(value: unknown): string | undefined {
  const ms = cloudTimeMs(value);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

/** The ISO times a report or an incident carries beside the values sent: startTimeIso and endTimeIso, where readable. */
export interface IsoTimes {
  startTimeIso?: string;
  endTimeIso?: string;
}

/** startTimeIso and endTimeIso of a record with the cloud's startTime and endTime. */
export function isoTimesOf(record: Record<string, unknown>): IsoTimes {
  const start = cloudTimeIso(record.startTime);
  const end = cloudTimeIso(record.endTime);
  return { ...(start ? { startTimeIso: start } : {}), ...(end ? { endTimeIso: end } : {}) };
}

/** Whole seconds from one ISO 8601 time to a later one; undefined where either is missing or unreadable, or the second comes first. */
export function secondsFrom(from: string | undefined, to: string | undefined): number | undefined {
  if (from === undefined || to === undefined) return undefined;
  const seconds = Math.round((Date.parse(to) - Date.parse(from)) / 1000);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A calendar date `YYYY-MM-DD` that exists: month 13 is no date (an invalid
 * Date, whose toISOString throws), nor is 30 February (Date.parse rolls it
 * over to 1 March), so the date must read back as itself.
 */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== "string" || !DATE.test(value)) return false;
  const at = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(at) && new Date(at).toISOString().startsWith(value);
}
