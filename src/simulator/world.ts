/**
 * What the simulated robots do: the state of the fleet and the effect of every
 * operation of the endpoint table on it. No HTTP here; failures are SimErrors
 * that the server frames as the endpoint's error style.
 */
import { createHash, randomUUID } from "node:crypto";
import { commandTypeOf, type CommandType } from "../api/commands";
import { z } from "zod";
import type { Endpoints, OperationName } from "../api/endpoints";
import { API_CODES } from "../api/errors";
import type { CommandResource } from "../api/schemas";
import {
  mayUse,
  type AccountSeed,
  type CurrentTask,
  type FleetSeed,
  type NavigationPoint,
  type SimMap,
  type SimRobot,
  type SimSite,
} from "./fleet";
import { drawMap } from "./map-image";

/** What PATCH /_sim/robots/<serial> may change (and RunningSimulator.updateRobot). */
export const RobotChanges = z.strictObject({
  online: z.boolean().optional(),
  batteryPercentage: z.number().min(0).max(100).optional(),
  charging: z.boolean().optional(),
  emergencyStop: z.boolean().optional(),
  localizationState: z.enum(["NORMAL", "LOST"]).optional(),
  taskState: z.enum(["IDLE", "RUNNING", "PAUSED", "OTHER"]).optional(),
});
export type RobotChanges = z.output<typeof RobotChanges>;

/** A request as the endpoint's schema returns it (numbers of B3/B4 already turned into strings). */
export type Parsed<Op extends OperationName> = z.output<Endpoints[Op]["request"]>;

/** Status codes of the cloud's error bodies: the client's own table, so both name a code alike. */
export const Code = API_CODES;

const HTTP_STATUS_OF_CODE: Readonly<Record<number, number>> = {
  3: 400,
  5: 404,
  7: 403,
  8: 429,
  9: 400,
  12: 405,
  13: 500,
  16: 401,
};

export interface SimErrorOptions {
  /** Default: the usual HTTP status of the code. */
  httpStatus?: number;
  /** Extra answer headers, e.g. Retry-After. */
  headers?: Record<string, string>;
  /**
   * Answered as an HTTP status even on the envelope endpoints: refusals that
   * happen before the request reaches the service (401, 405, 413, 415).
   */
  transport?: boolean;
}

/** A refusal in the cloud's terms: a code and a message that names the field when there is one. */
export class SimError extends Error {
  readonly httpStatus: number;
  readonly headers: Record<string, string> | undefined;
  readonly transport: boolean;
  constructor(
    readonly code: number,
    message: string,
    options: SimErrorOptions = {},
  ) {
    super(message);
    this.httpStatus = options.httpStatus ?? HTTP_STATUS_OF_CODE[code] ?? 400;
    this.headers = options.headers;
    this.transport = options.transport ?? false;
  }
}

function invalid(field: string, problem: string): SimError {
  return new SimError(Code.INVALID_ARGUMENT, `${field}: ${problem}`);
}

/** B4 result codes (field notes: 2010100006-13 are refusals; 6880 with cmdStatus 5 is accepted). */
export const TEMP_TASK_ACCEPTED = { cmdStatus: 5, cmdResultCode: "6880" } as const;
export const TEMP_TASK_AREA_UNREACHABLE = "2010100006";
export const TEMP_TASK_ROBOT_BUSY = "2010100009";
export const TEMP_TASK_REJECTED = 7;

/** Every command resource says so (spec); its unit is not documented. */
export const START_DELAY = 1800000;

/** RFC 3339 with nanosecond precision: the clock gives milliseconds, a counter fills the rest so times stay distinct. */
let nanoCounter = 0;
export function nanoTimestamp(epochMs: number): string {
  nanoCounter = (nanoCounter + 1) % 1_000_000;
  return new Date(epochMs).toISOString().replace(/Z$/, `${String(nanoCounter).padStart(6, "0")}Z`);
}

function milliTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** Lower-cases the enumerated values of a command parameter (spec normalisation); cleaningMode and names stay. */
function echoParameter(parameter: NonNullable<Parsed<"submitCommand">["commandParameter"]>): Record<string, unknown> {
  const echo: Record<string, unknown> = {};
  if (parameter.startTaskParameter) {
    const { cleaningMode, task } = parameter.startTaskParameter;
    echo.startTaskParameter = { cleaningMode, task: { ...task, subTasks: [] } };
  }
  if (parameter.startNavigationParameter) echo.startNavigationParameter = { ...parameter.startNavigationParameter };
  if (parameter.controlMovingParameter) {
    echo.controlMovingParameter = { direction: parameter.controlMovingParameter.direction.toLowerCase() };
  }
  return echo;
}


const REMOTE_STEP_METRES = 0.5;
const REMOTE_TURN_RADIANS = Math.PI / 12;

/**
 * How the simulated robots behave over time. All zero (startSimulator's
 * default) keeps every effect instant and every level still, so a test sees
 * exactly what it did; the CLI and the demo use REALISTIC_TIMING.
 */
