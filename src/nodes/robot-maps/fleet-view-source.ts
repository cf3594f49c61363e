/**
 * What robot-maps' fleetView gathers before fleet-view.ts decides: the
 * statuses (msg.statuses, else the account's last statuses, else one v1
 * batch read of every robot), each floor's image (kept per account as
 * fleetMap keeps them), a navigation-point status for a floor whose statuses
 * carry none (one S-line status call), the open alarms and the jobs holding
 * robots.
 */
import type { CallOptions, RobotClient } from "../../api/client";
import { invalidInput } from "../../api/errors";
import { jobsOfAccount } from "../../api/jobs/job-book";
import { alarmsOfAccount } from "../../api/pushes/open-alarms";
import { fleetStatusesOf, type KeptStatus } from "../../api/watching/fleet-statuses";
import { mapNameOf, readStatus } from "../../api/watching/status-reader";
import { isPlainObject } from "../shared/plain-data";
import { navigationMarks, type MapPicture } from "./fleet-map";
import { pictureOf } from "./fleet-map-source";
import { heldJobs, type FleetViewInput } from "./fleet-view";

/** msg.statuses as kept statuses read now; INVALID_INPUT naming msg.statuses when it is not a list of statuses. */
export function givenStatuses(value: unknown, now: number): KeptStatus[] {
  if (!Array.isArray(value) || !value.every(isPlainObject)) {
    throw invalidInput("msg.statuses", "must be an array of robot statuses (as robot-status sends them)", "fleetView");
  }
  return value.map((status) => ({ status, at: now }));
}

async function statusesFor(client: RobotClient, given: unknown, options: CallOptions, now: number): Promise<KeptStatus[]> {
  if (given !== undefined) return givenStatuses(given, now);
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
  mapVersion: string;
  /** A robot on it (online first): the one whose map image and navigation points are asked for. */
  serialNumber: string;
  hasPoints: boolean;
}

const scalarText = (value: unknown) => (typeof value === "string" || typeof value === "number" ? String(value) : "");

/** Every floor a robot is on, each with a robot on it (an online one where the floor has one) to ask for its image and points. */
function floorsOf(statuses: readonly KeptStatus[]): Floor[] {
  const floors = new Map<string, Floor & { online: boolean }>();
  for (const { status } of statuses) {
    const { mapId, serialNumber, online } = readStatus(status);
    if (mapId === undefined || serialNumber === undefined) continue;
    const hasPoints = navigationMarks(status, 0).length > 0;
    const known = floors.get(mapId);
    if (known) {
      known.hasPoints ||= hasPoints;
      if (!known.online && online === true) Object.assign(known, { serialNumber, online: true });
      continue;
    }
    const map = isPlainObject(status.localizationInfo) && isPlainObject(status.localizationInfo.map) ? status.localizationInfo.map : {};
    floors.set(mapId, { mapId, mapName: mapNameOf(status) ?? mapId, mapVersion: scalarText(map.version), serialNumber, hasPoints, online: online === true });
  }
  return [...floors.values()];
}

/** Everything fleetView decides from, gathered for the account of `client`. */
export async function gatherFleetView(client: RobotClient, given: unknown, options: CallOptions, now: Date = new Date()): Promise<FleetViewInput> {
  const statuses = await statusesFor(client, given, options, now.getTime());
  const floors = floorsOf(statuses);
  const pictures = new Map<string, MapPicture & { mapVersion: string }>();
  const navigation = new Map<string, Record<string, unknown>>();
  await Promise.all(
    floors.map(async (floor) => {
      const { mapId, mapName, mapVersion } = floor;
      const picture = await pictureOf(client, floor.serialNumber, { mapId, mapName, mapVersion }, options);
      pictures.set(floor.mapId, { ...picture, mapVersion: floor.mapVersion });
      // The v1 status lists no navigation points: the S-line status of a robot on the floor does.
      if (!floor.hasPoints) navigation.set(floor.mapId, await client.getRobotStatus({ serialNumber: floor.serialNumber }, options));
    }),
  );
  const jobs = jobsOfAccount(client.accountKey);
  const alarms = alarmsOfAccount(client.accountKey);
  return { statuses, pictures, navigation, alarms: alarms.list(), shift: alarms.log(now), jobs: heldJobs(jobs.jobs.values()), now };
}
