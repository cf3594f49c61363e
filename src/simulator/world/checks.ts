/** The simulated cloud's checks of what a request names on a robot: maps, areas, cleaning modes. */
import type { SimMap, SimRobot } from "./fleet";
import { invalid } from "../server/sim-errors";

/** Names listed for an error message. */
export function names(items: readonly { name: string }[]): string {
  return items.map((item) => item.name).join(", ");
}

/** A map of the robot by its id or its name, or code 3 naming the field. */
export function mapByIdOrName(robot: SimRobot, reference: string, field: string): SimMap {
  const map = robot.maps.find((candidate) => candidate.id === reference || candidate.name === reference);
  if (!map) throw invalid(field, `unknown map "${reference}" on robot ${robot.serialNumber} (${names(robot.maps)})`);
  return map;
}

/** Checks that a cleaning mode is one of the robot's, or code 3 naming the field. */
export function checkCleaningMode(robot: SimRobot, mode: string, field: string): void {
  if (!robot.cleanModes.includes(mode)) {
    throw invalid(field, `"${mode}" is not a clean mode of robot ${robot.serialNumber} (${robot.cleanModes.join(", ")})`);
  }
}

/** A map of the robot by its id, or code 3 naming the field and listing the robot's maps. */
export function mapById(robot: SimRobot, mapId: string, field: string): SimMap {
  const map = robot.maps.find((candidate) => candidate.id === mapId);
  if (!map) throw invalid(field, `unknown map ${mapId} on robot ${robot.serialNumber} (${robot.maps.map((m) => m.id).join(", ")})`);
  return map;
}

/** Checks that an area id is one of the map's, or code 3 naming the field. */
export function checkArea(map: SimMap, areaId: string, field: string): void {
  if (!map.partitions.some((partition) => String(partition.id) === areaId)) {
    throw invalid(field, `unknown area ${areaId} on map ${map.name} (${map.partitions.map((p) => `${p.id} ${p.name}`).join(", ")})`);
  }
}
