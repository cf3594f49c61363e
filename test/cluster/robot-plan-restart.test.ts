/**
 * robot-plan across a restart of Node-RED (a new process, nothing of the
 * package's memory left) with a persistent context store, on plan clocks in
 * the child processes (the hidden robotPlanClock setting): the first process
 * runs 06:00 to its end; the second comes up at 06:25:30 with lateBy 12 and
 * reads the plan's book back from the node's context. 06:15 (10 minutes
 * past) runs late and settles late, 06:10 (15 minutes past) is recorded
 * missed, and 06:00 is neither run nor settled again. With the account
 * shared through a real redis-server: an occurrence settled while Redis was
 * down is kept in the node's context, and the restarted node writes it to
 * Redis, where the other instances' reports read it.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startInstance, type Instance, type SentMessage } from "../support/node-red-cluster";
import { stubSerial } from "../support/fleet-stub";
import { JobFleetStub } from "../support/job-fleet-stub";
import { redisCommand, useRedis } from "../support/redis-server";
import { until } from "../support/until";

const R1 = stubSerial(1);
type Payload = Record<string, unknown>;
const payloadOf = (sent: SentMessage) => sent.payload as Payload;
const item = (name: string, at: string) => ({ name, days: "daily", at, map: "Floor 1", task: `Task ${name}` });

/** The plan node on its tab with its robot-config (`config` over the config's fields) and a Catch node for its errors. */
function planFlows(baseUrl: string, plan: unknown[], config: Record<string, unknown> = {}): Array<Record<string, unknown>> {
  return [
    { id: "tab", type: "tab", label: "plan" },
    { id: "cfg", type: "robot-config", baseUrl, timeout: 10, maxRetries: 3, authMode: "token", ...config },
    {
      id: "plan",
      type: "robot-plan",
      z: "tab",
      robot: "cfg",
      timezone: "Europe/Berlin",
      lateBy: 12,
      skipDates: [],
      plan,
      wires: [[], [], []],
    },
    { id: "errors", type: "catch", z: "tab", scope: ["plan"], uncaught: false, wires: [[]] },
  ];
}

/** A process of the flows whose plan clock starts at `startAt`, its context in files under `contextDir` (written within a second). */
function instanceOptions(flows: Array<Record<string, unknown>>, contextDir: string, startAt: string) {
  return {
    flows,
    credentials: { cfg: { token: "restart-token" } },
    watch: ["plan", "errors"],
    settings: {
      contextStorage: { default: { module: "localfilesystem", config: { dir: contextDir, flushInterval: 1 } } },
      robotPlanClock: { startAt },
    },
  };
}

const ends = (instance: Instance) => instance.sent.filter((sent) => sent.node === "plan" && sent.port === 0).map(payloadOf);
const errors = (instance: Instance) => instance.sent.filter((sent) => sent.node === "errors").map((sent) => JSON.stringify(sent.msg.error));

