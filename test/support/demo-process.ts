/**
 * Runs the README's start command (the demo) as a real child process on free
 * ports and reads the URLs it prints: `node dist/src/demo/start.js`, or all of
 * `npm start` as a service manager runs it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const root = path.resolve(__dirname, "../../..");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

export interface DemoUrls {
  editor: string;
  simulator: string;
  mqtt: string;
  /** npm start -- --shared: the second Node-RED's editor. */
  second?: string;
}

export interface RunningDemo {
  child: ChildProcess;
  urls: DemoUrls;
  /** Everything the process printed so far. */
  output(): string;
  /** Ctrl-C (or `signal`) to the child alone; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** After a failed test: SIGKILL to the child and, through npm, the demo it started. */
  kill(): void;
}

/** The figure of the demo's last line, "Stopped in N ms", undefined when it did not say it. */
export function stopFigureMs(output: string): number | undefined {
  const figure = /Stopped in (\d+) ms/.exec(output)?.[1];
  return figure === undefined ? undefined : Number(figure);
}

/**
 * Starts the demo on free ports; `env` may fix some (PORT, to watch the editor's port from the start); `args` e.g. ["--shared"].
 * Its flows go to a folder of its own, removed when it stops, unless `env` names one in DEMO_DIR (the caller's to remove).
 * `throughNpm` runs `npm start` (its build first, then the demo): the child is then npm, as a service manager's is.
 */
export function startDemo(env: Record<string, string> = {}, args: string[] = [], throughNpm = false): Promise<RunningDemo> {
  const shared = args.includes("--shared");
  const ownFolder = env.DEMO_DIR === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-demo-test-")) : undefined;
  const [command, commandArgs] = throughNpm
    ? [NPM, ["start", "--", ...args]]
    : [process.execPath, [path.join(root, "dist/src/demo/start.js"), ...args]];
  const child = spawn(command, commandArgs, {
    cwd: root,
    // Its own process group, so that kill() reaches the demo npm started too; stop() signals the child alone.
    detached: throughNpm,
    env: {
      ...process.env,
      PORT: "0",
      SIMULATOR_PORT: "0",
      MQTT_PORT: "0",
      // The demo's failing task starts would make its tests' jobs fail now and then.
      SIMULATOR_TASK_FAULT_RATE: "0",
      ...(shared ? { SECOND_PORT: "0", REDIS_PORT: "0" } : {}),
      ...(ownFolder ? { DEMO_DIR: ownFolder } : {}),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (ownFolder)
    child.once("exit", () => {
      try {
        fs.rmSync(ownFolder, { recursive: true, force: true });
      } catch {
        // npm ended and the demo it started still writes there (what a failing stop test reports): kill() ends the demo.
      }
    });
  let text = "";
  child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
  return new Promise((resolve, reject) => {
    // npm start builds first: with a built tree that is seconds, longer on a loaded machine.
    const timer = setTimeout(() => reject(new Error(`the demo did not start:\n${text}`)), throughNpm ? 120_000 : 45_000);
    child.once("exit", (code) => reject(new Error(`the demo exited with ${code}:\n${text}`)));
    const poll = setInterval(() => {
      // The banner is in the demo's language (--lang): each line is known by its English or its Chinese name.
      const editor = /(?:Node-RED editor|Node-RED 编辑器)\s+(http:\/\/\S+?)\/?\s/.exec(text)?.[1];
      const simulator = /(?:Robot simulator|机器人模拟器)\s+(http:\/\/\S+)/.exec(text)?.[1];
      const broker = /(?:MQTT broker|MQTT 代理)\s+(mqtt:\/\/\S+)/.exec(text)?.[1];
      const second = /(?:Second Node-RED|第二个 Node-RED)\s+(http:\/\/\S+?)\/?\s/.exec(text)?.[1];
      if (editor && simulator && broker && (second || !shared)) {
        clearInterval(poll);
        clearTimeout(timer);
        const stop = (signal: NodeJS.Signals = "SIGINT") =>
          new Promise<number | null>((resolveExit) => {
            child.once("exit", resolveExit);
            child.kill(signal);
          });
        const kill = () => {
          try {
            // npm's whole group: the demo may outlive npm.
            if (throughNpm) process.kill(-child.pid!, "SIGKILL");
            else if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
          } catch {
            // Nothing of it is left.
          }
        };
        resolve({ child, urls: { editor, simulator, mqtt: broker, ...(second ? { second } : {}) }, output: () => text, stop, kill });
      }
    }, 50);
  });
}
