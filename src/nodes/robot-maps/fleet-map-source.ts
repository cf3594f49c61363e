/**
 * What robot-maps' fleetMap draws from: the statuses (given, or read with the
 * S-line batch status, whose shape carries localizationInfo.mapPosition), the
 * map a robot is on, and that map's image, downloaded once per map id and
 * version and kept per account (a bounded cache).
 */
import { sentNavigationsOf } from "../../api/watching/navigation";
import type { RobotDestinations, RobotNames } from "./fleet-map";
import { robotDirectoryOf, robotNameOf } from "../../api/account/robot-directory";
import type { CallOptions, RobotClient } from "../../api/client";
import { RobotApiError, invalidInput } from "../../api/errors";
import type { MapList } from "../../api/cloud/schemas";
import { isPlainObject } from "../shared/plain-data";
import { readStatus, serialNumberOf } from "../../api/watching/status-reader";
import { mapIdOf, pngSize, type MapPicture } from "./fleet-map";

/** Map images kept per account: a floor plan is a few hundred kB, and a fleet has few floors. */
export const MAP_PICTURES_KEPT = 16;

const picturesOf = new WeakMap<RobotClient, Map<string, Promise<MapPicture>>>();

export interface FleetMapRequest {
  /** The robot whose map is drawn (its current one unless `mapId` names another of its maps). */
  serialNumber: string;
  mapId?: string;
  /** Statuses to draw from (msg.statuses); none: read for `serialNumbers`, else for every robot. */
  statuses?: unknown[];
  serialNumbers?: string[];
}

export interface FleetMapSource {
  picture: MapPicture;
  statuses: unknown[];
  /** The status of the robot named by the request (its navigation points are drawn). */
  anchor: Record<string, unknown>;
  mapVersion: string;
  /** The robots' names (the account's robot directory); the serial number where none is given. */
  nameOf?: RobotNames;
  /** Where robots are on their way to (the account's sent navigations); none where not given. */
  destinationOf?: RobotDestinations;
  /** The names of the map's areas (C1), listed at the foot of the floor; none where not given. */
  areas?: readonly string[];
}

/** The account's names and destinations, as every picture of it shows them. */
export function robotLabelsOf(client: RobotClient): { nameOf: RobotNames; destinationOf: RobotDestinations } {
  const navigations = sentNavigationsOf(client.accountKey);
  return {
    nameOf: (serialNumber) => robotNameOf(client.accountKey, serialNumber),
    destinationOf: (serialNumber, reading) => navigations.destinationOf(serialNumber, reading, client.arrivalRadius),
  };
}

/**
 * Statuses a message gave (msg.statuses): the robot list is told of the robots
 * they name, as the account's own reads tell it (fleet-statuses.ts), so a robot
 * added to the account since the list's last read is named in the picture.
 */
export function noticeGivenStatuses(client: RobotClient, statuses: readonly unknown[]): void {
  const named = statuses.map((status) => (isPlainObject(status) ? serialNumberOf(status) : undefined));
  robotDirectoryOf(client.accountKey).notice(named.filter((serialNumber) => serialNumber !== undefined));
}

async function statusesFor(client: RobotClient, request: FleetMapRequest, options: CallOptions): Promise<unknown[]> {
  if (request.statuses) {
    noticeGivenStatuses(client, request.statuses);
    return request.statuses;
  }
  const serialNumbers = request.serialNumbers ?? (await client.listAllRobots(options)).map((robot) => robot.serialNumber);
  return serialNumbers.length > 0 ? client.batchGetStatuses(serialNumbers, { ...options, line: "s" }) : [];
}

/** A name or version as the map endpoint wants it: numbers and strings as text, anything else empty. */
function scalarText(value: unknown): string {
  return typeof value === "string" || typeof value === "number" ? String(value) : "";
}

/** The version a map list entry (C2) gives, as the map endpoint wants it. */
export function listedVersion(entry: MapList[number]): string {
  return scalarText((entry as Record<string, unknown>).mapVersion);
}

/** Map `mapId` in the robot's map list; INVALID_INPUT naming the maps it has when it is not there. */
export async function listedMap(client: RobotClient, robotSn: string, mapId: unknown, operation: string, options: CallOptions): Promise<MapList[number]> {
  const maps = await client.listMaps({ robotSn }, options);
  const listed = maps.find((map) => map.mapId === mapId);
  if (listed) return listed;
  const known = maps.map((map) => `${map.mapId} (${map.mapName})`).join(", ") || "none";
  throw invalidInput("mapId", `${JSON.stringify(mapId)} is not a map of robot ${robotSn}; its maps: ${known}`, operation);
}

export async function fleetMapSource(client: RobotClient, request: FleetMapRequest, options: CallOptions): Promise<FleetMapSource> {
  const statuses = await statusesFor(client, request, options);
  const anchor =
    (statuses.find((status) => isPlainObject(status) && serialNumberOf(status) === request.serialNumber) as Record<string, unknown> | undefined) ??
    (await client.getRobotStatus({ serialNumber: request.serialNumber }, options));
  const current = mapIdOf(anchor);
  const mapId = request.mapId ?? current;
  if (!mapId) throw invalidInput("serialNumber", `robot ${request.serialNumber} is on no map (its status names none); give msg.payload.mapId`);
  const localization = isPlainObject(anchor.localizationInfo) ? anchor.localizationInfo : {};
  const { mapVersion } = readStatus(anchor);
  let entry: { mapId: string; mapName: string; mapVersion: string };
  // The v1 status names its map without a version, which only the image needs: the map list (C2) gives it.
  if (mapId === current && isPlainObject(localization.map) && mapVersion !== undefined) {
    entry = { mapId, mapName: scalarText(localization.map.name), mapVersion };
  } else {
    const listed = await listedMap(client, request.serialNumber, mapId, "fleetMap", options);
    entry = { mapId, mapName: listed.mapName, mapVersion: listedVersion(listed) };
  }
  const picture = await pictureOf(client, request.serialNumber, entry, options);
  await robotDirectoryOf(client.accountKey).settled();
  return { picture, statuses, anchor, mapVersion: entry.mapVersion, ...robotLabelsOf(client) };
}

/** The map's image, once per map id and version for the account; a failed download is not kept. */
export function pictureOf(client: RobotClient, serialNumber: string, entry: { mapId: string; mapName: string; mapVersion: string }, options: CallOptions): Promise<MapPicture> {
  let pictures = picturesOf.get(client);
  if (!pictures) picturesOf.set(client, (pictures = new Map<string, Promise<MapPicture>>()));
  const key = `${entry.mapId}\u0000${entry.mapVersion}`;
  const kept = pictures.get(key);
  if (kept) {
    // Most recently used last: the oldest is the one dropped when the cache is full.
    pictures.delete(key);
    pictures.set(key, kept);
    return kept;
  }
  const picture = client.getMapImage({ serialNumber, ...entry }, options).then((image) => {
    const size = pngSize(image.data);
    if (!size) throw new RobotApiError({ kind: "bad_response", operation: "fleetMap", message: `fleetMap: the image of map ${entry.mapId} is not a PNG (${image.contentType})` });
    return { mapId: entry.mapId, mapName: entry.mapName, ...size, imageUrl: `data:image/png;base64,${image.data.toString("base64")}` };
  });
  pictures.set(key, picture);
  picture.catch(() => {
    if (pictures.get(key) === picture) pictures.delete(key);
  });
  while (pictures.size > MAP_PICTURES_KEPT) pictures.delete(pictures.keys().next().value!);
  return picture;
}
