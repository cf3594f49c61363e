/**
 * Benchmark: what the typed client and the robot-command node cost next to a
 * bare HTTP request, tuned raw axios and Node-RED's core http request node,
 * all measured in one run against one loopback answer server (in a child
 * process, so only the client side is measured). The printed ratios, not the
 * absolute numbers, are what to compare between runs and machines.
 *
 *   npm run bench            (node --expose-gc, so heap figures are after GC)
 *   npm run bench -- status-age pacing    only these parts (rows, pacing, status-age, footprint, fleet-map, upkeep, reports, shared, console)
 *
 * BENCH_MESSAGES=10000    messages per row
 * BENCH_BIG=100000        the big robot-command burst
 * BENCH_SKIP_PACING=1     skips the ~20 s pacing run against the simulator
 * BENCH_ROUNDS=5          rounds the 16-in-flight rows are interleaved in (1: one after another)
 * BENCH_ROW_LIMIT_S=120   seconds a row may take before it is reported unfinished
 * BENCH_SHARED_S=180      the shared-account soak (3 Node-RED processes, Redis, 200 robots)
 * BENCH_SKIP_SHARED=1     skips it
 * BENCH_CONSOLE_MINUTES=10  the operator console in Chromium (200 robots on one floor)
 *
 * The task reports part runs alone too: node dist/test/bench/reports.js
 *
 * Exits non-zero only when the bench itself crashes, never for a missed goal.
 */
import { printConsoleCost } from "./console";
import { printFleetMapCost } from "./fleet-map";
import { printFootprint } from "./footprint";
import { printReportsCost } from "./reports";
import { printSharedWatch } from "./shared-watch";
import { printUpkeepCost } from "./upkeep";
import { StatusReads, measureStatusAge, printStatusAge, type StatusAgeResult } from "./status-age";
import os from "node:os";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { startAnswerServer, type AnswerServer } from "./answer-server";
import { canCollect, describeError, drive, heapAfterGc } from "./drive";
import { bareHttp, tunedAxios, typedClient, type Prepared } from "./paths";
import {
  printBigBurstGoals,
  printPacing,
  printRatios,
  printTable,
  type PacingResult,
  type RowKey,
  type RowResult,
  type RowSpec,
} from "./report";
import { MESSAGES, NODE_IDS, startBenchRuntime, type BenchRuntime } from "./runtime";
import {
  ALL_AT_ONCE,
  BENCH_PARTS,
  BIG_BURST,
  CONNECTIONS,
  DRAIN_MS,
  MESSAGES_PER_ROW,
  PACING_MESSAGES,
  PACING_RATE_LIMIT,
  ROUNDS,
  ROW_LIMIT_MS,
  SETTLE_MS,
  SKIP_PACING,
  SKIP_SHARED,
  WARMUP_MESSAGES,
} from "./settings";

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const progress = (line: string) => process.stderr.write(`${line}\n`);

/** A row being measured: its path, once prepared, and what its segments added up to so far. */
interface RowRun {
  result: RowResult;
  prepared?: Prepared;
  warmedUp: boolean;
}

function newRun(spec: RowSpec): RowRun {
  return {
    warmedUp: false,
    result: {
      spec,
      answered: 0,
      failed: 0,
      firstError: undefined,
      seconds: 0,
      finished: true,
      leftUnderWay: 0,
      maxSockets: undefined,
      serverRequests: 0,
      serverRefused: 0,
      socketsOpened: 0,
      segments: 0,
      heapGrowthMb: 0,
      rssMb: undefined,
      crash: undefined,
    },
  };
}

