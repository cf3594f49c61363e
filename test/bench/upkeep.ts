/**
 * What the upkeep table costs for a large fleet: 1,000 robots with 60 days
 * of history (five wear parts read every hour of the day, the counters moving
 * 6 h a day, two task reports a day), half of them on a plan. Prints the time
 * the history takes to hear those reads, the heap it holds, its context
 * copy's size, and upkeepTable's time (median of several runs).
 *
 *   npm run bench -- upkeep
 */
import { performance } from "node:perf_hooks";
import { AccountPlans } from "../../src/api/plans/plan-book";
import { readPlan } from "../../src/api/plans/plan";
import { readReport } from "../../src/api/reports/reading";
import { upkeepFactsOf, type UpkeepFacts } from "../../src/api/upkeep/facts";
import { UpkeepHistory } from "../../src/api/upkeep/history";
import { upkeepTable } from "../../src/api/upkeep/table-builder";
import { heapAfterGc } from "./drive";

export const UPKEEP_ROBOTS = 1000;
export const UPKEEP_DAYS = 60;
/** robot-upkeep builds the table on every input or interval: well under a second for a large fleet. */
export const UPKEEP_TABLE_GOAL_MS = 500;
const RUNS = 7;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const PARTS = ["rollingBrush", "scrubberBrush", "softSqueegee", "filter", "rollingSqueegee"] as const;
const ZONE = "Europe/Berlin";

const serialOf = (index: number) => `GS-S-${String(index).padStart(6, "0")}`;

function facts(robot: number, hoursWorked: number): UpkeepFacts {
  const device = Object.fromEntries(
    PARTS.map((part, index) => [part, { lifeSpan: 300 + 100 * index, usedLife: (robot + hoursWorked) % (300 + 100 * index) }]),
  );
  return upkeepFactsOf({ device, battery: { soh: "HEALTHY", cycleTimes: "120", temperature1: 30 } })!;
}

/** Every robot's status read each hour for `days` days, working 08:00-11:00 and 14:00-17:00 (a report each). */
function heard(history: UpkeepHistory, from: number): number {
  let reads = 0;
  const worked = new Array<number>(UPKEEP_ROBOTS).fill(0);
  for (let hour = 0; hour < UPKEEP_DAYS * 24; hour++) {
    const at = from + hour * HOUR_MS;
    const hourOfDay = hour % 24;
    const working = (hourOfDay >= 8 && hourOfDay < 11) || (hourOfDay >= 14 && hourOfDay < 17);
    for (let robot = 0; robot < UPKEEP_ROBOTS; robot++) {
      if (working) worked[robot]!++;
      history.observe(serialOf(robot), facts(robot, worked[robot]!), at);
      reads++;
      if (hourOfDay === 11 || hourOfDay === 17) {
        const start = at - 3 * HOUR_MS;
        const report = {
          id: `${robot}-${hour}`,
          startTime: new Date(start).toISOString(),
          endTime: new Date(at).toISOString(),
          durationSeconds: 10_800,
        };
        history.observeReport(readReport(report, serialOf(robot))!);
      }
    }
  }
  return reads;
}

/** Half the robots on a plan: one item each, daily at 08:00, run before for 3 h. */
function plans(now: number): AccountPlans {
  const book = new AccountPlans();
  const robots = Array.from({ length: UPKEEP_ROBOTS / 2 }, (_, index) => serialOf(index));
  book.setPlan(
    "bench",
    { items: readPlan(robots.map((robot) => ({ name: robot, days: "daily", at: "08:00", map: "Floor 1", area: "All" }))), timezone: ZONE },
    now - DAY_MS,
  );
  for (const robot of robots) {
    const plannedAt = new Date(now - DAY_MS).toISOString();
    const work = { kind: "area" as const, area: "All", map: "Floor 1" };
    book.settle("bench", {
      occurrenceId: `${robot}@ran`,
      item: robot,
      plannedAt,
      status: "done",
      job: { jobId: robot, serialNumber: robot, work, outcome: "completed", endedAt: plannedAt, durationSeconds: 10_800, attempts: [] },
    });
  }
  return book;
}

export function printUpkeepCost(): void {
  const from = Date.parse("2026-10-01T00:00:00Z");
  const now = from + UPKEEP_DAYS * DAY_MS;
  const heapBefore = heapAfterGc();
  const history = new UpkeepHistory();
  const started = performance.now();
  const reads = heard(history, from);
  const hearMs = performance.now() - started;
  const heapMb = (heapAfterGc() - heapBefore) / 1024 / 1024;
  const plainMb = Buffer.byteLength(JSON.stringify(history.toPlain())) / 1024 / 1024;
  const book = plans(now);
  const serialNumbers = Array.from({ length: UPKEEP_ROBOTS }, (_, index) => serialOf(index));
  const times: number[] = [];
  let rows = 0;
  for (let run = 0; run < RUNS; run++) {
    const tableStarted = performance.now();
    rows = upkeepTable(history, serialNumbers, { now, zone: ZONE, plans: book }).length;
    times.push(performance.now() - tableStarted);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log("\nupkeep table:");
  console.log(
    `  ${UPKEEP_ROBOTS.toLocaleString("en")} robots x ${UPKEEP_DAYS} days of history (${PARTS.length} parts, ${reads.toLocaleString("en")} status reads heard in ${(hearMs / 1000).toFixed(1)} s, ` +
      `${((hearMs * 1000) / reads).toFixed(1)} µs a read): heap ${heapMb.toFixed(1)} MB, context copy ${plainMb.toFixed(1)} MB`,
  );
  console.log(
    `  table of ${rows} robots (half on a plan) in ${median.toFixed(0)} ms (median of ${RUNS}, slowest ${times.at(-1)!.toFixed(0)} ms)   goal < ${UPKEEP_TABLE_GOAL_MS} ms   ${median < UPKEEP_TABLE_GOAL_MS ? "PASS" : "MISS"}`,
  );
}
