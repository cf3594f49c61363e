/**
 * Whether a robot can do what it is told: carry out a command that falls due,
 * or start a task. The simulator's choices, as the field notes leave them open.
 */
import { CRITICAL_BATTERY_PERCENT } from "../pushes/incidents";
import type { SimRobot } from "./fleet";

/**
 * Whether a robot carries out a command that falls due: not while offline (it
 * does not hear it), its emergency stop pressed, or lost. The simulator's
 * choice; what the cloud does then is not known.
 */
export function canAct(robot: SimRobot): boolean {
  return robot.online && !robot.emergencyStop && robot.localization.state !== "LOST";
}

/**
 * Below this battery a robot starts no task (it fails to start): where the
 * simulator raises its critical-battery alarm. The simulator's choice; the
 * real threshold is not published.
 */
export const LOW_BATTERY_PERCENT = CRITICAL_BATTERY_PERCENT;

/** Why the robot cannot start a task now (offline, emergency stop, lost, battery low), or undefined when it can. */
export function notReadyFor(robot: SimRobot): string | undefined {
  if (!robot.online) return "is offline";
  if (robot.emergencyStop) return "has its emergency stop pressed";
  if (robot.localization.state === "LOST") return "is not localized (LOST)";
  if (robot.battery.powerPercentage < LOW_BATTERY_PERCENT)
    return `has ${robot.battery.powerPercentage} % battery, below ${LOW_BATTERY_PERCENT} %`;
  return undefined;
}
