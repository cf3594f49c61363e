/**
 * The Node-RED side of the benchmark: one embedded runtime (RED.init /
 * RED.start) for the whole run, since Node-RED cannot start twice in one
 * process. Every node the rows use is in one flows.json from the start, so no
 * redeploy happens between rows. Completions are counted with the onComplete
 * hook, not node-red-node-test-helper, whose spies cost more than the nodes.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { BENCH_TOKEN, COMMAND_REQUEST, COMMANDS_PATH, SERIAL } from "./answer-server";
import type { Settle, Target } from "./drive";
import { CONNECTIONS, PACING_MAX_RETRIES, PACING_RATE_LIMIT, STATUS_AGE_RATE_LIMIT, WATCH_INTERVAL_S } from "./settings";
import type { EmbeddedNodeRed, NodeRedLogEntry } from "../support/embedded-node-red";

interface CompleteEvent {
  msg: { statusCode?: unknown; payload?: unknown };
  error?: unknown;
  node: { id: string };
}

type FlowNode = Record<string, unknown> & { id: string; type: string };

/** Node ids: one robot-config + robot-command pair per row, so each row has its own client and pool. */
export const NODE_IDS = {
  command16: "rc-16",
  commandBurst: "rc-burst",
  commandBig: "rc-big",
  commandPacing: "rc-pacing",
  commandStatusAge: "rc-status-age",
  watchStatusAge: "watch-status-age",
  httpRequest16: "http-16",
  httpRequestBurst: "http-burst",
} as const;

export interface BenchFlowOptions {
  /** The answer server; no row nodes without it (a run of other parts only). */
  benchUrl?: string;
  /** The simulator for the pacing row; no pacing nodes without it. */
  pacing?: { url: string; token: string };
  /** The simulator for the status-age part (a watching node and a command node on one account); none without it. */
  statusAge?: { url: string; token: string; serialNumber: string };
}

function robotConfig(id: string, baseUrl: string, extra: Record<string, unknown> = {}): FlowNode {
  return {
    id,
    type: "robot-config",
    baseUrl,
    timeout: 10,
    maxRetries: 0,
    authMode: "token",
    connections: CONNECTIONS,
    rateLimit: 0,
    queueLimit: 200_000,
    ...extra,
  };
}

function robotCommand(id: string, configId: string): FlowNode {
  return {
    id,
    type: "robot-command",
    z: "bench-tab",
    robot: configId,
    serialNumber: SERIAL,
    serialNumberType: "str",
    command: "PAUSE_TASK",
    // Every message sent: "skip" or "latest" would end most of a burst for one robot without a request.
    burst: "all",
    wires: [],
  };
}

/**
 * The core node's fastest fair set-up in Node-RED 4.1 (21-httprequest.js):
 * - persist: true gives the node its own keep-alive http.Agent, as each
 *   robot-config has its own pool. That agent has no maxSockets and the node
 *   no setting for one, so a burst opens a socket per message. (Without
 *   persist, got uses Node's global agent, which keeps alive too on Node 20:
 *   same speed within noise, but a pool shared with everything else.)
 * - authType "bearer" with the token as the node's `password` credential,
 *   kept out of the flow as robot-config keeps its own. A header list in the
 *   node or msg.headers measured the same within noise.
 * - An object payload is sent as JSON with Content-Type application/json by
 *   the node itself; ret "obj" parses the answer.
 * - paytoqs "ignore", no proxy, no TLS config, senderr false (its default;
 *   with no wires the extra send of a failed message costs nothing).
 * Per message it still builds a CookieJar, parses the URL, times the request
 * with got and hashes the answer's headers: that is what the node costs.
 */
function httpRequest(id: string, url: string): FlowNode {
  return {
    id,
    type: "http request",
    z: "bench-tab",
    name: "",
    method: "POST",
    ret: "obj",
    paytoqs: "ignore",
    url,
    tls: "",
    persist: true,
    proxy: "",
    insecureHTTPParser: false,
    authType: "bearer",
    senderr: false,
    headers: [],
    wires: [],
  };
}

