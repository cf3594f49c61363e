/**
 * robot-job's bounds and states through real Node-RED against the job fleet
 * stub (and, for the claims, a real redis-server): waitUpTo in seconds on
 * either side of its limit, the minimum battery and the blocking alarm rank
 * at their edges, the Redis claim's lifetime, a job ending with NO_ROBOT in
 * its time while Redis is stopped or another instance holds the robot, a name
 * no robot has ending at once with INVALID_INPUT, the offline limit of a
 * running job, and every move of the state table walked at least once.
 */
import assert from "node:assert/strict";
import { jobsOfAccount, type JobRecord } from "../../src/api/jobs/job-book";
import { JOB_TRANSITIONS, IllegalTransition, nextPhase, type JobEvent, type JobPhase, type JobState } from "../../src/api/jobs/job-states";
import robotEvents from "../../src/nodes/robot-events/robot-events";
import robotJob from "../../src/nodes/robot-job";
import { CLAIM_MS } from "../../src/api/jobs/robot-claims";
import { onJobTransition } from "../../src/api/jobs/job-states";
import { stubSerial } from "../support/fleet-stub";
import { jobNode, useJobFleet } from "../support/job-flow";
import { JobFleetStub, STUB_MAP } from "../support/job-fleet-stub";
import { rawRequest } from "../support/raw-http";
import { redisCommand, useRedis } from "../support/redis-server";
import { TEST_TOKEN, collectMessages, flowWith, helper, loadFlow, outputsAndCatch, waitFor, type FlowNode } from "../support/node-red";

const [R1, R2] = [1, 2].map(stubSerial) as [string, string];
type Msg = Record<string, unknown> & { payload: Record<string, unknown> };
type Caught = { error: { code: string; message: string; cause?: { robots: Record<string, string> } } };

/** Every move the jobs of this file made, as "from event": checked against the table at the end. */
const walked = new Set<string>();
const stopWatching = onJobTransition((move) => walked.add(`${move.from} ${move.event}`));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for a look at Redis to come true. */
async function eventually(look: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(50)) if (await look()) return;
  throw new Error(`timed out waiting for ${what}`);
}

