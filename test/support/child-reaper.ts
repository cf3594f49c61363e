/**
 * Child processes a test starts (redis-server, Node-RED runtimes) must not
 * outlive the test process. Each is registered here and SIGKILLed when the
 * test process exits (mocha --exit, an uncaught error) or is ended by SIGINT,
 * SIGTERM or SIGHUP, and the temp dir it was given is removed then. A
 * SIGKILLed test process runs no handler: for that,
 * redis-server is started under setpriv --pdeathsig (redis-server.ts) and a
 * Node-RED child ends itself when its IPC channel closes
 * (node-red-instance-child.ts).
 */
import type { ChildProcess } from "node:child_process";
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
