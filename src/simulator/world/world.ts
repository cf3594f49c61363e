/**
 * The simulated fleet's state and how it moves with time: robots, sites,
 * stored commands, task reports, effects that fall due, batteries,
 * navigations and tasks. The endpoints' modules (robot-commands, temp-tasks,
 * views) read and change it; no HTTP here, and failures are SimErrors that
 * the server frames as the endpoint's error style.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Endpoints, OperationName } from "../../api/cloud/endpoints";
import type { CommandResource } from "../../api/cloud/schemas";
import {
  mayUse,
  type AccountSeed,
  type CurrentTask,
  type FleetSeed,
  type NavigationPoint,
  type Position,
  type SimMap,
  type SimRobot,
  type SimSite,
} from "./fleet";
import { poseAt } from "../maps/geometry";
import { drawMap } from "../maps/map-image";
import { chargingPoint, cleaningFrom, navigationLeg, onImage, poseOnLeg, type Motion } from "../maps/movement";
import { METRES_PER_PIXEL } from "../maps/maps";
import { LOW_BATTERY_PERCENT, canAct, notReadyFor } from "./readiness";
import { ReportBook, type FiledReport, type ReportWindow } from "./report-book";
import type { RobotChanges } from "../server/control-requests";
import { Code, SimError, invalid, unreachable } from "../server/sim-errors";
import { SECONDS_PER_AREA, TASK_END_STATUS, finishedTaskReport, pastReport, seededReports } from "./task-reports";
import { INSTANT_TIMING, type Timing } from "./timing";
import type { TaskFault } from "../faults/faults";
import { milliTimestamp } from "./values";
import { cleaningModeOf, currentMap } from "./views";
import { countCharge, wearWhileCleaning } from "./wear";

/** A request as the endpoint's schema returns it (numbers of B3/B4 already turned into strings). */
export type Parsed<Op extends OperationName> = z.output<Endpoints[Op]["request"]>;

/** What a running task shows in the v1 status's executingTask (docs/cloud-api.md). */
export interface TaskProgress {
  /** 0-1. */
  progress: number;
  /** Seconds. */
  timeRemaining: number;
  /** Metres travelled while cleaning. */
  cleaningMileage: number;
}

/** Metres per second the simulator counts while a task runs with a robot that does not move on its map (speed 0). */
const NOMINAL_CLEANING_SPEED = 0.5;

export interface WorldOptions {
  now: () => number;
  maxCommandsPerRobot: number;
  timing?: Partial<Timing>;
  /** Whether a robot ignores the command it was just given (the server's fault dice, so a run repeats). */
  ignores?: () => boolean;
  /** How a task start fails, if it does (the server's task-fault dice). */
  taskFault?: () => TaskFault | undefined;
  /** Told of each task report as it is filed (a task ended, or failed to start). */
  taskEnded?: (robot: SimRobot, filed: FiledReport) => void;
  /**
   * Called after every change of the fleet (a command's effect, time passing,
   * updateRobot) with the robots it may have changed and its time: the one
   * place that notices what changed (incidents).
   */
  changed?: (robots: Iterable<SimRobot>, at: number) => void;
}

export type { Motion } from "../maps/movement";

/** An accepted command's effect, due at a time. */
interface PendingEffect {
  due: number;
  robot: SimRobot;
  apply: () => void;
  /** What happens instead when the robot hears the command but cannot act (emergency stop, lost). */
  cannotAct?: () => void;
}

