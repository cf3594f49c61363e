/**
 * What robot-reports costs: one sweep of 200 robots with 30 reports each
 * against a cloud on loopback that keeps them (test/support/reports-stub.ts),
 * through a client paced at the account's default 20 calls/s (calls made and
 * time taken); and the time to compute a 30-day table, by robot, map and
 * day, from 10,000 reports. Runnable alone:
 *
 *   npm run build && node dist/test/bench/reports.js
 */
import { performance } from "node:perf_hooks";
import { RobotClient } from "../../src/api/client";
import { DAY_MS } from "../../src/api/reports/book";
import { dayFormatter, keptReportOf, kpiRows, type KeptReport } from "../../src/api/reports/kpi";
import { readReport } from "../../src/api/reports/reading";
import { sweepFleet } from "../../src/api/reports/sweep";
import { reportAt } from "../support/report-fixtures";
import { ReportsStub } from "../support/reports-stub";

export const SWEEP_ROBOTS = 200;
export const REPORTS_PER_ROBOT = 30;
export const TABLE_REPORTS = 10_000;
const TABLE_DAYS = 30;
const TABLE_RUNS = 11;
/** The fewest calls: the robot list in pages of 100 (until a short one), then one page per robot. */
const FEWEST_CALLS = Math.floor(SWEEP_ROBOTS / 100) + 1 + SWEEP_ROBOTS;

const serial = (index: number) => `GS-S-${String(100000 + index).padStart(6, "0")}`;

async function sweepCost(): Promise<string> {
  const stub = await new ReportsStub().start();
  const client = new RobotClient({ baseUrl: stub.url, auth: { token: "bench-reports" } });
  try {
    const now = Date.now();
    for (let robot = 1; robot <= SWEEP_ROBOTS; robot++) {
      stub.addRobot(serial(robot), `Robot ${robot}`);
      for (let report = 0; report < REPORTS_PER_ROBOT; report++)
        stub.file(reportAt(`r${robot}-${report}`, serial(robot), now - ((report + 1) * 6 * DAY_MS) / REPORTS_PER_ROBOT));
    }
    let found = 0;
    const started = performance.now();
    const summary = await sweepFleet(client, {
      serialNumbers: [],
      nowMs: now,
      sinceMs: 7 * DAY_MS,
      keepMs: 90 * DAY_MS,
      sweptUntil: new Map(),
      seen: () => false,
      found: () => found++,
      options: {},
    });
    const seconds = (performance.now() - started) / 1000;
    const calls = stub.server.requests.length;
    return (
      `  sweep of ${SWEEP_ROBOTS} robots x ${REPORTS_PER_ROBOT} reports, paced at 20 calls/s: ${found} reports (${summary.failures.length} robots failed) ` +
      `in ${calls} calls (fewest possible ${FEWEST_CALLS}), ${seconds.toFixed(1)} s   ${calls === FEWEST_CALLS && found === SWEEP_ROBOTS * REPORTS_PER_ROBOT ? "PASS" : "MISS"}`
    );
  } finally {
    client.close();
    await stub.stop();
  }
}

function tableCost(): string {
  const start = Date.parse("2026-10-01T00:00:00Z");
  const reports: KeptReport[] = [];
  for (let index = 0; index < TABLE_REPORTS; index++) {
    const robot = serial(1 + (index % SWEEP_ROBOTS));
    const raw = reportAt(`t${index}`, robot, start + (index * TABLE_DAYS * DAY_MS) / TABLE_REPORTS);
    if (index % 3 === 0)
      raw.subTasks = [...(raw.subTasks as object[]), { mapId: "m-2", mapName: "Floor 2", actualCleaningAreaSquareMeter: 30 }];
    reports.push(keptReportOf(readReport(raw)!, 0));
  }
  const times: number[] = [];
  let rows = 0;
  for (let run = 0; run < TABLE_RUNS; run++) {
    // A fresh formatter each run: its day cache is part of the cost.
    const dayOf = dayFormatter("Europe/Berlin");
    const began = performance.now();
    for (const by of ["robot", "map", "day"] as const) rows += kpiRows(reports, { from: "2026-10-01", to: "2026-10-30", by }, dayOf).length;
    times.push(performance.now() - began);
  }
  times.sort((a, b) => a - b);
  return `  30-day table from ${TABLE_REPORTS} reports, by robot, map and day (${rows / TABLE_RUNS} rows): ${times[Math.floor(TABLE_RUNS / 2)]!.toFixed(1)} ms (median of ${TABLE_RUNS}, slowest ${times.at(-1)!.toFixed(1)} ms)`;
}

export async function printReportsCost(): Promise<void> {
  console.log("\ntask reports (robot-reports):");
  console.log(await sweepCost());
  console.log(tableCost());
}

if (require.main === module) {
  printReportsCost().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
