/**
 * Watching robots: the part of a status that matters to a flow, what changed
 * between two polls (a pure function), a fleet watcher that polls through the
 * client and reports changes, and waiting until one robot's status shows
 * something (command confirmation). robot-status's watch mode and the
 * confirmation of robot-command and robot-site-task are its two users. No
 * Node-RED here.
 */
import type { CallOptions, RobotClient } from "./client";
import { AbortGroups } from "./abort-groups";
import { REAL_CLOCK, type EngineClock } from "./clock";
import { RobotApiError, abortedError } from "./errors";

/** What a watcher compares of a status (B1, the S-line batch or the v1 batch: the fields they share). */
export interface RobotState {
  serialNumber: string;
  displayName?: string;
  online?: boolean;
  taskState?: string;
  charging?: boolean;
  /** Battery charge in percent. */
  battery?: number;
  emergencyStop?: boolean;
  localizationState?: string;
  /** Name of the task the robot runs (B1 currentTask, v1 executingTask). */
  taskName?: string;
  /** The navigation the status reports, where it reports one (the simulator's B1 does). */
  navigation?: { state?: string; position?: string };
  remoteControl?: boolean;
  /** The map the robot is on (localizationInfo.map.id). */
  mapId?: string;
  /** Where on it: pixels of the map image, rows from the bottom edge, angle in degrees (docs/cloud-api.md). */
  position?: MapPosition;
}

export interface MapPosition {
  x: number;
  y: number;
  angle: number;
}

/** The properties a change is reported for, in the order msg.changes lists them. */
export const WATCHED_PROPERTIES = [
  "online",
  "taskState",
  "taskName",
  "charging",
  "battery",
  "batteryLow",
  "emergencyStop",
  "localizationState",
  "map",
  "position",
] as const;
export type WatchedProperty = (typeof WATCHED_PROPERTIES)[number];

/** One change: the value before (absent on a robot's first report) and now. */
export interface Change {
  old?: unknown;
  new?: unknown;
}
export type Changes = Partial<Record<WatchedProperty, Change>>;

export interface BatteryThresholds {
  /** A change is reported each time the battery crosses a multiple of this (percent, 1-100). */
  step: number;
  /** At or below this the robot is "low" (percent, 0-100); crossing it is reported as batteryLow. */
  low: number;
}

export const DEFAULT_BATTERY_THRESHOLDS: BatteryThresholds = { step: 10, low: 20 };

