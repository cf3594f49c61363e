/**
 * Every operation of the cloud API (docs/cloud-api.md), declared once as data. The client derives its
 * methods from this table, the simulator serves its routes from it and the
 * tests iterate over it: adding an endpoint is adding a row.
 */
import { TEMP_TASK_REJECTED_STATUS } from "./command-status";
import type { z } from "zod";
import type { SharedCallClass } from "../settings/call-settings";
import { MOTION_STOPPING_COMMANDS, commandTypeOf, type CommandType } from "./commands";
import { RobotApiError, tempTaskRejection } from "../errors";
import * as s from "./schemas";

export type HttpMethod = "GET" | "POST";
export type QueryKind = "one" | "repeated";

export interface Endpoint<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  /** Id in docs/cloud-api.md (A, B1-B4, C1, C2), "token", or for the fleet calls beyond them: A-read and N1-N6. */
  readonly id: string;
  readonly method: HttpMethod;
  /**
   * Path template. Each `{name}` is a path parameter: the validated request's
   * field of that name, URL-encoded into its one segment.
   */
  readonly path: string;
  /**
   * Validates what the caller passes: path parameters, query parameters and,
   * when `sendsBody`, the body, all in one object.
   */
  readonly request: Req;
  /** Whether the validated request is sent as the JSON body (also on a GET: the S-line batch status). */
  readonly sendsBody: boolean;
  /**
   * Whether the call goes without `Content-Type: application/json`, which every
   * other call carries: the cloud answers this one 415 when it has one (the
   * robot list, docs/cloud-api.md). The simulator refuses it there as well.
   */
  readonly withoutContentType: boolean;
  /**
   * Fields of the validated request sent as query parameters, in this order:
   * "one" is `name=value`, "repeated" is `name=a&name=b` (never a comma-joined list).
   */
  readonly query?: Readonly<Record<string, QueryKind>>;
  /** Where the robot's serial number sits in the validated request. */
  readonly serialNumberOf: ((request: z.output<Req>) => string) | undefined;
  /** Whether the answer is a {code, msg, data} envelope whose data the response schema describes. */
  readonly envelope: boolean;
  readonly response: Res;
  /** Whether the call carries the bearer token (all but the token grant). */
  readonly authenticated: boolean;
  /** Only reads: a connection reset after sending may be retried (a command never is). */
  readonly read: boolean;
  /** The class whose share of the account's rate a call takes unless its caller chooses (call-classes.ts); default "other". */
  readonly callClass?: SharedCallClass;
  /** Whether a request goes ahead of every waiting call (commands that stop motion). */
  readonly urgent?: (request: z.output<Req>) => boolean;
  /** An answer that is HTTP 200 but says the robot refused (B4 cmdStatus 7). */
  readonly rejectionOf?: (answer: z.output<Res>) => { message: string; resultCode: string } | undefined;
}

/** A row of the table: what every call names, and what differs from the usual call. */
type EndpointRow<Req extends z.ZodType, Res extends z.ZodType> = Pick<
  Endpoint<Req, Res>,
  "id" | "method" | "path" | "request" | "response"
> &
  Partial<Omit<Endpoint<Req, Res>, "id" | "method" | "path" | "request" | "response">>;

/**
 * A row as the client and the simulator read it. The usual call is the
 * default: a POST sends its request as the body and a GET does not, a GET
 * only reads and a POST does not, Content-Type goes along, the answer is no
 * envelope, the bearer token goes along, and no serial number unless the row
 * says where it is.
 */
function endpoint<Req extends z.ZodType, Res extends z.ZodType>(row: EndpointRow<Req, Res>): Endpoint<Req, Res> {
  const get = row.method === "GET";
  return { sendsBody: !get, withoutContentType: false, read: get, envelope: false, authenticated: true, serialNumberOf: undefined, ...row };
}

