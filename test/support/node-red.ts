/**
 * Runs flows in real Node-RED through node-red-node-test-helper. Catch nodes
 * only work with a tab and `z` on every node, so flows built here always have
 * both.
 */
import { robotDirectoryOf } from "../../src/api/account/robot-directory";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import helper from "node-red-node-test-helper";
import type { Node, NodeMessage } from "node-red";
import robotConfig from "../../src/nodes/robot-config/robot-config";
import { SERIAL } from "./fixtures";
import { useRecordingServer, type RecordingServer, type Responder } from "./recording-server";

// Node-RED's own Catch and Status nodes, so tests can watch what a flow author would.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const catchNode = require("@node-red/nodes/core/common/25-catch.js") as NodeModule;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const statusNode = require("@node-red/nodes/core/common/25-status.js") as NodeModule;

/** The Node-RED under test: this repository's (4.1), or another one's for the compatibility run (npm run compat). */
export const NODE_RED_PATH = process.env.ROBOT_FLEET_NODE_RED
  ? require.resolve(process.env.ROBOT_FLEET_NODE_RED)
  : require.resolve("node-red");

helper.init(NODE_RED_PATH);

/** Node-RED's runtime events (of the Node-RED under test), where node statuses go on their way to the editor ("node-status"). */
const nodeRedUtil = require.resolve("@node-red/util", { paths: [path.dirname(NODE_RED_PATH)] });
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const runtimeEvents = (require(nodeRedUtil) as { events: NodeJS.EventEmitter }).events;

/** Node-RED 5 registers its own Catch and Status nodes in the test helper; 4.1 needs them loaded. */
const NODE_RED_MAJOR = Number(
  (JSON.parse(fs.readFileSync(path.join(path.dirname(NODE_RED_PATH), "..", "package.json"), "utf8")) as { version: string }).version.split(
    ".",
  )[0],
);
const CORE_NODES = NODE_RED_MAJOR >= 5 ? [] : [catchNode, statusNode];
/** Node-RED's own nodes that test flows and the examples use, by the name of their type. */
const CORE_NODE_FILES = {
  inject: "common/20-inject.js",
  comment: "common/90-comment.js",
  complete: "common/24-complete.js",
  function: "function/10-function.js",
  change: "function/15-change.js",
  split: "sequence/17-split.js",
} as const;

/** The modules of those core nodes, to pass to loadFlow. */
export function coreNodes(...types: Array<keyof typeof CORE_NODE_FILES>): NodeModule[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- Node-RED's core nodes are plain CommonJS modules
  return types.map((type) => require(`@node-red/nodes/core/${CORE_NODE_FILES[type]}`) as NodeModule);
}

/** The core Complete node, for a test to load where Node-RED does not already have it (4.1). */
export const COMPLETE_NODE: NodeModule[] = NODE_RED_MAJOR >= 5 ? [] : coreNodes("complete");

export { helper };

export const TAB = "tab1";
export const TEST_TOKEN = "test-token-5c1d9e";

export type FlowNode = Record<string, unknown> & { id: string; type: string };
type NodeModule = (RED: never) => void;

/** A tab, a robot-config node pointing at `baseUrl`, and the given nodes, each placed on the tab. */
export function flowWith(baseUrl: string, nodes: FlowNode[], config: Record<string, unknown> = {}): FlowNode[] {
  return [
    { id: TAB, type: "tab", label: "test" },
    { id: "config", type: "robot-config", z: TAB, baseUrl, timeout: 5, maxRetries: 2, authMode: "token", ...config },
    ...nodes.map((node) => ({ z: TAB, ...node })),
  ];
}

/**
 * Loads the flow with robot-config, Catch, Status plus `modules`; credentials default to a bearer token for "config".
 * Resolves once each robot-config's first read of the robot list (its robot directory) is in: a test's
 * calls come after it, in an order that does not depend on the machine's speed (isDirectoryRead tells it apart).
 */
