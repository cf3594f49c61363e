/**
 * The report of a task a start began: chosen by one function (reportOfStart)
 * from the facts kept when the start was sent, for robot-job's runner and for
 * a command's confirmation alike. A task may start and end between two
 * status reads (a short task, a stop by hand, a fault at once): then only its
 * report says the robot did the work, and starting it again would clean twice.
 */
import type { CallOptions, RobotClient } from "../client";
import { RobotApiError } from "../errors";
import { keepReport } from "../reports/report-images";
import { reportsOfAccount, CLOCK_SKEW_MS, type AccountReports } from "../reports/report-store";
import type { ReadReport } from "../reports/reading";
import { sweepRobot } from "../reports/sweep";
import {
  confirmationPollerOf,
  refusalIn,
  type ConfirmationRule,
  type ConfirmOptions,
  type Confirmed,
} from "../watching/confirmation-poller";
import { refusalText } from "../watching/robot-actions";
import { readStatus } from "../watching/status-reader";

/** What is known of a start when it was sent: its report is chosen from these. */
export interface StartFacts {
  serialNumber: string;
  /** Its task started at or after this (ms; the report's clock may differ by CLOCK_SKEW_MS). */
  sinceMs: number;
  /** The robot's reports kept when the start was sent: none of them is its task's. */
  keptBefore?: ReadonlySet<string>;
}

/** The facts of a start about to be sent to the robot (take them before sending: a report filed meanwhile is the task's). */
export function factsBeforeStart(kept: AccountReports, serialNumber: string): StartFacts {
  return { serialNumber, sinceMs: Date.now(), keptBefore: kept.keysOf(serialNumber) };
}

/**
 * The report of the start's task among those the account keeps (pushed to
 * robot-events, swept by robot-reports, listed for a job): the newest of a
 * task started since the start, none kept before it. No call.
 */
export function reportOfStart(kept: AccountReports, facts: StartFacts): ReadReport | undefined {
  return kept.newestSince(facts.serialNumber, facts.sinceMs, facts.keptBefore);
}

/**
 * The start's report: one the account keeps, else the robot's reports listed
 * now (a sweep-class call, in a window from the start with the clock skew
 * allowed each side), kept for the account, and chosen among again.
 */
export async function listedReportOfStart(
  client: RobotClient,
  kept: AccountReports,
  facts: StartFacts,
  options: CallOptions,
): Promise<ReadReport | undefined> {
  const known = reportOfStart(kept, facts);
  if (known) return known;
  const window = { floorMs: facts.sinceMs - CLOCK_SKEW_MS, upperMs: Date.now() + CLOCK_SKEW_MS };
  const isKept = (report: ReadReport) => kept.get(report.reportKey, facts.serialNumber) !== undefined;
  for (const report of await sweepRobot(client, facts.serialNumber, window, isKept, options)) keepReport(client, report);
  return reportOfStart(kept, facts);
}

/** msg.confirmation.state of a start its report settled: the task ran and ended between two status reads. */
export const ENDED_BY_REPORT = "ENDED";

/** A start confirmed by a status (`report` absent) or by its task's report (`status` the last one read, if any). */
export interface StartConfirmed extends Omit<Confirmed, "status"> {
  status?: Record<string, unknown>;
  report?: ReadReport;
}

/**
 * Waits until the robot shows the start (`rule`) or its task's report settles
 * it: one kept for the account is looked for with each status read, and once
 * the wait is up the robot's reports are listed. A task that ran confirms
 * with its report, however it ended; a report of a task that failed to start
 * is NOT_CONFIRMED at once, naming it. No report: the wait's NOT_CONFIRMED.
 */
export async function confirmStart(
  client: RobotClient,
  facts: StartFacts,
  rule: ConfirmationRule,
  options: ConfirmOptions,
): Promise<StartConfirmed> {
  const kept = reportsOfAccount(client.accountKey);
  const operation = options.operation ?? "confirm";
  const askedAt = Date.now();
  let report: ReadReport | undefined;
  const shownOrReported: ConfirmationRule = {
    get expects() {
      return `${rule.expects}, or the task's report`;
    },
    confirmedBy: (state) => {
      const shown = rule.confirmedBy(state);
      if (shown !== undefined) return shown;
      report = reportOfStart(kept, facts);
      return report ? ENDED_BY_REPORT : undefined;
    },
    ...(rule.refusal ? { refusal: (state) => rule.refusal!(state) } : {}),
  };
  let lastStatus: Record<string, unknown> | undefined;
  try {
    const confirmed = await confirmationPollerOf(client).waitFor(facts.serialNumber, shownOrReported, options);
    if (!report) return confirmed;
    lastStatus = confirmed.status;
  } catch (error) {
    if (!(error instanceof RobotApiError) || error.kind !== "not_confirmed") throw error;
    report = await listedReportOfStart(client, kept, facts, { signal: options.signal }).catch(() => undefined);
    // A start that failed where the status says why (offline, emergency stop, lost): the wait's error says it best.
    if (!report || (report.outcome === "failedToStart" && error.refusal)) throw error;
    lastStatus = error.lastStatus;
  }
  if (report.outcome === "failedToStart") {
    const refusal = refusalIn(rule, lastStatus && readStatus(lastStatus));
    const failed = `its task report ${String(report.id)}: the task failed to start`;
    throw new RobotApiError({
      kind: "not_confirmed",
      operation,
      message: refusal
        ? `robot ${facts.serialNumber} ${refusalText(refusal)} (${failed})`
        : `${operation}: robot ${facts.serialNumber}: ${failed}`,
      ...(lastStatus ? { lastStatus } : {}),
      ...(refusal ? { refusal } : {}),
    });
  }
  return {
    state: ENDED_BY_REPORT,
    seconds: Math.round((Date.now() - askedAt) / 100) / 10,
    report,
    ...(lastStatus ? { status: lastStatus } : {}),
  };
}