export interface Timing {
  /** An accepted command (A, B3, B4) takes effect this long after it was accepted. */
  commandDelayMs: number;
  /** A navigation takes this long from its start to arriving; 0: it arrives at once. */
  navigationMs: number;
  /** A task finishes after running this long (paused time not counted); 0: it runs until stopped. */
  taskDurationMs: number;
  /** Battery percent used per minute while cleaning or navigating. */
  batteryDrainPerMinute: number;
  /** Battery percent gained per minute while charging. */
  batteryChargePerMinute: number;
}

export const INSTANT_TIMING: Readonly<Timing> = {
  commandDelayMs: 0,
  navigationMs: 0,
  taskDurationMs: 0,
  batteryDrainPerMinute: 0,
  batteryChargePerMinute: 0,
};

/** What the CLI and the demo run with: a robot needs a moment to act, and things change within minutes. */
export const REALISTIC_TIMING: Readonly<Timing> = {
  commandDelayMs: 2000,
  navigationMs: 5000,
  taskDurationMs: 120_000,
  batteryDrainPerMinute: 1,
  batteryChargePerMinute: 5,
};

export interface WorldOptions {
  now: () => number;
  maxCommandsPerRobot: number;
  timing?: Partial<Timing>;
  /** Whether a robot ignores the command it was just given (the server's fault dice, so a run repeats). */
  ignores?: () => boolean;
}

/** A robot's state between answers: what moves with time, kept exactly (answers show whole percents). */
interface Motion {
  /** Up to when time has been applied. */
  lastMs: number;
  battery: number;
  /** Running time of the current task. */
  taskRunMs: number;
  /** A navigation under way: when it arrives (or, paused, how long it still needs) and where to. */
  navigation: { arriveAt: number | undefined; remainingMs: number; map: SimMap; point: NavigationPoint } | undefined;
}

/** An accepted command's effect, due at a time. */
interface PendingEffect {
  due: number;
  robot: SimRobot;
  apply: () => void;
}

/** Task reports kept per robot; the oldest are dropped past this. */
export const MAX_TASK_REPORTS_PER_ROBOT = 100;

/**
 * taskEndStatus of the simulator's reports. The real values are numbers whose
 * meanings are not published; these two are the simulator's own.
 */
export const TASK_END_STATUS = { FINISHED: 0, STOPPED: 1 } as const;

/** Planned cleaning area of one area (partition) of a map, in square metres. */
const AREA_SQUARE_METRES = 120;
/** How long the simulator takes to clean one area once. */
const SECONDS_PER_AREA = 20 * 60;

