/**
 * Child processes a test starts (redis-server, Node-RED runtimes) must not
 * outlive the test process. Each is registered here and SIGKILLed when the
 * test process exits (mocha --exit, an uncaught error) or is ended by SIGINT,
 * SIGTERM or SIGHUP. A SIGKILLed test process runs no handler: for that,
 * redis-server is started under setpriv --pdeathsig (redis-server.ts) and a
 * Node-RED child ends itself when its IPC channel closes
 * (node-red-instance-child.ts).
 */
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";

const live = new Set<ChildProcess>();
let installed = false;

function killAll(): void {
  for (const child of live) {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
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

/** Kills `child` with SIGKILL if it is still running when this process ends. */
export function reapOnExit(child: ChildProcess): void {
  install();
  if (child.exitCode !== null || child.signalCode !== null) return;
  live.add(child);
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
