/**
 * robot-plan with its account shared through a real redis-server, in one
 * real Node-RED on a fake plan clock: runNow ends with an error, nothing
 * started, when the occurrence's claim is another instance's or Redis does
 * not answer; an occurrence whose claim Redis did not answer is asked again
 * after a redeploy, and runs late once Redis is back; a hung Redis (stopped
 * with SIGSTOP) holds no occurrence past the claim's answer bound; a report
 * Redis cannot answer is refused, not answered without the other instances'.
 */
import assert from "node:assert/strict";
import robotJob from "../../src/nodes/robot-job";
import robotPlan from "../../src/nodes/robot-plan";
import { FakeClock } from "../support/fake-clock";
import { stubSerial } from "../support/fleet-stub";
import { useJobFleet } from "../support/job-flow";
import type { JobFleetStub } from "../support/job-fleet-stub";
import { plansOfAccount } from "../../src/api/plans/plan-book";
import { redisCommand, useRedis } from "../support/redis-server";
import { CLAIM_ANSWER_MS } from "../../src/api/jobs/robot-claims";
import { collectMessages, flowWith, helper, loadFlow, outputsAndCatch, waitFor, type FlowNode } from "../support/node-red";

const R1 = stubSerial(1);
type Msg = Record<string, unknown> & { payload: Record<string, unknown> };
type Caught = { error: { code: string; message: string } };

const kitchen = (fields: Record<string, unknown> = {}) => ({ name: "Kitchen", days: "daily", at: "06:00", map: "Floor 1", task: "Kitchen", ...fields });
/** 2026-06-10 at `time` in Berlin (+02:00), as epoch ms. */
const berlin = (time: string) => Date.parse(`2026-06-10T${time}+02:00`);

