/**
 * robot-plan with the account shared by two Node-RED processes through a real
 * redis-server: both run the same plan on plan clocks that read one time at
 * one moment (the hidden robotPlanClock setting with realAt), so both look at
 * each occurrence together; the Redis claim gives it to one. That one starts
 * its job and settles it; the other sends nothing of it, neither `due` nor
 * an end. Without the shared claim each process would start every occurrence.
 * Either process's report then lists every occurrence once as it ended,
 * from what the other settled and kept in Redis.
 */
import assert from "node:assert/strict";
import { startCluster, type Instance, type SentMessage } from "../support/node-red-cluster";
import { stubSerial } from "../support/fleet-stub";
import { JobFleetStub } from "../support/job-fleet-stub";
import { useRedis } from "../support/redis-server";

const ROOMS = 6;
const PLAN_START = "2026-06-10T05:58:00+02:00";
/** Berlin is UTC+02:00 on the plan's day. */
const BERLIN_OFFSET_MS = 2 * 3_600_000;

type Payload = Record<string, unknown>;
const payloadOf = (sent: SentMessage) => sent.payload as Payload;

describe("robot-plan on an account shared by two Node-RED processes", function () {
  this.timeout(180_000);
  const { redis } = useRedis();
  let stub: JobFleetStub;
  let cluster: Instance[] = [];
  afterEach(async () => {
    await Promise.all(cluster.map((instance) => instance.stop()));
    cluster = [];
    await stub?.server.stop();
  });

  it("starts each occurrence once, and only the process that claimed it settles it", async () => {
    stub = await new JobFleetStub(ROOMS).start();
    const realAt = Date.now();
    const flows = [
      { id: "tab", type: "tab", label: "plan" },
      {
        id: "cfg",
        type: "robot-config",
        baseUrl: stub.url,
        timeout: 10,
        maxRetries: 3,
        rateLimit: 20,
        authMode: "token",
        redisUrl: redis.url,
        redisPrefix: "plan-test",
      },
      {
        id: "plan",
        type: "robot-plan",
        z: "tab",
        robot: "cfg",
        timezone: "Europe/Berlin",
        lateBy: 15,
        skipDates: [],
        plan: [],
        wires: [[], [], []],
      },
      { id: "errors", type: "catch", z: "tab", scope: ["plan"], uncaught: false, wires: [[]] },
    ];
    cluster = await startCluster(2, {
      flows,
      credentials: { cfg: { token: "shared-token" } },
      watch: ["plan", "errors"],
      settings: { robotPlanClock: { startAt: PLAN_START, realAt } },
    });
    // Every room at one second, a quarter of a minute ahead of both plan clocks (set now: the processes' start takes what it takes).
    const planNow = Date.parse(PLAN_START) + (Date.now() - realAt);
    const at = new Date(Math.ceil((planNow + 15_000) / 1000) * 1000 + BERLIN_OFFSET_MS).toISOString().slice(11, 19);
    const minute = `2026-06-10T${at.slice(0, 5)}`;
    const plan = Array.from({ length: ROOMS }, (_, index) => ({
      name: `Room ${index + 1}`,
      days: "daily",
      at,
      map: "Floor 1",
      task: `Task ${index + 1}`,
    }));
    for (const instance of cluster) await instance.inject("plan", { payload: { plan } });

    const expected = plan.map((item) => `${item.name}@${minute}`).sort();
    const ends = (instance: Instance) => instance.sent.filter((sent) => sent.node === "plan" && sent.port === 0);
    const dues = (instance: Instance) =>
      instance.sent.filter((sent) => sent.node === "plan" && sent.port === 1 && payloadOf(sent).event === "due");
    const all = <T>(pick: (instance: Instance) => T[]) => cluster.flatMap(pick);
    await cluster[0]!.waitFor(() => all(ends).length >= ROOMS || undefined, 150_000, `the ${ROOMS} occurrences' ends`);
    // A moment more, for anything sent twice to arrive.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    assert.deepEqual(
      all((instance) => instance.sent.filter((sent) => sent.node === "errors")).map((sent) => JSON.stringify(sent.msg.error)),
      [],
    );
    assert.deepEqual(
      all(ends)
        .map((sent) => String(payloadOf(sent).occurrenceId))
        .sort(),
      expected,
      "each occurrence settled once across both processes",
    );
    assert.deepEqual(
      all(dues)
        .map((sent) => String(payloadOf(sent).occurrenceId))
        .sort(),
      expected,
      "each occurrence due once across both processes",
    );
    for (const instance of cluster) {
      const settledHere = ends(instance)
        .map((sent) => String(payloadOf(sent).occurrenceId))
        .sort();
      assert.deepEqual(
        dues(instance)
          .map((sent) => String(payloadOf(sent).occurrenceId))
          .sort(),
        settledHere,
        `${instance.name} settled exactly the occurrences it claimed`,
      );
      assert.ok(
        ends(instance).every((sent) => payloadOf(sent).status === "done"),
        `${instance.name}'s ends are done`,
      );
    }
    let starts = 0;
    for (let index = 1; index <= ROOMS; index++) starts += stub.startCommands(stubSerial(index)).length;
    assert.equal(starts, ROOMS, "one start per occurrence");

    // Each process's report is the account's: every occurrence once, as it ended in whichever process ran it.
    const reports: string[][] = [];
    for (const instance of cluster) {
      const answers = () => instance.sent.filter((sent) => sent.node === "plan" && sent.port === 2);
      const before = answers().length;
      await instance.inject("plan", { payload: { report: { from: "2026-06-10" } } });
      const rows = (await instance.waitFor(() => answers()[before]?.payload, 20_000, `${instance.name}'s report`)) as {
        occurrences: Record<string, unknown>[];
      };
      reports.push(
        rows.occurrences.map((row) =>
          [row.occurrenceId, row.status, row.serialNumber, row.startedAt, row.endedAt, row.timezone].map(String).join(" | "),
        ),
      );
    }
    for (const [index, report] of reports.entries())
      assert.deepEqual(
        report.map((row) => row.split(" | ").slice(0, 2).join(" | ")).sort(),
        expected.map((id) => `${id} | done`),
        `${cluster[index]!.name}'s report lists every occurrence once, done`,
      );
    assert.deepEqual(reports[1], reports[0], "B's report is A's: same occurrences, states, robots and times");
  });
});
