/**
 * robot-plan through real Node-RED against robot-job's fleet stub, on a fake
 * clock given in Node-RED's settings (the plan's time only; robot-job's runner
 * keeps real time): an item at the next minute starts one job and ends `done`
 * with its report; skipDates, pause and runNow; a redeploy in the occurrence's
 * minute starts it once; two nodes with one item start it once; Europe/Berlin's
 * clock changes skip nothing and repeat nothing; a plan is refused whole, the
 * plan in force staying.
 */
import assert from "node:assert/strict";
import robotJob from "../../src/nodes/robot-job";
import robotPlan from "../../src/nodes/robot-plan";
import { PLAN_LOOK_BACK_AT_MOST } from "../../src/nodes/robot-plan/table";
import { FakeClock } from "../support/fake-clock";
import { stubSerial } from "../support/fleet-stub";
import { useJobFleet } from "../support/job-flow";
import type { JobFleetStub } from "../support/job-fleet-stub";
import { collectMessages, flowWith, helper, loadFlow, outputsAndCatch, recordStatuses, waitFor, type FlowNode } from "../support/node-red";

const R1 = stubSerial(1);
const BERLIN = "Europe/Berlin";
type Msg = Record<string, unknown> & { payload: Record<string, unknown> };

const kitchen = (fields: Record<string, unknown> = {}) => ({ name: "Kitchen", days: "daily", at: "06:00", map: "Floor 1", task: "Kitchen", ...fields });

function planNode(settings: Record<string, unknown> = {}, id = "plan"): FlowNode {
  return { id, type: "robot-plan", robot: "config", timezone: BERLIN, lateBy: 15, skipDates: [], plan: [kitchen()], wires: [["out"], ["progress"], ["answers"]], ...settings };
}

