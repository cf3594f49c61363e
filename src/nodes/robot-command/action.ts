/**
 * robot-command's actions ({"action": "pause", ...}, what a console's button
 * sends): the robot's last status decides whether the action may be done now
 * (refusalOf) and which command it becomes (commandOf); a refused action is
 * one NOT_ALLOWED error in the runtime's language, and nothing is sent.
 */
import { robotDirectoryOf, robotNameOf } from "../../api/account/robot-directory";
import { CHARGING_POINT, type CommandType } from "../../api/cloud/commands";
import { RobotApiError, invalidInput } from "../../api/errors";
import { fleetStatusesOf } from "../../api/watching/fleet-statuses";
import { NO_CHARGER_KNOWN, ROBOT_ACTIONS, commandOf, refusalOf, type RobotAction } from "../../api/watching/robot-actions";
import { sentNavigationsOf } from "../../api/watching/navigation";
import { cleaningModesOf, mapNameOf, readStatus, type StatusReading } from "../../api/watching/status-reader";
import { isPlainObject } from "../shared/plain-data";
import { refusalWords } from "../shared/refusal-words";
import type { RobotCall } from "../shared/robot-input";
import { RUN_ONCE, type ParameterValues } from "../../api/cloud/command-bodies";
import { inputProblem, notOneOf } from "../../api/settings/input-problems";

const ACTION_FIELDS = new Set(["action", "point", "task", "map", "serialNumber"]);

export function isActionPayload(payload: unknown): payload is Record<string, unknown> {
  return isPlainObject(payload) && "action" in payload;
}

export interface ActionCommand {
  action: RobotAction;
  command: CommandType;
  values: ParameterValues;
  /** The robot's state the action was decided on (toCharger stops a task first: to-charger.ts). */
  state: StatusReading;
}

function textField(payload: Record<string, unknown>, field: string): string | undefined {
  const value = payload[field];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "") throw invalidInput(`payload.${field}`, `must be a non-empty text (got ${JSON.stringify(value) ?? typeof value})`);
  return value.trim();
}

/**
 * The robot's state as the action arrives: one status call (kept for the
 * others). A kept status may be seconds old, and a person who clicked on
 * what a console showed then must hear why the robot cannot, not wait for a
 * command it will ignore; an action is a person's or a sensor's, not a stream.
 */
async function lastStatusOf(call: RobotCall, serialNumber: string): Promise<Record<string, unknown>> {
  const statuses = fleetStatusesOf(call.client.accountKey);
  const [status] = (await call.client.batchGetStatuses([serialNumber], { line: "s", ...call.options })) as Record<string, unknown>[];
  if (!status) throw new RobotApiError({ kind: "bad_response", operation: "batchGetSRobotStatus", message: `batchGetSRobotStatus: no status of robot ${serialNumber} in the answer` });
  statuses.record([status]);
  // The S-line read with what only a v1 read carries (navStatus, a watching node's): the state the console showed.
  return statuses.get(serialNumber)?.status ?? status;
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
  if (!ROBOT_ACTIONS.includes(action)) throw invalidInput("payload.action", notOneOf(ROBOT_ACTIONS, payload.action));
  const point = textField(payload, "point");
  const task = textField(payload, "task");
  const map = textField(payload, "map");
  if (action === "goTo" && point === undefined) throw invalidInput("payload.point", inputProblem("goToPointNotSet"));
  if (action === "startTask" && task === undefined) throw invalidInput("payload.task", inputProblem("startTaskNameNotSet"));

  const status = await lastStatusOf(call, serialNumber);
  const state = readStatus(status);
  const noCharger = action === "toCharger" && (map ?? mapNameOf(status)) === undefined;
  const refusal = refusalOf(action, state) ?? (noCharger ? NO_CHARGER_KNOWN : undefined);
  if (refusal) {
    // A refusal just after a deploy names the robot as the list does, once the list's first read is in.
    await robotDirectoryOf(call.client.accountKey).settled();
    throw new RobotApiError({
      kind: "not_allowed",
      operation: action,
      message: `${robotNameOf(call.client.accountKey, serialNumber)} ${refusalWords(call.t, refusal)}`,
      lastStatus: status,
      refusal,
    });
  }
  const command = commandOf(action, state);
  const sentTo = sentNavigationsOf(call.client.accountKey).lastSent(serialNumber)?.position;
  return { action, command, state, values: await valuesFor(action, command, status, { point, task, map, sentTo }, cleaningModeSetting) };
}

async function valuesFor(
  action: RobotAction,
  command: CommandType,
  status: Record<string, unknown>,
  given: { point?: string; task?: string; map?: string; sentTo?: string },
  cleaningModeSetting: () => Promise<unknown>,
): Promise<ParameterValues> {
  const map = given.map ?? mapNameOf(status);
  if (command === "START_TASK") {
    // The node's cleaning mode when it has one, else the first the robot offers.
    const cleaningMode = (await cleaningModeSetting()) ?? cleaningModesOf(status)[0];
    return { cleaningMode, taskName: given.task, map, ...RUN_ONCE };
  }
  if (action === "goTo") return { map, position: given.point };
  if (action === "toCharger") return { map, position: CHARGING_POINT };
  // Pause, resume and stop of a navigation name the navigation they act on: no status says where it goes, so where the package sent the robot.
  if (command.endsWith("_NAVIGATE")) return { map, position: given.sentTo };
  return {};
}
