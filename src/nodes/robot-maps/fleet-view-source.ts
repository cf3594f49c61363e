/**
 * What robot-maps' fleetView gathers before fleet-view.ts decides: the
 * statuses (msg.statuses, else the account's last statuses, else one v1
 * batch read of every robot), each floor's image (kept per account as
 * fleetMap keeps them), a navigation-point status for a floor whose statuses
 * carry no navigation points or no map version (one S-line status call), the
 * map list for a version no status gives, the floors no robot is on (the
 * map lists of one robot per floor), each floor's areas (C1), the open alarms,
 * the jobs holding robots, today's plan (the account's robot-plan books) and
 * the parts' forecasts (the account's upkeep table). Map lists and areas are the account's kept
 * reads (work-targets.ts, asked again after 10 minutes); one that fails
 * leaves its floors or areas out of this picture, never the picture itself.
 */
import { robotDirectoryOf } from "../../api/account/robot-directory";
import type { CallOptions, RobotClient } from "../../api/client";
import { invalidInput } from "../../api/errors";
import { jobsOfAccount } from "../../api/jobs/job-book";
import { areasOfMap, mapsOfRobot } from "../../api/jobs/work-targets";
import { alarmsOfAccount } from "../../api/pushes/open-alarms";
import { upkeepLimitsOfAccount, upkeepTableOfAccount } from "../shared/upkeep-table";
import { fleetStatusesOf, type KeptStatus } from "../../api/watching/fleet-statuses";
import { mapNameOf, readStatus } from "../../api/watching/status-reader";
import { isPlainObject } from "../shared/plain-data";
import { navigationMarks, type MapPicture } from "./fleet-map";
import { listedMap, listedVersion, noticeGivenStatuses, pictureOf, robotLabelsOf } from "./fleet-map-source";
import { heldJobs, type FleetViewInput, type FloorPlace } from "./fleet-view";
import { todaysPlanOf } from "./plan-timeline";

/** msg.statuses as kept statuses read now; INVALID_INPUT naming msg.statuses when it is not a list of statuses. */
export function givenStatuses(value: unknown, now: number): KeptStatus[] {
  if (!Array.isArray(value) || !value.every(isPlainObject)) {
    throw invalidInput("msg.statuses", "must be an array of robot statuses (as robot-status sends them)", "fleetView");
  }
  return value.map((status) => ({ status, at: now }));
}

async function statusesFor(client: RobotClient, given: unknown, options: CallOptions, now: number): Promise<KeptStatus[]> {
  if (given !== undefined) {
    const statuses = givenStatuses(given, now);
    noticeGivenStatuses(client, statuses.map(({ status }) => status));
    return statuses;
  }
  const kept = fleetStatusesOf(client.accountKey).all();
  if (kept.length > 0) return kept;
  const serialNumbers = (await client.listAllRobots(options)).map((robot) => robot.serialNumber);
  if (serialNumbers.length === 0) return [];
  const read = await client.batchGetStatuses(serialNumbers, { ...options, line: "v1" });
  return read.filter(isPlainObject).map((status) => ({ status, at: now }));
}

interface Floor {
  mapId: string;
  mapName: string;
  /** The map's version, which only its image needs: the v1 status has none (docs/cloud-api.md). */
  mapVersion?: string;
  /** A robot on it (online first): the one whose map image and navigation points are asked for. */
  serialNumber: string;
  hasPoints: boolean;
}

/** Every floor a robot is on, each with a robot on it (an online one where the floor has one) to ask for its image and points. */
function floorsOf(statuses: readonly KeptStatus[]): Floor[] {
  const floors = new Map<string, Floor & { online: boolean }>();
  for (const { status } of statuses) {
    const { mapId, mapVersion, serialNumber, online } = readStatus(status);
    if (mapId === undefined || serialNumber === undefined) continue;
    const hasPoints = navigationMarks(status, 0).length > 0;
    const known = floors.get(mapId);
    if (known) {
      known.hasPoints ||= hasPoints;
      known.mapVersion ??= mapVersion;
      if (!known.online && online === true) Object.assign(known, { serialNumber, online: true });
      continue;
    }
    floors.set(mapId, { mapId, mapName: mapNameOf(status) ?? mapId, ...(mapVersion !== undefined ? { mapVersion } : {}), serialNumber, hasPoints, online: online === true });
  }
  return [...floors.values()];
}

