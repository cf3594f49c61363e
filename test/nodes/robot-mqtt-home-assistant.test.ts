/**
 * robot-mqtt against what Home Assistant's MQTT vacuum reads and sends (a
 * real mosquitto, real Node-RED with its core mqtt nodes, the simulator with
 * tasks that end after 15 s): fan_speed always in the state, no deprecated
 * feature, a running task's progress, vacuum.send_command with params, a
 * removed robot's config cleared once across Home Assistant's births, and the
 * map's areas as segments that clean_area starts an area job for, the wear
 * parts and tanks as sensors with each part's due day; and, with
 * one robot the cloud cannot reach, a start on another confirmed.
 */
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import robotMqtt from "../../src/nodes/robot-mqtt";
import robotUpkeep from "../../src/nodes/robot-upkeep";
import type { UpkeepRobot } from "../../src/api/upkeep/table";
import { DEMO_TOKEN } from "../../src/simulator";
import { accountKeyOf } from "../../src/api/account/account-memory";
import { partEntityKey } from "../../src/api/mqtt/discovery";
import { upkeepFactsOf } from "../../src/api/upkeep/facts";
import { upkeepHistoryOf } from "../../src/api/upkeep/history";
import { upkeepTableOfAccount } from "../../src/api/upkeep/table-builder";
import { fleetStatusesOf } from "../../src/api/watching/fleet-statuses";
import { DAY_MS, workDays } from "../support/upkeep-days";
import { deviceConfigProblems, HomeAssistantClient, sensorValueProblems } from "../support/home-assistant";
import { collectMessages, flowWith, helper, loadFlow, waitFor } from "../support/node-red";
import { bridgeFlow, bridgeLifetimeOf, BASE, configTopic, mqttNodes, PREFIX, resultOf, useBridgeRig } from "../support/mqtt-bridge-flow";

const ROBOTS = ["GS-S-000101", "GS-S-000102", "GS-S-000201"];

