/** What the simulated cloud answers about robots, maps and sites: reads of the fleet's state (B1, B2, C1, C2, the fleet endpoints). */
import { mayUse, type AccountSeed, type SimMap, type SimRobot, type SimSite } from "./fleet";
import { Code, SimError, invalid } from "../server/sim-errors";
import { round, stableId } from "./values";
import { batteryHealthBlockOf, deviceBlockOf } from "./wear";

/**
 * Where the robot is, as the cloud gives it (docs/cloud-api.md, "Where a
 * robot is on its map"): x and y in whole pixels of the map image, rows
 * counted from the image's bottom edge (draw at (x, height - y)); angle in
 * degrees in (-180, 180], counter-clockwise from +x in that bottom-up frame;
 * worldX and worldY the same point in metres from the image's bottom-left
 * corner (public clients report them beside x and y; the maker's published
 * V2 example has x, y and angle). None for a lost robot: it cannot be placed.
 */
export function mapPositionOf(robot: SimRobot): { x: number; y: number; angle: number; worldX: number; worldY: number } | undefined {
  if (robot.localization.state === "LOST") return undefined;
  const map = currentMap(robot);
  const { x, y, angle } = robot.localization.position;
  const [pixelX, pixelY] = [Math.round(x), Math.round(y)];
  return { x: pixelX, y: pixelY, angle: round(angle), worldX: round(pixelX * map.resolution), worldY: round(pixelY * map.resolution) };
}

/**
 * Both statuses follow recorded answers, held to them by
 * test/fixtures/recorded-shapes.json (docs/cloud-api.md, "Recorded answer
 * shapes"). Neither carries a name, a software version or a navigation object:
 * names, model codes and versions are in the robot list only, and a navigation
 * shows as navStatus and the robot's mapPosition coming to the point's grid position.
 */

/**
 * navStatus as both recorded statuses show it. NAVI_IDLE is the only value
 * published, so the simulator serves it always, navigating or not: a client
 * confirms an arrival by mapPosition reaching the point's navPointGridX/Y,
 * never by a navStatus word nobody has seen.
 */
export const NAV_STATUS = "NAVI_IDLE";
/** currentElevatorStatus as both recorded statuses show it; the simulator's lifts are instant, never busy. */
const ELEVATOR_STATUS = "ELEVATOR_CONTROLLER_IDLE";

/**
 * The map as the S-line status names its version: a resource name (the
 * recorded S-line status has "maps/<id>/versions/<id>", a string). The map
 * endpoint takes it back as mapVersion, and so does the simulator.
 */
export function mapVersionName(map: SimMap): string {
  return `maps/${map.id}/versions/${map.version}`;
}

/** B1 and the S-line batch's robotStatus[]: the S-line status as a public fleet connector recorded it on a real account. */
export function statusOf(robot: SimRobot, now: number): Record<string, unknown> {
  const map = currentMap(robot);
  const task = robot.currentTask;
  return {
    serialNumber: robot.serialNumber,
    taskState: robot.taskState,
    online: robot.online,
    speedKilometerPerHour: speedOf(robot),
    // Battery health as the recorded S-line statuses carry it too (recorded-shapes.json's sLineStatus).
    battery: { ...robot.battery, ...batteryHealthBlockOf(robot.wear.battery) },
    emergencyStop: { enabled: robot.emergencyStop },
    localizationInfo: localizationOf(robot, map, { id: map.id, name: map.name, version: mapVersionName(map) }),
    cleanModes: robot.cleanModes.map((name) => ({ name })),
    supportSite: robot.siteId !== undefined,
    // The points' own pixel positions, in the same bottom-up frame as mapPosition.
    navigationPoints: {
      naviPoints: map.navigationPoints.map((point) => ({ naviPointName: point.name, navPointGridX: point.x, navPointGridY: point.y })),
    },
    workModes: workModesOf(robot),
    // Recorded on an idle robot with empty values; remote control shows here (manualControlling), not in a field of its own.
    currentTask: {
      workMode: task
        ? { id: workModeId(robot, task.cleaningMode), name: task.cleaningMode, type: 1, subType: "", strength: "custom" }
        : { id: "", name: "", type: 0, subType: "", strength: "" },
      taskInstanceId: task?.id ?? "",
      manualControlling: robot.remoteControl,
    },
    device: { ...deviceOf(robot), vacuum: { enabled: robot.taskState === "RUNNING", level: robot.taskState === "RUNNING" ? 2 : 0 } },
    navStatus: NAV_STATUS,
    currentElevatorStatus: ELEVATOR_STATUS,
    // Epoch milliseconds as a string, like every int64 of the cloud.
    latestReportTime: String(now),
  };
}

