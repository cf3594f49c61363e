/**
 * The occurrences of an account's plans that are under way: claimed and not
 * settled (their job is made, or about to be), with the robot their job holds
 * and when its task started, once it has. Read from the plan book and the job
 * book as robot-plan leaves them, for the report and the console alike.
 */
import { jobsOfAccount } from "../jobs/job-book";
import { plansOfAccount } from "./plan-book";

export interface UnderWay {
  serialNumber?: string;
  /** When the task started (ISO 8601), once a status showed it. */
  startedAt?: string;
}

/** What is under way of each occurrence of the account `accountKey`: undefined for one that is not (never taken up, or settled). */
export function underWayOf(accountKey: string): (occurrenceId: string) => UnderWay | undefined {
  const plans = plansOfAccount(accountKey);
  const jobs = jobsOfAccount(accountKey).jobs;
  return (occurrenceId) => {
    const job = jobs.get(occurrenceId);
    if (!job) return plans.claimedOf(occurrenceId) ? {} : undefined;
    // A waiting job holds no robot yet, whatever it tried before.
    if (job.phase === "waiting" || job.serialNumber === undefined) return {};
    return { serialNumber: job.serialNumber, ...(job.startedAt !== undefined ? { startedAt: job.startedAt } : {}) };
  };
}
