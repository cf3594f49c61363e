/**
 * robot-job with the account shared by two Node-RED processes through a real
 * redis-server: both get jobs for the same few robots at once, and a robot is
 * claimed in Redis before it is sent a job, so no robot is sent a job while
 * it runs another's, and every job ends once, in the instance that took it.
 */
import assert from "node:assert/strict";
import { startCluster, type Instance } from "../support/node-red-cluster";
import { stubSerial } from "../support/fleet-stub";
import { JobFleetStub } from "../support/job-fleet-stub";
import { useRedis } from "../support/redis-server";

const ROBOTS = 3;
const JOBS_PER_INSTANCE = 6;

describe("robot-job on an account shared by two Node-RED processes", function () {
  this.timeout(180_000);
  const { redis } = useRedis();
  let stub: JobFleetStub;
  let cluster: Instance[] = [];
  afterEach(async () => {
    await Promise.all(cluster.map((instance) => instance.stop()));
    cluster = [];
    await stub?.server.stop();
  });

  it("never sends one robot two jobs, and each job ends once", async () => {
    stub = await new JobFleetStub(ROBOTS).start();
    const flows = [
      { id: "tab", type: "tab", label: "jobs" },
      {
        id: "cfg",
        type: "robot-config",
        baseUrl: stub.url,
        timeout: 10,
        maxRetries: 3,
        rateLimit: 20,
        authMode: "token",
        redisUrl: redis.url,
        redisPrefix: "jobs-test",
      },
      {
        id: "job",
        type: "robot-job",
        z: "tab",
        robot: "cfg",
        minBattery: 30,
        waitUpTo: 150,
        tries: 3,
        confirmTimeout: 20,
        wires: [[], []],
      },
      { id: "errors", type: "catch", z: "tab", scope: ["job"], uncaught: false, wires: [[]] },
    ];
    cluster = await startCluster(2, { flows, credentials: { cfg: { token: "shared-token" } }, watch: ["job", "errors"] });
    for (const instance of cluster) {
      for (let job = 0; job < JOBS_PER_INSTANCE; job++)
        await instance.inject("job", { payload: { task: `Task ${job}`, map: "Floor 1", jobId: `${instance.name}-${job}` } });
    }
    const ends = (instance: Instance) => instance.sent.filter((sent) => sent.node === "job" && sent.port === 0);
    const errors = (instance: Instance) => instance.sent.filter((sent) => sent.node === "errors");
    for (const instance of cluster) {
      await instance.waitFor(
        (each) => ends(each).length + errors(each).length >= JOBS_PER_INSTANCE || undefined,
        150_000,
        `${instance.name}'s ${JOBS_PER_INSTANCE} ends`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const instance of cluster) {
      assert.deepEqual(
        errors(instance).map((sent) => JSON.stringify(sent.msg.error)),
        [],
        `${instance.name} ended no job with an error`,
      );
      const ids = ends(instance).map((sent) => sent.msg.jobId as string);
      assert.deepEqual(
        [...ids].sort(),
        Array.from({ length: JOBS_PER_INSTANCE }, (_, job) => `${instance.name}-${job}`).sort(),
        `${instance.name}'s jobs each ended once`,
      );
    }
    let starts = 0;
    for (let index = 1; index <= ROBOTS; index++) {
      const commands = stub.startCommands(stubSerial(index));
      assert.deepEqual(
        commands.filter((command) => command.whileBusy),
        [],
        `${stubSerial(index)} was never sent a job while it ran another`,
      );
      starts += commands.length;
    }
    assert.equal(starts, 2 * JOBS_PER_INSTANCE, "one start per job");
  });
});
