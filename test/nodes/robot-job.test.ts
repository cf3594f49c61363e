/**
 * robot-job through real Node-RED against a fleet stub whose robots the test
 * controls: the nearest eligible robot is sent, each other robot's reason is
 * given, a refusal or a start not shown sets the robot aside and the next is
 * tried, a job waits for a robot to come free or ends with NO_ROBOT, two jobs
 * get two robots, a job is cancelled, an alarm pushed to robot-events on the
 * account keeps a robot out, and 200 jobs over 20 robots each end once.
 */
import assert from "node:assert/strict";
import robotEvents from "../../src/nodes/robot-events/robot-events";
import robotJob from "../../src/nodes/robot-job";
import robotReports from "../../src/nodes/robot-reports";
import { stubSerial } from "../support/fleet-stub";
import { jobNode, useJobFleet } from "../support/job-flow";
import { JobFleetStub } from "../support/job-fleet-stub";
import { rawRequest } from "../support/raw-http";
import { TEST_TOKEN, collectMessages, flowWith, helper, loadFlow, outputsAndCatch, recordStatuses, waitFor, type FlowNode } from "../support/node-red";

const [R1, R2, R3, R4] = [1, 2, 3, 4].map(stubSerial) as [string, string, string, string];
type Msg = Record<string, unknown> & { payload: Record<string, unknown> };

