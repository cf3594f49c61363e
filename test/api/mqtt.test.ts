/** The MQTT bridge's pure parts, apart from Node-RED and a broker: topics, the vacuum's state, payloads, changes, commands. */
import { ORIGIN, ROOTS, bridgeStatus } from "../support/mqtt-fixtures";
import assert from "node:assert/strict";
import {
  chooseStartTask,
  mayOvertakePending,
  planVacuumCommand,
  payloadText,
  readSendCommand,
  readStartTasks,
  readVacuumCommand,
  WarningGate,
  withRobotDefaults,
  MAX_PAYLOAD_BYTES,
} from "../../src/api/mqtt/commands";
import { deviceConfigOf, partEntityKey, uniqueIdsOf } from "../../src/api/mqtt/discovery";
import { WEAR_PARTS } from "../../src/api/upkeep/facts";
import { sharedCatalogue } from "../support/catalogue";
import { areaOfSegment, chosenAreas, MAX_SEGMENTS_CHOSEN, readSegmentIds, segmentsOf } from "../../src/api/mqtt/segments";
import { acceptsCommandsFor, readCommandAcceptance, refusalOfAcceptance } from "../../src/api/mqtt/accepted-commands";
import type { RobotApiError } from "../../src/api/errors";
import { PublishedPayloads, removalMessages, robotMessages } from "../../src/api/mqtt/publication";
import { readableCleaningMode } from "../../src/api/cloud/cleaning-modes";
import { attributesOf, cleaningModeOfFanSpeed, robotViewOf, vacuumStateOf } from "../../src/api/mqtt/robot-view";
import { checkTopicRoot, discoveryIdOf, readIncomingTopic, robotTopics, topicLevelProblem } from "../../src/api/mqtt/topics";
import type { OpenAlarm } from "../../src/api/pushes/open-alarms";
import type { WatchedState } from "../../src/api/watching/watcher-state";
import { executableTasksOf } from "../../src/api/watching/status-reader";
import type { UpkeepRobot } from "../../src/api/upkeep/table";

const status = (extra: Record<string, unknown> = {}) => bridgeStatus("GS-S-000101", extra);

const alarm = (rank: number, name = "Lidar blocked"): OpenAlarm => ({
  serialNumber: "GS-S-000101",
  incidentId: "1",
  level: { code: `H${rank}`, rank },
  name,
  raisedAt: "2026-01-01T00:00:00Z",
});

describe("mqtt bridge: topics", () => {
  it("keeps only the characters Home Assistant allows in ids, the serial number whole in the device", () => {
    assert.equal(discoveryIdOf("GS-S-000101"), "GS-S-000101");
    assert.equal(discoveryIdOf("GS.S 1:ä"), "GS_S_1__");
    const config = deviceConfigOf(robotViewOf(status({ serialNumber: "GS.S 1" })), ROOTS, ORIGIN);
    assert.deepEqual(config.device.identifiers, ["GS.S 1"]);
    assert.equal(config.device.serial_number, "GS.S 1");
    for (const component of Object.values(config.components)) assert.match(component.unique_id, /^[a-zA-Z0-9_-]+$/);
  });

  it("refuses a serial number that cannot be a topic level, and a bad base or prefix", () => {
    for (const bad of ["", "a+b", "a#", "a/b"]) assert.ok(topicLevelProblem(bad), JSON.stringify(bad));
    assert.equal(topicLevelProblem("GS-S-000101"), undefined);
    assert.equal(checkTopicRoot("", "base", "robot-fleet"), "robot-fleet");
    assert.equal(checkTopicRoot("site/a", "base", "x"), "site/a");
    for (const bad of ["a/#", "+", "/a", "a/", "a//b"]) assert.throws(() => checkTopicRoot(bad, "base", "x"), /base/);
  });

  it("reads an incoming topic: the bridge's own, the birth, a command, anything else", () => {
    const topics = robotTopics(ROOTS, "R1");
    for (const own of [topics.state, topics.availability, topics.attributes, topics.result, "robot-fleet/availability"])
      assert.deepEqual(readIncomingTopic(ROOTS, own), { kind: "own" });
    assert.deepEqual(readIncomingTopic(ROOTS, "homeassistant/status"), { kind: "birth" });
    assert.deepEqual(readIncomingTopic(ROOTS, topics.command), { kind: "input", input: "command", serialNumber: "R1" });
    assert.deepEqual(readIncomingTopic(ROOTS, topics.fanSpeed), { kind: "input", input: "fanSpeed", serialNumber: "R1" });
    assert.deepEqual(readIncomingTopic(ROOTS, topics.sendCommand), { kind: "input", input: "sendCommand", serialNumber: "R1" });
    assert.deepEqual(readIncomingTopic(ROOTS, "robot-fleet/R1/launch"), { kind: "unknown", serialNumber: "R1" });
    assert.deepEqual(readIncomingTopic(ROOTS, "robot-fleet/R1/a/b"), { kind: "unknown", serialNumber: "R1" });
    assert.deepEqual(readIncomingTopic(ROOTS, "elsewhere/R1/command"), { kind: "unknown" });
    assert.deepEqual(readIncomingTopic(ROOTS, 42), { kind: "unknown" });
  });
});