export const ENDPOINTS = {
  submitCommand: endpoint({
    id: "A",
    method: "POST",
    path: "/v1alpha1/robots/{serialNumber}/commands",
    request: s.CommandRequest,
    serialNumberOf: (body) => body.serialNumber,
    response: s.CommandResource,
    urgent: (body) => MOTION_STOPPING_COMMANDS.has(commandTypeOf(body) as CommandType),
  }),
  getCommand: endpoint({
    id: "A-read",
    method: "GET",
    path: "/v1alpha1/robots/{serialNumber}/commands/{commandId}",
    request: s.GetCommandRequest,
    serialNumberOf: (ref) => ref.serialNumber,
    response: s.CommandResource,
  }),
  getRobotStatus: endpoint({
    id: "B1",
    method: "GET",
    path: "/openapi/v2alpha1/s/robots/{serialNumber}/status",
    request: s.RobotRef,
    serialNumberOf: (ref) => ref.serialNumber,
    response: s.RobotStatus,
    callClass: "status",
  }),
  getSiteInfo: endpoint({
    id: "B2",
    method: "GET",
    path: "/openapi/v2alpha1/robots/{serialNumber}/getSiteInfo",
    request: s.RobotRef,
    serialNumberOf: (ref) => ref.serialNumber,
    response: s.SiteInfo,
  }),
  createTempSiteTask: endpoint({
    id: "B3",
    method: "POST",
    path: "/openapi/v2/robot/tasks/temp/withSite",
    request: s.TempSiteTaskRequest,
    serialNumberOf: (body) => body.serialNumber,
    response: s.TempSiteTaskResult,
  }),
  sendTempTask: endpoint({
    id: "B4",
    method: "POST",
    path: "/v2alpha1/robotCommand/tempTask:send",
    request: s.TempTaskCommandRequest,
    serialNumberOf: (body) => body.productId,
    response: s.TempTaskCommandResult,
    rejectionOf: (answer) =>
      Number(answer.cmdStatus) === TEMP_TASK_REJECTED_STATUS
        ? { message: tempTaskRejection(String(answer.cmdResultCode ?? "")), resultCode: String(answer.cmdResultCode ?? "") }
        : undefined,
  }),
  getSubareas: endpoint({
    id: "C1",
    method: "POST",
    path: "/openapi/v1/map/subareas/get",
    request: s.SubareasRequest,
    serialNumberOf: (body) => body.robotSn,
    envelope: true,
    response: s.Subareas,
    read: true,
  }),
  listMaps: endpoint({
    id: "C2",
    method: "POST",
    path: "/openapi/v1/map/robotMap/list",
    request: s.MapListRequest,
    serialNumberOf: (body) => body.robotSn,
    envelope: true,
    response: s.MapList,
    read: true,
  }),
  listRobots: endpoint({
    id: "N1",
    method: "GET",
    path: "/v1alpha1/robots",
    request: s.ListRobotsRequest,
    query: { page: "one", pageSize: "one", relation: "one" },
    withoutContentType: true,
    response: s.RobotList,
  }),
  batchGetRobotStatus: endpoint({
    id: "N2",
    method: "GET",
    path: "/v1alpha1/robots/-/status:batchGet",
    request: s.BatchStatusRequest,
    // names=SN1&names=SN2: a comma-joined list is read as one name and answers 403 (docs/cloud-api.md).
    query: { names: "repeated" },
    response: s.BatchRobotStatus,
    callClass: "status",
  }),
  batchGetSRobotStatus: endpoint({
    id: "N3",
    method: "GET",
    path: "/openapi/v2alpha1/s/robots/*/status:batchGet",
    request: s.BatchStatusRequest,
    // A GET with a JSON body {"names": [...]} (docs/cloud-api.md).
    sendsBody: true,
    response: s.BatchSRobotStatus,
    callClass: "status",
  }),
  listTaskReports: endpoint({
    id: "N4",
    method: "GET",
    path: "/openapi/v2alpha1/robots/{serialNumber}/taskReports",
    request: s.TaskReportsRequest,
    // The time window of a report's start, as public clients send it (docs/cloud-api.md).
    query: { page: "one", pageSize: "one", startTimeUtcFloor: "one", startTimeUtcUpper: "one" },
    serialNumberOf: (request) => request.serialNumber,
    response: s.TaskReportList,
  }),
  getTaskReportImages: endpoint({
    id: "N6",
    method: "POST",
    path: "/openapi-server/v1/api/task/report/map-images/query",
    request: s.TaskReportImagesRequest,
    serialNumberOf: (body) => body.robotSn,
    response: s.TaskReportImages,
    read: true,
  }),
  getMapImageUri: endpoint({
    id: "N5",
    method: "GET",
    path: "/openapi/v2alpha1/robots/{serialNumber}/map",
    request: s.MapImageRequest,
    query: { mapId: "one", mapName: "one", mapVersion: "one" },
    serialNumberOf: (request) => request.serialNumber,
    response: s.MapImageUri,
  }),
  grantToken: endpoint({
    id: "token",
    method: "POST",
    path: "/gas/api/v1alpha1/oauth/token",
    request: s.TokenRequest,
    response: s.TokenAnswer,
    authenticated: false,
  }),
} as const;

export type Endpoints = typeof ENDPOINTS;
export type OperationName = keyof Endpoints;
export type RobotOperationName = Exclude<OperationName, "grantToken">;
export type RequestOf<Op extends OperationName> = z.input<Endpoints[Op]["request"]>;
export type ResultOf<Op extends OperationName> = z.output<Endpoints[Op]["response"]>;

