/**
 * Several Node-RED runtimes, each in a process of its own
 * (node-red-instance-child.ts), for the tests of instances sharing one
 * robot-cloud account: each loads this package's nodes, runs the flows the
 * test gives (robot-config pointing at a recording server, nodes of this
 * package, core nodes) and reports back what its watched nodes send, the
 * node statuses and its log.
 *
 *   const cluster = await startCluster(3, (name) => ({ flows, credentials, watch: ["status"], env: { REDIS_URL: redis.url } }));
 *   const [a, b, c] = cluster;                  // an array of Instance, named "A", "B", "C"
 *   await a.inject("go", { payload: 1 });      // node.receive in A's process
 *   await b.waitFor((i) => i.sent.find((s) => s.node === "status"), 5_000, "B's first robot status");
 *   await c.kill();                             // SIGKILL: a crash, no close handler runs
 *   await cluster.stop();                       // RED.stop() in those still running
 *
 * or `const cluster = useCluster(3, options)` for a describe block.
 *
 * Each process has ROBOT_FLEET_INSTANCE set to its name (a function node's
 * env.get("ROBOT_FLEET_INSTANCE"), or "${ROBOT_FLEET_INSTANCE}" in a node's
 * property) beside the test's `env`; node properties can name any of them as
 * "${NAME}". Its HTTP server (httpNodeRoot "/": http in, robot-events) is at
 * `url`. The Node-RED is ROBOT_FLEET_NODE_RED's when set (npm run compat).
 *
 * Node statuses come from Node-RED's "node-status" runtime event, which
 * carries every status a node sets (a config node's too); a node that is
 * stopped reports `{}`. Messages cross the IPC channel as JSON: what a test
 * injects must be JSON, and what is reported is a JSON-safe copy (see
 * jsonSafe in the child).
 *
 * No Node-RED outlives the test process: each is SIGKILLed on exit
 * (child-reaper.ts) and ends itself when its IPC channel closes.
 */
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { reapOnExit } from "./child-reaper";
import { CHILD_ENV, CHILD_NODE_OPTIONS } from "./child-node";
import type { ChildConfig, ChildMessage, ParentMessage } from "./node-red-instance-child";

const FROM_SOURCE = __filename.endsWith(".ts");
/** The package root: Node-RED loads this package from there as from an install. */
const PACKAGE_ROOT = path.resolve(__dirname, FROM_SOURCE ? "../.." : "../../..");
const CHILD_FILE = path.join(__dirname, `node-red-instance-child${path.extname(__filename)}`);
const START_LIMIT_MS = 30_000;
const STOP_LIMIT_MS = 10_000;

export interface InstanceOptions {
  /** "A", "B", ...: in reports, in ROBOT_FLEET_INSTANCE, in errors. */
  name: string;
  /** The flow file's nodes (flows.json): tabs, config nodes, nodes, each with id and type. */
  flows: Array<Record<string, unknown>>;
  /** By node id, as in flows_cred.json (credentialSecret is false). */
  credentials?: Record<string, Record<string, unknown>>;
  /** Node-RED settings over the defaults (httpAdminRoot false, httpNodeRoot "/", ...); `logging`, `userDir` and `nodesDir` are the harness's. A string httpAdminRoot serves the admin API there. */
  settings?: Record<string, unknown>;
  /** Ids of the nodes whose sends are reported in `sent`. */
  watch?: string[];
  /** Environment of the process, over the test process's own. */
  env?: Record<string, string>;
  /** How long the flows may take to start. Default 30 s. */
  startTimeoutMs?: number;
}

export interface SentMessage {
  /** The node that sent it. */
  node: string;
  /** Its output, from 0. */
  port: number;
  topic?: unknown;
  payload: unknown;
  /** A JSON-safe copy of the whole message. */
  msg: Record<string, unknown>;
  /** Date.now() in the child when it was sent. */
  at: number;
}

export interface LogLine {
  /** Node-RED's level (fatal, error, warn, info), or stdout / stderr for what the process printed itself. */
  level: string;
  text: string;
  /** The node that logged it (node.warn, node.error, node.log). */
  node?: string;
  nodeType?: string;
  at: number;
}

export interface StatusChange {
  node: string;
  /** As the node set it ({fill, shape, text}); {} when cleared. */
  status: Record<string, unknown>;
  at: number;
}