describe("mqtt bridge: the vacuum's state", () => {
  const state = (extra: Partial<WatchedState>): WatchedState => ({
    serialNumber: "R1",
    online: true,
    taskState: "IDLE",
    charging: false,
    emergencyStop: false,
    localizationState: "NORMAL",
    ...extra,
  });
  const cases: Array<[string, Partial<WatchedState>, OpenAlarm | undefined, string]> = [
    ["emergency stop", { emergencyStop: true, taskState: "RUNNING" }, undefined, "error"],
    ["lost", { localizationState: "LOST", charging: true }, undefined, "error"],
    ["an alarm at H4", { taskState: "RUNNING" }, alarm(4), "error"],
    ["an alarm at H3 is no problem", { taskState: "RUNNING" }, alarm(3), "cleaning"],
    ["running", { taskState: "RUNNING" }, undefined, "cleaning"],
    ["paused", { taskState: "PAUSED" }, undefined, "paused"],
    // No status says where a navigation goes: to the charger or elsewhere, it is idle.
    ["navigating (navStatus not NAVI_IDLE)", { navStatus: "NAVI_RUNNING" }, undefined, "idle"],
    ["charging", { charging: true, navStatus: "NAVI_IDLE" }, undefined, "docked"],
    ["idle", {}, undefined, "idle"],
  ];
  for (const [name, extra, open, expected] of cases) {
    it(`${name}: ${expected}`, () => assert.equal(vacuumStateOf(state(extra), open), expected));
  }

  it("shows the problem and alarm sensors' words, and the task with its progress", () => {
    const view = robotViewOf(
      // The v1 status' executingTask, progress 0-1 as the console reads it.
      status({ emergencyStop: { enabled: true }, executingTask: { name: "All of Floor 1", progress: 0.404 } }),
    );
    const attributes = attributesOf(view, alarm(5));
    assert.deepEqual(attributes.problems, ["emergency stop", "alarm H5 Lidar blocked"]);
    assert.equal(attributes.alarm, "H5 Lidar blocked");
    assert.equal(attributes.task, "All of Floor 1 (40 %)");
    assert.equal(attributesOf(robotViewOf(status()), undefined).alarm, "none");
  });

  it("names a cleaning mode with its meaning, and reads either back", () => {
    assert.equal(readableCleaningMode("尘推"), "尘推 – dust mop");
    assert.equal(readableCleaningMode("__middle_cleaning"), "middle_cleaning – medium intensity");
    const view = robotViewOf(status());
    assert.equal(cleaningModeOfFanSpeed(view, "尘推 – dust mop"), "尘推");
    assert.equal(cleaningModeOfFanSpeed(view, "__middle_cleaning"), "__middle_cleaning");
    assert.equal(cleaningModeOfFanSpeed(view, "turbo"), undefined);
  });
});

