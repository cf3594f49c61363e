/**
 * 100 redeploys under load: each generation of robot-command, robot-site-task
 * and robot-maps gets a burst of messages against a slow cloud (so calls are
 * queued and on the wire), then is replaced by helper.setFlows (mostly a
 * "modified nodes" deploy, where the helper and Catch nodes keep running; now
 * and then "flows" or "full", and now and then a changed robot-config).
 *
 * Nothing of a closed node may reach a running one: no send() and no error
 * (done(err) reports through node.error, which a Catch node of the running flow
 * would receive) after its close began; every message that arrives at the
 * output or the Catch node was sent before its node closed; no queued call of a
 * closed node is put on the wire afterwards. Each close completes in under 1 s,
 * and each node that abandoned messages says how many in one info log line.
 */
import assert from "node:assert/strict";
import robotCommand from "../../src/nodes/robot-command/robot-command";
import robotMaps from "../../src/nodes/robot-maps/robot-maps";
import robotSiteTask from "../../src/nodes/robot-site-task/robot-site-task";
import type { RecordedRequest, ScriptedReply } from "../support/recording-server";
import { RecordingServer } from "../support/recording-server";
import { TEST_TOKEN, flowWith, helper, loadFlow, waitFor, type FlowNode } from "../support/node-red";
import { seeded, type Rng, between } from "../support/seeded";

type Msg = Record<string, unknown> & { _msgid?: string };
type RobotNodeId = "cmd" | "site" | "maps";
const ROBOT_NODES: RobotNodeId[] = ["cmd", "site", "maps"];
const GRANT_PATH = "/gas/api/v1alpha1/oauth/token";
const CONNECTIONS = 4;
/** Node-RED's log levels (the helper's log spy carries them, its type does not). */
const LOG = { WARN: 30, INFO: 40 };
const ABANDONED_LINE = /^closed with (\d+) messages? under way: abandoned/;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The generation a request belongs to: its serial number is "G<generation>-<n>". */
function generationOf(request: RecordedRequest): number | undefined {
  const match = /G(\d+)-\d+/.exec(`${request.path} ${request.rawBody}`);
  return match ? Number(match[1]) : undefined;
}

/** A slow cloud: every answer after 50-200 ms, one in ten an error. */
function slowCloud(rng: Rng, grantDelay: (request: RecordedRequest) => number = () => 0) {
  return (request: RecordedRequest): ScriptedReply => {
    if (request.path === GRANT_PATH) return { delayMs: grantDelay(request), body: { access_token: `granted-${request.at.toFixed(3)}`, expires_in: 86_400 } };
    const delayMs = between(rng, 50, 200);
    const fail = rng() < 0.1;
    if (request.path.endsWith("/commands")) {
      return fail
        ? { delayMs, status: 500, body: { code: 13, message: "busy" } }
        : { delayMs, body: { name: "robots/x/commands/1", state: "WAITING", rawCommandType: "resume_task" } };
    }
    if (request.path.endsWith("/status")) return fail ? { delayMs, status: 500, body: { code: 13, message: "busy" } } : { delayMs, body: { taskState: "IDLE" } };
    if (request.path === "/openapi/v1/map/robotMap/list") {
      return { delayMs, body: fail ? { code: 13, msg: "busy", data: [] } : { code: 0, msg: "SUCCESS", data: [{ mapId: "m", mapName: "Floor 1" }] } };
    }
    return { status: 404, body: { code: 5, message: "no such path" } };
  };
}

/** What one generation of nodes did, as seen from outside them. */
interface Generation {
  number: number;
  received: Record<RobotNodeId, number>;
  /** Messages ended (send or error) while the node was open. */
  ended: Record<RobotNodeId, number>;
  closed: Record<RobotNodeId, boolean>;
  /** Messages still under way when each node's close began. */
  underWayAtClose: Partial<Record<RobotNodeId, number>>;
}

const newGeneration = (number: number): Generation => ({
  number,
  received: { cmd: 0, site: 0, maps: 0 },
  ended: { cmd: 0, site: 0, maps: 0 },
  closed: { cmd: false, site: false, maps: false },
  underWayAtClose: {},
});

/** Watches every generation's nodes and what arrives at the helpers. */
class Watch {
  readonly generations: Generation[] = [];
  /** _msgid of every message a node sent or reported an error for while it was open. */
  readonly endedWhileOpen = new Set<string>();
  readonly violations: string[] = [];
  readonly closeMs: Array<{ node: string; ms: number }> = [];
  /** When each close began (performance.now(), the clock of the recording server's `at`). */
  readonly closeStarts: Array<{ node: string; at: number }> = [];
  readonly outputs: Msg[] = [];
  readonly caught: Msg[] = [];
  private readonly watched = new WeakSet<object>();

