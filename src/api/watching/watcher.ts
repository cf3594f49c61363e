/**
 * Watching robots: a fleet watcher that polls through the client and reports
 * the changes that matter (watcher-state.ts decides which), and the loop that
 * runs it every interval, one process at a time when the account is shared.
 * robot-status's watch mode is its user. No Node-RED here.
 */
import type { CallOptions, RobotClient } from "../client";
import { REAL_CLOCK, type EngineClock } from "../engine/clock";
import { internalError, type RobotApiError } from "../errors";
import type { WatchLease } from "../account/shared-account";
import { fleetStatusesOf, type FleetStatuses } from "./fleet-statuses";
import { diffWatchedStates, watchedStateOf, type BatteryThresholds, type Changes, type WatchedState } from "./watcher-state";

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
  /** Where every status read is kept (and, standing by, another instance's): default the account's, fleetStatusesOf. */
  fleetStatuses?: FleetStatuses;
}

/** One robot after a poll: its status as the cloud gave it, and what changed. */
export interface RobotUpdate {
  serialNumber: string;
  status: Record<string, unknown>;
  state: WatchedState;
  changes: Changes;
  /** The robot's first report since watching began. */
  initial: boolean;
  /** online went from true to false. */
  wentOffline: boolean;
}

export interface PollOutcome {
  updates: RobotUpdate[];
  summary: PollSummary;
  /** Every status the poll read (a shared account publishes them for the instances standing by). */
  statuses?: Record<string, unknown>[];
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
  private readonly known = new Map<string, WatchedState>();
  /** The account's last statuses, which each poll fills. */
  readonly fleetStatuses: FleetStatuses;

  constructor(
    private readonly client: RobotClient,
    readonly settings: FleetWatchSettings,
  ) {
    this.fleetStatuses = settings.fleetStatuses ?? fleetStatusesOf(client.accountKey);
  }

  /** One poll: the robots' statuses (listing the account's robots first when none are named), diffed against the last. */
  async poll(): Promise<PollOutcome> {
    const { serialNumbers, line, thresholds, moves = false, callOptions = {} } = this.settings;
    // Listing the robots is part of reading their statuses: it keeps the status reads' share of the rate.
    const names =
      serialNumbers.length > 0
        ? serialNumbers
        : (await this.client.listAllRobots({ callClass: "status", ...callOptions })).map((robot) => robot.serialNumber);
    const read = names.length === 0 ? [] : await this.client.batchGetStatuses(names, { ...callOptions, line });
    const statuses = read as Record<string, unknown>[];
    const at = new Date();
    this.fleetStatuses.record(statuses, at.getTime());
    const updates: RobotUpdate[] = [];
    let online = 0;
    for (const status of statuses) {
      const state = watchedStateOf(status);
      if (!state.serialNumber) continue;
      if (state.online) online++;
      const previous = this.known.get(state.serialNumber);
      this.known.set(state.serialNumber, state);
      const changes = diffWatchedStates(previous, state, thresholds, moves);
      if (previous !== undefined && Object.keys(changes).length === 0) continue;
      const wentOffline = previous?.online === true && state.online === false;
      updates.push({ serialNumber: state.serialNumber, status, state, changes, initial: previous === undefined, wentOffline });
    }
    return { updates, summary: { robots: statuses.length, online, at }, statuses };
  }

  /** What the watcher knows of each robot (to hand over to another process). */
  states(): WatchedState[] {
    return [...this.known.values()];
  }

  /** Continues from what another watcher knew: its robots are not reported again as new. */
  restore(states: readonly WatchedState[]): void {
    this.known.clear();
    for (const state of states) if (typeof state?.serialNumber === "string") this.known.set(state.serialNumber, state);
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
  /** A shared account: this process started (true) or stopped (false) being the one that watches. */
  watching?(watching: boolean): void;
  /** Standing by: another instance's reads were kept in this process's fleet statuses, which now hold `robots`; nothing is sent for them. */
  mirrored?(robots: number): void;
}

/**
 * Runs a watcher's polls one after the other, `intervalMs` apart (from the end
 * of one to the start of the next: a slow cloud never gets overlapping polls),
 * until stopped. pollNow() polls at once (an input message) and restarts the
 * interval. With a `lease` (a shared account), only the process holding it
 * polls; the others ask for it every lease.checkEveryMs and, taking it over,
 * continue from the states the last holder saved, so no change is sent twice.
 * The holder publishes every status it read; the others keep them in their
 * own process's fleet statuses at each check (a console there shows the
 * fleet), and send nothing for them.
 */
export class WatchLoop {
  private timer: unknown;
  private running: Promise<void> | undefined;
  private stopped = false;
  private streak = 0;
  /** Whether this process polls: always without a lease. */
  private holding: boolean;

  constructor(
    private readonly watcher: FleetWatcher,
    private readonly intervalMs: number,
    private readonly handlers: WatchHandlers,
    private readonly clock: EngineClock = REAL_CLOCK,
    private readonly lease?: WatchLease,
  ) {
    this.holding = lease === undefined;
  }

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
      const next = this.holding ? this.intervalMs : this.lease!.checkEveryMs;
      if (!this.stopped) this.timer = this.clock.setTimeout(() => void this.pollNow(), next);
    });
    return this.running;
  }

  stop(): void {
    this.stopped = true;
    this.clock.clearTimeout(this.timer);
    if (this.holding) this.lease?.release();
  }

  /** Holds the lease or stands by; taking it over, continues from the states the last holder saved. */
  private async claimed(lease: WatchLease): Promise<boolean> {
    const holds = await lease.claim();
    if (this.stopped || holds === this.holding) return holds && !this.stopped;
    if (holds) {
      const states = await lease.loadStates();
      if (Array.isArray(states)) this.watcher.restore(states);
    }
    this.holding = holds;
    this.handlers.watching?.(holds);
    return holds;
  }

  /** Standing by: keeps what the watching instance published since the last check. */
  private async mirror(lease: WatchLease): Promise<void> {
    const kept = await lease.mirroredStatuses?.().catch(() => undefined);
    if (this.stopped || kept === undefined || kept.length === 0) return;
    this.watcher.fleetStatuses.recordKept(kept);
    this.handlers.mirrored?.(this.watcher.fleetStatuses.size);
  }

  private async once(): Promise<void> {
    if (this.lease && !(await this.claimed(this.lease))) return this.mirror(this.lease);
    let outcome: PollOutcome;
    try {
      outcome = await this.watcher.poll();
    } catch (error) {
      if (this.stopped) return;
      // Only the client's calls fail with a RobotApiError; anything else thrown here is a bug of the watcher.
      const failure = internalError(error, "watch");
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
    // Saved before the messages go out: a process that takes over after this never sends them again.
    await this.lease?.saveStates(this.watcher.states()).catch(() => undefined);
    if (this.stopped) return;
    if (outcome.statuses) void this.lease?.publishStatuses?.(outcome.statuses, outcome.summary.at.getTime()).catch(() => undefined);
    this.handlers.polled(outcome.updates, outcome.summary);
  }
}
