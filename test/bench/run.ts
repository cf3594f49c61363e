/**
 * Benchmark: what the client and the Node-RED node cost on top of a bare HTTP
 * request, measured in one run against the same loopback server so that the
 * printed ratios, not the absolute numbers, are what to compare between runs.
 * Run with `npm run bench` (node --expose-gc, so heap figures are after GC).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { RobotClient } from "../../src/api/client";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const CONCURRENCY = 20;
const SERIAL = "GS-S-000101";
const ANSWER = JSON.stringify({
  name: `robots/${SERIAL}/commands/0b6f3c1e-9a53-4d3c-8a43-3e0f2e0c5d11`,
  state: "WAITING",
  serialNumber: SERIAL,
  rawCommandType: "pause_task",
  commandParameter: {},
});
const BODY = JSON.stringify({ serialNumber: SERIAL, remoteTaskCommandType: "PAUSE_TASK" });

function heapMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/** Runs `task` REQUESTS times with CONCURRENCY in flight; returns requests per second and heap growth. */
async function measure(task: () => Promise<void>): Promise<{ perSecond: number; heapGrowthMb: number }> {
  for (let i = 0; i < 100; i++) await task(); // warm-up: JIT, sockets
  const heapBefore = heapMb();
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < REQUESTS) await task();
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { perSecond: REQUESTS / seconds, heapGrowthMb: heapMb() - heapBefore };
}

interface EmbeddedNodeRed {
  init(server: http.Server, settings: Record<string, unknown>): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  nodes: { getNode(id: string): { receive(msg: object): void } };
  hooks: { add(hook: string, handler: (event: { msg: { _msgid: string }; error?: unknown }) => void): void };
  events: { once(event: string, listener: () => void): void };
}

/**
 * The node in a real Node-RED runtime (not node-red-node-test-helper, whose
 * spies record every call and would be measured as memory growth).
 */
async function measureNodeRed(baseUrl: string): Promise<{ perSecond: number; heapGrowthMb: number }> {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-bench-"));
  const flow = [
    { id: "bench-tab", type: "tab", label: "bench" },
    { id: "bench-config", type: "robot-config", baseUrl, timeout: 10, maxRetries: 0, authMode: "token" },
    { id: "cmd", type: "robot-command", z: "bench-tab", robot: "bench-config", serialNumber: SERIAL, serialNumberType: "str", command: "PAUSE_TASK", wires: [] },
  ];
  fs.writeFileSync(path.join(userDir, "flows.json"), JSON.stringify(flow));
  fs.writeFileSync(path.join(userDir, "flows_cred.json"), JSON.stringify({ "bench-config": { token: "bench" } }));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const RED = require("node-red") as EmbeddedNodeRed;
  RED.init(http.createServer(), {
    userDir,
    flowFile: "flows.json",
    credentialSecret: false,
    nodesDir: [path.resolve(__dirname, "../../../nodes")],
    httpAdminRoot: false,
    httpNodeRoot: false,
    telemetry: { enabled: false, updateNotification: false },
    logging: { console: { level: "warn" } },
  });
  // start() resolves before the flows run; the runtime says when they do.
  const flowsStarted = new Promise<void>((resolve) => RED.events.once("flows:started", resolve));
  await RED.start();
  await flowsStarted;
  const waiting = new Map<string, () => void>();
  RED.hooks.add("onComplete", (event) => waiting.get(event.msg._msgid)?.());
  const commandNode = RED.nodes.getNode("cmd");
  let sequence = 0;
  try {
    return await measure(
      () =>
        new Promise<void>((resolve) => {
          const id = `bench-${sequence++}`;
          waiting.set(id, () => {
            waiting.delete(id);
            resolve();
          });
          commandNode.receive({ _msgid: id, payload: sequence });
        }),
    );
  } finally {
    await RED.stop();
    fs.rmSync(userDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(ANSWER);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const agent = new http.Agent({ keepAlive: true });

  const bare = await measure(
    () =>
      new Promise<void>((resolve, reject) => {
        const req = http.request(`${baseUrl}/v1alpha1/robots/${SERIAL}/commands`, {
          method: "POST",
          agent,
          headers: { "Content-Type": "application/json", Authorization: "Bearer bench" },
        });
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => {
            JSON.parse(Buffer.concat(chunks).toString());
            resolve();
          });
        });
        req.on("error", reject);
        req.end(BODY);
      }),
  );

  const client = new RobotClient({ baseUrl, auth: { token: "bench" } });
  const viaClient = await measure(async () => {
    await client.submitCommand({ serialNumber: SERIAL, remoteTaskCommandType: "PAUSE_TASK" });
  });

  const viaNode = await measureNodeRed(baseUrl);
  agent.destroy();
  server.close();

  const rows = [
    ["bare HTTP request", bare],
    ["RobotClient.submitCommand", viaClient],
    ["robot-command node in Node-RED", viaNode],
  ] as const;
  console.log(`${REQUESTS} command submissions, ${CONCURRENCY} in flight, loopback server\n`);
  console.log("path                              req/s   relative to bare HTTP   heap growth (MB)");
  for (const [label, result] of rows) {
    console.log(
      `${label.padEnd(32)} ${result.perSecond.toFixed(0).padStart(6)}   ${(result.perSecond / bare.perSecond).toFixed(2).padStart(20)}   ${result.heapGrowthMb.toFixed(1).padStart(16)}`,
    );
  }
  console.log(`\nclient overhead per call: ${((1 / viaClient.perSecond - 1 / bare.perSecond) * 1e6).toFixed(0)} µs; node overhead on top: ${((1 / viaNode.perSecond - 1 / viaClient.perSecond) * 1e6).toFixed(0)} µs`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
