/**
 * The admin endpoint behind the dialogs' pickers: robots of the account, maps
 * of a robot, areas of a map, what a robot's status offers (cleaning modes,
 * navigation points) and its site. It works only through a deployed
 * robot-config node and its shared client (its credentials, queue and pace);
 * the browser never sends or receives a credential. Answers are kept for
 * CACHE_MS per config node, so opening dialogs does not cost the account's
 * request rate each time.
 */
import type { NodeAPI } from "node-red";
import type { Request, RequestHandler, Response } from "express";
import type { RobotClient } from "../../api/client";
import { internalError, type RobotApiError } from "../../api/errors";
import { SERIAL_NUMBER_PATTERN, SERIAL_NUMBER_RULE } from "../../api/settings/input-rules";
import { cleaningModeMeaningOf } from "../../api/cloud/cleaning-modes";
import { cleaningModesOf, executableTasksOf, readStatus, serialNumberOf } from "../../api/watching/status-reader";
import { isPlainObject } from "../shared/plain-data";
import type { RobotConfigNode } from "../shared/types";
import { idTextOf } from "../../api/cloud/values";

/** Where the routes live under httpAdminRoot. */
export const EDITOR_API_ROOT = "/robot-fleet/config";
export const CACHE_MS = 30_000;

/** What the editor shows for a failure: it words each code in the user's language (robot-fleet catalogue). */
export type PickerProblem =
  | "NOT_DEPLOYED"
  | "CONFIG_PROBLEM"
  | "INVALID_INPUT"
  | "CONNECTION_REFUSED"
  | "CREDENTIALS_REFUSED"
  | "PERMISSION_DENIED"
  | "TIMEOUT"
  | "NO_ANSWER"
  | "CLOUD_ERROR"
  | "INTERNAL_ERROR";

interface CachedAnswer {
  expires: number;
  answer: Promise<unknown>;
}

/** One cache per deployed config node: a redeploy (new node, maybe new credentials) starts afresh. */
const cacheOf = new WeakMap<RobotConfigNode, Map<string, CachedAnswer>>();

/** The lookups, each from the shared client to plain data the pickers list. */
const LOOKUPS = {
  /** robot-config's Test button: one uncached robot list, and how long the account took to give it. */
  async test(client: RobotClient) {
    const started = performance.now();
    const robots = await client.listAllRobots();
    return { robots: robots.length, milliseconds: Math.round(performance.now() - started) };
  },
  async robots(client: RobotClient) {
    const robots = await client.listAllRobots();
    const serialNumbers = robots.map((robot) => robot.serialNumber);
    const statuses = serialNumbers.length > 0 ? await client.batchGetStatuses(serialNumbers, { line: "v1" }) : [];
    const online = new Map<string, unknown>();
    for (const status of statuses as Record<string, unknown>[]) {
      const serial = serialNumberOf(status);
      if (serial) online.set(serial, status.online);
    }
    return robots.map((robot) => ({
      serialNumber: robot.serialNumber,
      displayName: idTextOf((robot as Record<string, unknown>).displayName) ?? "",
      online: online.has(robot.serialNumber) ? online.get(robot.serialNumber) === true : undefined,
    }));
  },
  async maps(client: RobotClient, serialNumber: string) {
    const maps = await client.listMaps({ robotSn: serialNumber });
    return maps.map((map) => ({ mapId: map.mapId, mapName: map.mapName }));
  },
  async areas(client: RobotClient, serialNumber: string, mapId: string) {
    const answer = await client.getSubareas({ robotSn: serialNumber, mapId });
    // The cloud wants an area id back as a string (docs/cloud-api.md).
    return answer.subareas.partitions.map((partition) => ({ areaId: String(partition.id), areaName: partition.name }));
  },
  /**
   * What the robot's status offers: cleaning modes (each with its kind where
   * the name says it, else its readable words), navigation points, and the tasks it can run (v1
   * status: executableTasks, each with its map).
   */
  async options(client: RobotClient, serialNumber: string) {
    const status = (await client.getRobotStatus({ serialNumber })) as Record<string, unknown>;
    const cleaningModes = cleaningModesOf(status).map((name) => ({ name, ...cleaningModeMeaningOf(name) }));
    const positions = (readStatus(status).navigationPoints ?? []).map((point) => point.name);
    const localization = isPlainObject(status.localizationInfo) ? status.localizationInfo : {};
    const map = isPlainObject(localization.map) ? { mapId: idTextOf(localization.map.id), mapName: idTextOf(localization.map.name) } : undefined;
    const [v1] = (await client.batchGetStatuses([serialNumber], { line: "v1" })) as Record<string, unknown>[];
    const tasks = (executableTasksOf(v1 ?? {}) ?? []).map((task) => ({ taskName: task.name, mapName: task.mapName }));
    return { cleaningModes, positions, map, tasks };
  },
  /** The robot's site: its id, name and floors (the answer's shape is unverified: what is not found is left out). */
  async site(client: RobotClient, serialNumber: string) {
    const site = (await client.getSiteInfo({ serialNumber })) as Record<string, unknown>;
    const floors: { index: number; floorName: string; mapId?: string; mapName?: string }[] = [];
    const buildings = Array.isArray(site.buildings) ? site.buildings : [];
    for (const building of buildings) {
      if (!isPlainObject(building) || !Array.isArray(building.floors)) continue;
      for (const floor of building.floors) {
        if (!isPlainObject(floor)) continue;
        const floorName = idTextOf(floor.name);
        if (floorName === undefined) continue;
        floors.push({ index: Number(floor.index) || 0, floorName, mapId: idTextOf(floor.mapId), mapName: idTextOf(floor.mapName) });
      }
    }
    return { siteId: idTextOf(site.siteId) ?? idTextOf(site.id), siteName: idTextOf(site.siteName) ?? idTextOf(site.name), floors };
  },
};

