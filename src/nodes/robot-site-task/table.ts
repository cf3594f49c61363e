/** robot-site-task's tables: its operations, where a body comes from, and the dialog's fields. */

import type { NumberSetting } from "../../api/settings/input-rules";
import { LOOP_COUNT } from "../robot-command/table";

/** The node's operations: status (B1), siteInfo (B2), createTempTask (B3), sendTempTask (B4). */
export const SITE_TASK_OPERATIONS = ["status", "siteInfo", "createTempTask", "sendTempTask"] as const;
export type SiteTaskOperation = (typeof SITE_TASK_OPERATIONS)[number];

/**
 * Where a temporary task's body comes from: the node's fields (the dialog
 * marks each one required), msg.payload as the API's body, or, for flows saved
 * before 0.2 (no setting), msg.payload when it is a body and else the fields.
 */
export const BODY_SOURCES = ["fields", "payload", "auto"] as const;
export type BodySource = (typeof BODY_SOURCES)[number];

/** The text fields of the dialog; each is a TypedInput with a `<name>Type` companion. */
export const TEXT_FIELDS = ["siteId", "siteName", "floorName", "mapId", "mapName", "areaId", "areaName", "taskName", "cleaningMode"] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/**
 * Which dialog fields build which body, in dialog order. The editor reads
 * this table (robotConfigTables): it shows these rows and marks an empty
 * text field of them as missing, as run() does.
 */
export const DIALOG_FIELDS_OF = {
  createTempTask: ["siteId", "siteName", "floorIndex", "floorName", "mapId", "areaId", "areaName", "taskName", "cleaningMode", "loopCount"],
  sendTempTask: ["taskName", "cleaningMode", "loop", "loopCount", "mapName", "mapId", "areaId"],
} as const;

/** Fields with a default when empty: every other field of DIALOG_FIELDS_OF is required. */
export const WHOLE_NUMBER_FIELDS = {
  floorIndex: { default: 0, min: 0, integer: true, unit: "" },
  loopCount: LOOP_COUNT,
} as const satisfies Record<string, NumberSetting>;
