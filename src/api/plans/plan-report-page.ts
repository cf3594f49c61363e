/**
 * Proof of service as a printable page: a page per day in the runtime's
 * language (by item, each occurrence, the incidents during them, the
 * coverage images), the period's totals, and the sign-off; every name
 * escaped, an image shown only from http(s) or embedded.
 */
import { escapeMarkup } from "../markup";
import type { JobOutcome } from "../jobs/job-result";
import { secondsFrom } from "../cloud/cloud-time";
import { handlingOf } from "../pushes/incident-figures";
import {
  COUNTED_STATES,
  compare,
  daysBetween,
  type DayItemRow,
  type ItemTotalRow,
  type OccurrenceRow,
  type OccurrenceState,
  type PlanReportInput,
  type PlanReportRows,
} from "./plan-report-rows";

/** The words the HTML asks for (besides `status.<state>` and `outcome.<outcome>`): a catalogue must have each. */
export const REPORT_WORD_KEYS = [
  "title",
  "period",
  "zone",
  "zones",
  "byItem",
  "occurrences",
  "images",
  "total",
  "nothingPlanned",
  "column.item",
  "column.planned",
  "column.started",
  "column.ended",
  "column.robot",
  "column.status",
  "column.duration",
  "column.areaCleaned",
  "column.areaPlanned",
  "column.coverage",
  "column.reason",
  "column.count",
  "periodTotals",
  "customer",
  "contractor",
  "signOff",
  "signOffContractor",
  "signOffCustomer",
  "signOffName",
  "signOffSignature",
  "signOffDate",
  "incidents",
  "column.raised",
  "column.level",
  "column.incident",
  "column.acknowledged",
  "column.recovered",
  "column.incidentCount",
  "column.toAcknowledge",
  "column.toRecover",
  "meanLongest",
  "after",
  "afterBy",
  "reason.noRobot",
  "reason.notPossible",
  "reason.late",
  "reason.missed",
  "reason.skipped",
  "reason.notRun",
  "reason.cancelled",
  "reason.unknown",
] as const;
export const REPORT_OUTCOMES: readonly JobOutcome[] = ["completed", "stoppedByHand", "error", "failedToStart", "cancelled", "unknown"];

/** Colours of the states on the page: distinct in print and for colour-blind readers (lightness differs too). */
const STATE_COLOURS: Readonly<Record<OccurrenceState, string>> = {
  done: "#1b7f3b",
  late: "#b86e00",
  failed: "#c0281b",
  missed: "#7a1f5c",
  skipped: "#6b6b6b",
  cancelled: "#4a4a4a",
  upcoming: "#2166ac",
  running: "#01758a",
  notRun: "#8c510a",
};

/** The outcome a state already says: "done" is a completed job, "cancelled" a cancelled one. */
const OUTCOME_OF_STATE: Partial<Record<OccurrenceState, JobOutcome>> = { done: "completed", late: "completed", cancelled: "cancelled" };

const STYLE = `
@page { size: A4; margin: 14mm; }
* { box-sizing: border-box; }
body { font-family: "Noto Sans", "WenQuanYi Micro Hei", "Microsoft YaHei", Arial, sans-serif; color: #1a1a1a; margin: 0; font-size: 10.5pt; }
@media screen { body { max-width: 230mm; margin: 0 auto; padding: 0 8mm; } }
.day { padding: 8mm 0; break-after: page; page-break-after: always; }
.day:last-child { break-after: auto; page-break-after: auto; }
header { border-bottom: 2px solid #1a1a1a; margin-bottom: 4mm; padding-bottom: 2mm; }
h1 { font-size: 18pt; margin: 0; }
h2 { font-size: 12pt; margin: 5mm 0 2mm; }
header p { margin: 1mm 0 0; }
.date { font-size: 13pt; font-weight: 600; }
.muted { color: #555; }
table { border-collapse: collapse; width: 100%; margin-bottom: 2mm; }
th, td { border-bottom: 1px solid #ccc; padding: 1.2mm 1.5mm; text-align: left; vertical-align: top; }
th { background: #f0f0f0; font-weight: 600; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
tr.total td { font-weight: 700; border-top: 2px solid #1a1a1a; }
thead { display: table-header-group; }
tr { break-inside: avoid; }
.state { font-weight: 600; white-space: nowrap; }
.images { display: flex; flex-wrap: wrap; gap: 4mm; }
figure { margin: 0; width: 55mm; break-inside: avoid; }
figure img { width: 100%; border: 1px solid #ccc; }
figure .no-image { margin: 0; padding: 4mm; border: 1px dashed #999; font-size: 9pt; color: #555; }
figcaption { font-size: 9pt; }
/* Chinese and Japanese headers break between words (at spaces), never one character per line. */
th { word-break: keep-all; overflow-wrap: normal; }
td.number { white-space: nowrap; }
.sign-off { margin-top: 8mm; break-inside: avoid; }
.parties { display: flex; gap: 10mm; }
.party { flex: 1; }
.party .line { border-bottom: 1px solid #1a1a1a; padding-top: 7mm; margin: 0 0 1mm; font-size: 9pt; color: #555; }
`;

