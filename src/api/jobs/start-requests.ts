/**
 * What a job's start is built from (its cleaning mode, its map's name, an
 * area's id) and its stop when cancelled; the start bodies themselves are
 * api/cloud/command-bodies.ts's. Pure.
 */
import { isOnMap, type JobWork, type RobotFacts } from "./dispatch";

/** The cleaning mode a task or area job runs in: the job's, else the robot's first. */
export function cleaningModeFor(mode: string | undefined, facts: RobotFacts): string | undefined {
  return mode ?? facts.cleanModes[0];
}

/** The map's name for commands that want a name (CROSS_NAVIGATE, START_TASK): the robot's map where it is the job's (named by id or name), else the job's own. */
export function mapNameFor(work: JobWork, facts: RobotFacts): string {
  return isOnMap(facts, work.map) ? (facts.mapName ?? work.map) : work.map;
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
