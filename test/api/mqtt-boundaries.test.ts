/**
 * The MQTT bridge's policies at their edges, written against the survivors of a StrykerJS run over src/api/mqtt
 * (`npm run mutate -- --mutate "src/api/mqtt/**\/*.ts"`): a payload at, under and over the size limit, what each input
 * reads as and the words of each refusal, which command a vacuum command becomes in each state (stop on a paused robot
 * stops its task), which task `start` runs, the whole discovery config (the availability mode included), the
 * attributes of a robot of which nothing is known, and which topics are a robot's inputs.
 *
 * Survivors accepted as equivalent (no test can tell them apart from the code as written):
 * - commands.ts readSendCommand(): the refusal of a parsed value that is not an object (its condition and its answer):
 *   only a text starting with "{" is parsed, and such a text that parses is an object. And `?.` on the JSON of the
 *   command named: JSON.parse gives no undefined.
 * - commands.ts chooseStartTask(): `view.mapName !== undefined` before looking a map name up, and `mapId !== undefined`
 *   replaced by true: readStartTasks never keeps an undefined key.
 * - commands.ts WarningGate.allows(): `last !== undefined` replaced by true: `NaN < window` is false.
 * - commands.ts mayOvertakePending(): `read.form === "compact"` replaced by true: a job has no command, and the set of
 *   stopping commands does not hold undefined.
 * - robot-view.ts robotViewOf(): `?.` on the task inside `if (taskName !== undefined)`: the task is there.
 */
import { ORIGIN, ROOTS, bridgeStatus } from "../support/mqtt-fixtures";
import assert from "node:assert/strict";
import {
  chooseStartTask,
  isProblem,
  MAX_PAYLOAD_BYTES,
  mayOvertakePending,
  payloadText,
  planVacuumCommand,
  readSendCommand,
  readStartTasks,
  readVacuumCommand,
  startCleaningMode,
  WarningGate,
  withRobotDefaults,
} from "../../src/api/mqtt/commands";
import { deviceConfigOf } from "../../src/api/mqtt/discovery";
import { bridgeAvailabilityMessage, PublishedPayloads, robotMessages, vacuumStatePayload } from "../../src/api/mqtt/publication";
import {
  alarmText,
  attributesOf,
  cleaningModeOfFanSpeed,
  problemsOf,
  robotViewOf,
  taskText,
  vacuumStateOf,
  type RobotView,
} from "../../src/api/mqtt/robot-view";
import { checkTopicRoot, readIncomingTopic, topicLevelProblem } from "../../src/api/mqtt/topics";
import { areaEndResult, areaJobOf } from "../../src/api/mqtt/segments";
import type { JobOutcome } from "../../src/api/jobs/job-book";
import type { OpenAlarm } from "../../src/api/pushes/open-alarms";
import type { ExecutableTask } from "../../src/api/watching/status-reader";
import type { WatchedState } from "../../src/api/watching/watcher-state";

const status = (extra: Record<string, unknown> = {}) => bridgeStatus("R1", extra);

/** A view built by hand, for what no status shape gives (a map id without a name, no map at all). */
function view(state: Partial<WatchedState>, mapName?: string): RobotView {
  return { serialNumber: "R1", state: { serialNumber: "R1", ...state }, ...(mapName === undefined ? {} : { mapName }), cleaningModes: [] };
}

const task = (name: string, mapId?: string, mapName?: string): ExecutableTask => ({
  name,
  ...(mapId === undefined ? {} : { mapId }),
  ...(mapName === undefined ? {} : { mapName }),
});

const problem = (value: object) => (isProblem(value) ? value : assert.fail(`not a problem: ${JSON.stringify(value)}`));