export function benchFlows(options: BenchFlowOptions): { flows: FlowNode[]; credentials: Record<string, Record<string, string>> } {
  const { benchUrl, pacing, statusAge } = options;
  const flows: FlowNode[] = [{ id: "bench-tab", type: "tab", label: "bench" }];
  const credentials: Record<string, Record<string, string>> = {};
  if (benchUrl) {
    flows.push(
      robotConfig("cfg-16", benchUrl),
      robotCommand(NODE_IDS.command16, "cfg-16"),
      robotConfig("cfg-burst", benchUrl),
      robotCommand(NODE_IDS.commandBurst, "cfg-burst"),
      robotConfig("cfg-big", benchUrl),
      robotCommand(NODE_IDS.commandBig, "cfg-big"),
      httpRequest(NODE_IDS.httpRequest16, benchUrl + COMMANDS_PATH),
      httpRequest(NODE_IDS.httpRequestBurst, benchUrl + COMMANDS_PATH),
    );
    Object.assign(credentials, {
      "cfg-16": { token: BENCH_TOKEN },
      "cfg-burst": { token: BENCH_TOKEN },
      "cfg-big": { token: BENCH_TOKEN },
      [NODE_IDS.httpRequest16]: { password: BENCH_TOKEN },
      [NODE_IDS.httpRequestBurst]: { password: BENCH_TOKEN },
    });
  }
  if (pacing) {
    flows.push(
      robotConfig("cfg-pacing", pacing.url, { rateLimit: PACING_RATE_LIMIT, maxRetries: PACING_MAX_RETRIES }),
      robotCommand(NODE_IDS.commandPacing, "cfg-pacing"),
    );
    credentials["cfg-pacing"] = { token: pacing.token };
  }
  if (statusAge) {
    // RESUME_TASK is no stop command, so it waits in the account's queue like most commands of a burst.
    flows.push(
      robotConfig("cfg-status-age", statusAge.url, { rateLimit: STATUS_AGE_RATE_LIMIT, maxRetries: PACING_MAX_RETRIES }),
      { ...robotCommand(NODE_IDS.commandStatusAge, "cfg-status-age"), serialNumber: statusAge.serialNumber, command: "RESUME_TASK" },
      {
        id: NODE_IDS.watchStatusAge,
        type: "robot-status",
        z: "bench-tab",
        robot: "cfg-status-age",
        operation: "fleetStatus",
        serialNumbers: "",
        line: "s",
        watch: true,
        interval: WATCH_INTERVAL_S,
        wires: [[], []],
      },
    );
    credentials["cfg-status-age"] = { token: statusAge.token };
  }
  return { flows, credentials };
}

export interface BenchRuntime {
  /** Feeds `nodeId` one message per start and settles each on its onComplete. */
  target(nodeId: string, message: (index: number) => object): Target;
  /** Warnings and errors the runtime logged, grouped, with counts. */
  logSummary(): string[];
  stop(): Promise<void>;
}

const START_LIMIT_MS = 60_000;
/** Distinct log texts kept; the rest are only counted. */
const MAX_LOG_TEXTS = 40;

function logText(entry: NodeRedLogEntry): string {
  const text = entry.msg instanceof Error ? entry.msg.message : typeof entry.msg === "string" ? entry.msg : JSON.stringify(entry.msg);
  const level = entry.level <= 20 ? "error" : entry.level <= 30 ? "warn" : `level ${entry.level}`;
  const source = entry.type ? `[${entry.type}:${entry.id ?? ""}] ` : "";
  return `[${level}] ${source}${(text ?? "").slice(0, 160)}`;
}

/**
 * A completion is a failure when the node called done(err); the core http
 * request node never does (it reports with node.error and calls done()), so
 * for it an answer other than 200 is the failure.
 */
