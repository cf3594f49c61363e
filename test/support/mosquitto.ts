/**
 * A real MQTT broker for the bridge's tests: Debian's mosquitto (npm's
 * pretest installs it when missing, ensure-system-packages.ts; MOSQUITTO
 * names another binary), on 127.0.0.1 with a config file of its own in a
 * fresh temp dir, anonymous clients allowed, nothing persisted.
 *
 *   const broker = await startMosquitto();       // accepts connections when this resolves
 *   broker.url                                   // "mqtt://127.0.0.1:<port>"
 *   await broker.stop();                         // SIGTERM, waits for the exit
 *
 * `reserveMosquitto()` picks the port without starting the broker, so a
 * test can deploy against a broker that comes up late (`await broker.start()`).
 * No mosquitto outlives the test process (child-reaper.ts, and setpriv
 * --pdeathsig KILL where util-linux has it).
 */
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { spawnTestServer } from "./child-reaper";
import { freePort } from "./redis-server";

const MOSQUITTO = process.env.MOSQUITTO ?? (fs.existsSync("/usr/sbin/mosquitto") ? "/usr/sbin/mosquitto" : "mosquitto");
const READY_LIMIT_MS = 10_000;

export interface Mosquitto {
  readonly url: string;
  readonly port: number;
  /** The broker's last output lines, for a failing test's message. */
  readonly output: readonly string[];
  /** Starts it (nothing when running); resolves once it accepts TCP connections. */
  start(): Promise<void>;
  /** SIGTERM; resolves once it has exited and its temp dir is removed. */
  stop(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * A broker on a port picked now, not yet running. `access`: config lines
 * instead of `allow_anonymous true` (users and ACLs: password_file, acl_file),
 * with `{dir}` standing for the broker's temp dir, where `files` are written first.
 */
export async function reserveMosquitto(access?: { lines: string[]; files?: Record<string, string> }): Promise<Mosquitto> {
  const port = await freePort();
  const output: string[] = [];
  let running: { child: ChildProcess; dir: string } | undefined;

  async function start(): Promise<void> {
    if (running) return;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-test-mosquitto-"));
    const configFile = path.join(dir, "mosquitto.conf");
    // Readable by the user mosquitto runs as (started by root, it drops to its own user).
    if (access?.files) fs.chmodSync(dir, 0o755);
    for (const [name, text] of Object.entries(access?.files ?? {})) fs.writeFileSync(path.join(dir, name), text, { mode: 0o644 });
    fs.writeFileSync(
      configFile,
      [
        `listener ${port} 127.0.0.1`,
        ...(access ? access.lines.map((line) => line.replaceAll("{dir}", dir)) : ["allow_anonymous true"]),
        "persistence false",
        "log_dest stderr",
        "log_type error",
        "log_type warning",
        "",
      ].join("\n"),
    );
    const args = ["-c", configFile];
    const child = spawnTestServer(MOSQUITTO, args, dir, output, 40);
    let ended: Error | undefined;
    child.once("error", (error: NodeJS.ErrnoException) => {
      ended =
        error.code === "ENOENT"
          ? new Error(`${MOSQUITTO} not found: install Debian's mosquitto (npm test does, as root) or set MOSQUITTO`)
          : error;
    });
    child.once("exit", (code, signal) => {
      ended ??= new Error(`mosquitto on port ${port} ended (${signal ?? `code ${code}`}): ${output.slice(-5).join(" | ")}`);
    });
    running = { child, dir };
    const deadline = Date.now() + READY_LIMIT_MS;
    while (!(await accepts(port))) {
      if (ended || Date.now() > deadline) {
        await stop();
        throw ended ?? new Error(`mosquitto on port ${port} did not accept connections within ${READY_LIMIT_MS} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function stop(): Promise<void> {
    const ending = running;
    if (!ending) return;
    running = undefined;
    const { child, dir } = ending;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }

  return { url: `mqtt://127.0.0.1:${port}`, port, output, start, stop };
}

export async function startMosquitto(): Promise<Mosquitto> {
  const broker = await reserveMosquitto();
  await broker.start();
  return broker;
}
