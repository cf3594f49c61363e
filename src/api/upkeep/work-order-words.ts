/**
 * An upkeep item in words (the shared catalogue's `upkeep` block, in the
 * runtime's language): what it is, what to do, on what basis. The work
 * order's CSV and page, and the console's upkeep view, say an item alike.
 */
import type { UpkeepItem } from "./attention";
import type { ForecastBasis } from "./table";

/** A translator of the package's catalogues (a node's `t`): `upkeep.*` and `planReport.language` are asked of it. */
export type UpkeepWords = (key: string, params?: Record<string, string | number>) => string;

const BASIS_KEYS: Readonly<Record<ForecastBasis, string>> = { plan: "plan", recent: "recent", "too little history": "tooLittleHistory" };

/** "Filter", "Clean water tank", "Battery". */
export function itemName(item: UpkeepItem, words: UpkeepWords): string {
  if (item.kind === "part") return words(`upkeep.parts.${item.part}`);
  if (item.kind === "tank") return words(`upkeep.tanks.${item.tank}`);
  return words("upkeep.battery");
}

/** The code of what the item is (for a program): the part, the tank or "battery". */
export function itemCode(item: UpkeepItem): string {
  return item.kind === "part" ? item.part : item.kind === "tank" ? item.tank : "battery";
}

/** "at the planned 5.5 h a day · 21 days of history", "too little history to say", "status now". */
export function basisText(item: UpkeepItem, words: UpkeepWords, language: string): string {
  if (item.kind !== "part") return words("upkeep.basis.now");
  const key = BASIS_KEYS[item.basis];
  if (item.basis === "too little history") return words(`upkeep.basis.${key}`);
  const hours = new Intl.NumberFormat(language, { maximumFractionDigits: 1 }).format(item.hoursPerDay ?? 0);
  return `${words(`upkeep.basis.${key}`, { hours })} · ${words("upkeep.basis.history", { days: item.historyDays })}`;
}

/** What a person does: under its threshold now, fill it, empty it, the battery's health and temperature. */
export function todoText(item: UpkeepItem, words: UpkeepWords): string {
  if (item.kind === "part") return item.overdue ? words("upkeep.overdue") : "";
  if (item.kind === "tank") return words(item.tank === "cleanWater" ? "upkeep.fill" : "upkeep.empty");
  return [
    item.health !== undefined ? words("upkeep.health", { health: item.health }) : "",
    item.reasons.includes("temperature") && item.hottestCell !== undefined
      ? words("upkeep.temperature", { celsius: item.hottestCell })
      : "",
  ]
    .filter((text) => text !== "")
    .join(" · ");
}

/** Share left (0-1) or a level (0-100) as a whole per cent: what the item's `remaining` column says. */
export function remainingPercent(item: UpkeepItem): number | undefined {
  if (item.kind === "part") return Math.round(item.remaining * 100);
  if (item.kind === "tank") return Math.round(item.level);
  return undefined;
}