export interface Instance {
  readonly name: string;
  readonly pid: number;
  /** The child's HTTP server: "http://127.0.0.1:<port>/" (httpNodeRoot "/"). */
  readonly url: string;
  readonly port: number;
  /** What the watched nodes sent, in order. */
  readonly sent: SentMessage[];
  /** Log lines at info and above, and anything the process printed. */
  readonly logs: LogLine[];
  readonly statuses: StatusChange[];
  /** False once the process has ended. */
  readonly running: boolean;
  /** Resolves when the process has ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Calls receive(msg) on the node in the child; resolves once its input handlers have run (their synchronous part). */
  inject(nodeId: string, msg?: Record<string, unknown>): Promise<void>;
  /**
   * Resolves with the predicate's first truthy result, checked whenever the
   * child reports something and every 25 ms (for a predicate that looks
   * elsewhere too); rejects after `ms` with `what` and the last log lines.
   */
  waitFor<T>(predicate: (instance: Instance) => T | undefined | null | false, ms?: number, what?: string): Promise<T>;
  /** SIGKILL: a crash, no close handler runs. Resolves once the process has ended. */
  kill(): Promise<void>;
  /** RED.stop() (close handlers run), then the process ends; SIGKILL after 10 s. */
  stop(): Promise<void>;
}

const exitOf = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });

function recentLogs(logs: LogLine[], count = 12): string {
  const lines = logs
    .slice(-count)
    .map((line) => `  [${line.level}]${line.node ? ` [${line.nodeType ?? ""}:${line.node}]` : ""} ${line.text.split("\n")[0]}`);
  return lines.length > 0 ? `\n${lines.join("\n")}` : " (no log)";
}

export async function startInstance(options: InstanceOptions): Promise<Instance> {
  const { name } = options;
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), `robot-fleet-instance-${name}-`));
  fs.writeFileSync(path.join(userDir, "flows.json"), JSON.stringify(options.flows));
  fs.writeFileSync(path.join(userDir, "flows_cred.json"), JSON.stringify(options.credentials ?? {}));

  const child = fork(CHILD_FILE, [], {
    execArgv: [...CHILD_NODE_OPTIONS],
    env: { ...process.env, ...CHILD_ENV, ...options.env, ROBOT_FLEET_INSTANCE: name },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  reapOnExit(child, userDir);
  const exited = exitOf(child);
  void exited.then(() => fs.rmSync(userDir, { recursive: true, force: true }));

  const sent: SentMessage[] = [];
  const logs: LogLine[] = [];
  const statuses: StatusChange[] = [];
  /** Waiters woken on every report. */
  const wakers = new Set<() => void>();
  const pendingInjects = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let nextInject = 0;

  for (const [stream, level] of [
    [child.stdout!, "stdout"],
    [child.stderr!, "stderr"],
  ] as const) {
    stream.setEncoding("utf8");
    stream.on("data", (text: string) => {
      for (const line of text.split("\n")) if (line.trim() !== "") logs.push({ level, text: line, at: Date.now() });
    });
  }

  let ready: (port: number) => void = () => undefined;
  let failed: (error: string) => void = () => undefined;
  const started = new Promise<number>((resolve, reject) => {
    ready = resolve;
    failed = (error) => reject(new Error(`Node-RED ${name} did not start: ${error}${recentLogs(logs)}`));
  });
  child.on("message", (message: ChildMessage) => {
    switch (message.type) {
      case "ready":
        ready(message.port);
        break;
      case "failed":
        failed(message.error);
        break;
      case "sent": {
        const { msg } = message;
        sent.push({
          node: message.node,
          port: message.port,
          ...("topic" in msg ? { topic: msg.topic } : {}),
          payload: msg.payload,
          msg,
          at: message.at,
        });
        break;
      }
      case "status":
        statuses.push({ node: message.node, status: message.status as Record<string, unknown>, at: message.at });
        break;
      case "log":
        logs.push({
          level: message.level,
          text: message.text,
          ...(message.node ? { node: message.node } : {}),
          ...(message.nodeType ? { nodeType: message.nodeType } : {}),
          at: message.at,
        });
        break;
      case "injected": {
        const pending = pendingInjects.get(message.id);
        pendingInjects.delete(message.id);
        if (message.error) pending?.reject(new Error(`${name}: ${message.error}`));
        else pending?.resolve();
        break;
      }
      case "stopped":
        break;
    }
    for (const wake of [...wakers]) wake();
  });
  void exited.then(({ code, signal }) => {
    failed(`the process ended (${signal ?? `code ${code}`})`);
    for (const pending of pendingInjects.values()) pending.reject(new Error(`Node-RED ${name} ended before the message was delivered`));
    pendingInjects.clear();
  });

  const config: ChildConfig = { name, userDir, nodesDir: PACKAGE_ROOT, settings: options.settings ?? {}, watch: options.watch ?? [] };
  child.send({ type: "start", config } satisfies ParentMessage);
  const limit = options.startTimeoutMs ?? START_LIMIT_MS;
  let timer: NodeJS.Timeout | undefined;
  let port: number;
  try {
    port = await Promise.race([
      started,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`Node-RED ${name} did not start within ${limit} ms${recentLogs(logs)}`)), limit);
      }),
    ]);
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    throw error;
  } finally {
    clearTimeout(timer);
  }

  const end = async (how: "kill" | "stop") => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (how === "kill" || !child.connected) {
      child.kill("SIGKILL");
    } else {
      child.send({ type: "stop" } satisfies ParentMessage);
      const force = setTimeout(() => child.kill("SIGKILL"), STOP_LIMIT_MS);
      void exited.then(() => clearTimeout(force));
    }
    await exited;
  };

  const instance: Instance = {
    name,
    pid: child.pid!,
    url: `http://127.0.0.1:${port}/`,
    port,
    sent,
    logs,
    statuses,
    get running() {
      return child.exitCode === null && child.signalCode === null;
    },
    exited,
    inject(nodeId, msg = {}) {
      return new Promise<void>((resolve, reject) => {
        if (!instance.running || !child.connected) {
          reject(new Error(`Node-RED ${name} is not running`));
          return;
        }
        const id = nextInject++;
        pendingInjects.set(id, { resolve, reject });
        child.send({ type: "inject", id, node: nodeId, msg } satisfies ParentMessage);
      });
    },
    waitFor<T>(predicate: (instance: Instance) => T | undefined | null | false, ms = 10_000, what = "the condition") {
      return new Promise<T>((resolve, reject) => {
        const check = () => {
          let result: T | undefined | null | false;
          try {
            result = predicate(instance);
          } catch (error) {
            done();
            reject(error instanceof Error ? error : new Error(String(error)));
            return;
          }
          if (result) {
            done();
            resolve(result);
          }
        };
        const interval = setInterval(check, 25);
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(
              `Node-RED ${name}: ${what} not within ${ms} ms${instance.running ? "" : " (its process has ended)"}; its last log lines:${recentLogs(logs)}`,
            ),
          );
        }, ms);
        const done = () => {
          clearInterval(interval);
          clearTimeout(timer);
          wakers.delete(check);
        };
        wakers.add(check);
        check();
      });
    },
    kill: () => end("kill"),
    stop: () => end("stop"),
  };
  return instance;
}

