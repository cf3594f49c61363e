/**
 * robot-plan's answer to {report: {from, to, format, site?}}: gathers what the
 * proof-of-service report joins (the account's occurrences over the days, in
 * the plans' zone; the account's kept task reports; the robot directory's
 * names; the words in the runtime's language) and hands it to planReport
 * (src/api/plans/plan-report.ts). For the HTML page each coverage image is
 * fetched and embedded, as a report's own URL is pre-signed and expires.
 */
import { DateTime } from "luxon";
import type { RobotClient } from "../../api/client";
import { robotNameOf } from "../../api/account/robot-directory";
import type { OccurrenceListing } from "../../api/plans/occurrence";
import { planReport, planReportRows, readPlanReportRequest, type PlanReportRows, type ReportParties } from "../../api/plans/plan-report";
import { reportsOfAccount } from "../../api/reports/report-store";
import { underWayOf } from "../../api/plans/under-way";
import { alarmsOfAccount } from "../../api/pushes/open-alarms";
import { invalidInput } from "../../api/errors";
import { reportImagesModule } from "../shared/api";
import type { Translate } from "../shared/i18n";

/** The site, customer and contractor the request names (each a text, else the node's), named by field when not. */
function partiesOf(request: Record<string, unknown>, fallback: ReportParties): ReportParties {
  const parties: ReportParties = { ...fallback };
  for (const field of ["site", "customer", "contractor"] as const) {
    const given = request[field];
    if (given === undefined) continue;
    if (typeof given !== "string") throw invalidInput(`payload.report.${field}`, `must be the ${field}'s name as text`);
    parties[field] = given.trim();
  }
  return parties;
}

/** Coverage images embedded in one page at most: a month of a busy plan; the rest are linked. */
const MAX_EMBEDDED_IMAGES = 200;

export interface ReportSources {
  client: RobotClient;
  /** The account's occurrences planned in [from, to) (the plan book's between). */
  between: (fromMs: number, toMs: number) => OccurrenceListing;
  timezone: string;
  nowMs: number;
  /** robot-plan's translator: the report's words are the shared catalogue's planReport. */
  t: Translate;
  /** Who the report is between where the request names nobody: the node's settings (the site: else its name). */
  parties: ReportParties;
  /** A robot's reason a job's dispatch gave, in words (robot-job's catalogue). */
  reasonWords: (reason: string) => string;
  signal?: AbortSignal;
}

export async function planReportAnswer(value: unknown, sources: ReportSources): Promise<PlanReportRows | string> {
  const { client, timezone, nowMs, t } = sources;
  const today = DateTime.fromMillis(nowMs, { zone: timezone }).toISODate()!;
  const request = readPlanReportRequest(value, today);
  const parties = partiesOf(value as Record<string, unknown>, sources.parties);
  const fromMs = DateTime.fromISO(request.from, { zone: timezone }).startOf("day").toMillis();
  const toMs = DateTime.fromISO(request.to, { zone: timezone }).plus({ days: 1 }).startOf("day").toMillis();
  const reports = reportsOfAccount(client.accountKey);
  const alarms = alarmsOfAccount(client.accountKey);
  const input = {
    listing: sources.between(fromMs, toMs),
    request,
    ...parties,
    // The catalogue Node-RED chose names its language: dates and numbers follow the words.
    language: t("planReport.language"),
    words: (key: string, params?: Record<string, string | number>) => t(`planReport.${key}`, params),
    nowMs,
    keptReport: (reportKey: string, serialNumber: string) => reports.get(reportKey, serialNumber),
    underWay: underWayOf(client.accountKey),
    reasonWords: sources.reasonWords,
    incidents: (fromMs: number, toMs: number) => alarms.incidents(fromMs, toMs),
    robotName: (serialNumber: string) => robotNameOf(client.accountKey, serialNumber),
  };
  if (request.format !== "html") return planReport(input);
  return planReport({ ...input, images: await embeddedImages(planReportRows(input), client, sources.signal) });
}

/** The rows' coverage images as data: URLs, by report key; one that cannot be fetched stays a link. */
async function embeddedImages(rows: PlanReportRows, client: RobotClient, signal: AbortSignal | undefined): Promise<Map<string, string>> {
  const images = new Map<string, string>();
  const wanted = rows.occurrences.filter((row) => row.image !== undefined && row.serialNumber !== undefined && row.reportId !== undefined).slice(0, MAX_EMBEDDED_IMAGES);
  const { taskReportImage } = reportImagesModule();
  for (const row of wanted) {
    try {
      const image = await taskReportImage(client, { serialNumber: row.serialNumber!, reportId: row.reportId!, pngUri: row.image! }, signal ? { signal } : {});
      const type = isPng(image.data) ? "image/png" : image.contentType.split(";")[0]!.trim();
      if (type === "image/png" || type === "image/jpeg") images.set(`${row.serialNumber!}/${row.reportId!}`, `data:${type};base64,${image.data.toString("base64")}`);
    } catch {
      // Its link stays on the page: it works while the cloud's signature does.
    }
  }
  return images;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
function isPng(data: Buffer): boolean {
  return data.subarray(0, 8).equals(PNG_SIGNATURE);
}