describe("mqtt at its edges: payloads", () => {
  const sizes: [string, unknown, "text" | "size"][] = [
    ["a text exactly at the limit", "x".repeat(MAX_PAYLOAD_BYTES), "text"],
    ["a text a byte over it", "x".repeat(MAX_PAYLOAD_BYTES + 1), "size"],
    ["a text of fewer characters than bytes, over it", `${"é".repeat(MAX_PAYLOAD_BYTES / 2)}x`, "size"],
    ["a Buffer exactly at the limit", Buffer.alloc(MAX_PAYLOAD_BYTES, "x"), "text"],
    ["a Buffer a byte over it", Buffer.alloc(MAX_PAYLOAD_BYTES + 1, "x"), "size"],
    // Measured as it came: decoded, its bytes that are no UTF-8 would each count three.
    ["a Buffer of bytes that are no UTF-8, a byte over it", Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 0xff), "size"],
    ["parsed JSON exactly at the limit", ["x".repeat(MAX_PAYLOAD_BYTES - 4)], "text"],
    ["parsed JSON a byte over it", ["x".repeat(MAX_PAYLOAD_BYTES - 3)], "size"],
  ];
  for (const [what, payload, outcome] of sizes) {
    it(`${outcome === "text" ? "reads" : "refuses"} ${what}`, () => {
      const read = payloadText(payload);
      if (outcome === "text") assert.ok("text" in read && Buffer.byteLength(read.text) <= MAX_PAYLOAD_BYTES);
      else
        assert.deepEqual(read, {
          problem: "size",
          reason: `the payload has ${MAX_PAYLOAD_BYTES + 1} bytes, more than ${MAX_PAYLOAD_BYTES}`,
        });
    });
  }

  const values: [string, unknown, { text: string } | { problem: string; reason: string }][] = [
    ["a number", 5, { text: "5" }],
    ["a boolean", false, { text: "false" }],
    ["null", null, { problem: "payload", reason: "the payload is empty" }],
    ["undefined", undefined, { problem: "payload", reason: "the payload is empty" }],
    ["a BigInt", 10n, { problem: "payload", reason: "the payload is empty" }],
    ["an object", { command: "STOP_TASK" }, { text: '{"command":"STOP_TASK"}' }],
  ];
  for (const [what, payload, read] of values) {
    it(`reads ${what} as ${JSON.stringify(read)}`, () => {
      assert.deepEqual(payloadText(payload), read);
    });
  }

  it("names a cycle as what cannot be read as JSON", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    assert.deepEqual(payloadText(cycle), {
      problem: "payload",
      reason: "the payload could not be read as JSON (a cycle or a value that throws)",
    });
  });
});

describe("mqtt at its edges: commands read", () => {
  it("names an unknown vacuum command, cut to 100 characters, and the ones it knows", () => {
    assert.deepEqual(readVacuumCommand("locate"), {
      problem: "command",
      reason: 'unknown command "locate" (use start, pause, stop, return_to_base)',
    });
    assert.equal(
      problem(readVacuumCommand("y".repeat(150))).reason,
      `unknown command "${"y".repeat(100)}" (use start, pause, stop, return_to_base)`,
    );
  });

  it("reads a send_command JSON with spaces around it, and a command name with spaces in it", () => {
    assert.deepEqual(readSendCommand('  {"command": " stop_task "}  '), { form: "compact", command: "STOP_TASK", parameters: {} });
  });

  it("takes a task or a goto for a job, as an area", () => {
    assert.deepEqual(readSendCommand('{"task": "Lobby"}'), { form: "job", job: { task: "Lobby" } });
    assert.deepEqual(readSendCommand('{"goto": "Kitchen door"}'), { form: "job", job: { goto: "Kitchen door" } });
  });

  it("names what is wrong with a send_command, in words", () => {
    const unknown = problem(readSendCommand(` ${"z".repeat(120)} `));
    assert.equal(unknown.problem, "command");
    assert.match(unknown.reason, new RegExp(`^unknown command "${"z".repeat(100)}" \\(send a JSON object, or one of [A-Z_]+, [A-Z_]+`));
    assert.deepEqual(problem(readSendCommand("{oops")).problem, "json");
    assert.match(problem(readSendCommand("{oops")).reason, /^the payload is not JSON: /);
    const badCommand = problem(readSendCommand(JSON.stringify({ command: "w".repeat(150) })));
    assert.equal(badCommand.problem, "command");
    assert.match(badCommand.reason, /^command must be one of [A-Z_]+, [A-Z_]+/);
    assert.ok(badCommand.reason.endsWith(`(got "${"w".repeat(99)})`), badCommand.reason);
    assert.deepEqual(readSendCommand('{"position": "x"}'), {
      problem: "command",
      reason:
        'a send_command payload needs "command" (a robot command, or clean_area, run_task, go_to), or "area", "task" or "goto" (a job)',
    });
  });

  it("tells a problem from a reading", () => {
    assert.equal(isProblem({ problem: "json", reason: "x" }), true);
    assert.equal(isProblem({ text: "x" }), false);
  });

  it("lets a fan speed overtake a command under way, whatever its text", () => {
    assert.equal(mayOvertakePending("fanSpeed", "START_TASK"), true);
  });

  it("warns again only a whole window after the last warning, at any time of day", () => {
    let now = 1_800_000_000_000;
    const gate = new WarningGate(60_000, () => now);
    assert.equal(gate.allows("json"), true);
    now += 59_999;
    assert.equal(gate.allows("json"), false);
    now += 1;
    assert.equal(gate.allows("json"), true);
  });
});

