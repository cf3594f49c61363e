/**
 * Which robot a job goes to, and for every other robot why not: a pure
 * function of the robots' last statuses, the work, the holds of other jobs,
 * the account's open alarms and the job's settings. No calls, no Node-RED.
 */
import { isNavigating, pointCellOf } from "../watching/navigation";
import {
  cleaningModesOf,
  executableTasksOf,
  isTaskUnderWay,
  mapNameOf,
  type ExecutableTask,
  type NavigationPoint,
} from "../watching/status-reader";
import { numberOf, recordOf } from "../cloud/values";
import { watchedStateOf } from "../watching/watcher-state";

/** The work of a job, on one map (name or id, as statuses and the map list give it). */
export type JobWork =
  { kind: "task"; task: string; map: string } | { kind: "area"; area: string; map: string } | { kind: "goto"; point: string; map: string };

/** A pixel point on the map, rows from the bottom as mapPosition; or a navigation point's name. */
export type NearSpec = string | { x: number; y: number };

/** What a robot's last status says that dispatching needs. */
export interface RobotFacts {
  serialNumber: string;
  online?: boolean;
  taskState?: string;
  /** The v1 status' navStatus (navigation.ts). */
  navStatus?: string;
  /** The running task's progress, 0-1, where the status gives it (executingTask.progress). */
  progress?: number;
  battery?: number;
  emergencyStop?: boolean;
  localizationState?: string;
  mapId?: string;
  mapName?: string;
  position?: { x: number; y: number };
  /** The navigation points of the map the robot is on, with their grid cells where the status gives them; undefined where it lists none. */
  navigationPoints?: NavigationPoint[];
  /** Tasks the robot can run, where its status lists them (the v1 status does). */
  executableTasks?: ExecutableTask[];
  /** Cleaning modes as the status names them ("__" prefix and all). */
  cleanModes: string[];
}

/** An alarm that keeps a robot from work: H4 and above. */
export interface BlockingAlarm {
  code?: string;
  name?: string;
  rank: number;
}

export interface DispatchInput {
  work: JobWork;
  near?: NearSpec;
  minBattery: number;
  /** The robots the job may use, in no particular order. */
  candidates: readonly string[];
  /** Last status of each robot, by serial number (a robot not read yet is absent). */
  facts: ReadonlyMap<string, RobotFacts>;
  /**
   * The robots whose status the poll that dispatches read. A kept status of
   * another (the poll failed, or did not name it) is older than the watch's one
   * interval and no robot is chosen on it.
   */
  readNow: ReadonlySet<string>;
  /** The job holding a robot, if another job does. */
  heldByOther(serialNumber: string): boolean;
  /** The robot's most severe open alarm, if any. */
  alarmOf(serialNumber: string): BlockingAlarm | undefined;
  /** Robots this job already tried, with the refusal. */
  setAside: Readonly<Record<string, string>>;
}

export interface DispatchChoice {
  /** The robot to send, when one is eligible. */
  chosen?: string;
  /** Every other candidate and why it is not eligible (an eligible robot not chosen: "eligible"). */
  reasons: Record<string, string>;
}

/** An alarm counts from this rank (H4). */
export const BLOCKING_ALARM_RANK = 4;

/** The facts of a status of any of the cloud's shapes (B1, the S-line batch, the v1 batch). */
export function robotFactsOf(status: Record<string, unknown>): RobotFacts {
  const state = watchedStateOf(status);
  const tasks = executableTasksOf(status);
  return {
    serialNumber: state.serialNumber,
    online: state.online,
    taskState: state.taskState,
    ...(state.navStatus !== undefined ? { navStatus: state.navStatus } : {}),
    progress: numberOf(recordOf(status.executingTask ?? status.currentTask)?.progress),
    battery: state.battery,
    emergencyStop: state.emergencyStop,
    localizationState: state.localizationState,
    mapId: state.mapId,
    mapName: mapNameOf(status),
    ...(state.position ? { position: { x: state.position.x, y: state.position.y } } : {}),
    ...(state.navigationPoints ? { navigationPoints: state.navigationPoints } : {}),
    ...(tasks ? { executableTasks: tasks } : {}),
    cleanModes: cleaningModesOf(status),
  };
}

/** Whether the robot is on the job's map (given by name or id). */
export function isOnMap(facts: RobotFacts, map: string): boolean {
  return facts.mapName === map || facts.mapId === map;
}

/** Whether the robot is doing something: a task running or paused, or a navigation under way. */
export function isBusy(facts: RobotFacts): boolean {
  return isTaskUnderWay(facts.taskState) || isNavigating(facts) === true;
}

/**
 * Why a robot does not take a job, as flows read it (msg.error.cause.robots,
 * progress `reasons` and `refusal`): the same short English in every language.
 * The key names its words in the nodes' catalogue (robot-job's `reasons`).
 */
export const JOB_REASONS = {
  noStatus: "no status yet",
  notReadNow: "not read in the last poll",
  offline: "offline",
  otherMap: "other map",
  lost: "lost",
  emergencyStop: "emergency stop",
  busy: "busy",
  heldByOther: "held by another job",
  taskNotThere: "task not executable there",
  notConfirmed: "not confirmed",
  eligible: "eligible",
  notOfAccount: "not a robot of the account",
} as const;

export type JobReasonKey = keyof typeof JOB_REASONS;

/** The words for an alarm that keeps a robot from work: "alarm H6 Brush motor stalled". */
export function alarmReason(alarm: BlockingAlarm): string {
  const label = alarm.name ?? alarm.code;
  return `alarm H${alarm.rank}${label ? ` ${label}` : ""}`;
}