describe("mqtt bridge: what is published", () => {
  it("a device config with six entities, discovery first, then availability, state and attributes", () => {
    const listed = {
      serialNumber: "GS-S-000101",
      displayName: "Lobby scrubber",
      modelFamilyCode: "S",
      modelTypeCode: "S50",
      softwareVersion: "3.8.2",
    };
    const messages = robotMessages(robotViewOf(status(), listed), undefined, undefined, ROOTS, ORIGIN);
    assert.deepEqual(
      messages.map((message) => message.topic),
      [
        "homeassistant/device/robot_fleet_GS-S-000101/config",
        "robot-fleet/GS-S-000101/availability",
        "robot-fleet/GS-S-000101/state",
        "robot-fleet/GS-S-000101/attributes",
      ],
    );
    assert.ok(messages.every((message) => message.retain));
    const config = JSON.parse(messages[0]!.payload) as ReturnType<typeof deviceConfigOf>;
    assert.deepEqual(Object.keys(config.components), ["vacuum", "battery", "online", "problem", "alarm", "task"]);
    assert.deepEqual(
      Object.values(config.components).map((component) => component.unique_id),
      uniqueIdsOf("GS-S-000101"),
    );
    assert.deepEqual(config.device, {
      identifiers: ["GS-S-000101"],
      name: "Lobby scrubber",
      serial_number: "GS-S-000101",
      model: "S50",
      sw_version: "3.8.2",
    });
    // Before the robot list names it: its serial number, and neither model nor version (no status carries them).
    assert.deepEqual(deviceConfigOf(robotViewOf(status()), ROOTS, ORIGIN).device, {
      identifiers: ["GS-S-000101"],
      name: "GS-S-000101",
      serial_number: "GS-S-000101",
    });
    assert.deepEqual(config.components.vacuum!.fan_speed_list, ["middle_cleaning – medium intensity", "尘推 – dust mop"]);
    assert.equal(config.components.online!.availability_topic, "robot-fleet/availability", "an offline robot reads off, not unavailable");
    assert.equal(messages[1]!.payload, "online");
    assert.deepEqual(JSON.parse(messages[2]!.payload), { state: "idle", fan_speed: null });
  });

  it("a robot with no cleaning modes has no fan speed", () => {
    const vacuum = deviceConfigOf(robotViewOf(status({ cleanModes: [] })), ROOTS, ORIGIN).components.vacuum!;
    assert.ok(!(vacuum.supported_features as string[]).includes("fan_speed"));
    assert.equal(vacuum.fan_speed_list, undefined);
  });

  it("a sensor per wear part and tank the status has, none for what it lacks; a part's due day from the robot's upkeep row", () => {
    const worn = status({
      device: { filter: { lifeSpan: 200, usedLife: 50 }, sideBrush: { ifPutDown: true }, cleanWaterTank: { level: 14 } },
    });
    const upkeep: UpkeepRobot = {
      serialNumber: "GS-S-000101",
      readAt: "2026-12-07T09:00:00Z",
      parts: [
        {
          part: "filter",
          remaining: 0.75,
          threshold: 0.1,
          forecast: { basis: "plan", historyDays: 20, dueDay: "2026-12-20", dueAt: "2026-12-20T00:00:00+01:00" },
        },
      ],
      tanks: {},
      battery: {},
    };
    const view = robotViewOf(worn, undefined, upkeep);
    const { components } = deviceConfigOf(view, ROOTS, ORIGIN);
    assert.deepEqual(Object.keys(components).slice(6), ["filter", "filter_due", "clean_water"]);
    assert.deepEqual(
      [components.filter!.unit_of_measurement, components.filter!.state_class, components.filter!.value_template],
      ["%", "measurement", "{{ value_json.parts.filter }}"],
    );
    assert.deepEqual([components.filter_due!.device_class, components.filter_due!.name], ["timestamp", "Filter due"]);
    const attributes = attributesOf(view, undefined);
    assert.deepEqual(
      [attributes.parts, attributes.parts_due, attributes.clean_water, attributes.recovery_water],
      [{ filter: 75 }, { filter: "2026-12-20T00:00:00+01:00" }, 14, null],
    );
    // Without a forecast the due day is null: Home Assistant's timestamp sensor shows unknown.
    assert.deepEqual(attributesOf(robotViewOf(worn), undefined).parts_due, { filter: null });
    assert.deepEqual(
      Object.keys(deviceConfigOf(robotViewOf(status()), ROOTS, ORIGIN).components).length,
      6,
      "a status without a device block: no upkeep sensor",
    );
  });

  it("takes a part's share left from the robot's upkeep row where there is one (a replacement the cloud's counter does not show yet), the status otherwise", () => {
    // The cloud's counter still says 4 % left; the row has the replacement recorded since.
    const lagging = status({ device: { filter: { lifeSpan: 200, usedLife: 192 }, rollingBrush: { lifeSpan: 300, usedLife: 150 } } });
    const replaced: UpkeepRobot = {
      serialNumber: "GS-S-000101",
      readAt: "2026-12-07T09:00:00Z",
      parts: [
        {
          part: "filter",
          remaining: 1,
          usedLife: 192,
          lifeSpan: 200,
          threshold: 0.1,
          replacedAt: "2026-12-07T08:00:00Z",
          forecast: { basis: "plan", historyDays: 20, dueDay: "2027-02-20", dueAt: "2027-02-20T00:00:00+01:00" },
        },
      ],
      tanks: {},
      battery: {},
    };
    assert.deepEqual(attributesOf(robotViewOf(lagging, undefined, replaced), undefined).parts, { rollingBrush: 50, filter: 100 });
    assert.deepEqual(attributesOf(robotViewOf(lagging), undefined).parts, { rollingBrush: 50, filter: 4 }, "no row: the status's counters");
  });

  it("names each wear part's sensors in the English catalogue's words, the console's (Dust mop, Dust mop due)", () => {
    const words = sharedCatalogue("en-US");
    const device = Object.fromEntries(WEAR_PARTS.map((part) => [part, { lifeSpan: 200, usedLife: 50 }]));
    const { components } = deviceConfigOf(robotViewOf(status({ device })), ROOTS, ORIGIN);
    assert.deepEqual(
      WEAR_PARTS.map((part) => [components[partEntityKey(part)]!.name, components[`${partEntityKey(part)}_due`]!.name]),
      WEAR_PARTS.map((part) => [words(`upkeep.parts.${part}`), `${words(`upkeep.parts.${part}`)} due`]),
    );
  });

  it("only what changed since the last publish, everything after forget(); a removal is retained and empty", () => {
    const published = new PublishedPayloads();
    const first = robotMessages(robotViewOf(status()), undefined, undefined, ROOTS, ORIGIN);
    assert.equal(published.changed(first).length, 4);
    assert.equal(published.changed(first).length, 0);
    const charged = robotMessages(
      robotViewOf(status({ battery: { charging: false, powerPercentage: 79 } })),
      undefined,
      undefined,
      ROOTS,
      ORIGIN,
    );
    assert.deepEqual(
      published.changed(charged).map((message) => message.topic),
      ["robot-fleet/GS-S-000101/attributes"],
    );
    published.forget();
    assert.equal(published.changed(charged).length, 4);
    const removal = removalMessages("GS-S-000101", ROOTS);
    assert.ok(removal.every((message) => message.payload === "" && message.retain));
    assert.equal(removal[0]!.topic, "homeassistant/device/robot_fleet_GS-S-000101/config");
  });
});