describe("mqtt at its edges: the start tasks set for maps", () => {
  it("reads map = task lines, with CRLF, blank lines and spaces; nothing from what is not text", () => {
    assert.deepEqual(
      [...readStartTasks("Floor 1 = Lobby\r\n   \n\nm2=All of Floor 2 ")],
      [
        ["Floor 1", "Lobby"],
        ["m2", "All of Floor 2"],
      ],
    );
    assert.equal(readStartTasks(5).size, 0);
  });

  const refused: [string, string][] = [
    ["=Lobby", "=Lobby"],
    ["Floor 1 =", "Floor 1 ="],
    ["  Floor 1 =    ", "Floor 1 ="],
    ["Floor 1", "Floor 1"],
  ];
  for (const [line, named] of refused) {
    it(`refuses the line ${JSON.stringify(line)}, naming it trimmed`, () => {
      assert.throws(() => readStartTasks(line), { message: `"${named}" is not "map = task"` });
    });
  }
});

describe("mqtt at its edges: the task start runs", () => {
  const onFloor1 = view({ mapId: "m1" }, "Floor 1");

  const onMap: [string, RobotView, ExecutableTask, boolean][] = [
    ["the same map id, another name", onFloor1, task("t", "m1", "Renamed"), true],
    ["the same map name, another id", onFloor1, task("t", "m9", "Floor 1"), true],
    ["neither", onFloor1, task("t", "m9", "Floor 9"), false],
    ["a robot with no map id and a task with none", view({}, "Floor 1"), task("t", undefined, "Floor 9"), false],
    ["a robot with no map name and a task with none", view({ mapId: "m1" }), task("t", "m9"), false],
  ];
  for (const [what, robot, candidate, found] of onMap) {
    it(`${found ? "takes" : "does not take"} the first task for one on the robot's map: ${what}`, () => {
      const chosen = chooseStartTask(robot, [candidate], new Map());
      assert.equal(isProblem(chosen), !found);
    });
  }

  it("runs the task set for the map's id, the one on the robot's map before one of that name elsewhere", () => {
    const tasks = [task("Other", "m1", "Floor 1"), task("Lobby", "m2", "Floor 2"), task("Lobby", "m1", "Floor 1")];
    assert.deepEqual(chooseStartTask(onFloor1, tasks, new Map([["m1", "Lobby"]])), task("Lobby", "m1", "Floor 1"));
  });

  it("runs the task set of that name on another map when its map has none, and names one no list has", () => {
    assert.deepEqual(
      chooseStartTask(onFloor1, [task("Other", "m3", "Floor 3"), task("Lobby", "m2", "Floor 2")], new Map([["Floor 1", "Lobby"]])),
      task("Lobby", "m2", "Floor 2"),
    );
    assert.deepEqual(chooseStartTask(onFloor1, [], new Map([["Floor 1", "Night"]])), { name: "Night", mapName: "Floor 1", mapId: "m1" });
  });

  const none: [string, RobotView, string][] = [
    ["its map's name", onFloor1, "Floor 1"],
    ["its map's id when it has no name", view({ mapId: "m1" }), "m1"],
    ["(unknown) without either", view({}), "(unknown)"],
  ];
  for (const [what, robot, named] of none) {
    it(`names ${what} when the robot has no task to run`, () => {
      assert.deepEqual(chooseStartTask(robot, [], new Map()), {
        problem: "command",
        reason: `the robot has no task it can run on its map ${named}`,
      });
    });
  }
});

