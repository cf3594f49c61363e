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
export {
  RobotApiError,
  isRobotApiError,
  API_CODES,
  API_CODE_NAMES,
  PLATFORM_CODES,
  type RobotApiErrorKind,
  type RobotApiErrorDetails,
} from "./errors";
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
export { CLEANING_KINDS, cleaningKindOf, readableCleaningMode, type CleaningKind } from "./cloud/cleaning-modes";
// What a dashboard or function node decides as the nodes do: the actions a robot's state allows and why not,
// which robot a job would get, a task report read and the fleet's figures, the robot as Home Assistant sees it.
export { ROBOT_ACTIONS, allowedActions, refusalOf, refusalText, type RobotAction, type ActionRefusal } from "./watching/robot-actions";
export { chooseRobot, robotFactsOf, type DispatchInput, type DispatchChoice, type JobWork, type RobotFacts } from "./jobs/dispatch";
export { readReport, type ReadReport } from "./reports/reading";
export {
  KPI_GROUPINGS,
  keptReportOf,
  kpiRows,
  dayFormatter,
  type KeptReport,
  type KpiRow,
  type KpiGrouping,
  type KpiRequest,
} from "./reports/kpi";
export { VACUUM_STATES, robotViewOf, vacuumStateOf, type VacuumState, type RobotView } from "./mqtt/robot-view";
