/**
 * zod schemas of every request and answer of the cloud API (docs/cloud-api.md); TypeScript types are
 * inferred from them. Requests are strict (a misspelt field is an error that
 * names it); answers are loose (the real cloud adds fields, which are kept).
 */
import { z } from "zod";
import { COMMANDS, COMMAND_FAMILIES, COMMAND_PARAMETERS, MOVE_DIRECTIONS, commandsOfFamily } from "./commands";

import { SERIAL_NUMBER_PATTERN, SERIAL_NUMBER_RULE } from "../settings/input-rules";
import { INPUT_PROBLEMS, notOneOf } from "../settings/input-problems";

export { SERIAL_NUMBER_PATTERN };
export const SerialNumber = z.string({ error: "must be a string" }).superRefine((value, ctx) => {
  if (value === "") {
    ctx.addIssue({ code: "custom", message: INPUT_PROBLEMS.serialNumberNotSet });
  } else if (!SERIAL_NUMBER_PATTERN.test(value)) {
    ctx.addIssue({ code: "custom", message: SERIAL_NUMBER_RULE });
  }
});

/**
 * Ids that end up in URL paths next to a serial number (a command's id, a
 * UUID) are held to the serial number's safe alphabet, so no value can leave
 * its path segment.
 */
export const CommandId = z.string({ error: "must be a string" }).superRefine((value, ctx) => {
  if (value === "") {
    ctx.addIssue({ code: "custom", message: "is not set: give the id of the command (the last part of its name)" });
  } else if (!SERIAL_NUMBER_PATTERN.test(value)) {
    ctx.addIssue({ code: "custom", message: `${SERIAL_NUMBER_RULE} (a UUID such as the end of the command's name)` });
  }
});

/** Non-blank text, sent as given (not trimmed: what the user typed is what the cloud gets). */
const text = z.string({ error: "must be a string" }).refine((value) => value.trim() !== "", "must not be empty");
const count = z.number({ error: "must be a number" }).int("must be a whole number").min(0, "must be 0 or more");

/** Numbers and strings both accepted, always sent as a string (docs/cloud-api.md: the cloud wants TYPE_STRING). */
const idString = z
  .union([text, z.number().int().min(0)], { error: "must be a string or a whole number" })
  .transform((value) => String(value));
const booleanString = z
  .union([z.boolean(), z.enum(["true", "false"])], { error: 'must be true, false, "true" or "false"' })
  .transform((value) => String(value));
const countString = z
  .union([count, z.string().regex(/^\d+$/, "must hold a whole number")], {
    error: "must be a whole number or a string holding one",
  })
  .transform((value) => String(value));

// ---------------------------------------------------------------- Endpoint A

export const StartTaskParameter = z.strictObject({
  cleaningMode: text,
  task: z.strictObject({
    name: text,
    map: text,
    loop: z.boolean({ error: "must be true or false" }),
    loopCount: count,
  }),
});

export const StartNavigationParameter = z.strictObject({ map: text, position: text });

export const ControlMovingParameter = z.strictObject({
  direction: z.enum(MOVE_DIRECTIONS, { error: notOneOf(MOVE_DIRECTIONS).text }),
});

const taskCommandType = z.enum(commandsOfFamily("remoteTaskCommandType"));
const navigationCommandType = z.enum(commandsOfFamily("remoteNavigationCommandType"));
const controlCommandType = z.enum(commandsOfFamily("remoteControlCommandType"));