describe("robot-plan: occurrences become robot-job jobs, each settled once", function () {
  this.timeout(60_000);
  const fleet = useJobFleet();
  let stub: JobFleetStub;
  let clock: FakeClock;
  afterEach(() => helper.settings({}));

  /** 2026-06-10 (a Wednesday) at `time` in Berlin (+02:00), as epoch ms. */
  const berlin = (time: string, date = "2026-06-10") => Date.parse(`${date}T${time}+02:00`);

  async function start(startAt: number, nodes: FlowNode[] = [planNode()], robots = 1) {
    stub = await fleet.newStub(robots);
    clock = new FakeClock(startAt);
    helper.settings({ robotPlanClock: clock } as never);
    const ids = nodes.map((node) => node.id);
    await loadFlow([fleet.http.serving(robotJob), robotPlan], flowWith(stub.url, [...nodes, ...outputsAndCatch(...ids), { id: "progress", type: "helper" }, { id: "answers", type: "helper" }]));
    return { settled: collectMessages("out") as Msg[], progress: collectMessages("progress") as Msg[], answers: collectMessages("answers") as Msg[], caught: collectMessages("caught") };
  }
  const send = (payload: unknown, id = "plan") => helper.getNode(id).receive({ payload });
  const events = (progress: Msg[]) => progress.map((msg) => `${String(msg.payload.event)} ${String(msg.payload.occurrenceId)}`);
  /** Lets the node's first look at the calendar (after its context is read) happen. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it("starts an item at the next minute as one job and settles it done with the job's report", async () => {
    const { settled, progress, caught } = await start(berlin("05:59:00"));
    await settle();
    await clock.advanceTo(berlin("05:59:59"));
    assert.equal(progress.length, 0, "nothing before its time");
    await clock.advanceTo(berlin("06:00:00"));
    await waitFor(() => events(progress).includes("started Kitchen@2026-06-10T06:00"), 20_000, "the job's start");
    stub.finish(R1);
    await waitFor(() => settled.length + caught.length > 0, 20_000, "the occurrence's end");
    assert.equal(caught.length, 0, JSON.stringify(caught[0]?.error));
    const end = settled[0]!.payload;
    assert.equal(end.occurrenceId, "Kitchen@2026-06-10T06:00");
    assert.equal(end.item, "Kitchen");
    assert.equal(end.plannedAt, "2026-06-10T04:00:00.000Z");
    assert.equal(end.status, "done");
    const job = end.job as { jobId: string; outcome: string; serialNumber: string; report?: { outcome: string } };
    assert.equal(job.jobId, "Kitchen@2026-06-10T06:00");
    assert.equal(job.outcome, "completed");
    assert.equal(job.serialNumber, R1);
    assert.equal(job.report?.outcome, "normal");
    assert.equal(typeof end.startedAt, "string");
    assert.equal(typeof end.endedAt, "string");
    assert.deepEqual(events(progress).slice(0, 3), ["due Kitchen@2026-06-10T06:00", "assigned Kitchen@2026-06-10T06:00", "started Kitchen@2026-06-10T06:00"]);
    await clock.advanceTo(berlin("06:05:00"));
    assert.equal(stub.startCommands(R1).length, 1, "one start");
    assert.equal(settled.length, 1, "one end");
  });

  it("records a date of skipDates and a paused plan as skipped; runNow runs an occurrence of the current minute once", async () => {
    const plan = [kitchen({ at: "06:00", every: 1, until: "06:03" })];
    const { settled, progress, caught, answers } = await start(berlin("05:59:30"), [planNode({ plan, skipDates: ["2026-06-11"] })]);
    await settle();
    send({ pause: true });
    await clock.advanceTo(berlin("06:00:00"));
    await waitFor(() => settled.length === 1, 5000, "the paused occurrence");
    assert.deepEqual(settled[0]!.payload, { occurrenceId: "Kitchen@2026-06-10T06:00", item: "Kitchen", plannedAt: "2026-06-10T04:00:00.000Z", timezone: BERLIN, status: "skipped" });
    send({ pause: false });
    send({ upcoming: { hours: 0.05 } });
    await waitFor(() => answers.length === 1, 5000, "the upcoming answer");
    const upcoming = answers[0]!.payload.upcoming as { occurrenceId: string; state: string }[];
    assert.deepEqual(
      upcoming.map((entry) => `${entry.occurrenceId} ${entry.state}`),
      ["Kitchen@2026-06-10T06:00 skipped", "Kitchen@2026-06-10T06:01 planned", "Kitchen@2026-06-10T06:02 planned"],
    );
    // runNow in 06:00's minute: its occurrence is settled (skipped), so it is refused; at 06:01:30 it is 06:01's, run now.
    send({ runNow: "Kitchen" });
    await waitFor(() => caught.length === 1, 5000, "runNow refused");
    assert.match(String((caught[0]!.error as { message: string }).message), /payload\.runNow: "Kitchen@2026-06-10T06:00" has run already/);
    await clock.advanceTo(berlin("06:00:59"));
    send({ runNow: "Nobody" });
    await waitFor(() => caught.length === 2, 5000, "runNow of no item refused");
    assert.match(String((caught[1]!.error as { message: string }).message), /no item "Nobody"/);
    await clock.advanceTo(berlin("06:01:00"));
    await waitFor(() => events(progress).includes("due Kitchen@2026-06-10T06:01"), 5000, "06:01 due");
    send({ runNow: "Kitchen" });
    await waitFor(() => caught.length === 3, 5000, "runNow of a running occurrence refused");
    // The next day is in skipDates: every occurrence of it is skipped.
    await clock.advanceTo(berlin("06:03:00", "2026-06-11"));
    await waitFor(() => settled.filter((msg) => msg.payload.status === "skipped").length === 5, 5000, "the skipped date");
    assert.deepEqual(
      settled.filter((msg) => String(msg.payload.occurrenceId).includes("06-11")).map((msg) => `${String(msg.payload.occurrenceId)} ${String(msg.payload.status)}`),
      ["Kitchen@2026-06-11T06:00 skipped", "Kitchen@2026-06-11T06:01 skipped", "Kitchen@2026-06-11T06:02 skipped", "Kitchen@2026-06-11T06:03 skipped"],
    );
    assert.equal(
      progress.filter((msg) => msg.payload.event === "due").length,
      3,
      "06:01, 06:02 and 06:03 of the first day ran, none of the skipped date",
    );
  });

  it("matches a skip date against the occurrence's day in the plan's zone, not its UTC date, at 00:30 Berlin", async () => {
    // 00:30 in Berlin is 22:30 UTC of the day before: the 11th's occurrence has the UTC date of the 10th, the 12th's that of the 11th.
    const plan = [kitchen({ at: "00:30" })];
    const { settled, progress } = await start(berlin("00:29:30", "2026-06-11"), [planNode({ plan, skipDates: ["2026-06-11"] })]);
    await settle();
    await clock.advanceTo(berlin("00:30:00", "2026-06-11"));
    await waitFor(() => settled.length === 1, 5000, "the 11th's occurrence");
    assert.deepEqual(settled[0]!.payload, { occurrenceId: "Kitchen@2026-06-11T00:30", item: "Kitchen", plannedAt: "2026-06-10T22:30:00.000Z", timezone: BERLIN, status: "skipped" });
    await clock.advanceTo(berlin("00:30:00", "2026-06-12"));
    await waitFor(() => events(progress).includes("due Kitchen@2026-06-12T00:30"), 5000, "the 12th's occurrence runs");
    assert.equal(settled.filter((msg) => msg.payload.status === "skipped").length, 1, "only the 11th was skipped");
  });

  it("runNow starts the item's occurrence of this minute, which then does not run again at its time", async () => {
    const plan = [kitchen({ at: "06:00:30" })];
    const { progress } = await start(berlin("06:00:10"), [planNode({ plan })]);
    await settle();
    send({ runNow: "Kitchen" });
    await waitFor(() => events(progress).includes("started Kitchen@2026-06-10T06:00"), 20_000, "the start");
    const due = progress.find((msg) => msg.payload.event === "due")!;
    assert.equal(due.payload.plannedAt, "2026-06-10T04:00:30.000Z", "the planned occurrence of this minute");
    await clock.advanceTo(berlin("06:02:00"));
    assert.equal(progress.filter((msg) => msg.payload.event === "due").length, 1);
    assert.equal(stub.startCommands(R1).length, 1);
  });

  it("two nodes with one item on one account start it once; a redeploy in its minute neither repeats nor loses it", async () => {
    const flow = [planNode({}, "plan"), planNode({}, "plan2")];
    const { progress } = await start(berlin("05:59:50"), flow);
    await settle();
    await clock.advanceTo(berlin("06:00:00"));
    await waitFor(() => events(progress).includes("started Kitchen@2026-06-10T06:00"), 20_000, "the start");
    assert.equal(progress.filter((msg) => msg.payload.event === "due").length, 1, "one due of two nodes");
    // A redeploy in the occurrence's minute: the new nodes find it claimed and its job under way.
    await helper.setFlows(
      flowWith(stub.url, [...flow.map((node) => ({ ...node, name: "redeployed" })), ...outputsAndCatch("plan", "plan2"), { id: "progress", type: "helper" }, { id: "answers", type: "helper" }]),
      "nodes",
    );
    const after = collectMessages("out") as Msg[];
    await settle();
    await clock.advanceTo(berlin("06:00:40"));
    stub.finish(R1);
    await waitFor(() => after.length === 1, 20_000, "the end after the redeploy");
    assert.equal(after[0]!.payload.status, "done");
    await clock.advanceTo(berlin("06:03:00"));
    assert.equal(after.length, 1);
    assert.equal(stub.startCommands(R1).length, 1, "one start in all");
  });

  it("refuses an item whose name another node of the account uses for other work or in another zone, by message and at deploy", async () => {
    const { caught, answers } = await start(berlin("05:00:00"), [planNode({}, "plan"), planNode({ plan: [kitchen({ name: "Lobby", task: "Lobby" })] }, "plan2")]);
    await settle();
    const refusal = /plan\[1\]\.name: "Kitchen" is an item of another robot-plan node of this account with other work or another time zone/;
    send({ plan: [kitchen({ name: "Lobby", task: "Lobby" }), kitchen({ task: "Lobby" })] }, "plan2");
    send({ plan: [kitchen({ name: "Lobby", task: "Lobby" }), kitchen({ map: "Floor 2" })] }, "plan2");
    await waitFor(() => caught.length === 2, 5000, "two refusals");
    for (const each of caught) assert.match(String((each.error as { message: string }).message), new RegExp(`payload\\.${refusal.source}`));
    // The same item (same work, same zone) on both is the account's one item: allowed.
    send({ plan: [kitchen({ name: "Lobby", task: "Lobby" }), kitchen()] }, "plan2");
    send({ upcoming: { hours: 2 } }, "plan2");
    await waitFor(() => answers.length === 1, 5000, "upcoming");
    assert.equal(caught.length, 2);
    assert.deepEqual((answers[0]!.payload.upcoming as { occurrenceId: string }[]).map((entry) => entry.occurrenceId), ["Kitchen@2026-06-10T06:00", "Lobby@2026-06-10T06:00"]);
    // Deployed with the same name in another zone: the node refused second says so at deploy and to each message.
    const logFrom = helper.log().callCount;
    const clash = [planNode({}, "plan"), planNode({ timezone: "Europe/London", plan: [kitchen({ name: "Lobby", task: "Lobby" }), kitchen()] }, "plan2")];
    await helper.setFlows(flowWith(stub.url, [...clash, ...outputsAndCatch("plan", "plan2"), { id: "progress", type: "helper" }, { id: "answers", type: "helper" }]), "nodes");
    const caughtAfter = collectMessages("caught");
    await settle();
    const logged = (helper.log().getCalls().slice(logFrom) as Array<{ args: unknown[] }>).map((call) => call.args[0] as { level: number; msg?: unknown }).filter((entry) => entry.level === 20);
    assert.equal(logged.length, 1, JSON.stringify(logged));
    assert.match(String(logged[0]!.msg), refusal);
    send({ upcoming: {} }, "plan");
    send({ upcoming: {} }, "plan2");
    await waitFor(() => caughtAfter.length === 1, 5000, "one node refuses");
    assert.match(String((caughtAfter[0]!.error as { message: string }).message), refusal);
  });

  it("keeps a plan set by message across a redeploy of the same settings; a plan changed in the dialog since wins over it", async () => {
    await start(berlin("05:00:00"));
    await settle();
    /** The ids of the next two hours' occurrences: which plan is in force. */
    const inForce = async () => {
      const answers = collectMessages("answers") as Msg[];
      send({ upcoming: { hours: 2 } });
      await waitFor(() => answers.length === 1, 5000, "upcoming");
      return (answers[0]!.payload.upcoming as { occurrenceId: string }[]).map((entry) => entry.occurrenceId);
    };
    const redeploy = async (node: FlowNode) => {
      await helper.setFlows(flowWith(stub.url, [node, ...outputsAndCatch("plan"), { id: "progress", type: "helper" }, { id: "answers", type: "helper" }]), "nodes");
      await settle();
    };
    send({ plan: [kitchen({ name: "By message", at: "05:30" })] });
    assert.deepEqual(await inForce(), ["By message@2026-06-10T05:30"]);
    // Only the node's name changed: its plan settings are those the message's plan replaced.
    await redeploy(planNode({ name: "renamed" }));
    assert.deepEqual(await inForce(), ["By message@2026-06-10T05:30"], "the message's plan stays");
    const fromTheDialog = [kitchen({ name: "From the dialog", at: "06:30" })];
    await redeploy(planNode({ name: "renamed", plan: fromTheDialog }));
    assert.deepEqual(await inForce(), ["From the dialog@2026-06-10T06:30"], "the dialog's new plan wins");
    // Redeployed again unchanged: still the dialog's (the message's plan was dropped, not put aside).
    await redeploy(planNode({ name: "again", plan: fromTheDialog }));
    assert.deepEqual(await inForce(), ["From the dialog@2026-06-10T06:30"]);
  });

  it("after downtime runs an occurrence exactly lateBy minutes past late, records one a minute more missed; lateBy 0 runs none late", async () => {
    const flow = [
      planNode({ plan: [kitchen({ name: "On the limit", at: "06:00" }), kitchen({ name: "A minute over", at: "05:59" })] }, "plan"),
      planNode({ lateBy: 0, plan: [kitchen({ name: "Zero", at: "06:14" })] }, "plan2"),
    ];
    const { settled, progress } = await start(berlin("05:58:00"), flow);
    await settle();
    // Down from 05:58 to 06:15:30 (the nodes closed, the account's memory kept, as a restart with a context store keeps it).
    await helper.unload();
    clock = new FakeClock(berlin("06:15:30"));
    helper.settings({ robotPlanClock: clock } as never);
    // The helpers first, then the plan nodes: nothing they send at their first look is sent before it is collected.
    const helpers = [...outputsAndCatch("plan", "plan2"), { id: "progress", type: "helper" }, { id: "answers", type: "helper" }];
    await loadFlow([fleet.http.serving(robotJob), robotPlan], flowWith(stub.url, helpers));
    const after = collectMessages("out") as Msg[];
    const afterProgress = collectMessages("progress") as Msg[];
    await helper.setFlows(flowWith(stub.url, [...flow, ...helpers]), "nodes");
    await waitFor(() => events(afterProgress).includes("started On the limit@2026-06-10T06:00"), 20_000, "the late start");
    assert.deepEqual(
      after.map((msg) => `${String(msg.payload.occurrenceId)} ${String(msg.payload.status)}`).sort(),
      ["A minute over@2026-06-10T05:59 missed", "Zero@2026-06-10T06:14 missed"],
    );
    assert.equal(afterProgress.find((msg) => msg.payload.event === "due")?.payload.late, true);
    stub.finish(R1);
    await waitFor(() => after.length === 3, 20_000, "the late end");
    assert.equal(after[2]!.payload.status, "late");
    assert.equal((after[2]!.payload.job as { outcome: string }).outcome, "completed");
    assert.equal(settled.length + progress.length, 0, "nothing before the downtime");
    assert.equal(stub.startCommands(R1).length, 1);
  });

  it(`after long downtime records at most ${PLAN_LOOK_BACK_AT_MOST} occurrences, the newest, and warns once of those not recorded`, async () => {
    const everyMinute = [kitchen({ name: "Minutely", at: "00:00", every: 1 })];
    for (const downMinutes of [PLAN_LOOK_BACK_AT_MOST, PLAN_LOOK_BACK_AT_MOST + 1]) {
      await start(berlin("04:59:30"), [planNode({ plan: everyMinute })]);
      await settle();
      // Paused: each occurrence looked back at is recorded skipped, none runs; what is counted is what is recorded.
      send({ pause: true });
      await settle();
      await helper.unload();
      // Back up in the minute after the last of `downMinutes` occurrences (05:00 .. 05:00 + downMinutes - 1).
      clock = new FakeClock(berlin("05:00:30") + (downMinutes - 1) * 60_000);
      helper.settings({ robotPlanClock: clock } as never);
      const helpers = [...outputsAndCatch("plan"), { id: "progress", type: "helper" }, { id: "answers", type: "helper" }];
      await loadFlow([fleet.http.serving(robotJob), robotPlan], flowWith(stub.url, helpers));
      const after = collectMessages("out") as Msg[];
      const logFrom = helper.log().callCount;
      await helper.setFlows(flowWith(stub.url, [planNode({ plan: everyMinute }), ...helpers]), "nodes");
      await waitFor(() => after.length === PLAN_LOOK_BACK_AT_MOST, 20_000, `${PLAN_LOOK_BACK_AT_MOST} recorded`);
      await settle();
      assert.equal(after.length, PLAN_LOOK_BACK_AT_MOST);
      assert.ok(after.every((msg) => msg.payload.status === "skipped"));
      const lastMinute = new Date(berlin("05:00:00") + (downMinutes - 1) * 60_000).toISOString();
      assert.equal(after.at(-1)!.payload.plannedAt, lastMinute, "the newest is recorded");
      const warnings = (helper.log().getCalls().slice(logFrom) as Array<{ args: unknown[] }>)
        .map((call) => call.args[0] as { level: number; msg?: unknown })
        .filter((entry) => entry.level === 30)
        .map((entry) => String(entry.msg));
      if (downMinutes === PLAN_LOOK_BACK_AT_MOST) assert.deepEqual(warnings, []);
      else assert.deepEqual(warnings, [`after downtime, 1 occurrence planned from 2026-06-10T03:00:00.000Z to 2026-06-10T03:00:00.000Z are not recorded: the newest ${PLAN_LOOK_BACK_AT_MOST} are (missed, or run late within lateBy)`]);
      await helper.unload();
      await fleet.stub.server.stop();
    }
  });

  it("across Europe/Berlin's clock changes (fake clock) skips nothing and repeats nothing", async () => {
    const plan = [kitchen({ at: "01:30", every: 30, until: "03:30" })];
    for (const [date, from, expected] of [
      ["2026-03-29", "2026-03-29T01:00:00+01:00", ["01:30", "02:00", "02:30", "03:00", "03:30"]],
      ["2026-10-25", "2026-10-25T01:00:00+02:00", ["01:30", "02:00", "02:30", "03:00", "03:30"]],
    ] as const) {
      // Paused: each occurrence is recorded skipped at its time, which is all this test looks at.
      const { settled } = await start(Date.parse(from), [planNode({ plan })]);
      await settle();
      send({ pause: true });
      await settle();
      for (let minute = 1; minute <= 4 * 60; minute++) await clock.advance(60_000);
      const ids = settled.map((msg) => String(msg.payload.occurrenceId));
      assert.deepEqual(ids, expected.map((time) => `Kitchen@${date}T${time}`), date);
      await helper.unload();
      await fleet.stub.server.stop();
    }
  });

  it("refuses a plan whole, naming the item and the field, and keeps the plan in force", async () => {
    const { caught, answers } = await start(berlin("05:00:00"));
    const statuses = recordStatuses("plan");
    await settle();
    const refusals: [unknown, RegExp][] = [
      [[kitchen(), kitchen({ name: "Lobby", days: ["mon", "fry"] })], /payload\.plan\[1\]\.days: must be "daily" or a list of mon/],
      [[kitchen({ every: 60, until: "05:00" })], /payload\.plan\[0\]\.until: "05:00" is before at "06:00" \(item "Kitchen"\)/],
      [[kitchen(), kitchen()], /payload\.plan\[1\]\.name: "Kitchen" names two items/],
      [[kitchen({ task: undefined })], /payload\.plan\[0\]\.task: no work/],
      [[kitchen({ minBattery: 101 })], /payload\.plan\[0\]\.minBattery: .*100.*\(item "Kitchen"\)/],
      [[kitchen({ robots: [] })], /payload\.plan\[0\]\.robots: must be a non-empty list/],
      [[kitchen({ waitUpTo: -1 })], /payload\.plan\[0\]\.waitUpTo: /],
      [[kitchen(), kitchen({ name: "Lobby", near: 5 })], /payload\.plan\[1\]\.near: must be a navigation point name .* \(item "Lobby"\)$/],
      [[kitchen({ robots: ["GS-S-000101", " "] })], /payload\.plan\[0\]\.robots\.1: must be a non-empty text/],
      ["Kitchen at six", /payload\.plan: must be a list of items/],
    ];
    for (const [plan] of refusals) send({ plan });
    await waitFor(() => caught.length === refusals.length, 5000, "every refusal");
    refusals.forEach(([, words], index) => assert.match(String((caught[index]!.error as { message: string }).message), words));
    send({ upcoming: { hours: 2 } });
    await waitFor(() => answers.length === 1, 5000, "upcoming");
    assert.deepEqual(
      (answers[0]!.payload.upcoming as { occurrenceId: string }[]).map((entry) => entry.occurrenceId),
      ["Kitchen@2026-06-10T06:00"],
      "the plan in force stays",
    );
    send({ plan: [kitchen({ name: "Lobby", at: "05:30" })] });
    send({ upcoming: {} });
    await waitFor(() => answers.length === 2, 5000, "upcoming after a plan");
    assert.deepEqual(
      (answers[1]!.payload.upcoming as { occurrenceId: string }[]).map((entry) => entry.occurrenceId),
      ["Lobby@2026-06-10T05:30"],
    );
    send({ pause: "yes" });
    send({ skip: "2026-02-30" });
    send({ skip: "2026-13-01" });
    send({ pause: true, skip: "2026-06-10" });
    await waitFor(() => caught.length === refusals.length + 4, 5000, "the other refusals");
    assert.deepEqual(
      caught.slice(refusals.length).map((msg) => (msg.error as { message: string }).message.replace(/^RobotApiError: /, "")),
      [
        "payload.pause: must be true or false",
        'payload.skip: must be a date "YYYY-MM-DD" (got "2026-02-30")',
        'payload.skip: must be a date "YYYY-MM-DD" (got "2026-13-01")',
        "payload: give one of plan, pause, skip, runNow, upcoming, report, cancel, not pause and skip",
      ],
    );
    await waitFor(() => statuses.at(-1)?.text === "next: Lobby 05:30", 5000, "the status of the new plan");
  });
});
