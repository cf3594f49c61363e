/**
 * Carrying out what arrived on a robot's command topics: the vacuum's
 * commands, its fan speed, send_command. Each goes through the account's
 * queue, is confirmed as robot-command's "Send when: the robot shows it"
 * does, and ends in one result {command, ok, reason}.
 */
import type { RobotClient } from "../../api/client";
import { confirmationPollerOf } from "../../api/watching/confirmation-poller";
import { commandConfirmationRule, type CommandBody } from "../../api/watching/confirmation";
import { isNavigating, sentNavigationsOf } from "../../api/watching/navigation";
import { stopTaskBeforeCharger } from "../../api/watching/to-charger";
import { executableTasksOf } from "../../api/watching/status-reader";
import { RobotApiError } from "../../api/errors";
import {
  chooseStartTask,
  isProblem,
  planVacuumCommand,
  readSendCommand,
  readVacuumCommand,
  startCleaningMode,
  withRobotDefaults,
  type PlannedCommand,
  type Problem,
} from "../../api/mqtt/commands";
import { cleaningModeOfFanSpeed, type RobotView } from "../../api/mqtt/robot-view";
import type { InputKind } from "../../api/mqtt/topics";
import { clientModule } from "../shared/api";
import { buildCommandRequest, fieldsOf } from "../../api/cloud/command-bodies";
import { CONFIRM_TIMEOUT } from "../shared/confirm-table";
import { startJob, type BridgeResult } from "./jobs";

export interface CommandContext {
  client: RobotClient;
  signal: AbortSignal;
  /** The robot as last read; undefined when the account has no such robot (as far as the bridge knows). */
  view: RobotView | undefined;
  /** The cleaning mode set for the robot by set_fan_speed, if any. */
  chosenMode: string | undefined;
  chooseMode(mode: string): void;
  /** The node's "Start task" per map. */
  startTasks: ReadonlyMap<string, string>;
  confirmTimeoutMs?: number;
  /** A status read for this command (before it, or the one that confirmed it): the bridge shows it at once. */
  seen(status: Record<string, unknown>): RobotView;
}

/** The robot as it is now: a command planned on a poll up to an interval old would act on a state that is gone. */
async function freshView(context: CommandContext, serialNumber: string): Promise<RobotView> {
  const statuses = await context.client.batchGetStatuses([serialNumber], { line: "s", signal: context.signal });
  return statuses[0] ? context.seen(statuses[0]) : context.view!;
}

/** What ended: a result to publish, or a problem for the bridge to warn about (and answer). */
export type Outcome = { result: BridgeResult; problem?: Problem["problem"] };

function refused(command: string, problem: Problem): Outcome {
  return { result: { command, ok: false, reason: problem.reason }, problem: problem.problem };
}

/** The command a result names for an input topic (the vacuum's command topic: its payload, where it is read). */
export function resultCommandOf(input: InputKind): string {
  return { command: "command", fanSpeed: "set_fan_speed", sendCommand: "send_command", cleanSegments: "clean_segments" }[input];
}