export const OPERATION_NAMES = Object.keys(ENDPOINTS) as OperationName[];

/** Values of a request's path parameters, by name. */
export type PathParams = Readonly<Record<string, string | undefined>>;

const PARAMETER = /\{([A-Za-z][A-Za-z0-9]*)\}/g;

const paramsOfTemplate = new Map<string, readonly string[]>();

/** The names of the path parameters of a template, in order (read once per template: every call asks). */
export function pathParamsOf(template: string): readonly string[] {
  let names = paramsOfTemplate.get(template);
  if (!names) {
    names = [...template.matchAll(PARAMETER)].map((match) => match[1]!);
    paramsOfTemplate.set(template, names);
  }
  return names;
}

/**
 * The request path with every parameter URL-encoded into its segment. A value
 * that is empty, "." or ".." is refused rather than encoded: URL parsers
 * (WHATWG URL parsing included) treat "%2e%2e" as ".." too, so no encoding keeps it in
 * its segment. The schemas refuse such values long before; this is the last line.
 */
export function pathFor(endpoint: Pick<Endpoint, "path">, params: PathParams): string {
  return endpoint.path.replace(PARAMETER, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === "" || value === "." || value === "..") {
      throw new RobotApiError({
        kind: "invalid_input",
        field: name,
        message: `${name}: ${value === undefined || value === "" ? "is not set" : `"${value}" cannot be a path segment`}`,
      });
    }
    return encode(name, value);
  });
}

/** URL-encodes one value; text that has no UTF-8 form (a lone surrogate) is an invalid input naming its field. */
function encode(name: string, value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    throw new RobotApiError({
      kind: "invalid_input",
      field: name,
      message: `${name}: holds text that cannot be sent (a lone UTF-16 surrogate)`,
    });
  }
}

interface CompiledTemplate {
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

const compiled = new Map<string, CompiledTemplate>();

function compile(template: string): CompiledTemplate {
  let known = compiled.get(template);
  if (!known) {
    const names = pathParamsOf(template);
    if (/\}\{/.test(template)) throw new Error(`path template ${template}: two parameters must not touch`);
    const literal = template
      .split(PARAMETER)
      .map((part, index) => (index % 2 === 0 ? part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : "([^/]+)"));
    known = { pattern: new RegExp(`^${literal.join("")}$`), names };
    compiled.set(template, known);
  }
  return known;
}

/**
 * Matches a request path against an endpoint's template; returns the decoded
 * path parameters ({} when the template has none), or undefined when the path
 * does not match, a segment is empty, does not decode, or decodes to "." or "..".
 */
export function matchPath(endpoint: Pick<Endpoint, "path">, pathname: string): Record<string, string> | undefined {
  const { pattern, names } = compile(endpoint.path);
  const match = pattern.exec(pathname);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < names.length; index++) {
    let value: string;
    try {
      value = decodeURIComponent(match[index + 1]!);
    } catch {
      return undefined;
    }
    if (value === "." || value === "..") return undefined;
    params[names[index]!] = value;
  }
  return params;
}

/** One `name=value` pair, both URL-encoded (a space is %20, never '+'). */
function queryPart(name: string, value: unknown): string {
  return `${encode(name, name)}=${encode(name, String(value))}`;
}

/**
 * The query string (without "?") of a validated request: the endpoint's query
 * fields in table order, a repeated one once per value; absent fields are left out.
 */
export function queryFor(endpoint: Pick<Endpoint, "query">, request: unknown): string {
  if (!endpoint.query) return "";
  const fields = (request ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  for (const [name, kind] of Object.entries(endpoint.query)) {
    const value = fields[name];
    if (value === undefined || value === null) continue;
    if (kind === "repeated") {
      for (const each of Array.isArray(value) ? (value as unknown[]) : [value]) parts.push(queryPart(name, each));
    } else {
      parts.push(queryPart(name, value));
    }
  }
  return parts.join("&");
}

/**
 * The other way round (the simulator): the endpoint's query fields read from a
 * query string, a repeated one as an array, ready for the request schema.
 * Returns the name of a single-valued field given more than once as `twice`.
 */
export function readQuery(endpoint: Pick<Endpoint, "query">, search: URLSearchParams): { fields: Record<string, unknown>; twice?: string } {
  const fields: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(endpoint.query ?? {})) {
    const values = search.getAll(name);
    if (values.length === 0) continue;
    if (kind === "repeated") fields[name] = values;
    else if (values.length > 1) return { fields, twice: name };
    else fields[name] = values[0];
  }
  return { fields };
}
