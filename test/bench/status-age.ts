/**
 * Status age under a command burst (issue 29, section 5): a fleet status node
 * watches the simulator's robots every WATCH_INTERVAL_S while 900 messages
 * into a command node on the same account wait for the account's rate. The
 * figure is the oldest status the watching node held during the burst: the
 * longest time between two of its status reads reaching the simulator (and
 * from the burst's start to the first, and from the last to its end).
 */
import type { RunningSimulator } from "../../src/simulator";
import { drive } from "./drive";
import type { BenchRuntime } from "./runtime";
import { ALL_AT_ONCE, ROW_LIMIT_MS, STATUS_AGE_MESSAGES, STATUS_AGE_RATE_LIMIT, WATCH_INTERVAL_S } from "./settings";

/** The status reads a watching fleet status node makes (S line), as the simulator logs them. */
const STATUS_READ = /^GET \/openapi\/v2alpha1\/s\/robots\/\*\/status:batchGet 200/;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Collects the times of the watcher's status reads from the simulator's log. */
export class StatusReads {
  readonly times: number[] = [];

  /** The simulator's `log` option. */
  readonly log = (line: string): void => {
    if (STATUS_READ.test(line)) this.times.push(Date.now());
  };
}

export interface StatusAgeResult {
  messages: number;
  answered: number;
  failed: number;
  seconds: number;
  /** The oldest status the watcher held during the burst, in seconds. */
  oldestAgeS: number;
  reads: number;
}

/** The longest time without a fresh status in [from, to]: between reads, and at both ends. */
export function oldestAge(reads: readonly number[], from: number, to: number): number {
  let last = reads.filter((at) => at <= from).at(-1) ?? from;
  let oldest = 0;
  for (const at of reads.filter((time) => time > from && time <= to)) {
    oldest = Math.max(oldest, at - last);
    last = at;
  }
  return Math.max(oldest, to - last);
}

/** Runs the burst through `commandNodeId` while the watcher polls; the watcher has had a first poll when this starts. */
export async function measureStatusAge(
  runtime: BenchRuntime,
  simulator: RunningSimulator,
  reads: StatusReads,
  commandNodeId: string,
  progress: (line: string) => void,
): Promise<StatusAgeResult> {
  // The watcher's first poll (it lists the robots, then reads their statuses) comes right after the flows start.
  for (let waited = 0; reads.times.length === 0 && waited < 10_000; waited += 100) await sleep(100);
  if (reads.times.length === 0) throw new Error("the watching node never read a status");
  progress(
    `› status age: ${STATUS_AGE_MESSAGES} commands at once at rateLimit ${STATUS_AGE_RATE_LIMIT}, watching every ${WATCH_INTERVAL_S} s (simulator ${simulator.url})`,
  );
  const from = Date.now();
  const outcome = await drive(
    runtime.target(commandNodeId, (index) => ({ payload: index })),
    STATUS_AGE_MESSAGES,
    ALL_AT_ONCE,
    ROW_LIMIT_MS,
  );
  const to = Date.now();
  if (!outcome.finished) await outcome.drain(30_000);
  progress(
    `  ${outcome.answered} answered, ${outcome.failed} errors, ${outcome.seconds.toFixed(1)} s${outcome.firstError ? ` (${outcome.firstError})` : ""}`,
  );
  return {
    messages: STATUS_AGE_MESSAGES,
    answered: outcome.answered,
    failed: outcome.failed,
    seconds: outcome.seconds,
    oldestAgeS: oldestAge(reads.times, from, to) / 1000,
    reads: reads.times.filter((at) => at > from && at <= to).length,
  };
}

export function printStatusAge(result: StatusAgeResult | string | undefined): void {
  if (result === undefined) return;
  if (typeof result === "string") {
    console.log(`\nstatus age under a command burst: could not run: ${result}`);
    return;
  }
  const goal = 2 * WATCH_INTERVAL_S;
  console.log(
    `\nstatus age under a command burst (${result.messages} commands, rateLimit ${STATUS_AGE_RATE_LIMIT}, watch every ${WATCH_INTERVAL_S} s): ` +
      `${result.answered} answered, ${result.failed} errors in ${result.seconds.toFixed(1)} s; ` +
      `${result.reads} status reads; oldest status age ${result.oldestAgeS.toFixed(1)} s   goal <= ${goal} s   ${result.oldestAgeS <= goal ? "PASS" : "MISS"}`,
  );
}