export class World {
  readonly robots = new Map<string, SimRobot>();
  readonly sites = new Map<string, SimSite>();
  /** Per robot, in submission order; the oldest are dropped past the cap. */
  readonly commands = new Map<string, Map<string, CommandResource>>();
  readonly reports = new ReportBook();
  readonly timing: Timing;
  private readonly motion = new Map<SimRobot, Motion>();
  /** Effects of accepted commands not yet due, oldest first (one delay for all keeps them in order). */
  private readonly pending: PendingEffect[] = [];
  /** The due time of the effect being applied: its "now", so a late poll does not shift what it started. */
  private applying: number | undefined;

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
      for (const filed of seededReports(robot, index, now)) this.reports.file(robot.serialNumber, filed);
      this.motion.set(robot, {
        lastMs: now,
        battery: robot.battery.powerPercentage,
        taskRunMs: 0,
        navigation: undefined,
        cleaning: undefined,
      });
    });
  }

  /** The simulated clock's time now (while an effect that fell due is applied: its due time). */
  now(): number {
    return this.applying ?? this.options.now();
  }

  get maxCommandsPerRobot(): number {
    return this.options.maxCommandsPerRobot;
  }

  /** What time does to the robot between answers (its navigation under way, its task's running time). */
  motionOf(robot: SimRobot): Motion {
    return this.motion.get(robot)!;
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
      this.applying = effect.due;
      try {
        this.act(effect);
        this.options.changed?.([effect.robot], effect.due);
      } finally {
        this.applying = undefined;
      }
    }
    this.elapse(now);
    this.options.changed?.(this.robots.values(), now);
  }

  /**
   * Runs an accepted command's effect after the command delay, unless the
   * robot ignores it (ignoreRate) or does not hear it (offline); one that
   * hears it but cannot act runs `cannotAct` instead.
   */
  accept(robot: SimRobot, apply: () => void, cannotAct?: () => void): void {
    if (this.options.ignores?.()) return;
    const effect = { due: this.options.now() + this.timing.commandDelayMs, robot, apply, cannotAct };
    if (this.timing.commandDelayMs === 0 && robot.online) {
      this.act(effect);
      this.options.changed?.([robot], this.now());
      return;
    }
    this.pending.push(effect);
  }

  private act(effect: PendingEffect): void {
    if (canAct(effect.robot)) effect.apply();
    else if (effect.robot.online) effect.cannotAct?.();
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
      else
        robot.localization.position = poseOnLeg({ ...navigation, arriveAt: navigation.arriveAt }, end, robot.localization.position.angle);
    }
    if (robot.taskState === "RUNNING") {
      const left = this.timing.taskDurationMs > 0 ? this.timing.taskDurationMs - motion.taskRunMs : Infinity;
      const failsIn = motion.batteryFailsAtMs === undefined ? Infinity : motion.batteryFailsAtMs - motion.taskRunMs;
      const span = Math.min(until - at, left, failsIn);
      motion.taskRunMs += span;
      this.travel(robot, motion, span);
      this.drain(robot, motion, span);
      wearWhileCleaning(robot.wear, cleaningModeOf(robot), span);
      at += span;
      // `at` is the moment the task ran out, earlier than the request that brought the clock here.
      if (span === failsIn) this.batteryFails(robot, motion, at);
      else if (motion.battery <= 0) this.finishTask(robot, TASK_END_STATUS.STOPPED, false, at);
      else if (motion.taskRunMs >= this.timing.taskDurationMs && this.timing.taskDurationMs > 0)
        this.finishTask(robot, TASK_END_STATUS.FINISHED, false, at);
    }
    if (robot.battery.charging) {
      this.dock(robot);
      const gained = Math.min(100 - motion.battery, ((until - at) / 60_000) * this.timing.batteryChargePerMinute);
      this.setBattery(robot, motion, motion.battery + gained);
      countCharge(robot.wear.battery, gained);
    }
  }

  /**
   * The task fault "battery": the battery falls below the level a robot starts
   * a task at (raising its critical-battery incident), the task ends in error,
   * and the robot heads for its map's charger, where it charges; all at
   * `failedAt`.
   */
  private batteryFails(robot: SimRobot, motion: Motion, failedAt: number): void {
    motion.batteryFailsAtMs = undefined;
    this.setBattery(robot, motion, Math.min(motion.battery, LOW_BATTERY_PERCENT - 1));
    this.finishTask(robot, TASK_END_STATUS.ERROR, false, failedAt);
    const map = currentMap(robot);
    const charger = chargingPoint(map);
    if (charger) this.navigate(robot, map, charger, this.timing.navigationMs, failedAt);
  }

  /** How the next task start fails, if it does (the task-fault dice; none unless the simulator's taskFaultRate is above 0). */
  taskFault(): TaskFault | undefined {
    return this.options.taskFault?.();
  }

  /** Moves a cleaning robot `ms` of running time further along its route, at the timing's speed. */
  private travel(robot: SimRobot, motion: Motion, ms: number): void {
    const cleaning = motion.cleaning;
    if (!cleaning || !(this.timing.speedPixelsPerSecond > 0)) return;
    cleaning.travelled += (ms / 1000) * this.timing.speedPixelsPerSecond;
    robot.localization.position = poseAt(cleaning.route, cleaning.travelled, robot.localization.position.angle);
  }

  /** A charging robot stands at its map's charging point. */
  private dock(robot: SimRobot): void {
    const point = chargingPoint(currentMap(robot));
    if (point) robot.localization.position = { x: point.x, y: point.y, angle: point.angle };
  }

  private drain(robot: SimRobot, motion: Motion, ms: number): void {
    if (this.timing.batteryDrainPerMinute > 0)
      this.setBattery(robot, motion, motion.battery - (ms / 60_000) * this.timing.batteryDrainPerMinute);
  }

  private setBattery(robot: SimRobot, motion: Motion, percent: number): void {
    motion.battery = Math.min(100, Math.max(0, percent));
    robot.battery.powerPercentage = Math.round(motion.battery);
  }

  arrive(robot: SimRobot, map: SimMap, point: NavigationPoint): void {
    robot.localization.mapId = map.id;
    robot.localization.position = { x: point.x, y: point.y, angle: point.angle };
    robot.battery.charging = point.name === "charging";
    robot.navigation = { state: "ARRIVED", mapName: map.name, position: point.name };
    this.motion.get(robot)!.navigation = undefined;
  }

  /**
   * Sets off to a navigation point, arriving after `needsMs` (at once when 0).
   * On another map, the robot first comes onto it at its entrance (the lift).
   */
  navigate(robot: SimRobot, map: SimMap, point: NavigationPoint, needsMs: number, startedAt = this.now()): void {
    if (robot.localization.mapId !== map.id) this.enterMap(robot, map);
    if (needsMs <= 0) {
      this.arrive(robot, map, point);
      return;
    }
    robot.battery.charging = false;
    robot.navigation = { state: "NAVIGATING", mapName: map.name, position: point.name };
    this.motionOf(robot).navigation = navigationLeg(map, point, robot.localization.position, needsMs, startedAt);
  }

  /** Puts the robot onto another of its maps, at that map's entrance. */
  private enterMap(robot: SimRobot, map: SimMap): void {
    robot.localization.mapId = map.id;
    robot.localization.position = { ...map.entrance, angle: robot.localization.position.angle };
    robot.battery.charging = false;
  }

  /**
   * Places the robot at `position` on its current map (the control API's
   * mapPosition, already checked to be on the map's image): off the charger,
   * and a task or navigation under way goes on from there.
   */
  private place(robot: SimRobot, position: Position): void {
    const motion = this.motionOf(robot);
    robot.localization.position = { ...position };
    robot.battery.charging = false;
    const map = currentMap(robot);
    if (motion.cleaning) motion.cleaning = cleaningFrom(map, position, robot.currentTask?.areaIds ?? []);
    const leg = motion.navigation;
    if (leg?.arriveAt !== undefined) motion.navigation = navigationLeg(leg.map, leg.point, position, leg.arriveAt - this.now(), this.now());
  }

  /**
   * Changes a robot the way the control API's PATCH does: what a test or a
   * demo needs to make happen (offline, low battery, an emergency stop).
   */
  updateRobot(robot: SimRobot, changes: RobotChanges): void {
    this.advance(this.options.now());
    const map = currentMap(robot);
    if (changes.mapPosition) {
      const { x, y } = changes.mapPosition;
      if (changes.charging)
        throw invalid("mapPosition", "a charging robot stands at the charging point: give charging true or mapPosition, not both");
      if (!onImage(map, { x, y })) {
        throw invalid(
          "mapPosition",
          `(${x}, ${y}) is not on map ${map.name} of ${map.width} x ${map.height} pixels: x from 0 to below ${map.width}, y above 0 up to ${map.height} (rows from the bottom edge)`,
        );
      }
    }
    const motion = this.motion.get(robot)!;
    if (changes.online !== undefined) robot.online = changes.online;
    if (changes.reachable !== undefined) robot.reachable = changes.reachable;
    if (changes.batteryPercentage !== undefined) this.setBattery(robot, motion, changes.batteryPercentage);
    if (changes.charging !== undefined) robot.battery.charging = changes.charging;
    if (changes.emergencyStop !== undefined) robot.emergencyStop = changes.emergencyStop;
    if (changes.localizationState !== undefined) robot.localization.state = changes.localizationState;
    if (changes.taskState !== undefined) {
      if (changes.taskState === "IDLE" && robot.currentTask) this.finishTask(robot, TASK_END_STATUS.STOPPED);
      robot.taskState = changes.taskState;
      // Running with no task's areas: it cleans the whole floor.
      if (changes.taskState === "RUNNING" && !motion.cleaning) motion.cleaning = cleaningFrom(map, robot.localization.position, []);
    }
    if (changes.mapPosition) this.place(robot, changes.mapPosition);
    if (robot.battery.charging) this.dock(robot);
    this.options.changed?.([robot], this.now());
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

  /**
   * The robots a batch names, in its order. A name the account cannot use,
   * because no such robot exists or it belongs to another account, fails the
   * whole batch with 403 code 7, as the real cloud answers a comma-joined list
   * (read as one unknown name, docs/cloud-api.md); the message names every such robot.
   * A robot the cloud cannot reach (reachable false) fails it whole with 230003.
   */
  batchRobots(account: AccountSeed, names: readonly string[]): SimRobot[] {
    const refused = names.filter((name) => !this.robots.has(name) || !mayUse(account, name));
    if (refused.length) {
      throw new SimError(
        Code.PERMISSION_DENIED,
        `The caller has no permission on robot${refused.length > 1 ? "s" : ""} ${[...new Set(refused)].join(", ")} (or no such robot exists).`,
      );
    }
    return names.map((name) => this.reachableRobot(this.robots.get(name)!));
  }

  /** The robot of a single status read: 230003 while the cloud cannot reach it, as in a batch. */
  reachableRobot(robot: SimRobot): SimRobot {
    if (robot.reachable === false) throw unreachable(robot.serialNumber);
    return robot;
  }

  /** One page of the robot's task reports in a window of their start, newest first. */
  listTaskReports(
    robot: SimRobot,
    window: ReportWindow,
    imageUrl: (key: string) => string,
  ): { robotTaskReports: Record<string, unknown>[]; total: string } {
    return this.reports.list(robot.serialNumber, window, imageUrl);
  }

  /** Files a report of a task that ran in the past (the control API); returns it. */
  addPastReport(robot: SimRobot, raw: unknown): FiledReport {
    const filed = pastReport(robot, raw);
    if (this.reports.find(robot.serialNumber, String(filed.report.id)))
      throw invalid("id", `robot ${robot.serialNumber} already has report ${String(filed.report.id)}`);
    this.reports.file(robot.serialNumber, filed);
    return filed;
  }

  /**
   * Ends the robot's task (stopped, or finished by later simulation) and files
   * its report; one that ends while the emergency stop is pressed ends in
   * error, unless `exactly` (the control API ending it with a given status);
   * the report ends at `endedAt`.
   */
  finishTask(robot: SimRobot, endStatus: number, exactly = false, endedAt = this.now()): void {
    const task = robot.currentTask;
    robot.taskState = "IDLE";
    robot.currentTask = undefined;
    this.motionOf(robot).cleaning = undefined;
    if (!task) return;
    const status = robot.emergencyStop && !exactly ? TASK_END_STATUS.ERROR : endStatus;
    this.file(robot, finishedTaskReport(robot, task, status, endedAt));
  }

  private file(robot: SimRobot, filed: FiledReport): void {
    this.reports.file(robot.serialNumber, filed);
    this.options.taskEnded?.(robot, filed);
  }

  /** How far the robot's task is: by its run time against the timing's task duration, else against the time its areas take. */
  taskProgress(robot: SimRobot): TaskProgress | undefined {
    const task = robot.currentTask;
    if (!task) return undefined;
    const motion = this.motionOf(robot);
    const plannedMs = this.plannedTaskMs(robot, task);
    const runMs = Math.min(motion.taskRunMs, plannedMs);
    const metresPerSecond =
      this.timing.speedPixelsPerSecond > 0 ? this.timing.speedPixelsPerSecond * METRES_PER_PIXEL : NOMINAL_CLEANING_SPEED;
    return {
      progress: Math.round((runMs / plannedMs) * 1000) / 1000,
      timeRemaining: Math.max(0, Math.round((plannedMs - runMs) / 1000)),
      cleaningMileage: Math.round((runMs / 1000) * metresPerSecond * 10) / 10,
    };
  }

  /** How long a task runs: the timing's task duration, else the time its areas take. */
  private plannedTaskMs(robot: SimRobot, task: CurrentTask): number {
    const areas = task.areaIds.length || robot.maps.find((map) => map.id === task.mapId)?.partitions.length || 1;
    return this.timing.taskDurationMs > 0 ? this.timing.taskDurationMs : areas * SECONDS_PER_AREA * 1000 * Math.max(1, task.loopCount);
  }

  /** The PNG of a robot's map (its floor plan: no robot on it, as the real cloud's); undefined when there is no such map. */
  mapImage(serialNumber: string, mapId: string): Buffer | undefined {
    const map = this.robots.get(serialNumber)?.maps.find((candidate) => candidate.id === mapId);
    return map ? drawMap(map) : undefined;
  }

  /**
   * Starts a task on the robot now (its effect has come due). A robot that
   * cannot (battery low; emergency stop or lost when called directly) files
   * a report of a task that failed to start instead.
   */
  startTask(robot: SimRobot, task: StartingTask, id: string = randomUUID(), fault?: TaskFault): CurrentTask | undefined {
    if (notReadyFor(robot)) {
      this.failToStart(robot, task, id);
      return undefined;
    }
    const { map, ...rest } = task;
    if (robot.localization.mapId !== map.id) this.enterMap(robot, map);
    robot.currentTask = {
      ...rest,
      id,
      mapId: map.id,
      mapName: map.name,
      startTime: milliTimestamp(this.now()),
    };
    robot.taskState = "RUNNING";
    robot.battery.charging = false;
    robot.navigation = undefined;
    const motion = this.motionOf(robot);
    motion.taskRunMs = 0;
    motion.navigation = undefined;
    motion.batteryFailsAtMs = fault?.kind === "battery" ? fault.atShare * this.plannedTaskMs(robot, robot.currentTask) : undefined;
    // It cleans from where it stands: to the first of the task's rooms, then lanes over each.
    motion.cleaning = cleaningFrom(map, robot.localization.position, rest.areaIds);
    return robot.currentTask;
  }

  /** Files the report of a task the robot could not start (taskEndStatus 3); the robot stays as it was. */
  failToStart(robot: SimRobot, task: StartingTask, id: string = randomUUID()): void {
    const { map, ...rest } = task;
    const now = this.now();
    const never: CurrentTask = { ...rest, id, mapId: map.id, mapName: map.name, startTime: milliTimestamp(now) };
    this.file(robot, finishedTaskReport(robot, never, TASK_END_STATUS.FAILED_TO_START, now));
  }
}

export interface StartingTask extends Omit<CurrentTask, "id" | "mapId" | "mapName" | "startTime"> {
  map: SimMap;
}
