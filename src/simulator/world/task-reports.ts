/**
 * Task reports as the simulated robots file them: one or two seeded per
 * robot, one more each time a task ends (also one that failed to start), and
 * any a test adds in the past through the control API.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { CurrentTask, Partition, SimMap, SimRobot } from "./fleet";
import type { FiledReport } from "./report-book";
import { parsedOrRefused } from "../server/control-requests";
import { invalid } from "../server/sim-errors";
import { milliTimestamp, round, stableId } from "./values";
import { currentMap, executableTaskId } from "./views";
import { residualPercentagesOf } from "./wear";

/**
 * taskEndStatus of a task report (docs/cloud-api.md, Task reports): -1 unknown,
 * 0 normal end, 1 stopped by hand, 2 error, 3 failed to start. The simulator
 * files 0 for a task that ran its time, 2 for one that ended while the
 * robot's emergency stop was pressed, 3 for a start the robot could not
 * carry out (low battery, lost, emergency stop), and 1 otherwise (stopped by
 * a command or PATCH, or its battery ran empty); the control API may end a
 * task with any of them.
 */
export const TASK_END_STATUS = { UNKNOWN: -1, FINISHED: 0, STOPPED: 1, ERROR: 2, FAILED_TO_START: 3 } as const;

/** The share of a task's duration the simulator counts as cleaning, for its efficiency figure. */
const ACTIVE_SHARE = 0.94;
/** How long the simulator takes to clean one area once. */
export const SECONDS_PER_AREA = 20 * 60;

/** One or two finished tasks of the last days, the same on every start. */
export function seededReports(robot: SimRobot, index: number, now: number): FiledReport[] {
  const reports: FiledReport[] = [];
  const count = 1 + (index % 2);
  for (let day = 1; day <= count; day++) {
    const map = robot.maps[(day - 1) % robot.maps.length]!;
    const durationSeconds = map.partitions.length * SECONDS_PER_AREA;
    const endMs = now - day * 24 * 3600_000;
    reports.push(
      filedReport(robot, {
        id: stableId(`${robot.serialNumber}/report/${day}`),
        name: `Nightly ${map.name}`,
        cleaningMode: robot.cleanModes[0] ?? "__middle_cleaning",
        map,
        areaIds: [],
        taskInstanceId: stableId(`${robot.serialNumber}/task/${day}`),
        loops: 1,
        completion: day === 1 ? 1 : 0.87,
        durationSeconds,
        startMs: endMs - durationSeconds * 1000,
        endMs,
        endStatus: day === 1 ? TASK_END_STATUS.FINISHED : TASK_END_STATUS.STOPPED,
        startBattery: 100,
      }),
    );
  }
  return reports;
}

interface ReportFacts {
  id: string;
  name: string;
  cleaningMode: string;
  map: SimMap;
  /** The areas the task cleaned (as tasks name them); none: every area of the map. */
  areaIds: readonly string[];
  /** The run's own id (the running task's id in the statuses). */
  taskInstanceId: string;
  /** How many times the task goes over its areas. */
  loops: number;
  completion: number;
  durationSeconds: number;
  startMs: number;
  endMs: number;
  endStatus: number;
  startBattery: number;
}

/** An area's floor in square metres: its room on the floor plan. */
function squareMetres(map: SimMap, partition: Partition): number {
  return partition.rect.width * partition.rect.height * map.resolution * map.resolution;
}

/** The areas a task cleans: those it names, else every area of its map. */
function areasOf(map: SimMap, areaIds: readonly string[]): Partition[] {
  return areaIds.length > 0 ? map.partitions.filter((partition) => areaIds.includes(String(partition.id))) : map.partitions;
}

/**
 * A task report with the fields of the recorded one (docs/cloud-api.md, Task
 * reports; taskReportPngUri is added where it is read: it is a pre-signed
 * URL). Planned and actual areas are the task's own areas', never the whole
 * floor's for a task of one area; subTasks say which: one per area cleaned,
 * each with its executable task's id (the recorded reports' subTasks[].taskId
 * is an id of the status' executableTasks), or one for the whole map.
 */
function filedReport(robot: SimRobot, task: ReportFacts): FiledReport {
  const { map, completion } = task;
  const areas = areasOf(map, task.areaIds);
  const named = task.areaIds.length > 0;
  const plannedArea = round(areas.reduce((sum, area) => sum + squareMetres(map, area), 0) * task.loops);
  const actualArea = round(plannedArea * completion);
  const hours = task.durationSeconds / 3600;
  const endBattery = Math.max(0, Math.round(task.startBattery - hours * 20));
  const subTasks = named
    ? areas.map((area) => ({
        mapId: map.id,
        mapName: map.name,
        actualCleaningAreaSquareMeter: round(squareMetres(map, area) * task.loops * completion),
        taskId: executableTaskId(robot, map, area.id),
      }))
    : [{ mapId: map.id, mapName: map.name, actualCleaningAreaSquareMeter: actualArea, taskId: executableTaskId(robot, map, "all") }];
  const report = {
    id: task.id,
    displayName: task.name,
    robotSerialNumber: robot.serialNumber,
    operator: "open-platform",
    completionPercentage: round(completion),
    durationSeconds: task.durationSeconds,
    // Empty in the recorded reports (tasks of a whole map); the simulator names the areas of a task that names them.
    areaNameList: named ? areas.map((area) => area.name).join(", ") : "",
    plannedCleaningAreaSquareMeter: plannedArea,
    actualCleaningAreaSquareMeter: actualArea,
    // Like the cloud's, not area / duration (docs/cloud-api.md): counted over the time the robot was cleaning, not turning or waiting.
    efficiencySquareMeterPerHour: hours > 0 ? round(actualArea / (hours * ACTIVE_SHARE)) : 0,
    waterConsumptionLiter: round(actualArea * 0.02),
    startBatteryPercentage: task.startBattery,
    endBatteryPercentage: endBattery,
    // Percent left, 0-100, as recorded: the robot's parts as they are when the report is filed (wear.ts).
    consumablesResidualPercentage: residualPercentagesOf(robot.wear),
    taskInstanceId: task.taskInstanceId,
    cleaningMode: task.cleaningMode,
    taskEndStatus: task.endStatus,
    subTasks,
    // The task's definition among executableTasks, where it is one (a task of one area or of the whole map).
    ...(areas.length === 1 || !named ? { taskId: subTasks[0]!.taskId } : {}),
    startTime: milliTimestamp(task.startMs),
    endTime: milliTimestamp(task.endMs),
  };
  return { report, mapId: map.id, areaIds: [...task.areaIds] };
}

