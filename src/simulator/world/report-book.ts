/**
 * Every task report of the simulated robots, kept as the cloud keeps them:
 * per robot, newest start first, listed by page within a time window of
 * their start (docs/cloud-api.md, Task reports), each with its coverage
 * image in the object store.
 */
import type { SimMap } from "../maps/maps";
import { drawCoverage } from "../maps/map-image";

/** Reports kept per robot; the oldest start is dropped past this (a month of 30 tasks a day). */
export const MAX_TASK_REPORTS_PER_ROBOT = 1000;

/** A report as filed, with what its coverage image is drawn from. */
export interface FiledReport {
  readonly report: Record<string, unknown>;
  readonly mapId: string;
  /** Areas the task named; none: the whole map. */
  readonly areaIds: readonly string[];
}

export interface ReportWindow {
  page: number;
  pageSize: number;
  /** Epoch ms: reports that started at or after it. */
  floorMs?: number;
  /** Epoch ms: reports that started before it. */
  upperMs?: number;
}

/** The object store key of a report's coverage image. */
export function coverageKey(serialNumber: string, reportId: string): string {
  return `reports/${encodeURIComponent(serialNumber)}/${encodeURIComponent(reportId)}.png`;
}

const startOf = (filed: FiledReport) => Date.parse(String(filed.report.startTime));

export class ReportBook {
  private readonly byRobot = new Map<string, FiledReport[]>();

  /** Files a report in start order (a report filed late, or added in the past, still lists in its place). */
  file(serialNumber: string, filed: FiledReport): void {
    const reports = this.byRobot.get(serialNumber) ?? [];
    this.byRobot.set(serialNumber, reports);
    const start = startOf(filed);
    const at = reports.findIndex((other) => startOf(other) < start);
    reports.splice(at === -1 ? reports.length : at, 0, filed);
    reports.length = Math.min(reports.length, MAX_TASK_REPORTS_PER_ROBOT);
  }

  /**
   * One page of the robot's reports that started in the window, newest first,
   * each with `taskReportPngUri` from `imageUrl`; `total` counts the window's
   * reports, as an int64 string.
   */
  list(
    serialNumber: string,
    window: ReportWindow,
    imageUrl: (key: string) => string,
  ): { robotTaskReports: Record<string, unknown>[]; total: string } {
    const inWindow = (this.byRobot.get(serialNumber) ?? []).filter((filed) => {
      const start = startOf(filed);
      return (window.floorMs === undefined || start >= window.floorMs) && (window.upperMs === undefined || start < window.upperMs);
    });
    const page = inWindow.slice((window.page - 1) * window.pageSize, window.page * window.pageSize);
    return { robotTaskReports: page.map((filed) => withImage(serialNumber, filed, imageUrl)), total: String(inWindow.length) };
  }

  find(serialNumber: string, reportId: string): FiledReport | undefined {
    return this.byRobot.get(serialNumber)?.find((filed) => String(filed.report.id) === reportId);
  }

  /** The PNG of a report's coverage, or undefined for no such report. */
  coverage(serialNumber: string, reportId: string, maps: readonly SimMap[]): Buffer | undefined {
    const filed = this.find(serialNumber, reportId);
    const map = filed && maps.find((candidate) => candidate.id === filed.mapId);
    if (!filed || !map) return undefined;
    return drawCoverage(map, filed.areaIds, Number(filed.report.completionPercentage ?? 0));
  }
}

/** A copy of the report with its image's URL, as the cloud lists it. */
export function withImage(serialNumber: string, filed: FiledReport, imageUrl: (key: string) => string): Record<string, unknown> {
  return { ...structuredClone(filed.report), taskReportPngUri: imageUrl(coverageKey(serialNumber, String(filed.report.id))) };
}