describe("mqtt at its edges: the command a vacuum command becomes", () => {
  const states: [string, Partial<WatchedState>, "start" | "pause" | "stop", string][] = [
    ["stop on a paused robot whose status says it navigates", { taskState: "PAUSED", navStatus: "NAVI_RUNNING" }, "stop", "STOP_TASK"],
    [
      "pause on a cleaning robot whose status says it navigates",
      { taskState: "RUNNING", navStatus: "NAVI_RUNNING" },
      "pause",
      "PAUSE_TASK",
    ],
    ["stop on a cleaning robot whose status says it navigates", { taskState: "RUNNING", navStatus: "NAVI_RUNNING" }, "stop", "STOP_TASK"],
    ["start on a paused robot whose status says it navigates", { taskState: "PAUSED", navStatus: "NAVI_RUNNING" }, "start", "RESUME_TASK"],
    ["stop on a navigating robot", { taskState: "IDLE", navStatus: "NAVI_RUNNING" }, "stop", "STOP_NAVIGATE"],
  ];
  for (const [what, state, command, cloud] of states) {
    it(`sends ${cloud} for ${what}`, () => {
      const planned = planVacuumCommand(command, view(state, "Floor 1"), undefined, "charging");
      assert.equal("command" in planned && planned.command, cloud);
    });
  }

  it("refuses start without a task, or without a cleaning mode, and return_to_base without a map", () => {
    assert.deepEqual(planVacuumCommand("start", view({ taskState: "IDLE" }, "Floor 1")), {
      problem: "command",
      reason: "no task to start",
    });
    assert.deepEqual(
      planVacuumCommand("start", view({ taskState: "IDLE" }, "Floor 1"), {
        task: { name: "Lobby" },
        cleaningMode: undefined,
      }),
      {
        problem: "command",
        reason: "the robot lists no cleaning mode to start its task with",
      },
    );
    assert.deepEqual(planVacuumCommand("return_to_base", view({ taskState: "IDLE" })), {
      problem: "command",
      reason: "the robot is on no map known, so its charger is not known",
    });
  });

  it("starts a task on its own map (by name, else id), else on the robot's", () => {
    const start = (task: ExecutableTask) =>
      planVacuumCommand("start", view({ taskState: "IDLE" }, "Floor 1"), { task, cleaningMode: "尘推" });
    const mapOf = (planned: ReturnType<typeof start>) => ("parameters" in planned ? planned.parameters.map : undefined);
    assert.equal(mapOf(start(task("Lobby", "m2", "Floor 2"))), "Floor 2");
    assert.equal(mapOf(start(task("Lobby", "m2"))), "m2");
    assert.equal(mapOf(start(task("Lobby"))), "Floor 1");
  });

  it("fills only what a compact command left out, and a map only for a start or a navigation", () => {
    const onFloor1 = view({}, "Floor 1");
    assert.deepEqual(withRobotDefaults({ command: "PAUSE_TASK", parameters: {} }, onFloor1, "尘推"), {
      command: "PAUSE_TASK",
      parameters: {},
    });
    assert.deepEqual(
      withRobotDefaults(
        { command: "START_TASK", parameters: { map: "Floor 2", cleaningMode: "__heavy_cleaning", loop: true, loopCount: 3 } },
        onFloor1,
        "尘推",
      ),
      { command: "START_TASK", parameters: { map: "Floor 2", cleaningMode: "__heavy_cleaning", loop: true, loopCount: 3 } },
    );
    assert.deepEqual(withRobotDefaults({ command: "START_TASK", parameters: { taskName: "Lobby" } }, view({}), undefined), {
      command: "START_TASK",
      parameters: { taskName: "Lobby", loop: false, loopCount: 1 },
    });
    assert.deepEqual(withRobotDefaults({ command: "STOP_NAVIGATE", parameters: {} }, view({}), undefined), {
      command: "STOP_NAVIGATE",
      parameters: {},
    });
  });
});

