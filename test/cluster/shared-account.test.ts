/**
 * Issue 22 end to end: three Node-RED runtimes, each in its own process,
 * share one robot account through a real redis-server, against a recording
 * server on loopback that plays the cloud. What the cloud sees (calls per
 * one-second window, grants, bearer tokens) is read at the server; what the
 * flows get is read from each runtime's node sends.
 */
import assert from "node:assert/strict";
import { startCluster, type Instance } from "../support/node-red-cluster";
import { useRedis } from "../support/redis-server";
import { RecordingServer, type RecordedRequest, type ScriptedReply } from "../support/recording-server";
import { busiestSecond } from "../support/busiest-second";

const GRANT_PATH = "/gas/api/v1alpha1/oauth/token";
const STATUS_PATH = /^\/openapi\/v2alpha1\/s\/robots\/([^/]+)\/status$/;
const BATCH_PATH = /^\/openapi\/v2alpha1\/s\/robots\/\*\/status:batchGet/;
const TOKEN = "cluster-token";

interface ConfigOptions {
  rateLimit: number;
  redisUrl: string;
  prefix: string;
  clientCredentials?: boolean;
}

/** One copy of the flows: robot-config shared through Redis, a status reader, a watcher, and a Catch node. */
function flows(
  baseUrl: string,
  options: ConfigOptions,
  extra: Array<Record<string, unknown>> = [],
): { flows: Array<Record<string, unknown>>; credentials: Record<string, Record<string, string>> } {
  const auth = options.clientCredentials ? { authMode: "clientCredentials" } : { authMode: "token" };
  return {
    flows: [
      { id: "tab", type: "tab", label: "shared" },
      {
        id: "cfg",
        type: "robot-config",
        name: "shared",
        baseUrl,
        timeout: 10,
        maxRetries: 3,
        rateLimit: options.rateLimit,
        redisUrl: options.redisUrl,
        redisPrefix: options.prefix,
        ...auth,
      },
      {
        id: "reader",
        type: "robot-status",
        z: "tab",
        robot: "cfg",
        operation: "status",
        serialNumber: "",
        serialNumberType: "str",
        watch: false,
        wires: [[], []],
      },
      { id: "errors", type: "catch", z: "tab", scope: null, uncaught: false, wires: [[]] },
      ...extra,
    ],
    credentials: {
      cfg: options.clientCredentials
        ? { clientId: "cluster-client", clientSecret: "cluster-secret", accessKeySecret: "cluster-access" }
        : { token: TOKEN },
    },
  };
}

const outputsOf = (instance: Instance, node: string) => instance.sent.filter((sent) => sent.node === node);

