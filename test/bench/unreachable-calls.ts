/**
 * Calls per minute to the batch status endpoints while one robot of 20 cannot
 * be reached (issue 44's closing figure): the simulator's 20 robots, one made
 * unreachable (every batch naming it answered 230003), a fleet watch reading
 * every robot's v1 status every 5 s and robot-job's confirmation poll reading
 * every robot's S-line status every 2 s (a console reads the kept statuses and
 * makes no call), over 10 minutes of poll times. The polls run back to back;
 * the backoff's clock is moved to each poll's time, so the figure needs no
 * waiting. CLIENT_SRC points at another checkout's src/ to measure its client
 * (main's, for the figure before): `CLIENT_SRC=/work/main/src npx tsx test/bench/unreachable-calls.ts`.
 */
import fs from "node:fs";
import path from "node:path";
import { DEMO_TOKEN, startSimulator } from "../../src/simulator";
import type { RobotClient as Client } from "../../src/api/client";

const ROBOTS = 20;
const MINUTES = 10;
const UNREACHABLE = "GS-S-000102";
const BATCH_READ = /^GET \/(v1alpha1\/robots\/-|openapi\/v2alpha1\/s\/robots\/\*)\/status:batchGet\S* (\d+)/;

async function main(): Promise<void> {
  const source = process.env.CLIENT_SRC ?? path.join(__dirname, "../../src");
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the client measured is chosen at run time
  const { RobotClient } = require(path.join(source, "api/client")) as { RobotClient: typeof Client };
  const backoffModule = path.join(source, "api/watching/unreachable-robots.ts");
  const calls: { at: number; ok: boolean }[] = [];
  let now = Date.parse("2026-12-07T03:00:00Z");
  const simulator = await startSimulator({
    robots: ROBOTS,
    rateLimit: false,
    logFailuresOnly: false,
    log: (line) => {
      const match = BATCH_READ.exec(line);
      // A refusal under HTTP 200 is logged with its code ("200 code 230003").
      if (match) calls.push({ at: now, ok: match[2] === "200" && !line.includes(" code ") });
    },
  });
  const client = new RobotClient({
    baseUrl: simulator.url,
    auth: { token: DEMO_TOKEN },
    retry: { maxRetries: 0 },
    engine: { rateLimit: 0 },
  });
  if (fs.existsSync(backoffModule)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- only the client after issue 44 has it
    (require(backoffModule) as typeof import("../../src/api/watching/unreachable-robots")).unreachableRobotsOf(
      client.accountKey,
      () => now,
    );
  }
  try {
    simulator.updateRobot(UNREACHABLE, { reachable: false });
    const robots = simulator.state.serialNumbers();
    let failedPolls = 0;
    let polls = 0;
    const start = now;
    for (let second = 0; second < MINUTES * 60; second++) {
      now = start + second * 1000;
      const reads: Promise<unknown>[] = [];
      if (second % 5 === 0) reads.push(client.batchGetStatuses(robots, { line: "v1" }));
      if (second % 2 === 0) reads.push(client.batchGetStatuses(robots, { line: "s" }));
      for (const outcome of await Promise.allSettled(reads)) {
        polls++;
        if (outcome.status === "rejected") failedPolls++;
      }
    }
    const inMinute = (minute: number) =>
      calls.filter((call) => call.at - start >= minute * 60_000 && call.at - start < (minute + 1) * 60_000);
    const perMinute = Array.from({ length: MINUTES }, (_, minute) => inMinute(minute).length);
    const refusedPerMinute = Array.from({ length: MINUTES }, (_, minute) => inMinute(minute).filter((call) => !call.ok).length);
    console.log(`client: ${source}`);
    console.log(`robots: ${robots.length}, one unreachable (${UNREACHABLE}); watch every 5 s (v1), job poll every 2 s (S line)`);
    console.log(`batch calls per minute, minutes 1-${MINUTES}: ${perMinute.join(", ")}`);
    console.log(`of them refused (naming the unreachable robot): ${refusedPerMinute.join(", ")}`);
    console.log(`polls that failed (every robot's status lost): ${failedPolls} of ${polls}`);
  } finally {
    client.close();
    await simulator.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