/** A move smaller than this (pixels) or a turn smaller than this (degrees) is not a change: a robot at rest jitters. */
export const MOVE_PIXELS = 1;
export const TURN_DEGREES = 5;

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function flag(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

/** A number, or a number the cloud sent as a string (int64 values come as strings). */
function numeric(value: unknown): number | undefined {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof number === "number" && Number.isFinite(number) ? number : undefined;
}

/** The watched part of a status, from any of the cloud's status shapes; what a status lacks stays undefined. */
/**
 * What the last status says that keeps a robot from acting on a command, for
 * the NOT_CONFIRMED message: offline, stopped by its emergency stop, or lost.
 */
function whyNotShown(lastStatus: Record<string, unknown> | undefined): string {
  if (!lastStatus) return ": no status of the robot was read";
  const state = robotStateOf(lastStatus);
  const reasons = [
    state.online === false ? "offline" : undefined,
    state.emergencyStop === true ? "stopped by its emergency stop" : undefined,
    state.localizationState === "LOST" ? "lost (localization LOST)" : undefined,
  ].filter((reason) => reason !== undefined);
  return reasons.length ? `: the robot was ${reasons.join(", ")} at its last status` : "";
}

export function robotStateOf(status: Record<string, unknown>): RobotState {
  const battery = record(status.battery);
  const localization = record(status.localizationInfo);
  const task = record(status.executingTask) ?? record(status.currentTask);
  const navigation = record(status.navigation);
  const name = text(status.name);
  const state: RobotState = {
    serialNumber: text(status.serialNumber) ?? (name?.startsWith("robots/") ? name.slice("robots/".length) : ""),
    displayName: text(status.displayName),
    online: flag(status.online),
    taskState: text(status.taskState),
    charging: flag(battery?.charging),
    battery: numeric(battery?.powerPercentage ?? battery?.soc),
    emergencyStop: flag(record(status.emergencyStop)?.enabled),
    localizationState: text(localization?.localizationState),
    taskName: text(task?.name),
    remoteControl: flag(record(status.remoteControl)?.enabled),
  };
  if (navigation) state.navigation = { state: text(navigation.state), position: text(navigation.position) };
  const mapId = text(record(localization?.map)?.id);
  if (mapId !== undefined) state.mapId = mapId;
  const position = record(localization?.mapPosition);
  const [x, y, angle] = [numeric(position?.x), numeric(position?.y), numeric(position?.angle)];
  if (x !== undefined && y !== undefined) state.position = { x, y, angle: angle ?? 0 };
  return state;
}

function moved(before: MapPosition | undefined, now: MapPosition | undefined): boolean {
  if (!before || !now) return before !== now;
  const turn = Math.abs(((now.angle - before.angle + 540) % 360) - 180);
  return Math.hypot(now.x - before.x, now.y - before.y) >= MOVE_PIXELS || turn >= TURN_DEGREES;
}

function batteryBand(battery: number | undefined, step: number): number | undefined {
  return battery === undefined ? undefined : Math.floor(battery / step);
}

function isLow(battery: number | undefined, low: number): boolean | undefined {
  return battery === undefined ? undefined : battery <= low;
}

/**
 * What changed from `previous` to `current` that a flow cares about. With no
 * previous state (a robot's first report) every known property is listed,
 * with no old value, so a flow that reacts to `changes.batteryLow.new` also
 * sees a robot that was already low when watching began. The battery counts
 * as changed only when it crosses a multiple of `step`; `batteryLow` when it
 * crosses `low`. With `moves`, the map and the position are compared too: a
 * move of MOVE_PIXELS or a turn of TURN_DEGREES counts.
 */
export function diffRobotStates(previous: RobotState | undefined, current: RobotState, thresholds: BatteryThresholds = DEFAULT_BATTERY_THRESHOLDS, moves = false): Changes {
  const changes: Changes = {};
  const before: RobotState = previous ?? { serialNumber: current.serialNumber };
  const compare = (property: WatchedProperty, old: unknown, now: unknown, differ = old !== now) => {
    if (previous === undefined) {
      if (now !== undefined) changes[property] = { new: now };
    } else if (differ) {
      changes[property] = old === undefined ? { new: now } : now === undefined ? { old } : { old, new: now };
    }
  };
  compare("online", before.online, current.online);
  compare("taskState", before.taskState, current.taskState);
  compare("taskName", before.taskName, current.taskName);
  compare("charging", before.charging, current.charging);
  compare("battery", before.battery, current.battery, batteryBand(before.battery, thresholds.step) !== batteryBand(current.battery, thresholds.step));
  compare("batteryLow", isLow(before.battery, thresholds.low), isLow(current.battery, thresholds.low));
  compare("emergencyStop", before.emergencyStop, current.emergencyStop);
  compare("localizationState", before.localizationState, current.localizationState);
  if (moves) {
    compare("map", before.mapId, current.mapId);
    compare("position", before.position, current.position, moved(before.position, current.position));
  }
  return changes;
}

// ------------------------------------------------------------ the fleet watcher

/** Polls closer together than this are refused (the account's quota is shared by every flow). */
export const MIN_WATCH_INTERVAL_MS = 5000;
export const DEFAULT_WATCH_INTERVAL_MS = 30_000;

export interface FleetWatchSettings {
  /** Robots to watch; empty: every robot of the account, listed again at each poll. */
  serialNumbers: readonly string[];
  /** Which batch status: "v1" (any line, richer) or "s" (S-line, B1's shape). */
  line: "v1" | "s";
  thresholds: BatteryThresholds;
  /** Also report a robot's map and position changing (a live map needs them). */
  moves?: boolean;
  /** Signal and tracker of every call the watcher makes. */
  callOptions?: CallOptions;
}

/** One robot after a poll: its status as the cloud gave it, and what changed. */
export interface RobotUpdate {
  serialNumber: string;
  status: Record<string, unknown>;
  state: RobotState;
  changes: Changes;
  /** The robot's first report since watching began. */
  initial: boolean;
  /** online went from true to false. */
  wentOffline: boolean;
}

export interface PollSummary {
  /** Robots seen in this poll. */
  robots: number;
  online: number;
  /** Wall-clock time the poll's answers came in. */
  at: Date;
}

/**
 * Keeps the last known state of each robot and turns each poll into the
 * updates that carry a change. A failed poll changes nothing it knows.
 */
export class FleetWatcher {
  private readonly known = new Map<string, RobotState>();

  constructor(
    private readonly client: RobotClient,
    readonly settings: FleetWatchSettings,
  ) {}

  /** One poll: the robots' statuses (listing the account's robots first when none are named), diffed against the last. */
  async poll(): Promise<{ updates: RobotUpdate[]; summary: PollSummary }> {
    const { serialNumbers, line, thresholds, moves = false, callOptions = {} } = this.settings;
    const names = serialNumbers.length > 0 ? serialNumbers : (await this.client.listAllRobots(callOptions)).map((robot) => robot.serialNumber);
    const statuses = names.length === 0 ? [] : await this.client.batchGetStatuses(names, { ...callOptions, line });
    const updates: RobotUpdate[] = [];
    let online = 0;
    for (const status of statuses as Record<string, unknown>[]) {
      const state = robotStateOf(status);
      if (!state.serialNumber) continue;
      if (state.online) online++;
      const previous = this.known.get(state.serialNumber);
      this.known.set(state.serialNumber, state);
      const changes = diffRobotStates(previous, state, thresholds, moves);
      if (previous !== undefined && Object.keys(changes).length === 0) continue;
      const wentOffline = previous?.online === true && state.online === false;
      updates.push({ serialNumber: state.serialNumber, status, state, changes, initial: previous === undefined, wentOffline });
    }
    return { updates, summary: { robots: statuses.length, online, at: new Date() } };
  }
}

export interface WatchHandlers {
  /** Each poll's updates (an empty list when nothing changed) and its summary. */
  polled(updates: RobotUpdate[], summary: PollSummary): void;
  /** The first failure of a streak of failed polls; later failures of the same streak are only counted. */
  failed(error: RobotApiError, streak: number): void;
  /** Every failed poll, with how many failed in a row so far (for a status). */
  failing?(error: RobotApiError, streak: number): void;
  /** The first good poll after `failures` failed ones. */
  recovered(failures: number): void;
}

/**
 * Runs a watcher's polls one after the other, `intervalMs` apart (from the end
 * of one to the start of the next: a slow cloud never gets overlapping polls),
 * until stopped. pollNow() polls at once (an input message) and restarts the
 * interval.
 */
export class WatchLoop {
  private timer: unknown;
  private running: Promise<void> | undefined;
  private stopped = false;
  private streak = 0;

  constructor(
    private readonly watcher: FleetWatcher,
    private readonly intervalMs: number,
    private readonly handlers: WatchHandlers,
    private readonly clock: EngineClock = REAL_CLOCK,
  ) {}

  start(): void {
    void this.pollNow();
  }

  /** Polls now unless a poll is under way (then waits for that one); resolves when it ended. */
  pollNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) return this.running;
    this.clock.clearTimeout(this.timer);
    this.running = this.once().finally(() => {
      this.running = undefined;
      if (!this.stopped) this.timer = this.clock.setTimeout(() => void this.pollNow(), this.intervalMs);
    });
    return this.running;
  }

  stop(): void {
    this.stopped = true;
    this.clock.clearTimeout(this.timer);
  }

  private async once(): Promise<void> {
    let outcome: Awaited<ReturnType<FleetWatcher["poll"]>>;
    try {
      outcome = await this.watcher.poll();
    } catch (error) {
      if (this.stopped) return;
      const failure = error instanceof RobotApiError ? error : new RobotApiError({ kind: "network", message: String(error) });
      if (failure.kind === "aborted") return;
      this.streak++;
      this.handlers.failing?.(failure, this.streak);
      if (this.streak === 1) this.handlers.failed(failure, this.streak);
      return;
    }
    if (this.stopped) return;
    if (this.streak > 0) {
      const failures = this.streak;
      this.streak = 0;
      this.handlers.recovered(failures);
    }
    this.handlers.polled(outcome.updates, outcome.summary);
  }
}