/** Sends `count` messages of a row (all of a burst, or one round's share) and adds up what it measured. */
async function runSegment(run: RowRun, count: number, server: AnswerServer, note: string): Promise<void> {
  const { result } = run;
  const { spec } = result;
  if (result.crash || !result.finished || count <= 0) return;
  try {
    // Keep-alive sockets left by earlier rows would be counted as this row's.
    await server.reset();
    await sleep(100);
    run.prepared ??= spec.prepare();
    const { target } = run.prepared;
    if (!run.warmedUp) {
      // JIT and sockets, at the workers' pace for every row, bursts included.
      const warmup = await drive(target, Math.min(WARMUP_MESSAGES, spec.messages), CONNECTIONS, ROW_LIMIT_MS);
      await warmup.drain(DRAIN_MS);
      run.warmedUp = true;
    }
    const before = await server.stats();
    const heapBefore = heapAfterGc();
    const outcome = await drive(target, count, spec.concurrency, Math.max(1000, ROW_LIMIT_MS - result.seconds * 1000));
    const after = await server.stats();
    await sleep(SETTLE_MS);
    const heapAfter = heapAfterGc();

    result.answered += outcome.answered;
    result.failed += outcome.failed;
    result.firstError ??= outcome.firstError;
    result.seconds += outcome.seconds;
    result.maxSockets = Math.max(result.maxSockets ?? 0, after.maxSockets);
    result.serverRequests += after.requests - before.requests;
    result.serverRefused += after.refused - before.refused;
    result.socketsOpened += after.connections - before.connections;
    result.segments++;
    result.heapGrowthMb += (heapAfter - heapBefore) / MB;
    result.rssMb = process.memoryUsage().rss / MB;
    progress(`  ${note}${outcome.answered} answered, ${outcome.failed} errors, ${outcome.seconds.toFixed(1)} s`);
    if (!outcome.finished) {
      result.finished = false;
      progress(`  did not finish within ${ROW_LIMIT_MS / 1000} s; waiting up to ${DRAIN_MS / 1000} s for what is under way`);
      result.leftUnderWay = await outcome.drain(DRAIN_MS);
    }
  } catch (error) {
    result.crash = describeError(error);
    progress(`  ${note}crashed: ${result.crash}`);
  }
}

function cleanup(run: RowRun): void {
  try {
    run.prepared?.cleanup?.();
  } catch (error) {
    progress(`  cleanup of ${run.result.spec.label} failed: ${describeError(error)}`);
  }
}

/** The 16-in-flight rows, interleaved round by round (the order reversed every other round). */
async function runInterleaved(specs: RowSpec[], server: AnswerServer): Promise<RowResult[]> {
  const runs = specs.map(newRun);
  for (let round = 0; round < ROUNDS; round++) {
    progress(`› round ${round + 1} of ${ROUNDS} of the 16-in-flight rows`);
    const order = round % 2 === 0 ? runs : [...runs].reverse();
    for (const run of order) {
      const { messages } = run.result.spec;
      const share = Math.floor(messages / ROUNDS) + (round < messages % ROUNDS ? 1 : 0);
      await runSegment(run, share, server, `${run.result.spec.label}: `);
    }
  }
  runs.forEach(cleanup);
  return runs.map((run) => run.result);
}

async function runBurst(spec: RowSpec, server: AnswerServer): Promise<RowResult> {
  progress(`› ${spec.label}: ${spec.messages} messages, all at once`);
  const run = newRun(spec);
  await runSegment(run, spec.messages, server, "");
  cleanup(run);
  return run.result;
}

/** 400 messages as one burst into a robot-command whose config paces to the simulator's own limit. */
async function runPacing(runtime: BenchRuntime, counts: { requests: number; rateLimited: number }): Promise<PacingResult> {
  progress(
    `› pacing: ${PACING_MESSAGES} messages at rateLimit ${PACING_RATE_LIMIT} into the simulator (ideally ${PACING_MESSAGES / PACING_RATE_LIMIT} s)`,
  );
  counts.requests = 0;
  counts.rateLimited = 0;
  // No warm-up: it would spend the rate limit being measured.
  const outcome = await drive(runtime.target(NODE_IDS.commandPacing, MESSAGES.robotCommand), PACING_MESSAGES, ALL_AT_ONCE, ROW_LIMIT_MS);
  const result = { ...outcome, simulatorRequests: counts.requests, rateLimited: counts.rateLimited };
  progress(`  ${outcome.answered} answered, ${outcome.failed} errors, ${outcome.seconds.toFixed(1)} s`);
  if (!outcome.finished) await outcome.drain(DRAIN_MS);
  return result;
}

