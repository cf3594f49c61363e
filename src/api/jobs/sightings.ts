/**
 * A running job's bound on silence: when a status last showed its robot
 * online (a goto job: its navigation under way), by the time that status was
 * read. Only a status read after the last sighting is another sighting, so a
 * robot no read reaches any more, whose last kept status says online, still
 * runs out of time. No calls; the runner ends the job once a bound is over.
 */
import type { JobRecord } from "./job-book";
import type { RobotFacts } from "./dispatch";

/** What a poll read of the job's robot: its facts, when they were read (ms), and whether it moved or navigated. */
export interface Sighting {
  facts: RobotFacts;
  readAt: number;
  /** A goto job: the status shows the navigation under way, or the robot moving. */
  navigating: () => boolean;
}

/** Notes what the poll saw; a job kept from before these fields existed starts its count at `now`. */
export function noteSighting(job: JobRecord, sighting: Sighting | undefined, now: number): void {
  job.onlineSeenAt ??= now;
  if (job.work.kind === "goto") job.navigationSeenAt ??= now;
  if (!sighting) return;
  const { facts, readAt } = sighting;
  if (facts.online === true && readAt > job.onlineSeenAt) job.onlineSeenAt = readAt;
  if (job.work.kind === "goto" && readAt > job.navigationSeenAt! && sighting.navigating()) job.navigationSeenAt = readAt;
}

/** Which bound the job is past at `now`, with limit `limitMs`: no status online, or (goto) no navigation shown; else undefined. */
export function boundPassed(job: JobRecord, now: number, limitMs: number): "offline" | "navigation" | undefined {
  if (now - job.onlineSeenAt! >= limitMs) return "offline";
  if (job.work.kind === "goto" && now - job.navigationSeenAt! >= limitMs) return "navigation";
  return undefined;
}