export const CommandRequest = z
  .strictObject({
    serialNumber: SerialNumber,
    remoteTaskCommandType: taskCommandType.optional(),
    remoteNavigationCommandType: navigationCommandType.optional(),
    remoteControlCommandType: controlCommandType.optional(),
    commandParameter: z
      .strictObject({
        startTaskParameter: StartTaskParameter.optional(),
        startNavigationParameter: StartNavigationParameter.optional(),
        controlMovingParameter: ControlMovingParameter.optional(),
      })
      .optional(),
  })
  .superRefine((body, ctx) => {
    const families = COMMAND_FAMILIES.filter((family) => body[family] !== undefined);
    if (families.length !== 1) {
      ctx.addIssue({
        code: "custom",
        path: families.length ? [families[1] ?? families[0]!] : [],
        message:
          families.length === 0
            ? `exactly one of ${COMMAND_FAMILIES.join(", ")} is required`
            : `only one of ${COMMAND_FAMILIES.join(", ")} may be given (got ${families.join(" and ")})`,
      });
      return;
    }
    const command = body[families[0]!]!;
    const needed = COMMANDS[command].parameter;
    for (const parameter of COMMAND_PARAMETERS) {
      const present = body.commandParameter?.[parameter] !== undefined;
      if (parameter === needed && !present) {
        ctx.addIssue({ code: "custom", path: ["commandParameter", parameter], message: `is required for ${command}` });
      } else if (parameter !== needed && present) {
        ctx.addIssue({ code: "custom", path: ["commandParameter", parameter], message: `is not allowed for ${command}` });
      }
    }
    if (!needed && body.commandParameter !== undefined) {
      ctx.addIssue({ code: "custom", path: ["commandParameter"], message: `must be omitted for ${command}` });
    }
  });
export type CommandRequest = z.input<typeof CommandRequest>;

/** int64 values may come back as strings (docs/cloud-api.md). */
const int64 = z.union([z.number(), z.string()]);

export const CommandResource = z.looseObject({
  name: z.string(),
  parent: z.string().optional(),
  commandParameter: z.record(z.string(), z.unknown()).optional(),
  state: z.string(),
  serialNumber: z.string().optional(),
  user: z.string().optional(),
  createTime: z.string().optional(),
  updateTime: z.string().optional(),
  startTime: z.string().optional(),
  startDelay: int64.optional(),
  rawCommandType: z.string().optional(),
});
export type CommandResource = z.output<typeof CommandResource>;

/** Reads a submitted command back: GET /v1alpha1/robots/<sn>/commands/<commandId> (docs/cloud-api.md). */
export const GetCommandRequest = z.strictObject({ serialNumber: SerialNumber, commandId: CommandId });
export type GetCommandRequest = z.input<typeof GetCommandRequest>;

// ---------------------------------------------------------------- Endpoint B

export const RobotRef = z.strictObject({ serialNumber: SerialNumber });
export type RobotRef = z.input<typeof RobotRef>;

/** B1: only what the nodes read is typed; every other field passes through. */
export const RobotStatus = z.looseObject({
  serialNumber: z.string().optional(),
  taskState: z.string().optional(),
  online: z.boolean().optional(),
});
export type RobotStatus = z.output<typeof RobotStatus>;

export const SiteInfo = z.looseObject({});
export type SiteInfo = z.output<typeof SiteInfo>;

export const TempSiteTaskRequest = z.strictObject({
  cleaningMode: text,
  loopCount: count,
  siteId: text,
  siteName: text,
  taskName: text,
  floors: z
    .array(
      z.strictObject({
        index: count,
        name: text,
        mapId: text,
        area: z.strictObject({ id: idString, name: text }),
      }),
    )
    .min(1, "must list at least one floor"),
  tasks: z
    .array(
      z.strictObject({
        mapId: text,
        subTasks: z.array(z.strictObject({ mapId: text, areaId: idString })),
      }),
    )
    .min(1, "must list at least one task"),
  serialNumber: SerialNumber,
});
export type TempSiteTaskRequest = z.input<typeof TempSiteTaskRequest>;

export const TempSiteTaskResult = z.looseObject({});
export type TempSiteTaskResult = z.output<typeof TempSiteTaskResult>;

export const TempTaskCommandRequest = z.strictObject({
  productId: SerialNumber,
  tempTaskCommand: z.strictObject({
    taskName: text,
    cleaningMode: text,
    loop: booleanString,
    loopCount: countString,
    mapName: text,
    startParam: z.strictObject({ mapId: text, areaId: idString }),
  }),
});
export type TempTaskCommandRequest = z.input<typeof TempTaskCommandRequest>;

export const TempTaskCommandResult = z.looseObject({
  productId: z.string().optional(),
  requestId: z.string().optional(),
  orderType: z.string().optional(),
  cmdStatus: int64.optional(),
  cmdResultCode: int64.optional(),
});
export type TempTaskCommandResult = z.output<typeof TempTaskCommandResult>;

