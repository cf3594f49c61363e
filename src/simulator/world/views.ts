/** What the simulated cloud answers about robots, maps and sites: reads of the fleet's state (B1, B2, C1, C2, the fleet endpoints). */
import { mayUse, type AccountSeed, type SimMap, type SimRobot, type SimSite } from "./fleet";
import { Code, SimError, invalid } from "../server/sim-errors";
import { round, stableId } from "./values";

/**
 * Where the robot is, as the cloud gives it (docs/cloud-api.md, "Where a
 * robot is on its map"): x and y in whole pixels of the map image, rows
 * counted from the image's bottom edge (draw at (x, height - y)); angle in
 * degrees in (-180, 180], counter-clockwise from +x in that bottom-up frame;
 * worldX and worldY the same point in metres from the image's bottom-left
 * corner. None for a lost robot: it cannot be placed.
 */
export function mapPositionOf(robot: SimRobot): { x: number; y: number; angle: number; worldX: number; worldY: number } | undefined {
  if (robot.localization.state === "LOST") return undefined;
  const map = currentMap(robot);
  const { x, y, angle } = robot.localization.position;
  const [pixelX, pixelY] = [Math.round(x), Math.round(y)];
  return { x: pixelX, y: pixelY, angle: round(angle), worldX: round(pixelX * map.resolution), worldY: round(pixelY * map.resolution) };
}

/** B1: the S-line status shape (docs/cloud-api.md). */
export function statusOf(robot: SimRobot): Record<string, unknown> {
  const map = currentMap(robot);
  const moving = robot.taskState === "RUNNING";
  return {
    serialNumber: robot.serialNumber,
    displayName: robot.displayName,
    online: robot.online,
    taskState: robot.taskState,
    speedKilometerPerHour: moving ? 2.5 : 0,
    battery: { ...robot.battery },
    emergencyStop: { enabled: robot.emergencyStop },
    localizationInfo: localizationOf(robot, map),
    cleanModes: robot.cleanModes.map((name) => ({ name })),
    supportSite: robot.siteId !== undefined,
    // The points' own pixel positions, in the same bottom-up frame as mapPosition.
    navigationPoints: {
      naviPoints: map.navigationPoints.map((point) => ({ naviPointName: point.name, navPointGridX: point.x, navPointGridY: point.y })),
    },
    workModes: [{ name: "cleaning" }, { name: "navigation" }, { name: "remote_control" }],
    remoteControl: { enabled: robot.remoteControl },
    ...(robot.navigation ? { navigation: { ...robot.navigation } } : {}),
    ...(robot.currentTask ? { currentTask: structuredClone(robot.currentTask) } : {}),
    device: { model: robot.model, firmwareVersion: robot.firmwareVersion },
  };
}

/** localizationInfo of both statuses: the map the robot is on, and where on it unless it is lost. */
function localizationOf(robot: SimRobot, map: SimMap): Record<string, unknown> {
  const mapPosition = mapPositionOf(robot);
  return {
    localizationState: robot.localization.state,
    map: { id: map.id, name: map.name, version: map.version },
    ...(mapPosition ? { mapPosition } : {}),
  };
}

/** x, y and angle of a map position, or nothing. */
function pick(position: ReturnType<typeof mapPositionOf>): { x?: number; y?: number; angle?: number } {
  return position ? { x: position.x, y: position.y, angle: position.angle } : {};
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
  const listed = visible.slice((page - 1) * pageSize, page * pageSize).map((robot) => ({
    name: `robots/${robot.serialNumber}`,
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

/** The v1 status (any line): the S-line fields and what docs/cloud-api.md lists beyond them. */
export function fleetStatusOf(
  robot: SimRobot,
  now: number,
  progress?: { progress: number; timeRemaining: number; cleaningMileage: number },
): Record<string, unknown> {
  const map = currentMap(robot);
  const task = robot.currentTask;
  return {
    name: `robots/${robot.serialNumber}`,
    serialNumber: robot.serialNumber,
    displayName: robot.displayName,
    online: robot.online,
    taskState: robot.taskState,
    // The same pixels as localizationInfo.mapPosition (none while lost).
    position: { mapId: map.id, mapName: map.name, ...pick(mapPositionOf(robot)) },
    localizationInfo: localizationOf(robot, map),
    navStatus: "NAVI_IDLE",
    emergencyStop: { enabled: robot.emergencyStop },
    // Epoch milliseconds as a string, like every int64 of the cloud.
    latestReportTime: String(now),
    battery: {
      ...robot.battery,
      soc: robot.battery.powerPercentage,
      soh: 97,
      cycleTimes: 212,
    },
    executableTasks: executableTasksOf(robot, map),
    // progress 0-1, timeRemaining in seconds, cleaningMileage in metres (docs/cloud-api.md).
    ...(task ? { executingTask: { id: task.id, name: task.name, ...progress } } : {}),
    workModes: [
      { id: "1", name: "cleaning", type: "CLEANING" },
      { id: "2", name: "navigation", type: "NAVIGATION" },
    ],
    device: {
      model: robot.model,
      softwareVersion: robot.firmwareVersion,
      parts: [
        { name: "brush", usedLife: 130, lifeSpan: 500 },
        { name: "filter", usedLife: 60, lifeSpan: 250 },
      ],
    },
  };
}

/**
 * The tasks the robot can run on a map (the v1 status lists those of the map
 * it is on): the whole map, and each of its areas on its own.
 */
export function executableTasksOf(robot: SimRobot, map: SimMap): { id: string; name: string; map: { id: string; name: string } }[] {
  const onMap = { id: map.id, name: map.name };
  return [
    { id: stableId(`${robot.serialNumber}/${map.id}/all`), name: `All of ${map.name}`, map: onMap },
    ...map.partitions.map((partition) => ({
      id: stableId(`${robot.serialNumber}/${map.id}/${partition.id}`),
      name: partition.name,
      map: onMap,
    })),
  ];
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