function failureOf(event: CompleteEvent): unknown {
  if (event.error !== undefined) return event.error;
  const { statusCode, payload } = event.msg;
  if (statusCode === undefined || statusCode === 200) return undefined;
  // After a transport error statusCode holds the error's code and payload its text.
  return new Error(typeof payload === "string" ? payload : `statusCode ${JSON.stringify(statusCode)}`);
}

export async function startBenchRuntime(options: BenchFlowOptions): Promise<BenchRuntime> {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-bench-"));
  const { flows, credentials } = benchFlows(options);
  fs.writeFileSync(path.join(userDir, "flows.json"), JSON.stringify(flows));
  fs.writeFileSync(path.join(userDir, "flows_cred.json"), JSON.stringify(credentials));

  // Logged lines are grouped rather than printed: a failing burst would print one per message.
  const logCounts = new Map<string, number>();
  let otherLogLines = 0;
  const benchLogger = (entry: NodeRedLogEntry) => {
    const text = logText(entry);
    const count = logCounts.get(text);
    if (count !== undefined) logCounts.set(text, count + 1);
    else if (logCounts.size < MAX_LOG_TEXTS) logCounts.set(text, 1);
    else otherLogLines++;
  };

  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const RED = require("node-red") as EmbeddedNodeRed;
  let timer: NodeJS.Timeout | undefined;
  try {
    RED.init(http.createServer(), {
      userDir,
      flowFile: "flows.json",
      credentialSecret: false,
      // The package root, not nodes/: Node-RED loads it as the module a user installs, so
      // nodes/robot-fleet.js is registered as the editor plugin it is rather than tried as a node.
      nodesDir: [path.resolve(__dirname, "../../..")],
      httpAdminRoot: false,
      httpNodeRoot: false,
      // The same 10 s limit as robot-config's timeout (the core node's default is 120 s).
      httpRequestTimeout: 10_000,
      telemetry: { enabled: false, updateNotification: false },
      diagnostics: { enabled: false },
      logging: { console: { level: "warn", metrics: false, audit: false, handler: () => benchLogger } },
    });
    // start() resolves before the flows run; the runtime says when they do, and
    // never does when a node type is missing (the log then says which).
    const flowsStarted = new Promise<void>((resolve, reject) => {
      RED.events.once("flows:started", resolve);
      timer = setTimeout(() => reject(new Error(`the flows did not start: ${[...logCounts.keys()].join("; ")}`)), START_LIMIT_MS);
    });
    await RED.start();
    await flowsStarted;
  } catch (error) {
    fs.rmSync(userDir, { recursive: true, force: true });
    throw error;
  } finally {
    clearTimeout(timer);
  }

  const settleOf = new Map<string, Settle>();
  RED.hooks.add("onComplete.bench", (event: CompleteEvent) => {
    const settle = settleOf.get(event.node.id);
    if (!settle) return;
    const failure = failureOf(event);
    if (failure === undefined) settle();
    else settle(failure);
  });

  return {
    target: (nodeId, message) => (settle) => {
      const node = RED.nodes.getNode(nodeId);
      if (!node) throw new Error(`node ${nodeId} is not deployed`);
      // The node's latest drive takes its completions (a drive that ran out of time still counts its late ones for its drain).
      settleOf.set(nodeId, settle);
      return (index) => node.receive(message(index));
    },
    logSummary: () => {
      const lines = [...logCounts].map(([text, count]) => (count > 1 ? `${count} × ${text}` : text));
      if (otherLogLines > 0) lines.push(`... and ${otherLogLines} more lines of other texts`);
      return lines;
    },
    stop: async () => {
      try {
        await RED.stop();
      } finally {
        fs.rmSync(userDir, { recursive: true, force: true });
      }
    },
  };
}

/** What each row's messages look like. */
export const MESSAGES = {
  /** Anything but a request body makes robot-command send its configured command. */
  robotCommand: (index: number): object => ({ payload: index }),
  /** The request body itself, a fresh object per message as a flow would build it. */
  httpRequest: (): object => ({ payload: { ...COMMAND_REQUEST } }),
};