describe("robot-job: send the right robot and follow the job to its end", function () {
  this.timeout(60_000);
  let stub: JobFleetStub;
  const fleet = useJobFleet();
  const http = fleet.http;

  async function start(robots: number, settings: Record<string, unknown> = {}, extra: FlowNode[] = [], credentials?: Record<string, Record<string, string>>) {
    stub = await fleet.newStub(robots);
    await loadFlow([http.serving(robotJob), robotEvents], flowWith(stub.url, [jobNode(settings), ...outputsAndCatch("job", "console"), { id: "progress", type: "helper" }, ...extra]), credentials);
    return { ends: collectMessages("out") as Msg[], caught: collectMessages("caught"), progress: collectMessages("progress") as Msg[] };
  }
  const send = (payload: unknown, extra: Record<string, unknown> = {}) => helper.getNode("job").receive({ payload, ...extra });
  const events = (progress: Msg[], jobId?: string) => progress.filter((msg) => !jobId || msg.jobId === jobId).map((msg) => msg.payload.event);

  it("sends the eligible robot nearest to the point, follows the task to its end and gives its report", async () => {
    const { ends, progress, caught } = await start(4);
    stub.place(R1, 100, 100);
    stub.place(R2, 580, 290); // nearest eligible
    stub.place(R3, 600, 300); // nearer, but low
    stub.update(R3, (status) => (status.battery.powerPercentage = 12));
    stub.place(R4, 900, 900);
    send({ task: "Kitchen", map: "Floor 1", near: "Kitchen door", name: "spill" }, { topic: "sensor-7" });
    await waitFor(() => ends.length + caught.length > 0, 20_000, "the job's end");
    assert.equal(caught.length, 0, JSON.stringify(caught[0]?.error));
    const end = ends[0]!;
    assert.equal(end.topic, "sensor-7");
    assert.equal(end.jobId, end.payload.jobId);
    assert.equal(end.payload.serialNumber, R2);
    assert.equal(end.payload.outcome, "completed");
    assert.deepEqual(end.payload.attempts, [{ serialNumber: R2, result: "started" }]);
    assert.deepEqual(end.payload.work, { kind: "task", task: "Kitchen", map: "Floor 1", name: "spill" });
    assert.equal((end.payload.report as { outcome: string }).outcome, "normal");
    assert.equal(stub.startCommands(R2).length, 1);
    for (const other of [R1, R3, R4]) assert.equal(stub.startCommands(other).length, 0, other);
    assert.deepEqual(events(progress).slice(0, 2), ["assigned", "started"]);
    const reported = progress.find((msg) => msg.payload.event === "progress");
    assert.equal(reported?.payload.progress, 0.5, "the status's executingTask.progress");
    assert.ok(progress.every((msg) => msg.jobId === end.jobId));
  });

  it("with no eligible robot waits, then ends with NO_ROBOT giving each robot's reason", async () => {
    const { ends, caught, progress } = await start(4, { waitUpTo: 0.5 });
    stub.update(R1, (status) => (status.online = false));
    stub.update(R2, (status) => (status.taskState = "RUNNING"));
    stub.update(R3, (status) => (status.emergencyStop.enabled = true));
    stub.update(R4, (status) => (status.localizationInfo.localizationState = "LOST"));
    send({ goto: "Kitchen door", map: "Floor 1" });
    await waitFor(() => caught.length > 0, 10_000, "NO_ROBOT");
    const error = caught[0]!.error as { code: string; message: string; cause: { robots: Record<string, string> } };
    assert.equal(error.code, "NO_ROBOT");
    // Each robot's reason in words in the message; the codes flows switch on in the cause.
    assert.equal(
      error.message,
      `JobError: NO_ROBOT: no robot could take the job within 0.5 s (${R1}: offline; ${R2}: busy; ${R3}: emergency stop pressed; ${R4}: lost (not localized))`,
    );
    assert.deepEqual(error.cause.robots, { [R1]: "offline", [R2]: "busy", [R3]: "emergency stop", [R4]: "lost" });
    assert.deepEqual(events(progress), ["waiting"]);
    assert.equal(ends.length, 0);
    assert.equal(stub.server.requests.filter((request) => request.method === "POST").length, 0, "nothing was sent");
  });

  it("a navigation job ends on arrival at its point; with the cloud down a job ends with NO_ROBOT", async () => {
    const { ends, caught } = await start(2);
    const statuses = recordStatuses("job");
    stub.place(R2, 600, 310);
    send({ goto: "Kitchen door", map: "Floor 1", near: { x: 600, y: 300 } });
    await waitFor(() => ends.length === 1, 10_000, "the arrival");
    assert.equal(ends[0]!.payload.serialNumber, R2);
    assert.equal(ends[0]!.payload.outcome, "completed");
    assert.deepEqual(stub.commands.get(R2)?.map((command) => command.type), ["CROSS_NAVIGATE"]);
    assert.ok(statuses.some((status) => status.text === "1 running"), JSON.stringify(statuses));
    assert.deepEqual(statuses.at(-1), { fill: "grey", shape: "ring", text: "no job" });

    stub.failure = { status: 503, body: { code: 14, message: "down" } };
    send({ task: "Kitchen", map: "Floor 1", robots: [R1], waitUpTo: 0.3 });
    await waitFor(() => caught.length === 1, 10_000, "NO_ROBOT");
    // Its last status said idle, but no poll read it since: no start is sent on a kept status.
    const reasons = (caught[0]!.error as { cause: { robots: Record<string, string> } }).cause.robots;
    assert.deepEqual(reasons, { [R1]: "not read in the last poll" });
    assert.equal(stub.startCommands(R1).length, 0);
    // A robot the account's list (read at the deploy) does not name ends the job at once, with the cloud down too.
    send({ task: "Kitchen", map: "Floor 1", robots: ["GS-S-999999"], waitUpTo: 0.3 });
    await waitFor(() => caught.length === 2, 10_000, "the second NO_ROBOT");
    assert.deepEqual((caught[1]!.error as { cause: { robots: unknown } }).cause.robots, { "GS-S-999999": "not a robot of the account" });
  });

  it("sets aside a robot that refuses and one that does not show the start, and starts the next", async () => {
    const { ends, caught, progress } = await start(3, { confirmTimeout: 1 });
    stub.place(R1, 600, 300);
    stub.place(R2, 650, 300);
    stub.place(R3, 900, 300);
    stub.refusing.add(R1);
    stub.ignoring.add(R2);
    send({ task: "Kitchen", map: "Floor 1", near: "Kitchen door" });
    await waitFor(() => ends.length + caught.length > 0, 20_000, "the job's end");
    assert.equal(caught.length, 0, JSON.stringify(caught[0]?.error));
    const attempts = ends[0]!.payload.attempts as { serialNumber: string; result: string }[];
    assert.deepEqual(attempts.map((attempt) => attempt.serialNumber), [R1, R2, R3]);
    assert.match(attempts[0]!.result, /^refused: .*busy/);
    assert.equal(attempts[1]!.result, "not confirmed");
    assert.equal(ends[0]!.payload.serialNumber, R3);
    assert.deepEqual(events(progress).filter((event) => event === "retrying").length, 2);
    const notShown = progress.map((msg) => msg.payload).find((payload) => payload.event === "retrying" && payload.serialNumber === R2)!;
    assert.equal(notShown.refusal, "not confirmed");
    assert.match(String(notShown.text), /^.+ did not show the start; trying the next robot$/);
    for (const robot of [R1, R2, R3]) assert.equal(stub.startCommands(robot).length, 1, `${robot} was sent one start`);
  });

  it("waits while every robot is busy and starts when one comes free", async () => {
    const { ends, progress } = await start(1);
    stub.update(R1, (status) => (status.taskState = "RUNNING"));
    send({ task: "Kitchen", map: "Floor 1" });
    await waitFor(() => events(progress).includes("waiting"), 10_000, "waiting");
    assert.deepEqual(progress[0]!.payload.reasons, { [R1]: "busy" });
    assert.equal(progress[0]!.payload.text, `waiting for a free robot: ${R1}: busy`);
    assert.equal(stub.startCommands(R1).length, 0);
    stub.update(R1, (status) => (status.taskState = "IDLE"));
    await waitFor(() => ends.length === 1, 20_000, "the job's end");
    assert.equal(ends[0]!.payload.serialNumber, R1);
    assert.equal(ends[0]!.payload.outcome, "completed");
  });

  it("gives two jobs at once two robots, and a cancelled job stops its robot and ends cancelled", async () => {
    const { ends } = await start(2);
    stub.runReads = undefined;
    send({ task: "Kitchen", map: "Floor 1", jobId: "first" });
    send({ task: "Lobby", map: "Floor 1", jobId: "second" });
    await waitFor(() => stub.startCommands(R1).length + stub.startCommands(R2).length === 2, 10_000, "two starts");
    assert.equal(stub.startCommands(R1).length, 1);
    assert.equal(stub.startCommands(R2).length, 1);
    await waitFor(() => helper.getNode("job") !== undefined && stub.statuses.get(R1)!.taskState === "RUNNING", 5000);
    // Let both be seen running, then cancel one.
    await new Promise((resolve) => setTimeout(resolve, 500));
    send({ cancel: "first" });
    await waitFor(() => ends.length === 1, 10_000, "the cancelled job's end");
    assert.equal(ends[0]!.jobId, "first");
    assert.equal(ends[0]!.payload.outcome, "cancelled");
    const robot = ends[0]!.payload.serialNumber as string;
    assert.ok((stub.commands.get(robot) ?? []).some((command) => command.type === "STOP_TASK"), "the robot was stopped");
    const other = robot === R1 ? R2 : R1;
    stub.finish(other);
    await waitFor(() => ends.length === 2, 10_000, "the second job's end");
    assert.equal(ends[1]!.jobId, "second");
    assert.equal(ends[1]!.payload.serialNumber, other);
  });

  it("cancels a job of another robot-job node of the account: the owning node ends it once and stops its robot", async () => {
    const other: FlowNode[] = [
      { ...jobNode(), id: "console", wires: [["console-out"], []] },
      { id: "console-out", type: "helper" },
    ];
    const { ends, caught } = await start(1, {}, other);
    const consoleEnds = collectMessages("console-out");
    stub.runReads = undefined;
    send({ task: "Kitchen", map: "Floor 1", jobId: "spill-1" }, { topic: "spill" });
    await waitFor(() => stub.statuses.get(R1)!.taskState === "RUNNING", 10_000, "the job running");
    helper.getNode("console").receive({ payload: { cancel: "spill-1" } });
    await waitFor(() => ends.length + caught.length > 0, 10_000, "the cancelled job's end");
    // Time for a second end or an error to show, if one were coming.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(caught.length, 0, JSON.stringify(caught[0]?.error));
    assert.deepEqual([ends.length, consoleEnds.length], [1, 0]);
    assert.equal(ends[0]!.jobId, "spill-1");
    assert.equal(ends[0]!.topic, "spill");
    assert.equal(ends[0]!.payload.outcome, "cancelled");
    assert.equal((stub.commands.get(R1) ?? []).filter((command) => command.type === "STOP_TASK").length, 1, "the robot was stopped once");
    // The job has ended: cancelling it again, through either node, is bad input naming payload.cancel.
    helper.getNode("console").receive({ payload: { cancel: "spill-1" } });
    await waitFor(() => caught.length === 1, 10_000, "the refused cancel");
    assert.match((caught[0]!.error as { message: string }).message, /payload\.cancel: no job "spill-1"/);
    assert.equal(ends.length, 1);
  });

  it("a job cancelled while its start is on the way, which the robot then refuses, stops nothing", async () => {
    const { ends } = await start(1);
    stub.refusing.add(R1);
    stub.commandDelayMs = 500;
    send({ task: "Kitchen", map: "Floor 1", jobId: "short-lived" });
    await waitFor(() => stub.startCommands(R1).length === 1, 10_000, "the start on its way");
    send({ cancel: "short-lived" });
    await waitFor(() => ends.length === 1, 10_000, "the cancelled job's end");
    assert.equal(ends[0]!.payload.outcome, "cancelled");
    assert.deepEqual(stub.commands.get(R1)?.map((command) => command.type), ["START_TASK"], "the robot that refused is not stopped");
  });

  it("refuses bad input naming the field, and a cancel of an unknown job, sending nothing", async () => {
    const { caught } = await start(1);
    send({ task: "Kitchen" });
    send({ task: "Kitchen", map: "Floor 1", minBattery: 120 });
    send({ task: "Kitchen", area: "Hall", map: "Floor 1" });
    send({ cancel: "nope" });
    send({ map: "Floor 1" });
    await waitFor(() => caught.length === 5, 5000, "five errors");
    const messages = caught.map((msg) => (msg.error as { message: string; code: string }).message);
    assert.ok(caught.every((msg) => (msg.error as { code: string }).code === "INVALID_INPUT"));
    assert.match(messages[0]!, /payload\.map/);
    assert.match(messages[1]!, /payload\.minBattery/);
    assert.match(messages[2]!, /payload\.area/);
    assert.match(messages[3]!, /payload\.cancel/);
    assert.match(messages[4]!, /payload\.task.*no work/);
    assert.equal(stub.server.requests.filter((request) => request.method === "POST").length, 0);
  });

  it("an alarm pushed to robot-events on the account keeps the robot out", async () => {
    const events = { id: "events", type: "robot-events", robot: "config", path: "/job-events", minLevel: "", wires: [[], []] };
    const { ends } = await start(2, {}, [events], { config: { token: TEST_TOKEN }, events: { appId: "app-1" } });
    stub.place(R1, 600, 300);
    stub.place(R2, 900, 300);
    const push = { appId: "app-1", payload: { serialNumber: R1, content: { incidentId: "i-1", incidentLevel: "H6", incidentName: "Brush motor stalled", incidentStatus: 1, startTime: Date.now() } } };
    assert.equal((await rawRequest(http.url, "POST", "/job-events", { body: push })).status, 200);
    // The account's open alarms are copied to robot-events' context (for a store that outlives a restart).
    const stored = () => helper.getNode("events").context().get("robot-events.alarms") as { open: { serialNumber: string; name: string }[] } | undefined;
    await waitFor(() => stored()?.open.length === 1, 2000, "the alarms in context");
    assert.deepEqual(stored()!.open.map((alarm) => [alarm.serialNumber, alarm.name]), [[R1, "Brush motor stalled"]]);
    send({ task: "Kitchen", map: "Floor 1", near: "Kitchen door" });
    await waitFor(() => ends.length === 1, 20_000, "the job's end");
    assert.equal(ends[0]!.payload.serialNumber, R2);
    assert.equal(stub.startCommands(R1).length, 0);
  });

  it("takes a task's report from robot-events on the account when it was pushed, and its outcome from it", async () => {
    const events = { id: "events", type: "robot-events", robot: "config", path: "/job-reports", minLevel: "", wires: [[], []] };
    const { ends } = await start(1, {}, [events], { config: { token: TEST_TOKEN }, events: { appId: "app-1" } });
    stub.runReads = undefined;
    send({ task: "Kitchen", map: "Floor 1" });
    await waitFor(() => stub.statuses.get(R1)!.taskState === "RUNNING", 10_000, "the task running");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const report = { id: "pushed-1", displayName: "Kitchen", taskEndStatus: 2, cleaningMode: "洗地", startTime: Date.now(), endTime: Date.now() + 1 };
    const answer = await rawRequest(http.url, "POST", "/job-reports", { body: { appId: "app-1", payload: { serialNumber: R1, taskReport: report } } });
    assert.equal(answer.status, 200);
    stub.finish(R1, 0);
    await waitFor(() => ends.length === 1, 10_000, "the job's end");
    assert.equal(ends[0]!.payload.outcome, "error", "from the pushed report, not the listed one");
    const got = ends[0]!.payload.report as { id: string; outcome: string; cleaningKind: string };
    assert.deepEqual([got.id, got.outcome, got.cleaningKind], ["pushed-1", "error", "scrub"]);
  });

  it("a report pushed to robot-events and then swept by robot-reports is one report there, and the one the job ends with", async () => {
    stub = await fleet.newStub(1);
    const flow = flowWith(stub.url, [
      jobNode(),
      ...outputsAndCatch("job", "reports"),
      { id: "progress", type: "helper" },
      { id: "events", type: "robot-events", robot: "config", path: "/job-reports", minLevel: "", wires: [[], ["reports"], []] },
      { id: "reports", type: "robot-reports", robot: "config", serialNumbers: R1, every: 60, since: 1, keep: 7, timeZone: "UTC", wires: [["reported"], []] },
      { id: "reported", type: "helper" },
    ]);
    await loadFlow([http.serving(robotJob), robotEvents, robotReports], flow, { config: { token: TEST_TOKEN }, events: { appId: "app-1" } });
    const [ends, caught, reported] = [collectMessages("out") as Msg[], collectMessages("caught"), collectMessages("reported") as Msg[]];
    stub.runReads = undefined;
    send({ task: "Kitchen", map: "Floor 1" });
    await waitFor(() => stub.statuses.get(R1)!.taskState === "RUNNING", 10_000, "the task running");
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The stub files its report as `${R1}-1`; the push carries the same report, told apart by its displayName.
    const report = { id: `${R1}-1`, displayName: "pushed copy", taskEndStatus: 2, cleaningMode: "洗地", startTime: Date.now(), endTime: Date.now() + 1 };
    const answer = await rawRequest(http.url, "POST", "/job-reports", { body: { appId: "app-1", payload: { serialNumber: R1, taskReport: report } } });
    assert.equal(answer.status, 200);
    await waitFor(() => reported.length === 1, 5000, "robot-reports sends the pushed report");
    stub.finish(R1, 2);
    await waitFor(() => ends.length === 1, 10_000, "the job's end");
    const sweeps = stub.server.requests.filter((request) => request.path.includes("/taskReports")).length;
    helper.getNode("reports").receive({ payload: "sweep now" });
    await waitFor(() => stub.server.requests.filter((request) => request.path.includes("/taskReports")).length > sweeps, 5000, "the sweep");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(reported.length, 1, "the swept report is the one pushed: sent on once");
    const sent = reported[0]!.payload as { reportKey: string; displayName: string };
    const got = ends[0]!.payload.report as { reportKey: string; displayName: string; outcome: string };
    assert.deepEqual([got.reportKey, got.displayName, got.outcome], [sent.reportKey, "pushed copy", "error"]);
    assert.equal(sent.reportKey, `${R1}/${R1}-1`);
    assert.equal(caught.length, 0, JSON.stringify(caught[0]?.error));
  });

  it("a redeploy in the middle of running and waiting jobs: the new node follows them on, each ends once, no robot is stopped or sent twice", async () => {
    await start(3);
    stub.runReads = undefined;
    for (let job = 0; job < 5; job++) send({ task: `Task ${job}`, map: "Floor 1", jobId: `job-${job}` }, { topic: `sensor-${job}` });
    await waitFor(() => [R1, R2, R3].every((robot) => stub.statuses.get(robot)!.taskState === "RUNNING"), 10_000, "three jobs running");
    // Let the three be confirmed running; two wait for a robot.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const flow = flowWith(stub.url, [jobNode({ name: "after the deploy" }), ...outputsAndCatch("job"), { id: "progress", type: "helper" }]);
    await helper.setFlows(flow, "full", { config: { token: TEST_TOKEN } });
    const ends = collectMessages("out") as Msg[];
    const caught = collectMessages("caught");
    for (const robot of [R1, R2, R3]) stub.finish(robot);
    await waitFor(() => stub.startCommands(R1).length + stub.startCommands(R2).length + stub.startCommands(R3).length === 5, 10_000, "the two waiting jobs started");
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const robot of [R1, R2, R3]) if (stub.statuses.get(robot)!.taskState === "RUNNING") stub.finish(robot);
    await waitFor(() => ends.length === 5, 20_000, "five ends");
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(caught.length, 0, JSON.stringify(caught[0]?.error));
    assert.deepEqual(ends.map((msg) => msg.jobId).sort(), ["job-0", "job-1", "job-2", "job-3", "job-4"]);
    assert.ok(ends.every((msg) => msg.payload.outcome === "completed"), JSON.stringify(ends.map((msg) => msg.payload.outcome)));
    assert.ok(ends.every((msg) => msg.topic === `sensor-${String(msg.jobId).slice(4)}`), "the end keeps the job's topic");
    for (const robot of [R1, R2, R3]) {
      const commands = stub.commands.get(robot) ?? [];
      assert.ok(commands.every((command) => command.type === "START_TASK" && !command.whileBusy), `${robot}: ${JSON.stringify(commands)}`);
    }
  });

  it("a job node deleted with a job under way lets its robot go without stopping it", async () => {
    await start(1);
    stub.runReads = undefined;
    send({ task: "Kitchen", map: "Floor 1", jobId: "orphan" });
    await waitFor(() => stub.statuses.get(R1)!.taskState === "RUNNING", 10_000, "the job running");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const replacement = { ...jobNode(), id: "job-2" };
    await helper.setFlows(flowWith(stub.url, [replacement, ...outputsAndCatch("job-2"), { id: "progress", type: "helper" }]), "full", { config: { token: TEST_TOKEN } });
    const ends = collectMessages("out") as Msg[];
    stub.finish(R1);
    stub.runReads = 2;
    helper.getNode("job-2").receive({ payload: { task: "Lobby", map: "Floor 1", jobId: "next" } });
    await waitFor(() => ends.length === 1, 10_000, "the new node's job on the robot let go");
    assert.equal(ends[0]!.jobId, "next");
    assert.equal(ends[0]!.payload.serialNumber, R1);
    assert.deepEqual(stub.commands.get(R1)?.map((command) => command.type), ["START_TASK", "START_TASK"], "no stop");
  });

  it("200 jobs over 20 robots with refusals: each ends once, none lost, no robot sent two jobs at once", async function () {
    this.timeout(120_000);
    const { ends, caught } = await start(20, { waitUpTo: 600, tries: 20 });
    for (const index of [3, 11, 17]) stub.refusing.add(stubSerial(index));
    for (let job = 0; job < 200; job++) send({ task: `Task ${job}`, map: "Floor 1", jobId: `job-${job}` });
    await waitFor(() => ends.length + caught.length >= 200, 110_000, "200 ends");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(caught.length, 0, JSON.stringify(caught[0]?.error));
    const ids = ends.map((msg) => msg.jobId);
    assert.equal(new Set(ids).size, 200, "no job ended twice");
    assert.equal(ids.length, 200);
    let starts = 0;
    for (let index = 1; index <= 20; index++) {
      const commands = stub.startCommands(stubSerial(index));
      assert.ok(commands.every((command) => !command.whileBusy), `${stubSerial(index)} was never sent a job while busy`);
      starts += commands.length;
    }
    const refusals = ends.flatMap((msg) => (msg.payload.attempts as { result: string }[]).filter((attempt) => attempt.result.startsWith("refused")));
    assert.equal(starts, 200 + refusals.length, "one start per job, plus one per refusal");
    assert.ok(ends.every((msg) => msg.payload.outcome === "completed"));
  });
});