/** A cleaning robot's speed; 0 otherwise (the recorded idle statuses show 0). */
function speedOf(robot: SimRobot): number {
  return robot.taskState === "RUNNING" ? 2.5 : 0;
}

/**
 * workModes as recorded: one per cleaning mode, with an id, the mode's name
 * ("__" prefixed where the robot's cleanModes are), strength and a type code
 * as a string ("1" for the cleaning modes in the recordings).
 */
function workModesOf(robot: SimRobot): { id: string; name: string; strength: string; type: string }[] {
  return robot.cleanModes.map((name) => ({ id: workModeId(robot, name), name, strength: "custom", type: "1" }));
}

function workModeId(robot: SimRobot, mode: string): string {
  return stableId(`${robot.serialNumber}/mode/${mode}`).replaceAll("-", "");
}

/** The mode the robot cleans in while it runs: its task's, else (set running by hand) its first. */
export function cleaningModeOf(robot: SimRobot): string | undefined {
  return robot.currentTask?.cleaningMode ?? robot.cleanModes[0];
}

/** The device block of both recorded statuses: its tanks and parts as they have worn (wear.ts). */
function deviceOf(robot: SimRobot): Record<string, unknown> {
  return deviceBlockOf(robot.wear, cleaningModeOf(robot), robot.taskState === "RUNNING");
}

/** localizationInfo of both statuses: the map the robot is on (named as that status names it), and where on it unless it is lost. */
function localizationOf(robot: SimRobot, map: SimMap, named: Record<string, unknown>): Record<string, unknown> {
  const mapPosition = mapPositionOf(robot);
  return {
    localizationState: robot.localization.state,
    map: named,
    ...(mapPosition ? { mapPosition } : {}),
  };
}

/** B2: the site with its buildings, floors, maps and areas; code 5 for a robot on no site (docs/cloud-api.md). */
export function siteInfoOf(sites: ReadonlyMap<string, SimSite>, robot: SimRobot): Record<string, unknown> {
  const site = siteOf(sites, robot);
  return {
    siteId: site.id,
    siteName: site.name,
    robotSn: robot.serialNumber,
    buildings: site.buildings.map((building) => ({
      id: building.id,
      name: building.name,
      floors: building.floors.map((floor) => {
        const map = robot.maps.find((candidate) => candidate.id === floor.mapId);
        return {
          index: floor.index,
          name: floor.name,
          mapId: floor.mapId,
          mapName: map?.name ?? floor.name,
          mapVersion: map?.version ?? 1,
          // Area ids are strings here: they go back as B3's area.id and B4's areaId, which want strings.
          areas: (map?.partitions ?? []).map((partition) => ({ id: String(partition.id), name: partition.name })),
        };
      }),
    })),
  };
}

export function subareasOf(robot: SimRobot, mapId: string): { mapId: string; subareas: { partitions: { id: number; name: string }[] } } {
  const map = robot.maps.find((candidate) => candidate.id === mapId);
  if (!map) throw invalid("mapId", `unknown map ${mapId} on robot ${robot.serialNumber}`);
  return { mapId: map.id, subareas: { partitions: map.partitions.map((partition) => ({ id: partition.id, name: partition.name })) } };
}

/**
 * The map a map-image request names: its id on this robot, with the name and
 * version of the map list (C2); a mismatch is code 3 naming the field, with
 * what the map list says, so a flow that mixes up two maps hears about it.
 */
export function imageMapOf(robot: SimRobot, request: { mapId: string; mapName: string; mapVersion: string }): SimMap {
  const map = robot.maps.find((candidate) => candidate.id === request.mapId);
  if (!map)
    throw invalid("mapId", `unknown map ${request.mapId} on robot ${robot.serialNumber} (${robot.maps.map((m) => m.id).join(", ")})`);
  if (request.mapName !== map.name) throw invalid("mapName", `map ${map.id} is named "${map.name}", not "${request.mapName}"`);
  // The version as the map list gives it (a number) or as the S-line status names it (a resource name).
  if (request.mapVersion !== String(map.version) && request.mapVersion !== mapVersionName(map)) {
    throw invalid("mapVersion", `map ${map.name} is at version ${map.version} (${mapVersionName(map)}), not ${request.mapVersion}`);
  }
  return map;
}

