/**
 * The package's public API, `require("node-red-contrib-robot-fleet")`: the
 * robot-cloud client (usable without Node-RED), its errors, the endpoint table
 * and its types, the schemas, and the readers a function node uses on what
 * the nodes send. Only what is named here is public (package.json's
 * `exports` keeps every other module out of reach); test/package.test.ts
 * lists these names, so adding one is a deliberate act. The simulator is
 * `node-red-contrib-robot-fleet/simulator`.
 */
export {
  RobotClient,
  DEFAULT_BASE_URL,
  DEFAULT_TIMEOUT_MS,
  type RobotClientOptions,
  type ListAllRobotsOptions,
  type BatchStatusOptions,
} from "./client";
export type { ClientCredentials } from "./account/auth";
export type { CallOptions, RetryOptions } from "./settings/call-settings";
export type { DownloadOptions, MapImage } from "./http/downloads";
export { RobotApiError, isRobotApiError, API_CODES, API_CODE_NAMES, type RobotApiErrorKind, type RobotApiErrorDetails } from "./errors";
export {
  ENDPOINTS,
  OPERATION_NAMES,
  type Endpoint,
  type Endpoints,
  type HttpMethod,
  type OperationName,
  type RobotOperationName,
  type RequestOf,
  type ResultOf,
} from "./cloud/endpoints";
export {
  COMMANDS,
  COMMAND_TYPES,
  COMMAND_FAMILIES,
  MOVE_DIRECTIONS,
  isCommandType,
  commandTypeOf,
  type CommandType,
  type CommandFamily,
  type MoveDirection,
} from "./cloud/commands";
export * as schemas from "./cloud/schemas";
// What robot-status, robot-events and the coming report and MQTT nodes send, read as the nodes read it.
export { readStatus, type StatusReading, type MapPosition } from "./watching/status-reader";
export { INCIDENT_LEVELS, incidentLevelOf, type IncidentLevel, type IncidentLevelCode } from "./cloud/incident-levels";
export { TASK_OUTCOMES, taskOutcomeOf, withTaskReading, type TaskOutcome, type TaskReportReading } from "./cloud/task-outcomes";
export { CLEANING_KINDS, cleaningKindOf, type CleaningKind } from "./cloud/cleaning-modes";