describe("robot-job: every wait has a bound, every job ends once", function () {
  this.timeout(60_000);
  let stub: JobFleetStub;
  const fleet = useJobFleet();
  const http = fleet.http;
  after(() => stopWatching());

  async function start(robots: number, settings: Record<string, unknown> = {}, config: Record<string, unknown> = {}, extra: FlowNode[] = [], credentials?: Record<string, Record<string, string>>) {
    stub = await fleet.newStub(robots);
    const flow = flowWith(stub.url, [jobNode(settings), ...outputsAndCatch("job"), { id: "progress", type: "helper" }, ...extra], config);
    await loadFlow([http.serving(robotJob), robotEvents], flow, credentials);
    return { ends: collectMessages("out") as Msg[], caught: collectMessages("caught") as unknown as Caught[], progress: collectMessages("progress") as Msg[] };
  }
  const send = (payload: unknown) => helper.getNode("job").receive({ payload });
  const accountKey = () => (helper.getNode("config") as unknown as { robot: { client: { accountKey: string } } }).robot.client.accountKey;

  describe("waitUpTo, in seconds", () => {
    // No robot ever comes free: the job ends at its limit, not before and within a second after (a limit read in ms would end at once).
    for (const waitUpTo of [0, 1, 2]) {
      it(`a job with waitUpTo ${waitUpTo} s and no free robot ends with NO_ROBOT between ${waitUpTo} s and ${waitUpTo + 1} s`, async () => {
        const { caught } = await start(1);
        stub.update(R1, (status) => (status.taskState = "RUNNING"));
        const sent = Date.now();
        send({ task: "Kitchen", map: "Floor 1", waitUpTo });
        await waitFor(() => caught.length === 1, 10_000, "NO_ROBOT");
        const seconds = (Date.now() - sent) / 1000;
        assert.equal(caught[0]!.error.code, "NO_ROBOT");
        assert.ok(seconds >= waitUpTo && seconds < waitUpTo + 1, `ended after ${seconds} s`);
      });
    }

    // The robot comes free 2 s after the job is asked for: one second less ends without it, one second more takes it.
    for (const [waitUpTo, expected] of [
      [1, "NO_ROBOT"],
      [3, "completed"],
    ] as const) {
      it(`with the robot free after 2 s, waitUpTo ${waitUpTo} s ends ${expected}`, async () => {
        const { ends, caught } = await start(1);
        stub.update(R1, (status) => (status.taskState = "RUNNING"));
        send({ task: "Kitchen", map: "Floor 1", waitUpTo });
        setTimeout(() => stub.update(R1, (status) => (status.taskState = "IDLE")), 2000);
        await waitFor(() => ends.length + caught.length === 1, 15_000, "the job's end");
        assert.equal(caught[0]?.error.code ?? ends[0]!.payload.outcome, expected);
      });
    }

    const table: [waitUpTo: unknown, accepted: boolean][] = [
      [-1, false],
      [0, true],
      [86_400, true],
      [86_401, false],
      ["60", false],
    ];
    it("accepts waitUpTo from 0 to 86400 s and refuses what is outside, naming payload.waitUpTo", async () => {
      const { ends, caught } = await start(1);
      stub.runReads = 1;
      for (const [waitUpTo, accepted] of table) {
        const before = { ends: ends.length, caught: caught.length };
        send({ task: "Kitchen", map: "Floor 1", waitUpTo });
        await waitFor(() => ends.length + caught.length > before.ends + before.caught, 10_000, `the end of waitUpTo ${String(waitUpTo)}`);
        if (accepted) assert.equal(ends.length, before.ends + 1, `waitUpTo ${String(waitUpTo)} was accepted: ${JSON.stringify(caught.at(-1))}`);
        else assert.match(caught.at(-1)!.error.message, /payload\.waitUpTo/, `waitUpTo ${String(waitUpTo)}`);
      }
    });
  });

  describe("who is eligible", () => {
    for (const [battery, reason] of [
      [29, "battery 29 %"],
      [30, undefined],
      [31, undefined],
    ] as const) {
      it(`battery ${battery} % with minBattery 30: ${reason ?? "eligible"}`, async () => {
        const { ends, caught } = await start(1, { waitUpTo: 0 });
        stub.update(R1, (status) => (status.battery.powerPercentage = battery));
        send({ task: "Kitchen", map: "Floor 1" });
        await waitFor(() => ends.length + caught.length === 1, 10_000, "the job's end");
        if (reason) assert.deepEqual(caught[0]!.error.cause!.robots, { [R1]: reason });
        else assert.equal(ends[0]!.payload.serialNumber, R1, JSON.stringify(caught[0]?.error));
      });
    }

    for (const [level, blocks] of [
      ["H3", false],
      ["H4", true],
    ] as const) {
      it(`an open ${level} alarm ${blocks ? "keeps the robot out" : "does not keep the robot out"}`, async () => {
        const events = { id: "events", type: "robot-events", robot: "config", path: "/bounds-events", minLevel: "", wires: [[], []] };
        const { ends, caught } = await start(1, { waitUpTo: 1 }, {}, [events], { config: { token: TEST_TOKEN }, events: { appId: "app-1" } });
        const push = { appId: "app-1", payload: { serialNumber: R1, content: { incidentId: "i-1", incidentLevel: level, incidentName: "Side brush", incidentStatus: 1, startTime: Date.now() } } };
        assert.equal((await rawRequest(http.url, "POST", "/bounds-events", { body: push })).status, 200);
        send({ task: "Kitchen", map: "Floor 1" });
        await waitFor(() => ends.length + caught.length === 1, 10_000, "the job's end");
        if (blocks) assert.deepEqual(caught[0]!.error.cause!.robots, { [R1]: "alarm H4 Side brush" });
        else assert.equal(ends[0]!.payload.serialNumber, R1, JSON.stringify(caught[0]?.error));
      });
    }
  });

  describe("names no robot of the account has", () => {
    const table: [label: string, payload: Record<string, unknown>, expected: string][] = [
      ["a map", { task: "Kitchen", map: "Floor 9" }, 'payload.map: no robot of the account has a map "Floor 9"'],
      ["an area", { area: "Kitchn", map: "Floor 1" }, 'payload.area: no robot of the account has an area "Kitchn" on map "Floor 1"'],
      ["a point", { goto: "Nowhere", map: "Floor 1" }, 'payload.goto: no robot of the account has a navigation point "Nowhere" on map "Floor 1"'],
      ["a task", { task: "Atrium", map: "Floor 1" }, 'payload.task: no robot of the account has a task "Atrium" on map "Floor 1"'],
    ];
    for (const [label, payload, expected] of table) {
      it(`${label}: INVALID_INPUT naming it at once, not after waitUpTo`, async () => {
        const { ends, caught } = await start(2, { waitUpTo: 600 });
        for (const robot of [R1, R2]) {
          // Busy, so the job would wait its 600 s; the v1 shape's executable tasks tell which tasks there are.
          stub.update(robot, (status) => {
            status.taskState = "RUNNING";
            (status as unknown as Record<string, unknown>).executableTasks = [{ name: "Kitchen", map: { ...STUB_MAP } }];
          });
        }
        const sent = Date.now();
        send(payload);
        await waitFor(() => caught.length === 1, 10_000, "INVALID_INPUT");
        assert.equal(caught[0]!.error.code, "INVALID_INPUT");
        assert.equal(caught[0]!.error.message, `RobotApiError: ${expected}`);
        assert.ok(Date.now() - sent < 3000, `ended after ${Date.now() - sent} ms`);
        assert.equal(ends.length, 0);
        assert.equal(stub.startCommands(R1).length + stub.startCommands(R2).length, 0);
      });
    }
  });

  it("an area no robot has, with a free robot tried meanwhile: INVALID_INPUT naming payload.area, once", async () => {
    const { ends, caught } = await start(1, { waitUpTo: 600, tries: 3 });
    send({ area: "Kitchn", map: "Floor 1" });
    await waitFor(() => caught.length === 1, 10_000, "INVALID_INPUT");
    await sleep(500);
    assert.equal(caught.length, 1);
    assert.equal(caught[0]!.error.code, "INVALID_INPUT");
    assert.match(caught[0]!.error.message, /payload\.area: no robot of the account has an area "Kitchn" on map "Floor 1"$/);
    assert.equal(ends.length, 0);
  });

  describe("a running job whose robot stays offline", () => {
    // offlineLimit 0.05 min is 3 s.
    it("ends with outcome unknown and the reason once the robot is offline for the limit, not before and within a second after", async () => {
      const { ends } = await start(1, { offlineLimit: 0.05 });
      stub.runReads = undefined;
      send({ task: "Kitchen", map: "Floor 1", jobId: "gone" });
      await waitFor(() => stub.statuses.get(R1)!.taskState === "RUNNING", 10_000, "the task running");
      await sleep(300);
      const offlineAt = Date.now();
      stub.update(R1, (status) => (status.online = false));
      await waitFor(() => ends.length === 1, 10_000, "the job's end");
      const seconds = (Date.now() - offlineAt) / 1000;
      assert.ok(seconds >= 2.8 && seconds < 4, `ended ${seconds} s after the robot went offline`);
      assert.equal(ends[0]!.payload.outcome, "unknown");
      assert.equal(ends[0]!.payload.reason, "robot offline for 0.05 min");
      // The robot comes back and ends its task: the job has ended already, and ends no second time.
      stub.update(R1, (status) => (status.online = true));
      stub.finish(R1);
      await sleep(500);
      assert.equal(ends.length, 1);
    });

    it("follows on a robot offline one second less than the limit, and ends with its task", async () => {
      const { ends } = await start(1, { offlineLimit: 0.05 });
      stub.runReads = undefined;
      send({ task: "Kitchen", map: "Floor 1" });
      await waitFor(() => stub.statuses.get(R1)!.taskState === "RUNNING", 10_000, "the task running");
      await sleep(300);
      stub.update(R1, (status) => (status.online = false));
      await sleep(2000);
      stub.update(R1, (status) => (status.online = true));
      await sleep(1500);
      assert.equal(ends.length, 0, "no end while the robot was back in time");
      stub.finish(R1);
      await waitFor(() => ends.length === 1, 10_000, "the job's end");
      assert.equal(ends[0]!.payload.outcome, "completed");
      assert.equal(ends[0]!.payload.reason, undefined);
    });

    // Every status read refused from a moment on: the robot's last status (online, its task running) is all there is, and no sighting.
    for (const [unreadFor, ends] of [
      [2000, false],
      [undefined, true],
    ] as const) {
      it(`a robot no read reaches ${unreadFor === undefined ? "any more ends as offline once the limit is over, its last status online notwithstanding" : "for one second less than the limit is followed, and its job ends with its task"}`, async () => {
        const { ends: ended } = await start(1, { offlineLimit: 0.05 });
        stub.runReads = undefined;
        send({ task: "Kitchen", map: "Floor 1" });
        await waitFor(() => stub.statuses.get(R1)!.taskState === "RUNNING", 10_000, "the task running");
        await sleep(300);
        stub.failure = { status: 503, body: { code: 14, message: "The service is unavailable." } };
        if (unreadFor !== undefined) {
          await sleep(unreadFor);
          stub.failure = undefined;
          await sleep(1500);
          assert.equal(ended.length, 0, "no end while the robot was read again in time");
          stub.finish(R1);
        }
        await waitFor(() => ended.length === 1, 15_000, "the job's end");
        if (ends) {
          // Counted from the last status the package could read (the stub's last answer), not from the test's switch.
          assert.ok(Date.now() - stub.lastStatusReadAt >= 3000, `ended ${Date.now() - stub.lastStatusReadAt} ms after the last read`);
          assert.equal(ended[0]!.payload.outcome, "unknown");
          assert.equal(ended[0]!.payload.reason, "robot offline for 0.05 min");
        } else assert.equal(ended[0]!.payload.outcome, "completed");
      });
    }

    it("a goto job whose robot stands still with no navigation shown ends as unknown after the limit", async () => {
      const { ends } = await start(1, { offlineLimit: 0.05 });
      stub.update(R1, (status) => {
        const s = status as unknown as Record<string, unknown>;
        delete s.navStatus;
        s.navigationPoints = { naviPoints: [{ naviPointName: "Far corner", navPointGridX: 1000, navPointGridY: 100 }] };
      });
      send({ goto: "Far corner", map: "Floor 1" });
      await waitFor(() => stub.startCommands(R1).length === 1, 10_000, "the navigation sent");
      // It drives a little towards the point, then is stopped by hand: nothing in its status says so.
      await sleep(300);
      stub.place(R1, 300, 100);
      const stoppedAt = Date.now();
      await waitFor(() => ends.length === 1, 10_000, "the job's end");
      const seconds = (Date.now() - stoppedAt) / 1000;
      assert.ok(seconds >= 2.5 && seconds < 4.5, `ended ${seconds} s after the robot stopped`);
      assert.equal(ends[0]!.payload.outcome, "unknown");
      assert.equal(ends[0]!.payload.reason, "no status showed the navigation for 0.05 min");
    });
  });

  describe("with the account shared through a real redis-server", () => {
    const { redis } = useRedis();
    const shared = () => ({ redisUrl: redis.url, redisPrefix: "bounds" });
    const claimKey = (serialNumber: string) => `bounds:${accountKey()}:job-claim:${serialNumber}`;

    it(`claims the robot for ${CLAIM_MS / 1000} s while its job runs`, async () => {
      const { ends, progress } = await start(1, {}, shared());
      stub.runReads = undefined;
      send({ task: "Kitchen", map: "Floor 1", jobId: "claimed" });
      await waitFor(() => progress.some((msg) => msg.payload.event === "started"), 10_000, "the task started");
      assert.equal(await redisCommand(redis.port, "GET", claimKey(R1)), "claimed");
      const pttl = Number(await redisCommand(redis.port, "PTTL", claimKey(R1)));
      assert.ok(pttl > 55_000 && pttl <= 60_000, `PTTL ${pttl} ms`);
      stub.finish(R1);
      await waitFor(() => ends.length === 1, 10_000, "the job's end");
      await eventually(async () => (await redisCommand(redis.port, "EXISTS", claimKey(R1))) === 0, 5000, "the claim let go");
    });

    it("a job with waitUpTo 1 s ends with NO_ROBOT within a few seconds while Redis is stopped", async () => {
      const { ends, caught } = await start(1, {}, shared());
      await redis.stop();
      const sent = Date.now();
      send({ task: "Kitchen", map: "Floor 1", waitUpTo: 1 });
      await waitFor(() => ends.length + caught.length === 1, 15_000, "the job's end");
      const seconds = (Date.now() - sent) / 1000;
      console.log(`      (Redis stopped: NO_ROBOT after ${seconds} s)`);
      assert.equal(caught[0]?.error.code, "NO_ROBOT", JSON.stringify(ends[0]?.payload));
      assert.match(caught[0].error.cause!.robots[R1]!, /^claim refused: /);
      assert.ok(seconds >= 1 && seconds < 4, `ended after ${seconds} s`);
      assert.equal(stub.startCommands(R1).length, 0, "no start without a claim");
    });

    it("a job with waitUpTo 1 s ends with NO_ROBOT while another instance's job holds the robot", async () => {
      const { caught } = await start(1, {}, shared());
      await redisCommand(redis.port, "SET", claimKey(R1), "another-instance-job", "PX", 60_000);
      send({ task: "Kitchen", map: "Floor 1", waitUpTo: 1 });
      await waitFor(() => caught.length === 1, 10_000, "NO_ROBOT");
      assert.deepEqual(caught[0]!.error.cause!.robots, { [R1]: "claim refused: claimed by another instance's job" });
      assert.equal(await redisCommand(redis.port, "GET", claimKey(R1)), "another-instance-job", "the other job's claim is untouched");
    });

    it("a job cancelled while Redis answers its claim ends cancelled once, and the claim answered after is let go", async () => {
      const { ends } = await start(1, {}, shared());
      // The cancel comes in while the claim is on its way to Redis: an answer over the network comes after it.
      const stop = onJobTransition((move) => {
        if (move.jobId === "late-claim" && move.to === "claiming") send({ cancel: "late-claim" });
      });
      try {
        send({ task: "Kitchen", map: "Floor 1", jobId: "late-claim" });
        await waitFor(() => ends.length === 1, 10_000, "the cancelled job's end");
      } finally {
        stop();
      }
      await sleep(500);
      assert.equal(ends.length, 1);
      assert.equal(ends[0]!.payload.outcome, "cancelled");
      assert.equal(ends[0]!.payload.serialNumber, undefined, "no robot was sent the job");
      assert.equal(stub.startCommands(R1).length, 0);
      assert.equal(await redisCommand(redis.port, "EXISTS", claimKey(R1)), 0, "the claim is let go");
    });
  });

  describe("the state table", () => {
    it("refuses a move the table does not have", () => {
      assert.throws(() => nextPhase("waiting", "shown", "j-1"), IllegalTransition);
      assert.throws(() => nextPhase("ending", "cancel", "j-1"), /job j-1: no transition "cancel" from ending/);
      assert.throws(() => nextPhase("ended", "end", "j-1"), IllegalTransition);
      assert.equal(nextPhase("claiming", "claimRefused", "j-1"), "waiting");
    });

    it("a move the table lacks is refused loudly (an error a Catch node gets) and the job stays where it was", async () => {
      const { ends, caught } = await start(1);
      const running = JOB_TRANSITIONS.running as Partial<Record<JobEvent, JobState>>;
      const robotDone = running.robotDone;
      // As if the table had lost this move: the runtime asks for it when the robot finishes.
      delete running.robotDone;
      try {
        send({ task: "Kitchen", map: "Floor 1", jobId: "stuck" });
        await waitFor(() => caught.length > 0, 10_000, "the refusal");
        assert.match(caught[0]!.error.message, /job stuck: no transition "robotDone" from running/);
        assert.equal(ends.length, 0);
      } finally {
        running.robotDone = robotDone;
      }
      await waitFor(() => ends.length === 1, 10_000, "the job's end once the move is back");
      assert.equal(ends[0]!.payload.outcome, "completed");
    });

    it("cancels a waiting job, a job whose start is on its way, and a running one", async () => {
      const { ends } = await start(2, { confirmTimeout: 1 });
      stub.runReads = undefined;
      stub.update(R2, (status) => (status.online = false));
      stub.update(R1, (status) => (status.taskState = "RUNNING"));
      send({ task: "Kitchen", map: "Floor 1", jobId: "waits" });
      await sleep(400);
      send({ cancel: "waits" });
      await waitFor(() => ends.length === 1, 10_000, "the waiting job cancelled");
      stub.update(R1, (status) => (status.taskState = "IDLE"));
      stub.commandDelayMs = 500;
      send({ task: "Kitchen", map: "Floor 1", jobId: "sending" });
      await waitFor(() => stub.startCommands(R1).length === 1, 10_000, "the start on its way");
      send({ cancel: "sending" });
      await waitFor(() => ends.length === 2, 10_000, "the starting job cancelled");
      stub.finish(R1);
      stub.commandDelayMs = 0;
      send({ task: "Kitchen", map: "Floor 1", jobId: "runs" });
      await waitFor(() => stub.statuses.get(R1)!.taskState === "RUNNING", 10_000, "the task running");
      await sleep(400);
      send({ cancel: "runs" });
      await waitFor(() => ends.length === 3, 10_000, "the running job cancelled");
      assert.deepEqual(ends.map((msg) => [msg.jobId, msg.payload.outcome]), [["waits", "cancelled"], ["sending", "cancelled"], ["runs", "cancelled"]]);
    });

    it("a robot that refuses goes back to waiting; an area job redeployed before its start was sent looks again", async () => {
      const { caught } = await start(1, { tries: 1 });
      stub.refusing.add(R1);
      send({ task: "Kitchen", map: "Floor 1" });
      await waitFor(() => caught.length === 1, 10_000, "NO_ROBOT after the refusal");
      stub.placesDelayMs = 1500;
      send({ area: "Kitchen", map: "Floor 1", jobId: "area" });
      await sleep(700);
      const flow = flowWith(stub.url, [jobNode({ name: "again", tries: 1 }), ...outputsAndCatch("job"), { id: "progress", type: "helper" }]);
      await helper.setFlows(flow, "full", { config: { token: TEST_TOKEN } });
      const after = collectMessages("caught") as unknown as Caught[];
      // The robot still refuses (a temporary task too): the new node's try is refused, and the job ends once.
      await waitFor(() => after.length === 1, 15_000, "the area job's end");
      assert.equal(after[0]!.error.code, "NO_ROBOT");
    });

    it("a job left in claiming by a redeploy (the node closed while Redis answered) looks again and runs", async () => {
      const { ends } = await start(1);
      const kept: JobRecord = {
        jobId: "kept",
        nodeId: "job",
        work: { kind: "task", task: "Kitchen", map: "Floor 1" },
        settings: { minBattery: 30, waitUpToMs: 30_000, tries: 3, confirmTimeoutMs: 5000 },
        phase: "claiming",
        createdAt: Date.now(),
        serialNumber: R1,
        attempts: [],
        setAside: {},
      };
      // What the account's memory holds when the node closes between choosing the robot and Redis's answer.
      jobsOfAccount(accountKey()).add(kept);
      const flow = flowWith(stub.url, [jobNode({ name: "after a restart" }), ...outputsAndCatch("job"), { id: "progress", type: "helper" }]);
      await helper.setFlows(flow, "full", { config: { token: TEST_TOKEN } });
      const after = collectMessages("out") as Msg[];
      await waitFor(() => after.length === 1, 10_000, "the kept job's end");
      assert.equal(after[0]!.jobId, "kept");
      assert.equal(after[0]!.payload.outcome, "completed");
      assert.equal(ends.length, 0);
    });

    it("every move of the table was made by a job of this file", () => {
      const table = Object.entries(JOB_TRANSITIONS).flatMap(([from, moves]) => Object.keys(moves).map((event) => `${from as JobPhase} ${event as JobEvent}`));
      assert.deepEqual(table.filter((move) => !walked.has(move)), []);
      assert.ok([...walked].every((move) => table.includes(move)), [...walked].join(", "));
    });
  });
});
