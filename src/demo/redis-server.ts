/** A throwaway redis-server for the demo's shared mode: loopback only, nothing written to disk. */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export interface DemoRedis {
  url: string;
  stop(): void;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString().startsWith("+PONG"));
    });
    socket.once("error", () => resolve(false));
  });
}

export async function startDemoRedis(port: number): Promise<DemoRedis> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-redis-"));
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], { stdio: "ignore" });
  const failed = new Promise<never>((_resolve, reject) => {
    child.once("error", (error: NodeJS.ErrnoException) =>
      reject(new Error(error.code === "ENOENT" ? "--shared needs Redis: install redis-server (Debian: apt-get install redis-server) or set REDIS_URL" : error.message)),
    );
    child.once("exit", (code) => reject(new Error(`redis-server ended at once (code ${code}): is port ${port} free?`)));
  });
  const ready = (async () => {
    for (let tries = 0; tries < 100; tries++) {
      if (await answersPing(port)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`redis-server did not answer on port ${port}`);
  })();
  try {
    await Promise.race([ready, failed]);
  } catch (error) {
    child.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  failed.catch(() => undefined);
  // However the demo ends (an error after this, a second Ctrl-C), no redis-server is left behind.
  process.once("exit", () => child.kill("SIGKILL"));
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () => {
      child.kill("SIGTERM");
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
