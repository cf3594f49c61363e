/**
 * The benchmark's loopback answer server. It runs in a child process (fork) so
 * that its CPU time is not charged to the client side being measured, answers
 * every command submission with a command resource (and robot-config's read of
 * the robot list with the one robot, so a serial the directory checks is known),
 * and counts requests and sockets, which the parent asks for over IPC between rows.
 */
import { fork } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";

export const SERIAL = "GS-S-000101";
export const COMMANDS_PATH = `/v1alpha1/robots/${SERIAL}/commands`;
/** What every path sends; the server refuses anything else so no path is faster for sending less. */
export const COMMAND_REQUEST = { serialNumber: SERIAL, remoteTaskCommandType: "PAUSE_TASK" } as const;
export const BENCH_TOKEN = "bench";

const COMMANDS_PATTERN = /^\/v1alpha1\/robots\/([^/?]+)\/commands$/;
/** The robot list (robot-config reads it at deploy and every interval): the one robot every path commands. */
const ROBOT_LIST_PATTERN = /^\/v1alpha1\/robots(\?|$)/;
const ROBOT_LIST = JSON.stringify({ robots: [{ serialNumber: SERIAL, displayName: "Bench robot" }], total: 1 });

export interface ServerStats {
  /** Requests since the last reset, the robot list's reads apart (a robot-config's directory, no row's message). */
  requests: number;
  /** Requests answered with anything but 200 since the last reset. */
  refused: number;
  openSockets: number;
  /** The most sockets open at once since the last reset. */
  maxSockets: number;
  /** Connections accepted since the last reset (more than maxSockets: sockets were not kept alive). */
  connections: number;
}

type ToChild = { id: number; type: "stats" | "reset" };
type FromChild = { type: "ready"; port: number } | { id: number; stats: ServerStats };

export interface AnswerServer {
  readonly url: string;
  stats(): Promise<ServerStats>;
  /** Closes idle keep-alive sockets (leftovers of earlier rows) and zeroes the counters. */
  reset(): Promise<ServerStats>;
  close(): Promise<void>;
}

function answerFor(serialNumber: string): string {
  return JSON.stringify({
    name: `robots/${serialNumber}/commands/0b6f3c1e-9a53-4d3c-8a43-3e0f2e0c5d11`,
    state: "WAITING",
    serialNumber,
    rawCommandType: "pause_task",
    commandParameter: {},
  });
}

/** The child's side: serve, count, answer IPC questions. */
function serve(): void {
  const answers = new Map<string, string>();
  let requests = 0;
  let refused = 0;
  let openSockets = 0;
  let maxSockets = 0;
  let connections = 0;

  const server = http.createServer((req, res) => {
    if (req.method === "GET" && ROBOT_LIST_PATTERN.test(req.url ?? "") && req.headers.authorization === `Bearer ${BENCH_TOKEN}`) {
      req.resume();
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(ROBOT_LIST) });
      res.end(ROBOT_LIST);
      return;
    }
    requests++;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const serialNumber = COMMANDS_PATTERN.exec(req.url ?? "")?.[1];
      let status = 200;
      if (req.method !== "POST" || !serialNumber) status = 404;
      else if (req.headers.authorization !== `Bearer ${BENCH_TOKEN}`) status = 401;
      else if (!(req.headers["content-type"] ?? "").startsWith("application/json")) status = 415;
      else {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { remoteTaskCommandType?: unknown };
          if (body.remoteTaskCommandType !== COMMAND_REQUEST.remoteTaskCommandType) status = 400;
        } catch {
          status = 400;
        }
      }
      if (status !== 200) {
        refused++;
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ code: 3, message: `refused with ${status}` }));
        return;
      }
      let answer = answers.get(serialNumber!);
      if (answer === undefined) answers.set(serialNumber!, (answer = answerFor(serialNumber!)));
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  // Clients keep sockets between rows; the reset closes them, not a short idle timer.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 121_000;
  server.on("connection", (socket) => {
    openSockets++;
    connections++;
    if (openSockets > maxSockets) maxSockets = openSockets;
    socket.on("close", () => openSockets--);
  });
  server.on("error", (error) => console.error(`answer server: ${error.message}`));

  const stats = (): ServerStats => ({ requests, refused, openSockets, maxSockets, connections });
  process.on("message", (message: ToChild) => {
    if (message.type === "stats") {
      process.send!({ id: message.id, stats: stats() } satisfies FromChild);
      return;
    }
    server.closeIdleConnections();
    const started = Date.now();
    // The close events of the sockets just closed arrive a moment later.
    const waitForClose = () => {
      if (openSockets > 0 && Date.now() - started < 2000) {
        setTimeout(waitForClose, 10);
        return;
      }
      requests = 0;
      refused = 0;
      connections = 0;
      maxSockets = openSockets;
      process.send!({ id: message.id, stats: stats() } satisfies FromChild);
    };
    waitForClose();
  });
  // The parent going away ends the child, whatever state the parent died in.
  process.on("disconnect", () => process.exit(0));
  // A large backlog so a burst of connections is the client's problem, not the listen queue's.
  server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => {
    process.send!({ type: "ready", port: (server.address() as AddressInfo).port } satisfies FromChild);
  });
}

/** Forks the answer server and resolves when it listens. */
export function startAnswerServer(): Promise<AnswerServer> {
  const child = fork(__filename, ["--serve"], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const pending = new Map<number, { resolve: (stats: ServerStats) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let exited = false;

  const ask = (type: ToChild["type"]): Promise<ServerStats> => {
    if (exited) return Promise.reject(new Error("the answer server has exited"));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      child.send({ id, type } satisfies ToChild);
    });
  };

  return new Promise((resolve, reject) => {
    child.on("exit", (code, signal) => {
      exited = true;
      const error = new Error(`the answer server exited (${signal ?? code})`);
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
      reject(error);
    });
    child.on("error", reject);
    child.on("message", (message: FromChild) => {
      if ("type" in message) {
        resolve({
          url: `http://127.0.0.1:${message.port}`,
          stats: () => ask("stats"),
          reset: () => ask("reset"),
          close: () =>
            new Promise<void>((done) => {
              if (exited) return done();
              child.once("exit", () => done());
              child.disconnect();
            }),
        });
        return;
      }
      pending.get(message.id)?.resolve(message.stats);
      pending.delete(message.id);
    });
  });
}

if (require.main === module && process.argv.includes("--serve")) serve();
