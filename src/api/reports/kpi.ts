/**
 * The fleet's figures from its task reports: one row per robot, per map or
 * per day over a period, each with the same columns. Days are calendar days
 * in a time zone (the runtime's, or the one the node names), read through
 * Intl. A report that covered several maps counts on each map with that map's
 * share (its area from subTasks).
 */
import { invalidInput } from "../errors";
import type { TaskOutcome } from "../cloud/task-outcomes";
import { cloudTimeMs } from "../cloud/cloud-time";
import { figureOf, round, type ReadReport } from "./reading";
import { notOneOf } from "../settings/input-problems";

/** What the history keeps of a report: only what the rows and the coverage image need, as plain JSON. */
export interface KeptReport {
  key: string;
  serialNumber: string;
  reportId: string;
  startMs: number;
  outcome: TaskOutcome;
  areaCleaned: number;
  areaPlanned: number;
  seconds: number;
  cloudEfficiency?: number;
  water: number;
  batteryUsed?: number;
  maps: { mapId: string; mapName: string; areaCleaned: number; areaPlanned?: number }[];
  pngUri?: string;
}

export const KPI_GROUPINGS = ["robot", "map", "day"] as const;
export type KpiGrouping = (typeof KPI_GROUPINGS)[number];

export interface KpiFigures {
  tasks: number;
  completed: number;
  stoppedByHand: number;
  error: number;
  failedToStart: number;
  /** m² */
  areaCleaned: number;
  areaPlanned: number;
  /** Σ cleaned / Σ planned, 0-1 (null with nothing planned). */
  coverage: number | null;
  hours: number;
  /** Σ area / Σ hours, m²/h (null with no time). */
  efficiency: number | null;
  /** The reports' own figure, averaged by their hours (null when none gave one). */
  cloudEfficiency: number | null;
  /** litres */
  water: number;
  /** Σ (start - end battery), percentage points. */
  batteryUsed: number;
}

export type KpiRow = KpiFigures & ({ serialNumber: string; robotName: string } | { mapId: string; mapName: string } | { day: string });

/** A report's start, for the history: the start time, else its end, else when it was received. */
export function keptReportOf(report: ReadReport, receivedMs: number): KeptReport {
  const startMs = cloudTimeMs(report.startTimeIso) ?? cloudTimeMs(report.endTimeIso) ?? receivedMs;
  const start = figureOf(report.startBatteryPercentage);
  const end = figureOf(report.endBatteryPercentage);
  const png = report.taskReportPngUri;
  return {
    key: report.reportKey,
    serialNumber: report.serialNumber,
    reportId: typeof report.id === "string" || typeof report.id === "number" ? String(report.id) : "",
    startMs,
    outcome: report.outcome,
    areaCleaned: figureOf(report.actualCleaningAreaSquareMeter) ?? 0,
    areaPlanned: figureOf(report.plannedCleaningAreaSquareMeter) ?? 0,
    seconds: figureOf(report.durationSeconds) ?? 0,
    ...(report.cloudEfficiency === undefined ? {} : { cloudEfficiency: report.cloudEfficiency }),
    water: figureOf(report.waterConsumptionLiter) ?? 0,
    ...(start !== undefined && end !== undefined ? { batteryUsed: start - end } : {}),
    maps: report.maps.map((map) => ({ ...map })),
    ...(typeof png === "string" && png !== "" ? { pngUri: png } : {}),
  };
}

/**
 * Days as YYYY-MM-DD in a time zone (undefined: the runtime's). Throws an
 * invalid_input naming `timeZone` for a zone Intl does not know.
 */
export function dayFormatter(timeZone: string | undefined): (ms: number) => string {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-CA", { timeZone: timeZone || undefined, year: "numeric", month: "2-digit", day: "2-digit" });
  } catch {
    throw invalidInput("timeZone", `"${timeZone}" is not a time zone this runtime knows (an IANA name such as Europe/Berlin)`);
  }
  // Every zone's offset is a multiple of 15 minutes: one formatting per quarter hour serves all its reports.
  const days = new Map<number, string>();
  return (ms) => {
    const quarter = Math.floor(ms / QUARTER_HOUR_MS);
    let day = days.get(quarter);
    if (day === undefined) {
      const parts = format.formatToParts(ms);
      const part = (type: string) => parts.find((each) => each.type === type)?.value ?? "";
      day = `${part("year")}-${part("month")}-${part("day")}`;
      if (days.size >= MAX_CACHED_QUARTERS) days.clear();
      days.set(quarter, day);
    }
    return day;
  };
}

