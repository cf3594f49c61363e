/**
 * robot-mqtt as Home Assistant uses it: a real mosquitto, real Node-RED with
 * its core mqtt in / mqtt out / mqtt-broker nodes, the simulator, and a
 * client playing Home Assistant that checks every discovery config against
 * Home Assistant's rules, reads the states, sends every command and sees the
 * simulator carry it out, sends its birth message and bad input. Also: a
 * broker that comes up after the deploy, a robot that leaves, and a fleet of
 * 200 (figures printed, not asserted).
 */
import assert from "node:assert/strict";
import robotMqtt from "../../src/nodes/robot-mqtt";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { alarmsOfAccount } from "../../src/api/pushes/open-alarms";
import { readPush } from "../../src/api/pushes/pushes";
import { readStatus } from "../../src/api/watching/status-reader";
import type { RobotConfigNode } from "../../src/nodes/shared/types";
import { accountKeyOf } from "../../src/api/account/account-memory";
import { plansOfAccount } from "../../src/api/plans/plan-book";
import { FleetStub } from "../support/fleet-stub";
import { deviceConfigProblems, HomeAssistantClient } from "../support/home-assistant";
import { reserveMosquitto, type Mosquitto } from "../support/mosquitto";
import { flowWith, helper, loadFlow, TEST_TOKEN, useNodeRed, waitFor } from "../support/node-red";
import { bridgeFlow, BASE, configTopic, mqttNodes, PREFIX, resultOf, useBridgeRig } from "../support/mqtt-bridge-flow";

const ROBOTS = ["GS-S-000101", "GS-S-000102", "GS-S-000201"];

