/**
 * What a client needs from the other processes it shares an account with
 * (robot-config's "Share with other Node-RED instances"): a place in the
 * account's rate and its pause before each call, the one token (auth.ts's
 * SharedTokenStore), and who watches for each watching node. The in-process
 * client needs none of it; src/api/sharing/ answers it through Redis.
 */
import type { SharedTokenStore } from "./auth";
import type { WatchedState } from "../watching/watcher-state";
import type { KeptStatus } from "../watching/fleet-statuses";
import type { DirectoryShare } from "./robot-directory";
import type { SettledOccurrence } from "../plans/occurrence";

/** One call's place in the shared rate, held until the call has reached the server. */
export interface Permit {
  /** The call ended (answered, failed or aborted): its place counts from now, then frees. Safe to call twice. */
  release(): void;
}

export type GateAnswer =
  /** Start one call now. */
  | { permit: Permit }
  /** Every place is taken: ask again after this long. */
  | { retryInMs: number }
  /** Another process was told to slow down: this account waits this long. */
  | { pausedForMs: number };

/** What a request engine asks before each call of a shared account. */
export interface AccountGate {
  ask(): Promise<GateAnswer>;
  /** The cloud told this process to slow down for `ms`: every process pauses. */
  pause(ms: number): void;
}

/**
 * Which process polls for one watching node (the same node id in every copy of
 * the flows), and the state the holder leaves for the others (a watcher's last
 * states; robot-reports' book of reports).
 */
export interface WatchLease<State = WatchedState[]> {
  /** How often a process standing by asks again. */
  readonly checkEveryMs: number;
  /** Whether this process watches now; it takes the watch when the last holder has been gone long enough. */
  claim(): Promise<boolean>;
  /** The states the last holder saved (as JSON: the reader checks them), undefined when there are none. */
  loadStates(): Promise<State | undefined>;
  /** Saved after each poll and before its messages go out: a process taking over sends none of them again. */
  saveStates(states: State): Promise<void>;
  /** This process stops watching (its node closed): another may take over at once. */
  release(): void;
  /** The statuses a poll of this process read, `at` (ms), for the instances standing by (the account's last statuses). */
  publishStatuses?(statuses: readonly Record<string, unknown>[], at: number): Promise<void>;
  /** The statuses the watching instances published since this process last asked (undefined: nothing new). */
  mirroredStatuses?(): Promise<KeptStatus[] | undefined>;
}

/**
 * Robots' statuses read for command confirmation, shared: a process waiting
 * for a robot first takes a status another process read lately, and reads
 * only the robots nobody did and nobody is reading (confirmation polling per
 * robot per interval across the processes, not per process).
 */
export interface StatusShare {
  /** Statuses of these robots that any process read within `freshMs`, by serial number. */
  recent(serialNumbers: readonly string[], freshMs: number): Promise<Map<string, Record<string, unknown>>>;
  /** Of these robots, those this process is to read now (no other process is reading them); the others' reads come through recent(). */
  claim(serialNumbers: readonly string[], forMs: number): Promise<string[]>;
  /** Statuses this process just read, for the others. */
  publish(statuses: readonly Record<string, unknown>[]): void;
}

/** Robots claimed by jobs, for every process: a robot is claimed before a job is sent to it. */
export interface RobotClaims {
  /** True when the robot is now this job's (free, or already claimed by it) for `forMs`; false when another job has it. */
  claim(serialNumber: string, jobId: string, forMs: number): Promise<boolean>;
  /** Extends the job's claim; false when it no longer holds it. */
  renew(serialNumber: string, jobId: string, forMs: number): Promise<boolean>;
  release(serialNumber: string, jobId: string): void;
}

/** Occurrences of cleaning plans claimed across the processes: each is started (or recorded) by the one process that claimed it. */
export interface OccurrenceClaims {
  /** True when this process has the occurrence (nobody had it, or its own earlier claim did); false when another process claimed it first. Kept for `forMs`. */
  claim(occurrenceId: string, forMs: number): Promise<boolean>;
  /** Of these occurrences, those some process claimed (their claim has not lapsed). */
  claimed(occurrenceIds: readonly string[]): Promise<Set<string>>;
  /** Keeps a settled occurrence for every process's report; those planned before `keptBefore` (epoch ms) are forgotten. */
  settle(occurrence: SettledOccurrence, keptBefore: number): Promise<void>;
  /** The occurrences any process settled, planned at or after `fromMs` and before `toMs`. */
  settledBetween(fromMs: number, toMs: number): Promise<SettledOccurrence[]>;
}

/** Task reports sent on by the copies of one robot-reports node across the processes. */
export interface ReportClaims {
  /** True when this process is the first to claim the node's report (kept `forMs`); false when another sent it. */
  claim(nodeId: string, reportKey: string, forMs: number): Promise<boolean>;
}

export interface AccountSharing {
  gate: AccountGate;
  statuses: StatusShare;
  /** Only with client credentials: a fixed token has nothing to share. */
  token?: SharedTokenStore;
  watchLease<State = WatchedState[]>(nodeId: string, intervalMs: number): WatchLease<State>;
  /** Task reports a robot-reports node sent, for every process: each report is sent on by one. */
  reportClaims?: ReportClaims;
  robotClaims?: RobotClaims;
  occurrenceClaims?: OccurrenceClaims;
  /** The robot list, read by one instance per interval for all (robot-directory.ts). */
  directory?: DirectoryShare;
  close(): void;
}