describe("robot-mqtt, as Home Assistant's MQTT vacuum reads it", function () {
  this.timeout(90_000);
  const rig = useBridgeRig({ timing: { taskDurationMs: 15_000 } });

  async function deploy(settings: Record<string, unknown> = {}): Promise<HomeAssistantClient> {
    await loadFlow([robotMqtt, mqttNodes], flowWith(rig.simulator.url, bridgeFlow(rig.broker.port, settings)), { config: { token: DEMO_TOKEN } });
    rig.ha ??= await HomeAssistantClient.connect(rig.broker.url, [`${PREFIX}/#`, `${BASE}/#`]);
    const client = rig.ha;
    const robots = typeof settings.serialNumbers === "string" ? [settings.serialNumbers] : ROBOTS;
    await waitFor(() => robots.every((serial) => client.last.has(configTopic(serial)) && client.last.has(`${BASE}/${serial}/state`)), 20_000, "every robot's discovery and state");
    return client;
  }

  const sentTo = (serial: string) => rig.simulator.state.commands(serial).length;

  it("always gives fan_speed in the vacuum's state: null while no mode is known, the mode once one is set", async () => {
    const client = await deploy();
    const state = client.json(`${BASE}/GS-S-000101/state`);
    assert.ok("fan_speed" in state, JSON.stringify(state));
    assert.equal(state.fan_speed, null);
    assert.equal((await resultOf(client, "GS-S-000101", "set_fan_speed", "尘推 – dust mop")).ok, true);
    await waitFor(() => client.json(`${BASE}/GS-S-000101/state`).fan_speed === "尘推 – dust mop", 10_000, "the chosen mode");
  });

  it("offers no deprecated feature, and a clean_segments_command_topic beside the vacuum's unique_id", async () => {
    const client = await deploy();
    for (const serial of ROBOTS) {
      const config = client.json(configTopic(serial));
      assert.deepEqual(deviceConfigProblems(config, (topic) => client.last.has(topic)), [], serial);
      const vacuum = (config.components as Record<string, Record<string, unknown>>).vacuum!;
      assert.deepEqual(vacuum.supported_features, ["start", "pause", "stop", "return_home", "send_command", "fan_speed"]);
      assert.equal(vacuum.clean_segments_command_topic, `${BASE}/${serial}/clean_segments`);
      assert.equal(vacuum.unique_id, `robot_fleet_${serial}_vacuum`);
    }
  });

  it("offers each wear part and tank the status has as a sensor (%), each part's due day as a timestamp where the history forecasts one", async () => {
    const serial = "GS-S-000101";
    // Ten days of the filter's work before the deploy, 4 h a day, ending at the counter the robot then shows (150 of 201 h).
    const changed = await fetch(`${rig.simulator.url}/_sim/robots/${serial}/wear`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ parts: { filter: { usedLife: 150, lifeSpan: 201 } } }),
    });
    assert.equal(changed.status, 200, await changed.text());
    const accountKey = accountKeyOf(rig.simulator.url, DEMO_TOKEN);
    const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    workDays(upkeepHistoryOf(accountKey), { serialNumber: serial, lifeSpan: 201, usedLife: 110, from: midnight - 10 * DAY_MS, days: 10, hoursPerDay: 4 });

    const client = await deploy();
    assert.equal((helper.getNode("config") as unknown as { robot: { client: { accountKey: string } } }).robot.client.accountKey, accountKey);
    const config = () => client.json(configTopic(serial));
    const attributes = () => client.json(`${BASE}/${serial}/attributes`);
    const facts = upkeepFactsOf(fleetStatusesOf(accountKey).get(serial)!.status)!;
    // Only the parts and tanks the robot's status has.
    const keys = Object.keys(config().components as object).slice(6);
    assert.deepEqual(keys, [...facts.parts.flatMap(({ part }) => [partEntityKey(part), `${partEntityKey(part)}_due`]), "clean_water", "recovery_water"]);
    assert.ok(keys.includes("filter_due") && !keys.includes("ordinary_dust_push"), keys.join(", "));
    assert.deepEqual(deviceConfigProblems(config(), (topic) => client.last.has(topic)), []);
    assert.deepEqual(sensorValueProblems(config(), (topic) => client.json(topic)), []);
    assert.deepEqual(attributes().parts, Object.fromEntries(facts.parts.map(({ part, remaining }) => [part, Math.round(remaining * 100)])));
    assert.equal(attributes().clean_water, facts.tanks.cleanWater);

    const dueAt = upkeepTableOfAccount(accountKey, [serial])[0]!.parts.find((part) => part.part === "filter")!.forecast.dueAt;
    assert.ok(dueAt, "a forecast from 10 days of history");
    await waitFor(() => (attributes().parts_due as Record<string, unknown>).filter === dueAt, 20_000, "the filter's due day");
    const others = Object.entries(attributes().parts_due as Record<string, unknown>).filter(([part]) => part !== "filter");
    assert.ok(others.length > 0 && others.every(([, due]) => due === null), `one reading, no forecast: unknown (${JSON.stringify(others)})`);
    assert.deepEqual(sensorValueProblems(config(), (topic) => client.json(topic)), []);
  });

  it("gives a part's due day at robot-upkeep's Part due (20 %): the day the node's table says, not the default 10 %'s", async () => {
    const serial = "GS-S-000101";
    const accountKey = accountKeyOf(rig.simulator.url, DEMO_TOKEN);
    const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    // 10 days of 4 h at 1 h of the filter's 201 an hour, to 150 used: 25 % left, 2 % a day.
    workDays(upkeepHistoryOf(accountKey), { serialNumber: serial, lifeSpan: 201, usedLife: 110, from: midnight - 10 * DAY_MS, days: 10, hoursPerDay: 4 });
    rig.simulator.changeWear(serial, { parts: { filter: { usedLife: 150, lifeSpan: 201 } } });
    const upkeep = { id: "upkeep", type: "robot-upkeep", robot: "config", serialNumbers: serial, every: 0, partDue: 20, wires: [["tables"], []] };
    await loadFlow([robotMqtt, robotUpkeep, mqttNodes], flowWith(rig.simulator.url, [...bridgeFlow(rig.broker.port), upkeep, { id: "tables", type: "helper" }]), {
      config: { token: DEMO_TOKEN },
    });
    rig.ha ??= await HomeAssistantClient.connect(rig.broker.url, [`${PREFIX}/#`, `${BASE}/#`]);
    const client = rig.ha;
    const tables = collectMessages("tables");
    helper.getNode("upkeep").receive({ payload: "read" });
    await waitFor(() => tables.length === 1, 10_000, "robot-upkeep's table");
    const filter = (tables[0]!.payload as UpkeepRobot[])[0]!.parts.find((part) => part.part === "filter")!;
    assert.ok(filter.forecast.dueAt, "a forecast from 10 days of history");
    const dueOfDefault = upkeepTableOfAccount(accountKey, [serial], { threshold: 0.1 })[0]!.parts.find((part) => part.part === "filter")!.forecast.dueAt;
    assert.notEqual(filter.forecast.dueAt, dueOfDefault, "20 % comes days before 10 %");
    const due = () => (client.last.has(`${BASE}/${serial}/attributes`) ? (client.json(`${BASE}/${serial}/attributes`).parts_due as Record<string, unknown>).filter : undefined);
    await waitFor(() => due() === filter.forecast.dueAt, 20_000, "the filter's due day at 20 %");
  });

  it("shows a running task's name and progress from the v1 status (the bridge reads it only while a task runs)", async () => {
    const client = await deploy();
    assert.equal(client.json(`${BASE}/GS-S-000101/attributes`).progress, null, "no task, no progress");
    assert.equal((await resultOf(client, "GS-S-000101", "command", "start")).ok, true);
    // The S-line status the bridge polls carries none: a progress shows the v1 status was read.
    await waitFor(() => Number(client.json(`${BASE}/GS-S-000101/attributes`).progress) > 0, 20_000, "a progress");
    const attributes = client.json(`${BASE}/GS-S-000101/attributes`);
    const progress = attributes.progress as number;
    assert.ok(Number.isInteger(progress) && progress >= 0 && progress <= 100, String(progress));
    assert.equal(attributes.task, `All of Floor 1 (${progress} %)`);
    // The task ends after 15 s: its progress goes with it.
    await waitFor(() => client.json(`${BASE}/GS-S-000101/attributes`).progress === null, 40_000, "no progress once the task ended");
    assert.equal(client.json(`${BASE}/GS-S-000101/attributes`).task, "none");
  });

  it("with one robot the cloud cannot reach (230003), a start on another is carried out and confirmed, and that robot shows unavailable", async () => {
    rig.simulator.updateRobot("GS-S-000102", { reachable: false });
    const client = await deploy();
    await waitFor(() => client.last.get(`${BASE}/GS-S-000102/availability`) === "offline", 20_000, "the unreachable robot unavailable");
    assert.equal(client.last.get(`${BASE}/GS-S-000101/availability`), "online");
    const result = await resultOf(client, "GS-S-000101", "command", "start");
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(rig.simulator.state.status("GS-S-000101")!.taskState, "RUNNING");
    assert.equal(sentTo("GS-S-000101"), 1, "one start");
  });

  it("takes vacuum.send_command's params beside command or in a params object, the jobs by name, and refuses a job without its area", async () => {
    const client = await deploy();
    let result = await resultOf(client, "GS-S-000101", "send_command", JSON.stringify({ command: "clean_area", params: { area: "Kitchen" } }));
    assert.deepEqual([result.command, result.ok], ["job", true], String(result.reason));
    assert.equal(rig.simulator.state.robot("GS-S-000101")!.currentTask?.name, "Kitchen", "an area job's temporary task, named after the area");
    result = await resultOf(client, "GS-S-000102", "send_command", JSON.stringify({ command: "clean_area", area: "Lobby", name: "Lobby before opening" }));
    assert.deepEqual([result.command, result.ok], ["job", true], String(result.reason));
    assert.equal(rig.simulator.state.robot("GS-S-000102")!.currentTask?.name, "Lobby before opening");
    result = await resultOf(client, "GS-S-000102", "send_command", JSON.stringify({ command: "STOP_TASK", params: {} }));
    assert.deepEqual([result.command, result.ok], ["STOP_TASK", true], String(result.reason));
    const sent = sentTo("GS-S-000201");
    result = await resultOf(client, "GS-S-000201", "send_command", JSON.stringify({ command: "clean_area", params: { map: "Warehouse" } }));
    assert.deepEqual([result.ok, result.reason], [false, "clean_area needs area in its params"]);
    assert.equal(sentTo("GS-S-000201"), sent, "nothing sent");
  });

  it("clears a robot removed since the deploy once, not again at each of Home Assistant's births", async () => {
    let client = await deploy();
    await client.end();
    rig.ha = undefined;
    await helper.unload();
    client = await deploy({ serialNumbers: "GS-S-000101" });
    const removed = configTopic("GS-S-000102");
    await waitFor(() => client.on(removed).some((message) => message.payload === ""), 20_000, "the removed robot's config cleared");
    // Green once the bridge heard its own messages back: it sent its removals again then, for the last time.
    const bridge = helper.getNode("bridge") as unknown as { status: { args: [{ fill?: string }][]; thisValues: unknown[] } };
    const heard = () => bridge.status.args.some(([status], index) => bridge.status.thisValues[index] === bridge && status.fill === "green");
    await waitFor(heard, 20_000, "the bridge hearing the broker");
    const clearedBefore = client.on(removed).filter((message) => message.payload === "").length;
    for (const birth of [1, 2]) {
      const from = client.received.length;
      await client.publish(`${PREFIX}/status`, "online");
      await waitFor(() => client.on(configTopic("GS-S-000101"), from).length > 0, 10_000, `the published robot's config again at birth ${birth}`);
      assert.deepEqual(client.on(removed, from), [], `nothing on the removed robot's config at birth ${birth}`);
    }
    assert.ok(clearedBefore <= 2, `cleared at the deploy (and once more when the bridge first heard the broker): ${clearedBefore}`);
  });

  it("return_to_base on a cleaning robot stops its task, confirmed, then sends it to its charger, confirmed: cleaning, returning, docked", async () => {
    const client = await deploy();
    const serial = "GS-S-000102"; // idle at Kitchen door, not charging
    const started = await resultOf(client, serial, "command", "start");
    assert.deepEqual([started.command, started.ok], ["START_TASK", true], String(started.reason));
    await waitFor(() => client.json(`${BASE}/${serial}/state`).state === "cleaning", 10_000, "cleaning");
    const from = client.received.length;
    const returned = await resultOf(client, serial, "command", "return_to_base");
    assert.deepEqual([returned.command, returned.ok], ["CROSS_NAVIGATE", true], String(returned.reason));
    assert.match(String(returned.reason), /^task stopped \(IDLE after \d+ s\), then (ARRIVED at charging|charging) after \d+ s$/);
    assert.deepEqual(
      rig.simulator.state.commands(serial).map((command) => command.rawCommandType),
      ["start_task", "stop_task", "cross_navigate"],
    );
    await waitFor(() => client.json(`${BASE}/${serial}/state`).state === "docked", 15_000, "docked");
    const states = client.on(`${BASE}/${serial}/state`, from).map((message) => (JSON.parse(message.payload) as { state: string }).state);
    // From cleaning (published again while the stop was under way) to returning and docked, no idle between.
    const changes = states.filter((state, index) => state !== states[index - 1]);
    while (changes[0] === "cleaning") changes.shift();
    assert.deepEqual(changes, ["returning", "docked"], states.join(", "));
  });

  it("offers the map's areas as segments, and clean_segments starts an area job on the chosen one that is answered at its end", async () => {
    const client = await deploy();
    await waitFor(() => client.json(`${BASE}/GS-S-000101/state`).segments !== undefined, 20_000, "segments in the state");
    const segments = client.json(`${BASE}/GS-S-000101/state`).segments as Record<string, string>;
    assert.deepEqual(Object.values(segments).sort(), ["Corridor", "Kitchen", "Lobby"], "Floor 1's areas");
    const kitchen = Object.keys(segments).find((id) => segments[id] === "Kitchen")!;

    const sent = sentTo("GS-S-000101");
    const refused = await resultOf(client, "GS-S-000101", "clean_segments", JSON.stringify(["elsewhere:3"]));
    assert.deepEqual([refused.command, refused.ok], ["clean_segments", false]);
    assert.match(String(refused.reason), /is on map elsewhere; the robot is on /);
    assert.equal(sentTo("GS-S-000101"), sent, "nothing sent for a segment not offered");

    const from = client.received.length;
    const started = await resultOf(client, "GS-S-000101", "clean_segments", JSON.stringify([kitchen]));
    assert.deepEqual([started.command, started.ok], ["clean_segments", true], String(started.reason));
    assert.match(String(started.reason), /^Kitchen started: RUNNING/);
    assert.equal(rig.simulator.state.robot("GS-S-000101")!.currentTask?.name, "Kitchen");
    const results = () => client.on(`${BASE}/GS-S-000101/result`, from).map((message) => JSON.parse(message.payload) as Record<string, unknown>);
    await waitFor(() => results().length === 2, 60_000, "a second result, at the task's end");
    assert.deepEqual(results()[1], { command: "clean_segments", ok: true, reason: "Kitchen ended" });
    assert.equal(rig.simulator.state.status("GS-S-000101")!.taskState, "IDLE");
  });
});

