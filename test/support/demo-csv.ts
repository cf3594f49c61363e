/**
 * The demo's cleaning-reports CSV as tests read it: each line's fields (the
 * example's function node quotes them), the header lines and each report's
 * robot and id; and the wait for the example's reports node to have swept.
 */
import fs from "node:fs";
import { statusesOf } from "./comms";

/** The cleaning-reports example's robot-reports node (its id in the example, kept by the demo). */
const REPORTS_NODE = "reports-node";
const HEADER_START = "start (UTC),end (UTC),robot,report id,";

/** A CSV line's fields, as the example's function node quotes them ("" for a quote inside quotes). */
function fieldsOf(line: string): string[] {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (quoted && char === '"' && line[index + 1] === '"') {
      field += '"';
      index++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (char === "," && !quoted) {
      fields.push(field);
      field = "";
    } else {
      field += char;
    }
  }
  return [...fields, field];
}

/** The CSV's lines: how many are the header, and each report's robot and id, in file order. */
export function readCsv(file: string): { headers: number; reports: string[] } {
  const lines = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "");
  const rows = lines.filter((line) => !line.startsWith(HEADER_START));
  return {
    headers: lines.length - rows.length,
    reports: rows.map((line) => {
      const fields = fieldsOf(line);
      return `${fields[2]} ${fields[3]}`;
    }),
  };
}

/** Waits until the reports node of the demo's editor at `editorUrl` has finished the sweep its start makes (its status says when it swept). */
export async function sweptOnce(editorUrl: string): Promise<void> {
  await sweptInOne([editorUrl]);
}

/**
 * Waits until the reports node has swept in one of the instances at `editorUrls` (one account) and
 * stands by in every other: a shared account's reports are swept in one instance at a time.
 */
export async function sweptInOne(editorUrls: readonly string[]): Promise<void> {
  const giveUpAt = Date.now() + 60_000;
  let statuses: (string | undefined)[] = [];
  while (Date.now() < giveUpAt) {
    statuses = await Promise.all(editorUrls.map(async (url) => (await statusesOf(url, 1000)).get(REPORTS_NODE)));
    const swept = statuses.filter((status) => status !== undefined && /swept/.test(status)).length;
    const standingBy = statuses.filter((status) => status !== undefined && /standing by/.test(status)).length;
    if (swept === 1 && standingBy === editorUrls.length - 1) return;
  }
  throw new Error(`the reports node did not sweep in one instance within 60 s (statuses: ${JSON.stringify(statuses)})`);
}
