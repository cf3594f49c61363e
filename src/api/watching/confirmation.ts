/**
 * What "the robot shows it" means for each command: the status a command's
 * effect is seen in. The cloud accepts a command (state WAITING) before the
 * robot acts on it, and a robot busy with a task ignores a new start (field
 * notes), so a flow that must know waits for these. One table, read by the
 * nodes, the help and the tests.
 */
import { commandTypeOf, type CommandType, CHARGING_POINT } from "../cloud/commands";
import { commandRefusal } from "./robot-actions";
import type { ConfirmationRule } from "./confirmation-poller";
import type { StatusReading } from "./status-reader";

/** The request fields a rule needs: the command's own body (Endpoint A). */
export interface CommandBody {
  remoteTaskCommandType?: string;
  remoteNavigationCommandType?: string;
  remoteControlCommandType?: string;
  commandParameter?: {
    startTaskParameter?: { task?: { name?: string } };
    startNavigationParameter?: { position?: string };
  };
}

/** Running, and when the status names the running task, the task asked for (not one that was already running). */
function runningTask(name: string | undefined): ConfirmationRule {
  return {
    expects: name ? `task state RUNNING with task "${name}"` : "task state RUNNING",
    confirmedBy: (state) => {
      if (state.taskState !== "RUNNING") return undefined;
      if (name && state.taskName !== undefined && state.taskName !== name) return undefined;
      return "RUNNING";
    },
  };
}

function taskState(wanted: string): ConfirmationRule {
  return { expects: `task state ${wanted}`, confirmedBy: (state) => (state.taskState === wanted ? wanted : undefined) };
}

/**
 * At the target: the status's navigation says ARRIVED there (where the cloud
 * reports navigation, as the simulator's B1 does), or, for the charging
 * point, the battery is charging (every status shows that).
 */
function arrivedAt(position: string | undefined): ConfirmationRule {
  return {
    expects: position === CHARGING_POINT ? `arrival at "charging" (or the battery charging)` : `navigation ARRIVED at "${position ?? "?"}"`,
    confirmedBy: (state: StatusReading) => {
      if (state.navigation?.state === "ARRIVED" && state.navigation.position === position) return `ARRIVED at ${position}`;
      if (position === CHARGING_POINT && state.charging === true) return "charging";
      return undefined;
    },
  };
}

function navigationState(wanted: string): ConfirmationRule {
  return { expects: `navigation ${wanted}`, confirmedBy: (state) => (state.navigation?.state === wanted ? wanted : undefined) };
}

function remoteControl(on: boolean): ConfirmationRule {
  const word = on ? "remote control on" : "remote control off";
  return { expects: word, confirmedBy: (state) => (state.remoteControl === on ? word : undefined) };
}

/** The rule of each command; REMOTE_CONTROL_MOVE has none (no status shows one step). */
const RULES: Record<CommandType, ((body: CommandBody) => ConfirmationRule) | undefined> = {
  START_TASK: (body) => runningTask(body.commandParameter?.startTaskParameter?.task?.name),
  RESUME_TASK: () => taskState("RUNNING"),
  PAUSE_TASK: () => taskState("PAUSED"),
  STOP_TASK: () => taskState("IDLE"),
  CROSS_NAVIGATE: (body) => arrivedAt(body.commandParameter?.startNavigationParameter?.position),
  RESUME_NAVIGATE: (body) => arrivedAt(body.commandParameter?.startNavigationParameter?.position),
  PAUSE_NAVIGATE: () => navigationState("PAUSED"),
  STOP_NAVIGATE: () => navigationState("STOPPED"),
  REMOTE_CONTROL_START: () => remoteControl(true),
  REMOTE_CONTROL_STOP: () => remoteControl(false),
  REMOTE_CONTROL_MOVE: undefined,
};

/** The rule for a command body, or undefined when its effect cannot be seen in a status. */
export function commandConfirmationRule(body: CommandBody): ConfirmationRule | undefined {
  const type = commandTypeOf(body) as CommandType | undefined;
  const rule = type && RULES[type] ? RULES[type](body) : undefined;
  if (!type || !rule) return undefined;
  const target = body.commandParameter?.startNavigationParameter?.position;
  return {
    ...rule,
    // A robot still driving to the point it was sent to is on its way, not refusing.
    refusal: (state) =>
      type === "CROSS_NAVIGATE" && state.navigation?.state === "NAVIGATING" && state.navigation.position === target
        ? undefined
        : commandRefusal(type, state),
  };
}

/** A temporary site task (B3, B4) shows as a running task, with its name when the status gives one. */
export function tempTaskConfirmationRule(taskName: string | undefined): ConfirmationRule {
  return { ...runningTask(taskName), refusal: (state) => commandRefusal("START_TASK", state) };
}
