import type { NumberSetting } from "../../api/settings/input-rules";

/** robot-job's settings: their bounds and defaults, read by the runtime and the dialog. */

export const JOB_MIN_BATTERY = { default: 30, min: 0, max: 100, integer: false, unit: "%" } as const satisfies NumberSetting;
export const JOB_WAIT_UP_TO = { default: 600, min: 0, max: 86_400, integer: false, unit: "s" } as const satisfies NumberSetting;
/** A running job whose robot stays offline (or whose navigation shows nothing) this many minutes ends with outcome unknown. */
export const JOB_OFFLINE_LIMIT = { default: 30, min: 0.01, max: 10_080, integer: false, unit: "min" } as const satisfies NumberSetting;
export const JOB_TRIES = { default: 3, min: 1, max: 100, integer: true, unit: "" } as const satisfies NumberSetting;

/** The work a job does: one of these fields of msg.payload, or the node's setting. */
export const WORK_KINDS = ["task", "area", "goto"] as const;
export type WorkKind = (typeof WORK_KINDS)[number];
