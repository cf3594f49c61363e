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
import { startRedis } from "../support/redis-server";
import { SHARED_SECONDS } from "./settings";
import { busiestSecond } from "../support/busiest-second";

const ROBOTS = 200;
const RATE_LIMIT = 20;
const INTERVAL_S = 10;
/** Robots changed per second: each robot changes once in 50 s, so no poll sees two changes of one robot. */
const CHANGES_PER_SECOND = 4;

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
  const flows = [
    { id: "tab", type: "tab", label: "shared" },
    { id: "cfg", type: "robot-config", name: "shared", baseUrl: simulator.url, authMode: "token", rateLimit: RATE_LIMIT, redisUrl: redis.url, redisPrefix: "bench" },
    { id: "watcher", type: "robot-status", z: "tab", robot: "cfg", operation: "fleetStatus", serialNumbers: "", line: "s", watch: true, interval: INTERVAL_S, batteryStep: 10, batteryLow: 20, wires: [[], []] },
  ];
  let cluster: Instance[] = [];
  try {
    cluster = await startCluster(3, { flows, credentials: { cfg: { token: DEMO_TOKEN } }, watch: ["watcher"] });
    const rssAtStart = cluster.map((instance) => rssMb(instance.pid));
    const serials = simulator.state.serialNumbers();
    progress(`shared account: ${serials.length} robots, 3 Node-RED processes, ${SHARED_SECONDS} s ...`);
    // What each robot's battery was set to, and when: a change is "sent" when a watcher reports that value.
    const made: Array<{ key: string; at: number }> = [];
    const started = Date.now();
    const changeUntil = started + (SHARED_SECONDS - 3 * INTERVAL_S) * 1000;
    let next = 0;
    let killed: { instance: string; at: number } | undefined;
    while (Date.now() < started + SHARED_SECONDS * 1000) {
      if (Date.now() < changeUntil) {
        for (let i = 0; i < CHANGES_PER_SECOND; i++) {
          const serialNumber = serials[next % serials.length]!;
          // 40 points up or down: always across a 10 % band, so every change is one a watcher reports.
          const now = simulator.state.robot(serialNumber)!.battery.powerPercentage;
          const battery = now < 50 ? now + 40 : now - 40;
          simulator.updateRobot(serialNumber, { batteryPercentage: battery });
          made.push({ key: `${serialNumber}@${battery}`, at: Date.now() });
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
    const sent = cluster.flatMap((instance) =>
      instance.sent.map((message) => ({
        instance: instance.name,
        at: message.at,
        key: `${String(message.topic)}@${(message.payload as { battery?: { powerPercentage?: number } }).battery?.powerPercentage}`,
        initial: (message.msg as { initial?: boolean }).initial === true,
      })),
    );
    const times = new Map<string, number>();
    for (const message of sent) times.set(message.key, (times.get(message.key) ?? 0) + 1);
    const initial = sent.filter((message) => message.initial).length;
    const changes = sent.filter((message) => !message.initial);
    const missed = made.filter((change) => !times.has(change.key)).length;
    const twice = [...times.values()].filter((count) => count > 1).length;
    const afterKill = killed ? changes.filter((message) => message.at > killed.at && message.instance !== killed.instance) : [];
    const takeoverS = killed && afterKill.length ? ((Math.min(...afterKill.map((message) => message.at)) - killed.at) / 1000).toFixed(1) : "none";
    const senders = [...new Set(sent.map((message) => message.instance))].join(", ");
    const rssAtEnd = cluster.map((instance) => (instance.running ? rssMb(instance.pid) : NaN));
    console.log(`\nshared account (${SHARED_SECONDS} s, ${ROBOTS} robots, 3 Node-RED processes, watch every ${INTERVAL_S} s, one Redis):`);
    console.log(`  first reports sent: ${initial} (goal ${ROBOTS})   changes made: ${made.length}, sent: ${changes.length}, missed: ${missed}, sent twice: ${twice}   goal 0 missed, 0 twice   ${missed === 0 && twice === 0 && initial === ROBOTS ? "PASS" : "MISS"}`);
    console.log(`  instances that sent: ${senders}; ${killed ? `${killed.instance} killed at ${Math.round((killed.at - started) / 1000)} s, the next change came from another after ${takeoverS} s` : "none killed"}   goal <= ${2 * INTERVAL_S} s`);
    const busiest = busiestSecond(calls);
    console.log(`  cloud calls: ${calls.length}, busiest second ${busiest} (shared limit ${RATE_LIMIT}), rate-limited answers ${rateLimited}   goal <= ${RATE_LIMIT}, 0   ${busiest <= RATE_LIMIT && rateLimited === 0 ? "PASS" : "MISS"}`);
    console.log(`  memory (RSS) per process, start -> end: ${cluster.map((instance, index) => `${instance.name} ${rssAtStart[index]} -> ${Number.isNaN(rssAtEnd[index]) ? "killed" : `${rssAtEnd[index]} MB`}`).join(", ")}`);
  } finally {
    await Promise.all(cluster.map((instance) => instance.stop()));
    await simulator.close();
    await redis.stop();
  }
}
