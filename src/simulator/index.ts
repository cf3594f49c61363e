/** The robot-cloud simulator: a stateful stand-in for the cloud that serves the endpoint table. */
export {
  startSimulator,
  CONTROL_PREFIX,
  DEFAULT_DOWNLOAD_URL_LIFETIME_MS,
  DEFAULT_MAX_BODY_BYTES,
  OBJECT_PREFIX,
  DEFAULT_RATE_LIMIT,
  type FleetView,
  type RateLimit,
  type RunningSimulator,
  type SimulatorOptions,
} from "./server/server";
export { FaultsUpdate, NO_FAULTS, seededRandom, type Faults } from "./faults/faults";
export { MAX_PUSHES_IN_FLIGHT, PUSH_TIMEOUT_MS, type PushBody, type PushCounters, type PushState, type PushTarget } from "./pushes/pushes";
export {
  CRITICAL_BATTERY_PERCENT,
  INCIDENT_LEVELS,
  MANUAL_INCIDENT,
  ROBOT_INCIDENTS,
  type IncidentContent,
  type IncidentLevel,
} from "./pushes/incidents";
export { PUSH_TICK_MS } from "./pushes/push-events";
export {
  DEMO_CLIENT,
  DEMO_TOKEN,
  OFF_SITE_ROBOT,
  SITE_ROBOTS,
  WAREHOUSE_TOKEN,
  demoFleet,
  grownFleet,
  type AccountSeed,
  type ClientCredentialSeed,
  type FleetSeed,
  type NavigationPoint,
  type Partition,
  type Position,
  type SimMap,
  type SimRobot,
  type SimSite,
} from "./world/fleet";
export { PNG_SIGNATURE, encodePng } from "./maps/png";
export { COVERAGE_COLOUR, drawCoverage, drawMap } from "./maps/map-image";
// A map's image is map.width x map.height pixels; a robot's position is in pixels of it, rows from the bottom edge.
export { METRES_PER_PIXEL } from "./maps/maps";
export type { Point, Pose, Rect } from "./maps/geometry";
export { currentMap, mapPositionOf } from "./world/views";
export { START_DELAY } from "./world/robot-commands";
export { TASK_END_STATUS, type PastReport } from "./world/task-reports";
export {
  TEMP_TASK_ACCEPTED,
  TEMP_TASK_PARAMETERS_REJECTED,
  TEMP_TASK_REJECTED,
  TEMP_TASK_ROBOT_BUSY,
  TEMP_TASK_ROBOT_NOT_READY,
} from "./world/temp-tasks";
export { MAX_TASK_REPORTS_PER_ROBOT } from "./world/report-book";
export { LOW_BATTERY_PERCENT } from "./world/readiness";
export { INSTANT_TIMING, REALISTIC_TIMING, type Timing } from "./world/timing";
export type { RobotChanges, WearChanges, WearQuery } from "./server/control-requests";
export { MODEL_PARTS, type RobotWear, type WearTruth } from "./world/wear";
