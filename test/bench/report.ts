/** The benchmark's printed report: the table, the ratios with their goals, the big burst and pacing lines. */
import type { Prepared } from "./paths";
import {
  BIG_BURST,
  BIG_HEAP_GOAL_MB,
  CONNECTIONS,
  DRAIN_MS,
  PACING_MAX_RETRIES,
  PACING_MESSAGES,
  PACING_RATE_LIMIT,
  RATIO_GOALS,
  ROW_LIMIT_MS,
} from "./settings";

export type RowKey =
  "bare" | "axios" | "client16" | "clientBurst" | "command16" | "httpRequest16" | "commandBurst" | "httpRequestBurst" | "commandBig";

export interface RowSpec {
  key: RowKey;
  label: string;
  messages: number;
  /** Messages under way at once; ALL_AT_ONCE for a burst. */
  concurrency: number;
  prepare(): Prepared;
}

/** What one row measured, summed over its segments (one for a burst, one per round otherwise). */
export interface RowResult {
  spec: RowSpec;
  answered: number;
  failed: number;
  firstError: string | undefined;
  seconds: number;
  /** False once a segment ran out of time. */
  finished: boolean;
  /** Messages still under way after the limit and the drain wait. */
  leftUnderWay: number;
  maxSockets: number | undefined;
  serverRequests: number;
  serverRefused: number;
  /** Connections the server accepted while the row was measured, and in how many segments. */
  socketsOpened: number;
  segments: number;
  heapGrowthMb: number;
  rssMb: number | undefined;
  crash: string | undefined;
}

export interface PacingResult {
  answered: number;
  failed: number;
  firstError: string | undefined;
  seconds: number;
  finished: boolean;
  simulatorRequests: number;
  rateLimited: number;
}

const fixed = (value: number | undefined, digits: number) => (value === undefined || !Number.isFinite(value) ? "-" : value.toFixed(digits));
const verdict = (pass: boolean) => (pass ? "PASS" : "MISS");
const isBurst = (spec: RowSpec) => spec.concurrency >= spec.messages;

export function perSecond(row: RowResult): number | undefined {
  return row.seconds > 0 ? row.answered / row.seconds : undefined;
}

export function printTable(results: RowResult[], rounds: number): void {
  const header = ["path", "messages", "in flight", "msg/s", "errors", "max sockets", "heap growth MB", "RSS MB"];
  const lines = results.map((row) => {
    const { spec } = row;
    const ended = row.answered + row.failed;
    return [
      spec.label,
      row.finished && !row.crash ? String(spec.messages) : `${ended}/${spec.messages}*`,
      isBurst(spec) ? "all" : String(spec.concurrency),
      row.crash && row.seconds === 0 ? "crashed" : fixed(perSecond(row), 0),
      String(row.failed),
      row.maxSockets === undefined ? "-" : String(row.maxSockets),
      fixed(row.heapGrowthMb, 1),
      fixed(row.rssMb, 0),
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column]!.length)));
  const format = (cells: string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ");
  console.log(format(header));
  console.log(widths.map((width) => "-".repeat(width)).join("  "));
  for (const line of lines) console.log(format(line));
  if (rounds > 1) {
    console.log(`(rows with 16 in flight ran interleaved in ${rounds} rounds; heap growth is summed over their rounds)`);
  }

  const notes: string[] = [];
  for (const row of results) {
    const label = row.spec.label;
    if (row.crash) notes.push(`${label}: crashed: ${row.crash}`);
    if (!row.finished) {
      const stuck = row.leftUnderWay ? `; ${row.leftUnderWay} still under way ${DRAIN_MS / 1000} s later` : "";
      notes.push(`${label}: did not finish within ${ROW_LIMIT_MS / 1000} s (* = messages ended by then)${stuck}`);
    }
    if (row.firstError) notes.push(`${label}: first error: ${row.firstError}`);
    if (row.serverRefused) notes.push(`${label}: the server refused ${row.serverRefused} requests (wrong header or body)`);
    // Each segment may open its pool afresh (the server closes idle sockets between segments), but not more.
    if (row.maxSockets !== undefined && row.socketsOpened > 2 * row.maxSockets * row.segments) {
      notes.push(`${label}: ${row.socketsOpened} connections opened for ${row.answered + row.failed} messages: sockets are not kept alive`);
    }
    const ended = row.answered + row.failed;
    if (row.finished && !row.crash && row.serverRequests !== ended) {
      notes.push(`${label}: the server saw ${row.serverRequests} requests for ${ended} messages`);
    }
  }
  if (notes.length) {
    console.log("");
    for (const note of notes) console.log(`  ${note}`);
  }
}

/** Why a row's msg/s cannot stand for its path, or undefined when it can. */
function unfit(row: RowResult | undefined): string | undefined {
  if (!row) return "not run";
  if (row.crash) return `${row.spec.label} crashed`;
  if (!row.finished) return `${row.spec.label} did not finish`;
  if (row.failed) return `${row.spec.label} had ${row.failed} errors`;
  return undefined;
}