describe("mqtt bridge: commands", () => {
  it("reads the vacuum's commands and refuses others by name", () => {
    assert.deepEqual(readVacuumCommand(" Start "), { command: "start" });
    assert.deepEqual(readVacuumCommand("return_to_base"), { command: "return_to_base" });
    assert.equal((readVacuumCommand("locate") as { problem: string }).problem, "command");
  });

  it("reads send_command: the compact form, a bare command name, a job, and names what is wrong", () => {
    assert.deepEqual(readSendCommand('{"command": "cross_navigate", "position": "Kitchen door"}'), {
      form: "compact",
      command: "CROSS_NAVIGATE",
      parameters: { position: "Kitchen door" },
    });
    assert.deepEqual(readSendCommand("stop_task"), { form: "compact", command: "STOP_TASK", parameters: {} });
    assert.deepEqual(readSendCommand('{"area": "Kitchen"}'), { form: "job", job: { area: "Kitchen" } });
    assert.equal((readSendCommand("{oops") as { problem: string }).problem, "json");
    assert.equal((readSendCommand("[1]") as { problem: string }).problem, "command");
    assert.equal((readSendCommand('"x"') as { problem: string }).problem, "command");
    assert.equal((readSendCommand("{[]") as { problem: string }).problem, "json");
    assert.match((readSendCommand('{"command": 5}') as { reason: string }).reason, /command must be one of/);
    assert.match((readSendCommand('{"position": "x"}') as { reason: string }).reason, /needs "command"/);
  });

  it("reads Home Assistant's send_command with params: beside command or in a params object, the jobs by their command names", () => {
    const kitchen = { form: "job", job: { area: "Kitchen", map: "Floor 1" } };
    // vacuum.send_command(command: clean_area, params: {area, map}) as Home Assistant's MQTT vacuum publishes it, and nested.
    assert.deepEqual(readSendCommand('{"command": "clean_area", "area": "Kitchen", "map": "Floor 1"}'), kitchen);
    assert.deepEqual(readSendCommand('{"command": "clean_area", "params": {"area": "Kitchen", "map": "Floor 1"}}'), kitchen);
    assert.deepEqual(readSendCommand('{"command": "Run_Task", "params": {"task": "Lobby"}}'), { form: "job", job: { task: "Lobby" } });
    assert.deepEqual(readSendCommand('{"command": "go_to", "params": {"goto": "Kitchen door"}}'), {
      form: "job",
      job: { goto: "Kitchen door" },
    });
    assert.deepEqual(readSendCommand('{"command": "CROSS_NAVIGATE", "params": {"position": "Kitchen door"}}'), {
      form: "compact",
      command: "CROSS_NAVIGATE",
      parameters: { position: "Kitchen door" },
    });
    const reasonOf = (text: string) => (readSendCommand(text) as { reason?: string }).reason;
    assert.equal(reasonOf("clean_area"), "clean_area needs params with area");
    assert.equal(reasonOf('{"command": "clean_area", "params": {"map": "Floor 1"}}'), "clean_area needs area in its params");
    assert.equal(reasonOf('{"command": "clean_area", "params": {"area": "Kitchen", "goto": "x"}}'), "clean_area takes area, not goto");
    assert.equal(reasonOf('{"command": "clean_area", "params": ["Kitchen"]}'), "params must be a JSON object");
    assert.match(
      reasonOf('{"command": "clean_everything"}')!,
      /command must be one of .*clean_area, run_task, go_to \(got "clean_everything"\)/,
    );
  });

  it("measures a payload as text, a Buffer or the JSON of what mqtt in parsed; over 64 KiB is refused", () => {
    assert.deepEqual(payloadText("start"), { text: "start" });
    assert.deepEqual(payloadText(Buffer.from("stop")), { text: "stop" });
    assert.deepEqual(payloadText({ command: "STOP_TASK" }), { text: '{"command":"STOP_TASK"}' });
    assert.equal((payloadText("x".repeat(MAX_PAYLOAD_BYTES + 1)) as { problem: string }).problem, "size");
    assert.equal((payloadText({ big: "x".repeat(MAX_PAYLOAD_BYTES) }) as { problem: string }).problem, "size");
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    assert.equal((payloadText(cycle) as { problem: string }).problem, "payload");
    assert.equal((payloadText(undefined) as { problem: string }).problem, "payload");
  });

  it("plans each vacuum command from the robot's state", () => {
    const view = (extra: Record<string, unknown> = {}) => robotViewOf(status(extra));
    const task = { name: "All of Floor 1", mapId: "m1", mapName: "Floor 1" };
    assert.deepEqual(planVacuumCommand("start", view({ taskState: "PAUSED" })), { command: "RESUME_TASK", parameters: {} });
    assert.deepEqual(planVacuumCommand("start", view(), { task, cleaningMode: "尘推" }), {
      command: "START_TASK",
      parameters: { taskName: "All of Floor 1", map: "Floor 1", cleaningMode: "尘推", loop: false, loopCount: 1 },
    });
    assert.deepEqual(planVacuumCommand("pause", view({ taskState: "RUNNING" })), { command: "PAUSE_TASK", parameters: {} });
    // A navigation's commands name the point the package last sent the robot to: no status says it.
    assert.deepEqual(planVacuumCommand("pause", view({ navStatus: "NAVI_RUNNING" }), undefined, "charging"), {
      command: "PAUSE_NAVIGATE",
      parameters: { map: "Floor 1", position: "charging" },
    });
    assert.deepEqual(planVacuumCommand("stop", view({ navStatus: "SOMETHING_NEW" }), undefined, "charging"), {
      command: "STOP_NAVIGATE",
      parameters: { map: "Floor 1", position: "charging" },
    });
    assert.deepEqual(planVacuumCommand("start", view({ navStatus: "NAVI_RUNNING" }), undefined, "Kitchen door"), {
      command: "RESUME_NAVIGATE",
      parameters: { map: "Floor 1", position: "Kitchen door" },
    });
    assert.deepEqual(
      planVacuumCommand("stop", view({ navStatus: "NAVI_IDLE" })),
      { command: "STOP_TASK", parameters: {} },
      "NAVI_IDLE: no navigation",
    );
    assert.deepEqual(planVacuumCommand("stop", view({ taskState: "RUNNING" })), { command: "STOP_TASK", parameters: {} });
    assert.deepEqual(planVacuumCommand("return_to_base", view()), {
      command: "CROSS_NAVIGATE",
      parameters: { map: "Floor 1", position: "charging" },
    });
  });

  it("starts the task set for the map, else the first on the robot's map; fills a compact command's map and mode", () => {
    const view = robotViewOf(status());
    const tasks = executableTasksOf({
      executableTasks: [
        { name: "All of Floor 2", map: { id: "m2", name: "Floor 2" } },
        { name: "All of Floor 1", map: { id: "m1", name: "Floor 1" } },
        { name: "Lobby", map: { id: "m1", name: "Floor 1" } },
        { bad: true },
      ],
    })!;
    assert.equal(tasks.length, 3);
    assert.deepEqual(chooseStartTask(view, tasks, new Map()), { name: "All of Floor 1", mapId: "m1", mapName: "Floor 1" });
    assert.deepEqual(chooseStartTask(view, tasks, readStartTasks("Floor 1 = Lobby\nFloor 2=All of Floor 2")), {
      name: "Lobby",
      mapId: "m1",
      mapName: "Floor 1",
    });
    assert.equal((chooseStartTask(view, tasks.slice(0, 1), new Map()) as { problem: string }).problem, "command");
    assert.throws(() => readStartTasks("Floor 1"), /not "map = task"/);
    assert.deepEqual(withRobotDefaults({ command: "CROSS_NAVIGATE", parameters: { position: "Kitchen door" } }, view, "尘推"), {
      command: "CROSS_NAVIGATE",
      parameters: { position: "Kitchen door", map: "Floor 1" },
    });
    assert.deepEqual(withRobotDefaults({ command: "START_TASK", parameters: { taskName: "Lobby" } }, view, "尘推"), {
      command: "START_TASK",
      parameters: { taskName: "Lobby", map: "Floor 1", cleaningMode: "尘推", loop: false, loopCount: 1 },
    });
  });

  it("lets stops, pauses and fan speeds overtake a command under way, not a second start", () => {
    assert.deepEqual(
      ["start", "return_to_base", "pause", "stop"].map((text) => mayOvertakePending("command", text)),
      [false, false, true, true],
    );
    assert.equal(mayOvertakePending("sendCommand", '{"command": "STOP_NAVIGATE"}'), true);
    assert.equal(mayOvertakePending("sendCommand", '{"command": "CROSS_NAVIGATE", "position": "x"}'), false);
    assert.equal(mayOvertakePending("sendCommand", '{"area": "Kitchen"}'), false);
    assert.equal(mayOvertakePending("fanSpeed", "尘推"), true);
  });

  it("warns at most once a minute per kind", () => {
    let now = 0;
    const gate = new WarningGate(60_000, () => now);
    assert.equal(gate.allows("json"), true);
    assert.equal(gate.allows("json"), false);
    assert.equal(gate.allows("size"), true);
    now = 59_999;
    assert.equal(gate.allows("json"), false);
    now = 60_000;
    assert.equal(gate.allows("json"), true);
  });
});