/** Only an image the page can show without running anything: http(s), or a PNG or JPEG the node embedded. */
function showableImage(url: string): boolean {
  return /^https?:\/\//i.test(url) || /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/=]+$/.test(url);
}

export function planReportHtml(rows: PlanReportRows, input: Pick<PlanReportInput, "language" | "words">): string {
  const { language, words } = input;
  const text = (value: string) => escapeMarkup(value);
  // Each occurrence's times in its own plan's zone, as its day is.
  const timeIn = new Map<string, Intl.DateTimeFormat>();
  const time = (zone: string) => {
    let format = timeIn.get(zone);
    if (!format)
      timeIn.set(
        zone,
        (format = new Intl.DateTimeFormat(language, { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" })),
      );
    return format;
  };
  const date = new Intl.DateTimeFormat(language, { timeZone: "UTC", dateStyle: "full" });
  const number = new Intl.NumberFormat(language, { maximumFractionDigits: 1 });
  const percentage = new Intl.NumberFormat(language, { style: "percent", maximumFractionDigits: 1 });
  const dayName = (day: string) => date.format(Date.parse(`${day}T12:00:00Z`));
  const at = (iso: string | undefined, row: Pick<OccurrenceRow, "timezone">) => (iso ? time(row.timezone).format(Date.parse(iso)) : "");
  const figure = (value: number | null) => (value === null ? "" : number.format(value));
  const share = (value: number | null) => (value === null ? "" : percentage.format(value));
  const state = (value: OccurrenceState) =>
    `<span class="state" style="color:${STATE_COLOURS[value]}">${text(words(`status.${value}`))}</span>`;
  // One cell says how it ended: the state, and the job's outcome only where the state does not say it already.
  const stateWithOutcome = (row: OccurrenceRow) =>
    row.outcome === undefined || OUTCOME_OF_STATE[row.status] === row.outcome
      ? state(row.status)
      : `${state(row.status)} · ${text(words(`outcome.${row.outcome}`))}`;
  const minutes = new Intl.NumberFormat(language, { style: "unit", unit: "minute", maximumFractionDigits: 0 });
  const seconds = new Intl.NumberFormat(language, { style: "unit", unit: "second", maximumFractionDigits: 0 });
  const duration = (value: number | undefined) =>
    value === undefined ? "" : value < 60 ? seconds.format(value) : minutes.format(Math.round(value / 60));
  const cells = (values: readonly string[], numberFrom: number) =>
    values.map((value, index) => `<td${index >= numberFrom ? ' class="number"' : ""}>${value}</td>`).join("");
  const heads = (keys: readonly string[], numberFrom: number, numberTo = keys.length) =>
    keys.map((key, index) => `<th${index >= numberFrom && index < numberTo ? ' class="number"' : ""}>${text(words(key))}</th>`).join("");

  const summary = (itemRows: readonly ItemTotalRow[], total: Omit<DayItemRow, "day" | "item"> | undefined) => {
    const countKeys = ["column.count", ...COUNTED_STATES.map((state) => `status.${state}`)];
    const head = heads(["column.item", ...countKeys, "column.areaCleaned", "column.areaPlanned", "column.coverage"], 1);
    const line = (name: string, row: Omit<DayItemRow, "day" | "item">, extra = "") =>
      `<tr${extra}>${cells(
        [
          text(name),
          String(row.planned),
          ...COUNTED_STATES.map((state) => String(row[state])),
          figure(row.areaCleaned),
          figure(row.areaPlanned),
          share(row.coverage),
        ],
        1,
      )}</tr>`;
    return `<table class="summary"><thead><tr>${head}</tr></thead><tbody>${itemRows.map((row) => line(row.item, row)).join("")}${
      total && itemRows.length > 1 ? line(words("total"), total, ' class="total"') : ""
    }</tbody></table>`;
  };

  const occurrenceTable = (dayOccurrences: readonly OccurrenceRow[]) => {
    const head = heads(
      [
        "column.planned",
        "column.item",
        "column.status",
        "column.started",
        "column.ended",
        "column.robot",
        "column.duration",
        "column.areaCleaned",
        "column.areaPlanned",
        "column.coverage",
        "column.reason",
      ],
      6,
      10,
    );
    const body = dayOccurrences
      .map((row) => {
        const values = [
          text(at(row.plannedAt, row)),
          text(row.item),
          stateWithOutcome(row),
          text(at(row.startedAt, row)),
          text(at(row.endedAt, row)),
          text(row.robotName ?? ""),
          text(duration(row.durationSeconds)),
          figure(row.areaCleaned),
          figure(row.areaPlanned),
          share(row.coverage),
        ];
        return `<tr>${cells(values, 6)}<td>${text(row.reasonText ?? row.reason ?? "")}</td></tr>`;
      })
      .join("");
    return `<table class="occurrences"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
  };

  const images = (dayOccurrences: readonly OccurrenceRow[]) => {
    const shown = dayOccurrences.filter((row) => (row.image !== undefined && showableImage(row.image)) || row.imageNote !== undefined);
    if (shown.length === 0) return "";
    const figures = shown
      .map((row) => {
        const caption = `<figcaption>${text(`${row.item} · ${at(row.plannedAt, row)} · ${row.robotName ?? ""}`)}</figcaption>`;
        if (row.image === undefined || !showableImage(row.image))
          return `<figure><p class="no-image">${text(row.imageNote!)}</p>${caption}</figure>`;
        return `<figure><img src="${text(row.image)}" alt="${text(`${row.item} ${at(row.plannedAt, row)}`)}">${caption}</figure>`;
      })
      .join("");
    return `<h2>${text(words("images"))}</h2><div class="images">${figures}</div>`;
  };

  const parties = [
    rows.customer ? words("customer", { name: rows.customer }) : "",
    rows.contractor ? words("contractor", { name: rows.contractor }) : "",
  ].filter((party) => party !== "");
  // Where plans are in several zones, each is named with its items: a day is a day of that plan's zone.
  const zoneWords =
    rows.zones.length === 1
      ? words("zone", { zone: rows.zones[0]!.timezone })
      : words("zones", { zones: rows.zones.map((zone) => `${zone.timezone} (${zone.items.join(", ")})`).join("; ") });
  const header = (when: string) =>
    `<header><h1>${text(rows.site)}</h1><p class="date">${text(words("title"))} · ${text(when)}</p>${
      parties.length ? `<p>${text(parties.join(" · "))}</p>` : ""
    }<p class="muted">${text(zoneWords)}</p></header>`;
  // Both parties sign the last page: a name, a signature and a date each, filled in by hand on the print.
  const signOff = () => {
    const party = (heading: string, name: string | undefined) =>
      `<div class="party"><p><b>${text(words(heading))}</b>${name ? ` ${text(name)}` : ""}</p>${[
        "signOffName",
        "signOffSignature",
        "signOffDate",
      ]
        .map((key) => `<p class="line">${text(words(key))}</p>`)
        .join("")}</div>`;
    return `<div class="sign-off"><h2>${text(words("signOff"))}</h2><div class="parties">${party("signOffContractor", rows.contractor)}${party(
      "signOffCustomer",
      rows.customer,
    )}</div></div>`;
  };
  // The alarms raised during the day's occurrences, each with how soon a person acknowledged it and its robot recovered.
  const incidentTable = (dayOccurrences: readonly OccurrenceRow[]) => {
    const raised = dayOccurrences.flatMap((row) => (row.incidents ?? []).map((incident) => ({ row, incident })));
    if (raised.length === 0) return "";
    raised.sort((a, b) => compare(a.incident.raisedAt, b.incident.raisedAt));
    const head = heads(
      ["column.raised", "column.item", "column.robot", "column.level", "column.incident", "column.acknowledged", "column.recovered"],
      7,
    );
    const body = raised
      .map(({ row, incident }) => {
        const acknowledged = incident.acknowledged
          ? words("afterBy", { time: duration(secondsFrom(incident.raisedAt, incident.acknowledged.at)), by: incident.acknowledged.by })
          : "";
        const recovered = incident.recoveredAt
          ? words("after", { time: duration(secondsFrom(incident.raisedAt, incident.recoveredAt)) })
          : "";
        const what = [incident.code, incident.name].filter((part) => part !== undefined && part !== "").join(" ");
        return `<tr>${cells(
          [
            at(incident.raisedAt, row),
            row.item,
            row.robotName ?? incident.serialNumber,
            incident.level?.code ?? "",
            what,
            acknowledged,
            recovered,
          ].map(text),
          7,
        )}</tr>`;
      })
      .join("");
    const figures = handlingOf(raised.map(({ incident }) => incident));
    const spread = (value: { meanSeconds: number; longestSeconds: number } | null) =>
      value ? words("meanLongest", { mean: duration(value.meanSeconds), longest: duration(value.longestSeconds) }) : "";
    const summaryRow = `<table class="summary"><thead><tr>${heads(
      ["column.incidentCount", "column.acknowledged", "column.recovered", "column.toAcknowledge", "column.toRecover"],
      0,
      3,
    )}</tr></thead><tbody><tr>${cells([String(figures.raised), String(figures.acknowledged), String(figures.recovered)], 0)}<td>${text(
      spread(figures.toAcknowledge),
    )}</td><td>${text(spread(figures.toRecover))}</td></tr></tbody></table>`;
    return `<h2>${text(words("incidents"))}</h2>${summaryRow}<table class="incidents"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
  };
  const pages = daysBetween(rows.from, rows.to).map((day) => {
    const dayRows = rows.days.filter((row) => row.day === day);
    const dayOccurrences = rows.occurrences.filter((row) => row.day === day);
    const body =
      dayOccurrences.length === 0
        ? `<p class="muted">${text(words("nothingPlanned"))}</p>`
        : `<h2>${text(words("byItem"))}</h2>${summary(
            dayRows,
            rows.dayTotals.find((row) => row.day === day),
          )}<h2>${text(words("occurrences"))}</h2>${occurrenceTable(dayOccurrences)}${incidentTable(dayOccurrences)}${images(dayOccurrences)}`;
    return `<section class="day" data-day="${day}">${header(dayName(day))}${body}</section>`;
  });
  // A span of several days ends with its totals: what a contractor invoices and a customer checks.
  if (pages.length > 1 && rows.occurrences.length > 0)
    pages.push(
      `<section class="day period">${header(words("period", { from: rows.from, to: rows.to }))}<h2>${text(words("periodTotals"))}</h2>${summary(
        rows.itemTotals,
        rows.total,
      )}</section>`,
    );
  pages[pages.length - 1] = pages[pages.length - 1]!.replace(/<\/section>$/, `${signOff()}</section>`);
  const title = `${rows.site} · ${words("title")} · ${words("period", { from: rows.from, to: rows.to })}`;
  return `<!DOCTYPE html>
<html lang="${text(language)}"><head><meta charset="utf-8"><title>${text(title)}</title><style>${STYLE}</style></head>
<body>${pages.join("\n")}</body></html>
`;
}
