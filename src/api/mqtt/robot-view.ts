/**
 * What the bridge shows of one robot (pure): the parts of its status Home
 * Assistant's entities read, the vacuum's state from them, the cleaning modes
 * as fan speeds, and the problem and alarm sensors.
 */
import { readableCleaningMode } from "../cloud/cleaning-modes";
import { CHARGING_POINT } from "../cloud/commands";
import { severityOf, type OpenAlarm } from "../pushes/open-alarms";
import type { DirectoryEntry } from "../account/robot-directory";
import { cleaningModesOf, mapNameOf, type MapPosition } from "../watching/status-reader";
import { watchedStateOf, type WatchedState } from "../watching/watcher-state";
import { recordOf, textOf } from "../cloud/values";
import { upkeepFactsOf, type UpkeepFacts } from "../upkeep/facts";
import type { UpkeepRobot } from "../upkeep/table";

/** Home Assistant's MQTT vacuum states (state schema). */
export const VACUUM_STATES = ["cleaning", "docked", "paused", "idle", "returning", "error"] as const;
export type VacuumState = (typeof VACUUM_STATES)[number];

/** An alarm at this level or above makes a problem (and the vacuum's state error). */
export const PROBLEM_ALARM_RANK = 4;

export interface TaskOfRobot {
  name: string;
  /** Percent done (0-100, whole), where the status says: the status reader's taskProgress, as the console reads it. */
  progress?: number;
  /** The cleaning mode it runs with, where the status says. */
  cleaningMode?: string;
}

/** The device and state of one robot, read from any of the cloud's status shapes. */
export interface RobotView {
  serialNumber: string;
  /** Name, model and software version come from the robot list (the account's robot directory): no status carries them. */
  displayName?: string;
  model?: string;
  softwareVersion?: string;
  state: WatchedState;
  /** The point the package sent the robot to and it has not reached (SentNavigations.destinationOf): no status says. */
  destination?: string;
  mapName?: string;
  /** Its cleaning modes as the status lists them ("__middle_cleaning", "尘推"). */
  cleaningModes: string[];
  task?: TaskOfRobot;
  /** Its wear parts, tanks and battery health as its status gives them (upkeepFactsOf): only what the status has; a part's share left from its table row where there is one. */
  upkeep?: UpkeepFacts;
  /** Each part's forecast due time (ISO), where the account's upkeep table gives one (upkeepTableOfAccount). */
  dueAt?: Record<string, string>;
}

/**
 * The view of a robot from its status, what the robot list says of it
 * (`listed`: robotDirectoryOf(account).entryOf) and its row of the account's
 * upkeep table (`upkeep`: upkeepTableOfAccount), whose forecasts give the due days.
 */
export function robotViewOf(status: Record<string, unknown>, listed?: DirectoryEntry, upkeep?: UpkeepRobot): RobotView {
  const state = watchedStateOf(status);
  const task = recordOf(status.executingTask) ?? recordOf(status.currentTask);
  const view: RobotView = {
    serialNumber: state.serialNumber,
    ...(listed?.displayName !== undefined ? { displayName: listed.displayName } : {}),
    ...(listed?.modelTypeCode !== undefined ? { model: listed.modelTypeCode } : {}),
    ...(listed?.softwareVersion !== undefined ? { softwareVersion: listed.softwareVersion } : {}),
    state,
    mapName: mapNameOf(status),
    cleaningModes: cleaningModesOf(status),
  };
  const facts = upkeepFactsOf(status);
  // A part's share left is its row's where the table has one, as its due day is: the row counts a recorded
  // replacement the cloud's counter does not show yet, and the % sensor must not say 4 % beside a new part's due day.
  const rowRemaining = new Map((upkeep?.parts ?? []).map((part) => [part.part, part.remaining]));
  if (facts)
    view.upkeep = { ...facts, parts: facts.parts.map((part) => ({ ...part, remaining: rowRemaining.get(part.part) ?? part.remaining })) };
  const dueAt = Object.fromEntries(
    (upkeep?.parts ?? []).flatMap((part) => (part.forecast.dueAt !== undefined ? [[part.part, part.forecast.dueAt]] : [])),
  );
  if (Object.keys(dueAt).length > 0) view.dueAt = dueAt;
  if (state.taskName !== undefined) {
    view.task = { name: state.taskName };
    if (state.taskProgress !== undefined) view.task.progress = Math.round(state.taskProgress * 100);
    const mode = textOf(task?.cleaningMode);
    if (mode !== undefined) view.task.cleaningMode = mode;
  }
  return view;
}

