/**
 * The request bodies a job sends: its start (START_TASK, the temporary task
 * B4 for an area, CROSS_NAVIGATE) and its stop when cancelled. Pure.
 */
import type { JobWork, RobotFacts } from "./dispatch";

/** The cleaning mode a task or area job runs in: the job's, else the robot's first. */
export function cleaningModeFor(mode: string | undefined, facts: RobotFacts): string | undefined {
  return mode ?? facts.cleanModes[0];
}

/** The map's name for commands that want a name (CROSS_NAVIGATE, START_TASK): the robot's map where it is the job's. */
export function mapNameFor(work: JobWork, facts: RobotFacts): string {
  return facts.mapName ?? work.map;
}

export function startTaskBody(
  serialNumber: string,
  taskName: string,
  mapName: string,
  cleaningMode: string | undefined,
): Record<string, unknown> {
  return {
    serialNumber,
    remoteTaskCommandType: "START_TASK",
    commandParameter: { startTaskParameter: { cleaningMode, task: { name: taskName, map: mapName, loop: false, loopCount: 1 } } },
  };
}

export function navigateBody(serialNumber: string, mapName: string, point: string): Record<string, unknown> {
  return {
    serialNumber,
    remoteNavigationCommandType: "CROSS_NAVIGATE",
    commandParameter: { startNavigationParameter: { map: mapName, position: point } },
  };
}

export function areaTaskBody(
  serialNumber: string,
  taskName: string,
  cleaningMode: string | undefined,
  mapName: string,
  mapId: string,
  areaId: string,
): Record<string, unknown> {
  return {
    productId: serialNumber,
    tempTaskCommand: { taskName, cleaningMode, loop: "false", loopCount: "1", mapName, startParam: { mapId, areaId } },
  };
}

/** The command that stops the job's work. */
export function stopBody(serialNumber: string, work: JobWork): Record<string, unknown> {
  return work.kind === "goto"
    ? { serialNumber, remoteNavigationCommandType: "STOP_NAVIGATE" }
    : { serialNumber, remoteTaskCommandType: "STOP_TASK" };
}

/** The area's id among the map's areas (C1 partitions), matched by id or name. */
export function areaIdOf(area: string, partitions: readonly { id: number | string; name: string }[]): string | undefined {
  const found = partitions.find((partition) => String(partition.id) === area) ?? partitions.find((partition) => partition.name === area);
  return found === undefined ? undefined : String(found.id);
}
