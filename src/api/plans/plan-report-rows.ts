/**
 * Proof of service, its rows: what a cleaning plan had against what was
 * done. Joins each occurrence of the account's plans (planned, and settled
 * with robot-job's end) with the task report its job ended with, as the
 * account keeps it (report-store.ts), the alarms its robot raised meanwhile
 * and why it is not done, and counts per day, item and period. Every area
 * and coverage figure is robot-reports' own (kpi.ts), so the report and the
 * KPI rows agree for the same reports. Pure: the node gathers the
 * occurrences, the reports, the names and the words.
 */
import { invalidInput } from "../errors";
import type { JobOutcome, JobResult } from "../jobs/job-result";
import { keptReportOf, kpiFiguresOf, type KeptReport, type KpiFigures } from "../reports/kpi";
import type { ReadReport } from "../reports/reading";
import type { FailedJob, OccurrenceListing, SettledOccurrence, SettledStatus } from "./occurrence";
import { SETTLED_STATUSES, dayOfOccurrence } from "./occurrence";
import { isCalendarDate, secondsFrom } from "../cloud/cloud-time";
import type { UnderWay } from "./under-way";
import type { AlarmLogEntry } from "../pushes/open-alarms";

export const PLAN_REPORT_FORMATS = ["rows", "csv", "html"] as const;
export type PlanReportFormat = (typeof PLAN_REPORT_FORMATS)[number];

export interface PlanReportRequest {
  /** First and last day, YYYY-MM-DD in the plan's zone, both included. */
  from: string;
  to: string;
  format: PlanReportFormat;
}

/** The longest span one report covers: a year of pages is already more than anyone prints. */
export const MAX_REPORT_DAYS = 366;

/**
 * An occurrence's state, the one word the rows, the CSV, the page and the
 * console use for it: settled, or not yet: `running` (its job is made: it
 * waits for a robot or cleans), `upcoming` (before its time, not taken up),
 * `notRun` (past its time and never taken up: the plan's node was not running).
 */
export type OccurrenceState = SettledStatus | "upcoming" | "running" | "notRun";
/** In the order a day reads: what is to come, what runs, how the others ended. */
export const OCCURRENCE_STATES: readonly OccurrenceState[] = ["upcoming", "running", ...SETTLED_STATUSES, "notRun"];

/** One occurrence, joined with its job and its task report. Areas in m², coverage 0-1, as robot-reports' KPI rows. */
export interface OccurrenceRow {
  /** The occurrence's local day in the plan's zone. */
  day: string;
  /** Its plan's zone: its day and times are taken in it. */
  timezone: string;
  occurrenceId: string;
  item: string;
  plannedAt: string;
  startedAt?: string;
  endedAt?: string;
  status: OccurrenceState;
  serialNumber?: string;
  robotName?: string;
  outcome?: JobOutcome;
  /** From its start to its end (the job's own figure where it has one), in seconds. */
  durationSeconds?: number;
  reportId?: string;
  areaCleaned: number | null;
  areaPlanned: number | null;
  coverage: number | null;
  /** Why it failed (each robot's reason for NO_ROBOT), or why its outcome is unknown, as flows read it. */
  reason?: string;
  /** Why it is not done, in the runtime's language for a person (failed, late, missed, skipped, not run, cancelled, unknown). */
  reasonText?: string;
  /** The coverage image of its report, where the report has one. */
  image?: string;
  /** Why the page shows no coverage image of its report (in words), where the node could not keep it. */
  imageNote?: string;
  /** The alarms its robot raised while it ran (from its start to its end, or now), where there were any. */
  incidents?: AlarmLogEntry[];
}

export const COUNTED_STATES = ["done", "late", "failed", "missed", "skipped", "cancelled"] as const satisfies readonly SettledStatus[];

/** One item on one day: how many occurrences were planned and how each ended, and the figures of their reports. */
export type DayItemRow = { day: string; item: string; planned: number } & Record<(typeof COUNTED_STATES)[number], number> &
  Pick<KpiFigures, "areaCleaned" | "areaPlanned" | "coverage">;

/** Who the report is between: the site cleaned, the customer who pays for it, the contractor who does it. */
export interface ReportParties {
  site: string;
  customer?: string;
  contractor?: string;
}

export interface PlanReportRows extends ReportParties {
  /** The zone of the account's plans (the first plan's, when they differ: each row names its own). */
  timezone: string;
  /** Each zone the occurrences' days are taken in, with its items (one entry where every plan has one zone). */
  zones: { timezone: string; items: string[] }[];
  from: string;
  to: string;
  occurrences: OccurrenceRow[];
  /** By day, then item; only days with occurrences. */
  days: DayItemRow[];
  /** Per day with occurrences, its items together: the figures are robot-reports' row of that day for the same reports. */
  dayTotals: DayTotalRow[];
  /** Per item over the whole span, by item; and every occurrence of the span together. */
  itemTotals: ItemTotalRow[];
  total: Omit<DayItemRow, "day" | "item">;
}

