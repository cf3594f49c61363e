/**
 * The account's task reports, the one store of them in the process: each
 * report read once (reading.ts) and kept under its identity (robot and id), so
 * a report pushed to robot-events and swept by robot-reports is one report.
 * robot-events and robot-reports put reports in; robot-job takes the report
 * of a task that ended from here, and puts in what it lists itself. Bounded:
 * the newest few per robot, for a bounded number of robots. robot-reports'
 * own ledger (ReportBook: what it sent on, its figures' history, kept in its
 * context) is its view of these reports, under the same identity.
 * A report's coverage image is kept beside it (fetched by report-images.ts),
 * bounded per image and in all, and forgotten with the report.
 */
import { keptForAccount, keptIfAsked } from "../account/account-memory";
import { feedsUpkeepHistory, upkeepHistoryIfAsked } from "../upkeep/history";
import type { ReadReport } from "./reading";

export const REPORTS_KEPT_PER_ROBOT = 10;
export const ROBOTS_WITH_REPORTS = 10_000;

/**
 * A coverage image larger than this is not kept: 2 MiB. The maker's coverage
 * PNGs of a floor are tens to hundreds of KiB; a larger answer is not one.
 */
export const MAX_KEPT_IMAGE_BYTES = 2 * 1024 * 1024;
/**
 * The account's kept coverage images in all: 32 MiB, the newest kept. An edge
 * box (1-2 GiB of memory shared with Node-RED's flows) holds that without
 * notice, and it is a week or two of a busy site's PNGs (~100 per day).
 */
export const MAX_KEPT_IMAGES_BYTES = 32 * 1024 * 1024;

/** Why a report's coverage image is not kept: too large, not an image, its link refused (HTTP status), or dropped for the total bound. */
export type MissingImage = { why: "tooLarge" } | { why: "notImage" } | { why: "refused"; status: number } | { why: "dropped" };
/** A report's coverage image as kept: its bytes and type, or why there are none. */
export type KeptImage = { data: Buffer; contentType: "image/png" | "image/jpeg" } | MissingImage;

export interface ImageBounds {
  /** Bytes of one image at most (MAX_KEPT_IMAGE_BYTES). */
  perImage: number;
  /** Bytes of the account's images in all (MAX_KEPT_IMAGES_BYTES): beyond, the oldest kept are dropped. */
  total: number;
}

/** A report's clock and the package's may differ by this much, where the robot's clock offset is not known (task-report.ts). */
export const CLOCK_SKEW_MS = 60_000;

export class AccountReports {
  /** Per robot, its reports by identity (reportKey), the oldest kept first. */
  private readonly byRobot = new Map<string, Map<string, ReadReport>>();
  /** The kept reports' coverage images by robot and identity (imageKey), the oldest kept first. */
  private readonly images = new Map<string, KeptImage>();
  private imageBytes = 0;

  constructor(
    readonly imageBounds: ImageBounds = { perImage: MAX_KEPT_IMAGE_BYTES, total: MAX_KEPT_IMAGES_BYTES },
    /** Told each report kept for the first time: the account's upkeep history counts its cleaning time here, once asked for. */
    private readonly keptFirst: (report: ReadReport) => void = () => undefined,
  ) {}

  /** Keeps a report; one already kept under its identity stays as it was. Returns the report kept. */
  keep(report: ReadReport): ReadReport {
    const reports = this.byRobot.get(report.serialNumber) ?? new Map<string, ReadReport>();
    // The robot heard of last is the newest: the robot forgotten first is the one heard of longest ago.
    this.byRobot.delete(report.serialNumber);
    this.byRobot.set(report.serialNumber, reports);
    const known = reports.get(report.reportKey);
    if (known) return known;
    reports.set(report.reportKey, report);
    this.keptFirst(report);
    if (reports.size > REPORTS_KEPT_PER_ROBOT) {
      const oldest = reports.keys().next().value!;
      reports.delete(oldest);
      this.forgetImage(imageKey(report.serialNumber, oldest));
    }
    if (this.byRobot.size > ROBOTS_WITH_REPORTS) {
      const [serialNumber, forgotten] = this.byRobot.entries().next().value!;
      this.byRobot.delete(serialNumber);
      for (const reportKey of forgotten.keys()) this.forgetImage(imageKey(serialNumber, reportKey));
    }
    return report;
  }

  /** The coverage image kept with a report, or why there is none; undefined when none was kept (yet). */
  imageOf(reportKey: string, serialNumber: string): KeptImage | undefined {
    return this.images.get(imageKey(serialNumber, reportKey));
  }

  /**
   * Keeps a report's coverage image (or why there is none) with the report;
   * not for a report the account does not keep. An image over the per-image
   * bound is kept as tooLarge; over the total, the oldest images kept are
   * dropped (their reason stays, a few bytes) until the newest fits.
   */
  keepImage(reportKey: string, serialNumber: string, image: KeptImage): void {
    if (!this.get(reportKey, serialNumber)) return;
    const key = imageKey(serialNumber, reportKey);
    this.forgetImage(key);
    const kept: KeptImage = "data" in image && image.data.length > this.imageBounds.perImage ? { why: "tooLarge" } : image;
    this.images.set(key, kept);
    if (!("data" in kept)) return;
    this.imageBytes += kept.data.length;
    for (const [oldKey, old] of this.images) {
      if (this.imageBytes <= this.imageBounds.total) break;
      if (!("data" in old)) continue;
      this.forgetImage(oldKey);
      this.images.set(oldKey, { why: "dropped" });
    }
  }

  private forgetImage(key: string): void {
    const image = this.images.get(key);
    if (image && "data" in image) this.imageBytes -= image.data.length;
    this.images.delete(key);
  }

  /** The report kept under this identity, if any. */
  get(reportKey: string, serialNumber: string): ReadReport | undefined {
    return this.byRobot.get(serialNumber)?.get(reportKey);
  }

  /** The identities of the robot's reports kept now. */
  keysOf(serialNumber: string): Set<string> {
    return new Set(this.byRobot.get(serialNumber)?.keys());
  }

  /** Tells keptFirst again of every report kept now: the upkeep history made after they were kept counts them (each once, by its identity). */
  retell(): void {
    for (const reports of this.byRobot.values()) for (const report of reports.values()) this.keptFirst(report);
  }

  /** The robot's reports kept now, the oldest kept first (api/jobs/task-report.ts chooses a start's among them). */
  reportsOf(serialNumber: string): ReadReport[] {
    return [...(this.byRobot.get(serialNumber)?.values() ?? [])];
  }
}

function imageKey(serialNumber: string, reportKey: string): string {
  return `${serialNumber}\n${reportKey}`;
}

const REPORTS_KIND = "task reports";

/** The task reports of the account `accountKey` (RobotClient.accountKey), the same object for every node of it in this process. */
export function reportsOfAccount(accountKey: string): AccountReports {
  return keptForAccount(
    accountKey,
    REPORTS_KIND,
    () => new AccountReports(undefined, (report) => upkeepHistoryIfAsked(accountKey)?.observeReport(report)),
  );
}

feedsUpkeepHistory((accountKey) => keptIfAsked<AccountReports>(accountKey, REPORTS_KIND)?.retell());
