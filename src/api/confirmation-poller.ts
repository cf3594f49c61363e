/**
 * Waiting until a robot's status shows what a command asked for (command
 * confirmation): one poller per account polls every robot someone waits for
 * in one batch call. robot-command and robot-site-task's "Send when: the
 * robot shows it" use it. No Node-RED here.
 */
import type { RobotClient } from "./client";
import { AbortGroups } from "./abort-groups";
import { REAL_CLOCK, type EngineClock } from "./clock";
import { RobotApiError, abortedError } from "./errors";
import { robotStateOf, type RobotState } from "./watcher-state";

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


/** A status is checked this often while a command waits to be confirmed. */
export const CONFIRM_POLL_INTERVAL_MS = 2000;

/** The interval new pollers take: tests that follow many jobs to their end shorten it. */
export const POLL_SETTINGS = { intervalMs: CONFIRM_POLL_INTERVAL_MS };

/** Someone following robots (jobs): their statuses, every poll, for as long as it observes. */
interface Observer {
  robots(): Iterable<string>;
  onStatuses(statuses: Record<string, unknown>[]): void;
}

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
  private readonly observers = new Set<Observer>();
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

  /**
   * Reads `robots()` with every poll (in the same batches as the robots waited
   * for) and hands the statuses to `onStatuses`, until the returned function
   * is called: jobs follow their robots through the account's one poll.
   */
  observe(robots: () => Iterable<string>, onStatuses: (statuses: Record<string, unknown>[]) => void): () => void {
    const observer: Observer = { robots, onStatuses };
    this.observers.add(observer);
    this.schedule();
    return () => this.observers.delete(observer);
  }

  /** Robots with a command waiting, for tests and status. */
  get watching(): number {
    return this.waiters.size;
  }

  /**
   * The robots' statuses: read in batches, or, for a shared account, taken
   * from another process's reads of the last interval where there are some
   * (each is newer than every waiter's start: a waiter's first poll comes an
   * interval after it began).
   */
  private async readStatuses(serialNumbers: string[]): Promise<Record<string, unknown>[]> {
    const share = this.client.sharing?.statuses;
    const known = share ? await share.recent(serialNumbers, this.intervalMs).catch(() => new Map<string, Record<string, unknown>>()) : undefined;
    const unknown = known ? serialNumbers.filter((serialNumber) => !known.has(serialNumber)) : serialNumbers;
    // A robot another process is reading right now is left to it: its read comes at the next poll.
    const toRead = share && unknown.length > 0 ? await share.claim(unknown, this.intervalMs).catch(() => unknown) : unknown;
    const read = toRead.length === 0 ? [] : ((await this.client.batchGetStatuses(toRead, { line: "s" })) as Record<string, unknown>[]);
    share?.publish(read);
    return known ? [...known.values(), ...read] : read;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.polling || (this.waiters.size === 0 && this.observers.size === 0)) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.poll();
    }, this.intervalMs);
  }

  private tellObservers(statuses: Record<string, unknown>[]): void {
    for (const observer of [...this.observers]) {
      try {
        observer.onStatuses(statuses);
      } catch {
        // One observer's failure is its own: the others still get their statuses.
      }
    }
  }

  private async poll(): Promise<void> {
    this.polling = true;
    const wanted = new Set(this.waiters.keys());
    for (const observer of this.observers) for (const serialNumber of observer.robots()) wanted.add(serialNumber);
    try {
      const statuses = wanted.size === 0 ? [] : await this.readStatuses([...wanted]);
      const now = this.clock.now();
      for (const status of statuses) {
        const state = robotStateOf(status);
        for (const waiter of [...(this.waiters.get(state.serialNumber) ?? [])]) {
          waiter.lastStatus = status;
          const shown = waiter.rule.confirmedBy(state);
          if (shown !== undefined) waiter.resolve({ state: shown, seconds: Math.round((now - waiter.started) / 100) / 10, status });
        }
      }
      this.tellObservers(statuses);
    } catch (error) {
      // The client was closed: every waiter ends as aborted, like the calls of its nodes.
      if (error instanceof RobotApiError && error.kind === "aborted") {
        for (const set of [...this.waiters.values()]) for (const waiter of [...set]) waiter.reject(error);
      } else {
        // Any other failure is a missed look: the waiters keep waiting until their deadline, observers see no status (their clocks still run).
        this.tellObservers([]);
      }
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
  if (!poller) pollers.set(client, (poller = new ConfirmationPoller(client, POLL_SETTINGS.intervalMs)));
  return poller;
}