describe("mqtt at its edges: what the robot shows", () => {
  it("shows a task's progress (the v1 status' 0-1) in whole percent within 0-100, and leaves out a progress, a mode and a destination not given", () => {
    // A destination the package sent is set by the bridge (test/nodes/navigation-shown.test.ts shows it as "returning").
    const progressOf = (progress: unknown) => robotViewOf(status({ executingTask: { name: "Lobby", progress } })).task?.progress;
    assert.deepEqual(
      [progressOf(-0.01), progressOf(0), progressOf(0.404), progressOf(0.406), progressOf(1), progressOf(1.01), progressOf("0.5")],
      [0, 0, 40, 41, 100, 100, 50],
    );
    // The S-line status' currentTask carries none (nor a name: the recorded ones have workMode and taskInstanceId).
    assert.equal(robotViewOf(status({ currentTask: { name: "Lobby", progress: 0.5 } })).task?.progress, undefined);
    const bare = robotViewOf(status({ currentTask: { name: "Lobby" } }));
    assert.deepEqual(bare.task, { name: "Lobby" });
    assert.equal("destination" in bare, false);
    assert.deepEqual(robotViewOf(status({ currentTask: { name: "Lobby", cleaningMode: "尘推" } })).task, {
      name: "Lobby",
      cleaningMode: "尘推",
    });
  });

  it("finds the cleaning mode of a fan speed given with spaces around it", () => {
    assert.equal(cleaningModeOfFanSpeed(robotViewOf(status()), " 尘推 "), "尘推");
  });

  it("names a lost robot's problem", () => {
    assert.deepEqual(problemsOf({ serialNumber: "R1", localizationState: "LOST" }, undefined), ["lost"]);
  });

  it("words an alarm without a level or name by its code or id, cut to 200 characters", () => {
    const alarm = (extra: Partial<OpenAlarm>): OpenAlarm => ({
      serialNumber: "R1",
      incidentId: "i-1",
      raisedAt: "2026-01-01T00:00:00Z",
      ...extra,
    });
    assert.equal(alarmText(alarm({})), "H? i-1");
    assert.equal(alarmText(alarm({ code: "E12" })), "H? E12");
    assert.equal(alarmText(alarm({ level: { code: "H5", rank: 5 }, name: "n".repeat(300) })), `H5 ${"n".repeat(197)}`);
  });

  it("shows returning only on the way to the charging point the package sent it to, and docked once it charges", () => {
    const idle = { serialNumber: "R1", online: true, taskState: "IDLE" } as WatchedState;
    assert.equal(vacuumStateOf(idle, undefined, "charging"), "returning");
    assert.equal(vacuumStateOf(idle, undefined, "Kitchen door"), "idle");
    assert.equal(vacuumStateOf({ ...idle, charging: true }, undefined, "charging"), "docked");
  });

  it("words the task sensor: none, its name cut to 200 characters, its progress rounded", () => {
    assert.equal(taskText(undefined), "none");
    assert.equal(taskText({ name: "t".repeat(250) }), "t".repeat(200));
    assert.equal(taskText({ name: "Lobby", progress: 40.6 }), "Lobby (41 %)");
  });

  it("gives null for every attribute no status gave, and no problem", () => {
    assert.deepEqual(attributesOf(view({ online: false }), undefined), {
      online: false,
      battery: null,
      charging: null,
      task_state: null,
      map: null,
      position: null,
      navigation: null,
      task: "none",
      progress: null,
      emergency_stop: null,
      localization: null,
      problem: false,
      problems: [],
      alarm: "none",
      parts: {},
      parts_due: {},
      clean_water: null,
      recovery_water: null,
    });
  });

  it("gives every attribute a status gave, false ones as false, and a problem", () => {
    const robot = robotViewOf(
      status({
        taskState: "RUNNING",
        navStatus: "NAVI_IDLE",
        emergencyStop: { enabled: true },
        executingTask: { name: "Lobby", progress: 0 },
      }),
    );
    const attributes = attributesOf(robot, undefined);
    assert.deepEqual(
      [attributes.online, attributes.charging, attributes.task_state, attributes.map, attributes.navigation, attributes.progress],
      [true, false, "RUNNING", "Floor 1", "NAVI_IDLE", 0],
    );
    assert.deepEqual([attributes.emergency_stop, attributes.localization, attributes.problem], [true, "NORMAL", true]);
    assert.deepEqual(attributes.position, robot.state.position);
  });
});