export async function loadFlow(
  modules: NodeModule[],
  flow: FlowNode[],
  credentials: Record<string, Record<string, string>> = { config: { token: TEST_TOKEN } },
): Promise<void> {
  await helper.load([robotConfig as NodeModule, ...CORE_NODES, ...modules] as never, flow, credentials);
  for (const node of flow.filter((each) => each.type === "robot-config")) {
    const config = helper.getNode(node.id) as unknown as { robot?: { client?: { accountKey: string } } } | null;
    const accountKey = config?.robot?.client?.accountKey;
    if (accountKey) await robotDirectoryOf(accountKey).settled();
  }
}

/** Whether a recorded request is a read of the account's robot list (what a robot-config's directory reads at its start). */
export function isDirectoryRead(request: { method: string; path: string }): boolean {
  return request.method === "GET" && /^\/v1alpha1\/robots(\?|$)/.test(request.path);
}

type Message = NodeMessage & Record<string, unknown>;

/**
 * One permanent input listener per node fans messages out to the tests'
 * listeners. Node-RED's input loop skips the remaining listeners when a
 * once-listener removes itself mid-loop, so tests never register their own.
 */
const listenersOf = new WeakMap<object, Set<(msg: Message) => void>>();
function listen(id: string, listener: (msg: Message) => void): () => void {
  const node = helper.getNode(id);
  let listeners = listenersOf.get(node);
  if (!listeners) {
    const created = new Set<(msg: Message) => void>();
    node.on("input", (msg: Message) => {
      for (const each of [...created]) each(msg);
    });
    listenersOf.set(node, created);
    listeners = created;
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Resolves with the next message that arrives at the helper node `id`. */
export function nextMessage(id: string): Promise<Message> {
  return new Promise((resolve) => {
    const stop = listen(id, (msg) => {
      stop();
      resolve(msg);
    });
  });
}

/** Collects every message that arrives at the helper node `id`, until the test reads the array. */
export function collectMessages(id: string): Message[] {
  const messages: Message[] = [];
  listen(id, (msg) => messages.push(msg));
  return messages;
}

/** Waits until `predicate` holds, polling; fails after `ms`. */
export async function waitFor(predicate: () => boolean, ms = 5000, what = "condition"): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Records every status a node shows. */
export function recordStatuses(id: string): Array<{ fill?: string; shape?: string; text?: string }> {
  const statuses: Array<{ fill?: string; shape?: string; text?: string }> = [];
  const node = helper.getNode(id) as Node & { status: (s: object) => void };
  const original = node.status.bind(node);
  node.status = (status: object) => {
    statuses.push(status);
    original(status);
  };
  return statuses;
}

/** Records every warning a node writes to the log (a config node's too). */
export function recordWarnings(id: string): string[] {
  const warnings: string[] = [];
  const node = helper.getNode(id);
  const original = node.warn.bind(node);
  node.warn = (text: unknown) => {
    warnings.push(String(text));
    original(text);
  };
  return warnings;
}

/** The catch and helper nodes most tests wire after the nodes under test: outputs at "out", errors at "caught". */
export function outputsAndCatch(...sourceIds: string[]): FlowNode[] {
  return [
    { id: "out", type: "helper" },
    { id: "catch-errors", type: "catch", scope: sourceIds, uncaught: false, wires: [["caught"]] },
    { id: "caught", type: "helper" },
  ];
}

/**
 * The hooks every node test file needs: one recording server on loopback for
 * the file, reset before each test (answering with `responder`), and Node-RED
 * started before and unloaded after each test.
 */
export function useRecordingServerAndNodeRed(responder?: Responder): { readonly server: RecordingServer } {
  const stub = useRecordingServer();
  if (responder) beforeEach(() => stub.server.respondWith(responder));
  useNodeRed();
  return stub;
}

/** A fresh test-helper Node-RED for each test of the suite, unloaded after it. */
export function useNodeRed(): void {
  beforeEach((done) => {
    helper.startServer(done);
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
  });
}

/**
 * Sends `msg` to node `id` and resolves with what follows: the message at the
 * helper node "out", or the error at "caught" (see outputsAndCatch).
 */
export async function outcomeOf(id: string, msg: Record<string, unknown>): Promise<{ output?: Message; caught?: Message }> {
  const output = nextMessage("out").then((m) => ({ output: m }));
  const caught = nextMessage("caught").then((m) => ({ caught: m }));
  helper.getNode(id).receive(msg);
  return Promise.race([output, caught]);
}

/**
 * Sends `msg` to node `id` and checks it was refused as bad input the way a
 * flow author needs: one error at the Catch node, coded INVALID_INPUT, whose
 * message matches `expected` (the field named), the message's other properties
 * kept, a red status, and nothing sent to `server`. Returns the caught message.
 */
export async function expectInvalidInput(
  id: string,
  msg: Record<string, unknown>,
  expected: RegExp,
  server: RecordingServer,
): Promise<Message & { error: { message: string; code: string; source: { id: string } } }> {
  const statuses = recordStatuses(id);
  const { caught, output } = await outcomeOf(id, { ...msg, topic: "keep-me" });
  assert.equal(output, undefined, "no output");
  assert.ok(caught, "an error at the Catch node");
  const error = caught.error as { message: string; code: string; source: { id: string } };
  assert.match(error.message, expected);
  assert.equal(error.code, "INVALID_INPUT");
  assert.equal(error.source.id, id);
  assert.equal(caught.topic, "keep-me");
  assert.equal(server.requests.filter((request) => !isDirectoryRead(request)).length, 0, "nothing was sent");
  assert.deepEqual(statuses.at(-1), { fill: "red", shape: "ring", text: "INVALID_INPUT" });
  return caught as Message & { error: typeof error };
}

/** A bad input: what it is, the node's settings, the message, what the error must say, and optionally the field it names. */
export type BadInput = [label: string, settings: Record<string, unknown>, msg: Record<string, unknown>, expected: RegExp, field?: string];

/**
 * One test per bad input: node `id`, loaded with its settings, refuses the
 * message as expectInvalidInput checks; where a field is given, the error's
 * text names it ("field: ...").
 */
export function itRefusesEachBadInput(
  id: string,
  badInputs: BadInput[],
  load: (settings: Record<string, unknown>) => Promise<void>,
  stub: { readonly server: RecordingServer },
): void {
  for (const [label, settings, msg, expected, field] of badInputs) {
    it(`reports ${label} to a Catch node, naming the field, and sends nothing`, async () => {
      await load(settings);
      const { error } = await expectInvalidInput(id, msg, expected, stub.server);
      if (field) assert.ok(error.message.includes(`${field}: `), `${error.message} names ${field}`);
    });
  }
}

/**
 * The test every robot node passes: node `id`, loaded by `load`, answers a
 * message keeping its other properties, shows "requesting" first, and shows
 * the token neither in its output nor in its statuses.
 */
export function itKeepsTheMessageAndHidesTheToken(id: string, load: () => Promise<void>): void {
  it("keeps the message's other properties, shows progress, and never shows the token", async () => {
    await load();
    const statuses = recordStatuses(id);
    const { output } = await outcomeOf(id, { payload: 1, topic: "floor/1", _msgid: "fixed-id", _custom: { a: 1 }, serialNumber: SERIAL });
    assert.ok(output, "an output");
    assert.equal(output.topic, "floor/1");
    assert.equal(output._msgid, "fixed-id");
    assert.deepEqual(output._custom, { a: 1 });
    assert.equal(output.serialNumber, SERIAL);
    assert.deepEqual(statuses[0], { fill: "blue", shape: "dot", text: "requesting" });
    assert.ok(!JSON.stringify([output, statuses]).includes(TEST_TOKEN));
  });
}

/**
 * Loads an example flow from examples/ on one tab, its robot-config pointed
 * at `baseUrl` with `token`; debug nodes become helper nodes, so a test sees
 * what the sidebar would show.
 */
export async function loadExampleFlow(example: FlowNode[], modules: NodeModule[], baseUrl: string, token: string): Promise<void> {
  const config = example.find((node) => node.type === "robot-config");
  assert.ok(config, "the example brings its robot-config");
  const flow: FlowNode[] = [
    { id: TAB, type: "tab", label: "example" },
    ...example.map((node) => ({
      ...node,
      z: TAB,
      ...(node.type === "debug" ? { type: "helper" } : {}),
      ...(node.type === "robot-config" ? { baseUrl } : {}),
    })),
  ];
  await loadFlow(modules, flow, { [config.id]: { token } });
}