  /** Wraps send, error and close of this generation's robot nodes (and of the config node and helpers when they are new). */
  watchGeneration(generation: Generation): void {
    this.generations.push(generation);
    for (const id of ROBOT_NODES) this.watchRobotNode(id, generation);
    this.watchClose("config");
    this.watchArrivals("out", this.outputs);
    this.watchArrivals("caught", this.caught);
  }

  private watchRobotNode(id: RobotNodeId, generation: Generation): void {
    const node = helper.getNode(id) as unknown as {
      send(msg: Msg): void;
      error(error: unknown, msg?: Msg): void;
      close(removed: boolean): Promise<void>;
    };
    assert.ok(!this.watched.has(node), `${id} of generation ${generation.number} is a new node`);
    this.watched.add(node);
    const send = node.send.bind(node);
    const error = node.error.bind(node);
    const ended = (msg: Msg | undefined, how: string) => {
      if (generation.closed[id]) {
        this.violations.push(`${id} of generation ${generation.number} called ${how} after its close began`);
        return;
      }
      generation.ended[id]++;
      if (msg?._msgid) this.endedWhileOpen.add(msg._msgid);
    };
    node.send = (msg) => {
      ended(msg, "send()");
      send(msg);
    };
    node.error = (reason, msg) => {
      ended(msg, `error(${String(reason)})`);
      error(reason, msg);
    };
    this.wrapClose(node, id, () => {
      generation.closed[id] = true;
      generation.underWayAtClose[id] = generation.received[id] - generation.ended[id];
    });
  }

  private watchClose(id: string): void {
    const node = helper.getNode(id) as unknown as { close(removed: boolean): Promise<void> };
    if (this.watched.has(node)) return;
    this.watched.add(node);
    this.wrapClose(node, id, () => {});
  }

  private wrapClose(node: { close(removed: boolean): Promise<void> }, id: string, onClose: () => void): void {
    const close = node.close.bind(node);
    node.close = async (removed) => {
      const started = performance.now();
      this.closeStarts.push({ node: id, at: started });
      onClose();
      await close(removed);
      this.closeMs.push({ node: id, ms: performance.now() - started });
    };
  }

  private watchArrivals(id: string, into: Msg[]): void {
    const node = helper.getNode(id);
    if (this.watched.has(node)) return;
    this.watched.add(node);
    node.on("input", (msg: Msg) => {
      into.push(msg);
      if (!msg._msgid || !this.endedWhileOpen.has(msg._msgid)) {
        this.violations.push(`a message of generation ${String(msg.generation)} arrived at ${id} but was not sent by an open node`);
      }
    });
  }
}

/** The flow of one generation: the robot nodes are renamed each time (so a "modified nodes" deploy replaces them). */
function flowOf(serverUrl: string, generation: number, configVersion: number, config: Record<string, unknown>): FlowNode[] {
  const common = { name: `generation ${generation}`, robot: "config", serialNumber: "set-by-msg", serialNumberType: "str", wires: [["out"]] };
  return flowWith(
    serverUrl,
    [
      { id: "cmd", type: "robot-command", command: "RESUME_TASK", burst: "all", ...common },
      { id: "site", type: "robot-site-task", operation: "status", ...common },
      { id: "maps", type: "robot-maps", operation: "listMaps", mapId: "", mapIdType: "str", ...common },
      { id: "out", type: "helper" },
      { id: "catch-errors", type: "catch", scope: ROBOT_NODES, uncaught: false, wires: [["caught"]] },
      { id: "caught", type: "helper" },
    ],
    { name: `account v${configVersion}`, rateLimit: 0, connections: CONNECTIONS, maxRetries: 0, ...config },
  );
}

/** Sends `count` messages, spread over the three nodes, each marked with its generation. */
function burst(generation: Generation, count: number, rng: Rng): void {
  for (let i = 0; i < count; i++) {
    const id = ROBOT_NODES[between(rng, 0, 2)]!;
    generation.received[id]++;
    helper.getNode(id).receive({ payload: i, serialNumber: `G${generation.number}-${i}`, generation: generation.number });
  }
}

/** Log entries written since `from` (an index into the helper's log spy). */
function logSince(from: number): Array<{ level: number; id?: string; msg?: unknown }> {
  return helper
    .log()
    .getCalls()
    .slice(from)
    .map((call) => call.args[0] as { level: number; id?: string; msg?: unknown });
}

