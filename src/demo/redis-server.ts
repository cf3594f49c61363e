/**
 * A throwaway redis-server: loopback only, nothing written to disk. The
 * demo's shared mode starts one; the tests of shared accounts start, kill and
 * restart them (test/support/redis-server.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export interface RedisServer {
  url: string;
  port: number;
  /** Ends it as an operator would. */
  stop(): void;
  /** Ends it at once, as a crash: connections drop, nothing is saved. */
  kill(): void;
  /** Resolves when the process has ended. */
  exited: Promise<void>;
}

export function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString().startsWith("+PONG"));
    });
    socket.once("error", () => resolve(false));
  });
}

const running = new Set<ChildProcess>();
// However the process ends (an error, a second Ctrl-C, a failed test run), no redis-server is left behind.
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export async function startRedisServer(port: number): Promise<RedisServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-redis-"));
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], {
    stdio: "ignore",
  });
  running.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      running.delete(child);
      fs.rmSync(dir, { recursive: true, force: true });
      resolve();
    }),
  );
  const failed = new Promise<never>((_resolve, reject) => {
    child.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === "ENOENT"
            ? "Redis is needed: install redis-server (Debian: apt-get install redis-server) or set REDIS_URL"
            : error.message,
        ),
      ),
    );
    void exited.then(() => reject(new Error(`redis-server ended at once: is port ${port} free?`)));
  });
  failed.catch(() => undefined);
  const ready = (async () => {
    for (let tries = 0; tries < 200; tries++) {
      if (await answersPing(port)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`redis-server did not answer on port ${port}`);
  })();
  try {
    await Promise.race([ready, failed]);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => void child.kill("SIGTERM"),
    kill: () => void child.kill("SIGKILL"),
    exited,
  };
}
