/**
 * Proof of service as CSV: one line per occurrence, units in the column
 * names, each state and outcome as its code beside its words, quoted as
 * robot-reports' CSV example writes a field.
 */
import { csvText } from "../csv";
import type { PlanReportRows, ReportWords } from "./plan-report-rows";

/** The CSV's columns, units in their names (times ISO 8601 in UTC, areas m², coverage per cent), one line per occurrence. */
export const CSV_COLUMNS = [
  "day",
  "occurrence_id",
  "item",
  "planned_at",
  "started_at",
  "ended_at",
  "duration_s",
  "status",
  "status_text",
  "serial_number",
  "robot",
  "outcome",
  "outcome_text",
  "area_cleaned_m2",
  "area_planned_m2",
  "coverage_percent",
  "report_id",
  "incidents",
  "reason",
  "reason_text",
] as const;

/** Coverage as a percentage with the KPI's precision (0-1 to three decimals: per cent to one). */
function percent(coverage: number | null): number | null {
  return coverage === null ? null : Math.round(coverage * 1000) / 10;
}

/** One line per occurrence: each state and outcome as its code (for a program) beside its words in the runtime's language (for a person). */
export function planReportCsv(rows: PlanReportRows, words: ReportWords): string {
  return csvText(
    CSV_COLUMNS,
    rows.occurrences.map((row) => [
      row.day,
      row.occurrenceId,
      row.item,
      row.plannedAt,
      row.startedAt,
      row.endedAt,
      row.durationSeconds,
      row.status,
      words(`status.${row.status}`),
      row.serialNumber,
      row.robotName,
      row.outcome,
      row.outcome === undefined ? undefined : words(`outcome.${row.outcome}`),
      row.areaCleaned,
      row.areaPlanned,
      percent(row.coverage),
      row.reportId,
      row.incidents?.length ?? (row.startedAt !== undefined ? 0 : undefined),
      row.reason,
      row.reasonText,
    ]),
  );
}