describe("robot-mqtt, a run of chosen segments", function () {
  this.timeout(120_000);
  // Long enough for the start's confirmation to see the task running, short enough for three areas.
  const rig = useBridgeRig({ timing: { taskDurationMs: 6000 } });
  const SERIAL = "GS-S-000101";
  const resultTopic = `${BASE}/${SERIAL}/result`;

  afterEach(() => {
    rig.simulator.setFaults({ latencyMs: 0 });
  });

  /** Deploys the bridge; resolves with Home Assistant's client, the bridge's lifetime signal and the segment ids of the areas named, in that order. */
  async function deploy(areas: string[]): Promise<{ client: HomeAssistantClient; lifetime: AbortSignal; ids: string[] }> {
    const lifetime = await bridgeLifetimeOf(() =>
      loadFlow([robotMqtt, mqttNodes], flowWith(rig.simulator.url, bridgeFlow(rig.broker.port, { serialNumbers: SERIAL })), { config: { token: DEMO_TOKEN } }),
    );
    const client = (rig.ha = await HomeAssistantClient.connect(rig.broker.url, [`${BASE}/#`]));
    await waitFor(() => client.last.has(`${BASE}/${SERIAL}/state`) && client.json(`${BASE}/${SERIAL}/state`).segments !== undefined, 20_000, "segments in the state");
    const segments = client.json(`${BASE}/${SERIAL}/state`).segments as Record<string, string>;
    const ids = areas.map((area) => Object.keys(segments).find((id) => segments[id] === area)!);
    return { client, lifetime, ids };
  }

  const resultsFrom = (client: HomeAssistantClient, from: number) => client.on(resultTopic, from).map((message) => JSON.parse(message.payload) as Record<string, unknown>);
  /** The abort listeners on the bridge's lifetime besides the call engine's, one per signal for as long as it lives (abort-groups.ts). */
  const segmentListeners = (signal: AbortSignal) => getEventListeners(signal, "abort").filter((listener) => !String(listener).includes("this.groups.delete(signal)")).length;

  it("a stop during the first segment's start ends the run: its one result, and nothing left waiting for the segment's end", async () => {
    const { client, lifetime, ids } = await deploy(["Kitchen", "Lobby"]);
    const point = (rig.simulator.state.status(SERIAL)!.navigationPoints as { naviPoints: { naviPointName: string }[] }).naviPoints[0]!.naviPointName;
    // Every call slower: the segment's start (a status read, the start, the reads that confirm it) is under way when the stop comes.
    rig.simulator.setFaults({ latencyMs: 1500 });
    const from = client.received.length;
    await client.publish(`${BASE}/${SERIAL}/clean_segments`, JSON.stringify(ids));
    // A stop that overtakes the start and leaves the task alone (the robot navigates nowhere), so that the start is confirmed.
    await client.publish(`${BASE}/${SERIAL}/send_command`, JSON.stringify({ command: "STOP_NAVIGATE", params: { position: point } }));
    await waitFor(() => resultsFrom(client, from).some((result) => result.command === "clean_segments"), 60_000, "the first segment's start answered");
    rig.simulator.setFaults({ latencyMs: 0 });
    const started = resultsFrom(client, from).find((result) => result.command === "clean_segments")!;
    assert.equal(started.ok, true, String(started.reason));
    assert.match(String(started.reason), /^Kitchen \(1 of 2\) started/);
    await waitFor(() => rig.simulator.state.status(SERIAL)!.taskState === "IDLE", 30_000, "the Kitchen task's end");
    // Nothing waits for the first segment's end: the bridge's lifetime carries no listener of its own between calls.
    await waitFor(() => segmentListeners(lifetime) === 0, 20_000, "no abort listener of the segments' run left on the bridge's lifetime");
    assert.equal(resultsFrom(client, from).filter((result) => result.command === "clean_segments").length, 1, "one result of the run");
    assert.equal(rig.simulator.state.robot(SERIAL)!.currentTask, undefined, "Lobby not started");
  });

  it("leaves no abort listener on the node's lifetime after a run of three segments", async () => {
    const { client, lifetime, ids } = await deploy(["Kitchen", "Lobby", "Corridor"]);
    const from = client.received.length;
    await client.publish(`${BASE}/${SERIAL}/clean_segments`, JSON.stringify(ids));
    await waitFor(() => resultsFrom(client, from).some((result) => result.reason === "Corridor ended"), 100_000, "the third segment's end");
    assert.deepEqual(
      resultsFrom(client, from).map((result) => [result.ok, String(result.reason).replace(/ started: .*/, " started")]),
      [[true, "Kitchen (1 of 3) started"], [true, "Lobby (2 of 3) started"], [true, "Corridor (3 of 3) started"], [true, "Corridor ended"]],
    );
    await waitFor(() => segmentListeners(lifetime) === 0, 20_000, "no abort listener of the segments' run left on the bridge's lifetime");
  });

  it("refuses a start while the next segment's start is under way: the robot is sent one start", async () => {
    const { client, ids } = await deploy(["Kitchen", "Lobby"]);
    const from = client.received.length;
    await client.publish(`${BASE}/${SERIAL}/clean_segments`, JSON.stringify(ids));
    await waitFor(() => resultsFrom(client, from).length === 1, 30_000, "the first segment started");
    // The second segment's start takes a while now (a status read, the start, the reads that confirm it).
    rig.simulator.setFaults({ latencyMs: 1500 });
    const commandsBefore = rig.simulator.state.commands(SERIAL).length;
    await waitFor(() => rig.simulator.state.robot(SERIAL)!.currentTask?.name === "Lobby", 60_000, "the second segment's task started");
    assert.equal(resultsFrom(client, from).length, 1, "its start not confirmed yet");
    const refused = await resultOf(client, SERIAL, "command", "start");
    assert.deepEqual([refused.command, refused.ok, refused.reason], ["start", false, "another command for this robot is still under way (stop and pause are always carried out)"]);
    await waitFor(() => resultsFrom(client, from).some((result) => String(result.reason).startsWith("Lobby (2 of 2)")), 30_000, "the second segment's start answered");
    assert.match(String(resultsFrom(client, from).find((result) => String(result.reason).startsWith("Lobby"))!.reason), /^Lobby \(2 of 2\) started/);
    // The segment's start is a temporary task, not a command: no command went to the robot.
    assert.deepEqual(rig.simulator.state.commands(SERIAL).slice(commandsBefore), [], "no second start");
  });
});
