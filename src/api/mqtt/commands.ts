/**
 * What a message on a command topic asks for (pure): the vacuum's own
 * commands, a fan speed, or a send_command payload (a robot-command compact
 * form or a robot-job job), or a problem that names what is wrong. And which
 * of the cloud's commands a vacuum command becomes for the robot's state now.
 */
import { CHARGING_POINT } from "../cloud/commands";
import { RUN_ONCE } from "../cloud/command-bodies";
import { COMMAND_TYPES, isCommandType, MOTION_STOPPING_COMMANDS, type CommandType } from "../cloud/commands";
import type { RobotView } from "./robot-view";
import { isNavigating } from "../watching/navigation";
import { NO_CHARGER_KNOWN, refusalText } from "../watching/robot-actions";
import type { ExecutableTask } from "../watching/status-reader";

/** A payload larger than this (its text, or the JSON of what mqtt in parsed) is refused unread. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

/** Home Assistant's command topic payloads the bridge carries out (its defaults payload_start, ...). */
export const VACUUM_COMMANDS = ["start", "pause", "stop", "return_to_base"] as const;
export type VacuumCommand = (typeof VACUUM_COMMANDS)[number];

/** The kinds of bad input, each warned about at most once a minute. */
export type ProblemKind = "topic" | "size" | "payload" | "json" | "command" | "robot" | "fanSpeed" | "segments" | "refused";

export type Problem = { problem: ProblemKind; reason: string };

/** A payload as text: mqtt in gives a string, a Buffer, or (set to parse JSON) an object; each is measured. */
export function payloadText(payload: unknown): { text: string } | Problem {
  let text: string | undefined;
  if (typeof payload === "string") text = payload;
  else if (Buffer.isBuffer(payload)) {
    if (payload.length > MAX_PAYLOAD_BYTES) return tooLarge(payload.length);
    text = payload.toString("utf8");
  } else if (typeof payload === "number" || typeof payload === "boolean") text = String(payload);
  else if (typeof payload === "object" && payload !== null) {
    try {
      text = JSON.stringify(payload);
    } catch {
      return { problem: "payload", reason: "the payload could not be read as JSON (a cycle or a value that throws)" };
    }
  }
  if (text === undefined) return { problem: "payload", reason: "the payload is empty" };
  const bytes = Buffer.byteLength(text);
  return bytes > MAX_PAYLOAD_BYTES ? tooLarge(bytes) : { text };
}

function tooLarge(bytes: number): Problem {
  return { problem: "size", reason: `the payload has ${bytes} bytes, more than ${MAX_PAYLOAD_BYTES}` };
}

/** A command topic's payload: one of the vacuum's commands. */
export function readVacuumCommand(text: string): { command: VacuumCommand } | Problem {
  const word = text.trim().toLowerCase();
  if ((VACUUM_COMMANDS as readonly string[]).includes(word)) return { command: word as VacuumCommand };
  return { problem: "command", reason: `unknown command ${JSON.stringify(text.slice(0, 100))} (use ${VACUUM_COMMANDS.join(", ")})` };
}

/** What send_command asked for: one of the cloud's commands with its parameters (flat, as robot-command's compact form), or a job. */
export type SendCommandRequest =
  { form: "compact"; command: CommandType; parameters: Record<string, unknown> } | { form: "job"; job: Record<string, unknown> };

/** send_command's names for the jobs, each with the job key its params give (`{"command": "clean_area", "params": {"area": "Kitchen"}}`). */
export const JOB_COMMANDS = { clean_area: "area", run_task: "task", go_to: "goto" } as const;
type JobCommand = keyof typeof JOB_COMMANDS;
const JOB_KEYS = Object.values(JOB_COMMANDS);

function isJobCommand(name: unknown): name is JobCommand {
  return typeof name === "string" && Object.hasOwn(JOB_COMMANDS, name);
}

/**
 * A send_command payload. Home Assistant's `vacuum.send_command` publishes
 * the bare command without params, and with params an object holding
 * `command` and the params (its MQTT vacuum puts them beside `command`; a
 * `params` object is read the same): so `{"command": "CROSS_NAVIGATE",
 * "position": "..."}`, `{"command": "clean_area", "params": {"area":
 * "Kitchen"}}` (likewise run_task with task, go_to with goto), or a job
 * without a command, `{"area": "Kitchen"}`.
 */
