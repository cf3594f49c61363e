/**
 * What installing and loading the package costs on an edge box: the bytes of
 * the runtime dependency tree (what `npm install` adds besides the package
 * itself) and how long a cold Node.js process takes to require every node
 * file, as Node-RED does at start (median of several fresh processes).
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { dependencyTree, packageNameOf } from "../support/dependency-tree";

const ROOT = path.resolve(__dirname, "../../..");
const COLD_RUNS = 7;
export const REQUIRE_GOAL_MS = 60;

function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    // A package's own node_modules holds packages counted on their own.
    if (entry.isDirectory() && entry.name !== "node_modules") total += directoryBytes(full);
    else if (entry.isFile()) total += fs.statSync(full).size;
  }
  return total;
}

/** The runtime dependencies, as npm resolved them in this tree: name → bytes on disk (copies at several places summed). */
export function dependencyBytes(): Map<string, number> {
  const { dependencies = {} } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  const sizes = new Map<string, number>();
  for (const dir of dependencyTree(Object.keys(dependencies), ROOT)) {
    const name = packageNameOf(dir);
    sizes.set(name, (sizes.get(name) ?? 0) + directoryBytes(dir));
  }
  return sizes;
}

/** The packed package's own unpacked size (what npm pack would publish). */
export function packageBytes(): number {
  const json = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  return (JSON.parse(json) as Array<{ unpackedSize: number }>)[0]!.unpackedSize;
}

/** Milliseconds for a fresh process to require `files` (median of COLD_RUNS), timed inside that process. */
export function coldRequireMs(files: string[]): number {
  const script = `const t=process.hrtime.bigint();for(const f of ${JSON.stringify(files)})require(f);process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6));`;
  const times: number[] = [];
  for (let run = 0; run < COLD_RUNS; run++) {
    const result = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`require failed: ${result.stderr}`);
    times.push(Number(result.stdout));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export function printFootprint(): void {
  // Every node file Node-RED loads at start, as package.json lists them (robot-config first).
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    "node-red": { nodes: Record<string, string> };
  };
  const nodes = Object.values(manifest["node-red"].nodes).map((file) => path.join(ROOT, file));
  const dependencies = dependencyBytes();
  const dependencyTotal = [...dependencies.values()].reduce((sum, bytes) => sum + bytes, 0);
  const kB = (bytes: number) => `${Math.round(bytes / 1024)} kB`;
  const all = coldRequireMs(nodes);
  const config = coldRequireMs(nodes.slice(0, 1));
  const zod = coldRequireMs(["zod"]);
  // What the first deployed robot-config adds: the client and its schemas, loaded then rather than at start.
  const withClient = coldRequireMs([...nodes, path.join(ROOT, "dist", "src", "api", "client.js")]);
  console.log("\nfootprint:");
  console.log(
    `  install: package ${kB(packageBytes())} unpacked, runtime dependencies ${kB(dependencyTotal)} (${[...dependencies].map(([name, bytes]) => `${name} ${kB(bytes)}`).join(", ")})`,
  );
  console.log(
    `  cold require, median of ${COLD_RUNS} processes: all ${nodes.length} nodes ${all.toFixed(1)} ms, robot-config alone ${config.toFixed(1)} ms, zod alone ${zod.toFixed(1)} ms   goal < ${REQUIRE_GOAL_MS} ms   ${all < REQUIRE_GOAL_MS ? "PASS" : "MISS"}`,
  );
  console.log(
    `  at the first deploy of a robot-config the client and its schemas load too: all nodes and the client ${withClient.toFixed(1)} ms`,
  );
}