export function mapListOf(robot: SimRobot): { mapId: string; mapName: string; mapVersion: number }[] {
  return robot.maps.map((map) => ({ mapId: map.id, mapName: map.name, mapVersion: map.version }));
}

/** One page of the account's robots, in fleet order; a page past the end is empty. */
export function robotPage(
  robots: ReadonlyMap<string, SimRobot>,
  account: AccountSeed,
  page: number,
  pageSize: number,
): { robots: Record<string, unknown>[]; total: string } {
  const visible = [...robots.values()].filter((robot) => mayUse(account, robot.serialNumber));
  // The list entry of a public connector's published example: the only answer that names a robot and gives its model and software version.
  const listed = visible.slice((page - 1) * pageSize, page * pageSize).map((robot) => ({
    serialNumber: robot.serialNumber,
    displayName: robot.displayName,
    modelFamilyCode: "S",
    modelTypeCode: robot.model,
    softwareVersion: robot.firmwareVersion,
    online: robot.online,
  }));
  // int64 comes back as a string (docs/cloud-api.md).
  return { robots: listed, total: String(visible.length) };
}

/** The v1 batch's robotStatuses[]: the v1 status as a public fleet connector recorded it on a real account. */
export function fleetStatusOf(
  robot: SimRobot,
  now: number,
  progress?: { progress: number; timeRemaining: number; cleaningMileage: number },
): Record<string, unknown> {
  const map = currentMap(robot);
  const task = robot.currentTask;
  return {
    serialNumber: robot.serialNumber,
    name: `robots/${robot.serialNumber}`,
    // Recorded as zeros: an indoor robot has no geographic fix. Where it is on its map is localizationInfo.mapPosition.
    position: { latitude: 0, longitude: 0, angle: 0 },
    taskState: robot.taskState,
    online: robot.online,
    speedKilometerPerHour: speedOf(robot),
    // soh is a word in the recordings ("HEALTHY"), soc the charge in percent.
    battery: { ...robot.battery, soc: robot.battery.powerPercentage, ...batteryHealthBlockOf(robot.wear.battery) },
    emergencyStop: { enabled: robot.emergencyStop },
    // The recorded v1 status names the map without a version.
    localizationInfo: localizationOf(robot, map, { id: map.id, name: map.name }),
    navStatus: NAV_STATUS,
    currentElevatorStatus: ELEVATOR_STATUS,
    latestReportTime: String(now),
    executableTasks: executableTasksOf(robot, map),
    // progress 0-1, timeRemaining in seconds, cleaningMileage in metres (docs/cloud-api.md).
    ...(task ? { executingTask: { id: task.id, name: task.name, ...progress } } : {}),
    cleanModes: robot.cleanModes.map((name) => ({ name })),
    device: { ...deviceOf(robot), vacuum: { enabled: robot.taskState === "RUNNING" } },
    workModes: workModesOf(robot),
  };
}

/**
 * The tasks the robot can run on a map (the v1 status lists those of the map
 * it is on): the whole map, and each of its areas on its own, named as the
 * area (a START_TASK by that name cleans that area: robot-commands.ts).
 */
export function executableTasksOf(robot: SimRobot, map: SimMap): { id: string; name: string; map: { id: string; name: string } }[] {
  const onMap = { id: map.id, name: map.name };
  return [
    { id: executableTaskId(robot, map, "all"), name: `All of ${map.name}`, map: onMap },
    ...map.partitions.map((partition) => ({ id: executableTaskId(robot, map, partition.id), name: partition.name, map: onMap })),
  ];
}

/** The id of an executable task: the whole map's ("all") or one area's; a report's subTasks name the same ids. */
export function executableTaskId(robot: SimRobot, map: SimMap, area: number | "all"): string {
  return stableId(`${robot.serialNumber}/${map.id}/${area}`);
}

/** The map the robot is on (its first when it is lost). */
export function currentMap(robot: SimRobot): SimMap {
  return robot.maps.find((map) => map.id === robot.localization.mapId) ?? robot.maps[0]!;
}

/** The robot's site; code 5 for a robot on no site (docs/cloud-api.md). */
export function siteOf(sites: ReadonlyMap<string, SimSite>, robot: SimRobot): SimSite {
  const site = robot.siteId === undefined ? undefined : sites.get(robot.siteId);
  if (!site) throw new SimError(Code.NOT_FOUND, "The robot is not on a site.");
  return site;
}
