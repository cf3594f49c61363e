/**
 * The work order: what of the upkeep table needs a person (attention.ts), as
 * CSV or as a page a technician prints, in the runtime's language. robot-upkeep
 * answers {"workOrder": {"format": "csv" | "html"}} with workOrderAnswer.
 */
import { dayFormatter } from "../reports/kpi";
import { DEFAULT_UPKEEP_LIMITS, dayAfter, upkeepItems, type UpkeepLimits } from "./attention";
import type { UpkeepRobot } from "./table";
import { workOrderCsv } from "./work-order-csv";
import { workOrderHtml } from "./work-order-page";
import type { UpkeepWords } from "./work-order-words";

export const WORK_ORDER_FORMATS = ["csv", "html"] as const;
export type WorkOrderFormat = (typeof WORK_ORDER_FORMATS)[number];

export interface WorkOrderOptions {
  /** When the list is made (default: now); its day, in `timeZone`, is the first of the days ahead. */
  now?: Date;
  /** The zone the days are in (default: the runtime's). */
  timeZone?: string;
  limits?: UpkeepLimits;
}

/** The work order of `table` as CSV or an HTML page (robot-upkeep refuses any other format before it reads). */
export function workOrderAnswer(
  table: readonly UpkeepRobot[],
  format: WorkOrderFormat,
  words: UpkeepWords,
  options: WorkOrderOptions = {},
): string {
  const now = options.now ?? new Date();
  const timeZone = options.timeZone || Intl.DateTimeFormat().resolvedOptions().timeZone;
  const limits = options.limits ?? DEFAULT_UPKEEP_LIMITS;
  const today = dayFormatter(timeZone)(now.getTime());
  const items = upkeepItems(table, today, limits);
  // The catalogue Node-RED chose names its language: dates and numbers follow the words.
  const language = words("planReport.language");
  if (format === "csv") return workOrderCsv(items, words, language);
  return workOrderHtml({ items, dueBy: dayAfter(today, limits.dueWithinDays), madeAt: now, timeZone, language }, words);
}
