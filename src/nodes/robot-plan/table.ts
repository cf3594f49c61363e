import type { NumberSetting } from "../../api/settings/input-rules";

/** robot-plan's settings: their bounds and defaults, read by the runtime and the dialog. */

/** Minutes an occurrence may be past its time (after downtime) and still run, marked late. */
export const PLAN_LATE_BY = { default: 15, min: 0, max: 1_440, integer: true, unit: "min" } as const satisfies NumberSetting;
/** How far ahead `upcoming` looks, in hours. */
export const PLAN_UPCOMING_HOURS = { default: 24, min: 0, max: 168, integer: false, unit: "h" } as const satisfies NumberSetting;

/** After downtime, at most this many occurrences are looked back at (the newest; older ones are not recorded, one warning says how many). */
export const PLAN_LOOK_BACK_AT_MOST = 1_000;

/** What a message to robot-plan asks: one of these fields of msg.payload. */
export const PLAN_REQUESTS = ["plan", "pause", "skip", "runNow", "upcoming", "report", "cancel"] as const;