describe("mqtt bridge: segments", () => {
  it("offers a map's areas as segments whose ids name the map, and reads a chosen list back", () => {
    const segments = segmentsOf("map-1", [
      { id: 1, name: "Lobby" },
      { id: 3, name: "Kitchen" },
    ]);
    assert.deepEqual(segments, { "map-1:1": "Lobby", "map-1:3": "Kitchen" });
    assert.deepEqual(readSegmentIds('["map-1:3", "map-1:1", "map-1:3"]'), ["map-1:3", "map-1:1"]);
    assert.deepEqual(chosenAreas(["map-1:3", "map-1:1"], "map-1", segments), [
      { mapId: "map-1", areaId: "3" },
      { mapId: "map-1", areaId: "1" },
    ]);
    assert.deepEqual(areaOfSegment("a:b:7"), { mapId: "a:b", areaId: "7" });
  });

  it("refuses a list that is not of segment ids, a segment of another map, one not offered, and one before the areas were read", () => {
    const reasonOf = (value: object) => (value as { reason?: string }).reason;
    assert.match(reasonOf(readSegmentIds("[]"))!, /a JSON list of segment ids/);
    assert.match(reasonOf(readSegmentIds("[3]"))!, /a JSON list of segment ids/);
    assert.match(reasonOf(readSegmentIds('"map-1:3"'))!, /a JSON list of segment ids/);
    assert.match(reasonOf(readSegmentIds("[oops"))!, /not JSON/);
    const most = Array.from({ length: MAX_SEGMENTS_CHOSEN }, (_, index) => `m:${index}`);
    assert.equal((readSegmentIds(JSON.stringify(most)) as string[]).length, MAX_SEGMENTS_CHOSEN);
    assert.match(reasonOf(readSegmentIds(JSON.stringify([...most, "m:x"])))!, /at most 50 segments \(got 51\)/);
    const offered = { "map-1:3": "Kitchen" };
    assert.equal(reasonOf(chosenAreas(["map-2:3"], "map-1", offered)), 'segment "map-2:3" is on map map-2; the robot is on map-1 now');
    assert.equal(reasonOf(chosenAreas(["map-1:9"], "map-1", offered)), 'segment "map-1:9" is not one the robot offers (it offers map-1:3)');
    assert.equal(reasonOf(chosenAreas(["Kitchen"], "map-1", offered)), 'segment "Kitchen" is not one the robot offers (it offers map-1:3)');
    assert.equal(
      reasonOf(chosenAreas(["map-1:3"], "map-1", undefined)),
      'segment "map-1:3" is not one the robot offers (its map\'s areas are not read yet)',
    );
  });
});

