/**
 * One Node-RED runtime in a process of its own, forked by node-red-cluster.ts
 * (see there for the API tests use). Embedded as events-runtime-child.ts is:
 * the Node-RED under test (ROBOT_FLEET_NODE_RED, or this repository's),
 * nodesDir the package root so this package's nodes load as an installed
 * module, credentialSecret false, an HTTP server on 127.0.0.1 (port 0) serving
 * httpNodeRoot "/" (and the admin API only where the settings give
 * httpAdminRoot a path), nothing printed: the log goes to the parent.
 *
 * IPC (JSON), parent to child:
 *   {type: "start", config: ChildConfig}   first, once
 *   {type: "inject", id, node, msg}        node.receive(msg); answered {type: "injected", id, error?}
 *   {type: "stop"}                          RED.stop(), the server closed, then exit 0
 * child to parent:
 *   {type: "ready", port}                  the flows run and the server listens
 *   {type: "failed", error}                 the flows did not start (missing types, a bad flow file)
 *   {type: "sent", node, port, msg, at}     a watched node sent msg (a JSON-safe copy) on output `port`
 *   {type: "status", node, status, at}      a node's status (Node-RED's "node-status" event)
 *   {type: "log", level, text, node?, nodeType?, at}   a log line at info or above
 *
 * Sends are seen by wrapping each watched node's own send() once the flows
 * have started (and again after every start, so a redeploy keeps them
 * watched), not through the onSend hook: the hook only sees messages that
 * travel along a wire, so an unwired output, or an output wired to two nodes,
 * would be missed or counted twice. A send made before "flows:started"
 * (while the flows are being built) is not seen.
 *
 * When the parent goes (even SIGKILLed) the IPC channel closes and this
 * process ends at once: no Node-RED outlives its test run.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import express from "express";
import type { EmbeddedNodeRed, NodeRedLogEntry } from "./embedded-node-red";

export interface ChildConfig {
  name: string;
  /** Holds flows.json and flows_cred.json, written by the parent. */
  userDir: string;
  /** The package root: where Node-RED finds this package's nodes. */
  nodesDir: string;
  /** Merged over the defaults here; `logging` is always this file's. */
  settings: Record<string, unknown>;
  /** Ids of the nodes whose sends are reported. */
  watch: string[];
}

export type ParentMessage =
  { type: "start"; config: ChildConfig } | { type: "inject"; id: number; node: string; msg: Record<string, unknown> } | { type: "stop" };

export type ChildMessage =
  | { type: "ready"; port: number }
  | { type: "failed"; error: string }
  | { type: "sent"; node: string; port: number; msg: Record<string, unknown>; at: number }
  | { type: "status"; node: string; status: unknown; at: number }
  | { type: "log"; level: string; text: string; node?: string; nodeType?: string; at: number }
  | { type: "injected"; id: number; error?: string }
  | { type: "stopped" };

interface RuntimeNode {
  id: string;
  /** A property of each node, set by Node-RED as the node is wired. */
  send: (this: RuntimeNode, msg: unknown) => void;
  receive(msg: object): void;
  /** Set once its send is wrapped. */
  [WATCHED]?: true;
}

const WATCHED = Symbol("robot-fleet.watched");
const LEVEL_NAMES: Record<number, string> = { 10: "fatal", 20: "error", 30: "warn", 40: "info" };
/** Nesting kept in a reported message; deeper values become "[Depth]". */
const MAX_DEPTH = 16;

/**
 * A copy of a message that survives JSON (the IPC channel): Buffers as
 * {type: "Buffer", data}, Dates as ISO strings, Errors as {name, message},
 * bigints as strings, Maps and Sets as objects and arrays, functions and
 * undefined dropped, a repeated reference as "[Circular]", and instances of
 * any other class (an HTTP response, a socket) as "[ClassName]".
 */
export function jsonSafe(value: unknown, seen: Set<object> = new Set(), depth = 0): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value !== "object") return undefined;
  if (Buffer.isBuffer(value)) return { type: "Buffer", data: [...value] };
  // By tag and shape, not instanceof: what a function node builds comes from its sandbox's realm.
  const tag = Object.prototype.toString.call(value);
  if (tag === "[object Date]") {
    const time = (value as Date).getTime();
    return Number.isNaN(time) ? null : new Date(time).toISOString();
  }
  if (tag === "[object Error]") {
    const error = value as Error;
    return { name: error.name, message: error.message, ...(jsonSafe({ ...error }, seen, depth) as object) };
  }
  if (seen.has(value)) return "[Circular]";
  if (depth >= MAX_DEPTH) return "[Depth]";
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => jsonSafe(item, seen, depth + 1) ?? null);
    if (tag === "[object Map]") return jsonSafe(Object.fromEntries(value as Map<unknown, unknown>), seen, depth);
    if (tag === "[object Set]") return jsonSafe([...(value as Set<unknown>)], seen, depth);
    // A plain object's prototype is null or some realm's Object.prototype, whose own prototype is null.
    const prototype = Object.getPrototypeOf(value) as object | null;
    if (prototype !== null && Object.getPrototypeOf(prototype) !== null)
      return `[${(value.constructor as { name?: string } | undefined)?.name || "Object"}]`;
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const safe = jsonSafe(item, seen, depth + 1);
      if (safe !== undefined) copy[key] = safe;
    }
    return copy;
  } finally {
    seen.delete(value);
  }
}

function send(message: ChildMessage): void {
  if (process.connected) process.send!(message);
}

