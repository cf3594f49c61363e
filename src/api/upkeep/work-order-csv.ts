/**
 * The work order as CSV: one line per part due, tank or battery notice, each
 * code beside its words in the runtime's language, per cent in the column
 * names, days as YYYY-MM-DD.
 */
import { csvText } from "../csv";
import type { UpkeepItem } from "./attention";
import { basisText, itemCode, itemName, remainingPercent, todoText, type UpkeepWords } from "./work-order-words";

export const WORK_ORDER_COLUMNS = [
  "kind",
  "serial_number",
  "robot",
  "item",
  "item_text",
  "remaining_percent",
  "due_day",
  "basis",
  "basis_text",
  "history_days",
  "hours_per_day",
  "todo",
] as const;

export function workOrderCsv(items: readonly UpkeepItem[], words: UpkeepWords, language: string): string {
  return csvText(
    WORK_ORDER_COLUMNS,
    items.map((item) => [
      item.kind,
      item.serialNumber,
      item.robotName,
      itemCode(item),
      itemName(item, words),
      remainingPercent(item),
      item.kind === "part" ? item.dueDay : undefined,
      item.kind === "part" ? item.basis : "status",
      basisText(item, words, language),
      item.kind === "part" ? item.historyDays : undefined,
      item.kind === "part" ? item.hoursPerDay : undefined,
      todoText(item, words),
    ]),
  );
}
