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
import { DEFAULT_ARRIVAL_RADIUS_CELLS, MOVE_CELLS, MoveWatch, NAVI_IDLE, NavigationFollower, isNavigating } from "./navigation";

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
 * At the point (navigation.ts): within the arrival radius of its grid cell,
 * or navStatus back to NAVI_IDLE after leaving it; for the charging point,
 * also the battery charging (every status shows that). The rule follows this
 * one navigation, so it is made for one wait.
 */
function arrivedAt(command: CommandType, point: string | undefined, arrivalRadius: number): ConfirmationRule {
  const navigation = new NavigationFollower(point, arrivalRadius);
  return {
    get expects() {
      const arrival = navigation.expectsArrival();
      return point === CHARGING_POINT ? `${arrival}, or the battery charging` : arrival;
    },
    confirmedBy: (state: StatusReading) => {
      const progress = navigation.see(state);
      if (progress.phase === "arrived") return progress.shown;
      if (point === CHARGING_POINT && state.charging === true) return "charging";
      return undefined;
    },
    // A robot on its way (navStatus left NAVI_IDLE, or it came closer) is carrying the command out, not refusing it.
    refusal: (state) => (navigation.started ? undefined : commandRefusal(command, state)),
  };
}

/** A resumed navigation names no point (no status says where a navigation goes): under way again is what shows. */
function underWayAgain(point: string | undefined, arrivalRadius: number): ConfirmationRule {
  if (point !== undefined) return arrivedAt("RESUME_NAVIGATE", point, arrivalRadius);
  const moves = new MoveWatch();
  return {
    expects: `navStatus other than ${NAVI_IDLE}, or the robot moving ${MOVE_CELLS} cell or more between two statuses`,
    confirmedBy: (state) => {
      const moved = moves.see(state);
      return isNavigating(state) === true || moved === "moving" ? "NAVIGATING" : undefined;
    },
  };
}

/**
 * A paused navigation: the robot standing still in two statuses in a row,
 * its navStatus, where the status gives one, not NAVI_IDLE (the navigation
 * is paused, not over). The cloud publishes no paused navStatus.
 */
function navigationPaused(): ConfirmationRule {
  const moves = new MoveWatch();
  return {
    expects: `the robot standing still, less than ${MOVE_CELLS} cell apart in two statuses in a row, with navStatus, where given, other than ${NAVI_IDLE}`,
    confirmedBy: (state) => (moves.see(state) === "still" && isNavigating(state) !== false ? "PAUSED" : undefined),
  };
}

/**
 * A stopped navigation: navStatus NAVI_IDLE where the status gives one, and
 * the robot standing still in two statuses in a row.
 */
function navigationStopped(): ConfirmationRule {
  const moves = new MoveWatch();
  return {
    expects: `navStatus ${NAVI_IDLE} where the status gives one, and the robot standing still, less than ${MOVE_CELLS} cell apart in two statuses in a row`,
    confirmedBy: (state) => (moves.see(state) === "still" && isNavigating(state) !== true ? "STOPPED" : undefined),
  };
}

function remoteControl(on: boolean): ConfirmationRule {
  const word = on ? "remote control on" : "remote control off";
  return { expects: word, confirmedBy: (state) => (state.remoteControl === on ? word : undefined) };
}

/** The rule of each command, made for one wait; REMOTE_CONTROL_MOVE has none (no status shows one step). */
const RULES: Record<CommandType, ((body: CommandBody, arrivalRadius: number) => ConfirmationRule) | undefined> = {
  START_TASK: (body) => runningTask(body.commandParameter?.startTaskParameter?.task?.name),
  RESUME_TASK: () => taskState("RUNNING"),
  PAUSE_TASK: () => taskState("PAUSED"),
  STOP_TASK: () => taskState("IDLE"),
  CROSS_NAVIGATE: (body, arrivalRadius) =>
    arrivedAt("CROSS_NAVIGATE", body.commandParameter?.startNavigationParameter?.position, arrivalRadius),
  RESUME_NAVIGATE: (body, arrivalRadius) => underWayAgain(body.commandParameter?.startNavigationParameter?.position, arrivalRadius),
  PAUSE_NAVIGATE: () => navigationPaused(),
  STOP_NAVIGATE: () => navigationStopped(),
  REMOTE_CONTROL_START: () => remoteControl(true),
  REMOTE_CONTROL_STOP: () => remoteControl(false),
  REMOTE_CONTROL_MOVE: undefined,
};

/**
 * The rule for a command body, made for one wait (a navigation's rule
 * remembers the statuses it saw), or undefined when its effect cannot be seen
 * in a status. `arrivalRadius`: grid cells (robot-config's arrivalRadius).
 */
export function commandConfirmationRule(
  body: CommandBody,
  arrivalRadius: number = DEFAULT_ARRIVAL_RADIUS_CELLS,
): ConfirmationRule | undefined {
  const type = commandTypeOf(body) as CommandType | undefined;
  const rule = type && RULES[type] ? RULES[type](body, arrivalRadius) : undefined;
  if (!type || !rule) return undefined;
  // The rule's own getters (a navigation's expects) stay live: the command's refusal is added where it has none.
  if (!rule.refusal) rule.refusal = (state) => commandRefusal(type, state);
  return rule;
}

/** A temporary site task (B3, B4) shows as a running task, with its name when the status gives one. */
export function tempTaskConfirmationRule(taskName: string | undefined): ConfirmationRule {
  return { ...runningTask(taskName), refusal: (state) => commandRefusal("START_TASK", state) };
}