/**
 * What went wrong, named for what a person fixes: the URL (refused
 * connection: its message is host:port), the credentials (refused by the
 * cloud or its token grant), the robot's permissions, the network's speed
 * (no answer within the timeout: its message is the seconds), the cloud, or
 * a bug of the package.
 */
function problemOf(error: RobotApiError, client: RobotClient): { status: number; code: PickerProblem; message: string } {
  if (error.kind === "internal") return { status: 500, code: "INTERNAL_ERROR", message: error.message };
  // The error's message never holds a token (RobotApiError's rule), so it may reach the browser.
  if (error.kind === "invalid_input") return { status: 400, code: "INVALID_INPUT", message: error.message };
  if (error.kind === "network" && /\bECONNREFUSED\b/.test(error.message)) return { status: 502, code: "CONNECTION_REFUSED", message: new URL(client.baseUrl).host };
  if (error.code === "UNAUTHENTICATED" || error.status === 401 || error.operation === "grantToken") {
    return { status: 403, code: "CREDENTIALS_REFUSED", message: error.message };
  }
  if (error.code === "PERMISSION_DENIED" || error.status === 403) return { status: 403, code: "PERMISSION_DENIED", message: error.message };
  if (error.kind === "timeout") return { status: 504, code: "TIMEOUT", message: String(client.timeoutMs / 1000) };
  if (error.kind === "network" || error.kind === "queue_full" || (error.status ?? 0) >= 500 || error.isRateLimited) {
    return { status: 502, code: "NO_ANSWER", message: error.message };
  }
  return { status: 502, code: "CLOUD_ERROR", message: error.message };
}

function fail(res: Response, status: number, code: PickerProblem, message: string): void {
  res.status(status).json({ error: { code, message } });
}

/** Registers the routes once per admin app (a test runtime may load the nodes many times). */
const registeredOn = new WeakSet<object>();

export function registerEditorApi(RED: NodeAPI): void {
  const app = RED.httpAdmin;
  if (!app || registeredOn.has(app)) return;
  registeredOn.add(app);
  const permission: RequestHandler = RED.auth.needsPermission("robot-config.read");

  /** A lookup's route; its answers are kept for CACHE_MS unless `fresh` (asked anew every time). */
  function route(path: string, lookup: (client: RobotClient, req: Request) => Promise<unknown>, { fresh = false } = {}): void {
    app.get(`${EDITOR_API_ROOT}/:config${path}`, permission, (req: Request, res: Response) => {
      const config = RED.nodes.getNode(String(req.params.config)) as RobotConfigNode | null;
      if (!config || config.type !== "robot-config" || !config.robot) {
        fail(res, 404, "NOT_DEPLOYED", "this robot-config is not deployed");
        return;
      }
      if ("error" in config.robot) {
        fail(res, 409, "CONFIG_PROBLEM", config.robot.error.message);
        return;
      }
      const serial = req.params.serial;
      if (serial !== undefined && !SERIAL_NUMBER_PATTERN.test(serial)) {
        fail(res, 400, "INVALID_INPUT", `serialNumber: ${SERIAL_NUMBER_RULE}`);
        return;
      }
      const { client } = config.robot;
      let cache = cacheOf.get(config);
      if (!cache) cacheOf.set(config, (cache = new Map<string, CachedAnswer>()));
      const key = req.path;
      const now = Date.now();
      let cached = cache.get(key);
      if (fresh || !cached || cached.expires <= now) {
        cached = { expires: now + CACHE_MS, answer: lookup(client, req) };
        cache.set(key, cached);
        // A failure is not kept: the next try asks the cloud again.
        const entry = cached;
        entry.answer.catch(() => {
          if (cache.get(key) === entry) cache.delete(key);
        });
      }
      cached.answer.then(
        (answer) => res.json(answer),
        (thrown: unknown) => {
          // The lookups call only the client, whose failures are RobotApiErrors: anything else is a bug, logged with its stack.
          const error = internalError(thrown, "editor lookup");
          if (error.kind === "internal") RED.log.error(error.stack ?? error.message);
          const problem = problemOf(error, client);
          fail(res, problem.status, problem.code, problem.message);
        },
      );
    });
  }

  route("/robots", (client) => LOOKUPS.robots(client));
  route("/test", (client) => LOOKUPS.test(client), { fresh: true });
  route("/robots/:serial/maps", (client, req) => LOOKUPS.maps(client, String(req.params.serial)));
  route("/robots/:serial/maps/:map/areas", (client, req) => LOOKUPS.areas(client, String(req.params.serial), String(req.params.map)));
  route("/robots/:serial/options", (client, req) => LOOKUPS.options(client, String(req.params.serial)));
  route("/robots/:serial/site", (client, req) => LOOKUPS.site(client, String(req.params.serial)));
}
