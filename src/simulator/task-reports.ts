/** Task reports as the simulated robots file them: one or two seeded per robot, one more each time a task ends. */
import { randomUUID } from "node:crypto";
import type { CurrentTask, SimRobot } from "./fleet";
import { milliTimestamp, round, stableId } from "./values";

/** Task reports kept per robot; the oldest are dropped past this. */
export const MAX_TASK_REPORTS_PER_ROBOT = 100;

/**
 * taskEndStatus of a task report (docs/cloud-api.md, Task reports): -1 unknown,
 * 0 normal end, 1 stopped by hand, 2 error, 3 failed to start. The simulator
 * files 0 for a task that ran its time, 2 for one that ended while the
 * robot's emergency stop was pressed, and 1 otherwise (stopped by a command or
 * PATCH, or its battery ran empty).
 */
export const TASK_END_STATUS = { UNKNOWN: -1, FINISHED: 0, STOPPED: 1, ERROR: 2, FAILED_TO_START: 3 } as const;

/** Planned cleaning area of one area (partition) of a map, in square metres. */
const AREA_SQUARE_METRES = 120;
/** How long the simulator takes to clean one area once. */
const SECONDS_PER_AREA = 20 * 60;

/** One or two finished tasks of the last days, the same on every start. */
export function seededReports(robot: SimRobot, index: number, now: number): Record<string, unknown>[] {
  const reports: Record<string, unknown>[] = [];
  const count = 1 + (index % 2);
  for (let day = 1; day <= count; day++) {
    const map = robot.maps[(day - 1) % robot.maps.length]!;
    const durationSeconds = map.partitions.length * SECONDS_PER_AREA;
    const endMs = now - day * 24 * 3600_000;
    reports.push(
      taskReport(robot, {
        id: stableId(`${robot.serialNumber}/report/${day}`),
        name: `Nightly ${map.name}`,
        cleaningMode: robot.cleanModes[0] ?? "__middle_cleaning",
        mapId: map.id,
        mapName: map.name,
        taskId: stableId(`${robot.serialNumber}/task/${day}`),
        plannedArea: map.partitions.length * AREA_SQUARE_METRES,
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

/** A task report with the fields docs/cloud-api.md lists. */
function taskReport(
  robot: SimRobot,
  task: {
    id: string;
    name: string;
    cleaningMode: string;
    mapId: string;
    mapName: string;
    taskId: string;
    plannedArea: number;
    completion: number;
    durationSeconds: number;
    startMs: number;
    endMs: number;
    endStatus: number;
    startBattery: number;
  },
): Record<string, unknown> {
  const actualArea = round(task.plannedArea * task.completion);
  const hours = task.durationSeconds / 3600;
  const endBattery = Math.max(0, Math.round(task.startBattery - hours * 20));
  return {
    id: task.id,
    displayName: task.name,
    robotSerialNumber: robot.serialNumber,
    operator: "open-platform",
    completionPercentage: round(task.completion),
    durationSeconds: task.durationSeconds,
    plannedCleaningAreaSquareMeter: task.plannedArea,
    actualCleaningAreaSquareMeter: actualArea,
    efficiencySquareMeterPerHour: hours > 0 ? round(actualArea / hours) : 0,
    waterConsumptionLiter: round(actualArea * 0.02),
    startBatteryPercentage: task.startBattery,
    endBatteryPercentage: endBattery,
    consumablesResidualPercentage: { brush: 0.74, filter: 0.81, suctionBlade: 0.9 },
    cleaningMode: task.cleaningMode,
    taskEndStatus: task.endStatus,
    subTasks: [{ mapId: task.mapId, mapName: task.mapName, actualCleaningAreaSquareMeter: actualArea, taskId: task.taskId }],
    startTime: milliTimestamp(task.startMs),
    endTime: milliTimestamp(task.endMs),
  };
}

/** The report of a task that ended now (`endMs`): stopped by hand, or finished. */
export function finishedTaskReport(robot: SimRobot, task: CurrentTask, endStatus: number, endMs: number): Record<string, unknown> {
  const startMs = Date.parse(task.startTime);
  const map = robot.maps.find((candidate) => candidate.id === task.mapId);
  const areas = task.areaIds.length || map?.partitions.length || 1;
  const plannedSeconds = areas * SECONDS_PER_AREA * Math.max(1, task.loopCount);
  const durationSeconds = Math.max(0, Math.round((endMs - startMs) / 1000));
  const completion = endStatus === TASK_END_STATUS.FINISHED ? 1 : Math.min(1, durationSeconds / plannedSeconds);
  return taskReport(robot, {
    id: randomUUID(),
    name: task.name,
    cleaningMode: task.cleaningMode,
    mapId: task.mapId,
    mapName: task.mapName,
    taskId: task.id,
    plannedArea: areas * AREA_SQUARE_METRES * Math.max(1, task.loopCount),
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
