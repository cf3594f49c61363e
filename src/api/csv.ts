/** CSV as robot-reports' CSV example writes it: one module for every CSV the package makes. */

/** A field quoted when it holds a comma, a quote or a line break, quotes doubled; nothing for undefined or null. */
function csvField(value: string | number | null | undefined): string {
  const text = value === undefined || value === null ? "" : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The header and one line per row, each ending in a line break. */
export function csvText(columns: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number | null | undefined>>): string {
  return [columns.join(","), ...rows.map((row) => row.map(csvField).join(","))].join("\n") + "\n";
}