describe("mqtt bridge: what the command topics may drive", () => {
  it("takes commands for every robot by default, for none (states only), or for the robots listed", () => {
    const all = readCommandAcceptance(undefined, []);
    const none = readCommandAcceptance("none", ["GS-S-000101"]);
    const listed = readCommandAcceptance("listed", ["GS-S-000101"]);
    assert.deepEqual(readCommandAcceptance("", []), all);
    assert.deepEqual(
      [all, none, listed].map((acceptance) => [
        acceptsCommandsFor(acceptance, "GS-S-000101"),
        acceptsCommandsFor(acceptance, "GS-S-000102"),
      ]),
      [
        [true, true],
        [false, false],
        [true, false],
      ],
    );
    assert.match(refusalOfAcceptance(none), /states only/);
    assert.match(refusalOfAcceptance(listed), /only for the robots listed/);
  });

  it("refuses an unknown mode and an empty list, naming the field", () => {
    assert.throws(
      () => readCommandAcceptance("some", []),
      (error: RobotApiError) => error.field === "accept",
    );
    assert.throws(
      () => readCommandAcceptance("listed", []),
      (error: RobotApiError) => error.field === "acceptRobots",
    );
  });

  it("gives a robot whose commands are not taken a vacuum that only shows its state", () => {
    const vacuum = deviceConfigOf(robotViewOf(status()), ROOTS, ORIGIN, false).components.vacuum!;
    assert.deepEqual(vacuum.supported_features, []);
    assert.deepEqual(
      Object.keys(vacuum).filter((key) => key.endsWith("_topic")),
      ["state_topic", "json_attributes_topic"],
    );
  });
});