interface RunOptions {
  generations: number;
  perBurst: number;
  /** Longest wait between a burst and the next deploy. */
  maxWaitMs: number;
  seed: number;
  config: Record<string, unknown>;
  credentials: Record<string, string>;
  /** The robot-config changes (so it closes and a new one starts) every this many generations. */
  configEvery: number;
  grantDelay?: (request: RecordedRequest) => number;
}

/** Deploys generation 0, then `generations` more, each after a burst; checks each close as it happens. */
async function redeployUnderLoad(server: RecordingServer, options: RunOptions) {
  const rng = seeded(options.seed);
  server.respondWith(slowCloud(rng, options.grantDelay));
  const watch = new Watch();
  const credentials = { config: options.credentials };
  let configVersion = 0;
  await loadFlow([robotCommand, robotSiteTask, robotMaps], flowOf(server.url, 0, configVersion, options.config), credentials);
  let current = newGeneration(0);
  watch.watchGeneration(current);
  const deployTypes: string[] = [];
  const logProblems: string[] = [];
  const logStart = helper.log().callCount;

  for (let number = 1; number <= options.generations; number++) {
    burst(current, options.perBurst, rng);
    await pause(between(rng, 0, options.maxWaitMs));
    const roll = rng();
    const type = roll < 0.8 ? "nodes" : roll < 0.9 ? "flows" : "full";
    const configChanges = number % options.configEvery === 0;
    if (configChanges) configVersion++;
    deployTypes.push(`${type}${configChanges ? "+config" : ""}`);
    const logFrom = helper.log().callCount;
    const closesBefore = watch.closeMs.length;
    await helper.setFlows(flowOf(server.url, number, configVersion, options.config), type, credentials);
    // Fail at the first slow close rather than after a hundred of them.
    const slow = watch.closeMs.slice(closesBefore).find((close) => close.ms >= 1000);
    assert.equal(slow, undefined, `closing ${slow?.node ?? ""} of generation ${current.number} took ${slow?.ms.toFixed(0) ?? ""} ms`);
    assert.ok(
      ROBOT_NODES.every((id) => current.closed[id]),
      `every node of generation ${current.number} was closed by the ${type} deploy`,
    );

    // Each node of the closed generation logged how many of its messages it abandoned, at info level, once.
    const entries = logSince(logFrom);
    for (const id of ROBOT_NODES) {
      const expected = current.underWayAtClose[id];
      const lines = entries.filter((entry) => entry.id === id && ABANDONED_LINE.test(String(entry.msg)));
      const said = lines.map((entry) => `${Number(ABANDONED_LINE.exec(String(entry.msg))![1])} at level ${entry.level}`);
      const wanted = expected ? [`${expected} at level ${LOG.INFO}`] : [];
      if (said.join() !== wanted.join()) logProblems.push(`generation ${current.number} ${id}: logged [${said.join("; ")}], expected [${wanted.join()}]`);
    }
    current = newGeneration(number);
    watch.watchGeneration(current);
  }

  // The last generation answers a whole burst: the engine still works after all those closes.
  const before = watch.outputs.length + watch.caught.length;
  burst(current, options.perBurst, rng);
  await waitFor(() => watch.outputs.length + watch.caught.length >= before + options.perBurst, 20_000, "the last generation's answers");
  // Anything a closed node would still send gets the time to show.
  await pause(300);
  return { watch, deployTypes, logProblems, logStart, last: current };
}

