/**
 * robot-reports in real Node-RED against a cloud on loopback that keeps task
 * reports (test/support/reports-stub.ts): sweeps and pushes, each report sent
 * on once; the fleet's figures as worked out by hand; coverage images without
 * the token; bad requests refused naming the field.
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { DAY_MS } from "../../src/api/reports/book";
import { RUNNING_TASK_REACH_MS } from "../../src/api/reports/sweep";
import { readPush } from "../../src/api/pushes/pushes";
import robotReports from "../../src/nodes/robot-reports";
import { TEST_TOKEN, collectMessages, flowWith, helper, loadFlow, recordStatuses, recordWarnings, useNodeRed, waitFor, type FlowNode } from "../support/node-red";
import { HALL, KPI_REPORTS, LOBBY, pushedEvent, reportAt } from "../support/report-fixtures";
import { ReportsStub } from "../support/reports-stub";

type Message = Record<string, unknown>;
const keyOf = (msg: Message) => (msg.payload as { reportKey: string }).reportKey;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("robot-reports: every report once, and the fleet's figures", function () {
  this.timeout(30_000);
  let stub: ReportsStub;
  beforeEach(async () => {
    stub = await new ReportsStub().start();
  });
  afterEach(async () => {
    await stub.stop();
    forgetAccountMemory();
  });
  useNodeRed();

  function flow(settings: Record<string, unknown> = {}): FlowNode[] {
    return flowWith(stub.url, [
      { id: "reports", type: "robot-reports", robot: "config", serialNumbers: "", every: 15, since: 7, keep: 90, timeZone: "UTC", ...settings, wires: [["out"], ["figures"]] },
      { id: "out", type: "helper" },
      { id: "figures", type: "helper" },
      { id: "catch-errors", type: "catch", scope: ["reports"], uncaught: false, wires: [["caught"]] },
      { id: "caught", type: "helper" },
    ]);
  }

  async function deploy(settings: Record<string, unknown> = {}) {
    await loadFlow([robotReports], flow(settings));
    return { out: collectMessages("out"), figures: collectMessages("figures"), caught: collectMessages("caught") };
  }

  const send = (payload: unknown) => helper.getNode("reports").receive({ payload });
  const sweepsDone = () => stub.reportRequests().length;

  it("sweeps over days with pushes in between, pushed twice or never: each report is sent on once", async () => {
    const now = Date.now();
    stub.addRobot(LOBBY, "Lobby scrubber");
    stub.addRobot(HALL, "Hall sweeper");
    for (const day of [3, 2, 1]) {
      stub.file(reportAt(`lobby-${day}`, LOBBY, now - day * DAY_MS));
      stub.file(reportAt(`hall-${day}`, HALL, now - day * DAY_MS + 3600_000));
    }
    stub.file(reportAt("too-old", LOBBY, now - 8 * DAY_MS));
    // A task that runs through the first sweep: filed after it, stamped with its start before it.
    const running = reportAt("hall-running", HALL, now - 2 * 3600_000, 3 * 3600);
    const { out, caught } = await deploy();
    await waitFor(() => out.length === 6, 5000, "the first sweep's six reports");
    const first = stub.reportRequests();
    assert.equal(first.length, 2, "one call per robot");
    const firstFloor = Date.parse(first[0]!.floor!);
    assert.ok(Math.abs(firstFloor - (now - 7 * DAY_MS)) < 60_000, "the first sweep reads back Since days");

    // A new report is pushed, twice (the push service may repeat); the running task ends and is not pushed.
    const pushed = reportAt("lobby-new", LOBBY, Date.now() - 1800_000);
    stub.file(pushed);
    send(pushedEvent(pushed));
    send(pushedEvent(pushed));
    stub.file(running);
    await waitFor(() => out.length === 7, 3000, "the pushed report");
    send("sweep now");
    await waitFor(() => sweepsDone() === 4, 5000, "the second sweep");
    await waitFor(() => out.length === 8, 3000, "the running task's report");
    const second = stub.reportRequests().slice(2);
    assert.ok(second.every((call) => Date.parse(call.floor!) <= Date.parse(first[0]!.upper!) - RUNNING_TASK_REACH_MS + 1000), "a later window reaches a day before the last sweep");
    // The running task's report pushed late, and another sweep: nothing new.
    send(pushedEvent(running));
    send({ any: "thing" });
    await waitFor(() => sweepsDone() === 6, 5000, "the third sweep");
    await pause(100);
    const keys = out.map(keyOf);
    assert.equal(keys.length, 8);
    assert.equal(new Set(keys).size, 8, "no report twice");
    assert.ok(keys.includes(`${HALL}/hall-running`) && keys.includes(`${LOBBY}/lobby-new`) && !keys.includes(`${LOBBY}/too-old`));
    assert.deepEqual(out.map((msg) => msg.topic).filter((topic) => topic === HALL).length, 4);
    assert.equal(caught.length, 0);
  });

  it("sends two robots' reports with one id as two, swept and pushed, and counts each in its robot's figures", async () => {
    const startMs = Date.now() - 3600_000;
    stub.addRobot(LOBBY, "Lobby scrubber");
    stub.addRobot(HALL, "Hall sweeper");
    stub.file(reportAt("same-id", LOBBY, startMs));
    stub.file(reportAt("same-id", HALL, startMs));
    const { out, caught } = await deploy();
    await waitFor(() => out.length === 2, 5000, "both robots' reports");
    assert.deepEqual(out.map((msg) => [msg.topic, keyOf(msg)]).sort(), [
      [LOBBY, `${LOBBY}/same-id`],
      [HALL, `${HALL}/same-id`],
    ]);
    // Pushed again after the sweep, each robot's report is the one already sent.
    send(pushedEvent(reportAt("same-id", LOBBY, startMs)));
    send(pushedEvent(reportAt("same-id", HALL, startMs)));
    await pause(300);
    assert.equal(out.length, 2, "sent on once each");
    const table = collectMessages("figures");
    send({ kpi: { from: new Date(startMs).toISOString().slice(0, 10), to: new Date().toISOString().slice(0, 10), by: "robot" } });
    await waitFor(() => table.length === 1, 3000, "the table");
    const rows = table[0]!.payload as Array<{ serialNumber: string; tasks: number }>;
    assert.deepEqual(rows.map((row) => [row.serialNumber, row.tasks]).sort(), [
      [LOBBY, 1],
      [HALL, 1],
    ]);
    assert.equal(caught.length, 0);
  });

  it("sends the rest of a sweep when one report fails on its way out: that one is one error a Catch node gets, with the report", async () => {
    stub.addRobot(LOBBY, "Lobby scrubber");
    const { out, caught } = await deploy();
    await waitFor(() => sweepsDone() === 1, 5000, "the first sweep, with nothing to send");
    const now = Date.now();
    ["a", "b", "c"].forEach((id, index) => stub.file(reportAt(id, LOBBY, now - (index + 1) * 3600_000)));
    // The flow refuses the first report sent on output 1 (node.send throws), whichever the cloud lists first.
    const node = helper.getNode("reports") as unknown as { send: (msg: unknown) => void };
    const sendOn = node.send.bind(node);
    let refused: string | undefined;
    node.send = (msg) => {
      const report = Array.isArray(msg) ? (msg[0] as Message | null) : undefined;
      if (report && refused === undefined) {
        refused = keyOf(report);
        throw new Error("the flow refused the message");
      }
      sendOn(msg);
    };
    send("sweep now");
    await waitFor(() => out.length === 2 && caught.length === 1, 5000, "two reports sent and one error");
    assert.equal(caught[0]!.topic, LOBBY);
    assert.equal(keyOf(caught[0]!), refused, "the error's message is the report that failed");
    assert.deepEqual(out.map(keyOf).sort(), [`${LOBBY}/a`, `${LOBBY}/b`, `${LOBBY}/c`].filter((key) => key !== refused));
    // The next sweep sends none of them again: the failed one ended in its error.
    send("sweep now");
    await waitFor(() => sweepsDone() === 3, 5000, "the next sweep");
    await pause(200);
    assert.equal(out.length, 2);
    assert.equal(caught.length, 1);
  });

  it("remembers what it sent through a redeploy", async () => {
    stub.addRobot(LOBBY, "Lobby scrubber");
    stub.file(reportAt("a", LOBBY, Date.now() - DAY_MS));
    const { out } = await deploy();
    await waitFor(() => out.length === 1, 5000, "the report");
    await helper.setFlows(flow({ name: "redeployed" }), "full", { config: { token: TEST_TOKEN } });
    const again = collectMessages("out");
    await waitFor(() => sweepsDone() === 2, 5000, "the sweep after the deploy");
    send(pushedEvent(reportAt("a", LOBBY, Date.now() - DAY_MS)));
    await pause(200);
    assert.equal(again.length, 0, "nothing sent again");
  });

  it("answers the table of a period equal to the figures worked out by hand, and updates a day's figures after each report", async () => {
    const { figures, out } = await deploy({ keep: 3650 });
    // The account's robot list twice: the robot directory's first read, and the first sweep's (no robots).
    await waitFor(() => stub.server.requests.length === 2, 5000, "the first sweep (no robots)");
    for (const report of KPI_REPORTS) send(pushedEvent(report));
    await waitFor(() => out.length === 5 && figures.length === 5, 3000, "five reports and their figures");
    // After r5 (the Lobby scrubber's only report on the 25th, on Floor 1):
    assert.deepEqual(figures[4]!.payload, {
      day: "2026-11-25",
      robot: { serialNumber: LOBBY, robotName: LOBBY, tasks: 1, completed: 0, stoppedByHand: 0, error: 1, failedToStart: 0, areaCleaned: 150, areaPlanned: 200, coverage: 0.75, hours: 1, efficiency: 150, cloudEfficiency: 160, water: 3, batteryUsed: 15 },
      maps: [{ mapId: "m-1", mapName: "Floor 1", tasks: 1, completed: 0, stoppedByHand: 0, error: 1, failedToStart: 0, areaCleaned: 150, areaPlanned: 200, coverage: 0.75, hours: 1, efficiency: 150, cloudEfficiency: 160, water: 3, batteryUsed: 15 }],
    });
    const table = async (kpi: Record<string, unknown>) => {
      const before = figures.length;
      send({ kpi });
      await waitFor(() => figures.length === before + 1, 3000, "the table");
      return figures.at(-1)!;
    };
    const byMap = await table({ from: "2026-11-24", to: "2026-11-25", by: "map" });
    assert.deepEqual(byMap.kpi, { from: "2026-11-24", to: "2026-11-25", by: "map" });
    assert.deepEqual(byMap.payload, [
      { mapId: "m-1", mapName: "Floor 1", tasks: 3, completed: 2, stoppedByHand: 0, error: 1, failedToStart: 0, areaCleaned: 600, areaPlanned: 700, coverage: 0.857, hours: 3.5, efficiency: 171.4, cloudEfficiency: 172.9, water: 12, batteryUsed: 65 },
      { mapId: "m-2", mapName: "Floor 2", tasks: 3, completed: 1, stoppedByHand: 1, error: 0, failedToStart: 1, areaCleaned: 120, areaPlanned: 350, coverage: 0.343, hours: 1, efficiency: 120, cloudEfficiency: 120, water: 2.4, batteryUsed: 18 },
    ]);
    // The same figures as a ui-chart's points, named in the runtime's words.
    assert.deepEqual((await table({ from: "2026-11-24", to: "2026-11-25", by: "map", chart: ["areaCleaned", "cutShort"] })).payload, [
      { x: "Floor 1", series: "m² cleaned", y: 600 },
      { x: "Floor 2", series: "m² cleaned", y: 120 },
      { x: "Floor 1", series: "cut short", y: 1 },
      { x: "Floor 2", series: "cut short", y: 2 },
    ]);
    assert.deepEqual((await table({ from: "2026-11-24", to: "2026-11-25", by: "robot" })).payload, [
      { serialNumber: LOBBY, robotName: LOBBY, tasks: 3, completed: 1, stoppedByHand: 1, error: 1, failedToStart: 0, areaCleaned: 360, areaPlanned: 500, coverage: 0.72, hours: 2.5, efficiency: 144, cloudEfficiency: 154, water: 7.2, batteryUsed: 43 },
      { serialNumber: HALL, robotName: HALL, tasks: 2, completed: 1, stoppedByHand: 0, error: 0, failedToStart: 1, areaCleaned: 360, areaPlanned: 550, coverage: 0.655, hours: 2, efficiency: 180, cloudEfficiency: 170, water: 7.2, batteryUsed: 40 },
    ]);
    assert.deepEqual((await table({ from: "2026-11-24", to: "2026-11-25", by: "day" })).payload, [
      { day: "2026-11-24", tasks: 3, completed: 2, stoppedByHand: 1, error: 0, failedToStart: 0, areaCleaned: 570, areaPlanned: 700, coverage: 0.814, hours: 3.5, efficiency: 162.9, cloudEfficiency: 161.4, water: 11.4, batteryUsed: 68 },
      { day: "2026-11-25", tasks: 2, completed: 0, stoppedByHand: 0, error: 1, failedToStart: 1, areaCleaned: 150, areaPlanned: 350, coverage: 0.429, hours: 1, efficiency: 150, cloudEfficiency: 160, water: 3, batteryUsed: 15 },
    ]);
  });

  it("sends a real-looking report pushed (epoch ms, the newer envelope) and then swept (RFC 3339) once, and fetches its coverage image without the token", async () => {
    const startMs = Date.now() - 3 * 3600_000;
    const swept = {
      ...reportAt("1906203949011210240", LOBBY, startMs, 5400),
      operator: "open-platform",
      consumablesResidualPercentage: { brush: 74, filter: 81, suctionBlade: 90 },
      cleaningMode: "__中度清洁".slice(2),
    };
    stub.addRobot(LOBBY, "Lobby scrubber");
    stub.file(swept);
    const body = {
      appId: "app-1",
      productId: "p-9",
      messageId: "m-77",
      traceId: "t-1",
      messageTimestamp: Date.now(),
      payload: { serialNumber: LOBBY, modelTypeCode: "S1", taskReport: { ...swept, startTime: startMs, endTime: startMs + 5400_000 } },
    };
    const push = readPush(body);
    assert.equal(push.kind, "taskReport");
    stub.failing.add(LOBBY);
    const { out, figures, caught } = await deploy();
    await waitFor(() => caught.length === 1, 5000, "the failed first sweep");
    assert.match(String((caught[0]!.error as { message: string }).message), new RegExp(`1 of 1 robots.*${LOBBY}`));
    assert.equal(caught[0]!.topic, "sweep", "the timer's sweep names itself to the Catch node");
    // A sweep asked for by a message fails through that message (done(err)), keeping its properties.
    helper.getNode("reports").receive({ payload: "sweep", topic: "mine" });
    await waitFor(() => caught.length === 2, 5000, "the asked-for sweep's error");
    assert.equal(caught[1]!.topic, "mine");
    assert.match(String((caught[1]!.error as { message: string }).message), /listTaskReports: the reports of 1 of 1 robots/);
    send(push.event);
    await waitFor(() => out.length === 1, 3000, "the pushed report");
    stub.failing.delete(LOBBY);
    send("sweep");
    await waitFor(() => sweepsDone() === 3, 5000, "the sweep");
    await pause(100);
    assert.equal(out.length, 1, "pushed and swept: one report");
    assert.equal((out[0]!.payload as { startTimeIso: string }).startTimeIso, new Date(startMs).toISOString());

    send({ image: "1906203949011210240" });
    await waitFor(() => figures.some((msg) => Buffer.isBuffer(msg.payload)), 3000, "the image");
    const image = figures.find((msg) => Buffer.isBuffer(msg.payload))!;
    assert.equal(image.contentType, "image/png");
    assert.equal((image.payload as Buffer).readUInt32BE(16), 20, "the PNG the cloud listed for this report");
    assert.equal(stub.imageRequestsWithToken, 0, "no token went to the image's host");
    const listing = stub.server.requests.find((request) => request.path.endsWith("/map-images/query"))!;
    assert.equal(listing.headers.authorization, `Bearer ${TEST_TOKEN}`);
    assert.deepEqual(listing.body, { robotSn: LOBBY, taskReportId: "1906203949011210240" });
    assert.ok(!JSON.stringify(image.report).includes("s3cr3t"), "the signed URL's query stays out of the message");
  });

  it("names a robot not bound for reports (110003) once, as a warning, sweeps the others, and counts it under the node", async () => {
    const now = Date.now();
    const [unbound1, unbound2, broken] = ["GS-S-000301", "GS-S-000302", "GS-S-000303"];
    stub.addRobot(LOBBY, "Lobby scrubber");
    for (const robot of [unbound1, unbound2, broken]) stub.addRobot(robot, robot);
    stub.file(reportAt("lobby-1", LOBBY, now - DAY_MS));
    stub.notBound.add(unbound1).add(unbound2);
    stub.failing.add(broken);
    const { out, caught } = await deploy();
    const warnings = recordWarnings("reports");
    const statuses = recordStatuses("reports");
    await waitFor(() => caught.length === 1 && out.length === 1, 5000, "the first sweep");
    send("sweep");
    await waitFor(() => caught.length === 2, 5000, "the second sweep");
    // Only the robot that failed otherwise is an error, at each sweep; the unbound two are named once each.
    for (const each of caught) assert.match(String((each.error as { message: string }).message), new RegExp(`1 of 4 robots could not be read \\(${broken}\\)`));
    assert.equal(warnings.length, 2, warnings.join("\n"));
    for (const robot of [unbound1, unbound2]) assert.equal(warnings.filter((text) => text.includes(robot) && text.includes("110003")).length, 1, robot);
    assert.match(statuses.at(-1)!.text!, /2 robots not bound for reports/);
    assert.equal(statuses.at(-1)!.fill, "yellow");
    // Bound later: swept like the others, and no longer counted.
    stub.notBound.clear();
    stub.failing.clear();
    stub.file(reportAt("unbound-1", unbound1, now - DAY_MS));
    send("sweep");
    await waitFor(() => out.length === 2, 5000, "the newly bound robot's report");
    await waitFor(() => statuses.at(-1)?.fill === "green", 3000, "a clean sweep");
    assert.doesNotMatch(statuses.at(-1)!.text!, /not bound/);
  });

  it("refuses a bad request naming the field, and a bad setting at deploy", async () => {
    const { out, figures, caught } = await deploy();
    // The robot directory's first read of the robot list, and the first sweep's.
    await waitFor(() => stub.server.requests.length === 2, 5000, "the first sweep");
    send({ kpi: { from: "yesterday" } });
    send({ image: "nope" });
    send({ taskEndStatus: 0, id: "x", serialNumber: "bad serial!" });
    await waitFor(() => caught.length === 3, 3000, "three errors");
    const messages = caught.map((msg) => (msg.error as { message: string }).message).sort();
    assert.match(messages[0]!, /payload\.image: no report nope/);
    assert.match(messages[1]!, /payload\.kpi\.from: /);
    assert.match(messages[2]!, /payload\.serialNumber: /);
    assert.equal(out.length + figures.length, 0);

    await helper.unload();
    await loadFlow([robotReports], flow({ timeZone: "Mars/Olympus" }));
    const refused = collectMessages("caught");
    send("sweep");
    await waitFor(() => refused.length === 1, 3000, "the setting's error");
    assert.match((refused[0]!.error as { message: string }).message, /timeZone: /);
  });
});