/** The report of a task that ended now (`endMs`), whatever ended it; failed to start: nothing cleaned. */
export function finishedTaskReport(robot: SimRobot, task: CurrentTask, endStatus: number, endMs: number): FiledReport {
  const startMs = Date.parse(task.startTime);
  const map = robot.maps.find((candidate) => candidate.id === task.mapId) ?? currentMap(robot);
  const loops = Math.max(1, task.loopCount);
  const plannedSeconds = Math.max(1, areasOf(map, task.areaIds).length) * SECONDS_PER_AREA * loops;
  const durationSeconds = Math.max(0, Math.round((endMs - startMs) / 1000));
  const completion =
    endStatus === TASK_END_STATUS.FINISHED
      ? 1
      : endStatus === TASK_END_STATUS.FAILED_TO_START
        ? 0
        : Math.min(1, durationSeconds / plannedSeconds);
  return filedReport(robot, {
    id: randomUUID(),
    name: task.name,
    cleaningMode: task.cleaningMode,
    map,
    areaIds: task.areaIds,
    taskInstanceId: task.id,
    loops,
    completion,
    durationSeconds,
    startMs,
    endMs,
    endStatus,
    startBattery: robot.battery.powerPercentage,
  });
}

/** A report as the push service sends it: the polled fields, with startTime and endTime as epoch milliseconds (docs/cloud-api.md). */
export function pushedTaskReport(report: Record<string, unknown>): Record<string, unknown> {
  const epochMs = (value: unknown) => (typeof value === "string" ? Date.parse(value) : value);
  return { ...structuredClone(report), startTime: epochMs(report.startTime), endTime: epochMs(report.endTime) };
}

/** What POST /_sim/robots/<serial>/taskReports takes: a report of a task that ran in the past (for sweeps over days). */
export const PastReport = z.strictObject({
  startTime: z.iso.datetime({ offset: true, error: "must be an ISO 8601 time, e.g. 2026-11-20T07:00:00Z" }),
  durationSeconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .default(1800),
  taskEndStatus: z.number().int().min(-1).max(3).default(TASK_END_STATUS.FINISHED),
  /** 0-1; default 1 for a normal end, 0 for a failed start, else 0.5. */
  completion: z.number().min(0).max(1).optional(),
  /** A map of the robot; default the one it is on. */
  mapId: z.string().min(1).optional(),
  /** Areas of that map; default all of it. */
  areaIds: z.array(z.string().min(1)).default([]),
  name: z.string().min(1).default("Past task"),
  cleaningMode: z.string().min(1).optional(),
  /** Default a new UUID. */
  id: z.string().min(1).optional(),
});
export type PastReport = z.input<typeof PastReport>;

/** A report of a task that ran in the past, as the control API describes it. */
export function pastReport(robot: SimRobot, raw: unknown): FiledReport {
  const past = parsedOrRefused(PastReport, raw);
  const map = past.mapId === undefined ? currentMap(robot) : robot.maps.find((candidate) => candidate.id === past.mapId);
  if (!map) throw invalid("mapId", `unknown map ${past.mapId} on robot ${robot.serialNumber} (${robot.maps.map((m) => m.id).join(", ")})`);
  const unknown = past.areaIds.find((areaId) => !map.partitions.some((partition) => String(partition.id) === areaId));
  if (unknown !== undefined) throw invalid("areaIds", `no area ${unknown} on map ${map.name}`);
  const startMs = Date.parse(past.startTime);
  const status = past.taskEndStatus;
  return filedReport(robot, {
    id: past.id ?? randomUUID(),
    name: past.name,
    cleaningMode: past.cleaningMode ?? robot.cleanModes[0] ?? "__middle_cleaning",
    map,
    areaIds: past.areaIds,
    taskInstanceId: randomUUID(),
    loops: 1,
    completion: past.completion ?? (status === TASK_END_STATUS.FINISHED ? 1 : status === TASK_END_STATUS.FAILED_TO_START ? 0 : 0.5),
    durationSeconds: past.durationSeconds,
    startMs,
    endMs: startMs + past.durationSeconds * 1000,
    endStatus: status,
    startBattery: 100,
  });
}