describe("robot-plan across a Node-RED restart with a persistent context store", function () {
  this.timeout(120_000);
  let stub: JobFleetStub;
  let instances: Instance[] = [];
  let contextDir: string;
  beforeEach(async () => {
    stub = await new JobFleetStub(1).start();
    stub.runReads = undefined;
    contextDir = fs.mkdtempSync(path.join(os.tmpdir(), "robot-plan-context-"));
  });
  afterEach(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    instances = [];
    await stub.server.stop();
    fs.rmSync(contextDir, { recursive: true, force: true });
  });

  it("after downtime runs what is within lateBy late, records what is older missed, and repeats nothing that ran before", async () => {
    const flows = planFlows(stub.url, [item("Before", "06:00"), item("Missed", "06:10"), item("Late", "06:15")]);
    const options = (startAt: string) => instanceOptions(flows, contextDir, startAt);
    const events = (instance: Instance) =>
      instance.sent
        .filter((sent) => sent.node === "plan" && sent.port === 1)
        .map((sent) => `${String(payloadOf(sent).event)} ${String(payloadOf(sent).occurrenceId)}`);

    const first = await startInstance({ name: "A", ...options("2026-06-10T05:59:50+02:00") });
    instances.push(first);
    await first.waitFor((instance) => events(instance).includes("started Before@2026-06-10T06:00") || undefined, 40_000, "06:00 started");
    stub.finish(R1);
    await first.waitFor((instance) => ends(instance).length === 1 || undefined, 30_000, "06:00 settled");
    assert.equal(ends(first)[0]!.status, "done");
    await first.stop();
    instances = [];

    const second = await startInstance({ name: "B", ...options("2026-06-10T06:25:30+02:00") });
    instances.push(second);
    await second.waitFor(
      (instance) => events(instance).includes("started Late@2026-06-10T06:15") || undefined,
      30_000,
      "06:15 started late",
    );
    stub.finish(R1);
    await second.waitFor((instance) => ends(instance).length === 2 || undefined, 30_000, "06:15's end");
    // A moment more, for anything sent twice to arrive.
    await new Promise((resolve) => setTimeout(resolve, 2000));

    assert.deepEqual([...errors(first), ...errors(second)], []);
    assert.deepEqual(
      ends(second).map((end) => `${String(end.occurrenceId)} ${String(end.status)}`),
      ["Missed@2026-06-10T06:10 missed", "Late@2026-06-10T06:15 late"],
    );
    const late = ends(second)[1]!;
    assert.equal((late.job as { outcome: string }).outcome, "completed");
    assert.equal(late.plannedAt, "2026-06-10T04:15:00.000Z");
    assert.ok(
      second.sent.some((sent) => sent.port === 1 && payloadOf(sent).event === "due" && payloadOf(sent).late === true),
      "06:15 was due late",
    );
    assert.ok(!events(second).some((event) => event.includes("Before")), "06:00 not looked at again");
    assert.deepEqual(
      stub.startCommands(R1).map((command) => command.type),
      ["START_TASK", "START_TASK"],
      "06:00 before the restart and 06:15 after it, nothing else",
    );
  });

  describe("with the account shared through a real redis-server", function () {
    this.timeout(180_000);
    const { redis } = useRedis();

    it("keeps an occurrence settled while Redis was down in the node's context, and writes it to Redis after the restart", async () => {
      const flows = planFlows(stub.url, [item("Kitchen", "06:00")], { redisUrl: redis.url, redisPrefix: "plan-restart" });
      const options = (startAt: string) => instanceOptions(flows, contextDir, startAt);
      const started = (instance: Instance) =>
        instance.sent.some((sent) => sent.node === "plan" && sent.port === 1 && payloadOf(sent).event === "started");
      /** The occurrence as the account's Redis keeps it for every instance's report (the settled hash of robot-claims.ts). */
      const inRedis = async () => {
        const keys = (await redisCommand(redis.port, "KEYS", "plan-restart:*:occurrences:settled")) as string[];
        return keys.length === 0 ? null : redisCommand(redis.port, "HGET", keys[0]!, "Kitchen@2026-06-10T06:00");
      };

      const first = await startInstance({ name: "A", ...options("2026-06-10T05:59:50+02:00") });
      instances.push(first);
      await first.waitFor((instance) => started(instance) || undefined, 40_000, "06:00 started");
      await redis.stop();
      stub.finish(R1);
      await first.waitFor((instance) => ends(instance).length === 1 || undefined, 30_000, "06:00 settled while Redis is down");
      assert.equal(ends(first)[0]!.status, "done");
      await first.stop();
      instances = [];

      // Redis comes back empty: only the restarted node can give it the occurrence.
      await redis.restart();
      assert.equal(await inRedis(), null);
      const second = await startInstance({ name: "B", ...options("2026-06-10T06:30:00+02:00") });
      instances.push(second);
      // Written at a look once the node's Redis link is up: the first look may come before it, the next within a minute.
      await until("the occurrence written to Redis after the restart", async () => (await inRedis()) !== null, 90_000);
      const shared = JSON.parse((await inRedis()) as string) as Payload;
      assert.deepEqual([shared.occurrenceId, shared.status], ["Kitchen@2026-06-10T06:00", "done"]);
      assert.equal(ends(second).length, 0, "nothing settled again");
      assert.deepEqual([...errors(first), ...errors(second)], []);
      assert.equal(stub.startCommands(R1).length, 1);
    });
  });
});
