/**
 * The account's shared request engine under load, through real Node-RED and a
 * real loopback server: a 2,000-message burst through three node types held to
 * `connections` sockets, pacing to `rateLimit` in every one-second window at
 * the server, QUEUE_FULL with nothing sent, a stop command overtaking a queue
 * of status reads, the whole account paused by a 429 (and failing at once when
 * the wait is too long), connect failures retried but a command that may have
 * arrived never sent twice, robot-command's burst policies, and the status
 * under a node during a burst.
 */
import assert from "node:assert/strict";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import robotCommand from "../../src/nodes/robot-command/robot-command";
import robotMaps from "../../src/nodes/robot-maps/robot-maps";
import robotSiteTask from "../../src/nodes/robot-site-task/robot-site-task";
import type { RobotConfigNode } from "../../src/nodes/shared/types";
import type { RequestEngine } from "../../src/api/engine/engine";
import { RecordingServer, type RecordedRequest, type ScriptedReply } from "../support/recording-server";
import {
  collectMessages,
  expectInvalidInput,
  flowWith,
  helper,
  loadFlow,
  outputsAndCatch,
  recordStatuses,
  useRecordingServerAndNodeRed,
  waitFor,
  COMPLETE_NODE,
  isDirectoryRead,
} from "../support/node-red";
import { robotCommandNode as commandNode, robotSiteTaskNode, robotMapsNode, SERIAL, MAP_ID } from "../support/fixtures";


const OTHER_SERIAL = "GS-S-000102";
const LIST_PATH = "/openapi/v1/map/robotMap/list";
const COMMAND_PATH = /^\/v1alpha1\/robots\/([^/]+)\/commands$/;
const STATUS_PATH = /^\/openapi\/v2alpha1\/s\/robots\/([^/]+)\/status$/;

const STATUS_ANSWER = { serialNumber: SERIAL, taskState: "RUNNING", online: true, battery: { powerPercentage: 87 } };
const MAPS = [{ mapId: MAP_ID, mapName: "Floor 1" }];

type Msg = Record<string, unknown>;
interface CaughtError {
  code: string;
  message: string;
  cause?: { retryAfterSeconds?: number };
}

/** The cloud's answer for each path: a command resource, a robot status, a map list. */
function cloud(request: RecordedRequest): ScriptedReply {
  if (COMMAND_PATH.test(request.path)) {
    const body = request.body as Record<string, unknown>;
    const type = String(body.remoteTaskCommandType ?? body.remoteNavigationCommandType ?? body.remoteControlCommandType);
    return {
      body: {
        name: `robots/${String(body.serialNumber)}/commands/1`,
        state: "WAITING",
        serialNumber: body.serialNumber,
        rawCommandType: type.toLowerCase(),
      },
    };
  }
  if (STATUS_PATH.test(request.path)) return { body: STATUS_ANSWER };
  if (request.path === LIST_PATH) return { body: { code: 0, msg: "SUCCESS", data: MAPS } };
  return { status: 404, body: { code: 5, message: "no such path" } };
}

/** The same answers, each after `delayMs`. */
function slowCloud(delayMs: number | ((request: RecordedRequest) => number)) {
  return (request: RecordedRequest): ScriptedReply => ({
    ...cloud(request),
    delayMs: typeof delayMs === "number" ? delayMs : delayMs(request),
  });
}

/** The robot a request is for, whichever endpoint it went to. */
function robotOf(request: RecordedRequest): string {
  const match = COMMAND_PATH.exec(request.path) ?? STATUS_PATH.exec(request.path);
  if (match) return decodeURIComponent(match[1]!);
  return String((request.body as { robotSn?: unknown } | undefined)?.robotSn);
}

