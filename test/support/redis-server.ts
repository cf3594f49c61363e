/**
 * A real Redis for the tests of several Node-RED instances sharing one
 * account: Debian's redis-server (npm's pretest installs it when missing,
 * ensure-system-packages.ts; REDIS_SERVER names another binary), on
 * 127.0.0.1, a free port unless one is asked for, nothing written to disk
 * (`--save "" --appendonly no`, a fresh temp dir as --dir per start).
 *
 *   const redis = await startRedis();        // answers PING when this resolves
 *   redis.url                                // "redis://127.0.0.1:<port>"
 *   await redis.kill();                      // SIGKILL: a crash
 *   await redis.restart();                   // again on the same port, empty
 *   await redis.stop();                      // SIGTERM, waits for the exit
 *
 * or, for a describe block, `const { redis } = useRedis()` (one server for
 * the block, running and empty at the start of every test).
 *
 * Talks to the server over raw TCP (RESP), so this file needs no npm Redis
 * client: pingRedis(port) and redisCommand(port, ...args) for a test's own
 * look at the keys. No redis-server outlives the test process: each is
 * SIGKILLed on exit (child-reaper.ts), and where util-linux's setpriv exists
 * (Debian: always) it is started with --pdeathsig KILL, so even a SIGKILLed
 * test process takes it along.
 */
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { spawnTestServer } from "./child-reaper";

const REDIS_SERVER = process.env.REDIS_SERVER ?? "redis-server";
const READY_LIMIT_MS = 10_000;
const STOP_LIMIT_MS = 5_000;
/** Lines of the server's own output kept for error messages. */
const KEPT_LINES = 40;

export interface RedisServerOptions {
  /** Default: a free port, picked once and kept across restart(). */
  port?: number;
}

export interface RedisServer {
  /** "redis://127.0.0.1:<port>" */
  readonly url: string;
  readonly port: number;
  /** The running server's pid; undefined after stop() or kill(). */
  readonly pid: number | undefined;
  /** The last lines the server printed (warnings and above), for a failing test's message. */
  readonly output: readonly string[];
  /** SIGTERM; resolves once it has exited (SIGKILL after 5 s). Removes its temp dir. Nothing when not running. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash; resolves once it has exited. Removes its temp dir. Nothing when not running. */
  kill(): Promise<void>;
  /** Starts again on the same port with no data (stops it gracefully first if it still runs); resolves when it answers PING. */
  restart(): Promise<void>;
}

/** The name test/api/sharing.test.ts knows it by. */
export type TestRedis = RedisServer;

/** A reply as RESP gives it: simple strings and bulk strings as strings, nil as null, errors as Error. */
export type RedisReply = string | number | null | Error | RedisReply[];

/** Sends one command and resolves with its reply; rejects when the connection fails or closes first. */
export function redisCommand(port: number, ...args: Array<string | number>): Promise<RedisReply> {
  const request = `*${args.length}\r\n` + args.map((arg) => `$${Buffer.byteLength(String(arg))}\r\n${String(arg)}\r\n`).join("");
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const socket = net.connect(port, "127.0.0.1", () => socket.write(request));
    socket.setTimeout(5_000, () => socket.destroy(new Error(`redis on port ${port} did not answer ${String(args[0])}`)));
    socket.on("data", (data: Buffer) => {
      received = Buffer.concat([received, data]);
      const parsed = parseReply(received, 0);
      if (!parsed) return;
      socket.destroy();
      resolve(parsed.reply);
    });
    socket.once("error", reject);
    socket.once("close", () => reject(new Error(`redis on port ${port} closed the connection before answering ${String(args[0])}`)));
  });
}

/** One RESP reply from `offset`, or undefined while incomplete. */
function parseReply(buffer: Buffer, offset: number): { reply: RedisReply; end: number } | undefined {
  const lineEnd = buffer.indexOf("\r\n", offset);
  if (lineEnd < 0) return undefined;
  const kind = String.fromCharCode(buffer[offset]!);
  const line = buffer.toString("utf8", offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (kind) {
    case "+":
      return { reply: line, end: next };
    case "-":
      return { reply: new Error(line), end: next };
    case ":":
      return { reply: Number(line), end: next };
    case "$": {
      const length = Number(line);
      if (length < 0) return { reply: null, end: next };
      if (buffer.length < next + length + 2) return undefined;
      return { reply: buffer.toString("utf8", next, next + length), end: next + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { reply: null, end: next };
      const items: RedisReply[] = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, at);
        if (!item) return undefined;
        items.push(item.reply);
        at = item.end;
      }
      return { reply: items, end: at };
    }
    default:
      throw new Error(`not a RESP reply: ${JSON.stringify(buffer.toString("utf8", offset, Math.min(buffer.length, offset + 40)))}`);
  }
}