// ---------------------------------------------------------------- Endpoint C

export const SubareasRequest = z.strictObject({ mapId: text, robotSn: SerialNumber });
export type SubareasRequest = z.input<typeof SubareasRequest>;

export const Partition = z.looseObject({ id: z.number(), name: z.string() });
export const Subareas = z.looseObject({
  mapId: z.string(),
  subareas: z.looseObject({ partitions: z.array(Partition) }),
});
export type Subareas = z.output<typeof Subareas>;

export const MapListRequest = z.strictObject({ robotSn: SerialNumber });
export type MapListRequest = z.input<typeof MapListRequest>;

export const MapEntry = z.looseObject({ mapId: z.string(), mapName: z.string() });
export const MapList = z.array(MapEntry);
export type MapList = z.output<typeof MapList>;

// ---------------------------------------------------------------- fleet calls (docs/cloud-api.md)

/**
 * A page number or size: a whole number in range, or a string holding one
 * (the simulator reads them from the query string), always a number after.
 */
function wholeNumber(min: number, max: number) {
  const problem = `must be a whole number from ${min} to ${max}`;
  return z
    .union([z.number().int(), z.string().regex(/^\d{1,10}$/, problem)], { error: problem })
    .transform((value) => Number(value))
    .refine((value) => value >= min && value <= max, problem);
}

export const MAX_PAGE_SIZE = 1000;
const page = wholeNumber(1, 1_000_000);

/** GET /v1alpha1/robots: one page of the account's robots. */
export const ListRobotsRequest = z.strictObject({
  page: page.default(1),
  pageSize: wholeNumber(1, MAX_PAGE_SIZE).default(100),
  /** What the public fleet connector sends; its other values are not documented. */
  relation: text.default("cugrup"),
});
export type ListRobotsRequest = z.input<typeof ListRobotsRequest>;

/** Where a robot's name, model codes and software version come from: its status carries none of them (docs/cloud-api.md, "The robot directory"). */
export const RobotSummary = z.looseObject({
  serialNumber: z.string(),
  displayName: z.string().optional(),
  modelFamilyCode: z.string().optional(),
  modelTypeCode: z.string().optional(),
  softwareVersion: z.string().optional(),
  online: z.boolean().optional(),
});
export type RobotSummary = z.output<typeof RobotSummary>;

/** An empty page may leave the list out altogether (proto3 JSON omits empty repeated fields). */
export const RobotList = z.looseObject({ robots: z.array(RobotSummary).default([]), total: int64.optional() });
export type RobotList = z.output<typeof RobotList>;

/**
 * Serial numbers per batch status request: the public fleet connector's
 * choice (the cloud's own limit is not published), kept for every batch.
 */
export const STATUS_BATCH_SIZE = 11;

/** Both batch statuses: `names` as a repeated query parameter (v1) or in a JSON body on the GET (S line). */
export const BatchStatusRequest = z.strictObject({
  names: z
    .array(SerialNumber, { error: "must be a list of serial numbers" })
    .min(1, "must name at least one robot")
    .max(STATUS_BATCH_SIZE, `must name at most ${STATUS_BATCH_SIZE} robots per request (batchGetStatuses splits longer lists)`),
});
export type BatchStatusRequest = z.input<typeof BatchStatusRequest>;

/** A v1 status (any line): more than the S-line one; only what a watcher compares is typed. */
export const FleetRobotStatus = z.looseObject({
  name: z.string().optional(),
  serialNumber: z.string().optional(),
  online: z.boolean().optional(),
  taskState: z.string().optional(),
  latestReportTime: int64.optional(),
});
export type FleetRobotStatus = z.output<typeof FleetRobotStatus>;

export const BatchRobotStatus = z.looseObject({ robotStatuses: z.array(FleetRobotStatus).default([]) });
export type BatchRobotStatus = z.output<typeof BatchRobotStatus>;

/** The S-line batch answers `robotStatus` (singular), each a B1 status. */
export const BatchSRobotStatus = z.looseObject({ robotStatus: z.array(RobotStatus).default([]) });
export type BatchSRobotStatus = z.output<typeof BatchSRobotStatus>;

