/**
 * Runs the README's start command (the demo) as a real child process on free
 * ports and reads the URLs it prints.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const root = path.resolve(__dirname, "../../..");

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
  /** Ctrl-C; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the demo on free ports; `env` may fix some (PORT, to watch the editor's port from the start); `args` e.g. ["--shared"].
 * Its flows go to a folder of its own, removed when it stops, unless `env` names one in DEMO_DIR (the caller's to remove).
 */
export function startDemo(env: Record<string, string> = {}, args: string[] = []): Promise<RunningDemo> {
  const shared = args.includes("--shared");
  const ownFolder = env.DEMO_DIR === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-demo-test-")) : undefined;
  const child = spawn(process.execPath, [path.join(root, "dist/src/demo/start.js"), ...args], {
    cwd: root,
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
  if (ownFolder) child.once("exit", () => fs.rmSync(ownFolder, { recursive: true, force: true }));
  let text = "";
  child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the demo did not start:\n${text}`)), 45_000);
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
        const stop = () =>
          new Promise<number | null>((resolveExit) => {
            child.once("exit", resolveExit);
            child.kill("SIGINT");
          });
        resolve({ child, urls: { editor, simulator, mqtt: broker, ...(second ? { second } : {}) }, output: () => text, stop });
      }
    }, 50);
  });
}
