/**
 * The real Node-RED 4.1 editor for browser tests: a Node-RED runtime with this
 * package loaded from the repository, and headless Debian Chromium driven by
 * playwright-core.
 *
 * Node-RED runs in a child process (this same file, run as a script) rather
 * than inside the mocha process: its runtime is a process-wide singleton, and
 * the mocha process already holds another copy of it, set up and stubbed by
 * node-red-node-test-helper for the node tests. A child gets a clean runtime,
 * its own module cache and its own exit, so one suite can never leave state
 * behind for the next; it stops when the test process goes away because it
 * watches its stdin.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { startEmbeddedNodeRed } from "../../src/demo/embedded";
import { CHILD_ENV, CHILD_NODE_OPTIONS, PACKAGE_ROOT } from "./child-node";

/** The repository root, whether this file runs from source or compiled to dist/test/support/. */
export const packageRoot = PACKAGE_ROOT;
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Flags that keep Chromium off the network and away from first-run screens. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

export type FlowNode = Record<string, unknown> & { id: string; type: string };
/** Node-RED settings a test adds or replaces (adminAuth, lang), as JSON. */
export type ExtraSettings = Record<string, unknown>;
/** Credentials as Node-RED stores them with `credentialSecret: false`: by node id. */
export type FlowCredentials = Record<string, Record<string, string>>;

export interface RunningNodeRed {
  /** The editor's address, ending in "/". */
  url: string;
  /** The temporary user directory, holding flows.json and flows_cred.json. */
  userDir: string;
  /** What the Node-RED process printed so far (warnings and errors only). */
  output(): string;
  /** Stops Node-RED and removes the user directory. */
  stop(): Promise<void>;
}

const READY = "robot-fleet-editor-ready";
const FLOW_FILE = "flows.json";
const CREDENTIALS_FILE = "flows_cred.json";
const START_TIMEOUT_MS = 45_000;

/**
 * Starts Node-RED with `flows` (and their `credentials`) deployed, this
 * package loaded from the repository, and nothing that would cover the
 * editor (no tours, no telemetry or update-notification question).
 */
