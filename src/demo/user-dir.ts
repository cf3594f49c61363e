/**
 * The demo's Node-RED user directory: a lasting folder (DEMO_DIR, else
 * ~/.node-red-robot-fleet-demo) with this package installed as npm links a
 * local folder, so the flows a user changes in the demo are there at the next
 * start. The example flows are written the first time, and again on
 * `--fresh`, which first saves the flows it replaces beside them.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FlowNode } from "./flows";

export const packageRoot = path.resolve(__dirname, "../../..");
const packageName = (JSON.parse(fs.readFileSync(path.join(packageRoot, "package.json"), "utf8")) as { name: string }).name;

/** Where the demo keeps its flows: DEMO_DIR, else a folder in the user's home. */
export function demoFolder(): string {
  return path.resolve(process.env.DEMO_DIR || path.join(os.homedir(), ".node-red-robot-fleet-demo"));
}

export interface PreparedUserDir {
  userDir: string;
  /** True when the flows of an earlier run were kept. */
  kept: boolean;
  /** Where --fresh saved the flows it replaced. */
  savedAs?: string;
}

/** What the demo sets in its own config nodes at every start: the running simulator's URL, the broker's port, the Redis URL. */
const DEMO_OWNED = { "robot-config": ["baseUrl", "redisUrl", "redisPrefix"], "mqtt-broker": ["broker", "port"] } as const;

function linkPackage(userDir: string): void {
  const link = path.join(userDir, "node_modules", packageName);
  fs.mkdirSync(path.dirname(link), { recursive: true });
  if (fs.existsSync(link)) return;
  fs.rmSync(link, { force: true });
  fs.symlinkSync(packageRoot, link, "dir");
}

/**
 * Makes `userDir` ready: the package linked in; the example flows and their
 * credentials written when there are no flows yet or `fresh` asks for them
 * (the old flows saved beside first); else the user's flows kept, with only
 * the demo's own config nodes pointed at this run's simulator, broker and Redis.
 */
export function prepareUserDir(userDir: string, flows: FlowNode[], credentials: unknown, fresh: boolean): PreparedUserDir {
  fs.mkdirSync(userDir, { recursive: true });
  linkPackage(userDir);
  const flowFile = path.join(userDir, "flows.json");
  const credentialFile = path.join(userDir, "flows_cred.json");
  if (fs.existsSync(flowFile) && !fresh) {
    const built = new Map(flows.map((node) => [node.id, node]));
    const kept = (JSON.parse(fs.readFileSync(flowFile, "utf8")) as FlowNode[]).map((node) => {
      const owned = (DEMO_OWNED as Record<string, readonly string[]>)[node.type];
      const now = built.get(node.id);
      if (!owned || !now) return node;
      const updated: FlowNode = { ...node };
      for (const key of owned) {
        if (key in now) updated[key] = now[key];
        else delete updated[key];
      }
      return updated;
    });
    fs.writeFileSync(flowFile, JSON.stringify(kept, null, 2));
    return { userDir, kept: true };
  }
  let savedAs: string | undefined;
  if (fs.existsSync(flowFile)) {
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    savedAs = path.join(userDir, `flows.backup-${stamp}.json`);
    fs.renameSync(flowFile, savedAs);
    if (fs.existsSync(credentialFile)) fs.renameSync(credentialFile, path.join(userDir, `flows_cred.backup-${stamp}.json`));
  }
  fs.writeFileSync(flowFile, JSON.stringify(flows, null, 2));
  fs.writeFileSync(credentialFile, JSON.stringify(credentials, null, 2));
  return { userDir, kept: false, ...(savedAs ? { savedAs } : {}) };
}

/**
 * The second instance's folder (npm start -- --shared), inside the first's:
 * the first's flows as `transform` makes them, with its credentials and the
 * key they are encrypted with (Node-RED keeps it in .config.runtime.json), so
 * both instances read the same secrets.
 */
export function prepareSecondUserDir(first: string, transform: (flows: FlowNode[]) => FlowNode[]): string {
  const userDir = path.join(first, "second-instance");
  fs.mkdirSync(userDir, { recursive: true });
  linkPackage(userDir);
  const flows = JSON.parse(fs.readFileSync(path.join(first, "flows.json"), "utf8")) as FlowNode[];
  fs.writeFileSync(path.join(userDir, "flows.json"), JSON.stringify(transform(flows), null, 2));
  for (const file of ["flows_cred.json", ".config.runtime.json"]) {
    if (fs.existsSync(path.join(first, file))) fs.copyFileSync(path.join(first, file), path.join(userDir, file));
  }
  return userDir;
}

/**
 * The language the demo's Node-RED runs in: `--lang zh-CN` (or `--lang=zh-CN`), else DEMO_LANG (how the
 * second instance is told), else Node-RED's own choice (the environment's locale).
 */
export function demoLanguage(argv: readonly string[] = process.argv): string | undefined {
  const index = argv.findIndex((arg) => arg === "--lang" || arg.startsWith("--lang="));
  const given = index < 0 ? process.env.DEMO_LANG : argv[index]!.includes("=") ? argv[index]!.slice("--lang=".length) : argv[index + 1];
  return given === undefined || given === "" ? undefined : given;
}

/** The embedded Node-RED settings of a demo instance. */
export function demoSettings(userDir: string): Record<string, unknown> {
  const lang = demoLanguage();
  return {
    userDir,
    // Relative: Node-RED takes it from the working folder when one is there, so each instance runs in its own folder.
    flowFile: "flows.json",
    ...(lang ? { lang } : {}),
    // Flows serve pages at the editor's port, as in a default Node-RED (the fleet-page example at /fleet).
    httpNodeRoot: "/",
    // A store in the lasting folder, as a real installation would have: open alarms, their acknowledgements, jobs and the
    // reports already sent on outlive a restart of the demo, and a restart does not send the seeded reports again.
    contextStorage: { default: { module: "localfilesystem" } },
    logging: { console: { level: "info", metrics: false, audit: false } },
  };
}
