/**
 * Proof of service: what a cleaning plan had against what was done, the
 * report a contractor hands over, in the format asked for: rows as data
 * (plan-report-rows.ts), CSV (plan-report-csv.ts) or a printable page
 * (plan-report-page.ts).
 */
import { planReportCsv } from "./plan-report-csv";
import { planReportHtml } from "./plan-report-page";
import { planReportRows, type PlanReportInput, type PlanReportRows } from "./plan-report-rows";

export * from "./plan-report-rows";
export { CSV_COLUMNS, planReportCsv } from "./plan-report-csv";
export { REPORT_OUTCOMES, REPORT_WORD_KEYS, planReportHtml } from "./plan-report-page";

/** The report in the format asked for: rows as data, or the text of the CSV or the HTML page. */
export function planReport(input: PlanReportInput): PlanReportRows | string {
  const rows = planReportRows(input);
  if (input.request.format === "csv") return planReportCsv(rows, input.words);
  if (input.request.format === "html") return planReportHtml(rows, input);
  return rows;
}
