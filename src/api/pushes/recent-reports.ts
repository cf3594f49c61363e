/**
 * Task reports the cloud pushed lately, per account and robot: a robot-events
 * node linked to the account records them, a job that ended looks its report
 * up here before asking the task reports endpoint. Bounded: the newest few per
 * robot, for a bounded number of robots.
 */
import { keptForAccount } from "../account/account-memory";
import { cloudTimeMs } from "../cloud/cloud-time";

export const REPORTS_KEPT_PER_ROBOT = 10;
export const ROBOTS_WITH_REPORTS = 10_000;

/** A report's clock and the package's may differ by this much. */
const CLOCK_SKEW_MS = 60_000;

/** Of `reports`, the one that ended last among those of a task started at or after `sinceMs` (clock skew allowed). */
export function newestReportSince(reports: readonly Record<string, unknown>[], sinceMs: number): Record<string, unknown> | undefined {
  let newest: Record<string, unknown> | undefined;
  let newestEnd = -Infinity;
  for (const report of reports) {
    const started = cloudTimeMs(report.startTime) ?? cloudTimeMs(report.endTime);
    const ended = cloudTimeMs(report.endTime) ?? started ?? -Infinity;
    if (started !== undefined && started >= sinceMs - CLOCK_SKEW_MS && ended >= newestEnd) [newest, newestEnd] = [report, ended];
  }
  return newest;
}

export class RecentReports {
  private readonly byRobot = new Map<string, Record<string, unknown>[]>();

  record(serialNumber: string, report: Record<string, unknown>): void {
    const list = this.byRobot.get(serialNumber) ?? [];
    this.byRobot.delete(serialNumber);
    list.push(report);
    if (list.length > REPORTS_KEPT_PER_ROBOT) list.shift();
    this.byRobot.set(serialNumber, list);
    if (this.byRobot.size > ROBOTS_WITH_REPORTS) this.byRobot.delete(this.byRobot.keys().next().value!);
  }

  /** The newest pushed report of the robot for a task started at or after `sinceMs`. */
  find(serialNumber: string, sinceMs: number): Record<string, unknown> | undefined {
    return newestReportSince(this.byRobot.get(serialNumber) ?? [], sinceMs);
  }
}

/** The pushed reports of the account `accountKey` in this process. */
export function reportsOfAccount(accountKey: string): RecentReports {
  return keptForAccount(accountKey, "recent task reports", () => new RecentReports());
}
