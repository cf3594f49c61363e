/**
 * robot-reports: every task report of the account's robots, sent on once,
 * and the fleet's figures from them. It sweeps the task reports endpoint
 * every few minutes and takes pushed reports in (robot-events' second
 * output); output 1 gets each report once ever, output 2 the figures of its
 * day after each new one, and the answers to requests (a table of figures, a
 * report's coverage image).
 */
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from "node-red";
import { PLATFORM_CODES, RobotApiError, invalidInput } from "../../api/errors";
import { readNumberSetting, SERIAL_NUMBER_PATTERN, SERIAL_NUMBER_RULE } from "../../api/settings/input-rules";
import { DAY_MS } from "../../api/reports/book";
import { dayFormatter, kpiChartPoints, readKpiRequest } from "../../api/reports/kpi";
import { readReport, type ReadReport } from "../../api/reports/reading";
import type { SweepSummary } from "../../api/reports/sweep";
import { reportImagesModule } from "../shared/api";
import { configProblemStatus, lookUpConfig } from "../shared/config-node";
import { translator } from "../shared/i18n";
import { isPlainObject, plainData } from "../shared/plain-data";
import { refuseMessages, takeMessages } from "../shared/robot-input";
import { serialNumberList } from "../shared/settings";
import { REPORTS_LIMITS } from "./table";
import { ReportsKeeper, type ReportsSettings } from "./keeper";
import { ReportsStatus } from "./status";

export interface RobotReportsProperties extends NodeDef {
  robot: string;
  /** Serial numbers, separated by commas, spaces or new lines; empty: every robot of the account. */
  serialNumbers?: string;
  every?: string | number;
  since?: string | number;
  keep?: string | number;
  timeZone?: string;
}

type Send = (msg: NodeMessage | (NodeMessage | NodeMessage[] | null)[]) => void;

export function reportsSettingsOf(config: RobotReportsProperties): ReportsSettings {
  const timeZone = typeof config.timeZone === "string" && config.timeZone.trim() !== "" ? config.timeZone.trim() : undefined;
  // Checked here, so a zone the runtime does not know is a setting error at deploy.
  dayFormatter(timeZone);
  return {
    serialNumbers: serialNumberList(config.serialNumbers),
    everyMs: readNumberSetting(config.every, "every", REPORTS_LIMITS.every) * 60_000,
    sinceMs: readNumberSetting(config.since, "since", REPORTS_LIMITS.since) * DAY_MS,
    keepMs: readNumberSetting(config.keep, "keep", REPORTS_LIMITS.keep) * DAY_MS,
    timeZone,
  };
}

/**
 * The report a message brings, when it brings one: robot-events' task report
 * event (msg.payload, the report with serialNumber beside its fields), or a
 * push body as the cloud posts it ({payload: {serialNumber, taskReport}}).
 */
export function pushedReportOf(payload: unknown): ReadReport | undefined {
  if (!isPlainObject(payload)) return undefined;
  let report: Record<string, unknown> | undefined;
  let serialNumber: unknown;
  let field = "payload.serialNumber";
  if (isPlainObject(payload.payload) && isPlainObject(payload.payload.taskReport)) {
    report = payload.payload.taskReport;
    serialNumber = payload.payload.serialNumber;
    field = "payload.payload.serialNumber";
  } else if (isPlainObject(payload.taskReport)) {
    report = payload.taskReport;
    serialNumber = payload.serialNumber;
  } else if ("taskEndStatus" in payload || "robotSerialNumber" in payload || ("id" in payload && "startTime" in payload)) {
    report = payload;
    serialNumber = payload.serialNumber ?? payload.robotSerialNumber;
  }
  if (!report) return undefined;
  if (typeof serialNumber !== "string" || !SERIAL_NUMBER_PATTERN.test(serialNumber)) throw invalidInput(field, `the report's robot: ${SERIAL_NUMBER_RULE}`);
  return readReport(report, serialNumber);
}

