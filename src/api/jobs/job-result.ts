/**
 * How a job ended, as plain types: the plans, their report and the MQTT
 * bridge read a job's result without loading the job book (and, through it,
 * the client), which keeps the account's sharing types free of an import
 * circle.
 */
import type { JobWork } from "./dispatch";

export type JobOutcome = "completed" | "stoppedByHand" | "error" | "failedToStart" | "cancelled" | "unknown";

export interface JobAttempt {
  serialNumber: string;
  result: string;
}

export interface JobResult {
  jobId: string;
  serialNumber?: string;
  robotName?: string;
  work: JobWork & { name?: string };
  outcome: JobOutcome;
  startedAt?: string;
  endedAt: string;
  durationSeconds?: number;
  attempts: JobAttempt[];
  report?: Record<string, unknown>;
  /** Why the outcome is unknown, where the job ended without the robot saying (its robot offline too long). */
  reason?: string;
}