/**
 * A moment as the task reports endpoint's time window takes it: ISO 8601 in
 * UTC (docs/cloud-api.md); a Date or epoch milliseconds are written so,
 * without fractions of a second.
 */
const utcTime = z
  .union(
    [
      z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, "must be an ISO 8601 UTC time such as 2026-11-01T00:00:00Z"),
      z.number().int().min(0),
      z.date(),
    ],
    {
      error: "must be an ISO 8601 UTC time such as 2026-11-01T00:00:00Z, or epoch milliseconds",
    },
  )
  .transform((value) => (typeof value === "string" ? value : new Date(value).toISOString().replace(/\.\d{3}Z$/, "Z")));

/**
 * GET /openapi/v2alpha1/robots/<sn>/taskReports: one page of a robot's task
 * reports, newest first, optionally only those that started in a window.
 */
export const TaskReportsRequest = z.strictObject({
  serialNumber: SerialNumber,
  page: page.default(1),
  pageSize: wholeNumber(1, MAX_PAGE_SIZE).default(10),
  /** Reports that started at or after this time (ISO 8601, UTC: 2026-11-20T00:00:00Z). */
  startTimeUtcFloor: utcTime.optional(),
  /** Reports that started before this time (ISO 8601, UTC). */
  startTimeUtcUpper: utcTime.optional(),
});
export type TaskReportsRequest = z.input<typeof TaskReportsRequest>;

export const TaskReport = z.looseObject({
  id: z.union([z.string(), z.number()]).optional(),
  displayName: z.string().optional(),
  robotSerialNumber: z.string().optional(),
  completionPercentage: z.number().optional(),
  durationSeconds: int64.optional(),
  taskEndStatus: int64.optional(),
  startTime: z.string().optional(),
  endTime: z.string().optional(),
});
export type TaskReport = z.output<typeof TaskReport>;

export const TaskReportList = z.looseObject({ robotTaskReports: z.array(TaskReport).default([]), total: int64.optional() });
export type TaskReportList = z.output<typeof TaskReportList>;

/** POST /openapi-server/v1/api/task/report/map-images/query: the coverage images of one task report. */
export const TaskReportImagesRequest = z.strictObject({
  robotSn: SerialNumber,
  taskReportId: text,
});
export type TaskReportImagesRequest = z.input<typeof TaskReportImagesRequest>;

/** Image URLs (pre-signed, fetched without the bearer token like map images). */
export const TaskReportImages = z.looseObject({ data: z.array(z.string()).default([]) });
export type TaskReportImages = z.output<typeof TaskReportImages>;

/**
 * GET /openapi/v2alpha1/robots/<sn>/map?mapId=..&mapName=..&mapVersion=..: a
 * map list entry (C2) names the map; the version may be a number or a string.
 */
export const MapImageRequest = z.strictObject({
  serialNumber: SerialNumber,
  mapId: text,
  mapName: text,
  mapVersion: idString,
});
export type MapImageRequest = z.input<typeof MapImageRequest>;

/** An absolute pre-signed URL of the PNG, on another host: fetched without the bearer token. */
export const MapImageUri = z.looseObject({ downloadUri: z.string().min(1, "must not be empty") });
export type MapImageUri = z.output<typeof MapImageUri>;

/** The {code, msg, data} envelope of the map endpoints. */
export const Envelope = z.looseObject({ code: z.number(), msg: z.string().optional(), data: z.unknown() });

/** Error bodies: google.rpc.Status-like {code, message} on most endpoints, {code, msg} on others. */
export const ErrorBody = z.looseObject({
  code: z.union([z.number(), z.string()]).optional(),
  message: z.string().optional(),
  msg: z.string().optional(),
});

// ---------------------------------------------------------------- token grant

export const OPEN_ACCESS_GRANT_TYPE = "urn:gaussian:params:oauth:grant-type:open-access-token";

export const TokenRequest = z.strictObject({
  grant_type: z.literal(OPEN_ACCESS_GRANT_TYPE),
  client_id: text,
  client_secret: text,
  open_access_key: text,
});
export type TokenRequest = z.input<typeof TokenRequest>;

export const TokenAnswer = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: int64.optional(),
  refresh_token: z.string().optional(),
});
export type TokenAnswer = z.output<typeof TokenAnswer>;
