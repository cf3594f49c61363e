/**
 * "Send the message when the robot shows it": the setting robot-command and
 * robot-site-task share, and the wait itself, through the account's one
 * confirmation poller (src/api/watching/watcher.ts).
 */
import type { RobotApiError } from "../../api/errors";
import { readNumberSetting } from "../../api/settings/input-rules";
import { confirmationPollerOf, type ConfirmationRule } from "../../api/watching/confirmation-poller";
import { confirmStart, factsBeforeStart, type StartConfirmed, type StartFacts } from "../../api/jobs/task-report";
import { reportsOfAccount } from "../../api/reports/report-store";
import { fleetStatusesOf } from "../../api/watching/fleet-statuses";
import type { ReadReport } from "../../api/reports/reading";
import type { RobotClient } from "../../api/client";
import type { RobotCall, WaitingHow } from "./robot-input";
import { CONFIRM_TIMEOUT } from "./confirm-table";
import { rewordNotConfirmed } from "./refusal-words";

/**
 * msg.confirmation: what the status showed and how long after the answer;
 * "not watched" for a command with no visible effect; "ENDED" with the task's
 * report for a task that ran and ended between two status reads.
 */
export interface Confirmation {
  state: string;
  seconds: number;
  report?: ReadReport;
}

/** The facts a task start's report is chosen by, taken before the start is sent (api/jobs/task-report.ts). */
export function startFactsOf(client: RobotClient, serialNumber: string): StartFacts {
  return factsBeforeStart(reportsOfAccount(client.accountKey), fleetStatusesOf(client.accountKey), serialNumber);
}

/** A timeout from the dialog (seconds); an empty field takes the default, anything else out of range is an error. */
export function confirmTimeoutMs(raw: string | number | undefined, field = "confirmTimeout"): number {
  return readNumberSetting(raw, field, CONFIRM_TIMEOUT) * 1000;
}

/**
 * Waits until the robot shows what `rule` expects, through the account's one
 * confirmation poller (batched status reads, at most one per robot per
 * interval); `Confirmed` becomes msg.confirmation, NOT_CONFIRMED an error.
 * `how` says what the answer told of the command (delivered, not started):
 * the status under the node shows it while it waits. `start`, for a task
 * start: its task's report confirms it too (a task over between two reads),
 * or, one of a task that failed to start, ends the wait NOT_CONFIRMED.
 */
export async function confirmOnRobot(
  call: RobotCall,
  serialNumber: string,
  rule: ConfirmationRule | undefined,
  timeoutMs: number,
  operation: string,
  how?: WaitingHow,
  start?: StartFacts,
): Promise<Confirmation> {
  if (!rule) return { state: "not watched", seconds: 0 };
  const onMissedLook = (failure: RobotApiError) => {
    if (failure.kind === "internal") call.log.error(failure);
    else call.log.warn(`${operation} on ${serialNumber}: a status read failed (${failure.code}: ${failure.message}); still waiting for the robot to show it`);
  };
  const options = { timeoutMs, signal: call.options.signal, operation, onMissedLook };
  const waiting: Promise<StartConfirmed> = start ? confirmStart(call.client, start, rule, options) : confirmationPollerOf(call.client).waitFor(serialNumber, rule, options);
  let confirmed;
  try {
    confirmed = await call.waitForRobot(waiting, how);
  } catch (error) {
    // The reason a robot did not act is read by a person: in the runtime's language.
    rewordNotConfirmed(call.t, error, serialNumber, timeoutMs, rule.expects);
    throw error;
  }
  return { state: confirmed.state, seconds: confirmed.seconds, ...(confirmed.report ? { report: confirmed.report } : {}) };
}

/**
 * The node's timeout setting, read once at deploy: a function that gives it,
 * or throws the setting's problem with each message that needs it (a node
 * cannot refuse to deploy).
 */
export function configuredConfirmTimeout(raw: string | number | undefined): () => number {
  try {
    const ms = confirmTimeoutMs(raw);
    return () => ms;
  } catch (error) {
    return () => {
      throw error;
    };
  }
}

/** The message out: msg.payload the answer, and msg.confirmation when the robot was watched. */
export function messageWithConfirmation<Msg extends { payload?: unknown }>(msg: Msg, payload: unknown, confirmation: Confirmation | undefined): Msg {
  msg.payload = payload;
  if (confirmation) (msg as Record<string, unknown>).confirmation = confirmation;
  return msg;
}