describe("robot-mqtt", function () {
  this.timeout(60_000);
  const rig = useBridgeRig({}, false);

  async function deploy(settings: Record<string, unknown> = {}) {
    await loadFlow([robotMqtt, mqttNodes], flowWith(rig.simulator.url, bridgeFlow(rig.broker.port, settings)), { config: { token: DEMO_TOKEN } });
  }

  async function homeAssistant(): Promise<HomeAssistantClient> {
    rig.ha = await HomeAssistantClient.connect(rig.broker.url, [`${PREFIX}/#`, `${BASE}/#`]);
    return rig.ha;
  }

  async function allDiscovered(client: HomeAssistantClient, robots = ROBOTS) {
    await waitFor(() => client.last.get(`${BASE}/availability`) === "online" && robots.every((serial) => client.last.has(configTopic(serial)) && client.last.has(`${BASE}/${serial}/state`) && client.last.has(`${BASE}/${serial}/attributes`)), 20_000, "every robot's discovery and state");
  }

  const command = resultOf;

  it("publishes a device config per robot that Home Assistant accepts, with states on every topic it names", async () => {
    await rig.broker.start();
    await deploy();
    const client = await homeAssistant();
    await allDiscovered(client);
    for (const serial of ROBOTS) {
      const config = client.json(configTopic(serial));
      assert.deepEqual(deviceConfigProblems(config, (topic) => client.last.has(topic)), [], `${serial}'s config`);
      const device = config.device as Record<string, unknown>;
      assert.deepEqual(device.identifiers, [serial]);
      assert.equal(device.serial_number, serial);
      assert.equal(device.name, rig.simulator.state.robot(serial)!.displayName);
      const vacuum = (config.components as Record<string, Record<string, unknown>>).vacuum!;
      assert.ok((vacuum.fan_speed_list as string[]).some((speed) => speed === "尘推 – dust mop"), "a cleaning mode with its meaning");
      assert.deepEqual(vacuum.supported_features, ["start", "pause", "stop", "return_home", "send_command", "fan_speed"]);
    }
    assert.equal(client.last.get(`${BASE}/availability`), "online");
    assert.equal(client.json(`${BASE}/GS-S-000101/state`).state, "docked", "charging at start");
    assert.equal(client.last.get(`${BASE}/GS-S-000101/availability`), "online");
    const attributes = client.json(`${BASE}/GS-S-000101/attributes`);
    assert.equal(attributes.battery, 96);
    assert.equal(attributes.map, "Floor 1");
    assert.equal(attributes.problem, false);
    assert.equal(attributes.alarm, "none");
    assert.equal(attributes.task, "none");
  });

  it("carries out every command, each ending in one result, and shows the robot's new state", async () => {
    await rig.broker.start();
    await deploy();
    const client = await homeAssistant();
    await allDiscovered(client);
    const robot = () => rig.simulator.state.robot("GS-S-000101")!;

    let result = await command(client, "GS-S-000101", "set_fan_speed", "尘推 – dust mop");
    assert.equal(result.ok, true, String(result.reason));
    result = await command(client, "GS-S-000101", "command", "start");
    assert.deepEqual([result.command, result.ok], ["START_TASK", true], String(result.reason));
    assert.equal(robot().taskState, "RUNNING");
    assert.equal(robot().currentTask?.name, "All of Floor 1", "the first task of its map");
    assert.equal(robot().currentTask?.cleaningMode, "尘推", "the cleaning mode set by set_fan_speed");
    await waitFor(() => client.json(`${BASE}/GS-S-000101/state`).state === "cleaning", 15_000, "state cleaning");
    assert.equal(client.json(`${BASE}/GS-S-000101/state`).fan_speed, "尘推 – dust mop");

    // A second start while one waits for the robot is refused; a stop would not be.
    const started = client.received.length;
    await client.publish(`${BASE}/GS-S-000102/command`, "start");
    await client.publish(`${BASE}/GS-S-000102/command`, "start");
    await waitFor(() => client.on(`${BASE}/GS-S-000102/result`, started).length === 2, 20_000, "both starts answered");
    const answers = client.on(`${BASE}/GS-S-000102/result`, started).map((message) => JSON.parse(message.payload) as { ok: boolean; reason: string });
    assert.match(answers[0]!.reason, /still under way/, "the second start, answered at once");
    assert.deepEqual(answers[1]!.ok, true, answers[1]!.reason);
    assert.equal(rig.simulator.state.commands("GS-S-000102").filter((resource) => /START_TASK/i.test(JSON.stringify(resource))).length, 1, "one START_TASK sent");
    assert.equal((await command(client, "GS-S-000102", "command", "stop")).ok, true);

    result = await command(client, "GS-S-000101", "command", "pause");
    assert.deepEqual([result.command, result.ok], ["PAUSE_TASK", true], String(result.reason));
    assert.equal(robot().taskState, "PAUSED");
    result = await command(client, "GS-S-000101", "command", "start");
    assert.deepEqual([result.command, result.ok], ["RESUME_TASK", true], String(result.reason));
    result = await command(client, "GS-S-000101", "command", "stop");
    assert.deepEqual([result.command, result.ok], ["STOP_TASK", true], String(result.reason));
    assert.equal(robot().taskState, "IDLE");

    result = await command(client, "GS-S-000102", "send_command", JSON.stringify({ command: "CROSS_NAVIGATE", position: "Kitchen door" }));
    assert.deepEqual([result.command, result.ok], ["CROSS_NAVIGATE", true], String(result.reason));
    // Confirmed as real statuses show it: the robot on the point's grid cell (within robot-config's arrival radius).
    const kitchen = readStatus(rig.simulator.state.status("GS-S-000102")!);
    const door = kitchen.navigationPoints!.find((point) => point.name === "Kitchen door")!.grid!;
    assert.ok(Math.hypot(kitchen.position!.x - door.x, kitchen.position!.y - door.y) <= 10, JSON.stringify(kitchen.position));
    result = await command(client, "GS-S-000102", "command", "return_to_base");
    assert.deepEqual([result.command, result.ok], ["CROSS_NAVIGATE", true], String(result.reason));
    assert.equal(rig.simulator.state.robot("GS-S-000102")!.battery.charging, true);
    await waitFor(() => client.json(`${BASE}/GS-S-000102/state`).state === "docked", 15_000, "docked again");

    // A job for this robot: the area as robot-job would start it (a temporary task named after the area).
    result = await command(client, "GS-S-000201", "send_command", JSON.stringify({ area: "Aisle 1" }));
    assert.deepEqual([result.command, result.ok], ["job", true], String(result.reason));
    assert.equal(rig.simulator.state.status("GS-S-000201")!.taskState, "RUNNING");
    result = await command(client, "GS-S-000201", "send_command", JSON.stringify({ area: "Aisle 9" }));
    assert.deepEqual([result.command, result.ok], ["job", false]);
    // The S-line status the bridge reads names no task (as the recorded ones): "is cleaning".
    assert.match(String(result.reason), /is cleaning: pause or stop it first/, "a busy robot is refused before anything is sent");
    assert.ok(client.on(`${BASE}/GS-S-000101/result`).every((message) => !message.retain), "results are not retained");
  });

  it("answers bad input with a result naming the problem, sends nothing to the cloud, warns once a minute per kind", async () => {
    await rig.broker.start();
    await deploy();
    const client = await homeAssistant();
    await allDiscovered(client);
    const commandsBefore = rig.simulator.state.commands("GS-S-000101").length;

    assert.match(String((await command(client, "GS-S-000101", "command", "locate")).reason), /unknown command "locate"/);
    assert.match(String((await command(client, "GS-S-000101", "command", "dance")).reason), /unknown command "dance"/);
    assert.match(String((await command(client, "GS-S-000101", "send_command", "{not json")).reason), /not JSON/);
    assert.match(String((await command(client, "GS-S-000101", "send_command", JSON.stringify({ command: "FLY" }))).reason), /command must be one of/);
    assert.match(String((await command(client, "GS-S-000101", "send_command", JSON.stringify({ command: "CROSS_NAVIGATE", position: "Mars" }))).reason), /Mars/);
    assert.match(String((await command(client, "GS-S-000101", "send_command", JSON.stringify({ command: "STOP_TASK", speed: 3 }))).reason), /speed is not a parameter of STOP_TASK/);
    assert.match(String((await command(client, "GS-S-000101", "send_command", "x".repeat(70 * 1024))).reason), /more than 65536/);
    assert.match(String((await command(client, "GS-S-000101", "set_fan_speed", "turbo")).reason), /not a cleaning mode/);
    assert.match(String((await command(client, "GS-S-999999", "command", "start")).reason), /not one of the account's robots/);
    assert.match(String((await command(client, "GS-S-000101", "launch", "now")).reason), /nothing is taken on topic robot-fleet\/GS-S-000101\/launch/);
    assert.equal(rig.simulator.state.commands("GS-S-000101").length, commandsBefore, "nothing reached the cloud");

    const warnings = (helper.getNode("bridge") as unknown as { warn: { args: unknown[][] } }).warn.args.map((args) => String(args[0]));
    assert.equal(warnings.filter((text) => /unknown command/.test(text)).length, 1, "two unknown commands, one warning");
    // Still running: a good command after all that.
    assert.equal((await command(client, "GS-S-000101", "command", "return_to_base")).ok, true);
  });

  it("publishes everything again when Home Assistant sends its birth message, and only changes otherwise", async () => {
    await rig.broker.start();
    await deploy();
    const client = await homeAssistant();
    await allDiscovered(client);
    await new Promise((resolve) => setTimeout(resolve, 6000));
    const from = client.received.length;
    await new Promise((resolve) => setTimeout(resolve, 6000));
    assert.deepEqual(client.received.slice(from).filter((message) => message.topic.startsWith(PREFIX)), [], "a steady fleet publishes no discovery again");
    rig.simulator.updateRobot("GS-S-000201", { emergencyStop: true });
    await waitFor(() => client.json(`${BASE}/GS-S-000201/attributes`).problem === true, 15_000, "emergency stop: a problem");
    assert.equal(client.json(`${BASE}/GS-S-000201/state`).state, "error");
    assert.deepEqual(client.json(`${BASE}/GS-S-000201/attributes`).problems, ["emergency stop"]);
    const afterChange = client.received.length;
    await client.publish(`${PREFIX}/status`, "online");
    await waitFor(() => ROBOTS.every((serial) => client.on(configTopic(serial), afterChange).length > 0), 10_000, "every config again");
    // The states follow the configs through the broker: under load they arrived after the configs were all in.
    await waitFor(() => ROBOTS.every((serial) => client.on(`${BASE}/${serial}/state`, afterChange).length > 0), 10_000, "every state again");
  });

  it("shows an alarm of the account at H4 or above as a problem and an error, and its recovery", async () => {
    await rig.broker.start();
    await deploy();
    const client = await homeAssistant();
    await allDiscovered(client);
    const { client: account } = (helper.getNode("config") as unknown as RobotConfigNode).robot as { client: { accountKey: string } };
    const alarms = alarmsOfAccount(account.accountKey);
    const incident = (raised: boolean) => {
      const push = readPush({ appId: "a", payload: { serialNumber: "GS-S-000102", content: { incidentId: "77", incidentStatus: raised ? 1 : 0, incidentLevel: "H5", incidentName: "Lidar blocked", startTime: 1764000000000 } } });
      assert.equal(push.kind, "incident");
      return push.event;
    };
    alarms.record(incident(true));
    await waitFor(() => client.json(`${BASE}/GS-S-000102/attributes`).alarm === "H5 Lidar blocked", 10_000, "the alarm shown");
    assert.equal(client.json(`${BASE}/GS-S-000102/attributes`).problem, true);
    assert.equal(client.json(`${BASE}/GS-S-000102/state`).state, "error");
    alarms.record(incident(false));
    await waitFor(() => client.json(`${BASE}/GS-S-000102/attributes`).alarm === "none", 10_000, "the alarm recovered");
    assert.equal(client.json(`${BASE}/GS-S-000102/state`).state, "idle");
  });

  it("does not lose the deploy's discovery to a broker that accepts connections late", async () => {
    await deploy();
    await waitFor(() => (helper.getNode("bridge") as unknown as { hasPolledOnce?: boolean }) !== undefined, 1000);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await rig.broker.start();
    const client = await homeAssistant();
    await allDiscovered(client);
    assert.deepEqual(deviceConfigProblems(client.json(configTopic("GS-S-000101")), (topic) => client.last.has(topic)), []);
  });

  it("removes the configs of a robot that is no longer published (retained empty payloads)", async () => {
    await rig.broker.start();
    await deploy();
    let client = await homeAssistant();
    await allDiscovered(client);
    await client.end();
    await helper.unload();
    await deploy({ serialNumbers: "GS-S-000101" });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    client = await homeAssistant();
    await waitFor(() => client.last.has(configTopic("GS-S-000101")), 10_000, "the robot still published");
    await waitFor(() => !client.last.has(configTopic("GS-S-000102")) && !client.last.has(configTopic("GS-S-000201")), 10_000, "the others' configs removed");
    assert.equal(client.last.has(`${BASE}/GS-S-000102/state`), false, "and their retained state");
  });
});

describe("robot-mqtt over a stub fleet whose statuses carry no upkeep, one serial number that cannot be a topic level", function () {
  this.timeout(60_000);
  let stub: FleetStub;
  let broker: Mosquitto;
  before(async () => {
    stub = await new FleetStub(2).start();
    const odd = structuredClone(stub.statuses.values().next().value!);
    odd.serialNumber = "GS/S+1";
    stub.statuses.set(odd.serialNumber, odd);
    broker = await reserveMosquitto();
    await broker.start();
    helper.settings({ mqttReconnectTime: 300 });
  });
  after(async () => {
    await broker.stop();
    await stub.server.stop();
  });
  useNodeRed();

  it("is skipped with one warning, and the other robots are published", async () => {
    const ha = await HomeAssistantClient.connect(broker.url, [`${PREFIX}/#`, `${BASE}/#`]);
    try {
      await loadFlow([robotMqtt, mqttNodes], flowWith(stub.url, bridgeFlow(broker.port)));
      const good = [...stub.statuses.keys()].filter((serial) => !serial.includes("/"));
      await waitFor(() => good.every((serial) => ha.last.has(configTopic(serial))), 20_000, "the other robots' configs");
      await new Promise((resolve) => setTimeout(resolve, 6000));
      const warnings = (helper.getNode("bridge") as unknown as { warn: { args: unknown[][] } }).warn.args.map((args) => String(args[0]));
      assert.deepEqual(warnings.filter((text) => text.includes("GS/S+1")), ['robot "GS/S+1" is not published: its serial number holds an MQTT wildcard (+ or #)'], "once, though polled twice");
      assert.ok([...ha.last.keys()].every((topic) => !topic.includes("GS/S") && !topic.includes("GS_S_1")), "nothing of it published");
      assert.ok(stub.batchRequests().every((request) => !request.names.includes("GS/S+1")), "nor asked about");
    } finally {
      await ha.end();
    }
  });

  it("makes one upkeep table a poll, not one more for each robot without a row in it", async () => {
    // Each upkeep table reads the plan book's upcoming runs once (table-builder.ts).
    const book = plansOfAccount(accountKeyOf(stub.url, TEST_TOKEN));
    const plannedRuns = book.plannedRuns.bind(book);
    let tables = 0;
    book.plannedRuns = (from, to) => {
      tables += 1;
      return plannedRuns(from, to);
    };
    const pollsBefore = stub.batchRequests().length;
    const ha = await HomeAssistantClient.connect(broker.url, [`${PREFIX}/#`, `${BASE}/#`]);
    try {
      await loadFlow([robotMqtt, mqttNodes], flowWith(stub.url, bridgeFlow(broker.port)));
      const good = [...stub.statuses.keys()].filter((serial) => !serial.includes("/"));
      await waitFor(() => good.every((serial) => ha.last.has(`${BASE}/${serial}/attributes`)), 20_000, "the robots' attributes");
      const polls = () => stub.batchRequests().length - pollsBefore;
      await waitFor(() => polls() >= 2, 20_000, "a second poll");
      assert.ok(tables >= 1, "the poll's table");
      assert.ok(tables <= polls(), `${tables} tables for ${polls()} polls of 3 robots, none with a row`);
    } finally {
      // The book's own method again (the counter was an own property over it).
      delete (book as Partial<typeof book>).plannedRuns;
      await ha.end();
    }
  });
});

describe("robot-mqtt, a fleet of 200", function () {
  this.timeout(120_000);
  let simulator: RunningSimulator;
  let broker: Mosquitto;
  before(async () => {
    simulator = await startSimulator({ rateLimit: false, robots: 200, log: () => undefined });
    broker = await reserveMosquitto();
    await broker.start();
    helper.settings({ mqttReconnectTime: 300 });
  });
  after(async () => {
    await broker.stop();
    await simulator.close();
  });
  useNodeRed();

  it("publishes every robot's discovery, then only what changes (figures printed)", async () => {
    const ha = await HomeAssistantClient.connect(broker.url, [`${PREFIX}/#`, `${BASE}/#`]);
    try {
      const serials = simulator.state.serialNumbers();
      const started = Date.now();
      await loadFlow([robotMqtt, mqttNodes], flowWith(simulator.url, bridgeFlow(broker.port, { interval: 5 })), { config: { token: DEMO_TOKEN } });
      await waitFor(() => serials.every((serial) => ha.last.has(configTopic(serial))), 60_000, "every robot's config");
      const discoveredMs = Date.now() - started;
      for (const serial of serials.slice(0, 20)) assert.deepEqual(deviceConfigProblems(ha.json(configTopic(serial)), (topic) => ha.last.has(topic)), []);
      // The deploy's messages and their repeat once the bridge heard the broker have all arrived.
      await waitFor(() => Date.now() - (ha.received.at(-1)?.at ?? 0) > 2000, 30_000, "a quiet broker");
      const deployMessages = ha.received.length;
      const from = ha.received.length;
      // A battery the robot does not have yet: the seeded fleet's batteries vary.
      const battery = ha.json(`${BASE}/${serials[5]}/attributes`).battery === 42 ? 43 : 42;
      simulator.updateRobot(serials[5]!, { batteryPercentage: battery });
      const changed = () => ha.on(`${BASE}/${serials[5]}/attributes`, from).some((message) => (JSON.parse(message.payload) as { battery?: number }).battery === battery);
      await waitFor(changed, 30_000, "the change published");
      // Two more polls of the steady fleet.
      const steadyFrom = ha.received.length;
      await new Promise((resolve) => setTimeout(resolve, 12_000));
      const steady = ha.received.slice(steadyFrom);
      console.log(`      ${serials.length} robots: discovery of all in ${discoveredMs} ms (${ha.received.filter((message) => message.topic.endsWith("/config")).length} config messages, ` +
        `the deploy's and once more when the bridge heard the broker; ${deployMessages} messages in all); the battery change: ${ha.received.slice(from, steadyFrom).length} messages; then 12 s steady: ${steady.length} messages`);
      assert.ok(steady.every((message) => !message.topic.endsWith("/config")), "no discovery again");
      assert.equal(steady.length, 0, "a steady fleet publishes nothing");
    } finally {
      await ha.end();
    }
  });
});
