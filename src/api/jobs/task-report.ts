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
import { cloudTimeMs } from "../cloud/cloud-time";
import type { FleetStatuses } from "../watching/fleet-statuses";
import {
  confirmationPollerOf,
  refusalIn,
  type ConfirmationRule,
  type ConfirmOptions,
  type Confirmed,
} from "../watching/confirmation-poller";
import { refusalText } from "../watching/robot-actions";
import { readStatus } from "../watching/status-reader";

/** What a start names of its work, as a report may name it too (displayName, its maps, areaNameList). */
export interface StartNames {
  task?: string;
  map?: string;
  area?: string;
}

/** What is known of a start when it was sent: its report is chosen from these. */
export interface StartFacts {
  serialNumber: string;
  /** When the start was sent (ms, this process's clock). */
  sinceMs: number;
  /** The robot's reports kept when the start was sent: none of them is its task's. */
  keptBefore?: ReadonlySet<string>;
  /** The robot's clock minus this process's when the start was sent (ms), if known: see factsBeforeStart. */
  clockOffsetMs?: number;
  /** What the start names: a report that names otherwise is taken only where none agrees. */
  names?: StartNames;
}

/**
 * The facts of a start about to be sent to the robot (take them before
 * sending: a report filed meanwhile is the task's). The robot's clock offset
 * is its freshest status's (fleet-statuses.ts); one past CLOCK_SKEW_MS either
 * way is not believed (a stale status of a robot offline a while, or a clock
 * set wrong), and the blind window applies as where none is known.
 */
export function factsBeforeStart(kept: AccountReports, statuses: FleetStatuses, serialNumber: string): StartFacts {
  const offset = statuses.clockOffsetOf(serialNumber);
  return {
    serialNumber,
    sinceMs: Date.now(),
    keptBefore: kept.keysOf(serialNumber),
    ...(offset !== undefined && Math.abs(offset) <= CLOCK_SKEW_MS ? { clockOffsetMs: offset } : {}),
  };
}

/** Whether what a report names of its work (its task's name, maps, areas) agrees with the start's, where both name it. */
function namesAgree(report: ReadReport, names: StartNames | undefined): boolean {
  if (!names) return true;
  const areas = typeof report.areaNameList === "string" ? report.areaNameList.split(/[,，;；]/).map((area) => area.trim()) : [];
  return (
    (names.task === undefined ||
      typeof report.displayName !== "string" ||
      report.displayName === "" ||
      report.displayName === names.task) &&
    (names.map === undefined ||
      report.maps.length === 0 ||
      report.maps.some((map) => map.mapName === names.map || map.mapId === names.map)) &&
    (names.area === undefined || areas.every((area) => area === "") || areas.includes(names.area))
  );
}

/**
 * The report of the start's task among those the account keeps (pushed to
 * robot-events, swept by robot-reports, listed for a job), none kept before
 * the start. One fits when its task started at most CLOCK_SKEW_MS before the
 * start was sent and, where the robot's clock offset is known, ended at or
 * after it (its end on the robot's clock, less the offset): a task that ended
 * before the send is another's. Where none is known, the blind window alone.
 * Of those that fit, one whose names agree with the start's before one that
 * names other work; then the one that ended last. No call.
 */
export function reportOfStart(kept: AccountReports, facts: StartFacts): ReadReport | undefined {
  let chosen: ReadReport | undefined;
  let chosenAgrees = false;
  let chosenEnd = -Infinity;
  for (const report of kept.reportsOf(facts.serialNumber)) {
    if (facts.keptBefore?.has(report.reportKey)) continue;
    const started = cloudTimeMs(report.startTimeIso) ?? cloudTimeMs(report.endTimeIso);
    const ended = cloudTimeMs(report.endTimeIso) ?? started ?? -Infinity;
    if (started === undefined || started < facts.sinceMs - CLOCK_SKEW_MS) continue;
    if (facts.clockOffsetMs !== undefined && ended - facts.clockOffsetMs < facts.sinceMs) continue;
    const agrees = namesAgree(report, facts.names);
    if (chosenAgrees && !agrees) continue;
    if ((agrees && !chosenAgrees) || ended >= chosenEnd) [chosen, chosenAgrees, chosenEnd] = [report, agrees, ended];
  }
  return chosen;
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
  for (const report of await sweepRobot(client, facts.serialNumber, window, isKept, options)) keepReport(client, report, {}, kept);
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