describe("mqtt at its edges: what is published", () => {
  it("gives each robot's entities the bridge's and the robot's availability, both required, and reads each from the attributes", () => {
    const config = deviceConfigOf(robotViewOf(status()), ROOTS, ORIGIN);
    const available = {
      availability: [{ topic: "robot-fleet/availability" }, { topic: "robot-fleet/R1/availability" }],
      availability_mode: "all",
    };
    const fromAttributes = (template: string) => ({ state_topic: "robot-fleet/R1/attributes", value_template: template });
    assert.deepEqual(config.origin, ORIGIN);
    assert.deepEqual(config.components, {
      vacuum: {
        platform: "vacuum",
        unique_id: "robot_fleet_R1_vacuum",
        name: null,
        state_topic: "robot-fleet/R1/state",
        command_topic: "robot-fleet/R1/command",
        send_command_topic: "robot-fleet/R1/send_command",
        clean_segments_command_topic: "robot-fleet/R1/clean_segments",
        json_attributes_topic: "robot-fleet/R1/attributes",
        supported_features: ["start", "pause", "stop", "return_home", "send_command", "fan_speed"],
        ...available,
        set_fan_speed_topic: "robot-fleet/R1/set_fan_speed",
        fan_speed_list: ["middle_cleaning – medium intensity", "尘推 – dust mop"],
      },
      battery: {
        platform: "sensor",
        unique_id: "robot_fleet_R1_battery",
        name: "Battery",
        device_class: "battery",
        unit_of_measurement: "%",
        state_class: "measurement",
        ...fromAttributes("{{ value_json.battery }}"),
        ...available,
      },
      online: {
        platform: "binary_sensor",
        unique_id: "robot_fleet_R1_online",
        name: "Online",
        device_class: "connectivity",
        state_topic: "robot-fleet/R1/availability",
        payload_on: "online",
        payload_off: "offline",
        availability_topic: "robot-fleet/availability",
      },
      problem: {
        platform: "binary_sensor",
        unique_id: "robot_fleet_R1_problem",
        name: "Problem",
        device_class: "problem",
        ...fromAttributes("{{ 'ON' if value_json.problem else 'OFF' }}"),
        json_attributes_topic: "robot-fleet/R1/attributes",
        json_attributes_template: "{{ {'problems': value_json.problems} | tojson }}",
        ...available,
      },
      alarm: {
        platform: "sensor",
        unique_id: "robot_fleet_R1_alarm",
        name: "Alarm",
        icon: "mdi:alert-circle-outline",
        ...fromAttributes("{{ value_json.alarm }}"),
        ...available,
      },
      task: {
        platform: "sensor",
        unique_id: "robot_fleet_R1_task",
        name: "Task",
        icon: "mdi:broom",
        ...fromAttributes("{{ value_json.task }}"),
        ...available,
      },
    });
  });

  it("shows the fan speed chosen, else the task's mode, else null (a key left out would keep Home Assistant's old value)", () => {
    const robot = robotViewOf(status({ currentTask: { name: "Lobby", cleaningMode: "尘推" } }));
    assert.deepEqual(vacuumStatePayload(robot, undefined, "__middle_cleaning"), {
      state: "idle",
      fan_speed: "middle_cleaning – medium intensity",
    });
    assert.deepEqual(vacuumStatePayload(robot, undefined, undefined), { state: "idle", fan_speed: "尘推 – dust mop" });
    assert.deepEqual(vacuumStatePayload(robotViewOf(status()), undefined, undefined), { state: "idle", fan_speed: null });
  });

  it("publishes an offline robot's availability as offline, and the bridge's own as online or offline, retained", () => {
    const messages = robotMessages(robotViewOf(status({ online: false })), undefined, undefined, ROOTS, ORIGIN);
    assert.equal(messages[1]!.payload, "offline");
    assert.deepEqual(bridgeAvailabilityMessage(ROOTS, true), {
      topic: "robot-fleet/availability",
      payload: "online",
      retain: true,
      qos: 1,
    });
    assert.deepEqual(bridgeAvailabilityMessage(ROOTS, false), {
      topic: "robot-fleet/availability",
      payload: "offline",
      retain: true,
      qos: 1,
    });
  });

  it("sends again only the topics it was told to forget", () => {
    const published = new PublishedPayloads();
    const messages = robotMessages(robotViewOf(status()), undefined, undefined, ROOTS, ORIGIN);
    published.changed(messages);
    published.forgetTopics([messages[2]!.topic]);
    assert.deepEqual(
      published.changed(messages).map((message) => message.topic),
      [messages[2]!.topic],
    );
  });
});

