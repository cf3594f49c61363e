/**
 * Taking a robot to its charger while it may be cleaning, the same for every
 * caller (robot-command's toCharger action, which the console's "to charger"
 * sends, and Home Assistant's return_to_base through robot-mqtt): where
 * robot-actions.ts says so (toChargerStopsTaskFirst), its task is stopped
 * first, and the stop confirmed, before the caller sends CROSS_NAVIGATE to
 * the charging point and waits for the arrival. A robot that keeps cleaning
 * ignores the navigation, and the cloud still answers WAITING.
 */
import type { RobotClient } from "../client";
import { buildCommandRequest } from "../cloud/command-bodies";
import { commandConfirmationRule } from "./confirmation";
import { confirmationPollerOf, type ConfirmOptions, type Confirmed } from "./confirmation-poller";
import { sentNavigationsOf } from "./navigation";
import { toChargerStopsTaskFirst } from "./robot-actions";
import type { StatusReading } from "./status-reader";

/**
 * Stops the robot's task when it runs or is paused (`state`, read just
 * before), and waits for the robot to show it stopped (task state IDLE):
 * the confirmation, or undefined when there was no task to stop. Throws the
 * call's failure, or NOT_CONFIRMED when the robot does not stop within
 * `options.timeoutMs`: then nothing more is sent.
 */
export async function stopTaskBeforeCharger(
  client: RobotClient,
  serialNumber: string,
  state: StatusReading,
  options: ConfirmOptions,
): Promise<Confirmed | undefined> {
  if (!toChargerStopsTaskFirst(state)) return undefined;
  const body = buildCommandRequest(serialNumber, "STOP_TASK", {});
  const navigations = sentNavigationsOf(client.accountKey);
  try {
    await client.call("submitCommand", body as never, { signal: options.signal });
    navigations.noteReturnBegun(serialNumber);
    return await confirmationPollerOf(client).waitFor(serialNumber, commandConfirmationRule(body)!, options);
  } catch (error) {
    navigations.forgetReturn(serialNumber);
    throw error;
  }
}
