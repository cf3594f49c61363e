/**
 * Sweeping the account's task reports: which time window each robot is asked
 * for, when to ask for another page, and the sweep itself through the
 * account's engine. A report is filed when its task ends and stamped with
 * its start, so a window must reach back before the last sweep far enough to
 * catch a task that was still running then; what it catches twice, the
 * report's identity (reading.ts) sends on once.
 */
import type { CallOptions, RobotClient } from "../client";
import { RobotApiError } from "../errors";
import { DAY_MS } from "./book";
import { cloudTimeMs } from "../cloud/cloud-time";
import { readReport, type ReadReport } from "./reading";

/** A later window reaches back this far before the last sweep: the longest task it catches after the fact. */
export const RUNNING_TASK_REACH_MS = DAY_MS;
/** Reports asked for per page (what public clients ask; a robot's 15 minutes or a week of reports fit in one). */
export const SWEEP_PAGE_SIZE = 200;
/** A robot whose pages stay full this long is given up on for this sweep (a cloud that ignores paging). */
export const MAX_SWEEP_PAGES = 50;
/** Robots swept at once: the sweep never fills the account's queue ahead of commands and status reads. */
export const SWEEP_ROBOTS_AT_ONCE = 4;

export interface SweepWindow {
  floorMs: number;
  upperMs: number;
}

/**
 * The window of a robot's next sweep at `nowMs`: the first reads back Since
 * days; a later one starts RUNNING_TASK_REACH_MS before the last one ended.
 * Never further back than Since or Keep, whichever is longer.
 */
export function sweepWindow(sweptUntilMs: number | undefined, nowMs: number, sinceMs: number, keepMs: number): SweepWindow {
  const first = nowMs - sinceMs;
  if (sweptUntilMs === undefined) return { floorMs: first, upperMs: nowMs };
  const earliest = nowMs - Math.max(sinceMs, keepMs);
  return { floorMs: Math.max(earliest, Math.min(sweptUntilMs - RUNNING_TASK_REACH_MS, nowMs)), upperMs: nowMs };
}

/**
 * Whether to ask for the page after this one: only after a full page, and
 * not when that page already reached back before the window or held only
 * reports already seen (a cloud that ignores the window still lists newest first).
 */
export function wantsNextPage<Report extends Record<string, unknown>>(
  page: readonly Report[],
  pageSize: number,
  floorMs: number,
  seen: (report: Report) => boolean,
): boolean {
  if (page.length < pageSize) return false;
  const reachedFloor = page.some((report) => (cloudTimeMs(report.startTime) ?? Infinity) < floorMs);
  return !reachedFloor && page.some((report) => !seen(report));
}

/** A sweep's calls are the engine's "sweep" class: a small reserved share, so they never starve commands and status reads. */
export function sweepCallOptions(options: CallOptions): CallOptions {
  return { ...options, callClass: "sweep" };
}

/** One robot's reports in a window, page after page, through the engine. */
export async function sweepRobot(
  client: RobotClient,
  serialNumber: string,
  window: SweepWindow,
  seen: (report: ReadReport) => boolean,
  options: CallOptions,
): Promise<ReadReport[]> {
  const found: ReadReport[] = [];
  for (let page = 1; page <= MAX_SWEEP_PAGES; page++) {
    const answer = await client.listTaskReports(
      { serialNumber, page, pageSize: SWEEP_PAGE_SIZE, startTimeUtcFloor: window.floorMs, startTimeUtcUpper: window.upperMs },
      sweepCallOptions(options),
    );
    const reports = answer.robotTaskReports.map((report) => readReport(report, serialNumber)!);
    // A cloud that ignores the window sends older reports too: they are not this sweep's.
    for (const report of reports) if ((cloudTimeMs(report.startTime) ?? window.upperMs) >= window.floorMs) found.push(report);
    if (!wantsNextPage(reports, SWEEP_PAGE_SIZE, window.floorMs, seen)) return found;
  }
  throw new RobotApiError({
    kind: "bad_response",
    operation: "listTaskReports",
    message: `listTaskReports: robot ${serialNumber} still had full pages after ${MAX_SWEEP_PAGES} pages of ${SWEEP_PAGE_SIZE}; the rest is read at the next sweep`,
  });
}

export interface SweepRequest {
  /** The robots to sweep; empty: every robot of the account (its robot list, one call per 100). */
  serialNumbers: readonly string[];
  nowMs: number;
  sinceMs: number;
  keepMs: number;
  sweptUntil: Map<string, number>;
  seen: (report: ReadReport) => boolean;
  /** Each report found, robot by robot, in the order the cloud listed them. */
  found: (report: ReadReport) => void;
  options: CallOptions;
}

export interface SweepSummary {
  robots: number;
  reports: number;
  failures: { serialNumber: string; error: unknown }[];
}

/**
 * Sweeps every robot (SWEEP_ROBOTS_AT_ONCE at a time). A robot whose read
 * fails keeps its last window end, so its next sweep asks again from there;
 * the others go on. A failed robot list fails the sweep.
 */
export async function sweepFleet(client: RobotClient, request: SweepRequest): Promise<SweepSummary> {
  let serialNumbers = [...request.serialNumbers];
  if (serialNumbers.length === 0) {
    const robots = await client.listAllRobots(sweepCallOptions(request.options));
    serialNumbers = robots.map((robot) => robot.serialNumber);
  }
  const summary: SweepSummary = { robots: serialNumbers.length, reports: 0, failures: [] };
  let next = 0;
  const worker = async () => {
    while (next < serialNumbers.length) {
      const serialNumber = serialNumbers[next++]!;
      const window = sweepWindow(request.sweptUntil.get(serialNumber), request.nowMs, request.sinceMs, request.keepMs);
      try {
        const reports = await sweepRobot(client, serialNumber, window, request.seen, request.options);
        request.sweptUntil.set(serialNumber, window.upperMs);
        summary.reports += reports.length;
        for (const report of reports) request.found(report);
      } catch (error) {
        if (request.options.signal?.aborted) throw error;
        summary.failures.push({ serialNumber, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(SWEEP_ROBOTS_AT_ONCE, serialNumbers.length) }, worker));
  return summary;
}