export type ItemTotalRow = Omit<DayItemRow, "day">;

export type DayTotalRow = Omit<DayItemRow, "item">;

/** The report's words in the runtime's language: robot-plan's catalogue under `report.` (REPORT_WORD_KEYS). */
export type ReportWords = (key: string, params?: Record<string, string | number>) => string;

export interface PlanReportInput {
  /** The account's occurrences over the span (the plan book's `between`), with the plans' zone. */
  listing: OccurrenceListing;
  request: PlanReportRequest;
  /** The site's name, for the page's heading. */
  site: string;
  /** The customer and the contractor, named on each page and in the sign-off block where given. */
  customer?: string;
  contractor?: string;
  /** The runtime's language (en-US, zh-CN): dates, times and numbers on the page. */
  language: string;
  words: ReportWords;
  /** Now (ms): an occurrence not settled is `upcoming` before it, `pending` from it. */
  nowMs: number;
  /** The account's kept report under this identity (AccountReports.get): the newest read of a job's report. */
  keptReport?: (reportKey: string, serialNumber: string) => ReadReport | undefined;
  /** What is under way of an occurrence not settled (under-way.ts): its robot and start, once it has them. */
  underWay?: (occurrenceId: string) => UnderWay | undefined;
  /** The account's incident log: the alarms raised at or after `fromMs` and before `toMs` (AccountAlarms.incidents). */
  incidents?: (fromMs: number, toMs: number) => AlarmLogEntry[];
  /** A robot's reason a job's dispatch gave (`busy`, `battery 12 %`, `offline`) in words: robot-job's catalogue. */
  reasonWords?: (reason: string) => string;
  /** A robot's name (the account's robot directory). */
  robotName?: (serialNumber: string) => string;
  /** Coverage images by report key (data: URLs the node downloaded, as a report's own URL expires), instead of the report's URL. */
  images?: ReadonlyMap<string, string>;
  /** Why a report's coverage image is not on the page (in words), by report key: shown instead of the image's expired link. */
  imageNotes?: ReadonlyMap<string, string>;
}

const DAY_MS = 24 * 3600_000;

/**
 * Reads msg.payload.report: {from, to?, format?}; "today" (in the plan's zone)
 * may stand for a day, `to` defaults to `from`, `format` to rows. Errors name the field.
 */
export function readPlanReportRequest(value: unknown, today: string): PlanReportRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw invalidInput("payload.report", 'must be {from: "YYYY-MM-DD", to: "YYYY-MM-DD", format: "rows" | "csv" | "html"}');
  const fields = value as Record<string, unknown>;
  const dayField = (name: "from" | "to", fallback?: string): string => {
    const given = fields[name] ?? fallback;
    const day = given === "today" ? today : given;
    if (!isCalendarDate(day))
      throw invalidInput(`payload.report.${name}`, `must be a day as "YYYY-MM-DD" or "today" (got ${JSON.stringify(given)})`);
    return day;
  };
  const from = dayField("from");
  const to = dayField("to", from);
  if (to < from) throw invalidInput("payload.report.to", `must not be before from (${from})`);
  if (daysBetween(from, to).length > MAX_REPORT_DAYS)
    throw invalidInput("payload.report.to", `must be at most ${MAX_REPORT_DAYS} days after from, both included`);
  const format = fields.format ?? "rows";
  if (typeof format !== "string" || !(PLAN_REPORT_FORMATS as readonly string[]).includes(format))
    throw invalidInput("payload.report.format", `must be one of ${PLAN_REPORT_FORMATS.join(", ")}`);
  return { from, to, format: format as PlanReportFormat };
}

/** Every day from `from` to `to`, both included (calendar days: no zone involved). */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  const last = Date.parse(`${to}T00:00:00Z`);
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= last && days.length <= MAX_REPORT_DAYS; at += DAY_MS)
    days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}

function isFailedJob(job: SettledOccurrence["job"]): job is FailedJob {
  return job !== undefined && "robots" in job && "code" in job;
}

/** The task report an occurrence's job ended with, in the account's newest read of it, as robot-reports keeps its figures. */
function keptReportOfJob(job: JobResult, endedAt: string | undefined, input: PlanReportInput): KeptReport | undefined {
  const given = job.report as ReadReport | undefined;
  if (!given || typeof given.reportKey !== "string") return undefined;
  const report = input.keptReport?.(given.reportKey, given.serialNumber) ?? given;
  return keptReportOf(report, Date.parse(endedAt ?? job.endedAt));
}

