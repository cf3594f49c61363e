/**
 * The account's jobs and the robots they hold, kept for the life of the
 * process (account-memory.ts): a redeploy re-creates the job nodes, and each
 * finds its jobs here and follows them on. Also the job's life as plain
 * steps (what a status means for a started job), so the node only gathers,
 * calls and sends. No Node-RED, no calls.
 */
import { keptForAccount } from "../account/account-memory";
import type { RobotClaims } from "../account/shared-account";
import type { NavigationFollower } from "../watching/navigation";
import { isBusy, type JobWork, type NearSpec, type RobotFacts } from "./dispatch";
import { JOB_PHASES, type JobPhase } from "./job-states";
import type { JobAttempt, JobOutcome, JobResult } from "./job-result";
import type { StartFacts } from "./task-report";

export type { JobPhase } from "./job-states";

export interface JobSettings {
  near?: NearSpec;
  /** Serial numbers allowed; absent: every robot of the account. */
  robots?: string[];
  minBattery: number;
  waitUpToMs: number;
  mode?: string;
  name?: string;
  tries: number;
  confirmTimeoutMs: number;
  /** A running job whose robot shows no status online (or a goto job no navigation) this long ends as unknown; absent: the default (jobs kept from before the setting). */
  offlineLimitMs?: number;
}

/** One job, as plain JSON (it is written to node context as it is). */
export interface JobRecord {
  jobId: string;
  /** The job node it belongs to (the same id after a redeploy). */
  nodeId: string;
  work: JobWork;
  settings: JobSettings;
  phase: JobPhase;
  /** When the job was asked for (epoch ms): waitUpTo counts from here. */
  createdAt: number;
  serialNumber?: string;
  robotName?: string;
  /** When the start command was sent (epoch ms): its confirmation counts from here. */
  sentAt?: number;
  /** The name the robot shows the task under, for the confirmation and the report. */
  taskName?: string;
  /** What its task's report is chosen by, beside sentAt (task-report.ts StartFacts), kept as the start was sent: a redeploy or restart chooses alike. */
  start?: { reportsKeptBefore: string[]; clockOffsetMs?: number };
  startedAt?: string;
  attempts: JobAttempt[];
  /** Robots this job will not try again, with why. */
  setAside: Record<string, string>;
  /** The last progress sent (0-1), so each change is sent once. */
  progress?: number;
  /** msg.topic of the message that asked for the job, for the end sent after a redeploy. */
  topic?: unknown;
  // What each state keeps (job-states.ts); plain JSON like the rest, so a redeploy's runner goes on from it.
  /** waiting: a status poll read the job's robots, so it may be judged (waitUpTo 0 fails after one look, not before). */
  looked?: boolean;
  /** waiting: the `waiting` progress was sent (once per spell of waiting). */
  waitingSent?: boolean;
  /** The name check against the account's robots (work-targets.ts) was started: it runs once per job. */
  targetChecked?: boolean;
  /** What that check found no robot has, when it came back while the job tried a robot: the job ends with it once waiting again. */
  missingTarget?: { field: string; problem: string };
  /** Robots whose Redis claim was refused, with why: past waitUpTo they are not chosen again, and they are the NO_ROBOT reasons. */
  claimRefusals?: Record<string, string>;
  /** claiming to ending: when the robot's Redis claim was last made or renewed (epoch ms). */
  claimRenewedAt?: number;
  /** running: when a status last showed the robot online (epoch ms). */
  onlineSeenAt?: number;
  /** running, goto: when a status last showed the navigation under way (navStatus other than NAVI_IDLE, or the robot moving). */
  navigationSeenAt?: number;
  /** ending: what the end waits for, the task's report or the stop of a cancel. */
  ending?: "report" | "cancel";
}

/** Whatever the cloud reported at the end of a task, read for the job's outcome. */
const REPORT_OUTCOMES: Record<string, JobOutcome> = {
  normal: "completed",
  stoppedByHand: "stoppedByHand",
  error: "error",
  failedToStart: "failedToStart",
  unknown: "unknown",
};

export function outcomeOfReport(report: { outcome?: unknown } | undefined): JobOutcome {
  return typeof report?.outcome === "string" ? (REPORT_OUTCOMES[report.outcome] ?? "unknown") : "unknown";
}

/**
 * What a status of its robot means for a running job: still under way, or
 * ended and how. A task ends when the robot is neither running nor paused;
 * a navigation when `navigation` (the job's own follower, fed every status of
 * its robot) sees it arrive, or end away from its point (outcome unknown: no
 * status says whether a person stopped it or the robot gave up).
 */
export function runningJobEnd(
  job: Pick<JobRecord, "work">,
  facts: RobotFacts,
  navigation: NavigationFollower | undefined,
): { ended: false } | { ended: true; outcome?: JobOutcome } {
  if (job.work.kind === "goto") {
    const progress = navigation?.see(facts);
    if (progress?.phase === "arrived") return { ended: true, outcome: "completed" };
    if (progress?.phase === "endedAway") return { ended: true, outcome: "unknown" };
    return { ended: false };
  }
  // The outcome of a task comes from its report.
  return isBusy(facts) ? { ended: false } : { ended: true };
}

/** Keeps in the job the facts of its start, about to be sent (factsBeforeStart). */
export function keepStartFacts(job: JobRecord, facts: StartFacts): void {
  job.sentAt = facts.sinceMs;
  job.start = {
    reportsKeptBefore: [...(facts.keptBefore ?? [])],
    ...(facts.clockOffsetMs !== undefined ? { clockOffsetMs: facts.clockOffsetMs } : {}),
  };
}

