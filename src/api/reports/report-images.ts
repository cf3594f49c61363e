/**
 * Coverage images kept with the record: when the account keeps a task report
 * that names its coverage image (taskReportPngUri, pre-signed, expiring about
 * 15 minutes after the task), the image is fetched once, at once, through the
 * client's downloads (size-bounded, no token), and kept with the report in the
 * account's store (report-store.ts: bounded, pruned with the report). The
 * plan report page reads it from there, long after the link expired.
 */
import type { DownloadOptions, RobotClient } from "../client";
import { RobotApiError } from "../errors";
import type { ReadReport } from "./reading";
import { reportsOfAccount, type KeptImage } from "./report-store";

/** The report's coverage image being fetched now, by account, robot and identity: asked twice, fetched once. */
const fetching = new Map<string, Promise<KeptImage | undefined>>();

/**
 * Keeps a report for the account (AccountReports.keep: the account's store, or
 * `store` where a caller holds it) and starts fetching its coverage image,
 * once. Returns the report kept.
 */
export function keepReport(
  client: RobotClient,
  report: ReadReport,
  options: DownloadOptions = {},
  store = reportsOfAccount(client.accountKey),
): ReadReport {
  const kept = store.keep(report);
  // Never rejects: what went wrong is kept as the image's reason, or asked again by the page.
  void keptImageOf(client, kept, options);
  return kept;
}

/**
 * The report's coverage image as kept, fetched now if it was not yet (and
 * kept, when the account keeps the report). Undefined when the report names
 * no image, or the fetch failed for a reason that may pass (the network, the
 * object store's 5xx or 429, the node closing): then it is asked again the
 * next time.
 */
export function keptImageOf(
  client: RobotClient,
  report: { serialNumber: string; reportKey: string; taskReportPngUri?: unknown },
  options: DownloadOptions = {},
): Promise<KeptImage | undefined> {
  const url = report.taskReportPngUri;
  if (typeof url !== "string" || url === "") return Promise.resolve(undefined);
  const reports = reportsOfAccount(client.accountKey);
  const known = reports.imageOf(report.reportKey, report.serialNumber);
  if (known) return Promise.resolve(known);
  const key = `${client.accountKey}\n${report.serialNumber}\n${report.reportKey}`;
  let pending = fetching.get(key);
  if (!pending) {
    // A link the download refuses before sending (not http(s)) rejects like any other failure.
    pending = Promise.resolve()
      .then(() => client.downloadMapImage(url, { ...options, maxBytes: reports.imageBounds.perImage }))
      .then(imageOfDownload, missingImageOf)
      .then((image) => {
        if (image) reports.keepImage(report.reportKey, report.serialNumber, image);
        return image;
      })
      .finally(() => fetching.delete(key));
    fetching.set(key, pending);
  }
  return pending;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_SIGNATURE = Buffer.from([0xff, 0xd8, 0xff]);

/** The downloaded bytes as a PNG or JPEG by their own signature (object stores often say application/octet-stream), else notImage. */
function imageOfDownload({ data }: { data: Buffer }): KeptImage {
  if (data.subarray(0, 8).equals(PNG_SIGNATURE)) return { data, contentType: "image/png" };
  if (data.subarray(0, 3).equals(JPEG_SIGNATURE)) return { data, contentType: "image/jpeg" };
  return { why: "notImage" };
}

/** A failed download as the image's lasting reason (refused by status, too large), or undefined for one that may pass. */
function missingImageOf(error: unknown): KeptImage | undefined {
  if (!(error instanceof RobotApiError)) return undefined;
  // The download's only bad_response is an answer over maxBytes (downloads.ts).
  if (error.kind === "bad_response") return { why: "tooLarge" };
  const status = error.status;
  if (error.kind === "http" && status !== undefined && status >= 400 && status <= 499 && status !== 429) return { why: "refused", status };
  return undefined;
}
