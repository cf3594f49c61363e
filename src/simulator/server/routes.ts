/** The simulated cloud's routes, from the endpoint table, and one handler per robot operation. */
import {
  ENDPOINTS,
  OPERATION_NAMES,
  matchPath,
  type Endpoint,
  type OperationName,
  type RobotOperationName,
} from "../../api/cloud/endpoints";
import type { AccountSeed, SimRobot } from "../world/fleet";
import { readCommand, submitCommand } from "../world/robot-commands";
import { coverageKey } from "../world/report-book";
import { Code, SimError } from "./sim-errors";
import { createTempSiteTask, sendTempTask } from "../world/temp-tasks";
import { fleetStatusOf, imageMapOf, mapListOf, robotPage, siteInfoOf, statusOf, subareasOf } from "../world/views";
import type { Parsed, World } from "../world/world";

/** Codes that the envelope endpoints (C1, C2) answer inside the envelope rather than as an HTTP status. */
export const ENVELOPE_CODES = new Set<number>([
  Code.INVALID_ARGUMENT,
  Code.NOT_FOUND,
  Code.PERMISSION_DENIED,
  Code.RESOURCE_EXHAUSTED,
  Code.FAILED_PRECONDITION,
  Code.INTERNAL,
]);

export interface Route {
  operation: OperationName;
  endpoint: Endpoint;
}

/** Every row of the table, plus the path other real clients use for B4 (docs/cloud-api.md). */
const ROUTES: Route[] = [
  ...OPERATION_NAMES.map((operation) => ({ operation, endpoint: ENDPOINTS[operation] })),
  {
    operation: "sendTempTask",
    endpoint: { ...(ENDPOINTS.sendTempTask as unknown as Endpoint), path: `/openapi${ENDPOINTS.sendTempTask.path}` },
  },
];

export type Resolved =
  { kind: "operation"; route: Route; params: Record<string, string> } | { kind: "wrongMethod"; allowed: string[] } | { kind: "unknown" };

export function resolve(method: string, pathname: string): Resolved {
  const allowed = new Set<string>();
  for (const route of ROUTES) {
    const params = matchPath(route.endpoint, pathname);
    if (params === undefined) continue;
    if (route.endpoint.method === method) return { kind: "operation", route, params };
    allowed.add(route.endpoint.method);
  }
  return allowed.size ? { kind: "wrongMethod", allowed: [...allowed] } : { kind: "unknown" };
}

/** What a handler may use besides the parsed request. */
export interface HandlerContext {
  account: AccountSeed;
  /** The request as it came (body or path and query fields), before the schema turned numbers into strings. */
  raw: unknown;
  /** The robot the request names, already checked against the account (endpoints with a serial number only). */
  readonly robot: () => SimRobot;
  /** An absolute pre-signed URL of an object (a path under OBJECT_PREFIX, its segments encoded). */
  readonly objectUrl: (key: string) => string;
}

export type Handler<Op extends RobotOperationName> = (world: World, request: Parsed<Op>, context: HandlerContext) => unknown;

/** One handler per robot operation of the table: a new row without a handler does not compile. */
export const HANDLERS: { [Op in RobotOperationName]: Handler<Op> } = {
  submitCommand: (world, request, { robot, account }) => submitCommand(world, robot(), request, account),
  getCommand: (world, request, { robot }) => readCommand(world, robot(), request.commandId),
  getRobotStatus: (world, _request, { robot }) => statusOf(world.reachableRobot(robot()), world.now()),
  getSiteInfo: (world, _request, { robot }) => siteInfoOf(world.sites, robot()),
  createTempSiteTask: (world, request, { robot, raw }) => createTempSiteTask(world, robot(), request, raw),
  sendTempTask: (world, request, { robot, raw }) => sendTempTask(world, robot(), request, raw),
  getSubareas: (_world, request, { robot }) => subareasOf(robot(), request.mapId),
  listMaps: (_world, _request, { robot }) => mapListOf(robot()),
  listRobots: (world, request, { account }) => robotPage(world.robots, account, request.page, request.pageSize),
  batchGetRobotStatus: (world, request, { account }) => ({
    robotStatuses: world.batchRobots(account, request.names).map((robot) => fleetStatusOf(robot, world.now(), world.taskProgress(robot))),
  }),
  batchGetSRobotStatus: (world, request, { account }) => ({
    robotStatus: world.batchRobots(account, request.names).map((robot) => statusOf(robot, world.now())),
  }),
  listTaskReports: (world, request, { robot, objectUrl }) =>
    world.listTaskReports(
      robot(),
      {
        page: request.page,
        pageSize: request.pageSize,
        floorMs: request.startTimeUtcFloor === undefined ? undefined : Date.parse(request.startTimeUtcFloor),
        upperMs: request.startTimeUtcUpper === undefined ? undefined : Date.parse(request.startTimeUtcUpper),
      },
      objectUrl,
    ),
  getTaskReportImages: (world, request, { robot, objectUrl }) => {
    const filed = world.reports.find(robot().serialNumber, request.taskReportId);
    if (!filed) throw new SimError(Code.NOT_FOUND, `Task report ${request.taskReportId} of robot ${request.robotSn} not found.`);
    return { data: [objectUrl(coverageKey(request.robotSn, request.taskReportId))] };
  },
  getMapImageUri: (world, request, { robot, objectUrl }) => {
    const map = imageMapOf(robot(), request);
    return { downloadUri: objectUrl(`maps/${encodeURIComponent(request.serialNumber)}/${encodeURIComponent(map.id)}.png`) };
  },
};

/**
 * The v1 batch reads each `names` value as one name: a comma-joined list is an
 * unknown robot and answers 403 (docs/cloud-api.md), before any format check.
 */
export function refuseJoinedNames(operation: OperationName, raw: unknown): void {
  if (operation !== "batchGetRobotStatus") return;
  const names = (raw as { names?: unknown }).names;
  const joined = Array.isArray(names)
    ? (names as unknown[]).find((name): name is string => typeof name === "string" && name.includes(","))
    : undefined;
  if (joined !== undefined) {
    throw new SimError(Code.PERMISSION_DENIED, `The caller has no permission on robot ${joined} (or no such robot exists).`);
  }
}

/** The error data of C1 is {} and of C2 [] (docs/cloud-api.md, Errors; INVALID_ARGUMENT is {} in both). */
export function envelopeErrorData(operation: OperationName, code: number): unknown {
  return operation === "listMaps" && code !== Code.INVALID_ARGUMENT ? [] : {};
}
