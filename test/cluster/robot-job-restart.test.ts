/**
 * robot-job across a restart of Node-RED (a new process, so nothing of the
 * package's memory is left) with a persistent context store: the second
 * process reads the jobs back from the node's context, follows them to their
 * ends and sends each end once; no robot is stopped or sent a job again.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startInstance, type Instance } from "../support/node-red-cluster";
import { stubSerial } from "../support/fleet-stub";
import { JobFleetStub } from "../support/job-fleet-stub";

const ROBOTS = 2;

describe("robot-job across a Node-RED restart with a persistent context store", function () {
  this.timeout(120_000);
  let stub: JobFleetStub;
  let instances: Instance[] = [];
  let contextDir: string;
  afterEach(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    instances = [];
    await stub?.server.stop();
    fs.rmSync(contextDir, { recursive: true, force: true });
  });

  it("follows the running jobs on after the restart and ends each once", async () => {
    stub = await new JobFleetStub(ROBOTS).start();
    stub.runReads = undefined;
    contextDir = fs.mkdtempSync(path.join(os.tmpdir(), "robot-job-context-"));
    const flows = [
      { id: "tab", type: "tab", label: "jobs" },
      { id: "cfg", type: "robot-config", baseUrl: stub.url, timeout: 10, maxRetries: 3, authMode: "token" },
      { id: "job", type: "robot-job", z: "tab", robot: "cfg", minBattery: 30, waitUpTo: 60, tries: 3, confirmTimeout: 20, wires: [[], []] },
      { id: "errors", type: "catch", z: "tab", scope: ["job"], uncaught: false, wires: [[]] },
    ];
    const options = {
      flows,
      credentials: { cfg: { token: "restart-token" } },
      watch: ["job", "errors"],
      settings: { contextStorage: { default: { module: "localfilesystem", config: { dir: contextDir, flushInterval: 1 } } } },
    };
    const first = await startInstance({ name: "A", ...options });
    instances.push(first);
    for (let job = 0; job < ROBOTS; job++)
      await first.inject("job", { payload: { task: `Task ${job}`, map: "Floor 1", jobId: `job-${job}` }, topic: `sensor-${job}` });
    const started = (instance: Instance) =>
      instance.sent.filter((sent) => sent.node === "job" && sent.port === 1 && (sent.payload as { event: string }).event === "started");
    await first.waitFor((instance) => started(instance).length === ROBOTS || undefined, 30_000, "both jobs started");
    await first.stop();
    instances = [];

    const second = await startInstance({ name: "B", ...options });
    instances.push(second);
    // Give the new process a status read of the running robots, then let the tasks end.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (let index = 1; index <= ROBOTS; index++) stub.finish(stubSerial(index));
    const ends = (instance: Instance) => instance.sent.filter((sent) => sent.node === "job" && sent.port === 0);
    await second.waitFor((instance) => ends(instance).length === ROBOTS || undefined, 30_000, "both ends after the restart");
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.deepEqual(
      second.sent.filter((sent) => sent.node === "errors"),
      [],
    );
    const done = ends(second).map((sent) => sent.msg);
    assert.deepEqual(done.map((msg) => msg.jobId).sort(), ["job-0", "job-1"]);
    assert.ok(
      done.every((msg) => msg.topic === `sensor-${String(msg.jobId).slice(4)}`),
      "each end keeps its job's topic",
    );
    assert.ok(done.every((msg) => (msg.payload as { outcome: string }).outcome === "completed"));
    for (let index = 1; index <= ROBOTS; index++) {
      assert.deepEqual(
        stub.commands.get(stubSerial(index))?.map((command) => command.type),
        ["START_TASK"],
        `${stubSerial(index)}: one start, no stop`,
      );
    }
  });
});