/** The engine of the flow's robot-config, read only to know when a test may take its next step. */
function engine(): RequestEngine {
  const config = helper.getNode("config") as unknown as RobotConfigNode;
  assert.ok("client" in config.robot, "the robot-config has a client");
  return config.robot.client.engine;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function send(id: string, msg: Msg): void {
  helper.getNode(id).receive(msg);
}

/**
 * A TCP proxy in front of `target` that holds each new connection `delayMs`
 * before it reaches the server, as a TLS handshake to a distant cloud does; a
 * kept-alive connection then carries requests at once.
 */
async function slowToConnect(target: string, delayMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const upstreamPort = Number(new URL(target).port);
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const proxy = net.createServer((client) => {
    track(client);
    client.pause();
    const timer = setTimeout(() => {
      const upstream = net.connect(upstreamPort, "127.0.0.1", () => {
        client.pipe(upstream);
        upstream.pipe(client);
      });
      track(upstream);
      upstream.on("close", () => client.destroy());
      client.on("close", () => upstream.destroy());
    }, delayMs);
    client.on("close", () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

/** The most arrivals in any window of `ms` that starts at an arrival. */
function busiestWindow(arrivals: number[], ms = 1000): number {
  let busiest = 0;
  for (const start of arrivals) busiest = Math.max(busiest, arrivals.filter((at) => at >= start && at < start + ms).length);
  return busiest;
}

const idsOf = (messages: Msg[]) => messages.map((m) => String(m._msgid));
const errorOf = (msg: Msg) => msg.error as CaughtError;

describe("the account's request engine under load (through Node-RED)", function () {
  this.timeout(20000);
  const stub = useRecordingServerAndNodeRed(cloud);

  /** Sockets of the previous test closed and forgotten, so maxOpenSockets counts this test's alone. */
  async function freshSocketCount(): Promise<void> {
    await waitFor(() => stub.server.openSockets === 0, 2000, "the previous test's sockets to close");
    stub.server.maxOpenSockets = 0;
  }

  it("2,000 messages through three node types sharing one config: each ends once, over at most 4 sockets", async () => {
    await freshSocketCount();
    stub.server.respondWith(slowCloud((request) => 2 + (request.path.length % 4)));
    const nodes = [commandNode("cmd", { command: "RESUME_TASK" }), robotSiteTaskNode("task"), robotMapsNode("maps")];
    await loadFlow(
      [robotCommand, robotSiteTask, robotMaps],
      flowWith(stub.server.url, [...nodes, ...outputsAndCatch("cmd", "task", "maps")], { connections: 4, rateLimit: 0 }),
    );
    const outputs = collectMessages("out");
    const caught = collectMessages("caught");
    const sent: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const id = `msg-${i}`;
      sent.push(id);
      send(["cmd", "task", "maps"][i % 3]!, { _msgid: id, payload: i, serialNumber: `SN-${i}` });
    }
    await waitFor(() => outputs.length + caught.length >= 2000, 15000, "2,000 outcomes");
    await pause(100);
    assert.equal(caught.length, 0, `no errors (first: ${caught[0] ? errorOf(caught[0]).message : "none"})`);
    assert.deepEqual(idsOf([...outputs, ...caught]).sort(), sent.sort(), "every message ends exactly once");
    // What the nodes sent, apart from the config's reads of the robot list (its robot directory, which these unknown robots bring).
    const sentByNodes = stub.server.requests.filter((request) => !isDirectoryRead(request));
    assert.equal(sentByNodes.length, 2000, "one request per message");
    assert.deepEqual(
      sentByNodes.map(robotOf).sort(),
      Array.from({ length: 2000 }, (_, i) => `SN-${i}`).sort(),
      "each message's own request",
    );
    assert.ok(stub.server.maxOpenSockets <= 4, `at most 4 sockets at once, saw ${stub.server.maxOpenSockets}`);
    // Each output carries the answer to its own message.
    const commandOutputs = outputs.filter((m) => typeof (m.payload as { name?: unknown }).name === "string");
    assert.equal(commandOutputs.length, 667);
    for (const output of commandOutputs) assert.equal((output.payload as Msg).serialNumber, output.serialNumber);
  });

  it("rateLimit 20: a burst of 100 never has more than 20 arrivals in any one-second window at the server", async () => {
    await loadFlow(
      [robotSiteTask, robotMaps],
      flowWith(stub.server.url, [robotSiteTaskNode("task"), robotMapsNode("maps"), ...outputsAndCatch("task", "maps")], { rateLimit: 20 }),
    );
    const outputs = collectMessages("out");
    const caught = collectMessages("caught");
    for (let i = 0; i < 100; i++) send(i % 2 ? "task" : "maps", { _msgid: `msg-${i}`, payload: i });
    await waitFor(() => outputs.length + caught.length >= 100, 15000, "100 outcomes");
    assert.equal(caught.length, 0);
    assert.equal(outputs.length, 100, "all 100 answered");
    const arrivals = stub.server.requests.map((r) => r.at);
    assert.equal(arrivals.length, 100);
    const busiest = busiestWindow(arrivals);
    assert.ok(busiest <= 20, `at most 20 arrivals in any 1000 ms window, saw ${busiest}`);
  });

  it("rateLimit 20 holds at the server when new connections are slow to set up (a cloud behind TLS)", async () => {
    // The first calls open new connections and arrive late; later calls reuse them and arrive at once.
    const proxy = await slowToConnect(stub.server.url, 300);
    try {
      await loadFlow([robotMaps], flowWith(proxy.url, [robotMapsNode("maps"), ...outputsAndCatch("maps")], { rateLimit: 20 }));
      const outputs = collectMessages("out");
      const caught = collectMessages("caught");
      for (let i = 0; i < 60; i++) send("maps", { _msgid: `msg-${i}`, payload: i });
      await waitFor(() => outputs.length + caught.length >= 60, 15000, "60 outcomes");
      assert.equal(caught.length, 0);
      const busiest = busiestWindow(stub.server.requests.map((r) => r.at));
      assert.ok(busiest <= 20, `at most 20 arrivals in any 1000 ms window, saw ${busiest}`);
    } finally {
      await proxy.close();
    }
  });

  it("queueLimit 10: of 30 messages at once, 11 are sent and 19 end at once with QUEUE_FULL, never sent", async () => {
    stub.server.respondWith(slowCloud(300));
    await loadFlow(
      [robotMaps],
      flowWith(stub.server.url, [robotMapsNode("maps"), ...outputsAndCatch("maps")], { queueLimit: 10, connections: 1, rateLimit: 0 }),
    );
    const outputs = collectMessages("out");
    const caught = collectMessages("caught");
    for (let i = 0; i < 30; i++) send("maps", { _msgid: `msg-${i}`, payload: i, serialNumber: `SN-${i}` });
    await waitFor(() => caught.length >= 19, 2000, "19 refusals");
    assert.equal(outputs.length, 0, "refused before the first answer");
    assert.ok(stub.server.requests.length <= 1, "at most the first is on the wire");
    for (const msg of caught) {
      assert.equal(errorOf(msg).code, "QUEUE_FULL");
      assert.match(errorOf(msg).message, /queueLimit/);
    }
    await waitFor(() => outputs.length >= 11, 10000, "11 answers");
    await pause(100);
    assert.equal(outputs.length, 11);
    assert.equal(caught.length, 19);
    assert.equal(stub.server.requests.length, 11, "1 on the wire + 10 queued were sent");
    const refused = new Set(caught.map((m) => String(m.serialNumber)));
    assert.ok(!stub.server.requests.some((r) => refused.has(robotOf(r))), "no refused message reached the server");
    assert.deepEqual(
      stub.server.requests.map(robotOf).sort(),
      outputs.map((m) => String(m.serialNumber)).sort(),
      "the sent ones are the answered ones",
    );
    // The queue keeps the first comers: messages 0-10 are sent, 11-29 refused.
    assert.deepEqual(idsOf(outputs).sort(), Array.from({ length: 11 }, (_, i) => `msg-${i}`).sort());
  });

  it("a STOP_TASK overtakes 500 queued status reads (order seen at the server)", async () => {
    // The first read is held long enough for every other read to queue up behind it.
    stub.server.reply({ ...cloud({ path: `/openapi/v2alpha1/s/robots/${SERIAL}/status` } as RecordedRequest), delayMs: 300 });
    await loadFlow(
      [robotCommand, robotSiteTask],
      flowWith(stub.server.url, [robotSiteTaskNode("task"), commandNode("cmd", { command: "STOP_TASK" }), ...outputsAndCatch("task", "cmd")], {
        connections: 1,
        rateLimit: 0,
      }),
    );
    const outputs = collectMessages("out");
    const caught = collectMessages("caught");
    for (let i = 0; i < 500; i++) send("task", { _msgid: `read-${i}`, payload: i });
    await waitFor(() => engine().waiting === 499 && stub.server.requests.length === 1, 5000, "499 reads queued behind the first");
    send("cmd", { _msgid: "stop", payload: "stop now" });
    await waitFor(() => outputs.length + caught.length >= 501, 15000, "501 outcomes");
    assert.equal(caught.length, 0);
    assert.equal(stub.server.requests.length, 501);
    const stopAt = stub.server.requests.findIndex((r) => COMMAND_PATH.test(r.path));
    assert.ok(stopAt >= 0 && stopAt < 2, `the stop is among the first 2 requests, it was number ${stopAt + 1}`);
    assert.deepEqual(stub.server.requests[stopAt]!.body, { serialNumber: SERIAL, remoteTaskCommandType: "STOP_TASK" });
  });

  it("a 429 with Retry-After: 2 holds every call of the account for 2 s, then the refused call goes first", async () => {
    stub.server.reply({ status: 429, headers: { "Retry-After": "2" }, body: { code: 8, message: "slow down" } });
    stub.server.respondWith(slowCloud(100));
    await loadFlow(
      [robotSiteTask, robotMaps],
      flowWith(stub.server.url, [robotSiteTaskNode("task"), robotMapsNode("maps"), ...outputsAndCatch("task", "maps")], { connections: 4, rateLimit: 0 }),
    );
    const statuses = { task: recordStatuses("task"), maps: recordStatuses("maps") };
    const outputs = collectMessages("out");
    const caught = collectMessages("caught");
    for (let i = 0; i < 10; i++) send(i % 2 ? "task" : "maps", { _msgid: `msg-${i}`, payload: i, serialNumber: `SN-${i}` });
    await waitFor(() => outputs.length + caught.length >= 10, 10000, "10 outcomes");
    await pause(100);
    assert.equal(caught.length, 0);
    assert.deepEqual(idsOf(outputs).sort(), Array.from({ length: 10 }, (_, i) => `msg-${i}`).sort(), "all 10 answered, the refused one too");
    const { requests } = stub.server;
    assert.equal(requests.length, 11, "10 calls and the refused one again");
    const refusedAt = requests[0]!.at;
    // The first four were on the wire together; nothing else may arrive until the pause is over.
    for (const [index, request] of requests.entries()) {
      if (index < 4) continue;
      assert.ok(request.at - refusedAt >= 1900, `request ${index + 1} arrived ${Math.round(request.at - refusedAt)} ms after the 429`);
    }
    const refusedRobot = robotOf(requests[0]!);
    const again = requests.findIndex((r, index) => index > 0 && robotOf(r) === refusedRobot);
    assert.ok(again >= 4 && again < 8, `the refused call is in the first batch after the pause (request ${again + 1})`);
    for (const [id, seen] of Object.entries(statuses)) {
      assert.ok(
        seen.some((s) => s.fill === "yellow" && s.shape === "ring" && /^paused by rate limit, [12] s$/.test(s.text ?? "")),
        `${id} showed the pause: ${JSON.stringify(seen)}`,
      );
      assert.equal(seen.at(-1)!.fill, "green", `${id} ends green`);
    }
  });

  it("a 429 with Retry-After: 3600 fails the refused call and every waiting one at once, with retryAfterSeconds", async () => {
    stub.server.reply({ status: 429, headers: { "Retry-After": "3600" }, body: { code: 8, message: "quota used up" } });
    await loadFlow(
      [robotMaps],
      flowWith(stub.server.url, [robotMapsNode("maps"), ...outputsAndCatch("maps")], { connections: 1, rateLimit: 0 }),
    );
    const outputs = collectMessages("out");
    const caught = collectMessages("caught");
    for (let i = 0; i < 10; i++) send("maps", { _msgid: `msg-${i}`, payload: i, serialNumber: `SN-${i}` });
    await waitFor(() => caught.length >= 10, 3000, "10 errors at once");
    const refusedRobot = robotOf(stub.server.requests[0]!);
    for (const msg of caught) {
      const error = errorOf(msg);
      assert.ok(["RESOURCE_EXHAUSTED", "HTTP_429"].includes(error.code), error.code);
      const seconds = error.cause?.retryAfterSeconds;
      if (msg.serialNumber === refusedRobot) assert.equal(seconds, 3600, "the refused call");
      else assert.ok(seconds !== undefined && seconds >= 3599 && seconds <= 3600, `a waiting call: ${seconds}`);
    }
    // A message that comes later fails at once too.
    send("maps", { _msgid: "later", payload: "later", serialNumber: "SN-later" });
    await waitFor(() => caught.length >= 11, 2000, "the later message's error");
    const later = errorOf(caught[10]!);
    assert.ok(later.cause?.retryAfterSeconds !== undefined && later.cause.retryAfterSeconds >= 3599 && later.cause.retryAfterSeconds <= 3600);
    await pause(200);
    assert.equal(outputs.length, 0);
    assert.equal(caught.length, 11);
    assert.equal(stub.server.requests.length, 1, "nothing more was sent");
  });

  describe("connection failures", () => {
    it("connection refused, then the server comes up within the backoff: the message is answered", async () => {
      const gone = await new RecordingServer().start();
      const { port } = new URL(gone.url);
      await gone.stop();
      await loadFlow([robotMaps], flowWith(`http://127.0.0.1:${port}`, [robotMapsNode("maps"), ...outputsAndCatch("maps")], { maxRetries: 3, rateLimit: 0 }));
      const outputs = collectMessages("out");
      const caught = collectMessages("caught");
      const arrivals: string[] = [];
      const server = http.createServer((req, res) => {
        let body = "";
        req.on("data", (chunk: Buffer) => (body += chunk.toString()));
        req.on("end", () => {
          arrivals.push(`${req.url ?? ""} ${body}`);
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ code: 0, msg: "SUCCESS", data: MAPS }));
        });
      });
      try {
        send("maps", { _msgid: "refused-first", payload: 1 });
        // The first attempt was refused and the call now waits out its backoff (250-500 ms).
        await waitFor(() => engine().waiting === 1 && engine().sending === 0, 2000, "the call to back off");
        await new Promise<void>((resolve) => server.listen(Number(port), "127.0.0.1", resolve));
        assert.equal((server.address() as AddressInfo).port, Number(port));
        await waitFor(() => outputs.length + caught.length >= 1, 8000, "the outcome");
        assert.equal(caught.length, 0, caught[0] ? errorOf(caught[0]).message : "");
        assert.deepEqual(outputs[0]!.payload, MAPS);
        // The robot list (the account's directory, read to check the serial) is retried beside it; the map list once.
        assert.deepEqual(
          arrivals.filter((arrival) => !arrival.startsWith("/v1alpha1/robots?")),
          [`${LIST_PATH} ${JSON.stringify({ robotSn: SERIAL })}`],
          "the retry reached the new server, once",
        );
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    it("a reset after a command was written is not retried: one request, NETWORK_ERROR at the Catch node", async () => {
      stub.server.respondWith((request) => (COMMAND_PATH.test(request.path) ? { drop: true } : cloud(request)));
      await loadFlow([robotCommand], flowWith(stub.server.url, [commandNode("cmd"), ...outputsAndCatch("cmd")], { maxRetries: 3, rateLimit: 0 }));
      const outputs = collectMessages("out");
      const caught = collectMessages("caught");
      send("cmd", { _msgid: "command", payload: 1 });
      await waitFor(() => caught.length >= 1, 5000, "the error");
      // Longer than the first backoff (at most 500 ms), so a retry would have arrived.
      await pause(800);
      assert.equal(outputs.length, 0);
      assert.equal(caught.length, 1);
      assert.equal(errorOf(caught[0]!).code, "NETWORK_ERROR");
      assert.equal(stub.server.requests.length, 1, "the command was sent once");
    });

    it("a reset under a status read is retried and the read is answered", async () => {
      stub.server.reply({ drop: true });
      await loadFlow([robotSiteTask], flowWith(stub.server.url, [robotSiteTaskNode("task"), ...outputsAndCatch("task")], { maxRetries: 3, rateLimit: 0 }));
      const outputs = collectMessages("out");
      const caught = collectMessages("caught");
      send("task", { _msgid: "read", payload: 1 });
      await waitFor(() => outputs.length + caught.length >= 1, 5000, "the outcome");
      assert.equal(caught.length, 0, caught[0] ? errorOf(caught[0]).message : "");
      assert.deepEqual(outputs[0]!.payload, STATUS_ANSWER);
      assert.equal(stub.server.requests.length, 2, "dropped once, then answered");
      assert.equal(stub.server.requests[1]!.path, stub.server.requests[0]!.path);
    });
  });

  describe("burst policies of robot-command", () => {
    async function load(settings: Record<string, unknown>, delayMs = 200) {
      stub.server.respondWith(slowCloud(delayMs));
      await loadFlow(
        [robotCommand, ...COMPLETE_NODE],
        flowWith(
          stub.server.url,
          [
            commandNode("cmd", settings),
            ...outputsAndCatch("cmd"),
            // Not "complete": a node whose id equals its type looks to Node-RED like a config node that needs itself.
            { id: "done-watch", type: "complete", scope: ["cmd"], wires: [["completed"]] },
            { id: "completed", type: "helper" },
          ],
          { connections: 1, rateLimit: 0 },
        ),
      );
      return { outputs: collectMessages("out"), caught: collectMessages("caught"), completed: collectMessages("completed"), statuses: recordStatuses("cmd") };
    }

    /** Messages that ended with done() and no output. */
    function doneOnly(completed: Msg[], outputs: Msg[]): string[] {
      const output = new Set(idsOf(outputs));
      return idsOf(completed).filter((id) => !output.has(id)).sort();
    }

    it('"all": 5 messages for one robot are 5 requests and 5 outputs', async () => {
      const { outputs, caught, completed } = await load({ burst: "all" });
      for (let i = 1; i <= 5; i++) send("cmd", { _msgid: `m${i}`, payload: i });
      await waitFor(() => completed.length >= 5, 5000, "5 done()");
      await pause(100);
      assert.equal(caught.length, 0);
      assert.equal(outputs.length, 5);
      assert.equal(stub.server.requests.length, 5);
      assert.deepEqual(doneOnly(completed, outputs), []);
    });

    it('"skip": of 5 messages for one robot, 1 is sent and 4 end with done(); another robot is not skipped', async () => {
      const { outputs, caught, completed, statuses } = await load({ burst: "skip" });
      for (let i = 1; i <= 5; i++) send("cmd", { _msgid: `m${i}`, payload: i });
      send("cmd", { _msgid: "other", payload: "x", serialNumber: OTHER_SERIAL });
      await waitFor(() => completed.length >= 6, 5000, "6 done()");
      await pause(100);
      assert.equal(caught.length, 0);
      assert.deepEqual(idsOf(outputs).sort(), ["m1", "other"]);
      assert.deepEqual(doneOnly(completed, outputs), ["m2", "m3", "m4", "m5"]);
      assert.deepEqual(stub.server.requests.map(robotOf).sort(), [SERIAL, OTHER_SERIAL]);
      assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "START_TASK: WAITING (4 skipped)" });
    });

    it('"latest": messages 2-4 are withdrawn while waiting, 1 and 5 are sent', async () => {
      const { outputs, caught, completed } = await load({ burst: "latest" });
      for (let i = 1; i <= 5; i++) {
        send("cmd", { _msgid: `m${i}`, payload: { command: "CROSS_NAVIGATE", position: `p${i}`, map: "m" } });
      }
      await waitFor(() => completed.length >= 5, 5000, "5 done()");
      await pause(100);
      assert.equal(caught.length, 0);
      assert.deepEqual(idsOf(outputs).sort(), ["m1", "m5"]);
      assert.deepEqual(doneOnly(completed, outputs), ["m2", "m3", "m4"]);
      const positions = stub.server.requests.map(
        (r) => (r.body as { commandParameter: { startNavigationParameter: { position: string } } }).commandParameter.startNavigationParameter.position,
      );
      assert.deepEqual(positions, ["p1", "p5"]);
    });

    it("msg.burst overrides the node's setting", async () => {
      const { outputs, completed } = await load({ burst: "all" }, 50);
      for (let i = 1; i <= 5; i++) send("cmd", { _msgid: `skip-${i}`, payload: i, burst: "skip" });
      await waitFor(() => completed.length >= 5, 5000, "5 done()");
      assert.equal(stub.server.requests.length, 1, 'msg.burst "skip" over the node\'s "all"');
      assert.deepEqual(idsOf(outputs), ["skip-1"]);
      await helper.unload();
      stub.server.reset();
      const second = await load({ burst: "skip" }, 50);
      for (let i = 1; i <= 3; i++) send("cmd", { _msgid: `all-${i}`, payload: i, burst: "all" });
      await waitFor(() => second.completed.length >= 3, 5000, "3 done()");
      assert.equal(stub.server.requests.length, 3, 'msg.burst "all" over the node\'s "skip"');
      assert.deepEqual(idsOf(second.outputs).sort(), ["all-1", "all-2", "all-3"]);
    });

    for (const burst of ["sometimes", 2, ["skip"]]) {
      it(`an invalid msg.burst (${JSON.stringify(burst)}) is INVALID_INPUT naming msg.burst, nothing sent`, async () => {
        await load({ burst: "all" });
        await expectInvalidInput("cmd", { payload: 1, burst }, /msg\.burst/, stub.server);
      });
    }
  });

  it("the status under a node during a burst: queued N, then green with the result, in far fewer redraws than messages", async () => {
    stub.server.respondWith(slowCloud(20));
    await loadFlow([robotSiteTask], flowWith(stub.server.url, [robotSiteTaskNode("task"), ...outputsAndCatch("task")], { connections: 1, rateLimit: 0 }));
    const statuses = recordStatuses("task");
    const outputs = collectMessages("out");
    for (let i = 0; i < 50; i++) send("task", { _msgid: `msg-${i}`, payload: i });
    await waitFor(() => outputs.length >= 50, 10000, "50 answers");
    await pause(300);
    assert.ok(
      statuses.some((s) => s.fill === "blue" && s.shape === "ring" && /^queued \d+$/.test(s.text ?? "") && Number(s.text!.slice(7)) > 1),
      JSON.stringify(statuses),
    );
    assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "RUNNING 87%" });
    assert.ok(statuses.slice(0, -1).every((s) => s.fill !== "green"), "green only when none of its messages is pending");
    assert.ok(statuses.length < 50, `${statuses.length} status calls for 50 messages`);
  });
});
