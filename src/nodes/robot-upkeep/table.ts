/** robot-upkeep's settings: their defaults (those of the upkeep table and of what needs a person) and bounds, in the units the dialog shows. */
import type { NumberSetting } from "../../api/settings/input-rules";
import { DEFAULT_UPKEEP_LIMITS } from "../../api/upkeep/attention";
import { DEFAULT_THRESHOLD } from "../../api/upkeep/table";

export const UPKEEP_LIMITS = {
  /** Whole minutes between reads of the robots' upkeep (each read writes the context); 0: only when a message asks. */
  every: { default: 60, min: 0, max: 1440, integer: true, unit: "min" },
  /** Share of a wear part's life left (%) at or under which it is due. */
  partDue: { default: DEFAULT_THRESHOLD * 100, min: 0, max: 100, integer: false, unit: "%" },
  /** Clean water level under which a person must fill the tank before the robot's next task. */
  cleanWaterBelow: { default: DEFAULT_UPKEEP_LIMITS.cleanWaterBelow, min: 0, max: 100, integer: false, unit: "%" },
  /** Recovery (dirty) water level over which a person must empty the tank. */
  recoveryWaterAbove: { default: DEFAULT_UPKEEP_LIMITS.recoveryWaterAbove, min: 0, max: 100, integer: false, unit: "%" },
  /**
   * The hottest battery cell over which the battery has left normal. The default, 55 °C: common lithium-ion cells
   * are made to discharge up to 60 °C, where a pack's protection cuts out; a pack that works or charges runs at
   * 30-45 °C, so 55 °C is out of normal without a notice for every busy robot.
   */
  batteryHotAbove: { default: DEFAULT_UPKEEP_LIMITS.batteryHotAbove, min: 0, max: 100, integer: false, unit: "°C" },
} as const satisfies Record<string, NumberSetting>;
