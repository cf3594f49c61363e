/**
 * The account's task reports, the one store of them in the process: each
 * report read once (reading.ts) and kept under its identity (robot and id), so
 * a report pushed to robot-events and swept by robot-reports is one report.
 * robot-events and robot-reports put reports in; robot-job takes the report
 * of a task that ended from here, and puts in what it lists itself. Bounded:
 * the newest few per robot, for a bounded number of robots. robot-reports'
 * own ledger (ReportBook: what it sent on, its figures' history, kept in its
 * context) is its view of these reports, under the same identity.
 */
import { keptForAccount } from "../account/account-memory";
import type { ReadReport } from "./reading";

export const REPORTS_KEPT_PER_ROBOT = 10;
export const ROBOTS_WITH_REPORTS = 10_000;

/** A report's clock and the package's may differ by this much, where the robot's clock offset is not known (task-report.ts). */
export const CLOCK_SKEW_MS = 60_000;

export class AccountReports {
  /** Per robot, its reports by identity (reportKey), the oldest kept first. */
  private readonly byRobot = new Map<string, Map<string, ReadReport>>();

  /** Keeps a report; one already kept under its identity stays as it was. Returns the report kept. */
  keep(report: ReadReport): ReadReport {
    const reports = this.byRobot.get(report.serialNumber) ?? new Map<string, ReadReport>();
    // The robot heard of last is the newest: the robot forgotten first is the one heard of longest ago.
    this.byRobot.delete(report.serialNumber);
    this.byRobot.set(report.serialNumber, reports);
    const known = reports.get(report.reportKey);
    if (known) return known;
    reports.set(report.reportKey, report);
    if (reports.size > REPORTS_KEPT_PER_ROBOT) reports.delete(reports.keys().next().value!);
    if (this.byRobot.size > ROBOTS_WITH_REPORTS) this.byRobot.delete(this.byRobot.keys().next().value!);
    return report;
  }

  /** The report kept under this identity, if any. */
  get(reportKey: string, serialNumber: string): ReadReport | undefined {
    return this.byRobot.get(serialNumber)?.get(reportKey);
  }

  /** The identities of the robot's reports kept now. */
  keysOf(serialNumber: string): Set<string> {
    return new Set(this.byRobot.get(serialNumber)?.keys());
  }

  /** The robot's reports kept now, the oldest kept first (api/jobs/task-report.ts chooses a start's among them). */
  reportsOf(serialNumber: string): ReadReport[] {
    return [...(this.byRobot.get(serialNumber)?.values() ?? [])];
  }
}

/** The task reports of the account `accountKey` (RobotClient.accountKey), the same object for every node of it in this process. */
export function reportsOfAccount(accountKey: string): AccountReports {
  return keptForAccount(accountKey, "task reports", () => new AccountReports());
}
