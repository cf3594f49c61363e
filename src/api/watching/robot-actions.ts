/**
 * What a person may ask of a robot in the state its last status shows, and,
 * for what it may not, why, in words: the console offers only the allowed
 * buttons, and a command that was sent but not carried out names the reason
 * (NOT_CONFIRMED). Pure: a state in, a choice out.
 */
import { CHARGING_POINT, type CommandType } from "../cloud/commands";
import type { StatusReading } from "./status-reader";
import { isNavigating } from "./navigation";

export const ROBOT_ACTIONS = ["startTask", "goTo", "toCharger", "pause", "resume", "stop"] as const;
export type RobotAction = (typeof ROBOT_ACTIONS)[number];

/** Why an action cannot be done now; `task` and `point` name what the robot is busy with. */
export type ActionRefusal =
  | {
      code:
        | "offline"
        | "emergencyStop"
        | "lost"
        | "nothingToPause"
        | "alreadyPaused"
        | "nothingToResume"
        | "nothingToStop"
        | "remoteControl"
        | "alreadyCharging"
        | "noChargerKnown";
    }
  | { code: "busyWithTask" | "taskPaused"; task?: string }
  | { code: "busyNavigating"; point?: string };

/**
 * What the robot is doing, as far as actions go. A navigation is navStatus
 * other than NAVI_IDLE, an unknown value included (navigation.ts); no status
 * tells a paused navigation from a driving one, nor where it goes.
 */
type Activity = "task" | "taskPaused" | "navigating" | "idle";

function activityOf(state: StatusReading): Activity {
  if (state.taskState === "RUNNING") return "task";
  if (state.taskState === "PAUSED") return "taskPaused";
  if (isNavigating(state) === true) return "navigating";
  return "idle";
}

/** What keeps a robot from any command: offline, its emergency stop, remote control. */
export function stateRefusal(state: StatusReading): ActionRefusal | undefined {
  if (state.online === false) return { code: "offline" };
  if (state.emergencyStop === true) return { code: "emergencyStop" };
  if (state.remoteControl === true) return { code: "remoteControl" };
  return undefined;
}

/** Why `action` cannot be done in `state`, or undefined when it can. */
export function refusalOf(action: RobotAction, state: StatusReading): ActionRefusal | undefined {
  const refusal = stateRefusal(state);
  if (refusal) return refusal;
  const activity = activityOf(state);
  const task = state.taskName ? { task: state.taskName } : {};
  const busy = (): ActionRefusal =>
    activity === "task"
      ? { code: "busyWithTask", ...task }
      : activity === "taskPaused"
        ? { code: "taskPaused", ...task }
        : { code: "busyNavigating" };
  switch (action) {
    case "startTask":
    case "goTo":
      if (activity !== "idle") return busy();
      if (state.localizationState === "LOST") return { code: "lost" };
      return undefined;
    case "toCharger":
      // A task is stopped first (toChargerStopsTaskFirst); a navigation is the person's to end, as for goTo.
      if (activity === "navigating") return busy();
      if (state.localizationState === "LOST") return { code: "lost" };
      if (state.charging === true) return { code: "alreadyCharging" };
      return undefined;
    case "pause":
      return activity === "task" || activity === "navigating"
        ? undefined
        : { code: activity === "idle" ? "nothingToPause" : "alreadyPaused" };
    case "resume":
      // A navigation may be paused: the status cannot say, so resuming it is offered while one runs.
      return activity === "taskPaused" || activity === "navigating"
        ? undefined
        : activity === "idle"
          ? { code: "nothingToResume" }
          : busy();
    case "stop":
      return activity === "idle" ? { code: "nothingToStop" } : undefined;
  }
}

/**
 * Whether taking the robot to its charger begins by stopping its task: one
 * that runs or is paused ignores CROSS_NAVIGATE (it keeps cleaning, and the
 * cloud still answers WAITING), and the cloud has no command that ends a
 * task at the charger (docs/cloud-api.md). The one rule robot-command's
 * toCharger (the console's "to charger") and Home Assistant's return_to_base
 * follow (to-charger.ts carries it out).
 */
export function toChargerStopsTaskFirst(state: StatusReading): boolean {
  const activity = activityOf(state);
  return activity === "task" || activity === "taskPaused";
}

/** The charger is its map's point `charging`: with no map known there is none to drive to, and nothing is sent (nor stopped). */
export const NO_CHARGER_KNOWN: ActionRefusal = { code: "noChargerKnown" };

/** The actions `state` allows, in ROBOT_ACTIONS order. */
export function allowedActions(state: StatusReading): RobotAction[] {
  return ROBOT_ACTIONS.filter((action) => refusalOf(action, state) === undefined);
}

/**
 * The command an action becomes for a robot in `state`: pause, resume and
 * stop act on what it is doing (its task or its navigation).
 */
export function commandOf(action: RobotAction, state: StatusReading): CommandType {
  const navigating = activityOf(state) === "navigating";
  switch (action) {
    case "startTask":
      return "START_TASK";
    case "goTo":
    case "toCharger":
      return "CROSS_NAVIGATE";
    case "pause":
      return navigating ? "PAUSE_NAVIGATE" : "PAUSE_TASK";
    case "resume":
      return navigating ? "RESUME_NAVIGATE" : "RESUME_TASK";
    case "stop":
      return navigating ? "STOP_NAVIGATE" : "STOP_TASK";
  }
}

/** The action a command stands for, to find why a robot did not carry it out. */
const ACTION_OF_COMMAND: Partial<Record<CommandType, RobotAction>> = {
  START_TASK: "startTask",
  CROSS_NAVIGATE: "goTo",
  PAUSE_TASK: "pause",
  PAUSE_NAVIGATE: "pause",
  RESUME_TASK: "resume",
  RESUME_NAVIGATE: "resume",
  STOP_TASK: "stop",
  STOP_NAVIGATE: "stop",
};

/** Why a robot in `state` would not carry out `command`, when its state says. */
export function commandRefusal(command: CommandType, state: StatusReading): ActionRefusal | undefined {
  const action = ACTION_OF_COMMAND[command];
  return action ? refusalOf(action, state) : undefined;
}

/** A refusal in English words, after the robot's name ("is cleaning Lobby: pause or stop it first"). */
export function refusalText(refusal: ActionRefusal): string {
  switch (refusal.code) {
    case "offline":
      return "is offline";
    case "emergencyStop":
      return "has its emergency stop pressed: release it on the robot first";
    case "lost":
      return "is lost (not localized): relocalize it first";
    case "remoteControl":
      return "is under remote control: end it first";
    case "alreadyCharging":
      return "is already charging";
    case "noChargerKnown":
      return "is on no map known, so its charger is not known";
    case "nothingToPause":
      return "is not cleaning or driving: nothing to pause";
    case "alreadyPaused":
      return "is paused already";
    case "nothingToResume":
      return "has nothing paused to resume";
    case "nothingToStop":
      return "is idle: nothing to stop";
    case "busyWithTask":
      return `is cleaning${refusal.task ? ` ${refusal.task}` : ""}: pause or stop it first`;
    case "taskPaused":
      return `has ${refusal.task ?? "a task"} paused: resume or stop it first`;
    case "busyNavigating":
      return `is driving${refusal.point ? ` to ${refusal.point === CHARGING_POINT ? "its charger" : refusal.point}` : ""}: pause or stop it first`;
  }
}
