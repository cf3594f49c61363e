/**
 * The shared account at fleet size: 200 simulated robots watched by the same
 * flows in three Node-RED processes sharing one account through Redis, for
 * several minutes, while robots' batteries change and the watching instance
 * is killed halfway. Prints what the cloud saw (calls in the busiest second
 * against the shared limit, rate-limited answers) and what the flows got
 * (each change sent once, none missed, how long the takeover took, memory).
 */
import fs from "node:fs";
import { DEMO_TOKEN, startSimulator } from "../../src/simulator";
import { startCluster, type Instance } from "../support/node-red-cluster";
import { sharedWatchFlow } from "../support/shared-watch-flow";
import { startRedis } from "../support/redis-server";
import { SHARED_SECONDS } from "./settings";
import { busiestSecond } from "../support/busiest-second";

const ROBOTS = 200;
const RATE_LIMIT = 20;
const INTERVAL_S = 10;
/** Robots changed per second: each robot changes once in 50 s, so no poll sees two changes of one robot. */
const CHANGES_PER_SECOND = 4;
/** A robot's successive battery values: each 20 or more from the last, so each crosses a 10 % band. */
const BATTERY_STEPS = [15, 55, 95, 35, 75];
/** Longer than a first poll of 200 robots takes at the shared rate (about 21 calls at 20/s). */
const FIRST_POLL_MS = 3000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function rssMb(pid: number): number {
  try {
    const line = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return line ? Math.round(Number(line[1]) / 1024) : NaN;
  } catch {
    return NaN;
  }
}

export async function printSharedWatch(progress: (line: string) => void): Promise<void> {
  const redis = await startRedis();
  const calls: number[] = [];
  let rateLimited = 0;
  const simulator = await startSimulator({
    robots: ROBOTS,
    log: (line) => {
      calls.push(Date.now());
      if (/ 429( |$)/.test(line)) rateLimited++;
    },
  });
  const flows = sharedWatchFlow({
    baseUrl: simulator.url,
    redisUrl: redis.url,
    redisPrefix: "bench",
    rateLimit: RATE_LIMIT,
    intervalS: INTERVAL_S,
  });
  let cluster: Instance[] = [];
  try {
    cluster = await startCluster(3, { flows, credentials: { cfg: { token: DEMO_TOKEN } }, watch: ["watcher"] });
    const rssAtStart = cluster.map((instance) => rssMb(instance.pid));
    const serials = simulator.state.serialNumbers();
    progress(`shared account: ${serials.length} robots, 3 Node-RED processes, ${SHARED_SECONDS} s ...`);
    // Each robot's battery changes, in order: across all instances the flows must get each once, in that order.
    const made: Array<{ serialNumber: string; battery: number; at: number }> = [];
    const started = Date.now();
    const changeUntil = started + (SHARED_SECONDS - 3 * INTERVAL_S) * 1000;
    let next = 0;
    let killed: { instance: string; at: number } | undefined;
    while (Date.now() < started + SHARED_SECONDS * 1000) {
      if (Date.now() < changeUntil) {
        for (let i = 0; i < CHANGES_PER_SECOND; i++) {
          const serialNumber = serials[next % serials.length]!;
          const battery = BATTERY_STEPS[Math.floor(next / serials.length) % BATTERY_STEPS.length]!;
          // What the robot's status shows now, as a watcher will read it.
          const shown = (simulator.updateRobot(serialNumber, { batteryPercentage: battery }).battery as { powerPercentage: number })
            .powerPercentage;
          made.push({ serialNumber, battery: shown, at: Date.now() });
          next++;
        }
      }
      if (!killed && Date.now() > started + (SHARED_SECONDS * 1000) / 2) {
        const holder = cluster.filter((instance) => instance.running).sort((a, b) => b.sent.length - a.sent.length)[0]!;
        await holder.kill();
        killed = { instance: holder.name, at: Date.now() };
      }
      await sleep(1000);
    }
    const sent = cluster
      .flatMap((instance) =>
        instance.sent.map((message) => ({
          instance: instance.name,
          at: message.at,
          serialNumber: String(message.topic),
          battery: (message.payload as { battery?: { powerPercentage?: number } }).battery?.powerPercentage,
          initial: (message.msg as { initial?: boolean }).initial === true,
        })),
      )
      .sort((a, b) => a.at - b.at);
    const initial = sent.filter((message) => message.initial);
    const changes = sent.filter((message) => !message.initial);
    // Per robot: the changes made after its first report, against the changes sent, both in order.
    let missed = 0;
    let twice = 0;
    for (const serialNumber of serials) {
      const firstReport = initial.find((message) => message.serialNumber === serialNumber)?.at ?? Infinity;
      // A change made while the first poll was under way may be in that first report or come as a change.
      const expected = made.filter((change) => change.serialNumber === serialNumber && change.at > firstReport - FIRST_POLL_MS);
      const got = changes.filter((message) => message.serialNumber === serialNumber).map((message) => message.battery);
      let position = 0;
      for (const value of got) {
        while (position < expected.length && expected[position]!.battery !== value && expected[position]!.at <= firstReport) position++;
        if (position < expected.length && expected[position]!.battery === value) position++;
        else twice++;
      }
      missed += expected.slice(position).filter((change) => change.at > firstReport).length;
    }
    const afterKill = killed ? changes.filter((message) => message.at > killed.at && message.instance !== killed.instance) : [];
    const takeoverS =
      killed && afterKill.length ? ((Math.min(...afterKill.map((message) => message.at)) - killed.at) / 1000).toFixed(1) : "none";
    const senders = [...new Set(sent.map((message) => message.instance))].join(", ");
    const rssAtEnd = cluster.map((instance) => (instance.running ? rssMb(instance.pid) : NaN));
    console.log(`\nshared account (${SHARED_SECONDS} s, ${ROBOTS} robots, 3 Node-RED processes, watch every ${INTERVAL_S} s, one Redis):`);
    console.log(
      `  first reports sent: ${initial.length} (goal ${ROBOTS})   changes made: ${made.length}, sent: ${changes.length}, missed: ${missed}, ` +
        `sent twice or out of order: ${twice}   goal 0, 0   ${missed === 0 && twice === 0 && initial.length === ROBOTS ? "PASS" : "MISS"}`,
    );
    console.log(
      `  instances that sent: ${senders}; ${killed ? `${killed.instance} killed at ${Math.round((killed.at - started) / 1000)} s, the next change came from another after ${takeoverS} s` : "none killed"}   goal <= ${2 * INTERVAL_S} s`,
    );
    const busiest = busiestSecond(calls);
    console.log(
      `  cloud calls: ${calls.length}, busiest second ${busiest} (shared limit ${RATE_LIMIT}), rate-limited answers ${rateLimited}   goal <= ${RATE_LIMIT}, 0   ${busiest <= RATE_LIMIT && rateLimited === 0 ? "PASS" : "MISS"}`,
    );
    console.log(
      `  memory (RSS) per process, start -> end: ${cluster.map((instance, index) => `${instance.name} ${rssAtStart[index]} -> ${Number.isNaN(rssAtEnd[index]) ? "killed" : `${rssAtEnd[index]} MB`}`).join(", ")}`,
    );
  } finally {
    await Promise.all(cluster.map((instance) => instance.stop()));
    await simulator.close();
    await redis.stop();
  }
}
