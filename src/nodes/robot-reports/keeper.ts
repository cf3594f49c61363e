/**
 * The state behind a robot-reports node and what it does with it: the book
 * of seen reports and history (kept per account and node in the package's
 * memory, copied to the node's context), the day index the figures are read
 * from, and the sweeps on a timer. The node (index.ts) turns messages into
 * calls of this and its results into messages.
 */
import { robotNameOf } from "../../api/account/robot-directory";
import type { Node } from "node-red";
import { keptForAccount } from "../../api/account/account-memory";
import type { RobotClient } from "../../api/client";
import { ReportBook, DAY_MS } from "../../api/reports/book";
import { keepReport } from "../../api/reports/report-images";
import { dayFormatter, kpiRows, type KeptReport, type KpiRequest, type KpiRow } from "../../api/reports/kpi";
import type { ReadReport } from "../../api/reports/reading";
import { sweepFleet, type SweepSummary } from "../../api/reports/sweep";
import { ContextMirror } from "../shared/context-mirror";
import type { WatchLease } from "../../api/account/shared-account";
import { settledWithin } from "../../api/engine/clock";
import { CLAIM_ANSWER_MS } from "../../api/jobs/robot-claims";

export interface ReportsSettings {
  serialNumbers: string[];
  everyMs: number;
  sinceMs: number;
  keepMs: number;
  /** An IANA zone, or undefined for the runtime's. */
  timeZone: string | undefined;
}

/** The figures of one day after a new report: for its robot and for each map it covered. */
export interface DayFigures {
  day: string;
  robot: KpiRow | undefined;
  maps: KpiRow[];
}

/** Where the node's context holds the copy of its book. */
export const CONTEXT_KEY = "robotReports";
/**
 * The sweep's lease between instances works at this interval at most (looked at every 20 s, taken on the
 * second free look, lapsing 36 s after its holder stops): a standing-by copy sweeps within a minute.
 */
const LEASE_INTERVAL_MS = 60_000;

export class ReportsKeeper {
  readonly book: ReportBook;
  readonly dayOf: (ms: number) => string;
  private readonly mirror: ContextMirror;
  private readonly byDay = new Map<string, Set<KeptReport>>();
  /** Resolves once the node's context was read into the book: nothing is sent before. */
  readonly ready: Promise<void>;
  private sweeping: Promise<SweepSummary> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly lifetime = new AbortController();
  /** A robot's name in the rows: the robot list's (the account's robot directory). */
  private readonly nameOf = (serialNumber: string): string => robotNameOf(this.client.accountKey, serialNumber);
  /** A shared account: the same node in every copy of the flows sweeps in one instance at a time. */
  private readonly lease: WatchLease<unknown> | undefined;
  /** This instance sweeps at its timer (always where the account is not shared). */
  private holding: boolean;
  private readonly nodeId: string;

  constructor(
    node: Node,
    private readonly client: RobotClient,
    private readonly settings: ReportsSettings,
  ) {
    this.dayOf = dayFormatter(settings.timeZone);
    this.nodeId = node.id;
    // The lease is looked at a third of its interval apart and taken on the second free look: at the sweep's own
    // interval (an hour) a shared account's first sweep would wait 40 minutes in every instance.
    this.lease = client.sharing?.watchLease<unknown>(node.id, Math.min(settings.everyMs, LEASE_INTERVAL_MS));
    this.holding = this.lease === undefined;
    // Per account and node: a second robot-reports node of the account sends every report too.
    this.book = keptForAccount(client.accountKey, `robot-reports/${node.id}`, () => new ReportBook());
    this.mirror = new ContextMirror(node, CONTEXT_KEY, () => this.book.snapshot());
    this.ready = (this.book.restored ? Promise.resolve() : this.mirror.read().then((stored) => this.book.restore(stored))).then(() => {
      this.book.restored = true;
      this.book.prune(Date.now(), settings.keepMs);
      this.indexDays();
    });
  }

  /**
   * Takes a report in: fresh when it is new to this node (then it is remembered
   * and written to context) and, on a shared account, no copy of the node in
   * another instance sent it (its claim in Redis; unanswered, it is this one's).
   */
  async admit(report: ReadReport): Promise<{ fresh: boolean; kept?: KeptReport }> {
    keepReport(this.client, report);
    const admission = this.book.admit(report, Date.now(), this.settings.keepMs);
    if (!admission.fresh) return { fresh: false };
    if (admission.kept) this.addToDay(admission.kept);
    this.mirror.changed();
    // A sweep shares the book once at its end, not once per report.
    if (!this.sweeping) this.share();
    const claims = this.client.sharing?.reportClaims;
    const claimed = claims ? await settledWithin(CLAIM_ANSWER_MS, claims.claim(this.nodeId, report.reportKey, this.settings.keepMs)).catch(() => true) : true;
    // Kept either way: another instance sent it, and its figures count here too.
    if (claimed === false) return { fresh: false };
    return { fresh: true, ...(admission.kept ? { kept: admission.kept } : {}) };
  }