/** Whether a server on this port answers `PING\r\n` with +PONG (an inline command, as redis-cli's first). */
export function pingRedis(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = "";
    const socket = net.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
    socket.setTimeout(1_000, () => socket.destroy());
    socket.on("data", (data: Buffer) => {
      answer += data.toString("utf8");
      if (answer.includes("\r\n")) socket.destroy();
    });
    socket.once("error", () => undefined);
    socket.once("close", () => resolve(answer.startsWith("+PONG")));
  });
}

/** A loopback port the OS has just handed out (and taken back): for a server a test starts as a child process. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

interface Running {
  child: ChildProcess;
  dir: string;
}

/** Spawns redis-server on `port` and resolves once it answers PING; rejects (leaving nothing behind) when it ends first. */
async function spawnRedis(port: number, output: string[]): Promise<Running> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-test-redis-"));
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
    "--daemonize",
    "no",
    "--loglevel",
    "warning",
  ];
  const child = spawnTestServer(REDIS_SERVER, args, dir, output, KEPT_LINES);

  let ended: Error | undefined;
  const failed = new Promise<void>((resolve) => {
    child.once("error", (error: NodeJS.ErrnoException) => {
      ended =
        error.code === "ENOENT"
          ? new Error(`${REDIS_SERVER} not found: install Debian's redis-server (npm test does, as root) or set REDIS_SERVER`)
          : error;
      resolve();
    });
    child.once("exit", (code, signal) => {
      ended ??= new Error(`redis-server on port ${port} ended at once (${signal ?? `code ${code}`}): ${output.slice(-5).join(" | ")}`);
      resolve();
    });
  });
  const deadline = Date.now() + READY_LIMIT_MS;
  for (;;) {
    if (await pingRedis(port)) break;
    await Promise.race([failed, new Promise((resolve) => setTimeout(resolve, 20))]);
    if (ended || Date.now() > deadline) {
      child.kill("SIGKILL");
      await exited(child);
      fs.rmSync(dir, { recursive: true, force: true });
      throw (
        ended ?? new Error(`redis-server on port ${port} did not answer PING within ${READY_LIMIT_MS} ms: ${output.slice(-5).join(" | ")}`)
      );
    }
  }
  return { child, dir };
}

export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const output: string[] = [];
  let port = options.port ?? (await freePort());
  let running: Running;
  // A free port picked here can be taken before redis-server binds it: then another one.
  for (let attempt = 1; ; attempt++) {
    try {
      running = await spawnRedis(port, output);
      break;
    } catch (error) {
      if (options.port !== undefined || attempt >= 5 || !/in use|bind/i.test(String(error))) throw error;
      port = await freePort();
    }
  }
  let current: Running | undefined = running;

  const end = async (signal: "SIGTERM" | "SIGKILL") => {
    const ending = current;
    if (!ending) return;
    current = undefined;
    const done = exited(ending.child);
    ending.child.kill(signal);
    const timer = setTimeout(() => ending.child.kill("SIGKILL"), STOP_LIMIT_MS);
    await done;
    clearTimeout(timer);
    fs.rmSync(ending.dir, { recursive: true, force: true });
  };

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return current?.child.pid;
    },
    output,
    stop: () => end("SIGTERM"),
    kill: () => end("SIGKILL"),
    async restart() {
      await end("SIGTERM");
      current = await spawnRedis(port, output);
    },
  };
}

/**
 * One redis-server for a describe block: started before its tests, stopped
 * after them; before each test it runs (restarted if a test killed or stopped
 * it) and is empty (FLUSHALL). The handle is there at once, so
 * `const { redis } = useRedis()` works; its url and port are known from the
 * block's first before hook on.
 */
export function useRedis(options: RedisServerOptions = {}): { readonly redis: RedisServer } {
  let server: RedisServer | undefined;
  const current = () => {
    if (!server)
      throw new Error("useRedis(): the redis-server starts in the describe block's before hook; use it in a test or a later hook");
    return server;
  };
  const redis: RedisServer = {
    get url() {
      return current().url;
    },
    get port() {
      return current().port;
    },
    get pid() {
      return server?.pid;
    },
    get output() {
      return server?.output ?? [];
    },
    stop: () => current().stop(),
    kill: () => current().kill(),
    restart: () => current().restart(),
  };
  before(async function () {
    this.timeout(READY_LIMIT_MS + 5_000);
    server = await startRedis(options);
  });
  after(async () => {
    await server?.stop();
  });
  beforeEach(async () => {
    if (redis.pid === undefined) await redis.restart();
    else await redisCommand(redis.port, "FLUSHALL");
  });
  return { redis };
}