interface Joined {
  row: OccurrenceRow;
  report?: KeptReport;
}

function joinOccurrence(
  occurrence: SettledOccurrence | undefined,
  planned: { occurrenceId: string; item: string; plannedAt: string },
  input: PlanReportInput,
): Joined {
  const nameOf = (serialNumber: string) => input.robotName?.(serialNumber) ?? serialNumber;
  const base = {
    day: dayOfOccurrence(planned.occurrenceId),
    timezone: input.listing.zones?.[planned.item] ?? input.listing.timezone,
    occurrenceId: planned.occurrenceId,
    item: planned.item,
    plannedAt: planned.plannedAt,
  };
  const noFigures = { areaCleaned: null, areaPlanned: null, coverage: null };
  if (!occurrence) {
    const underWay = input.underWay?.(planned.occurrenceId);
    if (underWay) {
      const { serialNumber, startedAt } = underWay;
      return {
        row: {
          ...base,
          status: "running",
          ...(startedAt !== undefined ? { startedAt } : {}),
          ...(serialNumber !== undefined ? { serialNumber, robotName: nameOf(serialNumber) } : {}),
          ...noFigures,
        },
      };
    }
    return { row: { ...base, status: Date.parse(planned.plannedAt) > input.nowMs ? "upcoming" : "notRun", ...noFigures } };
  }
  const times = {
    ...(occurrence.startedAt ? { startedAt: occurrence.startedAt } : {}),
    ...(occurrence.endedAt ? { endedAt: occurrence.endedAt } : {}),
  };
  const duration = secondsFrom(occurrence.startedAt, occurrence.endedAt);
  const settled = { ...base, ...times, status: occurrence.status, ...(duration !== undefined ? { durationSeconds: duration } : {}) };
  const job = occurrence.job;
  if (job === undefined) return { row: { ...settled, ...noFigures } };
  if (isFailedJob(job)) {
    const reason = Object.entries(job.robots)
      .map(([serialNumber, why]) => `${nameOf(serialNumber)}: ${why}`)
      .join("; ");
    return { row: { ...settled, ...noFigures, reason: reason || job.message } };
  }
  const report = keptReportOfJob(job, occurrence.endedAt, input);
  const figures = report ? kpiFiguresOf([report]) : undefined;
  const imageNote = report ? input.imageNotes?.get(report.key) : undefined;
  const image = report ? (input.images?.get(report.key) ?? (imageNote ? undefined : report.pngUri)) : undefined;
  const serialNumber = job.serialNumber ?? report?.serialNumber;
  return {
    row: {
      ...settled,
      ...(serialNumber ? { serialNumber, robotName: input.robotName ? nameOf(serialNumber) : (job.robotName ?? serialNumber) } : {}),
      outcome: job.outcome,
      ...(job.durationSeconds !== undefined ? { durationSeconds: job.durationSeconds } : {}),
      ...(report?.reportId ? { reportId: report.reportId } : {}),
      areaCleaned: figures?.areaCleaned ?? null,
      areaPlanned: figures?.areaPlanned ?? null,
      coverage: figures?.coverage ?? null,
      ...(job.reason ? { reason: job.reason } : {}),
      ...(image ? { image } : {}),
      ...(imageNote ? { imageNote } : {}),
    },
    ...(report ? { report } : {}),
  };
}

/** The field a message names first ("payload.area: no robot ..."): a person reads the rest. */
const FIELD_PREFIX = /^[\w.[\]]+: /;

/** Why an occurrence is not (or not quite) done, in words a customer reads; undefined where nothing needs saying. */
function plainReasonOf(row: OccurrenceRow, job: SettledOccurrence["job"], input: PlanReportInput): string | undefined {
  const { words } = input;
  switch (row.status) {
    case "failed": {
      if (!isFailedJob(job)) return undefined;
      const robots = Object.entries(job.robots).map(
        ([serialNumber, why]) => `${input.robotName?.(serialNumber) ?? serialNumber}: ${input.reasonWords?.(why) ?? why}`,
      );
      return robots.length > 0
        ? words("reason.noRobot", { robots: robots.join("; ") })
        : words("reason.notPossible", { detail: job.message.replace(FIELD_PREFIX, "") });
    }
    case "late": {
      const lateBy = secondsFrom(row.plannedAt, row.startedAt);
      return lateBy === undefined ? undefined : words("reason.late", { minutes: Math.round(lateBy / 60) });
    }
    case "missed":
    case "skipped":
    case "notRun":
      return words(`reason.${row.status}`);
    case "cancelled":
      return words("reason.cancelled");
    default:
      return row.outcome === "unknown" ? words("reason.unknown", { detail: row.reason ?? "" }) : undefined;
  }
}