  /**
   * Whether this instance sweeps at its timer: always, unless the account is
   * shared and a copy of the node in another instance holds the lease; then
   * this one takes in the book that one shared, and asks again a third of an
   * interval later.
   */
  async sweepsHere(): Promise<boolean> {
    if (!this.lease) return true;
    const holds = await this.lease.claim();
    // Taking over, the book the last holder shared first: its sweep goes on from where that one's ended.
    if (!holds || !this.holding) await this.takeShared();
    this.holding = holds;
    if (!holds && !this.closed) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.onTimer?.(), this.lease.checkEveryMs);
    }
    return holds;
  }

  /** Whether another instance sweeps for this node (the account is shared and this one stands by). */
  get standingBy(): boolean {
    return !this.holding;
  }

  /** Standing by: the reports and sweep ends the sweeping instance shared join this instance's book (for its KPIs). */
  async takeShared(): Promise<void> {
    const shared = await this.lease?.loadStates().catch(() => undefined);
    if (shared === undefined || this.closed) return;
    this.book.restore(shared);
    this.book.prune(Date.now(), this.settings.keepMs);
    this.indexDays();
    this.mirror.changed();
  }

  /** Sweeping on a shared account: the book for the instances standing by, and for the one that takes over. */
  private share(): void {
    if (this.lease && this.holding) void this.lease.saveStates(this.book.snapshot()).catch(() => undefined);
  }

  /** The figures of a kept report's day, for its robot and each of its maps. */
  figuresOf(kept: KeptReport): DayFigures {
    const day = this.dayOf(kept.startMs);
    const reports = [...(this.byDay.get(day) ?? [])];
    const request = { from: day, to: day };
    const robot = kpiRows(reports.filter((report) => report.serialNumber === kept.serialNumber), { ...request, by: "robot" }, this.dayOf, this.nameOf)[0];
    const mapIds = new Set(kept.maps.length ? kept.maps.map((map) => map.mapId) : [""]);
    const maps = kpiRows(reports, { ...request, by: "map" }, this.dayOf).filter((row) => "mapId" in row && mapIds.has(row.mapId));
    return { day, robot, maps };
  }

  table(request: KpiRequest): KpiRow[] {
    return kpiRows(this.book.reports(), request, this.dayOf, this.nameOf);
  }

  today(): string {
    return this.dayOf(Date.now());
  }

  /**
   * Sweeps now, or joins the sweep under way. `found` gets each report the
   * sweep lists (new or not: the caller admits it); a report `found` fails on
   * goes to `failed`, and the reports after it are taken in all the same (the
   * robot's sweep end has already moved past them: a report skipped here is
   * never swept again).
   */
  sweep(found: (report: ReadReport) => Promise<unknown>, failed: (report: ReadReport, error: unknown) => void): Promise<SweepSummary> {
    if (this.sweeping) return this.sweeping;
    clearTimeout(this.timer);
    const now = Date.now();
    // Each report taken in after the one before (its claim answered): they go out in the order the cloud listed them.
    let taking: Promise<unknown> = Promise.resolve();
    this.sweeping = this.ready
      .then(() =>
        sweepFleet(this.client, {
          serialNumbers: this.settings.serialNumbers,
          nowMs: now,
          sinceMs: this.settings.sinceMs,
          keepMs: this.settings.keepMs,
          sweptUntil: this.book.sweptUntil,
          seen: (report) => this.book.has(report.reportKey),
          // Nothing of a closed node reaches the flows that replace it.
          found: (report) => {
            taking = taking.then(() => (this.closed ? undefined : found(report))).catch((error: unknown) => failed(report, error));
          },
          options: { signal: this.lifetime.signal },
        }),
      )
      // Ended or failed, the sweep is over once the reports it found are through (the chain never rejects).
      .finally(() => taking)
      .finally(() => {
        this.sweeping = undefined;
        // A sweep cut short by the close changed nothing worth writing after it.
        if (this.closed) return;
        if (this.book.prune(Date.now(), this.settings.keepMs)) this.indexDays();
        // Where each robot's sweep ended is state too: a restart, or the instance taking over, goes on from there.
        this.mirror.changed();
        this.share();
        this.timer = setTimeout(() => this.onTimer?.(), this.settings.everyMs);
      });
    return this.sweeping;
  }

  /** For the node's other calls (an image): withdrawn when the node closes. */
  get callOptions(): { signal: AbortSignal } {
    return { signal: this.lifetime.signal };
  }

  /** What the timer does (the node sweeps and reports what it found). */
  onTimer: (() => void) | undefined;

  /** Stops sweeping and waits for the context copy to be written. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.lease?.release();
    this.lifetime.abort();
    await this.mirror.flush();
  }

  private addToDay(kept: KeptReport): void {
    const day = this.dayOf(kept.startMs);
    let reports = this.byDay.get(day);
    if (!reports) this.byDay.set(day, (reports = new Set()));
    reports.add(kept);
  }

  private indexDays(): void {
    this.byDay.clear();
    for (const report of this.book.reports()) this.addToDay(report);
  }
}

export { DAY_MS };
