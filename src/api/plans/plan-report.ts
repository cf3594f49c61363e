/**
 * Proof of service: what a cleaning plan had against what was done, the
 * report a contractor hands over. Joins each occurrence of the account's
 * plans (planned, and settled with robot-job's end) with the task report its
 * job ended with, as the account keeps it (report-store.ts), and counts per
 * day and item. Every area and coverage figure is robot-reports' own
 * (kpi.ts), so the report and the KPI rows agree for the same reports. Pure:
 * the node gathers the occurrences, the reports, the names and the words.
 */
import { invalidInput } from "../errors";
import { escapeMarkup } from "../markup";
import type { JobOutcome, JobResult } from "../jobs/job-book";
import { keptReportOf, kpiFiguresOf, type KeptReport, type KpiFigures } from "../reports/kpi";
import type { ReadReport } from "../reports/reading";
import type { FailedJob, OccurrenceListing, SettledOccurrence, SettledStatus } from "./occurrence";
import { SETTLED_STATUSES, dayOfOccurrence } from "./occurrence";
import { isCalendarDate, secondsFrom } from "../cloud/cloud-time";
import type { UnderWay } from "./under-way";
import type { AlarmLogEntry } from "../pushes/open-alarms";
import { handlingOf } from "../pushes/incident-figures";

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
  timezone: string;
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

/** The words the HTML asks for (besides `status.<state>` and `outcome.<outcome>`): a catalogue must have each. */
export const REPORT_WORD_KEYS = [
  "title",
  "period",
  "zone",
  "byItem",
  "occurrences",
  "images",
  "total",
  "nothingPlanned",
  "column.item",
  "column.planned",
  "column.started",
  "column.ended",
  "column.robot",
  "column.status",
  "column.duration",
  "column.areaCleaned",
  "column.areaPlanned",
  "column.coverage",
  "column.reason",
  "column.count",
  "periodTotals",
  "customer",
  "contractor",
  "signOff",
  "signOffContractor",
  "signOffCustomer",
  "signOffName",
  "signOffSignature",
  "signOffDate",
  "incidents",
  "column.raised",
  "column.level",
  "column.incident",
  "column.acknowledged",
  "column.recovered",
  "column.incidentCount",
  "column.toAcknowledge",
  "column.toRecover",
  "meanLongest",
  "after",
  "afterBy",
  "reason.noRobot",
  "reason.notPossible",
  "reason.late",
  "reason.missed",
  "reason.skipped",
  "reason.notRun",
  "reason.cancelled",
  "reason.unknown",
] as const;
export const REPORT_OUTCOMES: readonly JobOutcome[] = ["completed", "stoppedByHand", "error", "failedToStart", "cancelled", "unknown"];

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
    from,
    to,
    occurrences: joined.map((each) => each.row),
    days,
    dayTotals,
    itemTotals,
    total: countsOf(joined),
  };
}

