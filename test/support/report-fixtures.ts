/**
 * Task reports with figures chosen so the KPI rows can be worked out by hand
 * (test/api/reports.test.ts and test/nodes/robot-reports.test.ts write those
 * figures out): two robots, two floors, two days (UTC), every outcome, and
 * one report that covered both floors.
 */
import { readReport, type ReadReport } from "../../src/api/reports/reading";

export const LOBBY = "GS-S-000101";
export const HALL = "GS-S-000102";
export const ROBOT_NAMES = { [LOBBY]: "Lobby scrubber", [HALL]: "Hall sweeper" } as const;

const floor1 = (area: number, planned?: number) => ({
  mapId: "m-1",
  mapName: "Floor 1",
  actualCleaningAreaSquareMeter: area,
  taskId: "t",
  ...(planned === undefined ? {} : { plannedCleaningAreaSquareMeter: planned }),
});
const floor2 = (area: number, planned?: number) => ({
  mapId: "m-2",
  mapName: "Floor 2",
  actualCleaningAreaSquareMeter: area,
  taskId: "t",
  ...(planned === undefined ? {} : { plannedCleaningAreaSquareMeter: planned }),
});

/** A report in the polled shape (RFC 3339 times). */
function report(fields: {
  id: string | number;
  robot: string;
  start: string;
  seconds: number;
  planned: number;
  actual: number;
  cloudEfficiency?: number;
  water: number;
  battery: [number, number];
  endStatus: number;
  subTasks: Record<string, unknown>[];
}): Record<string, unknown> {
  const startMs = Date.parse(fields.start);
  return {
    id: fields.id,
    displayName: "Nightly",
    robotSerialNumber: fields.robot,
    completionPercentage: fields.planned > 0 ? fields.actual / fields.planned : 0,
    durationSeconds: fields.seconds,
    plannedCleaningAreaSquareMeter: fields.planned,
    actualCleaningAreaSquareMeter: fields.actual,
    ...(fields.cloudEfficiency === undefined ? {} : { efficiencySquareMeterPerHour: fields.cloudEfficiency }),
    waterConsumptionLiter: fields.water,
    startBatteryPercentage: fields.battery[0],
    endBatteryPercentage: fields.battery[1],
    cleaningMode: "洗地",
    taskEndStatus: fields.endStatus,
    subTasks: fields.subTasks,
    startTime: new Date(startMs).toISOString().replace(".000Z", "Z"),
    endTime: new Date(startMs + fields.seconds * 1000).toISOString().replace(".000Z", "Z"),
  };
}

export const KPI_REPORTS: Record<string, unknown>[] = [
  report({
    id: "r1",
    robot: LOBBY,
    start: "2026-11-24T08:00:00Z",
    seconds: 3600,
    planned: 200,
    actual: 180,
    cloudEfficiency: 190,
    water: 3.6,
    battery: [90, 70],
    endStatus: 0,
    subTasks: [floor1(180)],
  }),
  report({
    id: "r2",
    robot: LOBBY,
    start: "2026-11-24T14:00:00Z",
    seconds: 1800,
    planned: 100,
    actual: 30,
    cloudEfficiency: 70,
    water: 0.6,
    battery: [70, 62],
    endStatus: 1,
    subTasks: [floor2(30)],
  }),
  report({
    id: "r3",
    robot: HALL,
    start: "2026-11-24T10:00:00Z",
    seconds: 7200,
    planned: 400,
    actual: 360,
    cloudEfficiency: 170,
    water: 7.2,
    battery: [100, 60],
    endStatus: 0,
    subTasks: [floor1(270, 300), floor2(90, 100)],
  }),
  report({
    id: "r4",
    robot: HALL,
    start: "2026-11-25T09:00:00Z",
    seconds: 0,
    planned: 150,
    actual: 0,
    water: 0,
    battery: [60, 60],
    endStatus: 3,
    subTasks: [floor2(0)],
  }),
  report({
    id: 5,
    robot: LOBBY,
    start: "2026-11-25T07:00:00Z",
    seconds: 3600,
    planned: 200,
    actual: 150,
    cloudEfficiency: 160,
    water: 3,
    battery: [95, 80],
    endStatus: 2,
    subTasks: [floor1(150)],
  }),
];

/** A report as the push service sends it: times as epoch milliseconds, in robot-events' event shape (serialNumber beside the fields). */
export function pushedEvent(polled: Record<string, unknown>): Record<string, unknown> {
  return {
    ...structuredClone(polled),
    serialNumber: polled.robotSerialNumber,
    modelTypeCode: "S1",
    startTime: Date.parse(String(polled.startTime)),
    endTime: Date.parse(String(polled.endTime)),
  };
}

/** A report of `robot` that started `startMs` and ran `seconds`, with plain figures (for sweep tests). */
export function reportAt(id: string, robot: string, startMs: number, seconds = 1800): Record<string, unknown> {
  return report({
    id,
    robot,
    start: new Date(startMs).toISOString(),
    seconds,
    planned: 100,
    actual: 90,
    cloudEfficiency: 200,
    water: 1,
    battery: [80, 70],
    endStatus: 0,
    subTasks: [floor1(90)],
  });
}

/** A half-hour task report as the cloud lists it, read as the account keeps it (the plan report's tests). */
export function halfHourReport(
  serialNumber: string,
  id: string,
  startIso: string,
  cleaned: number,
  planned: number,
  extra: Record<string, unknown> = {},
): ReadReport {
  const start = Date.parse(startIso);
  return readReport(
    {
      id,
      startTime: startIso,
      endTime: new Date(start + 30 * 60_000).toISOString(),
      durationSeconds: 1800,
      taskEndStatus: 0,
      actualCleaningAreaSquareMeter: cleaned,
      plannedCleaningAreaSquareMeter: planned,
      ...extra,
    },
    serialNumber,
  )!;
}