export async function carryOut(input: Exclude<InputKind, "cleanSegments">, text: string, context: CommandContext): Promise<Outcome> {
  let { view } = context;
  const asked = input === "command" ? text.trim().slice(0, 40) : resultCommandOf(input);
  if (!view) return refused(asked, { problem: "robot", reason: "the robot is not one of the account's robots the bridge publishes" });
  switch (input) {
    case "fanSpeed": {
      const mode = cleaningModeOfFanSpeed(view, text);
      if (mode === undefined) return refused(asked, { problem: "fanSpeed", reason: `"${text.slice(0, 100)}" is not a cleaning mode of the robot (${view.cleaningModes.join(", ")})` });
      context.chooseMode(mode);
      return { result: { command: asked, ok: true, reason: `the next start cleans with ${mode}` } };
    }
    case "command": {
      const read = readVacuumCommand(text);
      if (isProblem(read)) return refused(asked, read);
      view = await freshView(context, view.serialNumber);
      let start;
      if (read.command === "start" && view.state.taskState !== "PAUSED" && isNavigating(view.state) !== true) {
        const statuses = await context.client.batchGetStatuses([view.serialNumber], { line: "v1", signal: context.signal });
        const task = chooseStartTask(view, executableTasksOf(statuses[0] ?? {}) ?? [], context.startTasks);
        if (isProblem(task)) return refused(asked, task);
        start = { task, cleaningMode: startCleaningMode(view, context.chosenMode) };
      }
      const planned = planVacuumCommand(read.command, view, start, sentNavigationsOf(context.client.accountKey).lastSent(view.serialNumber)?.position);
      if (isProblem(planned)) return refused(asked, planned);
      return read.command === "return_to_base" ? toCharger(planned, view, context) : send(planned, view, context);
    }
    case "sendCommand": {
      const read = readSendCommand(text);
      if (isProblem(read)) return refused(asked, read);
      if (read.form === "job") return { result: await startJob(context.client, view.serialNumber, read.job, context.signal, context.confirmTimeoutMs) };
      const takes = fieldsOf(read.command);
      const unknown = Object.keys(read.parameters).find((key) => !(takes as string[]).includes(key));
      if (unknown !== undefined) {
        return refused(read.command, { problem: "command", reason: `${unknown} is not a parameter of ${read.command} (${takes.length ? `it takes ${takes.join(", ")}` : "it takes none"})` });
      }
      view = await freshView(context, view.serialNumber);
      return send(withRobotDefaults({ command: read.command, parameters: read.parameters }, view, context.chosenMode ?? view.cleaningModes[0]), view, context);
    }
  }
}

/**
 * return_to_base: a task the robot runs or has paused is stopped, and the stop
 * confirmed, before it is sent to the charger (to-charger.ts, as robot-command's
 * toCharger does); one result, naming the step that failed.
 */
async function toCharger(planned: PlannedCommand, view: RobotView, context: CommandContext): Promise<Outcome> {
  let stopped;
  try {
    const options = { timeoutMs: context.confirmTimeoutMs ?? CONFIRM_TIMEOUT.default * 1000, signal: context.signal, operation: "return_to_base" };
    stopped = await stopTaskBeforeCharger(context.client, view.serialNumber, view.state, options);
  } catch (error) {
    return { result: { command: "STOP_TASK", ok: false, reason: failureReason(error) } };
  }
  if (!stopped) return send(planned, view, context);
  const outcome = await send(planned, context.seen(stopped.status), context);
  outcome.result.reason = `task stopped (${stopped.state} after ${Math.round(stopped.seconds)} s), then ${outcome.result.reason}`;
  return outcome;
}

function failureReason(error: unknown): string {
  return error instanceof RobotApiError ? `${error.code}: ${error.message}` : String(error);
}

/** Sends the command and waits for the robot to show it; a refusal or failure is the result's reason. */
async function send(planned: PlannedCommand, view: RobotView, context: CommandContext): Promise<Outcome> {
  const serialNumber = view.serialNumber;
  let prepared;
  try {
    prepared = clientModule().prepareCall("submitCommand", buildCommandRequest(serialNumber, planned.command, planned.parameters), {
      nameOf: (path) => path.filter((key) => key !== "commandParameter" && !String(key).endsWith("Parameter")).join("."),
    });
  } catch (error) {
    return { result: { command: planned.command, ok: false, reason: error instanceof Error ? error.message : String(error) }, problem: "command" };
  }
  try {
    await context.client.send(prepared, { signal: context.signal });
    const rule = commandConfirmationRule(JSON.parse(prepared.body!) as CommandBody, context.client.arrivalRadius);
    if (!rule) return { result: { command: planned.command, ok: true, reason: "accepted (nothing in a status shows it)" } };
    const timeoutMs = context.confirmTimeoutMs ?? CONFIRM_TIMEOUT.default * 1000;
    const confirmed = await confirmationPollerOf(context.client).waitFor(serialNumber, rule, { timeoutMs, signal: context.signal, operation: "submitCommand" });
    context.seen(confirmed.status);
    return { result: { command: planned.command, ok: true, reason: `${confirmed.state} after ${Math.round(confirmed.seconds)} s` } };
  } catch (error) {
    return { result: { command: planned.command, ok: false, reason: failureReason(error) } };
  }
}