describe("redeploy under load: nothing of a closed node reaches a running one", function () {
  this.timeout(60_000);
  let server: RecordingServer;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  before(async () => {
    server = await new RecordingServer().start();
  });
  after(async () => {
    await server.stop();
  });
  beforeEach((done) => {
    server.reset();
    unhandled.length = 0;
    process.on("unhandledRejection", onUnhandled);
    helper.startServer(done);
  });
  afterEach(async () => {
    process.off("unhandledRejection", onUnhandled);
    await helper.unload();
    await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
  });

  /** The checks every run must pass. */
  function assertQuietCloses(result: Awaited<ReturnType<typeof redeployUnderLoad>>, perBurst: number, inFlightShare: number) {
    const { watch, logProblems, logStart, last } = result;
    assert.deepEqual(watch.violations.slice(0, 10), [], `${watch.violations.length} deliveries from closed nodes`);
    assert.deepEqual(logProblems.slice(0, 10), [], `${logProblems.length} closes without the right log line`);

    // Only the cloud's own errors reach the Catch node: an abandoned call ends quietly.
    const codes = new Set(watch.caught.map((msg) => (msg.error as { code?: string }).code));
    assert.deepEqual([...codes].filter((code) => code !== "INTERNAL"), [], "no ABORTED, TypeError or other error from a close");

    // Every close completed well within Node-RED's patience, and under the 1 s the issue asks.
    const slowest = watch.closeMs.reduce((max, close) => (close.ms > max.ms ? close : max), { node: "", ms: 0 });
    assert.ok(slowest.ms < 1000, `the slowest close (${slowest.node}) took ${slowest.ms.toFixed(1)} ms`);

    // No queued call of a closed generation went on the wire: each generation's requests are its answered
    // messages plus at most the calls already on the wire when it closed.
    const requests = new Map<number, number>();
    for (const request of server.requests) {
      const generation = generationOf(request);
      if (generation !== undefined) requests.set(generation, (requests.get(generation) ?? 0) + 1);
    }
    const overSent: string[] = [];
    let inFlightAtClose = 0;
    for (const generation of watch.generations.slice(0, -1)) {
      const answered = ROBOT_NODES.reduce((sum, id) => sum + generation.ended[id], 0);
      const sent = requests.get(generation.number) ?? 0;
      if (sent > answered + CONNECTIONS) overSent.push(`generation ${generation.number}: ${sent} requests for ${answered} answered messages`);
      if (sent > answered) inFlightAtClose++;
    }
    assert.deepEqual(overSent, [], "queued calls of closed nodes were sent");
    assert.equal(requests.get(last.number), perBurst, "the running generation sent all of its burst");

    // The runs really did abandon queued and in-flight calls.
    const abandoned = watch.generations.reduce((sum, g) => sum + Object.values(g.underWayAtClose).reduce((a, b) => a + b, 0), 0);
    const received = watch.generations.slice(0, -1).reduce((sum, g) => sum + ROBOT_NODES.reduce((a, id) => a + g.received[id], 0), 0);
    assert.ok(abandoned >= received / 2, `${abandoned} of ${received} messages were under way at a close`);
    assert.ok(inFlightAtClose >= (watch.generations.length - 1) * inFlightShare, `${inFlightAtClose} generations closed with a call on the wire`);

    // Nothing logged as a warning or an error, and no unhandled rejection.
    const loud = logSince(logStart).filter((entry) => entry.level <= LOG.WARN);
    assert.deepEqual(loud.map((entry) => `${entry.id ?? ""}: ${String(entry.msg)}`), []);
    assert.deepEqual(unhandled.map(String), []);
    return { abandoned, received, inFlightAtClose, slowest };
  }

  it("100 redeploys of three nodes, 50 messages each against a cloud answering in 50-200 ms", async () => {
    const result = await redeployUnderLoad(server, {
      generations: 100,
      perBurst: 50,
      maxWaitMs: 150,
      seed: 11,
      configEvery: 10,
      config: { authMode: "token" },
      credentials: { token: TEST_TOKEN },
    });
    assertQuietCloses(result, 50, 0.5);
    assert.ok(result.deployTypes.some((type) => type.startsWith("full")) && result.deployTypes.some((type) => type.startsWith("flows")));
  });

  it("20 redeploys while a client-credentials grant is still pending, the robot-config itself replaced every other time", async () => {
    const grantRng = seeded(12);
    const grants: Array<{ from: number; to: number }> = [];
    const result = await redeployUnderLoad(server, {
      generations: 20,
      perBurst: 20,
      maxWaitMs: 100,
      seed: 13,
      configEvery: 2,
      config: { authMode: "clientCredentials" },
      credentials: { clientId: "id", clientSecret: "secret", accessKeySecret: "access-key-secret" },
      // Slower than the wait before the next deploy, so the grant is often still pending at a close.
      grantDelay: (request) => {
        const delayMs = between(grantRng, 150, 600);
        grants.push({ from: request.at, to: request.at + delayMs });
        return delayMs;
      },
    });
    // Calls mostly wait for the grant here, so few are on the wire at a close.
    assertQuietCloses(result, 20, 0);
    const duringGrant = (node: string) =>
      result.watch.closeStarts.filter((close) => close.node === node && grants.some((grant) => close.at > grant.from && close.at < grant.to)).length;
    // The nodes stop waiting for the shared grant, and a closing robot-config abandons its own: each close still took < 1 s.
    assert.ok(duringGrant("cmd") >= 5, `robot-command closed during a grant ${duringGrant("cmd")} times`);
    assert.ok(duringGrant("config") >= 2, `robot-config closed during its grant ${duringGrant("config")} times`);
  });
});