describe("mqtt at its edges: topics", () => {
  it("names a NUL in a serial number", () => {
    assert.equal(topicLevelProblem("R\u00001"), "holds a NUL character");
  });

  const roots: [string, string | undefined][] = [
    ["a".repeat(1024), undefined],
    ["a".repeat(1025), "must be at most 1024 bytes"],
    ["é".repeat(513), "must be at most 1024 bytes"],
    ["robot-fleet/#", "must not hold MQTT wildcards (+, #) or a NUL"],
    ["robot-fleet//x", "must not have an empty level (no leading, trailing or double /)"],
  ];
  for (const [root, refusal] of roots) {
    it(`${refusal ? "refuses" : "takes"} a base topic of ${Buffer.byteLength(root)} bytes like ${JSON.stringify(root.slice(0, 16))}`, () => {
      if (refusal === undefined) assert.equal(checkTopicRoot(root, "baseTopic", "robot-fleet"), root);
      else
        assert.throws(() => checkTopicRoot(root, "baseTopic", "robot-fleet"), {
          message: new RegExp(`${refusal.replace(/[()+#/]/g, "\\$&")}`),
        });
    });
  }

  const incoming: [unknown, object][] = [
    [5, { kind: "unknown" }],
    ["robot-fleet/R1", { kind: "unknown" }],
    ["robot-fleet/R1/command/extra", { kind: "unknown", serialNumber: "R1" }],
    ["robot-fleet/R+1/command/extra", { kind: "unknown" }],
    ["robot-fleet/R+1/command", { kind: "unknown" }],
    ["robot-fleet/R1/command", { kind: "input", input: "command", serialNumber: "R1" }],
    // Another base of the same length: not the bridge's, though what follows it reads as an input.
    ["other-fleet/R1/command", { kind: "unknown" }],
  ];
  for (const [topic, read] of incoming) {
    it(`reads the topic ${JSON.stringify(topic)} as ${JSON.stringify(read)}`, () => {
      assert.deepEqual(readIncomingTopic(ROOTS, topic), read);
    });
  }
});

describe("mqtt at its edges: the fan speed chosen, and how chosen areas end", () => {
  const withTaskMode = (cleaningModes: string[], taskMode?: string): RobotView => ({
    ...view({ taskState: "IDLE" }, "Floor 1"),
    cleaningModes,
    ...(taskMode === undefined ? {} : { task: { name: "Lobby", cleaningMode: taskMode } }),
  });

  it("starts with the fan speed chosen, over the mode of the task the status names and the robot's first; else the task's, else the first", () => {
    assert.equal(
      startCleaningMode(withTaskMode(["__middle_cleaning", "__heavy_cleaning"], "__middle_cleaning"), "__heavy_cleaning"),
      "__heavy_cleaning",
    );
    assert.equal(startCleaningMode(withTaskMode(["__middle_cleaning", "__heavy_cleaning"]), "__heavy_cleaning"), "__heavy_cleaning");
    assert.equal(
      startCleaningMode(withTaskMode(["__middle_cleaning", "__heavy_cleaning"], "__heavy_cleaning"), undefined),
      "__heavy_cleaning",
    );
    assert.equal(startCleaningMode(withTaskMode(["__middle_cleaning", "__heavy_cleaning"]), undefined), "__middle_cleaning");
    assert.equal(startCleaningMode(withTaskMode([]), undefined), undefined);
  });

  it("cleans each chosen area with the fan speed chosen, and in the job's default mode when none was", () => {
    const kitchen = { mapId: "m1", areaId: "3", name: "Kitchen" };
    assert.deepEqual(areaJobOf(kitchen, "__heavy_cleaning"), { area: "3", map: "m1", name: "Kitchen", mode: "__heavy_cleaning" });
    assert.deepEqual(areaJobOf(kitchen, undefined), { area: "3", map: "m1", name: "Kitchen" });
  });

  const ends: [outcome: JobOutcome, problems: string[], notStarted: number, ok: boolean, reason: string][] = [
    ["completed", [], 0, true, "Kitchen ended"],
    ["unknown", [], 0, true, "Kitchen ended"],
    ["error", [], 0, false, "Kitchen ended: the task ended with an error"],
    ["failedToStart", [], 0, false, "Kitchen ended: the task failed to start"],
    ["stoppedByHand", [], 0, false, "Kitchen ended: stopped by hand"],
    ["error", ["alarm H6 Brush motor stalled"], 0, false, "Kitchen ended: the task ended with an error, alarm H6 Brush motor stalled"],
    ["completed", ["lost"], 2, false, "Kitchen ended: lost; 2 not started"],
    ["completed", ["lost"], 1, false, "Kitchen ended: lost; 1 not started"],
  ];
  for (const [outcome, problems, notStarted, ok, reason] of ends) {
    it(`an area ended ${outcome}${problems.length ? ` with ${problems.join(", ")}` : ""}${notStarted ? `, ${notStarted} left` : ""}: "${reason}"`, () => {
      assert.deepEqual(areaEndResult("Kitchen", outcome, problems, notStarted), { ok, reason });
    });
  }
});