function setUpReports(RED: NodeAPI, node: Node, config: RobotReportsProperties): void {
  const t = translator(RED, "robot-reports");
  let settings: ReportsSettings;
  try {
    settings = reportsSettingsOf(config);
  } catch (error) {
    // A node cannot refuse to deploy: it shows the bad setting and refuses each message with it.
    const problem = error instanceof RobotApiError ? error : invalidInput("", String(error));
    return refuseMessages(node, { fill: "red", shape: "ring", text: t("status.setting", { field: problem.field ?? problem.code }) }, problem, { atDeploy: true, eachMessage: true });
  }
  const { client, problem } = lookUpConfig(RED, config.robot);
  if (problem) return refuseMessages(node, configProblemStatus(problem, t), problem, { atDeploy: true, eachMessage: true });

  const keeper = new ReportsKeeper(node, client, settings);
  const status = new ReportsStatus(node, t);

  /** Sends a report on once: output 1 the report, output 2 its day's figures when it counts in the history. */
  const take = async (report: ReadReport, send: Send, msg?: NodeMessageInFlow): Promise<boolean> => {
    const { fresh, kept } = await keeper.admit(report);
    if (!fresh) return false;
    const out: NodeMessage = msg ?? {};
    out.topic = report.serialNumber;
    out.payload = report;
    const figures = kept ? { topic: report.serialNumber, payload: keeper.figuresOf(kept) } : null;
    send([out, figures]);
    status.sent++;
    return true;
  };

  /** Robots whose reports are refused with 110003 (not bound to this app for reports), each named once in the log. */
  const notBound = new Set<string>();
  /**
   * A sweep's failures without the robots not bound for reports: their binding is
   * the account's to fix, so they are warned of once and counted under the node,
   * not an error at every sweep; they are still asked, so a binding made later shows.
   */
  const withoutUnbound = (summary: SweepSummary): SweepSummary => {
    const failedNow = new Set(summary.failures.map((failure) => failure.serialNumber));
    for (const serialNumber of notBound) if (!failedNow.has(serialNumber)) notBound.delete(serialNumber);
    const failures = summary.failures.filter((failure) => {
      if (!(failure.error instanceof RobotApiError) || failure.error.apiCode !== PLATFORM_CODES.ROBOT_NOT_BOUND.code) {
        notBound.delete(failure.serialNumber);
        return true;
      }
      if (!notBound.has(failure.serialNumber)) node.warn(t("log.notBound", { serialNumber: failure.serialNumber }));
      notBound.add(failure.serialNumber);
      return false;
    });
    status.notBound = notBound.size;
    return { ...summary, failures };
  };

  const sweep = (send: Send): Promise<SweepSummary> => {
    status.sweeping();
    // A report that fails on its way out is one error a Catch node gets, with the report as its message.
    const failed = (report: ReadReport, error: unknown) => node.error(error, { topic: report.serialNumber, payload: report });
    return keeper.sweep((report) => take(report, send), failed).then(
      (swept) => {
        const summary = withoutUnbound(swept);
        status.swept(summary);
        return summary;
      },
      (error: unknown) => {
        status.failed(error);
        throw error;
      },
    );
  };

  /** A sweep's failed robots as one error naming them (the reports found for the others were sent). */
  const failureOf = (summary: SweepSummary): RobotApiError | undefined => {
    if (summary.failures.length === 0) return undefined;
    const first = summary.failures[0]!;
    const cause = first.error instanceof RobotApiError ? first.error : undefined;
    // A fleet's worth of names would bury the reason: the first ten, and how many more.
    const listed = summary.failures.slice(0, 10).map((failure) => failure.serialNumber);
    const names = listed.join(", ") + (summary.failures.length > listed.length ? ` and ${summary.failures.length - listed.length} more` : "");
    return new RobotApiError({
      kind: cause?.kind ?? "network",
      operation: "listTaskReports",
      message: `listTaskReports: the reports of ${summary.failures.length} of ${summary.robots} robots could not be read (${names}): ${first.error instanceof Error ? first.error.message : String(first.error)}; they are asked for again at the next sweep`,
      ...(cause?.status === undefined ? {} : { status: cause.status }),
    });
  };

  /** The timer's sweep, where this instance sweeps (a shared account: one at a time); else it stands by. */
  const sweepAtTimer = async () => {
    if (!(await keeper.sweepsHere())) return status.standingBy(keeper.book.size.history);
    await sweep((msg) => node.send(msg)).then(
      (summary) => {
        const failure = failureOf(summary);
        if (failure) node.error(failure, { topic: "sweep", payload: { failedRobots: summary.failures.map((each) => each.serialNumber) } });
      },
      (error: unknown) => {
        if (!isAbort(error)) node.error(error, { topic: "sweep", payload: {} });
      },
    );
  };
  keeper.onTimer = () => void sweepAtTimer().catch((error: unknown) => node.error(error));
  status.reading();
  void keeper.ready.then(() => keeper.onTimer?.());

  takeMessages(RED, node, async (msg, sendEarly) => {
    await handle(msg, sendEarly);
    return undefined;
  });

  /** A request answers on output 2, a report or a sweep sends its rows on output 1 as they come; the message ends after. */
  async function handle(msg: NodeMessageInFlow, send: Send): Promise<void> {
    // Only an object can be a request or a report; anything else (an inject's timestamp, a Buffer) asks for a sweep.
    const payload = isPlainObject(msg.payload) ? plainData(msg.payload, "payload") : undefined;
    await keeper.ready;
    if (isPlainObject(payload) && payload.kpi !== undefined) {
      const request = readKpiRequest(payload.kpi, keeper.today());
      // Standing by: the figures of what the sweeping instance shared, as fresh as its last sweep.
      if (keeper.standingBy) await keeper.takeShared();
      const out = msg as NodeMessageInFlow & { kpi: unknown };
      out.kpi = request;
      const rows = keeper.table(request);
      out.payload = request.chart ? kpiChartPoints(rows, request.chart, (figure) => t(`chart.${figure}`)) : rows;
      send([null, out]);
      return;
    }
    if (isPlainObject(payload) && payload.image !== undefined) {
      send([null, await imageMessage(msg, payload)]);
      return;
    }
    const pushed = pushedReportOf(payload);
    if (pushed) {
      await take(pushed, send, msg);
      status.draw();
      return;
    }
    const failure = failureOf(await sweep(send));
    if (failure) throw failure;
  }

  /** msg.payload = {image: reportId, serialNumber?}: the report's coverage PNG. */
  async function imageMessage(msg: NodeMessageInFlow, payload: Record<string, unknown>): Promise<NodeMessage> {
    const reportId = payload.image;
    if ((typeof reportId !== "string" || reportId.trim() === "") && typeof reportId !== "number") throw invalidInput("payload.image", "must be the id of a task report");
    const given = payload.serialNumber;
    if (given !== undefined && (typeof given !== "string" || !SERIAL_NUMBER_PATTERN.test(given))) throw invalidInput("payload.serialNumber", SERIAL_NUMBER_RULE);
    const kept = keeper.book.findReport(String(reportId), given);
    if (!kept && given === undefined) {
      throw invalidInput("payload.image", `no report ${String(reportId)} in this node's history: give payload.serialNumber too, to ask the cloud for it`);
    }
    const image = await reportImagesModule().taskReportImage(client!, kept ?? { serialNumber: given!, reportId: String(reportId) }, keeper.callOptions);
    const out = msg as NodeMessageInFlow & { contentType: string; report: unknown };
    out.topic = kept?.serialNumber ?? given!;
    out.payload = image.data;
    out.contentType = image.contentType;
    out.report = { reportId: String(reportId), serialNumber: out.topic, url: image.url };
    return out;
  }

  node.on("close", (_removed: boolean, done: () => void) => {
    status.close();
    keeper.close().then(done, done);
  });
}

function isAbort(error: unknown): boolean {
  return error instanceof RobotApiError && error.kind === "aborted";
}


export default function registerRobotReports(RED: NodeAPI): void {
  RED.nodes.registerType("robot-reports", function RobotReportsNode(this: Node, config: RobotReportsProperties) {
    RED.nodes.createNode(this, config);
    setUpReports(RED, this, config);
  });
}
