/**
 * What a task report says, read the same way whichever way it came: swept
 * from the task reports endpoint (times as RFC 3339 strings) or pushed
 * (epoch milliseconds, and the serial number beside the report rather than in
 * it). Unknown fields are kept; the figures a flow and the KPI rows need are
 * added beside them.
 */
import { withTaskReading, type TaskReportReading } from "../cloud/task-outcomes";
import { cloudTimeMs, isoTimesOf, type IsoTimes } from "../cloud/cloud-time";
import { numberOf, trimmedIdOf } from "../cloud/values";

/** One map a report covered (from its subTasks): the area cleaned there, and the planned area when the cloud gives one. */
export interface CoveredMap {
  mapId: string;
  mapName: string;
  areaCleaned: number;
  areaPlanned?: number;
}

/** A report as output 1 sends it: the cloud's fields, then what is read from them. */
export type ReadReport = Record<string, unknown> &
  TaskReportReading &
  IsoTimes & {
    serialNumber: string;
    /** The report's identity across shapes and sweeps (see reportIdentity). */
    reportKey: string;
    /** cleaned / planned area, 0-1, when the planned area is known. */
    coverage?: number;
    /** m² per hour recomputed from the cleaned area and the duration; the cloud's own figure is cloudEfficiency. */
    efficiency?: number;
    cloudEfficiency?: number;
    maps: CoveredMap[];
  };

/** A figure the cloud may send as a number or a string of one (int64 fields); anything else is undefined. */
export const figureOf = numberOf;

/** What a report is known by beside its robot: its id, else its start time; undefined when it names neither. */
function identifyingPartOf(report: Record<string, unknown>): string | undefined {
  const id = trimmedIdOf(report.id);
  if (id !== undefined) return id;
  const start = cloudTimeMs(report.startTime);
  return start === undefined ? undefined : `start:${start}`;
}

/**
 * The identity of a report, the one every node and the push receiver use: its
 * robot and its id (the same report in two overlapping windows, or pushed and
 * swept, has the same id; two robots' reports with one id are two). A report
 * with no id is known by its robot and start time.
 */
export function reportIdentity(serialNumber: string, report: Record<string, unknown>): string {
  return `${serialNumber}/${identifyingPartOf(report) ?? "start:unknown"}`;
}

/** Whether a report names an id or a start time: one that names neither cannot be told from another of its robot. */
export function isIdentifiable(report: Record<string, unknown>): boolean {
  return identifyingPartOf(report) !== undefined;
}

function mapsOf(subTasks: unknown): CoveredMap[] {
  if (!Array.isArray(subTasks)) return [];
  const maps = new Map<string, CoveredMap>();
  for (const subTask of subTasks as unknown[]) {
    if (typeof subTask !== "object" || subTask === null) continue;
    const fields = subTask as Record<string, unknown>;
    const mapId = typeof fields.mapId === "string" || typeof fields.mapId === "number" ? String(fields.mapId) : "";
    const mapName = typeof fields.mapName === "string" ? fields.mapName : "";
    if (mapId === "" && mapName === "") continue;
    // Two sub-tasks on one map (two areas of a floor) are one map with their areas added up.
    const key = mapId || `name:${mapName}`;
    const known = maps.get(key) ?? { mapId, mapName, areaCleaned: 0 };
    known.areaCleaned += figureOf(fields.actualCleaningAreaSquareMeter) ?? 0;
    const planned = figureOf(fields.plannedCleaningAreaSquareMeter);
    if (planned !== undefined) known.areaPlanned = (known.areaPlanned ?? 0) + planned;
    maps.set(key, known);
  }
  return [...maps.values()];
}

/**
 * Reads one report. `serialNumber` is the robot it was read for (a sweep) or
 * pushed with; the report's own robotSerialNumber is used when none is given.
 * Returns undefined when neither names a robot.
 */
export function readReport(report: Record<string, unknown>, serialNumber?: string): ReadReport | undefined {
  const robot = serialNumber ?? (typeof report.robotSerialNumber === "string" ? report.robotSerialNumber : undefined);
  if (!robot) return undefined;
  const cleaned = figureOf(report.actualCleaningAreaSquareMeter);
  const planned = figureOf(report.plannedCleaningAreaSquareMeter);
  const seconds = figureOf(report.durationSeconds);
  const completion = figureOf(report.completionPercentage);
  const cloudEfficiency = figureOf(report.efficiencySquareMeterPerHour);
  const coverage = cleaned !== undefined && planned !== undefined && planned > 0 ? Math.min(1, cleaned / planned) : completion;
  const efficiency = cleaned !== undefined && seconds !== undefined && seconds > 0 ? cleaned / (seconds / 3600) : undefined;
  return {
    ...withTaskReading(report),
    serialNumber: robot,
    reportKey: reportIdentity(robot, report),
    ...(coverage === undefined ? {} : { coverage: round(coverage, 4) }),
    ...(efficiency === undefined ? {} : { efficiency: round(efficiency, 1) }),
    ...(cloudEfficiency === undefined ? {} : { cloudEfficiency }),
    maps: mapsOf(report.subTasks),
    ...isoTimesOf(report),
  };
}

/** Rounds to `digits` decimals, for figures people read (the sums behind them are not rounded). */
export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