// ------------------------------------------------------------ confirmation

/** A status is checked this often while a command waits to be confirmed. */
export const CONFIRM_POLL_INTERVAL_MS = 2000;

/** What "the robot shows it" means for one command: a test of its state, and the word msg.confirmation reports. */
export interface ConfirmationRule {
  /** The observed state that confirms, for msg.confirmation.state, or undefined while not yet. */
  confirmedBy(state: RobotState): string | undefined;
  /** For the help and error messages: what is waited for. */
  expects: string;
}

export interface Confirmed {
  /** What the status showed, e.g. "RUNNING" or "ARRIVED at charging". */
  state: string;
  /** Seconds from asking to seeing it. */
  seconds: number;
  /** The status that showed it. */
  status: Record<string, unknown>;
}

export interface ConfirmOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Operation name for the NOT_CONFIRMED error. */
  operation?: string;
}

interface Waiter {
  readonly rule: ConfirmationRule;
  readonly started: number;
  readonly resolve: (confirmed: Confirmed) => void;
  readonly reject: (error: RobotApiError) => void;
  lastStatus: Record<string, unknown> | undefined;
  readonly operation: string;
}

/**
 * One per client (so per account): every command waiting for confirmation on
 * that account is checked by the same polls, at most one status read per robot
 * per interval, in batches of 11 robots (the S-line batch status, B1's shape):
 * fifty commands waiting cost five calls every two seconds, not fifty.
 */
