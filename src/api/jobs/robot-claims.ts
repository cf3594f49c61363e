/**
 * A job's hold on its robot across the processes that share the account
 * (Redis): claimed before its start is sent, renewed while the job has the
 * robot, and how long each of those may take.
 */
import type { RobotClaims } from "../account/shared-account";
import { REAL_CLOCK, settledWithin, type EngineClock } from "../engine/clock";
import type { JobRecord } from "./job-book";

/** A robot's claim in Redis lasts this long, and is renewed well before. */
export const CLAIM_MS = 60_000;
const RENEW_CLAIM_EVERY_MS = 15_000;
/** A claim Redis has not answered within this counts as not made: a job waits on, within waitUpTo; a plan's occurrence is asked again. */
export const CLAIM_ANSWER_MS = 5_000;

/**
 * Claims the robot for the job: undefined once it is the job's, else why not (another instance's job has it, Redis did
 * not answer, or failed). `clock` times the answer (a test's, to reach the bound without waiting).
 */
export function claimRobot(
  claims: RobotClaims,
  serialNumber: string,
  jobId: string,
  clock: EngineClock = REAL_CLOCK,
): Promise<string | undefined> {
  return settledWithin(CLAIM_ANSWER_MS, claims.claim(serialNumber, jobId, CLAIM_MS), clock).then(
    (claimed) => (claimed === true ? undefined : claimed === false ? "claimed by another instance's job" : "the claim was not answered"),
    (error: unknown) => `the claim failed: ${error instanceof Error ? error.message : String(error)}`,
  );
}

/** Renews the job's claim of its robot when due: extended while it is the job's, taken again if it lapsed (Redis was away). */
export function renewClaimWhenDue(claims: RobotClaims, job: JobRecord, now: number): void {
  const serialNumber = job.serialNumber;
  if (serialNumber === undefined || job.claimRenewedAt === undefined || now - job.claimRenewedAt < RENEW_CLAIM_EVERY_MS) return;
  job.claimRenewedAt = now;
  void claims
    .renew(serialNumber, job.jobId, CLAIM_MS)
    .then((kept) => kept || claims.claim(serialNumber, job.jobId, CLAIM_MS))
    .catch(() => undefined);
}