export function readSendCommand(text: string): SendCommandRequest | Problem {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) {
    const named = trimmed.toUpperCase();
    if (isCommandType(named)) return { form: "compact", command: named, parameters: {} };
    if (isJobCommand(trimmed.toLowerCase()))
      return {
        problem: "command",
        reason: `${trimmed.toLowerCase()} needs params with ${JOB_COMMANDS[trimmed.toLowerCase() as JobCommand]}`,
      };
    return {
      problem: "command",
      reason: `unknown command ${JSON.stringify(trimmed.slice(0, 100))} (send a JSON object, or one of ${COMMAND_TYPES.join(", ")})`,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch (error) {
    return { problem: "json", reason: `the payload is not JSON: ${(error as Error).message}` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return { problem: "json", reason: "the payload must be a JSON object" };
  const { command, params, ...flat } = parsed as Record<string, unknown>;
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params)))
    return { problem: "command", reason: "params must be a JSON object" };
  const given: Record<string, unknown> = { ...flat, ...(params as Record<string, unknown> | undefined) };
  if (command === undefined) {
    if (JOB_KEYS.some((key) => key in given)) return { form: "job", job: given };
    return {
      problem: "command",
      reason: `a send_command payload needs "command" (a robot command, or ${Object.keys(JOB_COMMANDS).join(", ")}), or "area", "task" or "goto" (a job)`,
    };
  }
  const job = typeof command === "string" ? command.trim().toLowerCase() : undefined;
  if (isJobCommand(job)) {
    const key = JOB_COMMANDS[job];
    if (!(key in given)) return { problem: "command", reason: `${job} needs ${key} in its params` };
    const others = JOB_KEYS.filter((other) => other !== key && other in given);
    if (others.length > 0) return { problem: "command", reason: `${job} takes ${key}, not ${others.join(", ")}` };
    return { form: "job", job: given };
  }
  const named = typeof command === "string" ? command.trim().toUpperCase() : command;
  if (!isCommandType(named))
    return {
      problem: "command",
      reason: `command must be one of ${[...COMMAND_TYPES, ...Object.keys(JOB_COMMANDS)].join(", ")} (got ${JSON.stringify(command)?.slice(0, 100)})`,
    };
  return { form: "compact", command: named, parameters: given };
}

/** A cloud command with its flat parameters (robot-command's field names: taskName, map, position, cleaningMode, ...). */
export interface PlannedCommand {
  command: CommandType;
  parameters: Record<string, unknown>;
}

/** "Floor 1 = All of Floor 1" lines: the task `start` runs on each map (by map name or id). */
export function readStartTasks(text: unknown): Map<string, string> {
  const tasks = new Map<string, string>();
  if (typeof text !== "string") return tasks;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === "") continue;
    const at = line.indexOf("=");
    if (at <= 0 || line.slice(at + 1).trim() === "") throw new Error(`"${line.trim()}" is not "map = task"`);
    tasks.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  return tasks;
}

/** The task `start` runs: the one set for the robot's map, else the first it can run on that map. */
export function chooseStartTask(
  view: RobotView,
  tasks: readonly ExecutableTask[],
  startTasks: ReadonlyMap<string, string>,
): ExecutableTask | Problem {
  const mapId = view.state.mapId;
  const onMap = (task: ExecutableTask) =>
    (mapId !== undefined && task.mapId === mapId) || (view.mapName !== undefined && task.mapName === view.mapName);
  const set =
    (view.mapName !== undefined ? startTasks.get(view.mapName) : undefined) ?? (mapId !== undefined ? startTasks.get(mapId) : undefined);
  if (set !== undefined) {
    const task = tasks.find((candidate) => candidate.name === set && onMap(candidate)) ?? tasks.find((candidate) => candidate.name === set);
    return task ?? { name: set, mapName: view.mapName, mapId };
  }
  const first = tasks.find(onMap);
  if (first) return first;
  return { problem: "command", reason: `the robot has no task it can run on its map ${view.mapName ?? mapId ?? "(unknown)"}` };
}

/**
 * The cloud command for a vacuum command, from the robot's state: start
 * resumes a paused task (a new start needs its task: `start` is given it),
 * pause and stop act on a navigation while one is under way (navStatus other
 * than NAVI_IDLE), start resumes it (no status tells a paused navigation from
 * a driving one, nor where it goes), return_to_base navigates to the charging
 * point of its map.
 */