/** The parts `npm run bench -- <part> ...` may name. */
const PARTS = ["rows", "pacing", "status-age", "footprint", "fleet-map", "upkeep", "reports", "shared", "console"] as const;
type Part = (typeof PARTS)[number];

function partsToRun(): (part: Part) => boolean {
  const unknown = BENCH_PARTS.filter((part) => !(PARTS as readonly string[]).includes(part));
  if (unknown.length) throw new Error(`unknown bench part ${unknown.join(", ")}; the parts are ${PARTS.join(", ")}`);
  return (part) => BENCH_PARTS.length === 0 || BENCH_PARTS.includes(part);
}

async function main(): Promise<void> {
  const runs = partsToRun();
  // A stray rejection or throw from a path under test is reported, not allowed to end the run.
  const strays: string[] = [];
  process.on("unhandledRejection", (reason) => strays.push(`unhandled rejection: ${describeError(reason)}`));
  process.on("uncaughtException", (error) => strays.push(`uncaught exception: ${describeError(error)}`));
  if (!canCollect) progress("no global gc (run with node --expose-gc): heap figures include garbage");

  const server = runs("rows") ? await startAnswerServer() : undefined;
  const pacingCounts = { requests: 0, rateLimited: 0 };
  let simulator: RunningSimulator | undefined;
  if (!SKIP_PACING && runs("pacing")) {
    simulator = await startSimulator({
      // "METHOD path status[ code N] ms": rate limiting is 429, or code 8 inside an envelope.
      log: (line) => {
        pacingCounts.requests++;
        if (/ (429|\d{3} code 8)( |$)/.test(line)) pacingCounts.rateLimited++;
      },
    });
  }

  const statusReads = new StatusReads();
  const ageSimulator = runs("status-age") ? await startSimulator({ log: statusReads.log, logFailuresOnly: false }) : undefined;
  const [ageRobot] = ageSimulator?.state.serialNumbers() ?? [];

  progress("starting Node-RED ...");
  // Before the first row, so every row runs in the same process state.
  let runtime: BenchRuntime | undefined;
  let runtimeProblem: unknown;
  try {
    runtime = await startBenchRuntime({
      benchUrl: server?.url,
      pacing: simulator ? { url: simulator.url, token: DEMO_TOKEN } : undefined,
      statusAge: ageSimulator && ageRobot ? { url: ageSimulator.url, token: DEMO_TOKEN, serialNumber: ageRobot } : undefined,
    });
  } catch (error) {
    runtimeProblem = error;
    progress(`Node-RED did not start: ${describeError(error)}`);
  }
  const inNodeRed = (nodeId: string, message: (index: number) => object) => (): Prepared => {
    if (!runtime) throw runtimeProblem instanceof Error ? runtimeProblem : new Error("Node-RED did not start");
    return { target: runtime.target(nodeId, message) };
  };

  const row = (key: RowKey, label: string, messages: number, concurrency: number, prepare: () => Prepared): RowSpec => ({
    key,
    label,
    messages,
    concurrency,
    prepare,
  });
  const interleaved = [
    row("bare", "bare node:http keep-alive", MESSAGES_PER_ROW, CONNECTIONS, () => bareHttp(server!.url)),
    row("axios", "tuned raw axios", MESSAGES_PER_ROW, CONNECTIONS, () => tunedAxios(server!.url)),
    row("client16", "typed client (RobotClient)", MESSAGES_PER_ROW, CONNECTIONS, () => typedClient(server!.url)),
    row("command16", "robot-command node", MESSAGES_PER_ROW, CONNECTIONS, inNodeRed(NODE_IDS.command16, MESSAGES.robotCommand)),
    row("httpRequest16", "core http request node", MESSAGES_PER_ROW, CONNECTIONS, inNodeRed(NODE_IDS.httpRequest16, MESSAGES.httpRequest)),
  ];
  // The big burst last: whatever it leaves behind cannot spoil another row.
  const bursts = [
    row("clientBurst", "typed client, burst", MESSAGES_PER_ROW, ALL_AT_ONCE, () => typedClient(server!.url)),
    row(
      "commandBurst",
      "robot-command node, burst",
      MESSAGES_PER_ROW,
      ALL_AT_ONCE,
      inNodeRed(NODE_IDS.commandBurst, MESSAGES.robotCommand),
    ),
    row(
      "httpRequestBurst",
      "core http request node, burst",
      MESSAGES_PER_ROW,
      ALL_AT_ONCE,
      inNodeRed(NODE_IDS.httpRequestBurst, MESSAGES.httpRequest),
    ),
    row("commandBig", "robot-command node, big burst", BIG_BURST, ALL_AT_ONCE, inNodeRed(NODE_IDS.commandBig, MESSAGES.robotCommand)),
  ];

  const results: RowResult[] = [];
  if (server) {
    results.push(...(await runInterleaved(interleaved, server)));
    for (const spec of bursts) results.push(await runBurst(spec, server));
  }

  let pacing: PacingResult | string | undefined;
  if (simulator) {
    try {
      if (!runtime) throw runtimeProblem instanceof Error ? runtimeProblem : new Error("Node-RED did not start");
      pacing = await runPacing(runtime, pacingCounts);
    } catch (error) {
      pacing = describeError(error);
    }
  }

  let statusAge: StatusAgeResult | string | undefined;
  if (ageSimulator) {
    try {
      if (!runtime) throw runtimeProblem instanceof Error ? runtimeProblem : new Error("Node-RED did not start");
      statusAge = await measureStatusAge(runtime, ageSimulator, statusReads, NODE_IDS.commandStatusAge, progress);
    } catch (error) {
      statusAge = describeError(error);
    }
  }

  const logLines = runtime?.logSummary() ?? [];
  await runtime?.stop().catch((error: unknown) => progress(`Node-RED did not stop cleanly: ${describeError(error)}`));
  await simulator?.close();
  await ageSimulator?.close();
  await server?.close();

  console.log(
    `\nrobot-fleet bench: node ${process.version}, ${os.cpus().length} cores, answer server in a child process on loopback; ` +
      `${MESSAGES_PER_ROW} messages per row after ${WARMUP_MESSAGES} warm-up, ${CONNECTIONS} connections per path\n`,
  );
  if (results.length) {
    printTable(results, ROUNDS);
    const byKey = new Map(results.map((result) => [result.spec.key, result]));
    printRatios(byKey);
    printBigBurstGoals(byKey.get("commandBig"));
  }
  if (runs("pacing")) printPacing(pacing);
  printStatusAge(statusAge);
  if (runs("footprint")) printFootprint();
  if (runs("fleet-map")) printFleetMapCost();
  if (runs("upkeep")) printUpkeepCost();
  if (runs("reports"))
    await printReportsCost().catch((error: unknown) => console.log(`\ntask reports: could not run: ${describeError(error)}`));
  if (!SKIP_SHARED && runs("shared"))
    await printSharedWatch(progress).catch((error: unknown) => console.log(`\nshared account: could not run: ${describeError(error)}`));
  if (runs("console"))
    await printConsoleCost(progress).catch((error: unknown) => console.log(`\noperator console: could not run: ${describeError(error)}`));
  if (logLines.length) {
    console.log("\nNode-RED log, warnings and errors (grouped):");
    for (const line of logLines) console.log(`  ${line}`);
  }
  if (strays.length) {
    console.log(`\n${strays.length} stray errors outside any message:`);
    for (const line of strays.slice(0, 10)) console.log(`  ${line}`);
  }
}

main().then(
  // Paths that ran out of time may still hold sockets and timers: do not wait for them.
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
