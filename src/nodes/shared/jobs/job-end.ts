/** How a job's runtime tells its node what happened: progress, an end (one per job), a change of its jobs. */
import type { RobotApiError } from "../../../api/errors";
import { jobResult, type JobRecord } from "../../../api/jobs/job-book";
import type { JobOutcome, JobResult } from "../../../api/jobs/job-result";
import { readJobReason } from "../../../api/jobs/dispatch";
import type { Translate } from "../i18n";

/**
 * A job that could not be done (NO_ROBOT): Node-RED copies `code` and `cause`
 * onto msg.error for a Catch node, so a flow finds each robot's reason at
 * msg.error.cause.robots.
 */
export class JobError extends Error {
  override readonly name = "JobError";
  constructor(
    readonly code: string,
    message: string,
    details: { robots: Record<string, string> },
  ) {
    super(`${code}: ${message}`);
    const text = Object.entries(details.robots)
      .map(([serialNumber, reason]) => `${serialNumber}: ${reason}`)
      .join(", ");
    // The debug sidebar shows a cause without a Catch node as text: the reasons, not [object Object].
    const cause = { code, ...details };
    Object.defineProperty(cause, "toString", { value: () => text, enumerable: false });
    Object.defineProperty(this, "cause", { value: cause, enumerable: false, writable: true, configurable: true });
  }
}

/** A robot's reason (msg.error.cause.robots, progress `reasons`) in the runtime's language: "other map" → "在其他地图". */
export function jobReasonWords(t: Translate, reason: string): string {
  const read = readJobReason(reason);
  return read ? t(`reasons.${read.key}`, read.params) : reason;
}

/** Each robot's reason in words, "GS-S-000101: other map; GS-S-000102: busy"; "" for none. */
export function robotReasonWords(t: Translate, robots: Record<string, string>): string {
  return Object.entries(robots)
    .map(([serialNumber, reason]) => t("reasons.robot", { robot: serialNumber, reason: jobReasonWords(t, reason) }))
    .join(t("reasons.separator"));
}

/** NO_ROBOT: what happened and each robot's reason in words; the reasons as flows read them in its cause. */
export function noRobot(t: Translate, what: string, robots: Record<string, string>): JobError {
  const words = robotReasonWords(t, robots);
  return new JobError("NO_ROBOT", words ? t("errors.withReasons", { what, reasons: words }) : what, { robots });
}

/** A result on output 1, or an error: NO_ROBOT, or INVALID_INPUT for a name no robot of the account has. */
export type JobEnd = (JobResult & { stopFailure?: string; reason?: string; text?: string }) | JobError | RobotApiError;

/** How the runner ends a job: its outcome, with `reason` for flows (the same English in every language) and `text` the same in the runtime's language; or the error. */
export type JobFinish = { outcome: JobOutcome; report?: Record<string, unknown>; stopFailure?: string; reason?: string; text?: string } | JobError | RobotApiError;

/** The end sent for a job finished as `end` at `at`: the error as it is, else the job's result with what the end adds. */
export function jobEndOf(job: JobRecord, end: JobFinish, at: Date): JobEnd {
  if (end instanceof Error) return end;
  return {
    ...jobResult(job, end.outcome, at, end.report),
    ...(end.stopFailure ? { stopFailure: end.stopFailure } : {}),
    ...(end.reason ? { reason: end.reason } : {}),
    ...(end.text ? { text: end.text } : {}),
  };
}

export interface JobProgress {
  event: "assigned" | "started" | "progress" | "retrying" | "waiting";
  serialNumber?: string;
  robotName?: string;
  progress?: number;
  refusal?: string;
  reasons?: Record<string, string>;
  /** What `refusal` or `reasons` say, in the runtime's language (for people; flows read the codes). */
  text?: string;
}

export interface JobSink {
  ended(job: JobRecord, end: JobEnd): void;
  progress(job: JobRecord, progress: JobProgress): void;
  /** The node's jobs changed (added, started, ended): its status and its context copy follow. */
  changed(): void;
  /** A fault of the runtime itself (IllegalTransition: a move the state table lacks), for the node to report. */
  fault(job: JobRecord, error: Error): void;
}
