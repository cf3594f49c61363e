/**
 * A stand-in for a test process, run by cluster.test.ts: starts a redis-server
 * and one Node-RED instance, prints their pids as one JSON line, then ends as
 * the first argument says: "exit" (process.exit, no cleanup of its own) or
 * "wait" (until the test SIGKILLs it). Neither child may outlive it.
 */
import { startInstance } from "../support/node-red-cluster";
import { startRedis } from "../support/redis-server";

async function main(): Promise<void> {
  const redis = await startRedis();
  const instance = await startInstance({ name: "orphan", flows: [{ id: "tab", type: "tab", label: "orphan" }] });
  process.stdout.write(JSON.stringify({ redis: redis.pid, nodeRed: instance.pid }) + "\n");
  if (process.argv[2] === "exit") process.exit(0);
  setInterval(() => undefined, 60_000);
}

void main();