function ratioLine(
  label: string,
  which: string,
  numerator: RowResult | undefined,
  denominator: RowResult | undefined,
  goal: number,
): string {
  const top = numerator && perSecond(numerator);
  const bottom = denominator && perSecond(denominator);
  const value = top !== undefined && bottom ? top / bottom : undefined;
  const problem = unfit(numerator) ?? unfit(denominator);
  const outcome = problem ? `MISS (${problem})` : verdict(value !== undefined && value >= goal);
  return `  ${label.padEnd(44)} ${which.padEnd(22)} ${fixed(value, 2).padStart(6)}   goal >= ${String(goal).padEnd(4)}  ${outcome}`;
}

export function printRatios(byKey: Map<RowKey, RowResult>): void {
  const row = (key: RowKey) => byKey.get(key);
  const { commandOverHttpRequest, commandOverAxios, clientOverAxios } = RATIO_GOALS;
  // The issue measures each path with a 10,000-message burst. Through the engine a burst keeps exactly
  // `connections` (16) calls on the wire, the concurrency of the axios loop; the core node has no such
  // bound, so it is compared both with its own burst and with its best case, 16 in flight.
  console.log("\nratios of msg/s, this run (headline: robot-command and the client take the burst as flows send it, 16 on the wire):");
  console.log(
    ratioLine(
      "robot-command / core http request node",
      "burst / burst",
      row("commandBurst"),
      row("httpRequestBurst"),
      commandOverHttpRequest,
    ),
  );
  console.log(
    ratioLine(
      "robot-command / core http request node",
      "burst / 16 in flight",
      row("commandBurst"),
      row("httpRequest16"),
      commandOverHttpRequest,
    ),
  );
  console.log(ratioLine("robot-command / tuned raw axios", "burst / 16 in flight", row("commandBurst"), row("axios"), commandOverAxios));
  console.log(ratioLine("typed client / tuned raw axios", "burst / 16 in flight", row("clientBurst"), row("axios"), clientOverAxios));
  console.log("the same with every path fed 16 in flight by the bench (each next message waits for a completion):");
  console.log(
    ratioLine(
      "robot-command / core http request node",
      "16 in flight / 16",
      row("command16"),
      row("httpRequest16"),
      commandOverHttpRequest,
    ),
  );
  console.log(ratioLine("robot-command / tuned raw axios", "16 in flight / 16", row("command16"), row("axios"), commandOverAxios));
  console.log(ratioLine("typed client / tuned raw axios", "16 in flight / 16", row("client16"), row("axios"), clientOverAxios));
  const bare = row("bare") && perSecond(row("bare")!);
  if (bare) {
    const over = (key: RowKey) => {
      const result = row(key);
      return fixed(result && (perSecond(result) ?? 0) / bare, 2);
    };
    console.log(
      `for reference, over bare node:http (16 in flight): tuned axios ${over("axios")}, typed client ${over("client16")}, ` +
        `robot-command ${over("command16")}, core http request node ${over("httpRequest16")}`,
    );
  }
}

export function printBigBurstGoals(big: RowResult | undefined): void {
  console.log("\ngoals of the big burst:");
  if (!big || (big.crash && big.seconds === 0)) {
    console.log(`  ${BIG_BURST} burst through robot-command: ${big?.crash ? `crashed: ${big.crash}` : "not run"}   MISS`);
    return;
  }
  const socketsOk = big.maxSockets !== undefined && big.maxSockets <= CONNECTIONS;
  const allAnswered = big.finished && !big.crash && big.answered === BIG_BURST && big.failed === 0;
  console.log(
    `  ${BIG_BURST} burst through robot-command: ${big.answered} answered, ${big.failed} errors, ` +
      `at most ${big.maxSockets ?? "?"} sockets open${big.finished ? "" : ", did not finish"}` +
      `   goal: all answered, 0 errors, <= ${CONNECTIONS} sockets   ${verdict(allAnswered && socketsOk)}`,
  );
  console.log(
    `  heap growth after the ${BIG_BURST} burst: ${fixed(big.heapGrowthMb, 1)} MB   goal <= ${BIG_HEAP_GOAL_MB} MB   ${verdict(big.heapGrowthMb <= BIG_HEAP_GOAL_MB)}`,
  );
}

export function printPacing(pacing: PacingResult | string | undefined): void {
  if (pacing === undefined) {
    console.log("\npacing: skipped (BENCH_SKIP_PACING)");
    return;
  }
  if (typeof pacing === "string") {
    console.log(`\npacing: crashed: ${pacing}`);
    return;
  }
  const ideal = PACING_MESSAGES / PACING_RATE_LIMIT;
  console.log(
    `\npacing: ${PACING_MESSAGES} messages as one burst into robot-command (rateLimit ${PACING_RATE_LIMIT}, maxRetries ${PACING_MAX_RETRIES}) ` +
      `against the simulator's limit of ${PACING_RATE_LIMIT} per second per token:`,
  );
  console.log(
    `  rate-limited answers from the simulator: ${pacing.rateLimited} of ${pacing.simulatorRequests} requests   goal 0   ${verdict(pacing.rateLimited === 0)}`,
  );
  console.log(
    `  elapsed ${pacing.seconds.toFixed(1)} s${pacing.finished ? "" : " (did not finish)"}, ideal ${ideal} s (${(pacing.seconds / ideal).toFixed(2)}×); ` +
      `${pacing.answered} answered, ${pacing.failed} errors${pacing.firstError ? ` (first: ${pacing.firstError})` : ""}`,
  );
}