/** The cleaning mode a fan speed stands for: its label or the mode's own name; undefined when the robot has no such mode. */
export function cleaningModeOfFanSpeed(view: RobotView, fanSpeed: string): string | undefined {
  const wanted = fanSpeed.trim();
  return view.cleaningModes.find((mode) => mode === wanted || readableCleaningMode(mode) === wanted);
}

/** Why the robot needs a person, in words (emergency stop, lost, an alarm at H4 or above); empty when nothing. */
export function problemsOf(state: WatchedState, alarm: OpenAlarm | undefined): string[] {
  const problems: string[] = [];
  if (state.emergencyStop === true) problems.push("emergency stop");
  if (state.localizationState === "LOST") problems.push("lost");
  if (alarm && severityOf(alarm) >= PROBLEM_ALARM_RANK) problems.push(`alarm ${alarmText(alarm)}`);
  return problems;
}

/** "H5 Lidar blocked": the level and name of an alarm, as the alarm sensor shows it. */
export function alarmText(alarm: OpenAlarm | undefined): string {
  if (!alarm) return "none";
  const words = [alarm.level?.code ?? "H?", alarm.name ?? alarm.code ?? alarm.incidentId].join(" ");
  return words.slice(0, 200);
}

/**
 * The vacuum's state, first match wins:
 * emergency stop, LOST or an alarm at H4+ -> error; task RUNNING -> cleaning;
 * task PAUSED -> paused; charging -> docked; on its way to the charger the
 * package sent it to -> returning; anything else -> idle. A real status does
 * not say where a navigation goes (navStatus tells only that one runs:
 * navigation.ts), so only a navigation this process sent shows as returning.
 */
export function vacuumStateOf(state: WatchedState, alarm: OpenAlarm | undefined, destination?: string): VacuumState {
  if (problemsOf(state, alarm).length > 0) return "error";
  if (state.taskState === "RUNNING") return "cleaning";
  if (state.taskState === "PAUSED") return "paused";
  if (state.charging === true) return "docked";
  if (destination === CHARGING_POINT) return "returning";
  return "idle";
}

/** "All of Floor 1 (40 %)", or "none": the task sensor. */
export function taskText(task: TaskOfRobot | undefined): string {
  if (!task) return "none";
  const name = task.name.slice(0, 200);
  return task.progress === undefined ? name : `${name} (${Math.round(task.progress)} %)`;
}

export interface Attributes {
  online: boolean;
  battery: number | null;
  charging: boolean | null;
  task_state: string | null;
  map: string | null;
  position: MapPosition | null;
  navigation: string | null;
  task: string;
  progress: number | null;
  emergency_stop: boolean | null;
  localization: string | null;
  problem: boolean;
  problems: string[];
  alarm: string;
  /** Share left of each wear part the status has, whole per cent, by the cloud's part name. */
  parts: Record<string, number>;
  /** Each of those parts' forecast due time (ISO), null where there is none (too little history): Home Assistant's timestamp sensor shows unknown. */
  parts_due: Record<string, string | null>;
  clean_water: number | null;
  recovery_water: number | null;
}

/** The JSON attributes every sensor reads its value from (and the vacuum shows as its attributes). */
export function attributesOf(view: RobotView, alarm: OpenAlarm | undefined): Attributes {
  const { state } = view;
  const problems = problemsOf(state, alarm);
  return {
    online: state.online === true,
    battery: state.battery ?? null,
    charging: state.charging ?? null,
    task_state: state.taskState ?? null,
    map: view.mapName ?? null,
    position: state.position ?? null,
    navigation: state.navStatus ?? null,
    task: taskText(view.task),
    progress: view.task?.progress ?? null,
    emergency_stop: state.emergencyStop ?? null,
    localization: state.localizationState ?? null,
    problem: problems.length > 0,
    problems,
    alarm: alarmText(alarm),
    parts: Object.fromEntries((view.upkeep?.parts ?? []).map(({ part, remaining }) => [part, Math.round(remaining * 100)])),
    parts_due: Object.fromEntries((view.upkeep?.parts ?? []).map(({ part }) => [part, view.dueAt?.[part] ?? null])),
    clean_water: view.upkeep?.tanks.cleanWater ?? null,
    recovery_water: view.upkeep?.tanks.recoveryWater ?? null,
  };
}
