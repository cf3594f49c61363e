/**
 * What a task report says about how its task ended, read the same way for the
 * polled reports (robot-status, taskReports) and the pushed ones (robot-events).
 */
import { cleaningKindOf, type CleaningKind } from "./cleaning-modes";

/** taskEndStatus of a task report (docs/cloud-api.md, "Task reports"); any other value reads as "unknown". */
export const TASK_OUTCOMES = {
  "-1": "unknown",
  "0": "normal",
  "1": "stoppedByHand",
  "2": "error",
  "3": "failedToStart",
} as const;

export type TaskOutcome = (typeof TASK_OUTCOMES)[keyof typeof TASK_OUTCOMES];

/** The outcome of a taskEndStatus given as a number or a string of one. */
export function taskOutcomeOf(taskEndStatus: unknown): TaskOutcome {
  const key = typeof taskEndStatus === "number" || typeof taskEndStatus === "string" ? String(taskEndStatus).trim() : "";
  return Object.hasOwn(TASK_OUTCOMES, key) ? TASK_OUTCOMES[key as keyof typeof TASK_OUTCOMES] : "unknown";
}

export interface TaskReportReading {
  outcome: TaskOutcome;
  /** Only where the report's cleaning mode names one kind (intensity names do not). */
  cleaningKind?: CleaningKind;
}

/** A copy of the report with its outcome and cleaning kind beside the fields the cloud sent. */
export function withTaskReading<Report extends Record<string, unknown>>(report: Report): Report & TaskReportReading {
  const cleaningKind = cleaningKindOf(report.cleaningMode);
  return { ...report, outcome: taskOutcomeOf(report.taskEndStatus), ...(cleaningKind ? { cleaningKind } : {}) };
}