export class ConfirmationPoller {
  private readonly waiters = new Map<string, Set<Waiter>>();
  /** Waiters by their caller's signal: an abort ends every one of them still waiting. */
  private readonly aborts = new AbortGroups<Waiter>((waiters) => {
    for (const waiter of waiters) waiter.reject(abortedError(waiter.operation));
  });
  private timer: unknown;
  private polling = false;

  constructor(
    private readonly client: RobotClient,
    private readonly intervalMs = CONFIRM_POLL_INTERVAL_MS,
    private readonly clock: EngineClock = REAL_CLOCK,
  ) {}

  /** Resolves when the robot's status satisfies `rule`; rejects with NOT_CONFIRMED (carrying the last status) after `timeoutMs`. */
  waitFor(serialNumber: string, rule: ConfirmationRule, options: ConfirmOptions): Promise<Confirmed> {
    const { timeoutMs, signal, operation = "confirm" } = options;
    if (signal?.aborted) return Promise.reject(abortedError(operation));
    return new Promise<Confirmed>((resolve, reject) => {
      const finish = () => {
        this.clock.clearTimeout(deadline);
        if (signal) this.aborts.delete(signal, waiter);
        const set = this.waiters.get(serialNumber);
        set?.delete(waiter);
        if (set?.size === 0) this.waiters.delete(serialNumber);
      };
      const waiter: Waiter = {
        rule,
        started: this.clock.now(),
        resolve: (confirmed) => {
          finish();
          resolve(confirmed);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
        lastStatus: undefined,
        operation,
      };
      if (signal) this.aborts.add(signal, waiter);
      const deadline = this.clock.setTimeout(() => {
        waiter.reject(
          new RobotApiError({
            kind: "not_confirmed",
            operation,
            message: `${operation}: robot ${serialNumber} did not show it within ${timeoutMs / 1000} s (waited for ${rule.expects})${whyNotShown(waiter.lastStatus)}`,
            lastStatus: waiter.lastStatus,
          }),
        );
      }, timeoutMs);
      let set = this.waiters.get(serialNumber);
      if (!set) this.waiters.set(serialNumber, (set = new Set()));
      set.add(waiter);
      this.schedule();
    });
  }

  /** Robots with a command waiting, for tests and status. */
  get watching(): number {
    return this.waiters.size;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.polling || this.waiters.size === 0) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.poll();
    }, this.intervalMs);
  }

  private async poll(): Promise<void> {
    this.polling = true;
    const serialNumbers = [...this.waiters.keys()];
    try {
      const statuses = (await this.client.batchGetStatuses(serialNumbers, { line: "s" })) as Record<string, unknown>[];
      const now = this.clock.now();
      for (const status of statuses) {
        const state = robotStateOf(status);
        for (const waiter of [...(this.waiters.get(state.serialNumber) ?? [])]) {
          waiter.lastStatus = status;
          const shown = waiter.rule.confirmedBy(state);
          if (shown !== undefined) waiter.resolve({ state: shown, seconds: Math.round((now - waiter.started) / 100) / 10, status });
        }
      }
    } catch (error) {
      // The client was closed: every waiter ends as aborted, like the calls of its nodes.
      if (error instanceof RobotApiError && error.kind === "aborted") {
        for (const set of [...this.waiters.values()]) for (const waiter of [...set]) waiter.reject(error);
      }
      // Any other failure is a missed look: the waiters keep waiting until their deadline.
    } finally {
      this.polling = false;
      this.schedule();
    }
  }
}

const pollers = new WeakMap<RobotClient, ConfirmationPoller>();

/** The confirmation poller of a client's account (made on first use). */
export function confirmationPollerOf(client: RobotClient): ConfirmationPoller {
  let poller = pollers.get(client);
  if (!poller) pollers.set(client, (poller = new ConfirmationPoller(client)));
  return poller;
}
