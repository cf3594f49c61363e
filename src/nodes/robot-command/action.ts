/**
 * robot-command's actions ({"action": "pause", ...}, what a console's button
 * sends): the robot's last status decides whether the action may be done now
 * (refusalOf) and which command it becomes (commandOf); a refused action is
 * one NOT_ALLOWED error in the runtime's language, and nothing is sent.
 */
import { CHARGING_POINT, type CommandType } from "../../api/cloud/commands";
import { RobotApiError, invalidInput } from "../../api/errors";
import { keptForAccount } from "../../api/account/account-memory";
import { fleetStatusesOf } from "../../api/watching/fleet-statuses";
import { ROBOT_ACTIONS, commandOf, refusalOf, type RobotAction } from "../../api/watching/robot-actions";
import { cleaningModesOf, mapNameOf, readStatus, type StatusReading } from "../../api/watching/status-reader";
import { isPlainObject } from "../shared/plain-data";
import { refusalWords } from "../shared/refusal-words";
import type { RobotCall } from "../shared/robot-input";
import type { ParameterValues } from "./table";

/** A status the account read this recently is taken as the robot's state; an older one is read again. */
export const FRESH_STATUS_MS = 10_000;

const ACTION_FIELDS = new Set(["action", "point", "task", "map", "serialNumber"]);

export function isActionPayload(payload: unknown): payload is Record<string, unknown> {
  return isPlainObject(payload) && "action" in payload;
}

export interface ActionCommand {
  action: RobotAction;
  command: CommandType;
  values: ParameterValues;
}

function textField(payload: Record<string, unknown>, field: string): string | undefined {
  const value = payload[field];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "") throw invalidInput(`payload.${field}`, `must be a non-empty text (got ${JSON.stringify(value) ?? typeof value})`);
  return value.trim();
}

/** When this process last had a command accepted for each robot of an account. */
function commandsSentOf(accountKey: string): Map<string, number> {
  return keptForAccount(accountKey, "commands sent", () => new Map<string, number>());
}

/** A status read before this moment no longer shows what the robot does (its "paused" would refuse a resume). */
export function noteCommandSent(accountKey: string, serialNumber: string): void {
  commandsSentOf(accountKey).set(serialNumber, Date.now());
}

/**
 * The robot's last status: the account's own if read in the last
 * FRESH_STATUS_MS and after the last command this process sent it, else one
 * status call (kept for the others).
 */
async function lastStatusOf(call: RobotCall, serialNumber: string): Promise<Record<string, unknown>> {
  const statuses = fleetStatusesOf(call.client.accountKey);
  const kept = statuses.get(serialNumber);
  const sentAt = commandsSentOf(call.client.accountKey).get(serialNumber) ?? 0;
  if (kept && kept.at > sentAt && Date.now() - kept.at <= FRESH_STATUS_MS) return kept.status;
  const [status] = (await call.client.batchGetStatuses([serialNumber], { line: "s", ...call.options })) as Record<string, unknown>[];
  if (!status) throw new RobotApiError({ kind: "bad_response", operation: "batchGetSRobotStatus", message: `batchGetSRobotStatus: no status of robot ${serialNumber} in the answer` });
  statuses.record([status]);
  return status;
}

/**
 * The command an action becomes for the robot, with its parameters; throws
 * NOT_ALLOWED (the robot's name and the reason in words, cause.refusal) when
 * its state refuses the action, before anything is sent.
 */
export async function commandForAction(
  call: RobotCall,
  payload: Record<string, unknown>,
  serialNumber: string,
  cleaningModeSetting: () => Promise<unknown>,
): Promise<ActionCommand> {
  const unknown = Object.keys(payload).find((key) => !ACTION_FIELDS.has(key));
  if (unknown !== undefined) throw invalidInput(`payload.${unknown}`, `is not a field of an action (use ${[...ACTION_FIELDS].join(", ")})`);
  const action = payload.action as RobotAction;
  if (!ROBOT_ACTIONS.includes(action)) throw invalidInput("payload.action", `must be one of ${ROBOT_ACTIONS.join(", ")} (got ${JSON.stringify(payload.action) ?? String(payload.action)})`);
  const point = textField(payload, "point");
  const task = textField(payload, "task");
  const map = textField(payload, "map");
  if (action === "goTo" && point === undefined) throw invalidInput("payload.point", "is not set (goTo needs the navigation point)");
  if (action === "startTask" && task === undefined) throw invalidInput("payload.task", "is not set (startTask needs the task's name)");

  const status = await lastStatusOf(call, serialNumber);
  const state = readStatus(status);
  const refusal = refusalOf(action, state);
  if (refusal) {
    throw new RobotApiError({
      kind: "not_allowed",
      operation: action,
      message: `${state.displayName ?? serialNumber} ${refusalWords(call.t, refusal)}`,
      lastStatus: status,
      refusal,
    });
  }
  const command = commandOf(action, state);
  return { action, command, values: await valuesFor(action, command, state, status, { point, task, map }, cleaningModeSetting) };
}

async function valuesFor(
  action: RobotAction,
  command: CommandType,
  state: StatusReading,
  status: Record<string, unknown>,
  given: { point?: string; task?: string; map?: string },
  cleaningModeSetting: () => Promise<unknown>,
): Promise<ParameterValues> {
  const map = given.map ?? mapNameOf(status);
  if (command === "START_TASK") {
    // The node's cleaning mode when it has one, else the first the robot offers.
    const cleaningMode = (await cleaningModeSetting()) ?? cleaningModesOf(status)[0];
    return { cleaningMode, taskName: given.task, map, loop: false, loopCount: 1 };
  }
  if (action === "goTo") return { map, position: given.point };
  if (action === "toCharger") return { map, position: CHARGING_POINT };
  // Pause, resume and stop of a navigation name the navigation they act on.
  if (command.endsWith("_NAVIGATE")) return { map, position: state.navigation?.position };
  return {};
}