describe("robot-plan on an account shared through a real redis-server", function () {
  this.timeout(60_000);
  const fleet = useJobFleet();
  const { redis } = useRedis();
  let stub: JobFleetStub;
  let clock: FakeClock;
  afterEach(() => helper.settings({}));

  const planNode = (settings: Record<string, unknown> = {}): FlowNode => ({
    id: "plan",
    type: "robot-plan",
    robot: "config",
    timezone: "Europe/Berlin",
    lateBy: 15,
    skipDates: [],
    plan: [kitchen()],
    wires: [["out"], ["progress"], []],
    ...settings,
  });
  const helpers: FlowNode[] = [...outputsAndCatch("plan"), { id: "progress", type: "helper" }];
  const shared = () => ({ redisUrl: redis.url, redisPrefix: "plan-redis" });
  const flow = (nodes: FlowNode[]) => flowWith(stub.url, [...nodes, ...helpers], shared());

  async function start(startAt: number, node = planNode()) {
    stub = await fleet.newStub(1);
    clock = new FakeClock(startAt);
    helper.settings({ robotPlanClock: clock } as never);
    await loadFlow([fleet.http.serving(robotJob), robotPlan], flow([node]));
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { settled: collectMessages("out") as Msg[], progress: collectMessages("progress") as Msg[], caught: collectMessages("caught") as unknown as Caught[] };
  }
  const send = (payload: unknown) => helper.getNode("plan").receive({ payload });
  const accountKey = () => (helper.getNode("config") as unknown as { robot: { client: { accountKey: string } } }).robot.client.accountKey;
  const claimKey = (occurrenceId: string) => `plan-redis:${accountKey()}:occurrence:${occurrenceId}`;

  it("runNow of an occurrence another instance claimed ends with an error and starts nothing", async () => {
    const { progress, caught } = await start(berlin("05:00:10"));
    await redisCommand(redis.port, "SET", claimKey("Kitchen@2026-06-10T05:00"), "another-instance", "PX", 60_000);
    send({ runNow: "Kitchen" });
    await waitFor(() => caught.length === 1, 10_000, "runNow refused");
    assert.equal(caught[0]!.error.code, "INVALID_INPUT");
    assert.match(caught[0]!.error.message, /payload\.runNow: "Kitchen@2026-06-10T05:00" is claimed by another node or instance/);
    assert.equal(progress.length, 0, "no due");
    assert.equal(stub.startCommands(R1).length, 0);
  });

  it("runNow while Redis is stopped ends with an error and starts nothing", async () => {
    const { progress, caught } = await start(berlin("05:00:10"));
    await redis.stop();
    send({ runNow: "Kitchen" });
    await waitFor(() => caught.length === 1, 20_000, "runNow refused");
    assert.match(caught[0]!.error.message, /payload\.runNow: "Kitchen@2026-06-10T05:00" could not be claimed: the account's Redis did not answer/);
    assert.equal(progress.length, 0, "no due");
    assert.equal(stub.startCommands(R1).length, 0);
  });

  it("a report while Redis is stopped ends with an error saying it would lack the other instances' occurrences", async () => {
    const { caught } = await start(berlin("05:00:10"));
    await redis.stop();
    send({ report: { from: "2026-06-10" } });
    await waitFor(() => caught.length === 1, 20_000, "the report refused");
    assert.match(caught[0]!.error.message, /planReport: the account's Redis .*: the report would lack what other Node-RED instances settled/);
  });

  it("an occurrence whose claim Redis did not answer is asked again after a redeploy, and runs late once Redis is back", async () => {
    const { caught } = await start(berlin("05:59:30"), planNode({ lateBy: 60 }));
    await redis.stop();
    await clock.advanceTo(berlin("06:00:00"));
    const unanswered = () => plansOfAccount(accountKey()).stateOf("plan").unanswered ?? [];
    await waitFor(() => unanswered().length === 1, 10_000, "the claim unanswered");
    // A redeploy while Redis is away: the new node has only what the node's state kept.
    await helper.setFlows(flow([planNode({ lateBy: 60, name: "redeployed" })]), "nodes");
    const settled = collectMessages("out") as Msg[];
    const progress = collectMessages("progress") as Msg[];
    await redis.restart();
    // The plan clock moves on until the reconnected Redis answers a look (well within lateBy).
    while (!progress.some((msg) => msg.payload.event === "due") && clock.now() < berlin("06:50:00")) {
      await clock.advance(30_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const due = progress.find((msg) => msg.payload.event === "due");
    assert.equal(due?.payload.occurrenceId, "Kitchen@2026-06-10T06:00", JSON.stringify(progress.map((msg) => msg.payload)));
    assert.equal(due.payload.late, true);
    assert.deepEqual(unanswered(), []);
    await waitFor(() => progress.some((msg) => msg.payload.event === "started"), 20_000, "the late start");
    stub.finish(R1);
    await waitFor(() => settled.length === 1, 20_000, "the late end");
    assert.equal(settled[0]!.payload.status, "late");
    assert.equal(caught.length, 0, JSON.stringify(caught));
    assert.equal(stub.startCommands(R1).length, 1);
  });

  it("a hung Redis holds no occurrence: unanswered after the claim's bound, asked again, and run once when Redis answers", async () => {
    const { settled, progress, caught } = await start(berlin("05:59:30"));
    const unanswered = () => plansOfAccount(accountKey()).stateOf("plan").unanswered ?? [];
    process.kill(redis.pid!, "SIGSTOP");
    try {
      const asked = Date.now();
      await clock.advanceTo(berlin("06:00:00"));
      await waitFor(() => unanswered().length === 1, 15_000, "the claim unanswered");
      const waited = Date.now() - asked;
      assert.ok(waited >= CLAIM_ANSWER_MS - 100 && waited < CLAIM_ANSWER_MS + 5_000, `unanswered after ${waited} ms`);
      send({ runNow: "Kitchen" });
      await waitFor(() => caught.length === 1, 15_000, "runNow refused, not held");
      assert.match(caught[0]!.error.message, /could not be claimed: the account's Redis did not answer/);
    } finally {
      process.kill(redis.pid!, "SIGCONT");
    }
    // Redis now carries out the first claim, whose answer came too late: asked again, the claim is this instance's.
    while (!progress.some((msg) => msg.payload.event === "due") && clock.now() < berlin("06:10:00")) {
      await clock.advance(30_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    assert.equal(progress.find((msg) => msg.payload.event === "due")?.payload.occurrenceId, "Kitchen@2026-06-10T06:00", JSON.stringify(progress));
    assert.deepEqual(unanswered(), []);
    await waitFor(() => progress.some((msg) => msg.payload.event === "started"), 20_000, "the start");
    stub.finish(R1);
    await waitFor(() => settled.length === 1, 20_000, "the end");
    // Late or not depends on the look that Redis answered first (within the minute or after it).
    assert.ok(["done", "late"].includes(settled[0]!.payload.status as string), JSON.stringify(settled[0]!.payload));
    assert.equal(stub.startCommands(R1).length, 1);
  });
});