/** A UUID-shaped id that is the same on every run for the same text (seeded reports survive a reset unchanged). */
function stableId(text: string): string {
  const hex = createHash("sha256").update(text).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export class World {
  readonly robots = new Map<string, SimRobot>();
  readonly sites = new Map<string, SimSite>();
  /** Per robot, in submission order; the oldest are dropped past the cap. */
  readonly commands = new Map<string, Map<string, CommandResource>>();
  /** Per robot, newest first. */
  readonly taskReports = new Map<string, Record<string, unknown>[]>();
  readonly timing: Timing;
  private readonly motion = new Map<SimRobot, Motion>();
  /** Effects of accepted commands not yet due, oldest first (one delay for all keeps them in order). */
  private readonly pending: PendingEffect[] = [];

  constructor(
    seed: FleetSeed,
    private readonly options: WorldOptions,
  ) {
    this.timing = { ...INSTANT_TIMING, ...options.timing };
    const copy = structuredClone(seed);
    for (const site of copy.sites) this.sites.set(site.id, site);
    const now = options.now();
    copy.robots.forEach((robot, index) => {
      this.robots.set(robot.serialNumber, robot);
      this.commands.set(robot.serialNumber, new Map());
      this.taskReports.set(robot.serialNumber, this.seededReports(robot, index));
      this.motion.set(robot, { lastMs: now, battery: robot.battery.powerPercentage, taskRunMs: 0, navigation: undefined });
    });
  }

  // ------------------------------------------------------------ time

  /**
   * Brings the fleet up to `now`: effects that fell due, in order, each at its
   * own time, and between them what time does (batteries, navigations that
   * arrive, tasks that finish). Called before every answer, so nothing needs
   * a timer and a test's clock decides everything.
   */
  advance(now: number): void {
    while (this.pending.length > 0 && this.pending[0]!.due <= now) {
      const effect = this.pending.shift()!;
      this.elapse(effect.due);
      // An offline robot does not hear its commands (the simulator's choice; the cloud's is not known).
      if (effect.robot.online) effect.apply();
    }
    this.elapse(now);
  }

  /** Runs an accepted command's effect after the command delay, unless the robot ignores it. */
  private accept(robot: SimRobot, apply: () => void): void {
    if (this.options.ignores?.()) return;
    if (this.timing.commandDelayMs === 0 && robot.online) {
      apply();
      return;
    }
    this.pending.push({ due: this.options.now() + this.timing.commandDelayMs, robot, apply });
  }

  private elapse(until: number): void {
    for (const robot of this.robots.values()) this.elapseRobot(robot, this.motion.get(robot)!, until);
  }

  private elapseRobot(robot: SimRobot, motion: Motion, until: number): void {
    let at = motion.lastMs;
    if (until <= at) return;
    motion.lastMs = until;
    if (!robot.online) return;
    const navigation = motion.navigation;
    if (navigation?.arriveAt !== undefined && robot.navigation?.state === "NAVIGATING") {
      const end = Math.min(until, navigation.arriveAt);
      this.drain(robot, motion, end - at);
      at = end;
      if (end === navigation.arriveAt) this.arrive(robot, navigation.map, navigation.point);
    }
    if (robot.taskState === "RUNNING") {
      const left = this.timing.taskDurationMs > 0 ? this.timing.taskDurationMs - motion.taskRunMs : Infinity;
      const span = Math.min(until - at, left);
      motion.taskRunMs += span;
      this.drain(robot, motion, span);
      at += span;
      if (motion.battery <= 0) this.finishTask(robot, TASK_END_STATUS.STOPPED);
      else if (motion.taskRunMs >= this.timing.taskDurationMs && this.timing.taskDurationMs > 0) this.finishTask(robot, TASK_END_STATUS.FINISHED);
    }
    if (robot.battery.charging && this.timing.batteryChargePerMinute > 0) {
      this.setBattery(robot, motion, motion.battery + ((until - at) / 60_000) * this.timing.batteryChargePerMinute);
    }
  }

  private drain(robot: SimRobot, motion: Motion, ms: number): void {
    if (this.timing.batteryDrainPerMinute > 0) this.setBattery(robot, motion, motion.battery - (ms / 60_000) * this.timing.batteryDrainPerMinute);
  }

  private setBattery(robot: SimRobot, motion: Motion, percent: number): void {
    motion.battery = Math.min(100, Math.max(0, percent));
    robot.battery.powerPercentage = Math.round(motion.battery);
  }

  private arrive(robot: SimRobot, map: SimMap, point: NavigationPoint): void {
    robot.localization.mapId = map.id;
    robot.localization.position = { x: point.x, y: point.y, angle: point.angle };
    robot.battery.charging = point.name === "charging";
    robot.navigation = { state: "ARRIVED", mapName: map.name, position: point.name };
    this.motion.get(robot)!.navigation = undefined;
  }

  /**
   * Changes a robot the way the control API's PATCH does: what a test or a
   * demo needs to make happen (offline, low battery, an emergency stop).
   */
  updateRobot(robot: SimRobot, changes: RobotChanges): void {
    this.advance(this.options.now());
    const motion = this.motion.get(robot)!;
    if (changes.online !== undefined) robot.online = changes.online;
    if (changes.batteryPercentage !== undefined) this.setBattery(robot, motion, changes.batteryPercentage);
    if (changes.charging !== undefined) robot.battery.charging = changes.charging;
    if (changes.emergencyStop !== undefined) robot.emergencyStop = changes.emergencyStop;
    if (changes.localizationState !== undefined) robot.localization.state = changes.localizationState;
    if (changes.taskState !== undefined) {
      if (changes.taskState === "IDLE" && robot.currentTask) this.finishTask(robot, TASK_END_STATUS.STOPPED);
      robot.taskState = changes.taskState;
    }
  }

  /** The robot the account may use; code 5 when there is no such robot, 7 when it belongs to someone else. */
  robotFor(account: AccountSeed, serialNumber: string): SimRobot {
    const robot = this.robots.get(serialNumber);
    if (!robot) throw new SimError(Code.NOT_FOUND, `Robot ${serialNumber} not found.`);
    if (!mayUse(account, serialNumber)) {
      throw new SimError(Code.PERMISSION_DENIED, `The caller has no permission on robot ${serialNumber}.`);
    }
    return robot;
  }

  // ------------------------------------------------------------ Endpoint A

  submitCommand(robot: SimRobot, request: Parsed<"submitCommand">, account: AccountSeed): CommandResource {
    // The request schema guarantees exactly one family field, of a known type.
    const type = commandTypeOf(request) as CommandType;
    const effect = this.planCommand(robot, type, request.commandParameter);
    const now = this.options.now();
    const id = randomUUID();
    const createTime = nanoTimestamp(now);
    const resource: CommandResource = {
      name: `robots/${robot.serialNumber}/commands/${id}`,
      parent: `robots/${robot.serialNumber}`,
      commandParameter: request.commandParameter ? echoParameter(request.commandParameter) : {},
      state: "WAITING",
      serialNumber: robot.serialNumber,
      user: account.userId,
      createTime,
      updateTime: createTime,
      startTime: milliTimestamp(now),
      startDelay: START_DELAY,
      rawCommandType: type.toLowerCase(),
    };
    const stored = this.commands.get(robot.serialNumber)!;
    stored.set(id, resource);
    while (stored.size > this.options.maxCommandsPerRobot) stored.delete(stored.keys().next().value!);
    this.accept(robot, effect);
    return structuredClone(resource);
  }

  readCommand(robot: SimRobot, commandId: string): CommandResource {
    const resource = this.commands.get(robot.serialNumber)?.get(commandId);
    if (!resource) throw new SimError(Code.NOT_FOUND, `Command ${commandId} of robot ${robot.serialNumber} not found.`);
    return structuredClone(resource);
  }

  /**
   * Checks a command against the robot and returns its effect. A robot busy
   * with a task when the effect is due ignores new task or navigation starts:
   * the command is still accepted (WAITING), and the status shows that nothing
   * started (field notes).
   */
  private planCommand(
    robot: SimRobot,
    type: CommandType,
    parameter: Parsed<"submitCommand">["commandParameter"],
  ): () => void {
    const busy = () => robot.taskState === "RUNNING" || robot.taskState === "PAUSED";
    switch (type) {
      case "START_TASK": {
        const { cleaningMode, task } = parameter!.startTaskParameter!;
        const field = "commandParameter.startTaskParameter";
        const map = this.mapByIdOrName(robot, task.map, `${field}.task.map`);
        this.checkCleaningMode(robot, cleaningMode, `${field}.cleaningMode`);
        return () => {
          if (busy()) return;
          this.startTask(robot, {
            name: task.name,
            source: "command",
            cleaningMode,
            map,
            loop: task.loop,
            loopCount: task.loopCount,
            areaIds: [],
          });
        };
      }
      case "PAUSE_TASK":
        return () => {
          if (robot.taskState === "RUNNING") robot.taskState = "PAUSED";
        };
      case "RESUME_TASK":
        return () => {
          if (robot.taskState === "PAUSED") robot.taskState = "RUNNING";
        };
      case "STOP_TASK":
        return () => {
          if (!busy()) return;
          this.finishTask(robot, TASK_END_STATUS.STOPPED);
        };
      case "CROSS_NAVIGATE":
      case "PAUSE_NAVIGATE":
      case "RESUME_NAVIGATE":
      case "STOP_NAVIGATE": {
        const { map: mapName, position } = parameter!.startNavigationParameter!;
        const field = "commandParameter.startNavigationParameter";
        const map = robot.maps.find((candidate) => candidate.name === mapName);
        if (!map) throw invalid(`${field}.map`, `"${mapName}" is not a map name of robot ${robot.serialNumber} (${names(robot.maps)})`);
        const point = map.navigationPoints.find((candidate) => candidate.name === position);
        if (!point) {
          throw invalid(`${field}.position`, `no navigation point "${position}" on map ${map.name} (${names(map.navigationPoints)})`);
        }
        // A navigation takes navigationMs (at once when 0); a paused one keeps the time it still needs.
        return () => {
          const motion = this.motion.get(robot)!;
          const now = this.options.now();
          if (type === "CROSS_NAVIGATE" || type === "RESUME_NAVIGATE") {
            if (busy()) return;
            const resuming = type === "RESUME_NAVIGATE" && robot.navigation?.state === "PAUSED" && motion.navigation?.point === point;
            const needs = resuming ? motion.navigation!.remainingMs : this.timing.navigationMs;
            if (needs <= 0) {
              this.arrive(robot, map, point);
              return;
            }
            robot.battery.charging = false;
            robot.navigation = { state: "NAVIGATING", mapName: map.name, position: point.name };
            motion.navigation = { arriveAt: now + needs, remainingMs: needs, map, point };
          } else if (robot.navigation) {
            const navigation = motion.navigation;
            if (type === "PAUSE_NAVIGATE" && navigation?.arriveAt !== undefined) {
              navigation.remainingMs = Math.max(0, navigation.arriveAt - now);
              navigation.arriveAt = undefined;
            }
            if (type === "STOP_NAVIGATE") motion.navigation = undefined;
            robot.navigation.state = type === "PAUSE_NAVIGATE" ? "PAUSED" : "STOPPED";
          }
        };
      }
      case "REMOTE_CONTROL_START":
        return () => {
          robot.remoteControl = true;
        };
      case "REMOTE_CONTROL_MOVE": {
        if (!robot.remoteControl) {
          throw new SimError(Code.FAILED_PRECONDITION, "Remote control is not started: send REMOTE_CONTROL_START first.");
        }
        const direction = parameter!.controlMovingParameter!.direction;
        return () => {
          const position = robot.localization.position;
          if (direction === "LEFT" || direction === "RIGHT") {
            position.angle = round(position.angle + (direction === "LEFT" ? REMOTE_TURN_RADIANS : -REMOTE_TURN_RADIANS));
            return;
          }
          const step = direction === "FORWARD" ? REMOTE_STEP_METRES : -REMOTE_STEP_METRES;
          position.x = round(position.x + step * Math.cos(position.angle));
          position.y = round(position.y + step * Math.sin(position.angle));
          robot.battery.charging = false;
        };
      }
      case "REMOTE_CONTROL_STOP":
        return () => {
          robot.remoteControl = false;
        };
    }
  }

  private startTask(
    robot: SimRobot,
    task: Omit<CurrentTask, "id" | "mapId" | "mapName" | "startTime"> & { map: SimMap },
    id: string = randomUUID(),
  ): CurrentTask {
    const { map, ...rest } = task;
    robot.currentTask = {
      ...rest,
      id,
      mapId: map.id,
      mapName: map.name,
      startTime: milliTimestamp(this.options.now()),
    };
    robot.taskState = "RUNNING";
    robot.battery.charging = false;
    robot.navigation = undefined;
    const motion = this.motion.get(robot)!;
    motion.taskRunMs = 0;
    motion.navigation = undefined;
    robot.localization.mapId = map.id;
    return robot.currentTask;
  }

  private mapByIdOrName(robot: SimRobot, reference: string, field: string): SimMap {
    const map = robot.maps.find((candidate) => candidate.id === reference || candidate.name === reference);
    if (!map) throw invalid(field, `unknown map "${reference}" on robot ${robot.serialNumber} (${names(robot.maps)})`);
    return map;
  }

  private checkCleaningMode(robot: SimRobot, mode: string, field: string): void {
    if (!robot.cleanModes.includes(mode)) {
      throw invalid(field, `"${mode}" is not a clean mode of robot ${robot.serialNumber} (${robot.cleanModes.join(", ")})`);
    }
  }

  // ------------------------------------------------------------ Endpoint B

  /** B1: the field notes' S-line status shape. */
  status(robot: SimRobot): Record<string, unknown> {
    const map = this.currentMap(robot);
    const moving = robot.taskState === "RUNNING";
    return {
      serialNumber: robot.serialNumber,
      displayName: robot.displayName,
      online: robot.online,
      taskState: robot.taskState,
      speedKilometerPerHour: moving ? 2.5 : 0,
      battery: { ...robot.battery },
      emergencyStop: { enabled: robot.emergencyStop },
      localizationInfo: {
        localizationState: robot.localization.state,
        map: { id: map.id, name: map.name, version: map.version },
        mapPosition: { ...robot.localization.position },
      },
      cleanModes: robot.cleanModes.map((name) => ({ name })),
      supportSite: robot.siteId !== undefined,
      navigationPoints: { naviPoints: map.navigationPoints.map((point) => ({ naviPointName: point.name })) },
      workModes: [{ name: "cleaning" }, { name: "navigation" }, { name: "remote_control" }],
      remoteControl: { enabled: robot.remoteControl },
      ...(robot.navigation ? { navigation: { ...robot.navigation } } : {}),
      ...(robot.currentTask ? { currentTask: structuredClone(robot.currentTask) } : {}),
      device: { model: robot.model, firmwareVersion: robot.firmwareVersion },
    };
  }

  /** B2: the site with its buildings, floors, maps and areas; code 5 for a robot on no site (field notes). */
  siteInfo(robot: SimRobot): Record<string, unknown> {
    const site = this.siteOf(robot);
    return {
      siteId: site.id,
      siteName: site.name,
      robotSn: robot.serialNumber,
      buildings: site.buildings.map((building) => ({
        id: building.id,
        name: building.name,
        floors: building.floors.map((floor) => {
          const map = robot.maps.find((candidate) => candidate.id === floor.mapId);
          return {
            index: floor.index,
            name: floor.name,
            mapId: floor.mapId,
            mapName: map?.name ?? floor.name,
            mapVersion: map?.version ?? 1,
            // Area ids are strings here: they go back as B3's area.id and B4's areaId, which want strings.
            areas: (map?.partitions ?? []).map((partition) => ({ id: String(partition.id), name: partition.name })),
          };
        }),
      })),
    };
  }

  /** B3: a temporary task on the robot's site. */
  createTempSiteTask(robot: SimRobot, request: Parsed<"createTempSiteTask">, raw: unknown): Record<string, unknown> {
    requireStrings(raw, [
      ...request.floors.map((_, index) => ["floors", index, "area", "id"]),
      ...request.tasks.flatMap((task, index) => task.subTasks.map((_, sub) => ["tasks", index, "subTasks", sub, "areaId"])),
    ]);
    const site = this.siteOf(robot);
    if (request.siteId !== site.id) throw invalid("siteId", `robot ${robot.serialNumber} is on site ${site.id} (${site.name}), not ${request.siteId}`);
    this.checkCleaningMode(robot, request.cleaningMode, "cleaningMode");
    request.floors.forEach((floor, index) => {
      const map = this.mapById(robot, floor.mapId, `floors.${index}.mapId`);
      this.areaOf(map, String(floor.area.id), `floors.${index}.area.id`);
    });
    const areaIds: string[] = [];
    let firstMap: SimMap | undefined;
    request.tasks.forEach((task, index) => {
      const map = this.mapById(robot, task.mapId, `tasks.${index}.mapId`);
      firstMap ??= map;
      task.subTasks.forEach((subTask, sub) => {
        const field = `tasks.${index}.subTasks.${sub}`;
        const subMap = this.mapById(robot, subTask.mapId, `${field}.mapId`);
        this.areaOf(subMap, String(subTask.areaId), `${field}.areaId`);
        areaIds.push(String(subTask.areaId));
      });
    });
    if (robot.taskState === "RUNNING" || robot.taskState === "PAUSED") {
      throw new SimError(Code.FAILED_PRECONDITION, `Robot ${robot.serialNumber} is busy with task "${robot.currentTask?.name ?? "unknown"}".`);
    }
    const taskId = randomUUID();
    const task = {
      name: request.taskName,
      source: "site_task",
      cleaningMode: request.cleaningMode,
      map: firstMap!,
      loop: request.loopCount > 1,
      loopCount: request.loopCount,
      areaIds,
      siteId: site.id,
    } as const;
    this.accept(robot, () => {
      if (robot.taskState !== "RUNNING" && robot.taskState !== "PAUSED") this.startTask(robot, task, taskId);
    });
    return {
      taskId,
      taskName: task.name,
      siteId: site.id,
      siteName: site.name,
      serialNumber: robot.serialNumber,
      state: "RUNNING",
      createTime: nanoTimestamp(this.options.now()),
    };
  }

  /** B4: accepted (cmdStatus 5) or refused by the robot (cmdStatus 7) under HTTP 200, like the field notes. */
  sendTempTask(robot: SimRobot, request: Parsed<"sendTempTask">, raw: unknown): Record<string, unknown> {
    requireStrings(raw, [
      ["tempTaskCommand", "loop"],
      ["tempTaskCommand", "loopCount"],
      ["tempTaskCommand", "startParam", "areaId"],
    ]);
    const command = request.tempTaskCommand;
    this.checkCleaningMode(robot, command.cleaningMode, "tempTaskCommand.cleaningMode");
    const answer = (result: { cmdStatus: number; cmdResultCode: string }) => ({
      productId: robot.serialNumber,
      requestId: randomUUID(),
      orderType: "start_task",
      ...result,
    });
    const map = robot.maps.find((candidate) => candidate.id === command.startParam.mapId);
    const areaId = String(command.startParam.areaId);
    const reachable = map !== undefined && map.name === command.mapName && map.partitions.some((partition) => String(partition.id) === areaId);
    if (!reachable) return answer({ cmdStatus: TEMP_TASK_REJECTED, cmdResultCode: TEMP_TASK_AREA_UNREACHABLE });
    if (robot.taskState === "RUNNING" || robot.taskState === "PAUSED") {
      return answer({ cmdStatus: TEMP_TASK_REJECTED, cmdResultCode: TEMP_TASK_ROBOT_BUSY });
    }
    const loopCount = Number(command.loopCount);
    this.accept(robot, () => {
      if (robot.taskState === "RUNNING" || robot.taskState === "PAUSED") return;
      this.startTask(robot, {
        name: command.taskName,
        source: "temp_task",
        cleaningMode: command.cleaningMode,
        map,
        loop: String(command.loop) === "true",
        loopCount,
        areaIds: [areaId],
      });
    });
    return answer(TEMP_TASK_ACCEPTED);
  }

  // ------------------------------------------------------------ Endpoint C

  subareas(robot: SimRobot, mapId: string): { mapId: string; subareas: { partitions: { id: number; name: string }[] } } {
    const map = robot.maps.find((candidate) => candidate.id === mapId);
    if (!map) throw invalid("mapId", `unknown map ${mapId} on robot ${robot.serialNumber}`);
    return { mapId: map.id, subareas: { partitions: map.partitions.map((partition) => ({ ...partition })) } };
  }

  mapList(robot: SimRobot): { mapId: string; mapName: string; mapVersion: number }[] {
    return robot.maps.map((map) => ({ mapId: map.id, mapName: map.name, mapVersion: map.version }));
  }

  // ------------------------------------------------------------ fleet endpoints (field notes)

  /** One page of the account's robots, in fleet order; a page past the end is empty. */
  listRobots(account: AccountSeed, page: number, pageSize: number): { robots: Record<string, unknown>[]; total: string } {
    const visible = [...this.robots.values()].filter((robot) => mayUse(account, robot.serialNumber));
    const robots = visible.slice((page - 1) * pageSize, page * pageSize).map((robot) => ({
      name: `robots/${robot.serialNumber}`,
      serialNumber: robot.serialNumber,
      displayName: robot.displayName,
      modelFamilyCode: "S",
      modelTypeCode: robot.model,
      softwareVersion: robot.firmwareVersion,
      online: robot.online,
    }));
    // int64 comes back as a string (field notes).
    return { robots, total: String(visible.length) };
  }

  /**
   * The robots a batch names, in its order. A name the account cannot use,
   * because no such robot exists or it belongs to another account, fails the
   * whole batch with 403 code 7, as the real cloud answers a comma-joined list
   * (read as one unknown name, field notes); the message names every such robot.
   */
  batchRobots(account: AccountSeed, names: readonly string[]): SimRobot[] {
    const refused = names.filter((name) => !this.robots.has(name) || !mayUse(account, name));
    if (refused.length) {
      throw new SimError(
        Code.PERMISSION_DENIED,
        `The caller has no permission on robot${refused.length > 1 ? "s" : ""} ${[...new Set(refused)].join(", ")} (or no such robot exists).`,
      );
    }
    return names.map((name) => this.robots.get(name)!);
  }

  /** The v1 status (any line): the S-line fields and what the field notes list beyond them. */
  fleetStatus(robot: SimRobot): Record<string, unknown> {
    const map = this.currentMap(robot);
    const task = robot.currentTask;
    return {
      name: `robots/${robot.serialNumber}`,
      serialNumber: robot.serialNumber,
      displayName: robot.displayName,
      online: robot.online,
      taskState: robot.taskState,
      position: { mapId: map.id, mapName: map.name, ...robot.localization.position },
      localizationInfo: { localizationState: robot.localization.state, map: { id: map.id, name: map.name, version: map.version } },
      navStatus: "NAVI_IDLE",
      emergencyStop: { enabled: robot.emergencyStop },
      // Epoch milliseconds as a string, like every int64 of the cloud.
      latestReportTime: String(this.options.now()),
      battery: {
        ...robot.battery,
        soc: robot.battery.powerPercentage,
        soh: 97,
        cycleTimes: 212,
      },
      executableTasks: robot.maps.map((candidate) => ({
        id: stableId(`${robot.serialNumber}/${candidate.id}/all`),
        name: `All of ${candidate.name}`,
        map: { id: candidate.id, name: candidate.name },
      })),
      ...(task ? { executingTask: { id: task.id, name: task.name } } : {}),
      workModes: [
        { id: "1", name: "cleaning", type: "CLEANING" },
        { id: "2", name: "navigation", type: "NAVIGATION" },
      ],
      device: {
        model: robot.model,
        softwareVersion: robot.firmwareVersion,
        parts: [
          { name: "brush", usedLife: 130, lifeSpan: 500 },
          { name: "filter", usedLife: 60, lifeSpan: 250 },
        ],
      },
    };
  }

  /** One page of the robot's task reports, newest first. */
  listTaskReports(robot: SimRobot, page: number, pageSize: number): { robotTaskReports: Record<string, unknown>[]; total: string } {
    const reports = this.taskReports.get(robot.serialNumber) ?? [];
    return { robotTaskReports: structuredClone(reports.slice((page - 1) * pageSize, page * pageSize)), total: String(reports.length) };
  }

  /** Ends the robot's task (stopped, or finished by later simulation) and files its report. */
  finishTask(robot: SimRobot, endStatus: number): void {
    const task = robot.currentTask;
    robot.taskState = "IDLE";
    robot.currentTask = undefined;
    if (!task) return;
    const endMs = this.options.now();
    const startMs = Date.parse(task.startTime);
    const map = robot.maps.find((candidate) => candidate.id === task.mapId);
    const areas = task.areaIds.length || map?.partitions.length || 1;
    const plannedSeconds = areas * SECONDS_PER_AREA * Math.max(1, task.loopCount);
    const durationSeconds = Math.max(0, Math.round((endMs - startMs) / 1000));
    const completion = endStatus === TASK_END_STATUS.FINISHED ? 1 : Math.min(1, durationSeconds / plannedSeconds);
    const reports = this.taskReports.get(robot.serialNumber)!;
    reports.unshift(
      this.report(robot, {
        id: randomUUID(),
        name: task.name,
        cleaningMode: task.cleaningMode,
        mapId: task.mapId,
        mapName: task.mapName,
        taskId: task.id,
        plannedArea: areas * AREA_SQUARE_METRES * Math.max(1, task.loopCount),
        completion,
        durationSeconds,
        startMs,
        endMs,
        endStatus,
        startBattery: robot.battery.powerPercentage,
      }),
    );
    reports.length = Math.min(reports.length, MAX_TASK_REPORTS_PER_ROBOT);
  }

  /** One or two finished tasks of the last days, the same on every start. */
  private seededReports(robot: SimRobot, index: number): Record<string, unknown>[] {
    const reports: Record<string, unknown>[] = [];
    const now = this.options.now();
    const count = 1 + (index % 2);
    for (let day = 1; day <= count; day++) {
      const map = robot.maps[(day - 1) % robot.maps.length]!;
      const durationSeconds = map.partitions.length * SECONDS_PER_AREA;
      const endMs = now - day * 24 * 3600_000;
      reports.push(
        this.report(robot, {
          id: stableId(`${robot.serialNumber}/report/${day}`),
          name: `Nightly ${map.name}`,
          cleaningMode: robot.cleanModes[0] ?? "__middle_cleaning",
          mapId: map.id,
          mapName: map.name,
          taskId: stableId(`${robot.serialNumber}/task/${day}`),
          plannedArea: map.partitions.length * AREA_SQUARE_METRES,
          completion: day === 1 ? 1 : 0.87,
          durationSeconds,
          startMs: endMs - durationSeconds * 1000,
          endMs,
          endStatus: day === 1 ? TASK_END_STATUS.FINISHED : TASK_END_STATUS.STOPPED,
          startBattery: 100,
        }),
      );
    }
    return reports;
  }

  /** A task report with the fields the field notes list. */
  private report(
    robot: SimRobot,
    task: {
      id: string;
      name: string;
      cleaningMode: string;
      mapId: string;
      mapName: string;
      taskId: string;
      plannedArea: number;
      completion: number;
      durationSeconds: number;
      startMs: number;
      endMs: number;
      endStatus: number;
      startBattery: number;
    },
  ): Record<string, unknown> {
    const actualArea = round(task.plannedArea * task.completion);
    const hours = task.durationSeconds / 3600;
    const endBattery = Math.max(0, Math.round(task.startBattery - hours * 20));
    return {
      id: task.id,
      displayName: task.name,
      robotSerialNumber: robot.serialNumber,
      operator: "open-platform",
      completionPercentage: round(task.completion),
      durationSeconds: task.durationSeconds,
      plannedCleaningAreaSquareMeter: task.plannedArea,
      actualCleaningAreaSquareMeter: actualArea,
      efficiencySquareMeterPerHour: hours > 0 ? round(actualArea / hours) : 0,
      waterConsumptionLiter: round(actualArea * 0.02),
      startBatteryPercentage: task.startBattery,
      endBatteryPercentage: endBattery,
      consumablesResidualPercentage: { brush: 0.74, filter: 0.81, suctionBlade: 0.9 },
      cleaningMode: task.cleaningMode,
      taskEndStatus: task.endStatus,
      subTasks: [{ mapId: task.mapId, mapName: task.mapName, actualCleaningAreaSquareMeter: actualArea, taskId: task.taskId }],
      startTime: milliTimestamp(task.startMs),
      endTime: milliTimestamp(task.endMs),
    };
  }

  /**
   * The map a map-image request names: its id on this robot, with the name and
   * version of the map list (C2); a mismatch is code 3 naming the field, with
   * what the map list says, so a flow that mixes up two maps hears about it.
   */
  imageMap(robot: SimRobot, request: Parsed<"getMapImageUri">): SimMap {
    const map = robot.maps.find((candidate) => candidate.id === request.mapId);
    if (!map) throw invalid("mapId", `unknown map ${request.mapId} on robot ${robot.serialNumber} (${robot.maps.map((m) => m.id).join(", ")})`);
    if (request.mapName !== map.name) throw invalid("mapName", `map ${map.id} is named "${map.name}", not "${request.mapName}"`);
    if (request.mapVersion !== String(map.version)) {
      throw invalid("mapVersion", `map ${map.name} is at version ${map.version}, not ${request.mapVersion}`);
    }
    return map;
  }

  /** The PNG of a robot's map as it is now (the robot marked when it is on it); undefined when there is no such map. */
  mapImage(serialNumber: string, mapId: string): Buffer | undefined {
    const robot = this.robots.get(serialNumber);
    const map = robot?.maps.find((candidate) => candidate.id === mapId);
    if (!robot || !map) return undefined;
    return drawMap(map, robot.localization.mapId === map.id ? robot.localization.position : undefined);
  }

  // ------------------------------------------------------------ helpers

  private currentMap(robot: SimRobot): SimMap {
    return robot.maps.find((map) => map.id === robot.localization.mapId) ?? robot.maps[0]!;
  }

  private siteOf(robot: SimRobot): SimSite {
    const site = robot.siteId === undefined ? undefined : this.sites.get(robot.siteId);
    if (!site) throw new SimError(Code.NOT_FOUND, "The robot is not on a site.");
    return site;
  }

  private mapById(robot: SimRobot, mapId: string, field: string): SimMap {
    const map = robot.maps.find((candidate) => candidate.id === mapId);
    if (!map) throw invalid(field, `unknown map ${mapId} on robot ${robot.serialNumber} (${robot.maps.map((m) => m.id).join(", ")})`);
    return map;
  }

  private areaOf(map: SimMap, areaId: string, field: string): void {
    if (!map.partitions.some((partition) => String(partition.id) === areaId)) {
      throw invalid(field, `unknown area ${areaId} on map ${map.name} (${map.partitions.map((p) => `${p.id} ${p.name}`).join(", ")})`);
    }
  }
}

function names(items: readonly { name: string }[]): string {
  return items.map((item) => item.name).join(", ");
}

/**
 * The real cloud parses B3 and B4 against protobuf string fields: a number or
 * boolean where a string belongs is refused (field notes), although the
 * client's schema would turn it into a string. This checks the wire form.
 */
function requireStrings(raw: unknown, paths: (string | number)[][]): void {
  for (const path of paths) {
    let value: unknown = raw;
    for (const key of path) value = (value as Record<string | number, unknown> | undefined)?.[key];
    if (value !== undefined && typeof value !== "string") {
      throw invalid(path.join("."), `invalid value ${JSON.stringify(value)} for type TYPE_STRING`);
    }
  }
}
