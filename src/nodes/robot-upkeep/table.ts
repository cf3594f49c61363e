/** robot-upkeep's settings: their defaults and bounds, in the units the dialog shows. */
import type { NumberSetting } from "../../api/settings/input-rules";

export const UPKEEP_LIMITS = {
  /** Minutes between reads of the robots' upkeep; 0: only when a message asks. */
  every: { default: 60, min: 0, max: 1440, integer: false, unit: "min" },
  /** Share of a wear part's life left under which it is due (the 10 %). */
  partDue: { default: 10, min: 0, max: 100, integer: false, unit: "%" },
  /** Clean water level under which a person must fill the tank before the robot's next task. */
  cleanWaterLow: { default: 15, min: 0, max: 100, integer: false, unit: "%" },
  /** Recovery (dirty) water level over which a person must empty the tank. */
  recoveryWaterHigh: { default: 85, min: 0, max: 100, integer: false, unit: "%" },
  /**
   * The hottest battery cell over which the battery has left normal: 45 °C is the upper charging limit in the data
   * sheets of common lithium-ion cells (charging stops and the cells age fast above it), reached well before
   * the pack's protection cuts out near 60 °C.
   */
  hottestCell: { default: 45, min: 0, max: 100, integer: false, unit: "°C" },
} as const satisfies Record<string, NumberSetting>;