const QUARTER_HOUR_MS = 15 * 60_000;
/** A year of quarter hours. */
const MAX_CACHED_QUARTERS = 366 * 96;

/** Sums that become a row's figures. */
class Totals {
  tasks = 0;
  completed = 0;
  stoppedByHand = 0;
  error = 0;
  failedToStart = 0;
  areaCleaned = 0;
  areaPlanned = 0;
  seconds = 0;
  efficiencyHours = 0;
  efficiencyByHours = 0;
  water = 0;
  batteryUsed = 0;

  /** Adds a report, or its `share` of one map (its figures of time, water and battery in proportion). */
  add(report: KeptReport, share = 1, areaCleaned = report.areaCleaned, areaPlanned = report.areaPlanned): void {
    this.tasks++;
    if (report.outcome === "normal") this.completed++;
    else if (report.outcome === "stoppedByHand") this.stoppedByHand++;
    else if (report.outcome === "error") this.error++;
    else if (report.outcome === "failedToStart") this.failedToStart++;
    this.areaCleaned += areaCleaned;
    this.areaPlanned += areaPlanned;
    const seconds = report.seconds * share;
    this.seconds += seconds;
    if (report.cloudEfficiency !== undefined && seconds > 0) {
      this.efficiencyHours += seconds / 3600;
      this.efficiencyByHours += report.cloudEfficiency * (seconds / 3600);
    }
    this.water += report.water * share;
    this.batteryUsed += (report.batteryUsed ?? 0) * share;
  }

  figures(): KpiFigures {
    const hours = this.seconds / 3600;
    return {
      tasks: this.tasks,
      completed: this.completed,
      stoppedByHand: this.stoppedByHand,
      error: this.error,
      failedToStart: this.failedToStart,
      areaCleaned: round(this.areaCleaned, 2),
      areaPlanned: round(this.areaPlanned, 2),
      coverage: this.areaPlanned > 0 ? round(this.areaCleaned / this.areaPlanned, 3) : null,
      hours: round(hours, 2),
      efficiency: hours > 0 ? round(this.areaCleaned / hours, 1) : null,
      cloudEfficiency: this.efficiencyHours > 0 ? round(this.efficiencyByHours / this.efficiencyHours, 1) : null,
      water: round(this.water, 2),
      batteryUsed: round(this.batteryUsed, 1),
    };
  }
}

/** The figures of a set of reports taken together, as one row of kpiRows has them (a plan's day and item, a report alone). */
export function kpiFiguresOf(reports: Iterable<KeptReport>): KpiFigures {
  const totals = new Totals();
  for (const report of reports) totals.add(report);
  return totals.figures();
}

/**
 * A map's part of a report: its cleaned area, its planned area (its own, or
 * the report's in the same proportion), and its share of the report's time,
 * water and battery (its part of the cleaned area; equal parts when none was cleaned).
 * A report on one map gives that map all of its figures.
 */
function mapParts(report: KeptReport): { map: KeptReport["maps"][number]; share: number; areaPlanned: number }[] {
  // One map (or none named: a row without a map) takes the whole report.
  if (report.maps.length <= 1) {
    const map = report.maps[0] ?? { mapId: "", mapName: "", areaCleaned: report.areaCleaned };
    return [{ map: { ...map, areaCleaned: report.areaCleaned }, share: 1, areaPlanned: report.areaPlanned }];
  }
  const cleanedOnMaps = report.maps.reduce((sum, map) => sum + map.areaCleaned, 0);
  return report.maps.map((map) => {
    const share = cleanedOnMaps > 0 ? map.areaCleaned / cleanedOnMaps : 1 / report.maps.length;
    return { map, share, areaPlanned: map.areaPlanned ?? report.areaPlanned * share };
  });
}

export interface KpiRequest {
  /** First and last day, YYYY-MM-DD, both included. */
  from: string;
  to: string;
  by: KpiGrouping;
  /** The figures to answer as chart points instead of rows (a Dashboard 2 ui-chart plots them as they are). */
  chart?: KpiChartFigure[];
}

/** The figures a chart may plot: the numbers of a row, and `cutShort` (stopped by hand, error or failed to start). */
export const KPI_CHART_FIGURES = [
  "tasks",
  "completed",
  "cutShort",
  "stoppedByHand",
  "error",
  "failedToStart",
  "areaCleaned",
  "areaPlanned",
  "hours",
  "water",
  "batteryUsed",
] as const;
export type KpiChartFigure = (typeof KPI_CHART_FIGURES)[number];