describe("a robot account shared by three Node-RED processes through Redis", function () {
  this.timeout(180_000);
  const { redis } = useRedis();
  const server = new RecordingServer();
  let cluster: Instance[] = [];
  let test = 0;
  before(() => server.start());
  after(() => server.stop());
  beforeEach(() => {
    server.reset();
    test++;
  });
  afterEach(async () => {
    await Promise.all(cluster.map((instance) => instance.stop()));
    cluster = [];
  });

  async function start(
    options: Omit<ConfigOptions, "redisUrl" | "prefix">,
    extra: Array<Record<string, unknown>> = [],
    watch = ["reader", "errors"],
  ) {
    const config = flows(server.url, { ...options, redisUrl: redis.url, prefix: `cluster-${test}` }, extra);
    cluster = await startCluster(3, { ...config, watch });
    return cluster;
  }
  const statusCalls = () => server.requests.filter((request) => STATUS_PATH.test(request.path));

  it("3 x 500 messages: every one answered once, and no one-second window at the cloud holds more than the Rate limit", async () => {
    server.respondWith((request) => ({ body: { serialNumber: STATUS_PATH.exec(request.path)?.[1], taskState: "IDLE" } }));
    const instances = await start({ rateLimit: 100 });
    await Promise.all(
      instances.map((instance) =>
        Promise.all(Array.from({ length: 500 }, (_, index) => instance.inject("reader", { serialNumber: `${instance.name}-${index}` }))),
      ),
    );
    await Promise.all(
      instances.map((instance) =>
        instance.waitFor(() => outputsOf(instance, "reader").length === 500, 60_000, `${instance.name}'s 500 outputs`),
      ),
    );
    for (const instance of instances) assert.equal(outputsOf(instance, "errors").length, 0, `${instance.name}: no error`);
    assert.equal(statusCalls().length, 1500, "each message one call");
    const busiest = busiestSecond(statusCalls().map((request) => request.at));
    console.log(`      1500 calls from 3 instances at a shared 100/s: busiest second at the server held ${busiest}`);
    assert.ok(busiest <= 100, `busiest second held ${busiest} calls`);
  });

  it("one 429 with Retry-After 2 holds all three instances", async () => {
    let refused: RecordedRequest | undefined;
    server.respondWith((request): ScriptedReply => {
      if (!refused) {
        refused = request;
        return { status: 429, headers: { "Retry-After": "2" }, body: { code: 8, message: "slow down" } };
      }
      return { body: { serialNumber: STATUS_PATH.exec(request.path)?.[1], taskState: "IDLE" } };
    });
    const instances = await start({ rateLimit: 20 });
    await instances[0]!.inject("reader", { serialNumber: "A-first" });
    await instances[0]!.waitFor(() => refused !== undefined, 10_000, "the 429");
    await new Promise((resolve) => setTimeout(resolve, 100));
    await Promise.all(
      instances.map((instance) =>
        Promise.all(Array.from({ length: 5 }, (_, index) => instance.inject("reader", { serialNumber: `${instance.name}-${index}` }))),
      ),
    );
    await Promise.all(
      instances.map((instance) =>
        instance.waitFor(
          () => outputsOf(instance, "reader").length === (instance === instances[0] ? 6 : 5),
          20_000,
          `${instance.name}'s outputs`,
        ),
      ),
    );
    const during = statusCalls().filter((request) => request.at > refused!.at + 50 && request.at < refused!.at + 1950);
    assert.deepEqual(
      during.map((request) => request.path),
      [],
      "no instance called the cloud during the pause",
    );
    for (const instance of instances) assert.equal(outputsOf(instance, "errors").length, 0, `${instance.name}: no error`);
  });

  it("one token grant for three instances, and every call carries it", async () => {
    let grants = 0;
    server.respondWith((request): ScriptedReply => {
      if (request.path === GRANT_PATH) {
        grants++;
        return { delayMs: 300, body: { access_token: `granted-${grants}`, expires_in: 86_400 } };
      }
      return { body: { serialNumber: STATUS_PATH.exec(request.path)?.[1], taskState: "IDLE" } };
    });
    const instances = await start({ rateLimit: 50, clientCredentials: true });
    await Promise.all(
      instances.map((instance) =>
        Promise.all(Array.from({ length: 10 }, (_, index) => instance.inject("reader", { serialNumber: `${instance.name}-${index}` }))),
      ),
    );
    await Promise.all(
      instances.map((instance) =>
        instance.waitFor(() => outputsOf(instance, "reader").length === 10, 20_000, `${instance.name}'s outputs`),
      ),
    );
    assert.equal(grants, 1, "one grant");
    assert.deepEqual([...new Set(statusCalls().map((request) => request.headers.authorization))], ["Bearer granted-1"]);
  });

  it("watching: one instance polls; killed, another sends the next change within two intervals, and no change is sent twice", async () => {
    const battery: Record<string, number> = { "GS-W-1": 90, "GS-W-2": 90, "GS-W-3": 90 };
    server.respondWith((request): ScriptedReply => {
      if (!BATCH_PATH.test(request.path)) return { status: 404, body: { code: 5 } };
      const names = (request.body as { serialNumbers?: string[] } | undefined)?.serialNumbers ?? Object.keys(battery);
      return {
        body: {
          robotStatus: names.map((serialNumber) => ({
            serialNumber,
            online: true,
            taskState: "IDLE",
            battery: { powerPercentage: battery[serialNumber], charging: false },
          })),
        },
      };
    });
    const watcher = {
      id: "watcher",
      type: "robot-status",
      z: "tab",
      robot: "cfg",
      operation: "fleetStatus",
      serialNumbers: Object.keys(battery).join(","),
      line: "s",
      watch: true,
      interval: 5,
      batteryStep: 10,
      batteryLow: 20,
      wires: [[], []],
    };
    const instances = await start({ rateLimit: 20 }, [watcher], ["watcher"]);
    const sends = () =>
      instances.flatMap((instance) =>
        outputsOf(instance, "watcher").map((sent) => ({
          instance: instance.name,
          serialNumber: String(sent.topic),
          battery: (sent.payload as { battery: { powerPercentage: number } }).battery.powerPercentage,
        })),
      );
    await instances[0]!.waitFor(() => sends().length === 3, 20_000, "every robot's first report");
    const holder = instances.find((instance) => outputsOf(instance, "watcher").length === 3)!;
    assert.equal(new Set(sends().map((sent) => sent.instance)).size, 1, "one instance sends");

    battery["GS-W-1"] = 70;
    await holder.waitFor(
      () => sends().some((sent) => sent.serialNumber === "GS-W-1" && sent.battery === 70),
      12_000,
      "the change from the holder",
    );

    await holder.kill();
    battery["GS-W-2"] = 60;
    const changedAt = Date.now();
    const others = instances.filter((instance) => instance !== holder);
    await others[0]!.waitFor(
      () => sends().some((sent) => sent.serialNumber === "GS-W-2" && sent.battery === 60),
      15_000,
      "the change after the kill",
    );
    const tookMs = Date.now() - changedAt;
    console.log(`      the next change after the watching instance was killed came in ${tookMs} ms (interval 5000 ms)`);
    assert.ok(tookMs <= 2 * 5000 + 2000, `took ${tookMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 6000));
    // Each robot's first report once, each change once, across all three instances.
    const counts = new Map<string, number>();
    for (const sent of sends())
      counts.set(`${sent.serialNumber}@${sent.battery}`, (counts.get(`${sent.serialNumber}@${sent.battery}`) ?? 0) + 1);
    assert.deepEqual(Object.fromEntries(counts), { "GS-W-1@90": 1, "GS-W-2@90": 1, "GS-W-3@90": 1, "GS-W-1@70": 1, "GS-W-2@60": 1 });
  });

  it("Redis killed mid-burst and started again: every message ends once and the cloud never sees more than the limit in a second", async () => {
    server.respondWith((request) => ({ body: { serialNumber: STATUS_PATH.exec(request.path)?.[1], taskState: "IDLE" } }));
    const instances = await start({ rateLimit: 60 });
    // The instances count each other every 5 s: each must know there are three before Redis goes.
    await new Promise((resolve) => setTimeout(resolve, 5500));
    await Promise.all(
      instances.map((instance) =>
        Promise.all(Array.from({ length: 300 }, (_, index) => instance.inject("reader", { serialNumber: `${instance.name}-${index}` }))),
      ),
    );
    const answered = () => instances.reduce((sum, instance) => sum + outputsOf(instance, "reader").length, 0);
    await instances[0]!.waitFor(() => answered() >= 150, 30_000, "the burst under way");
    await redis.kill();
    const killedAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await redis.restart();
    await Promise.all(
      instances.map((instance) =>
        instance.waitFor(() => outputsOf(instance, "reader").length === 300, 60_000, `${instance.name}'s 300 outputs`),
      ),
    );
    for (const instance of instances) {
      assert.equal(outputsOf(instance, "errors").length, 0, `${instance.name}: no error`);
      const lines = instance.logs.map((entry) => entry.text);
      assert.equal(
        lines.filter((line) => /cannot be reached/.test(line)).length,
        1,
        `${instance.name} logged the outage once: ${lines.join(" | ")}`,
      );
      assert.equal(
        lines.filter((line) => /is back: the account is shared again/.test(line)).length,
        1,
        `${instance.name} logged the return once: ${instance.logs.map((entry) => `[${entry.level}] ${entry.text}`).join(" | ")}`,
      );
    }
    assert.equal(statusCalls().length, 900, "no call sent twice");
    const whileDown = statusCalls().filter((request) => request.at > killedAt && request.at < killedAt + 3000);
    const busiest = busiestSecond(statusCalls().map((request) => request.at));
    console.log(`      Redis down 3 s mid-burst: ${whileDown.length} calls while it was down, busiest second ${busiest} (limit 60)`);
    assert.ok(busiest <= 60, `busiest second held ${busiest}`);
    assert.ok(whileDown.length > 0, "the instances went on while Redis was down");
  });
});
