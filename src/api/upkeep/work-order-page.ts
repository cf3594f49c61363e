/**
 * The work order as a page a technician prints (A4): the parts due, the
 * tanks and the batteries, each line with a box to tick, and the
 * technician's sign-off; in the runtime's language, every name escaped.
 */
import { escapeMarkup } from "../markup";
import type { BatteryNotice, PartDue, TankNeed, UpkeepItem } from "./attention";
import { basisText, itemName, todoText, type UpkeepWords } from "./work-order-words";

export interface WorkOrderPage {
  items: readonly UpkeepItem[];
  /** The last day the parts listed are due by (today + the days ahead). */
  dueBy: string;
  /** When the list was made, and the zone its days are in. */
  madeAt: Date;
  timeZone: string;
  language: string;
}

const STYLE = `
@page { size: A4; margin: 14mm; }
* { box-sizing: border-box; }
body { font-family: "Noto Sans", "WenQuanYi Micro Hei", "Microsoft YaHei", Arial, sans-serif; color: #1a1a1a; margin: 0; font-size: 10.5pt; }
@media screen { body { max-width: 230mm; margin: 0 auto; padding: 8mm; } }
header { border-bottom: 2px solid #1a1a1a; margin-bottom: 4mm; padding-bottom: 2mm; }
h1 { font-size: 18pt; margin: 0; }
h2 { font-size: 12pt; margin: 6mm 0 2mm; }
header p { margin: 1mm 0 0; }
.muted { color: #555; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #ccc; padding: 1.6mm 1.5mm; text-align: left; vertical-align: top; }
th { background: #f0f0f0; font-weight: 600; word-break: keep-all; }
thead { display: table-header-group; }
tr { break-inside: avoid; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.tick { width: 8mm; }
td.tick span { display: inline-block; width: 4.5mm; height: 4.5mm; border: 1.2px solid #1a1a1a; }
td small { display: block; color: #555; font-size: 8.5pt; }
.overdue { color: #c0281b; font-weight: 700; }
.sign-off { margin-top: 10mm; break-inside: avoid; display: flex; gap: 10mm; }
.sign-off p { flex: 1; border-bottom: 1px solid #1a1a1a; padding-top: 8mm; margin: 0; font-size: 9pt; color: #555; }
`;

export function workOrderHtml(page: WorkOrderPage, words: UpkeepWords): string {
  const { language, timeZone } = page;
  const text = (value: string) => escapeMarkup(value);
  const w = (key: string, params?: Record<string, string | number>) => text(words(`upkeep.workOrder.${key}`, params));
  const date = new Intl.DateTimeFormat(language, { timeZone: "UTC", dateStyle: "medium" });
  const day = (value: string | undefined) => (value === undefined ? "" : date.format(Date.parse(`${value}T12:00:00Z`)));
  const made = new Intl.DateTimeFormat(language, { timeZone, dateStyle: "medium", timeStyle: "short" }).format(page.madeAt);
  const percent = new Intl.NumberFormat(language, { style: "percent", maximumFractionDigits: 0 });
  const heads = (keys: readonly string[], numbers: readonly string[]) =>
    `<thead><tr><th>${w("column.done")}</th>${keys
      .map((key) => `<th${numbers.includes(key) ? ' class="number"' : ""}>${w(`column.${key}`)}</th>`)
      .join("")}</tr></thead>`;
  const robot = (item: UpkeepItem) => `<td>${text(item.robotName)}<small>${text(item.serialNumber)}</small></td>`;
  const tick = '<td class="tick"><span></span></td>';
  const table = (kind: string, head: string, rows: string[]) => `<table class="${kind}">${head}<tbody>${rows.join("")}</tbody></table>`;

  const parts = page.items.filter((item): item is PartDue => item.kind === "part");
  const tanks = page.items.filter((item): item is TankNeed => item.kind === "tank");
  const batteries = page.items.filter((item): item is BatteryNotice => item.kind === "battery");
  const sections: string[] = [];
  if (parts.length > 0)
    sections.push(
      `<h2>${w("partsDue", { day: day(page.dueBy) })}</h2>${table(
        "parts",
        heads(["robot", "item", "remaining", "dueDay", "basis"], ["remaining"]),
        parts.map(
          (item) =>
            `<tr data-serial-number="${text(item.serialNumber)}" data-part="${item.part}">${tick}${robot(item)}<td>${text(itemName(item, words))}</td><td class="number">${percent.format(
              item.remaining,
            )}</td><td${item.overdue ? ' class="overdue"' : ""}>${text(item.overdue ? todoText(item, words) : day(item.dueDay))}</td><td>${text(
              basisText(item, words, language),
            )}</td></tr>`,
        ),
      )}`,
    );
  if (tanks.length > 0)
    sections.push(
      `<h2>${w("tanks")}</h2>${table(
        "tanks",
        heads(["robot", "tank", "level", "todo"], ["level"]),
        tanks.map(
          (item) =>
            `<tr data-serial-number="${text(item.serialNumber)}" data-tank="${item.tank}">${tick}${robot(item)}<td>${text(itemName(item, words))}</td><td class="number">${percent.format(
              item.level / 100,
            )}</td><td>${text(todoText(item, words))}</td></tr>`,
        ),
      )}`,
    );
  if (batteries.length > 0)
    sections.push(
      `<h2>${w("batteries")}</h2>${table(
        "batteries",
        heads(["robot", "health", "hottestCell", "cycles"], ["hottestCell", "cycles"]),
        batteries.map(
          (item) =>
            `<tr data-serial-number="${text(item.serialNumber)}">${tick}${robot(item)}<td${item.reasons.includes("health") ? ' class="overdue"' : ""}>${text(
              item.health ?? "",
            )}</td><td class="number${item.reasons.includes("temperature") ? " overdue" : ""}">${item.hottestCell === undefined ? "" : text(`${item.hottestCell} °C`)}</td><td class="number">${
              item.cycles ?? ""
            }</td></tr>`,
        ),
      )}`,
    );
  if (sections.length === 0) sections.push(`<p class="muted">${w("nothing")}</p>`);
  const signOff = `<h2>${w("signOff")}</h2><div class="sign-off">${["signOffName", "signOffSignature", "signOffDate"]
    .map((key) => `<p>${w(key)}</p>`)
    .join("")}</div>`;
  return `<!DOCTYPE html>
<html lang="${text(language)}"><head><meta charset="utf-8"><title>${w("title")} · ${text(made)}</title><style>${STYLE}</style></head>
<body><header><h1>${w("title")}</h1><p>${w("made", { time: made })}</p><p class="muted">${w("zone", { zone: timeZone })}</p></header>
${sections.join("\n")}
${signOff}</body></html>
`;
}
