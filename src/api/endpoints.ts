/**
 * Every operation of the spec, declared once as data. The client derives its
 * methods from this table, the simulator serves its routes from it and the
 * tests iterate over it: adding an endpoint is adding a row.
 */
import type { z } from "zod";
import { MOTION_STOPPING_COMMANDS, commandTypeOf, type CommandType } from "./commands";
import * as s from "./schemas";

export type HttpMethod = "GET" | "POST";

export interface Endpoint<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  /** Id in the spec (A, B1-B4, C1, C2) or "token". */
  readonly id: string;
  readonly method: HttpMethod;
  /** Path template; `{serialNumber}` is replaced by the URL-encoded serial number. */
  readonly path: string;
  /** Validates what the caller passes; for GET endpoints it only carries the serial number. */
  readonly request: Req;
  /** Whether the validated request is sent as the JSON body. */
  readonly sendsBody: boolean;
  /** Where the robot's serial number sits in the validated request. */
  readonly serialNumberOf: ((request: z.output<Req>) => string) | undefined;
  /** Whether the answer is a {code, msg, data} envelope whose data the response schema describes. */
  readonly envelope: boolean;
  readonly response: Res;
  /** Whether the call carries the bearer token (all but the token grant). */
  readonly authenticated: boolean;
  /** Only reads: a connection reset after sending may be retried (a command never is). */
  readonly read: boolean;
  /** Whether a request goes ahead of every waiting call (commands that stop motion). */
  readonly urgent?: (request: z.output<Req>) => boolean;
  /** An answer that is HTTP 200 but says the robot refused (B4 cmdStatus 7). */
  readonly rejectionOf?: (answer: z.output<Res>) => { message: string; resultCode: string } | undefined;
}

function endpoint<Req extends z.ZodType, Res extends z.ZodType>(definition: Endpoint<Req, Res>): Endpoint<Req, Res> {
  return definition;
}

/** B4 cmdStatus meaning the robot refused the temporary task (field notes). */
export const TEMP_TASK_REJECTED_STATUS = 7;

export const ENDPOINTS = {
  submitCommand: endpoint({
    id: "A",
    method: "POST",
    path: "/v1alpha1/robots/{serialNumber}/commands",
    request: s.CommandRequest,
    sendsBody: true,
    serialNumberOf: (body) => body.serialNumber,
    envelope: false,
    response: s.CommandResource,
    authenticated: true,
    read: false,
    urgent: (body) => MOTION_STOPPING_COMMANDS.has(commandTypeOf(body) as CommandType),
  }),
  getRobotStatus: endpoint({
    id: "B1",
    method: "GET",
    path: "/openapi/v2alpha1/s/robots/{serialNumber}/status",
    request: s.RobotRef,
    sendsBody: false,
    serialNumberOf: (ref) => ref.serialNumber,
    envelope: false,
    response: s.RobotStatus,
    authenticated: true,
    read: true,
  }),
  getSiteInfo: endpoint({
    id: "B2",
    method: "GET",
    path: "/openapi/v2alpha1/robots/{serialNumber}/getSiteInfo",
    request: s.RobotRef,
    sendsBody: false,
    serialNumberOf: (ref) => ref.serialNumber,
    envelope: false,
    response: s.SiteInfo,
    authenticated: true,
    read: true,
  }),
  createTempSiteTask: endpoint({
    id: "B3",
    method: "POST",
    path: "/openapi/v2/robot/tasks/temp/withSite",
    request: s.TempSiteTaskRequest,
    sendsBody: true,
    serialNumberOf: (body) => body.serialNumber,
    envelope: false,
    response: s.TempSiteTaskResult,
    authenticated: true,
    read: false,
  }),
  sendTempTask: endpoint({
    id: "B4",
    method: "POST",
    path: "/v2alpha1/robotCommand/tempTask:send",
    request: s.TempTaskCommandRequest,
    sendsBody: true,
    serialNumberOf: (body) => body.productId,
    envelope: false,
    response: s.TempTaskCommandResult,
    authenticated: true,
    read: false,
    rejectionOf: (answer) =>
      Number(answer.cmdStatus) === TEMP_TASK_REJECTED_STATUS
        ? {
            message: `robot rejected the temporary task (cmdResultCode ${String(answer.cmdResultCode ?? "none")})`,
            resultCode: String(answer.cmdResultCode ?? ""),
          }
        : undefined,
  }),
  getSubareas: endpoint({
    id: "C1",
    method: "POST",
    path: "/openapi/v1/map/subareas/get",
    request: s.SubareasRequest,
    sendsBody: true,
    serialNumberOf: (body) => body.robotSn,
    envelope: true,
    response: s.Subareas,
    authenticated: true,
    read: true,
  }),
  listMaps: endpoint({
    id: "C2",
    method: "POST",
    path: "/openapi/v1/map/robotMap/list",
    request: s.MapListRequest,
    sendsBody: true,
    serialNumberOf: (body) => body.robotSn,
    envelope: true,
    response: s.MapList,
    authenticated: true,
    read: true,
  }),
  grantToken: endpoint({
    id: "token",
    method: "POST",
    path: "/gas/api/v1alpha1/oauth/token",
    request: s.TokenRequest,
    sendsBody: true,
    serialNumberOf: undefined,
    envelope: false,
    response: s.TokenAnswer,
    authenticated: false,
    read: false,
  }),
} as const;

export type Endpoints = typeof ENDPOINTS;
export type OperationName = keyof Endpoints;
export type RobotOperationName = Exclude<OperationName, "grantToken">;
export type RequestOf<Op extends OperationName> = z.input<Endpoints[Op]["request"]>;
export type ResultOf<Op extends OperationName> = z.output<Endpoints[Op]["response"]>;

export const OPERATION_NAMES = Object.keys(ENDPOINTS) as OperationName[];

/** The request path with the serial number URL-encoded into it. */
export function pathFor(endpoint: Endpoint, serialNumber: string | undefined): string {
  if (!endpoint.path.includes("{serialNumber}")) return endpoint.path;
  return endpoint.path.replace("{serialNumber}", encodeURIComponent(serialNumber ?? ""));
}

/**
 * Matches a request path against an endpoint's template; returns the decoded
 * serial number ("" when the path has none), or undefined when it does not match.
 */
export function matchPath(endpoint: Endpoint, pathname: string): string | undefined {
  const [before, after] = endpoint.path.split("{serialNumber}");
  if (after === undefined) return pathname === before ? "" : undefined;
  if (!pathname.startsWith(before!) || !pathname.endsWith(after)) return undefined;
  const segment = pathname.slice(before!.length, pathname.length - after.length);
  if (segment === "" || segment.includes("/")) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