/** The floors the robots' map lists name that no robot stands on, each with a robot that has it (for its image and areas). */
async function floorsWithoutRobots(client: RobotClient, floors: readonly Floor[], options: CallOptions): Promise<Floor[]> {
  const known = new Set(floors.map((floor) => floor.mapId));
  const empty = new Map<string, Floor>();
  const lists = await Promise.all(floors.map((floor) => mapsOfRobot(client, floor.serialNumber, options).then((maps) => ({ floor, maps }), () => undefined)));
  for (const listed of lists) {
    for (const entry of listed?.maps ?? []) {
      if (known.has(entry.mapId) || empty.has(entry.mapId)) continue;
      const mapVersion = listedVersion(entry);
      empty.set(entry.mapId, { mapId: entry.mapId, mapName: entry.mapName, ...(mapVersion !== "" ? { mapVersion } : {}), serialNumber: listed!.floor.serialNumber, hasPoints: false });
    }
  }
  return [...empty.values()];
}

/** Everything fleetView decides from, gathered for the account of `client`. */
export async function gatherFleetView(client: RobotClient, given: unknown, options: CallOptions, now: Date = new Date()): Promise<FleetViewInput> {
  const statuses = await statusesFor(client, given, options, now.getTime());
  const floors = floorsOf(statuses);
  const pictures = new Map<string, MapPicture & { mapVersion: string }>();
  const navigation = new Map<string, Record<string, unknown>>();
  const places = new Map<string, FloorPlace>();
  const withoutRobots = await floorsWithoutRobots(client, floors, options);
  await Promise.all([
    ...floors.map(async (floor) => {
      const { mapId, mapName } = floor;
      // The v1 status lists no navigation points and no map version: the S-line status of a robot on the floor does.
      const lean = floor.hasPoints && floor.mapVersion !== undefined ? undefined : await client.getRobotStatus({ serialNumber: floor.serialNumber }, options);
      const leanReading = lean && readStatus(lean);
      if (lean && !floor.hasPoints) navigation.set(mapId, lean);
      const mapVersion =
        floor.mapVersion ??
        (leanReading?.mapId === mapId ? leanReading.mapVersion : undefined) ??
        listedVersion(await listedMap(client, floor.serialNumber, mapId, "fleetView", options));
      const picture = await pictureOf(client, floor.serialNumber, { mapId, mapName, mapVersion }, options);
      pictures.set(mapId, { ...picture, mapVersion });
    }),
    ...withoutRobots.map(async (floor) => {
      // A floor no robot stands on is drawn when its image can be had; it is listed either way.
      const { mapId, mapName, mapVersion } = floor;
      if (mapVersion === undefined) return;
      const picture = await pictureOf(client, floor.serialNumber, { mapId, mapName, mapVersion }, options).catch(() => undefined);
      if (picture) pictures.set(mapId, { ...picture, mapVersion });
    }),
    ...[...floors, ...withoutRobots].map(async (floor) => {
      const areas = await areasOfMap(client, floor.serialNumber, floor.mapId, options).catch(() => []);
      places.set(floor.mapId, { mapName: floor.mapName, areas: areas.map((area) => area.name) });
    }),
  ]);
  const jobs = jobsOfAccount(client.accountKey);
  const alarms = alarmsOfAccount(client.accountKey);
  await robotDirectoryOf(client.accountKey).settled();
  const labels = robotLabelsOf(client);
  const plan = todaysPlanOf(client.accountKey, now, labels.nameOf);
  const serialNumbers = statuses.flatMap(({ status }) => readStatus(status).serialNumber ?? []);
  const upkeep = new Map(upkeepTableOfAccount(client.accountKey, serialNumbers, { now: now.getTime() }).map((row) => [row.serialNumber, row]));
  return {
    statuses,
    pictures,
    navigation,
    places,
    alarms: alarms.list(),
    shift: alarms.log(now),
    jobs: heldJobs(jobs.jobs.values()),
    now,
    ...labels,
    ...(plan ? { plan } : {}),
    upkeepOf: (serialNumber) => upkeep.get(serialNumber),
    upkeepLimits: upkeepLimitsOfAccount(client.accountKey),
  };
}
