/**
 * Every table the editor's dialogs validate with, taken from the runtime's
 * own tables: it reaches the editor as the exportable runtime setting
 * `robotConfigTables` (RED.settings), so a dialog accepts exactly what the
 * runtime accepts and holds no copy of a list or a bound. The words shown for
 * each entry are in the message catalogues (nodes/locales/<lang>/).
 */
import { ACCOUNT_SETTINGS, BASE_URL_RULES, DEFAULT_REDIS_PREFIX, REDIS_PREFIX_PATTERN, REDIS_URL_RULES, SERIAL_NUMBER_PATTERN } from "../../api/settings/input-rules";
import { COMMAND_FAMILIES, MOVE_DIRECTIONS, commandsOfFamily } from "../../api/cloud/commands";
import { PARAMETER_FIELDS, fieldsOf } from "../../api/cloud/command-bodies";
import { BURST_POLICIES, LITERAL_TYPE, LOOP_COUNT } from "../robot-command/table";
import { CONFIRM_TIMEOUT, SEND_WHEN } from "../shared/confirm-table";
import { DEFAULT_EVENTS_PATH, EVENTS_PATH_PATTERN, MIN_LEVELS } from "../robot-events/table";
import { JOB_MIN_BATTERY, JOB_OFFLINE_LIMIT, JOB_TRIES, JOB_WAIT_UP_TO, WORK_KINDS } from "../robot-job/table";
import { MAP_OPERATIONS } from "../robot-maps/table";
import { PLAN_LATE_BY } from "../robot-plan/table";
import { TIME_OF_DAY, WEEK_DAYS } from "../../api/plans/occurrence";
import { REPORTS_LIMITS } from "../robot-reports/table";
import { BODY_SOURCES, DIALOG_FIELDS_OF, SITE_TASK_OPERATIONS, TEXT_FIELDS, WHOLE_NUMBER_FIELDS } from "../robot-site-task/table";
import { MQTT_ACCEPT_MODES, MQTT_DEFAULTS, MQTT_LIMITS } from "../robot-mqtt/table";
import { FLEET_OUTPUTS, STATUS_LINES, STATUS_OPERATIONS, WATCH_LIMITS } from "../robot-status/table";
import { UPKEEP_LIMITS } from "../robot-upkeep/table";

export function editorTables() {
  return {
    serialNumberPattern: SERIAL_NUMBER_PATTERN.source,
    baseUrl: BASE_URL_RULES,
    redis: { url: REDIS_URL_RULES, prefixPattern: REDIS_PREFIX_PATTERN.source, defaultPrefix: DEFAULT_REDIS_PREFIX },
    accountSettings: ACCOUNT_SETTINGS,
    command: {
      // Every parameter of a command is required by the request schema; loop and loopCount have dialog defaults.
      families: COMMAND_FAMILIES.map((family) => ({ family, commands: commandsOfFamily(family).map((type) => ({ type, fields: fieldsOf(type) })) })),
      fields: [...PARAMETER_FIELDS],
      literalTypes: LITERAL_TYPE,
      loopCount: LOOP_COUNT,
      directions: [...MOVE_DIRECTIONS],
      burstPolicies: [...BURST_POLICIES],
    },
    sendWhen: [...SEND_WHEN],
    confirmTimeout: CONFIRM_TIMEOUT,
    siteTask: {
      operations: [...SITE_TASK_OPERATIONS],
      fieldsOf: DIALOG_FIELDS_OF,
      textFields: [...TEXT_FIELDS],
      wholeNumbers: WHOLE_NUMBER_FIELDS,
      bodySources: [...BODY_SOURCES],
    },
    maps: { operations: [...MAP_OPERATIONS], needMap: MAP_OPERATIONS.filter((operation) => operation !== "listMaps" && operation !== "fleetView") },
    status: {
      operations: [...STATUS_OPERATIONS],
      needSerialNumber: ["status", "taskReports"],
      fleetOutputs: [...FLEET_OUTPUTS],
      lines: [...STATUS_LINES],
      watchLimits: WATCH_LIMITS,
    },
    reports: { limits: REPORTS_LIMITS },
    upkeep: { limits: UPKEEP_LIMITS },
    mqtt: { limits: MQTT_LIMITS, defaults: MQTT_DEFAULTS, acceptModes: MQTT_ACCEPT_MODES },
    job: { works: ["", ...WORK_KINDS], minBattery: JOB_MIN_BATTERY, waitUpTo: JOB_WAIT_UP_TO, tries: JOB_TRIES, offlineLimit: JOB_OFFLINE_LIMIT },
    plan: { lateBy: PLAN_LATE_BY, works: [...WORK_KINDS], days: [...WEEK_DAYS], timeOfDayPattern: TIME_OF_DAY.source },
    events: { defaultPath: DEFAULT_EVENTS_PATH, pathPattern: EVENTS_PATH_PATTERN.source, minLevels: [...MIN_LEVELS] },
  };
}

export type EditorTables = ReturnType<typeof editorTables>;
