/**
 * robot-plan's answer to {report: {from, to, format, site?}}: gathers what the
 * proof-of-service report joins (the account's occurrences over the days, in
 * the plans' zone; the account's kept task reports; the robot directory's
 * names; the words in the runtime's language) and hands it to planReport
 * (src/api/plans/plan-report.ts). The HTML page embeds each coverage image
 * the account kept with its report (report-images.ts: fetched when the report
 * was kept, as its own URL is pre-signed and expires), and says in words why
 * one it could not keep is missing.
 */
import { DateTime } from "luxon";
import { RobotApiError } from "../../api/errors";
import { settledWithin } from "../../api/engine/clock";
import { CLAIM_ANSWER_MS } from "../../api/jobs/robot-claims";
import { withSettledElsewhere, type AccountPlans } from "../../api/plans/plan-book";
import type { RobotClient } from "../../api/client";
import { robotNameOf } from "../../api/account/robot-directory";
import type { OccurrenceListing } from "../../api/plans/occurrence";
import { planReport, planReportRows, readPlanReportRequest, type PlanReportRequest, type PlanReportRows, type ReportParties } from "../../api/plans/plan-report";
import { reportsOfAccount } from "../../api/reports/report-store";
import { underWayOf } from "../../api/plans/under-way";
import { alarmsOfAccount } from "../../api/pushes/open-alarms";
import { invalidInput } from "../../api/errors";
import { reportIdentity } from "../../api/reports/reading";
import { keptImageOf } from "../../api/reports/report-images";
import type { ImageBounds, KeptImage } from "../../api/reports/report-store";
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
  /** The account's plan book in this process. */
  plans: AccountPlans;
  /** The asking node's zone: the day "today" stands for. */
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
  const { listing, claimedElsewhere } = await accountListing(sources.plans, client, request, nowMs);
  const reports = reportsOfAccount(client.accountKey);
  const alarms = alarmsOfAccount(client.accountKey);
  const underWay = underWayOf(client.accountKey);
  const input = {
    listing,
    request,
    ...parties,
    // The catalogue Node-RED chose names its language: dates and numbers follow the words.
    language: t("planReport.language"),
    words: (key: string, params?: Record<string, string | number>) => t(`planReport.${key}`, params),
    nowMs,
    keptReport: (reportKey: string, serialNumber: string) => reports.get(reportKey, serialNumber),
    // Under way in another instance: running, its robot and start shown once it settles there.
    underWay: (occurrenceId: string) => underWay(occurrenceId) ?? (claimedElsewhere.has(occurrenceId) ? {} : undefined),
    reasonWords: sources.reasonWords,
    incidents: (fromMs: number, toMs: number) => alarms.incidents(fromMs, toMs),
    robotName: (serialNumber: string) => robotNameOf(client.accountKey, serialNumber),
  };
  if (request.format !== "html") return planReport(input);
  return planReport({ ...input, ...(await embeddedImages(planReportRows(input), client, t, sources.signal)) });
}

/** A day either side of the span in UTC holds every plan's local days of it (zones are UTC−12 to UTC+14). */
const ZONE_REACH_MS = 86_400_000;

/**
 * The account's occurrences on the report's days: this process's plan book
 * and, where the account is shared, what every instance settled, and which
 * of those past their time no instance settled are claimed (under way) in another.
 */
async function accountListing(
  plans: AccountPlans,
  client: RobotClient,
  request: PlanReportRequest,
  nowMs: number,
): Promise<{ listing: OccurrenceListing; claimedElsewhere: Set<string> }> {
  const own = plans.onDays(request.from, request.to);
  const shared = client.sharing?.occurrenceClaims;
  if (!shared) return { listing: own, claimedElsewhere: new Set() };
  const unanswered = (why: string) =>
    new RobotApiError({
      kind: "network",
      operation: "planReport",
      message: `planReport: the account's Redis ${why}: the report would lack what other Node-RED instances settled; nothing was sent, ask again`,
    });
  const reading = async () => {
    const settled = await shared.settledBetween(Date.parse(`${request.from}T00:00:00Z`) - ZONE_REACH_MS, Date.parse(`${request.to}T00:00:00Z`) + 2 * ZONE_REACH_MS);
    const listing = withSettledElsewhere(own, settled);
    const settledIds = new Set(listing.settled.map((occurrence) => occurrence.occurrenceId));
    const open = listing.planned.filter(
      (occurrence) => !settledIds.has(occurrence.occurrenceId) && !plans.claimedOf(occurrence.occurrenceId) && Date.parse(occurrence.plannedAt) <= nowMs,
    );
    return { listing, claimedElsewhere: await shared.claimed(open.map((occurrence) => occurrence.occurrenceId)) };
  };
  let answer;
  try {
    answer = await settledWithin(CLAIM_ANSWER_MS, reading());
  } catch (error) {
    throw unanswered(`failed (${error instanceof Error ? error.message : String(error)})`);
  }
  if (answer === "timeout") throw unanswered(`did not answer within ${CLAIM_ANSWER_MS / 1000} s`);
  return answer;
}

/**
 * The rows' coverage images as data: URLs by report key, as the account kept
 * them (one never fetched is fetched now), and for those it has not, why not
 * in words.
 */
async function embeddedImages(
  rows: PlanReportRows,
  client: RobotClient,
  t: Translate,
  signal: AbortSignal | undefined,
): Promise<{ images: Map<string, string>; imageNotes: Map<string, string> }> {
  const images = new Map<string, string>();
  const imageNotes = new Map<string, string>();
  const wanted = rows.occurrences.filter((row) => row.image !== undefined && row.serialNumber !== undefined && row.reportId !== undefined).slice(0, MAX_EMBEDDED_IMAGES);
  const { imageBounds } = reportsOfAccount(client.accountKey);
  for (const row of wanted) {
    const reportKey = reportIdentity(row.serialNumber!, { id: row.reportId! });
    const image = await keptImageOf(client, { serialNumber: row.serialNumber!, reportKey, taskReportPngUri: row.image! }, signal ? { signal } : {});
    if (image && "data" in image) images.set(reportKey, `data:${image.contentType};base64,${image.data.toString("base64")}`);
    else imageNotes.set(reportKey, missingImageWords(image, imageBounds, t));
  }
  return { images, imageNotes };
}

/** Why a report's coverage image is not on the page, in the runtime's language. */
function missingImageWords(image: Exclude<KeptImage, { data: Buffer }> | undefined, bounds: ImageBounds, t: Translate): string {
  const mib = (bytes: number) => String(Math.round((bytes / 1024 / 1024) * 100) / 100);
  if (!image) return t("planReport.image.notFetched");
  if (image.why === "refused") return t("planReport.image.refused", { status: image.status });
  if (image.why === "tooLarge") return t("planReport.image.tooLarge", { mib: mib(bounds.perImage) });
  if (image.why === "dropped") return t("planReport.image.dropped", { mib: mib(bounds.total) });
  return t("planReport.image.notImage");
}