/** How many occurrences there were and how each ended, and the KPI figures of their reports taken together. */
function countsOf(joined: readonly Joined[]): Omit<DayItemRow, "day" | "item"> {
  const counts = Object.fromEntries(
    COUNTED_STATES.map((state) => [state, joined.filter((each) => each.row.status === state).length]),
  ) as Record<(typeof COUNTED_STATES)[number], number>;
  const { areaCleaned, areaPlanned, coverage } = kpiFiguresOf(joined.flatMap((each) => (each.report ? [each.report] : [])));
  return { planned: joined.length, ...counts, areaCleaned, areaPlanned, coverage };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The report in the format asked for: rows as data, or the text of the CSV or the HTML page. */
export function planReport(input: PlanReportInput): PlanReportRows | string {
  const rows = planReportRows(input);
  if (input.request.format === "csv") return planReportCsv(rows, input.words);
  if (input.request.format === "html") return planReportHtml(rows, input);
  return rows;
}

// ------------------------------------------------------------------ CSV

/** The CSV's columns, units in their names (times ISO 8601 in UTC, areas m², coverage per cent), one line per occurrence. */
export const CSV_COLUMNS = [
  "day",
  "occurrence_id",
  "item",
  "planned_at",
  "started_at",
  "ended_at",
  "duration_s",
  "status",
  "status_text",
  "serial_number",
  "robot",
  "outcome",
  "outcome_text",
  "area_cleaned_m2",
  "area_planned_m2",
  "coverage_percent",
  "report_id",
  "incidents",
  "reason",
  "reason_text",
] as const;

/** A field as robot-reports' CSV example writes one: quoted when it holds a comma, a quote or a line break, quotes doubled. */
function csvField(value: string | number | null | undefined): string {
  const text = value === undefined || value === null ? "" : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Coverage as a percentage with the KPI's precision (0-1 to three decimals: per cent to one). */
function percent(coverage: number | null): number | null {
  return coverage === null ? null : Math.round(coverage * 1000) / 10;
}

/** One line per occurrence: each state and outcome as its code (for a program) beside its words in the runtime's language (for a person). */
export function planReportCsv(rows: PlanReportRows, words: ReportWords): string {
  const lines = rows.occurrences.map((row) =>
    [
      row.day,
      row.occurrenceId,
      row.item,
      row.plannedAt,
      row.startedAt,
      row.endedAt,
      row.durationSeconds,
      row.status,
      words(`status.${row.status}`),
      row.serialNumber,
      row.robotName,
      row.outcome,
      row.outcome === undefined ? undefined : words(`outcome.${row.outcome}`),
      row.areaCleaned,
      row.areaPlanned,
      percent(row.coverage),
      row.reportId,
      row.incidents?.length ?? (row.startedAt !== undefined ? 0 : undefined),
      row.reason,
      row.reasonText,
    ]
      .map(csvField)
      .join(","),
  );
  return [CSV_COLUMNS.join(","), ...lines].join("\n") + "\n";
}

// ------------------------------------------------------------------ HTML

/** Colours of the states on the page: distinct in print and for colour-blind readers (lightness differs too). */
const STATE_COLOURS: Readonly<Record<OccurrenceState, string>> = {
  done: "#1b7f3b",
  late: "#b86e00",
  failed: "#c0281b",
  missed: "#7a1f5c",
  skipped: "#6b6b6b",
  cancelled: "#4a4a4a",
  upcoming: "#2166ac",
  running: "#01758a",
  notRun: "#8c510a",
};

/** The outcome a state already says: "done" is a completed job, "cancelled" a cancelled one. */
const OUTCOME_OF_STATE: Partial<Record<OccurrenceState, JobOutcome>> = { done: "completed", late: "completed", cancelled: "cancelled" };

const STYLE = `
@page { size: A4; margin: 14mm; }
* { box-sizing: border-box; }
body { font-family: "Noto Sans", "WenQuanYi Micro Hei", "Microsoft YaHei", Arial, sans-serif; color: #1a1a1a; margin: 0; font-size: 10.5pt; }
@media screen { body { max-width: 230mm; margin: 0 auto; padding: 0 8mm; } }
.day { padding: 8mm 0; break-after: page; page-break-after: always; }
.day:last-child { break-after: auto; page-break-after: auto; }
header { border-bottom: 2px solid #1a1a1a; margin-bottom: 4mm; padding-bottom: 2mm; }
h1 { font-size: 18pt; margin: 0; }
h2 { font-size: 12pt; margin: 5mm 0 2mm; }
header p { margin: 1mm 0 0; }
.date { font-size: 13pt; font-weight: 600; }
.muted { color: #555; }
table { border-collapse: collapse; width: 100%; margin-bottom: 2mm; }
th, td { border-bottom: 1px solid #ccc; padding: 1.2mm 1.5mm; text-align: left; vertical-align: top; }
th { background: #f0f0f0; font-weight: 600; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
tr.total td { font-weight: 700; border-top: 2px solid #1a1a1a; }
thead { display: table-header-group; }
tr { break-inside: avoid; }
.state { font-weight: 600; white-space: nowrap; }
.images { display: flex; flex-wrap: wrap; gap: 4mm; }
figure { margin: 0; width: 55mm; break-inside: avoid; }
figure img { width: 100%; border: 1px solid #ccc; }
figure .no-image { margin: 0; padding: 4mm; border: 1px dashed #999; font-size: 9pt; color: #555; }
figcaption { font-size: 9pt; }
/* Chinese and Japanese headers break between words (at spaces), never one character per line. */
th { word-break: keep-all; overflow-wrap: normal; }
td.number { white-space: nowrap; }
.sign-off { margin-top: 8mm; break-inside: avoid; }
.parties { display: flex; gap: 10mm; }
.party { flex: 1; }
.party .line { border-bottom: 1px solid #1a1a1a; padding-top: 7mm; margin: 0 0 1mm; font-size: 9pt; color: #555; }
`;

/** Only an image the page can show without running anything: http(s), or a PNG or JPEG the node embedded. */
function showableImage(url: string): boolean {
  return /^https?:\/\//i.test(url) || /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/=]+$/.test(url);
}

export function planReportHtml(rows: PlanReportRows, input: Pick<PlanReportInput, "language" | "words">): string {
  const { language, words } = input;
  const text = (value: string) => escapeMarkup(value);
  const time = new Intl.DateTimeFormat(language, { timeZone: rows.timezone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  const date = new Intl.DateTimeFormat(language, { timeZone: "UTC", dateStyle: "full" });
  const number = new Intl.NumberFormat(language, { maximumFractionDigits: 1 });
  const percentage = new Intl.NumberFormat(language, { style: "percent", maximumFractionDigits: 1 });
  const dayName = (day: string) => date.format(Date.parse(`${day}T12:00:00Z`));
  const at = (iso: string | undefined) => (iso ? time.format(Date.parse(iso)) : "");
  const figure = (value: number | null) => (value === null ? "" : number.format(value));
  const share = (value: number | null) => (value === null ? "" : percentage.format(value));
  const state = (value: OccurrenceState) =>
    `<span class="state" style="color:${STATE_COLOURS[value]}">${text(words(`status.${value}`))}</span>`;
  // One cell says how it ended: the state, and the job's outcome only where the state does not say it already.
  const stateWithOutcome = (row: OccurrenceRow) =>
    row.outcome === undefined || OUTCOME_OF_STATE[row.status] === row.outcome
      ? state(row.status)
      : `${state(row.status)} · ${text(words(`outcome.${row.outcome}`))}`;
  const minutes = new Intl.NumberFormat(language, { style: "unit", unit: "minute", maximumFractionDigits: 0 });
  const seconds = new Intl.NumberFormat(language, { style: "unit", unit: "second", maximumFractionDigits: 0 });
  const duration = (value: number | undefined) =>
    value === undefined ? "" : value < 60 ? seconds.format(value) : minutes.format(Math.round(value / 60));
  const cells = (values: readonly string[], numberFrom: number) =>
    values.map((value, index) => `<td${index >= numberFrom ? ' class="number"' : ""}>${value}</td>`).join("");
  const heads = (keys: readonly string[], numberFrom: number, numberTo = keys.length) =>
    keys.map((key, index) => `<th${index >= numberFrom && index < numberTo ? ' class="number"' : ""}>${text(words(key))}</th>`).join("");

  const summary = (itemRows: readonly ItemTotalRow[], total: Omit<DayItemRow, "day" | "item"> | undefined) => {
    const countKeys = ["column.count", ...COUNTED_STATES.map((state) => `status.${state}`)];
    const head = heads(["column.item", ...countKeys, "column.areaCleaned", "column.areaPlanned", "column.coverage"], 1);
    const line = (name: string, row: Omit<DayItemRow, "day" | "item">, extra = "") =>
      `<tr${extra}>${cells(
        [
          text(name),
          String(row.planned),
          ...COUNTED_STATES.map((state) => String(row[state])),
          figure(row.areaCleaned),
          figure(row.areaPlanned),
          share(row.coverage),
        ],
        1,
      )}</tr>`;
    return `<table class="summary"><thead><tr>${head}</tr></thead><tbody>${itemRows.map((row) => line(row.item, row)).join("")}${
      total && itemRows.length > 1 ? line(words("total"), total, ' class="total"') : ""
    }</tbody></table>`;
  };

  const occurrenceTable = (dayOccurrences: readonly OccurrenceRow[]) => {
    const head = heads(
      [
        "column.planned",
        "column.item",
        "column.status",
        "column.started",
        "column.ended",
        "column.robot",
        "column.duration",
        "column.areaCleaned",
        "column.areaPlanned",
        "column.coverage",
        "column.reason",
      ],
      6,
      10,
    );
    const body = dayOccurrences
      .map((row) => {
        const values = [
          text(at(row.plannedAt)),
          text(row.item),
          stateWithOutcome(row),
          text(at(row.startedAt)),
          text(at(row.endedAt)),
          text(row.robotName ?? ""),
          text(duration(row.durationSeconds)),
          figure(row.areaCleaned),
          figure(row.areaPlanned),
          share(row.coverage),
        ];
        return `<tr>${cells(values, 6)}<td>${text(row.reasonText ?? row.reason ?? "")}</td></tr>`;
      })
      .join("");
    return `<table class="occurrences"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
  };

  const images = (dayOccurrences: readonly OccurrenceRow[]) => {
    const shown = dayOccurrences.filter((row) => (row.image !== undefined && showableImage(row.image)) || row.imageNote !== undefined);
    if (shown.length === 0) return "";
    const figures = shown
      .map((row) => {
        const caption = `<figcaption>${text(`${row.item} · ${at(row.plannedAt)} · ${row.robotName ?? ""}`)}</figcaption>`;
        if (row.image === undefined || !showableImage(row.image))
          return `<figure><p class="no-image">${text(row.imageNote!)}</p>${caption}</figure>`;
        return `<figure><img src="${text(row.image)}" alt="${text(`${row.item} ${at(row.plannedAt)}`)}">${caption}</figure>`;
      })
      .join("");
    return `<h2>${text(words("images"))}</h2><div class="images">${figures}</div>`;
  };

  const parties = [
    rows.customer ? words("customer", { name: rows.customer }) : "",
    rows.contractor ? words("contractor", { name: rows.contractor }) : "",
  ].filter((party) => party !== "");
  const header = (when: string) =>
    `<header><h1>${text(rows.site)}</h1><p class="date">${text(words("title"))} · ${text(when)}</p>${
      parties.length ? `<p>${text(parties.join(" · "))}</p>` : ""
    }<p class="muted">${text(words("zone", { zone: rows.timezone }))}</p></header>`;
  // Both parties sign the last page: a name, a signature and a date each, filled in by hand on the print.
  const signOff = () => {
    const party = (heading: string, name: string | undefined) =>
      `<div class="party"><p><b>${text(words(heading))}</b>${name ? ` ${text(name)}` : ""}</p>${[
        "signOffName",
        "signOffSignature",
        "signOffDate",
      ]
        .map((key) => `<p class="line">${text(words(key))}</p>`)
        .join("")}</div>`;
    return `<div class="sign-off"><h2>${text(words("signOff"))}</h2><div class="parties">${party("signOffContractor", rows.contractor)}${party(
      "signOffCustomer",
      rows.customer,
    )}</div></div>`;
  };
  const spell = (seconds: number | undefined) => (seconds === undefined ? "" : duration(seconds));
  // The alarms raised during the day's occurrences, each with how soon a person acknowledged it and its robot recovered.
  const incidentTable = (dayOccurrences: readonly OccurrenceRow[]) => {
    const raised = dayOccurrences.flatMap((row) => (row.incidents ?? []).map((incident) => ({ row, incident })));
    if (raised.length === 0) return "";
    raised.sort((a, b) => compare(a.incident.raisedAt, b.incident.raisedAt));
    const head = heads(
      ["column.raised", "column.item", "column.robot", "column.level", "column.incident", "column.acknowledged", "column.recovered"],
      7,
    );
    const body = raised
      .map(({ row, incident }) => {
        const acknowledged = incident.acknowledged
          ? words("afterBy", { time: spell(secondsFrom(incident.raisedAt, incident.acknowledged.at)), by: incident.acknowledged.by })
          : "";
        const recovered = incident.recoveredAt ? words("after", { time: spell(secondsFrom(incident.raisedAt, incident.recoveredAt)) }) : "";
        const what = [incident.code, incident.name].filter((part) => part !== undefined && part !== "").join(" ");
        return `<tr>${cells(
          [
            at(incident.raisedAt),
            row.item,
            row.robotName ?? incident.serialNumber,
            incident.level?.code ?? "",
            what,
            acknowledged,
            recovered,
          ].map(text),
          7,
        )}</tr>`;
      })
      .join("");
    const figures = handlingOf(raised.map(({ incident }) => incident));
    const spread = (value: { meanSeconds: number; longestSeconds: number } | null) =>
      value ? words("meanLongest", { mean: duration(value.meanSeconds), longest: duration(value.longestSeconds) }) : "";
    const summaryRow = `<table class="summary"><thead><tr>${heads(
      ["column.incidentCount", "column.acknowledged", "column.recovered", "column.toAcknowledge", "column.toRecover"],
      0,
      3,
    )}</tr></thead><tbody><tr>${cells([String(figures.raised), String(figures.acknowledged), String(figures.recovered)], 0)}<td>${text(
      spread(figures.toAcknowledge),
    )}</td><td>${text(spread(figures.toRecover))}</td></tr></tbody></table>`;
    return `<h2>${text(words("incidents"))}</h2>${summaryRow}<table class="incidents"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
  };
  const pages = daysBetween(rows.from, rows.to).map((day) => {
    const dayRows = rows.days.filter((row) => row.day === day);
    const dayOccurrences = rows.occurrences.filter((row) => row.day === day);
    const body =
      dayOccurrences.length === 0
        ? `<p class="muted">${text(words("nothingPlanned"))}</p>`
        : `<h2>${text(words("byItem"))}</h2>${summary(
            dayRows,
            rows.dayTotals.find((row) => row.day === day),
          )}<h2>${text(words("occurrences"))}</h2>${occurrenceTable(dayOccurrences)}${incidentTable(dayOccurrences)}${images(dayOccurrences)}`;
    return `<section class="day" data-day="${day}">${header(dayName(day))}${body}</section>`;
  });
  // A span of several days ends with its totals: what a contractor invoices and a customer checks.
  if (pages.length > 1 && rows.occurrences.length > 0)
    pages.push(
      `<section class="day period">${header(words("period", { from: rows.from, to: rows.to }))}<h2>${text(words("periodTotals"))}</h2>${summary(
        rows.itemTotals,
        rows.total,
      )}</section>`,
    );
  pages[pages.length - 1] = pages[pages.length - 1]!.replace(/<\/section>$/, `${signOff()}</section>`);
  const title = `${rows.site} · ${words("title")} · ${words("period", { from: rows.from, to: rows.to })}`;
  return `<!DOCTYPE html>
<html lang="${text(language)}"><head><meta charset="utf-8"><title>${text(title)}</title><style>${STYLE}</style></head>
<body>${pages.join("\n")}</body></html>
`;
}
