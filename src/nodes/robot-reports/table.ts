/** robot-reports' settings: their defaults and bounds, in the units the dialog shows. */
import type { NumberSetting } from "../../api/settings/input-rules";

export const REPORTS_LIMITS = {
  /** Minutes between sweeps. */
  every: { default: 15, min: 1, max: 1440, integer: false, unit: "min" },
  /** Days the first sweep reads back. */
  since: { default: 7, min: 0, max: 365, integer: false, unit: "days" },
  /** Days of history and of seen reports kept. */
  keep: { default: 90, min: 1, max: 3650, integer: false, unit: "days" },
} as const satisfies Record<string, NumberSetting>;
