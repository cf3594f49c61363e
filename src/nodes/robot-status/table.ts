/** robot-status' tables: its operations, outputs, status lines and the bounds of watching. */
import type { NumberSetting } from "../../api/settings/input-rules";
import { DEFAULT_WATCH_INTERVAL_MS, MIN_WATCH_INTERVAL_MS } from "../../api/watching/watcher";
import { DEFAULT_BATTERY_THRESHOLDS } from "../../api/watching/watcher-state";

/** The node's operations. */
export const STATUS_OPERATIONS = ["status", "fleetStatus", "listRobots", "taskReports"] as const;
export type StatusOperation = (typeof STATUS_OPERATIONS)[number];

/** fleetStatus sends one message per robot (msg.topic = its serial number) or one with all. */
export const FLEET_OUTPUTS = ["each", "all"] as const;
/** Which batch status: v1 (any line, richer) or the S-line one (B1's shape). */
export const STATUS_LINES = ["v1", "s"] as const;

/** Bounds of the watch settings, in the unit the dialog shows (seconds, percent). */
export const WATCH_LIMITS = {
  interval: { default: DEFAULT_WATCH_INTERVAL_MS / 1000, min: MIN_WATCH_INTERVAL_MS / 1000, max: 86_400, integer: false, unit: "s" },
  batteryStep: { default: DEFAULT_BATTERY_THRESHOLDS.step, min: 1, max: 100, integer: false, unit: "%" },
  batteryLow: { default: DEFAULT_BATTERY_THRESHOLDS.low, min: 0, max: 100, integer: false, unit: "%" },
} as const satisfies Record<string, NumberSetting>;