/** The facts the job's start was sent with, and what its work names, for its task's report (reportOfStart). */
export function startFactsOfJob(job: JobRecord): StartFacts {
  const { work, start } = job;
  return {
    serialNumber: job.serialNumber!,
    sinceMs: job.sentAt!,
    ...(start ? { keptBefore: new Set(start.reportsKeptBefore) } : {}),
    ...(start?.clockOffsetMs !== undefined ? { clockOffsetMs: start.clockOffsetMs } : {}),
    names: { task: job.taskName, map: work.map, ...(work.kind === "area" ? { area: work.area } : {}) },
  };
}

/** The message payload of a job's end. */
export function jobResult(job: JobRecord, outcome: JobOutcome, endedAt: Date, report?: Record<string, unknown>): JobResult {
  const started = job.startedAt ? Date.parse(job.startedAt) : undefined;
  return {
    jobId: job.jobId,
    ...(job.serialNumber !== undefined && job.phase !== "waiting" ? { serialNumber: job.serialNumber } : {}),
    ...(job.robotName !== undefined && job.phase !== "waiting" ? { robotName: job.robotName } : {}),
    work: { ...job.work, ...(job.settings.name !== undefined ? { name: job.settings.name } : {}) },
    outcome,
    ...(job.startedAt ? { startedAt: job.startedAt } : {}),
    endedAt: endedAt.toISOString(),
    ...(started !== undefined ? { durationSeconds: Math.round((endedAt.getTime() - started) / 100) / 10 } : {}),
    attempts: job.attempts.map((attempt) => ({ ...attempt })),
    ...(report ? { report } : {}),
  };
}

/** A job just asked for (by a message, or by a plan's occurrence): waiting for a robot, waitUpTo counting from now. */
export function newJob(nodeId: string, asked: { jobId: string; work: JobWork; settings: JobSettings }, topic?: unknown): JobRecord {
  return {
    jobId: asked.jobId,
    nodeId,
    work: asked.work,
    settings: asked.settings,
    phase: "waiting",
    createdAt: Date.now(),
    attempts: [],
    setAside: {},
    ...(topic !== undefined ? { topic } : {}),
  };
}

export class AccountJobs {
  readonly jobs = new Map<string, JobRecord>();
  /** Robot -> the job holding it. */
  private readonly holds = new Map<string, string>();
  /** The account's robots' last facts, shared by every job node of the account. */
  readonly facts = new Map<string, RobotFacts>();

  /** Holds the robot for the job; false when another job holds it. */
  hold(serialNumber: string, jobId: string): boolean {
    const holder = this.holds.get(serialNumber);
    if (holder !== undefined && holder !== jobId) return false;
    this.holds.set(serialNumber, jobId);
    return true;
  }

  release(serialNumber: string, jobId: string): void {
    if (this.holds.get(serialNumber) === jobId) this.holds.delete(serialNumber);
  }

  holderOf(serialNumber: string): string | undefined {
    return this.holds.get(serialNumber);
  }

  /** The jobs of one node, oldest first. */
  ofNode(nodeId: string): JobRecord[] {
    return [...this.jobs.values()].filter((job) => job.nodeId === nodeId).sort((a, b) => a.createdAt - b.createdAt);
  }

  add(job: JobRecord): void {
    this.jobs.set(job.jobId, job);
    if (job.phase !== "waiting" && job.serialNumber !== undefined) this.hold(job.serialNumber, job.jobId);
  }

  remove(job: JobRecord): void {
    this.jobs.delete(job.jobId);
    if (job.serialNumber !== undefined) this.release(job.serialNumber, job.jobId);
  }

  /**
   * The node is gone for good (deleted or disabled): nobody follows its jobs
   * any more. They leave the book and their robots are let go, here and
   * across the instances (`claims`); no robot is stopped. Returns them.
   */
  letGoOfNode(nodeId: string, claims?: RobotClaims): JobRecord[] {
    const gone = this.ofNode(nodeId);
    for (const job of gone) {
      this.remove(job);
      if (job.serialNumber !== undefined) claims?.release(job.serialNumber, job.jobId);
    }
    return gone;
  }

  /** A node's jobs as plain JSON, for its context. */
  toPlain(nodeId: string): JobRecord[] {
    return structuredClone(this.ofNode(nodeId));
  }

  /** Takes back jobs from a node's context (after a restart): those not known already, with their holds. */
  restore(nodeId: string, plain: unknown): number {
    if (!Array.isArray(plain)) return 0;
    let restored = 0;
    for (const entry of plain as Partial<JobRecord>[]) {
      if (typeof entry?.jobId !== "string" || entry.nodeId !== nodeId || this.jobs.has(entry.jobId)) continue;
      if (typeof entry.work !== "object" || typeof entry.settings !== "object" || !(JOB_PHASES as readonly unknown[]).includes(entry.phase))
        continue;
      // The process was down for a while: how long the robot went unseen then is not known, so its offline count starts again.
      const kept: JobRecord = { ...(entry as JobRecord), attempts: entry.attempts ?? [], setAside: entry.setAside ?? {} };
      delete kept.onlineSeenAt;
      delete kept.navigationSeenAt;
      this.add(kept);
      restored++;
    }
    return restored;
  }
}

/** The jobs of the account `accountKey` in this process. */
export function jobsOfAccount(accountKey: string): AccountJobs {
  return keptForAccount(accountKey, "jobs", () => new AccountJobs());
}