export function planVacuumCommand(
  command: VacuumCommand,
  view: RobotView,
  start?: { task: ExecutableTask; cleaningMode: string | undefined },
  sentTo?: string,
): PlannedCommand | Problem {
  const navigating = isNavigating(view.state) === true && view.state.taskState !== "RUNNING" && view.state.taskState !== "PAUSED";
  // Where the package last sent the robot: no status says where a navigation goes.
  const navigationParameters = { map: view.mapName, position: sentTo };
  switch (command) {
    case "start":
      if (view.state.taskState === "PAUSED") return { command: "RESUME_TASK", parameters: {} };
      if (navigating) return { command: "RESUME_NAVIGATE", parameters: navigationParameters };
      if (!start) return { problem: "command", reason: "no task to start" };
      if (start.cleaningMode === undefined)
        return { problem: "command", reason: "the robot lists no cleaning mode to start its task with" };
      return {
        command: "START_TASK",
        parameters: {
          taskName: start.task.name,
          map: start.task.mapName ?? start.task.mapId ?? view.mapName,
          cleaningMode: start.cleaningMode,
          ...RUN_ONCE,
        },
      };
    case "pause":
      if (navigating) return { command: "PAUSE_NAVIGATE", parameters: navigationParameters };
      return { command: "PAUSE_TASK", parameters: {} };
    case "stop":
      if (navigating) return { command: "STOP_NAVIGATE", parameters: navigationParameters };
      return { command: "STOP_TASK", parameters: {} };
    case "return_to_base":
      // A task it runs is stopped first (to-charger.ts), after this plan.
      if (view.mapName === undefined) return { problem: "command", reason: `the robot ${refusalText(NO_CHARGER_KNOWN)}` };
      return { command: "CROSS_NAVIGATE", parameters: { map: view.mapName, position: CHARGING_POINT } };
  }
}

/**
 * The cleaning mode `start` runs its task with: the fan speed chosen with
 * set_fan_speed, else the mode of the task the status names, else the
 * robot's first. What a person chose wins over what the robot last did.
 */
export function startCleaningMode(view: RobotView, chosenMode: string | undefined): string | undefined {
  return chosenMode ?? view.task?.cleaningMode ?? view.cleaningModes[0];
}

/** Parameters a compact send_command left out, from the robot: its map, its cleaning mode. */
export function withRobotDefaults(planned: PlannedCommand, view: RobotView, cleaningMode: string | undefined): PlannedCommand {
  const parameters = { ...planned.parameters };
  const needsMap = planned.command === "START_TASK" || planned.command.endsWith("_NAVIGATE");
  if (needsMap && parameters.map === undefined && view.mapName !== undefined) parameters.map = view.mapName;
  if (planned.command === "START_TASK") {
    if (parameters.cleaningMode === undefined && cleaningMode !== undefined) parameters.cleaningMode = cleaningMode;
    parameters.loop ??= RUN_ONCE.loop;
    parameters.loopCount ??= RUN_ONCE.loopCount;
  }
  return { command: planned.command, parameters };
}

export function isProblem(value: object): value is Problem {
  return "problem" in value;
}

/** At most one warning per kind per window (a minute): a publisher that floods bad input fills no log. */
export class WarningGate {
  private readonly lastAt = new Map<string, number>();

  constructor(
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether to warn about `kind` now (and remember that it was). */
  allows(kind: string): boolean {
    const at = this.now();
    const last = this.lastAt.get(kind);
    if (last !== undefined && at - last < this.windowMs) return false;
    this.lastAt.set(kind, at);
    return true;
  }
}

/**
 * Whether a message may be carried out while another command for the same
 * robot is still under way: one that stops motion (pause, stop, and the
 * cloud's stop commands) and a fan speed (no call) may; a second start while
 * the first waits would only send the robot the same command twice.
 */
export function mayOvertakePending(input: "command" | "fanSpeed" | "sendCommand" | "cleanSegments", text: string): boolean {
  if (input === "fanSpeed") return true;
  if (input === "cleanSegments") return false;
  if (input === "command") {
    const read = readVacuumCommand(text);
    return isProblem(read) || read.command === "pause" || read.command === "stop";
  }
  const read = readSendCommand(text);
  return isProblem(read) || (read.form === "compact" && MOTION_STOPPING_COMMANDS.has(read.command));
}