function logText(entry: NodeRedLogEntry): string {
  const { msg } = entry;
  if (msg instanceof Error) return msg.stack ?? msg.message;
  if (typeof msg === "string") return msg;
  return JSON.stringify(jsonSafe(msg)) ?? String(msg);
}

/**
 * Every message a node's send() argument holds, with its output: a message
 * alone goes on output 0; an array holds per output a message, an array of
 * them, or null.
 */
function messagesOf(sent: unknown): Array<{ port: number; msg: object }> {
  if (sent === null || typeof sent !== "object") return [];
  if (!Array.isArray(sent)) return [{ port: 0, msg: sent }];
  const found: Array<{ port: number; msg: object }> = [];
  sent.forEach((output: unknown, port) => {
    for (const msg of Array.isArray(output) ? (output as unknown[]) : [output]) {
      if (msg !== null && typeof msg === "object") found.push({ port, msg });
    }
  });
  return found;
}

/** The flows were refused (a missing type or module): said in one line, without a stack. */
class StartRefused extends Error {}

function watch(RED: EmbeddedNodeRed, ids: string[]): void {
  for (const id of ids) {
    const node = RED.nodes.getNode<RuntimeNode>(id);
    if (!node || node[WATCHED]) continue;
    // The instance's own send: Node-RED sets it per node (a no-op when unwired, Node.prototype.send otherwise).
    const original = node.send;
    node.send = function (this: RuntimeNode, sent: unknown) {
      const at = Date.now();
      for (const { port, msg } of messagesOf(sent))
        send({ type: "sent", node: id, port, msg: jsonSafe(msg) as Record<string, unknown>, at });
      original.call(this, sent);
    };
    node[WATCHED] = true;
  }
}

async function start(config: ChildConfig): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const RED = require(process.env.ROBOT_FLEET_NODE_RED ?? "node-red") as EmbeddedNodeRed;
  const app = express();
  const server = http.createServer(app);
  const logger = (entry: NodeRedLogEntry) => {
    const level = LEVEL_NAMES[entry.level];
    if (!level) return;
    send({
      type: "log",
      level,
      text: logText(entry),
      ...(entry.id ? { node: entry.id } : {}),
      ...(entry.type ? { nodeType: entry.type } : {}),
      at: Date.now(),
    });
  };
  const settings: Record<string, unknown> = {
    flowFile: "flows.json",
    credentialSecret: false,
    httpAdminRoot: false,
    httpNodeRoot: "/",
    editorTheme: { tours: false, projects: { enabled: false } },
    telemetry: { enabled: false, updateNotification: false },
    diagnostics: { enabled: false },
    ...config.settings,
    userDir: config.userDir,
    nodesDir: [config.nodesDir],
    logging: { console: { level: "info", metrics: false, audit: false, handler: () => logger } },
  };
  RED.init(server, settings);
  if (typeof settings.httpAdminRoot === "string") app.use(settings.httpAdminRoot, RED.httpAdmin);
  if (typeof settings.httpNodeRoot === "string") app.use(settings.httpNodeRoot, RED.httpNode);

  RED.events.on("node-status", (event: { id: string; status?: unknown }) => {
    send({ type: "status", node: event.id, status: jsonSafe(event.status ?? {}), at: Date.now() });
  });
  RED.events.on("flows:started", () => watch(RED, config.watch));
  const flowsStarted = new Promise<void>((resolve, reject) => {
    RED.events.once("flows:started", () => resolve());
    // Node-RED does not start flows with an unknown node type or a missing module: it says so here and waits.
    RED.events.on("runtime-event", (event: { id?: string; payload?: { error?: string; types?: string[]; modules?: unknown[] } }) => {
      const error = event.id === "runtime-state" ? event.payload?.error : undefined;
      if (error)
        reject(
          new StartRefused(
            `${error}${event.payload?.types ? `: ${event.payload.types.join(", ")}` : ""}${event.payload?.modules ? `: ${JSON.stringify(event.payload.modules)}` : ""}`,
          ),
        );
    });
  });
  await RED.start();
  await flowsStarted;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });

  process.on("message", (message: ParentMessage) => {
    if (message.type === "inject") {
      try {
        const node = RED.nodes.getNode<RuntimeNode>(message.node);
        if (!node) throw new Error(`no node ${message.node} runs in ${config.name}`);
        node.receive(message.msg);
        send({ type: "injected", id: message.id });
      } catch (error) {
        send({ type: "injected", id: message.id, error: error instanceof Error ? error.message : String(error) });
      }
    } else if (message.type === "stop") {
      void RED.stop()
        .catch(() => undefined)
        .then(() => {
          server.closeAllConnections();
          server.close();
          send({ type: "stopped" });
          process.exit(0);
        });
    }
  });
  send({ type: "ready", port: (server.address() as AddressInfo).port });
}

function main(): void {
  // The parent gone (ended, crashed, SIGKILLed): end too, at once.
  process.on("disconnect", () => process.exit(0));
  process.once("message", (message: ParentMessage) => {
    if (message.type !== "start") return;
    if (!fs.existsSync(path.join(message.config.userDir, "flows.json"))) {
      send({ type: "failed", error: `no flows.json in ${message.config.userDir}` });
      return;
    }
    start(message.config).catch((error: unknown) => {
      const text = error instanceof StartRefused ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
      send({ type: "failed", error: text });
      // Let the message go out before the exit.
      setTimeout(() => process.exit(1), 50);
    });
  });
}

// Imported by node-red-cluster.ts for its types only: the forked process runs Node-RED.
if (require.main === module) main();
