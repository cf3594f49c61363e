/**
 * Child processes a test starts (redis-server, Node-RED runtimes) must not
 * outlive the test process. Each is registered here and SIGKILLed when the
 * test process exits (mocha --exit, an uncaught error) or is ended by SIGINT,
 * SIGTERM or SIGHUP, and the temp dir it was given is removed then. A
 * SIGKILLed test process runs no handler: for that,
 * test servers are started under setpriv --pdeathsig (spawnTestServer) and a
 * Node-RED child ends itself when its IPC channel closes
 * (node-red-instance-child.ts).
 */
import { spawn, type ChildProcess, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import fs from "node:fs";

/** Each running child, with the temp dir to remove once it has ended. */
const live = new Map<ChildProcess, string | undefined>();
let installed = false;

function killAll(): void {
  for (const [child, tempDir] of live) {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    // Its files are closed or about to be: SIGKILLed, it writes nothing more.
    if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
  }
  live.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.once("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      killAll();
      // Nobody else handles it (mocha's parallel runner would): end as the signal would have.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

/**
 * Kills `child` with SIGKILL if it is still running when this process ends,
 * and removes `tempDir` (which the caller removes itself when the child ends
 * while this process runs).
 */
export function reapOnExit(child: ChildProcess, tempDir?: string): void {
  install();
  if (child.exitCode !== null || child.signalCode !== null) return;
  live.set(child, tempDir);
  child.once("exit", () => live.delete(child));
}

/**
 * Whether a process with this pid runs (a zombie, ended but not yet reaped by
 * its parent, does not). Reads /proc on Linux; elsewhere asks with signal 0.
 */
export function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (command) S ...": the state follows the last ")".
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && fs.existsSync("/proc/self/stat")) return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const SETPRIV = "/usr/bin/setpriv";

/**
 * Starts a test server (redis-server, mosquitto) that dies with this process
 * even when it is SIGKILLed (setpriv --pdeathsig where Linux has it), reaped
 * with its temp dir on exit, and whose last `keptLines` lines of output are
 * kept in `output` (for the error that says why it ended).
 */
export function spawnTestServer(
  program: string,
  args: readonly string[],
  dir: string,
  output: string[],
  keptLines: number,
): ChildProcessByStdio<null, Readable, Readable> {
  const child =
    process.platform === "linux" && fs.existsSync(SETPRIV)
      ? spawn(SETPRIV, ["--pdeathsig", "KILL", "--", program, ...args], { stdio: ["ignore", "pipe", "pipe"] })
      : spawn(program, args, { stdio: ["ignore", "pipe", "pipe"] });
  reapOnExit(child, dir);
  const keep = (data: Buffer) => {
    output.push(
      ...data
        .toString("utf8")
        .split("\n")
        .filter((line) => line.trim() !== ""),
    );
    output.splice(0, Math.max(0, output.length - keptLines));
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  return child;
}