function batteryReason(battery: number | undefined): string {
  return `battery ${battery === undefined ? "unknown" : Math.round(battery)} %`;
}

/** A robot that refused the start (the error's words, as the API gives them). */
export function refusedReason(detail: string): string {
  return `refused: ${detail}`;
}

/** A robot another instance's job claimed, or whose claim Redis did not answer (shared accounts). */
export function claimRefusedReason(detail: string): string {
  return `claim refused: ${detail}`;
}

/** A reason that names a value: its key in the catalogue, and the pattern it is made with here and in the runner. */
const REASON_PATTERNS: ReadonlyArray<{ key: string; pattern: RegExp; params: readonly string[] }> = [
  { key: "batteryUnknown", pattern: /^battery unknown %$/, params: [] },
  { key: "battery", pattern: /^battery (\d+) %$/, params: ["level"] },
  { key: "alarm", pattern: /^alarm H(\d+) (.+)$/, params: ["rank", "label"] },
  { key: "alarmRank", pattern: /^alarm H(\d+)$/, params: ["rank"] },
  { key: "refused", pattern: /^refused: (.*)$/s, params: ["detail"] },
  { key: "claimRefused", pattern: /^claim refused: (.*)$/s, params: ["detail"] },
];

/**
 * A reason (as JOB_REASONS and the patterns above make it) read back into its
 * catalogue key and values, for words in a person's language; undefined for a
 * reason of no known form (kept from an older version), shown as it is.
 */
export function readJobReason(reason: string): { key: string; params: Record<string, string> } | undefined {
  for (const [key, text] of Object.entries(JOB_REASONS)) if (reason === text) return { key, params: {} };
  for (const { key, pattern, params } of REASON_PATTERNS) {
    const match = pattern.exec(reason);
    if (match) return { key, params: Object.fromEntries(params.map((name, index) => [name, match[index + 1]!])) };
  }
  return undefined;
}

/** Why this robot may not take the job, or undefined when it may. */
export function reasonNotEligible(serialNumber: string, input: DispatchInput): string | undefined {
  const refused = input.setAside[serialNumber];
  if (refused !== undefined) return refused;
  const facts = input.facts.get(serialNumber);
  if (!facts) return JOB_REASONS.noStatus;
  if (!input.readNow.has(serialNumber)) return JOB_REASONS.notReadNow;
  if (facts.online !== true) return JOB_REASONS.offline;
  if (!isOnMap(facts, input.work.map)) return JOB_REASONS.otherMap;
  if (facts.localizationState === "LOST") return JOB_REASONS.lost;
  if (facts.emergencyStop === true) return JOB_REASONS.emergencyStop;
  const alarm = input.alarmOf(serialNumber);
  if (alarm && alarm.rank >= BLOCKING_ALARM_RANK) return alarmReason(alarm);
  if (isBusy(facts)) return JOB_REASONS.busy;
  if (input.heldByOther(serialNumber)) return JOB_REASONS.heldByOther;
  if (facts.battery === undefined || facts.battery < input.minBattery) return batteryReason(facts.battery);
  if (input.work.kind === "task" && facts.executableTasks && !listsTask(facts, input.work.task, input.work.map))
    return JOB_REASONS.taskNotThere;
  return undefined;
}

/** Whether the robot's status lists the task among its executable tasks on the map (a task listed without a map counts on any). */
export function listsTask(facts: RobotFacts, task: string, map: string): boolean {
  return (facts.executableTasks ?? []).some(
    (entry) =>
      entry.name === task && ((entry.mapId === undefined && entry.mapName === undefined) || entry.mapId === map || entry.mapName === map),
  );
}

/** The point `near` stands for on this robot's map, or undefined when the robot's status does not place it. */
function nearPoint(near: NearSpec, facts: RobotFacts): { x: number; y: number } | undefined {
  if (typeof near !== "string") return near;
  return pointCellOf(facts, near);
}

/** Distance in map pixels from the robot to `near`; Infinity when either cannot be placed. */
export function distanceTo(near: NearSpec, facts: RobotFacts): number {
  const point = nearPoint(near, facts);
  if (!point || !facts.position) return Infinity;
  return Math.hypot(facts.position.x - point.x, facts.position.y - point.y);
}

/**
 * The choice: among eligible robots the nearest to `near` (robots that cannot
 * be placed come after those that can), else the highest battery; ties by
 * serial number.
 */
export function chooseRobot(input: DispatchInput): DispatchChoice {
  const reasons: Record<string, string> = {};
  const eligible: RobotFacts[] = [];
  for (const serialNumber of new Set(input.candidates)) {
    const reason = reasonNotEligible(serialNumber, input);
    if (reason === undefined) eligible.push(input.facts.get(serialNumber)!);
    else reasons[serialNumber] = reason;
  }
  const near = input.near;
  eligible.sort((a, b) => {
    if (near !== undefined) {
      const [da, db] = [distanceTo(near, a), distanceTo(near, b)];
      if (da !== db) return da < db ? -1 : 1;
    }
    const [ba, bb] = [a.battery ?? 0, b.battery ?? 0];
    if (ba !== bb) return bb - ba;
    return a.serialNumber < b.serialNumber ? -1 : a.serialNumber > b.serialNumber ? 1 : 0;
  });
  const [first, ...others] = eligible;
  for (const other of others) reasons[other.serialNumber] = JOB_REASONS.eligible;
  return first ? { chosen: first.serialNumber, reasons } : { reasons };
}
