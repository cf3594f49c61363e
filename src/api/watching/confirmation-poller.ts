/**
 * Waiting until a robot's status shows what a command asked for (command
 * confirmation): one poller per account polls every robot someone waits for
 * in one batch call. robot-command and robot-site-task's "Send when: the
 * robot shows it" use it. No Node-RED here.
 */
import type { RobotClient } from "../client";
import { AbortGroups } from "../engine/abort-groups";
import { REAL_CLOCK, type EngineClock } from "../engine/clock";
import { RobotApiError, abortedError, internalError } from "../errors";
import { refusalText, stateRefusal, type ActionRefusal } from "./robot-actions";
import { readStatus, serialNumberOf, type StatusReading } from "./status-reader";
import { fleetStatusesOf } from "./fleet-statuses";

/** A status is checked this often while a command waits to be confirmed. */
export const CONFIRM_POLL_INTERVAL_MS = 2000;

/** A status's navigation fields that only one of the two status shapes carries (navigation.ts). */
const NAVIGATION_FIELDS = ["navStatus", "navigationPoints"] as const;

/** The interval new pollers take: tests that follow many jobs to their end shorten it. */
export const POLL_SETTINGS = { intervalMs: CONFIRM_POLL_INTERVAL_MS };

/** Someone following robots (jobs): their statuses, every poll, for as long as it observes. */
interface Observer {
  robots(): Iterable<string>;
  onStatuses(statuses: Record<string, unknown>[]): void;
}

/**
 * What "the robot shows it" means for one command: a test of its state, and
 * the word msg.confirmation reports. A rule is made for one wait: it may
 * remember what the statuses before showed (a navigation that left
 * NAVI_IDLE), so it is never shared between waits.
 */
export interface ConfirmationRule {
  /** The observed state that confirms, for msg.confirmation.state, or undefined while not yet; called with each status read, in order. */
  confirmedBy(state: StatusReading): string | undefined;
  /** For the help and error messages: what is waited for. */
  expects: string;
  /** Why a robot in this state would not carry the command out, when its state says (the NOT_CONFIRMED reason). */
  refusal?(state: StatusReading): ActionRefusal | undefined;
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
  /**
   * A status read failed while this waits (it keeps waiting): told once per
   * run of failed reads, with the failure (INTERNAL_ERROR for a bug here).
   */
  onMissedLook?: (failure: RobotApiError) => void;
}

interface Waiter {
  readonly rule: ConfirmationRule;
  readonly started: number;
  readonly resolve: (confirmed: Confirmed) => void;
  readonly reject: (error: RobotApiError) => void;
  lastStatus: Record<string, unknown> | undefined;
  readonly operation: string;
  readonly onMissedLook: ((failure: RobotApiError) => void) | undefined;
  /** The last read failed and the waiter was told. */
  missing: boolean;
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
    const { timeoutMs, signal, operation = "confirm", onMissedLook } = options;
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
        onMissedLook,
        missing: false,
      };
      if (signal) this.aborts.add(signal, waiter);
      const deadline = this.clock.setTimeout(() => {
        const state = waiter.lastStatus && readStatus(waiter.lastStatus);
        const refusal = refusalIn(rule, state);
        const waited = `${timeoutMs / 1000} s`;
        waiter.reject(
          new RobotApiError({
            kind: "not_confirmed",
            operation,
            message: refusal
              ? // What a person reads (a console's notice): the robot and why, no operation's name.
                `robot ${serialNumber} ${refusalText(refusal)} (waited ${waited} for ${rule.expects})`
              : `${operation}: robot ${serialNumber} did not show it within ${waited} (waited for ${rule.expects})${state ? "" : ": no status of the robot was read"}`,
            lastStatus: waiter.lastStatus,
            ...(refusal ? { refusal } : {}),
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
    const known = share
      ? await share.recent(serialNumbers, this.intervalMs).catch(() => new Map<string, Record<string, unknown>>())
      : undefined;
    const unknown = known ? serialNumbers.filter((serialNumber) => !known.has(serialNumber)) : serialNumbers;
    // A robot another process is reading right now is left to it: its read comes at the next poll.
    const toRead = share && unknown.length > 0 ? await share.claim(unknown, this.intervalMs).catch(() => unknown) : unknown;
    const read = toRead.length === 0 ? [] : ((await this.client.batchGetStatuses(toRead, { line: "s" })) as Record<string, unknown>[]);
    share?.publish(read);
    // The account's last statuses, for a console: the S-line read brings the navigation points a v1 read lacks.
    fleetStatusesOf(this.client.accountKey).record(read);
    return known ? [...known.values(), ...read] : read;
  }

  /**
   * The status with what only the other shape carries of a navigation: the
   * S-line read has the navigation points, the v1 read (a fleet status node's)
   * navStatus; the account's kept statuses hold the last of each.
   */
  private withNavigationOfOtherReads(status: Record<string, unknown>): Record<string, unknown> {
    const serialNumber = serialNumberOf(status);
    const kept = serialNumber === undefined ? undefined : fleetStatusesOf(this.client.accountKey).get(serialNumber)?.status;
    if (!kept) return status;
    const missing = NAVIGATION_FIELDS.filter((field) => !(field in status) && field in kept);
    return missing.length === 0 ? status : { ...status, ...Object.fromEntries(missing.map((field) => [field, kept[field]])) };
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
      for (const set of this.waiters.values()) for (const waiter of set) waiter.missing = false;
      for (const status of statuses) {
        const state = readStatus(this.withNavigationOfOtherReads(status));
        const waiting = state.serialNumber === undefined ? undefined : this.waiters.get(state.serialNumber);
        for (const waiter of [...(waiting ?? [])]) {
          waiter.lastStatus = status;
          const shown = waiter.rule.confirmedBy(state);
          if (shown !== undefined) waiter.resolve({ state: shown, seconds: Math.round((now - waiter.started) / 100) / 10, status });
        }
      }
      this.tellObservers(statuses);
    } catch (error) {
      const failure = internalError(error, "confirm");
      // The client was closed: every waiter ends as aborted, like the calls of its nodes.
      if (failure.kind === "aborted") {
        for (const set of [...this.waiters.values()]) for (const waiter of [...set]) waiter.reject(failure);
      } else {
        // Any other failure is a missed look: the waiters keep waiting until their deadline, and are told once;
        // observers see no status (their clocks still run).
        this.tellObservers([]);
        for (const set of [...this.waiters.values()]) {
          for (const waiter of set) {
            if (waiter.missing) continue;
            waiter.missing = true;
            waiter.onMissedLook?.(failure);
          }
        }
      }
    } finally {
      this.polling = false;
      this.schedule();
    }
  }
}

/** What a status says kept the robot from a command: the command's own reason, else offline, stopped or lost. */
export function refusalIn(rule: ConfirmationRule, state: StatusReading | undefined): ActionRefusal | undefined {
  if (!state) return undefined;
  return rule.refusal?.(state) ?? stateRefusal(state) ?? (state.localizationState === "LOST" ? { code: "lost" } : undefined);
}

const pollers = new WeakMap<RobotClient, ConfirmationPoller>();

/** The confirmation poller of a client's account (made on first use). */
export function confirmationPollerOf(client: RobotClient): ConfirmationPoller {
  let poller = pollers.get(client);
  if (!poller) pollers.set(client, (poller = new ConfirmationPoller(client, POLL_SETTINGS.intervalMs)));
  return poller;
}