export function startNodeRed(flows: FlowNode[], credentials: FlowCredentials = {}, settings: ExtraSettings = {}): Promise<RunningNodeRed> {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-editor-"));
  fs.writeFileSync(path.join(userDir, FLOW_FILE), JSON.stringify(flows, null, 2));
  fs.writeFileSync(path.join(userDir, CREDENTIALS_FILE), JSON.stringify(credentials, null, 2));

  const child = spawn(process.execPath, [...CHILD_NODE_OPTIONS, __filename, userDir, JSON.stringify(settings)], {
    cwd: packageRoot,
    env: { ...process.env, ...CHILD_ENV },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let printed = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  return new Promise<RunningNodeRed>((resolve, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      fs.rmSync(userDir, { recursive: true, force: true });
      reject(new Error(`Node-RED ${reason}:\n${printed}`));
    };
    const timer = setTimeout(() => fail(`did not start within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    const exitedWhileStarting = (code: number | null) => fail(`exited with ${code} while starting`);
    child.once("exit", exitedWhileStarting);
    child.stderr.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    let started = false;
    child.stdout.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
      if (started) return;
      const ready = new RegExp(`${READY} (http://\\S+)\\n`).exec(printed);
      if (!ready) return;
      started = true;
      clearTimeout(timer);
      child.off("exit", exitedWhileStarting);
      printed = printed.replace(ready[0], "");
      resolve({ url: ready[1]!, userDir, output: () => printed, stop: () => stopChild(child, exited, userDir) });
    });
  });
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>, userDir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    // Node-RED closes its flows first; a hung close must not hang the suite.
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(killer);
  }
  fs.rmSync(userDir, { recursive: true, force: true });
}

/** The child's side: Node-RED embedded in an HTTP server on a free loopback port. */
async function runNodeRed(userDir: string, extra: ExtraSettings): Promise<void> {
  const nodeRed = await startEmbeddedNodeRed({
    // Loaded here only: the test process itself must never load this runtime. The compatibility run
    // (npm run compat) points at another Node-RED; see test/support/node-red.ts.
    module: process.env.ROBOT_FLEET_NODE_RED,
    host: "127.0.0.1",
    port: 0,
    settings: {
      userDir,
      // The package root, not nodes/: Node-RED then loads it as the module a
      // user installs (package.json's node-red section, its name in icon URLs).
      nodesDir: packageRoot,
      flowFile: FLOW_FILE,
      httpNodeRoot: "/api",
      // No palette manager: it would look for modules on the network.
      externalModules: { palette: { allowInstall: false } },
      logging: { console: { level: "warn", metrics: false, audit: false } },
      ...extra,
    },
  });

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await nodeRed.stop();
    // Also when the test process died and cannot clean up after us.
    fs.rmSync(userDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
  // The test process died without stopping us: its end of stdin closes.
  process.stdin.on("end", () => void stop());
  process.stdin.resume();
  process.stdout.write(`${READY} ${nodeRed.url}\n`);
}

if (require.main === module) {
  const userDir = process.argv[2];
  if (!userDir) throw new Error("usage: editor.js <userDir> [settings as JSON]");
  runNodeRed(userDir, JSON.parse(process.argv[3] ?? "{}") as ExtraSettings).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

export interface OpenEditor {
  page: Page;
  /** Uncaught script errors and console errors the page reported. */
  pageErrors: string[];
  /** Everything the page has received from Node-RED so far: HTTP bodies and websocket frames. */
  received(): Promise<Array<{ from: string; text: string }>>;
}

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH} (apt-get install chromium)`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** Opens the editor in a new page and waits until its palette, flows and toolbar are ready. */
export async function openEditor(browser: Browser, url: string): Promise<OpenEditor> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // Fail a step in seconds, not Playwright's default half minute.
  page.setDefaultTimeout(10_000);
  const pageErrors: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(message.text());
  });
  // Recorded from the first request on, so a secret in any answer is seen.
  const bodies: Array<Promise<{ from: string; text: string }>> = [];
  page.on("response", (response) => {
    bodies.push(
      response.text().then(
        (text) => ({ from: response.url(), text }),
        () => ({ from: response.url(), text: "" }),
      ),
    );
  });
  const frames: Array<{ from: string; text: string }> = [];
  page.on("websocket", (socket) => {
    socket.on("framereceived", (frame) => frames.push({ from: socket.url(), text: String(frame.payload) }));
  });
  await page.goto(url);
  await page.waitForFunction(
    () => {
      const progress = document.querySelector<HTMLElement>("#red-ui-loading-progress");
      const toolbar = document.querySelector<HTMLElement>(".red-ui-header-toolbar");
      return (
        progress !== null &&
        progress.style.display === "none" &&
        toolbar !== null &&
        toolbar.offsetParent !== null &&
        document.querySelector(".red-ui-palette-node[data-palette-type]") !== null
      );
    },
    undefined,
    { timeout: 30_000 },
  );
  return { page, pageErrors, received: async () => [...(await Promise.all(bodies)), ...frames] };
}

export interface EditorSession {
  nodeRed: RunningNodeRed;
  browser: Browser;
  editor: OpenEditor;
  page: Page;
}

/**
 * Mocha hooks for a suite on its own Node-RED and editor: started with
 * `flows` before the suite, stopped after it; the page of a failed test is
 * saved to the temp directory. The session's fields are set once `before` ran.
 */
export function useEditor(flows: FlowNode[], credentials: FlowCredentials = {}, settings: ExtraSettings = {}): EditorSession {
  const session = {} as EditorSession;
  before(async () => {
    session.nodeRed = await startNodeRed(flows, credentials, settings);
    session.browser = await launchChromium();
    session.editor = await openEditor(session.browser, session.nodeRed.url);
    session.page = session.editor.page;
  });
  after(async () => {
    await session.browser?.close();
    await session.nodeRed?.stop();
  });
  afterEach(async function () {
    if (this.currentTest?.state !== "failed" || !session.page) return;
    await session.page.screenshot({ path: path.join(os.tmpdir(), `editor-failed-${Date.now()}.png`) }).catch(() => undefined);
  });
  return session;
}