/** An occurrence that ran with the alarms its robot raised meanwhile, from the account's log. */
function withIncidents(joined: Joined, input: PlanReportInput): Joined {
  const { serialNumber, startedAt, endedAt } = joined.row;
  if (!input.incidents || serialNumber === undefined || startedAt === undefined) return joined;
  const incidents = input
    .incidents(Date.parse(startedAt), endedAt === undefined ? input.nowMs : Date.parse(endedAt) + 1)
    .filter((incident) => incident.serialNumber === serialNumber);
  return incidents.length === 0 ? joined : { ...joined, row: { ...joined.row, incidents } };
}

/** The joins and counts; `planReport` turns them into the format asked for. */
export function planReportRows(input: PlanReportInput): PlanReportRows {
  const { from, to } = input.request;
  const inSpan = (occurrenceId: string) => {
    const day = dayOfOccurrence(occurrenceId);
    return day >= from && day <= to;
  };
  const settledById = new Map(input.listing.settled.filter((each) => inSpan(each.occurrenceId)).map((each) => [each.occurrenceId, each]));
  // What was settled counts even when no plan has its item any more; what is planned and not settled counts as not yet.
  const all = new Map<string, { occurrenceId: string; item: string; plannedAt: string }>();
  for (const each of input.listing.planned) if (inSpan(each.occurrenceId)) all.set(each.occurrenceId, each);
  for (const each of settledById.values()) if (!all.has(each.occurrenceId)) all.set(each.occurrenceId, each);
  const joined = [...all.values()].map((planned) => {
    const settled = settledById.get(planned.occurrenceId);
    const each = withIncidents(joinOccurrence(settled, planned, input), input);
    const reasonText = plainReasonOf(each.row, settled?.job, input);
    return reasonText === undefined ? each : { ...each, row: { ...each.row, reasonText } };
  });
  joined.sort((a, b) => compare(a.row.plannedAt, b.row.plannedAt) || compare(a.row.item, b.row.item));

  const groups = new Map<string, { day: string; item: string; joined: Joined[] }>();
  for (const each of joined) {
    const key = `${each.row.day}\n${each.row.item}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { day: each.row.day, item: each.row.item, joined: [] }));
    group.joined.push(each);
  }
  const days = [...groups.values()]
    .sort((a, b) => compare(a.day, b.day) || compare(a.item, b.item))
    .map(({ day, item, joined: rows }) => ({ day, item, ...countsOf(rows) }));
  const byDay = new Map<string, Joined[]>();
  for (const each of joined) byDay.set(each.row.day, [...(byDay.get(each.row.day) ?? []), each]);
  const dayTotals = [...byDay].sort(([a], [b]) => compare(a, b)).map(([day, rows]) => ({ day, ...countsOf(rows) }));
  const byItem = new Map<string, Joined[]>();
  for (const each of joined) byItem.set(each.row.item, [...(byItem.get(each.row.item) ?? []), each]);
  const itemTotals = [...byItem].sort(([a], [b]) => compare(a, b)).map(([item, rows]) => ({ item, ...countsOf(rows) }));
  return {
    site: input.site,
    ...(input.customer ? { customer: input.customer } : {}),
    ...(input.contractor ? { contractor: input.contractor } : {}),
    timezone: input.listing.timezone,
    zones: zonesOf(
      joined.map((each) => each.row),
      input.listing.timezone,
    ),
    from,
    to,
    occurrences: joined.map((each) => each.row),
    days,
    dayTotals,
    itemTotals,
    total: countsOf(joined),
  };
}

/** The zones of the rows with their items, by zone; the plans' zone alone where there are no rows. */
function zonesOf(rows: readonly OccurrenceRow[], timezone: string): PlanReportRows["zones"] {
  const items = new Map<string, Set<string>>();
  for (const row of rows) items.set(row.timezone, (items.get(row.timezone) ?? new Set()).add(row.item));
  if (items.size === 0) return [{ timezone, items: [] }];
  return [...items].sort(([a], [b]) => compare(a, b)).map(([zone, names]) => ({ timezone: zone, items: [...names].sort(compare) }));
}

/** How many occurrences there were and how each ended, and the KPI figures of their reports taken together. */
function countsOf(joined: readonly Joined[]): Omit<DayItemRow, "day" | "item"> {
  const counts = Object.fromEntries(
    COUNTED_STATES.map((state) => [state, joined.filter((each) => each.row.status === state).length]),
  ) as Record<(typeof COUNTED_STATES)[number], number>;
  const { areaCleaned, areaPlanned, coverage } = kpiFiguresOf(joined.flatMap((each) => (each.report ? [each.report] : [])));
  return { planned: joined.length, ...counts, areaCleaned, areaPlanned, coverage };
}

/** Text order by code unit, the same in every runtime language (ids, days, ISO times). */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
