/**
 * The harness of the shared-account tests, tested on its own:
 * test/support/redis-server.ts (a real redis-server started, killed as a
 * crash, restarted empty on its port, stopped) and
 * test/support/node-red-cluster.ts (Node-RED runtimes in processes of their
 * own, each reporting its own sends, statuses and log; a kill leaves the
 * others running; no process outlives the test process, however it ends).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isRunning } from "../support/child-reaper";
import { CHILD_NODE_OPTIONS } from "../support/child-node";
import { robotCommandNode, SERIAL } from "../support/fixtures";
import { startCluster, startInstance, type Cluster } from "../support/node-red-cluster";
import { useRecordingServer } from "../support/recording-server";
import { pingRedis, redisCommand, startRedis } from "../support/redis-server";

const TOKEN = "harness-token";

async function gone(pids: number[], ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (pids.some(isRunning)) {
    if (Date.now() > deadline) throw new Error(`still running after ${ms} ms: ${pids.filter(isRunning).join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("test harness: redis-server", function () {
  this.timeout(20_000);

  it("answers on a loopback port, is killed as a crash, comes back empty on the same port, and is gone after stop", async () => {
    const redis = await startRedis();
    const firstPid = redis.pid!;
    try {
      assert.equal(redis.url, `redis://127.0.0.1:${redis.port}`);
      assert.ok(await pingRedis(redis.port), "answers PING");
      assert.equal(await redisCommand(redis.port, "SET", "harness:key", "kept?"), "OK");
      assert.equal(await redisCommand(redis.port, "GET", "harness:key"), "kept?");
      assert.deepEqual(await redisCommand(redis.port, "CONFIG", "GET", "bind"), ["bind", "127.0.0.1"]);

      await redis.kill();
      assert.equal(redis.pid, undefined);
      assert.equal(isRunning(firstPid), false, "the killed server's process is gone");
      assert.equal(await pingRedis(redis.port), false, "nothing answers while it is down");

      await redis.restart();
      assert.notEqual(redis.pid, firstPid);
      assert.ok(await pingRedis(redis.port), "answers again on the same port");
      assert.equal(await redisCommand(redis.port, "GET", "harness:key"), null, "and holds nothing");
      assert.deepEqual(await redisCommand(redis.port, "CONFIG", "GET", "save"), ["save", ""], "and writes nothing to disk");
    } finally {
      const pid = redis.pid;
      await redis.stop();
      if (pid !== undefined) assert.equal(isRunning(pid), false, "stopped: its process is gone");
    }
    assert.equal(await pingRedis(redis.port), false, "stopped: the port answers nothing");
  });
});

describe("test harness: Node-RED instances in processes of their own", function () {
  this.timeout(30_000);
  const stub = useRecordingServer();
  let cluster: Cluster | undefined;
  const pids: number[] = [];

  const flows = (baseUrl: string) => [
    { id: "tab", type: "tab", label: "harness" },
    { id: "config", type: "robot-config", baseUrl, timeout: 5, maxRetries: 0, authMode: "token" },
    {
      id: "go",
      type: "inject",
      z: "tab",
      props: [{ p: "payload" }],
      payload: "",
      payloadType: "date",
      repeat: "",
      once: false,
      wires: [["name"]],
    },
    {
      id: "name",
      type: "function",
      z: "tab",
      // What the harness gives each process: its name in ROBOT_FLEET_INSTANCE.
      func: 'const name = env.get("ROBOT_FLEET_INSTANCE");\nnode.status({ fill: "green", shape: "dot", text: name });\nnode.warn("hello from " + name);\nmsg.payload = name;\nreturn msg;',
      outputs: 1,
      wires: [["out"]],
    },
    { id: "out", type: "debug", z: "tab", active: true, tosidebar: false, console: false, complete: "payload", wires: [] },
    // Unwired: its sends are seen all the same.
    robotCommandNode("cmd", { z: "tab", command: "PAUSE_TASK", wires: [[]] }),
  ];

  before(async function () {
    this.timeout(60_000);
    const started = Date.now();
    cluster = await startCluster(3, () => ({
      flows: flows(stub.server.url),
      credentials: { config: { token: TOKEN } },
      watch: ["name", "cmd"],
    }));
    pids.push(...cluster.map((instance) => instance.pid));
    console.log(`      three Node-RED processes started in ${Date.now() - started} ms`);
  });
  after(async () => {
    await cluster?.stop();
  });

  it("names them A, B and C, each its own process with its own HTTP server", () => {
    assert.deepEqual(
      cluster!.map((instance) => instance.name),
      ["A", "B", "C"],
    );
    assert.equal(new Set(pids).size, 3);
    assert.ok(pids.every(isRunning));
    assert.equal(new Set(cluster!.map((instance) => instance.port)).size, 3);
    assert.equal(cluster!.byName("B"), cluster![1]);
  });

  it("reports each instance's sends, node statuses and log lines with its own name", async () => {
    await Promise.all(cluster!.map((instance) => instance.inject("go")));
    for (const instance of cluster!) {
      const sent = await instance.waitFor((i) => i.sent.find((each) => each.node === "name"), 5_000, "the function's send");
      assert.equal(sent.payload, instance.name);
      assert.equal(sent.port, 0);
      assert.equal(sent.msg.payload, instance.name);
      assert.equal(typeof sent.msg._msgid, "string");
      const status = await instance.waitFor((i) => i.statuses.find((each) => each.node === "name"), 5_000, "the function's status");
      assert.deepEqual(status.status, { fill: "green", shape: "dot", text: instance.name });
      const warning = await instance.waitFor(
        (i) => i.logs.find((line) => line.level === "warn" && line.node === "name"),
        5_000,
        "the function's warning",
      );
      assert.equal(warning.text, `hello from ${instance.name}`);
      assert.equal(warning.nodeType, "function");
      assert.ok(
        instance.logs.some((line) => line.level === "info" && /Started flows/.test(line.text)),
        "Node-RED's info lines are there",
      );
      assert.deepEqual(
        instance.logs.filter((line) => line.level === "stdout" || line.level === "stderr"),
        [],
        "nothing printed",
      );
    }
  });

  it("runs this package's nodes with the given credentials against the recording server", async () => {
    stub.server.respondWith(() => ({ body: { name: `robots/${SERIAL}/commands/c1`, serialNumber: SERIAL, state: "WAITING" } }));
    await Promise.all(cluster!.map((instance) => instance.inject("cmd", { payload: "go" })));
    for (const instance of cluster!)
      await instance.waitFor((i) => i.sent.some((each) => each.node === "cmd"), 10_000, "robot-command's output");
    assert.equal(stub.server.requests.length, 3, "one request per instance");
    for (const request of stub.server.requests) {
      assert.equal(request.method, "POST");
      assert.ok(request.path.includes(SERIAL), request.path);
      assert.equal(request.headers.authorization, `Bearer ${TOKEN}`);
    }
  });

  it("a kill leaves the others running; injecting into the killed one fails", async () => {
    const [a, b, c] = cluster!;
    await b!.kill();
    assert.equal(b!.running, false);
    assert.equal(isRunning(b!.pid), false);
    assert.deepEqual(await b!.exited, { code: null, signal: "SIGKILL" });
    await assert.rejects(b!.inject("go"), /not running/);

    for (const instance of [a!, c!]) {
      const before = instance.sent.filter((each) => each.node === "name").length;
      await instance.inject("go");
      await instance.waitFor((i) => i.sent.filter((each) => each.node === "name").length === before + 1, 5_000, "a send after B's kill");
      assert.ok(instance.running);
    }
  });

  it("a stop runs Node-RED's close (node statuses cleared) and ends the process", async () => {
    const a = cluster![0]!;
    await a.stop();
    assert.deepEqual(await a.exited, { code: 0, signal: null });
    assert.ok(
      a.statuses.some((each) => each.node === "name" && Object.keys(each.status).length === 0),
      "the function's status cleared as its flow stopped",
    );
  });

  it("refuses a flow with a type no module provides, naming it", async () => {
    await assert.rejects(
      startInstance({
        name: "bad",
        flows: [
          { id: "tab", type: "tab" },
          { id: "x", type: "no-such-node", z: "tab", wires: [] },
        ],
      }),
      /did not start: missing-types: no-such-node/,
    );
  });

  it("leaves no Node-RED process behind once stopped", async () => {
    await cluster!.stop();
    await gone(pids);
  });

  for (const ending of ["exit", "wait"] as const) {
    it(`a test process that ends by ${ending === "exit" ? "process.exit" : "SIGKILL"} takes its redis-server and Node-RED with it`, async () => {
      const script = path.join(__dirname, `orphaning-parent${path.extname(__filename)}`);
      // The stand-in's temp dirs (Redis's, Node-RED's user dir) go in here: a SIGKILLed one cannot remove them.
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-orphan-"));
      try {
        const parent = spawn(process.execPath, [...CHILD_NODE_OPTIONS, script, ending], {
          stdio: ["ignore", "pipe", "inherit"],
          env: { ...process.env, TMPDIR: tmp },
        });
        const ended = new Promise<void>((resolve) => parent.once("exit", () => resolve()));
        const children = await new Promise<{ redis: number; nodeRed: number }>((resolve, reject) => {
          let out = "";
          parent.stdout.on("data", (data: Buffer) => {
            out += data.toString();
            if (out.includes("\n")) resolve(JSON.parse(out) as { redis: number; nodeRed: number });
          });
          void ended.then(() => reject(new Error("the stand-in ended before it said its children's pids")));
        });
        if (ending === "wait") parent.kill("SIGKILL");
        await ended;
        await gone([children.redis, children.nodeRed]);
        if (ending === "exit") assert.deepEqual(fs.readdirSync(tmp), [], "its temp dirs removed as it exited");
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
  }
});
