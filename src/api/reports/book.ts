/**
 * A robot-reports node's view of the account's reports (report-store.ts):
 * which it has sent on (so each goes out once, ever), what its figures are
 * computed from over its Keep days (KeptReport, the figures only), and where
 * each robot's last sweep ended, all under the reports' one identity
 * (reading.ts). Per node, as each node has its own Keep and context. Plain
 * data in and out (snapshot/restore), for the account's memory and the
 * node's context.
 */
import { keptReportOf, type KeptReport } from "./kpi";
import type { ReadReport } from "./reading";

export const DAY_MS = 24 * 3600_000;

export interface ReportBookSnapshot {
  version: 1;
  /** [report key, when it was first seen (epoch ms)] */
  seen: [string, number][];
  history: KeptReport[];
  sweptUntil: Record<string, number>;
}

export type Admission = { fresh: false } | { fresh: true; kept: KeptReport | undefined };

export class ReportBook {
  private readonly seen = new Map<string, number>();
  private readonly history = new Map<string, KeptReport>();
  /** Per robot: the upper end of its last successful sweep (epoch ms). */
  readonly sweptUntil = new Map<string, number>();
  /** Whether the node's context was read into this book (once per process: a redeploy finds it read). */
  restored = false;

  /**
   * Takes a report in. Fresh once, ever: it is then remembered and, unless it
   * started before the Keep period, added to the history (`kept`).
   */
  admit(report: ReadReport, nowMs: number, keepMs: number): Admission {
    if (this.seen.has(report.reportKey)) return { fresh: false };
    this.seen.set(report.reportKey, nowMs);
    const kept = keptReportOf(report, nowMs);
    if (kept.startMs < nowMs - keepMs) return { fresh: true, kept: undefined };
    this.history.set(kept.key, kept);
    return { fresh: true, kept };
  }

  has(reportKey: string): boolean {
    return this.seen.has(reportKey);
  }

  get size(): { seen: number; history: number } {
    return { seen: this.seen.size, history: this.history.size };
  }

  reports(): IterableIterator<KeptReport> {
    return this.history.values();
  }

  /** A kept report by its id (the cloud's), optionally of one robot. */
  findReport(reportId: string, serialNumber?: string): KeptReport | undefined {
    if (serialNumber !== undefined) return this.history.get(`${serialNumber}/${reportId}`);
    for (const report of this.history.values()) if (report.reportId === reportId) return report;
    return undefined;
  }

  /**
   * Forgets what is older than Keep: reports that started before it, and
   * seen marks set before it (a report is swept at most Keep days back, so
   * an older mark can no longer stop a repeat). Returns whether anything went.
   */
  prune(nowMs: number, keepMs: number): boolean {
    const before = this.seen.size + this.history.size;
    const limit = nowMs - keepMs;
    for (const [key, at] of this.seen) if (at < limit) this.seen.delete(key);
    for (const [key, report] of this.history) if (report.startMs < limit) this.history.delete(key);
    return this.seen.size + this.history.size !== before;
  }

  snapshot(): ReportBookSnapshot {
    return {
      version: 1,
      seen: [...this.seen],
      history: [...this.history.values()],
      sweptUntil: Object.fromEntries(this.sweptUntil),
    };
  }

  /** Adds what a snapshot holds (from the node's context) to what is known; anything unreadable is skipped. */
  restore(value: unknown): void {
    if (typeof value !== "object" || value === null) return;
    const snapshot = value as Partial<ReportBookSnapshot>;
    if (snapshot.version !== 1) return;
    for (const entry of Array.isArray(snapshot.seen) ? snapshot.seen : []) {
      if (Array.isArray(entry) && typeof entry[0] === "string" && typeof entry[1] === "number" && !this.seen.has(entry[0]))
        this.seen.set(entry[0], entry[1]);
    }
    for (const report of Array.isArray(snapshot.history) ? snapshot.history : []) {
      if (
        typeof report?.key === "string" &&
        typeof report.startMs === "number" &&
        Array.isArray(report.maps) &&
        !this.history.has(report.key)
      )
        this.history.set(report.key, report);
    }
    for (const [serialNumber, until] of Object.entries(snapshot.sweptUntil ?? {})) {
      if (typeof until === "number") this.sweptUntil.set(serialNumber, Math.max(until, this.sweptUntil.get(serialNumber) ?? 0));
    }
  }
}