/** The names instances of a cluster get, in order. */
export const INSTANCE_NAMES = ["A", "B", "C", "D", "E", "F", "G", "H"] as const;

export type ClusterInstanceOptions = Omit<InstanceOptions, "name">;

/** The instances in order ("A", "B", "C", ...), with helpers for all of them. */
export type Cluster = Instance[] & {
  /** The instance with this name. */
  byName(name: string): Instance;
  /** Stops every instance still running, together. */
  stop(): Promise<void>;
  /** Kills every instance still running (SIGKILL), together. */
  kill(): Promise<void>;
};

function asCluster(instances: Instance[]): Cluster {
  return Object.assign(instances, {
    byName(name: string) {
      const instance = instances.find((each) => each.name === name);
      if (!instance) throw new Error(`no instance ${name} in this cluster`);
      return instance;
    },
    stop: async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
    },
    kill: async () => {
      await Promise.all(instances.map((instance) => instance.kill()));
    },
  });
}

/**
 * Starts `count` instances named "A", "B", ... together, with the same
 * options or with each one's own (`options(name, index)`). When one fails to
 * start, the others are killed and the error is thrown.
 */
export async function startCluster(
  count: number,
  options: ClusterInstanceOptions | ((name: string, index: number) => ClusterInstanceOptions),
): Promise<Cluster> {
  if (count < 1 || count > INSTANCE_NAMES.length) throw new Error(`a cluster has 1 to ${INSTANCE_NAMES.length} instances`);
  const names = INSTANCE_NAMES.slice(0, count);
  const starting = names.map((name, index) => startInstance({ ...(typeof options === "function" ? options(name, index) : options), name }));
  const results = await Promise.allSettled(starting);
  const instances = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failure = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (failure) {
    await Promise.all(instances.map((instance) => instance.kill()));
    throw failure.reason;
  }
  return asCluster(instances);
}

/**
 * A cluster for a describe block: started before its tests, stopped after
 * them. The array is there at once (so `const cluster = useCluster(...)`
 * works) and holds the instances from the block's first before hook on; the
 * options are read then, so they can use servers started by earlier before hooks.
 */
export function useCluster(
  count: number,
  options: ClusterInstanceOptions | ((name: string, index: number) => ClusterInstanceOptions),
): Cluster {
  const cluster = asCluster([]);
  before(async function () {
    this.timeout(START_LIMIT_MS + 10_000);
    cluster.push(...(await startCluster(count, options)));
  });
  after(async function () {
    this.timeout(STOP_LIMIT_MS + 5_000);
    await cluster.stop();
  });
  return cluster;
}