/** One bar or point of a chart: `x` the row's name (robot name, map name or day), `series` the figure's name as a person reads it. */
export interface KpiChartPoint {
  x: string;
  series: string;
  y: number;
}

/** A figure of a row, `cutShort` included. */
function chartFigureOf(row: KpiRow, figure: KpiChartFigure): number {
  return figure === "cutShort" ? row.stoppedByHand + row.error + row.failedToStart : row[figure];
}

/** The name a chart shows for a row: its robot's, its map's, or its day. */
function rowName(row: KpiRow): string {
  return "robotName" in row ? row.robotName : "mapName" in row ? row.mapName : row.day;
}

/** The rows as chart points, figure by figure in the order asked, each named by `seriesName` (in the runtime's language). */
export function kpiChartPoints(
  rows: readonly KpiRow[],
  figures: readonly KpiChartFigure[],
  seriesName: (figure: KpiChartFigure) => string,
): KpiChartPoint[] {
  return figures.flatMap((figure) => rows.map((row) => ({ x: rowName(row), series: seriesName(figure), y: chartFigureOf(row, figure) })));
}

/**
 * The rows of a period: by robot (sorted by serial number), by map (by name),
 * or by day (in order; only days with reports). `nameOf` names a robot as
 * the robot list does (the account's robot directory).
 */
export function kpiRows(
  reports: Iterable<KeptReport>,
  request: KpiRequest,
  dayOf: (ms: number) => string,
  nameOf: (serialNumber: string) => string = (serialNumber) => serialNumber,
): KpiRow[] {
  const groups = new Map<string, { key: Record<string, string>; totals: Totals }>();
  const group = (id: string, key: () => Record<string, string>) => {
    let found = groups.get(id);
    if (!found) groups.set(id, (found = { key: key(), totals: new Totals() }));
    return found.totals;
  };
  for (const report of reports) {
    const day = dayOf(report.startMs);
    if (day < request.from || day > request.to) continue;
    if (request.by === "robot") {
      group(report.serialNumber, () => ({
        serialNumber: report.serialNumber,
        robotName: nameOf(report.serialNumber),
      })).add(report);
    } else if (request.by === "day") {
      group(day, () => ({ day })).add(report);
    } else {
      for (const { map, share, areaPlanned } of mapParts(report)) {
        group(map.mapId || `name:${map.mapName}`, () => ({ mapId: map.mapId, mapName: map.mapName })).add(
          report,
          share,
          map.areaCleaned,
          areaPlanned,
        );
      }
    }
  }
  const sortKey = (key: Record<string, string>) => key.serialNumber ?? key.day ?? `${key.mapName}\n${key.mapId}`;
  return [...groups.values()]
    .sort((a, b) => (sortKey(a.key) < sortKey(b.key) ? -1 : sortKey(a.key) > sortKey(b.key) ? 1 : 0))
    .map(({ key, totals }) => ({ ...key, ...totals.figures() }) as KpiRow);
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Reads msg.payload.kpi: {from, to, by}; "today" (in the node's time zone)
 * may stand for a day, and `to` defaults to `from`. Errors name the field.
 */
export function readKpiRequest(value: unknown, today: string): KpiRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw invalidInput("payload.kpi", 'must be {from: "YYYY-MM-DD", to: "YYYY-MM-DD", by: "robot" | "map" | "day"}');
  const fields = value as Record<string, unknown>;
  const dayField = (name: "from" | "to", fallback?: string): string => {
    const given = fields[name] ?? fallback;
    const day = given === "today" ? today : given;
    if (typeof day !== "string" || !DAY.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) {
      throw invalidInput(`payload.kpi.${name}`, 'must be a day as "YYYY-MM-DD" or "today"');
    }
    return day;
  };
  const from = dayField("from");
  const to = dayField("to", from);
  if (to < from) throw invalidInput("payload.kpi.to", `must not be before from (${from})`);
  const by = fields.by ?? "robot";
  if (typeof by !== "string" || !(KPI_GROUPINGS as readonly string[]).includes(by))
    throw invalidInput("payload.kpi.by", notOneOf(KPI_GROUPINGS));
  const request: KpiRequest = { from, to, by: by as KpiGrouping };
  if (fields.chart !== undefined) {
    const chart = fields.chart;
    if (!Array.isArray(chart) || chart.length === 0 || !chart.every((figure) => (KPI_CHART_FIGURES as readonly unknown[]).includes(figure)))
      throw invalidInput("payload.kpi.chart", `must be a list of figures among ${KPI_CHART_FIGURES.join(", ")}`);
    request.chart = chart as KpiChartFigure[];
  }
  return request;
}
