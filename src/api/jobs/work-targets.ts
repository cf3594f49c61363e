/**
 * Whether any robot of the account has what a job names: its map, and on it
 * the task, area or navigation point. A name no robot has is bad input, told
 * at once instead of after the whole wait. What the statuses show is read
 * first (the robot's map, the v1 status' executable tasks with their maps,
 * the S-line status' navigation points of the map the robot is on); the
 * robots' map lists (C2) and a map's areas (C1) are asked for only where the
 * statuses cannot tell, and kept for a while per account. Anything that
 * cannot be read leaves the question open: the job waits as before, within
 * its bound.
 */
import { keptForAccount } from "../account/account-memory";
import type { CallOptions, RobotClient } from "../client";
import { isOnMap, listsTask, type JobWork, type RobotFacts } from "./dispatch";
import { areaIdOf } from "./start-requests";

/** A robot's map list and a map's areas are asked for again after this long. */
const PLACES_KEPT_MS = 10 * 60_000;

/** The field a missing name is reported under, and what is missing. */
export interface MissingTarget {
  field: string;
  problem: string;
}

interface Kept<T> {
  at: number;
  value: Promise<T>;
}

/** The account's robots' map lists and maps' areas, as read lately (one read per robot and map, whichever job asks). */
class AccountPlaces {
  private readonly maps = new Map<string, Kept<{ mapId: string; mapName: string }[]>>();
  private readonly areas = new Map<string, Kept<{ id: number; name: string }[]>>();

  mapsOf(client: RobotClient, serialNumber: string, options: CallOptions): Promise<{ mapId: string; mapName: string }[]> {
    return this.kept(this.maps, serialNumber, () => client.call("listMaps", { robotSn: serialNumber }, options));
  }

  areasOf(client: RobotClient, serialNumber: string, mapId: string, options: CallOptions): Promise<{ id: number; name: string }[]> {
    return this.kept(this.areas, `${serialNumber}\n${mapId}`, async () => {
      const answer = await client.call("getSubareas", { robotSn: serialNumber, mapId }, options);
      return answer.subareas.partitions;
    });
  }

  private kept<T>(cache: Map<string, Kept<T>>, key: string, read: () => Promise<T>): Promise<T> {
    const known = cache.get(key);
    if (known && Date.now() - known.at < PLACES_KEPT_MS) return known.value;
    const value = read();
    cache.set(key, { at: Date.now(), value });
    // A failed read is not kept: the next job asks again.
    value.catch(() => cache.delete(key));
    return value;
  }
}

function placesOf(accountKey: string): AccountPlaces {
  return keptForAccount(accountKey, "job places", () => new AccountPlaces());
}

/** The areas of a robot's map (C1), as the account's jobs read them lately: the check of a job's area and its start share one read. */
export function areasOfMap(
  client: RobotClient,
  serialNumber: string,
  mapId: string,
  options: CallOptions = {},
): Promise<{ id: number; name: string }[]> {
  return placesOf(client.accountKey).areasOf(client, serialNumber, mapId, options);
}

/** The maps of a robot (C2), as the account's jobs and its console read them lately. */
export function mapsOfRobot(
  client: RobotClient,
  serialNumber: string,
  options: CallOptions = {},
): Promise<{ mapId: string; mapName: string }[]> {
  return placesOf(client.accountKey).mapsOf(client, serialNumber, options);
}

/** Whether the robot's status shows it has the map: it stands on it, or lists a task on it. */
function statusShowsMap(facts: RobotFacts, map: string): boolean {
  return isOnMap(facts, map) || (facts.executableTasks ?? []).some((task) => task.mapName === map || task.mapId === map);
}

/**
 * What of `work` no robot of `robots` has, or undefined when some robot has
 * it or it cannot be told. `facts` holds a status of every robot (the
 * caller asks only once each was read).
 */
export async function missingTarget(
  client: RobotClient,
  work: JobWork,
  robots: readonly RobotFacts[],
  options: CallOptions = {},
): Promise<MissingTarget | undefined> {
  const places = placesOf(client.accountKey);
  const map = work.map;
  /** Robots with the map, and the map's id where it is known. */
  const withMap: { facts: RobotFacts; mapId?: string }[] = [];
  for (const facts of robots) {
    if (statusShowsMap(facts, map)) {
      withMap.push({ facts, ...(isOnMap(facts, map) && facts.mapId !== undefined ? { mapId: facts.mapId } : {}) });
      continue;
    }
    const listed = await places.mapsOf(client, facts.serialNumber, options).catch(() => undefined);
    if (!listed) return undefined;
    const entry = listed.find((each) => each.mapName === map || each.mapId === map);
    if (entry) withMap.push({ facts, mapId: entry.mapId });
  }
  if (withMap.length === 0) return { field: "payload.map", problem: `no robot of the account has a map "${map}"` };
  switch (work.kind) {
    case "task": {
      // Only statuses that list their tasks (v1) can tell; one that lists none leaves it open.
      if (withMap.some(({ facts }) => facts.executableTasks === undefined)) return undefined;
      return withMap.some(({ facts }) => listsTask(facts, work.task, map))
        ? undefined
        : { field: "payload.task", problem: `no robot of the account has a task "${work.task}" on map "${map}"` };
    }
    case "goto": {
      // A status lists the points of the map its robot stands on only.
      if (withMap.some(({ facts }) => !isOnMap(facts, map) || facts.navigationPoints === undefined)) return undefined;
      const listed = withMap.some(({ facts }) => facts.navigationPoints!.some((point) => point.name === work.point));
      return listed
        ? undefined
        : { field: "payload.goto", problem: `no robot of the account has a navigation point "${work.point}" on map "${map}"` };
    }
    case "area": {
      for (const { facts, mapId } of withMap) {
        if (mapId === undefined) return undefined;
        const areas = await places.areasOf(client, facts.serialNumber, mapId, options).catch(() => undefined);
        if (!areas) return undefined;
        if (areaIdOf(work.area, areas) !== undefined) return undefined;
      }
      return { field: "payload.area", problem: `no robot of the account has an area "${work.area}" on map "${map}"` };
    }
  }
}
