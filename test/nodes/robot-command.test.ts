/**
 * robot-command through real Node-RED against a recording server: the exact
 * request of every command, the three payload forms, serial-number precedence,
 * bad input (nothing sent), every failure kind reaching a Catch node, and one
 * outcome per message under load.
 */
import assert from "node:assert/strict";
import robotCommand from "../../src/nodes/robot-command";
import { RecordingServer, type RecordedRequest } from "../support/recording-server";
import {
  TEST_TOKEN,
  collectMessages,
  flowWith,
  helper,
  loadFlow,
  nextMessage,
  outputsAndCatch,
  recordStatuses,
  waitFor,
  type FlowNode,
} from "../support/node-red";

const SERIAL = "GS-S-000101";

/** What the cloud answers: a command resource for the submitted body. */
function commandResource(request: RecordedRequest) {
  const body = request.body as Record<string, unknown>;
  const type = String(body.remoteTaskCommandType ?? body.remoteNavigationCommandType ?? body.remoteControlCommandType);
  return {
    status: 200,
    body: {
      name: `robots/${String(body.serialNumber)}/commands/0b6f3c1e-9a53-4d3c-8a43-3e0f2e0c5d11`,
      parent: `robots/${String(body.serialNumber)}`,
      commandParameter: body.commandParameter ?? {},
      state: "WAITING",
      serialNumber: body.serialNumber,
      rawCommandType: type.toLowerCase(),
      startDelay: 1800000,
      futureField: "kept",
    },
  };
}

function commandNode(settings: Record<string, unknown> = {}): FlowNode {
  return {
    id: "cmd",
    type: "robot-command",
    robot: "config",
    serialNumber: SERIAL,
    serialNumberType: "str",
    command: "PAUSE_TASK",
    cleaningMode: "__middle_cleaning",
    taskName: "Lobby",
    taskNameType: "str",
    map: "Floor 1",
    mapType: "str",
    loop: false,
    loopCount: 1,
    position: "charging",
    positionType: "str",
    direction: "FORWARD",
    wires: [["out"]],
    ...settings,
  };
}

/** Every command as configured in the node, and the body the spec says must go out. */
const EXPECTED_BODIES: Record<string, Record<string, unknown>> = {
  START_TASK: {
    serialNumber: SERIAL,
    remoteTaskCommandType: "START_TASK",
    commandParameter: {
      startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Lobby", map: "Floor 1", loop: false, loopCount: 1 } },
    },
  },
  PAUSE_TASK: { serialNumber: SERIAL, remoteTaskCommandType: "PAUSE_TASK" },
  RESUME_TASK: { serialNumber: SERIAL, remoteTaskCommandType: "RESUME_TASK" },
  STOP_TASK: { serialNumber: SERIAL, remoteTaskCommandType: "STOP_TASK" },
  CROSS_NAVIGATE: {
    serialNumber: SERIAL,
    remoteNavigationCommandType: "CROSS_NAVIGATE",
    commandParameter: { startNavigationParameter: { map: "Floor 1", position: "charging" } },
  },
  PAUSE_NAVIGATE: {
    serialNumber: SERIAL,
    remoteNavigationCommandType: "PAUSE_NAVIGATE",
    commandParameter: { startNavigationParameter: { map: "Floor 1", position: "charging" } },
  },
  RESUME_NAVIGATE: {
    serialNumber: SERIAL,
    remoteNavigationCommandType: "RESUME_NAVIGATE",
    commandParameter: { startNavigationParameter: { map: "Floor 1", position: "charging" } },
  },
  STOP_NAVIGATE: {
    serialNumber: SERIAL,
    remoteNavigationCommandType: "STOP_NAVIGATE",
    commandParameter: { startNavigationParameter: { map: "Floor 1", position: "charging" } },
  },
  REMOTE_CONTROL_START: { serialNumber: SERIAL, remoteControlCommandType: "REMOTE_CONTROL_START" },
  REMOTE_CONTROL_MOVE: {
    serialNumber: SERIAL,
    remoteControlCommandType: "REMOTE_CONTROL_MOVE",
    commandParameter: { controlMovingParameter: { direction: "FORWARD" } },
  },
  REMOTE_CONTROL_STOP: { serialNumber: SERIAL, remoteControlCommandType: "REMOTE_CONTROL_STOP" },
};

describe("robot-command", function () {
  let server: RecordingServer;

  before(async () => {
    server = await new RecordingServer().start();
  });
  after(async () => {
    await server.stop();
  });
  beforeEach((done) => {
    server.reset();
    server.respondWith(commandResource);
    helper.startServer(done);
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
  });

  async function load(settings: Record<string, unknown> = {}, config: Record<string, unknown> = {}, extra: FlowNode[] = []) {
    await loadFlow([robotCommand], flowWith(server.url, [commandNode(settings), ...outputsAndCatch("cmd"), ...extra], config));
  }

  /** Sends one message and resolves with whichever comes: the output or the caught error. */
  async function outcome(msg: Record<string, unknown>) {
    const output = nextMessage("out").then((m) => ({ output: m }));
    const caught = nextMessage("caught").then((m) => ({ caught: m }));
    helper.getNode("cmd").receive(msg);
    return Promise.race([output, caught]) as Promise<{ output?: Record<string, unknown>; caught?: Record<string, unknown> }>;
  }

  for (const [command, expected] of Object.entries(EXPECTED_BODIES)) {
    it(`sends ${command} exactly as the spec shows it`, async () => {
      await load({ command });
      const { output } = await outcome({ payload: Date.now() });
      assert.ok(output, "an output");
      assert.equal(server.requests.length, 1);
      const request = server.requests[0]!;
      assert.equal(request.method, "POST");
      assert.equal(request.path, `/v1alpha1/robots/${SERIAL}/commands`);
      assert.equal(request.headers["content-type"], "application/json");
      assert.equal(request.headers.authorization, `Bearer ${TEST_TOKEN}`);
      assert.deepEqual(request.body, expected);
      assert.equal((output.payload as { state: string }).state, "WAITING");
      assert.equal((output.payload as { rawCommandType: string }).rawCommandType, command.toLowerCase());
    });
  }

  it("sends a payload that is the spec's request body unchanged", async () => {
    await load({ command: "STOP_TASK" });
    const body = {
      serialNumber: "GS-S-000102",
      remoteTaskCommandType: "START_TASK",
      commandParameter: {
        startTaskParameter: { cleaningMode: "__middle_cleaning", task: { loop: true, loopCount: 3, map: "9-2", name: "Night" } },
      },
    };
    const { output } = await outcome({ payload: body, topic: "night-shift" });
    assert.ok(output);
    assert.equal(server.requests[0]!.path, "/v1alpha1/robots/GS-S-000102/commands");
    assert.deepEqual(JSON.parse(server.requests[0]!.rawBody), body);
    assert.equal(output.topic, "night-shift");
    assert.equal((output.payload as { futureField: string }).futureField, "kept");
  });

  it("builds the request from a compact payload, filling gaps from the node", async () => {
    await load({ command: "PAUSE_TASK", map: "Floor 7" });
    await outcome({ payload: { command: "CROSS_NAVIGATE", map: "9-2", position: "charging" } });
    await outcome({ payload: { command: "cross_navigate", position: "lift" } });
    await outcome({ payload: { command: "REMOTE_CONTROL_MOVE", direction: "left", serialNumber: "GS-S-000201" } });
    assert.deepEqual(
      server.requests.map((r) => r.body),
      [
        { serialNumber: SERIAL, remoteNavigationCommandType: "CROSS_NAVIGATE", commandParameter: { startNavigationParameter: { map: "9-2", position: "charging" } } },
        { serialNumber: SERIAL, remoteNavigationCommandType: "CROSS_NAVIGATE", commandParameter: { startNavigationParameter: { map: "Floor 7", position: "lift" } } },
        { serialNumber: "GS-S-000201", remoteControlCommandType: "REMOTE_CONTROL_MOVE", commandParameter: { controlMovingParameter: { direction: "LEFT" } } },
      ],
    );
  });

  it("builds START_TASK from a compact payload with loop settings", async () => {
    await load({ command: "" });
    await outcome({ payload: { command: "START_TASK", taskName: "Spill", map: "Floor 1", loop: true, loopCount: 2, cleaningMode: "清扫" } });
    assert.deepEqual(server.requests[0]!.body, {
      serialNumber: SERIAL,
      remoteTaskCommandType: "START_TASK",
      commandParameter: { startTaskParameter: { cleaningMode: "清扫", task: { name: "Spill", map: "Floor 1", loop: true, loopCount: 2 } } },
    });
  });

  it("sends the node's command for any other payload, and msg.command when the node has none", async () => {
    await load({ command: "STOP_TASK" });
    for (const payload of [42, "spill detected", "", true, null, { temperature: 21 }, [1, 2]]) await outcome({ payload });
    assert.deepEqual(
      server.requests.map((r) => (r.body as { remoteTaskCommandType: string }).remoteTaskCommandType),
      Array(7).fill("STOP_TASK"),
    );
    await helper.unload();
    server.reset();
    server.respondWith(commandResource);
    await load({ command: "" });
    await outcome({ payload: 1, command: "resume_task" });
    assert.deepEqual(server.requests[0]!.body, { serialNumber: SERIAL, remoteTaskCommandType: "RESUME_TASK" });
  });

  it("takes the serial number from the payload, then msg.serialNumber, then the node", async () => {
    await load({ command: "PAUSE_TASK" });
    await outcome({ payload: { serialNumber: "FROM-PAYLOAD", remoteTaskCommandType: "PAUSE_TASK" }, serialNumber: "FROM-MSG" });
    await outcome({ payload: { command: "PAUSE_TASK" }, serialNumber: "FROM-MSG" });
    await outcome({ payload: "x", serialNumber: "FROM-MSG" });
    await outcome({ payload: "x" });
    assert.deepEqual(
      server.requests.map((r) => r.path),
      [
        "/v1alpha1/robots/FROM-PAYLOAD/commands",
        "/v1alpha1/robots/FROM-MSG/commands",
        "/v1alpha1/robots/FROM-MSG/commands",
        `/v1alpha1/robots/${SERIAL}/commands`,
      ],
    );
  });

  it("evaluates the node's serial number from an environment variable", async () => {
    process.env.ROBOT_FLEET_TEST_SERIAL = "FROM-ENV";
    try {
      await load({ command: "PAUSE_TASK", serialNumber: "ROBOT_FLEET_TEST_SERIAL", serialNumberType: "env" });
      await outcome({ payload: 1 });
    } finally {
      delete process.env.ROBOT_FLEET_TEST_SERIAL;
    }
    assert.equal(server.requests[0]!.path, "/v1alpha1/robots/FROM-ENV/commands");
  });

  it("evaluates the node's serial number from msg and the map from flow context", async () => {
    await load({ command: "CROSS_NAVIGATE", serialNumber: "robot.sn", serialNumberType: "msg", map: "mapName", mapType: "flow" });
    helper.getNode("cmd").context().flow.set("mapName", "Flow Map");
    await outcome({ payload: 1, robot: { sn: "FROM-MSG-PATH" } });
    assert.equal(server.requests[0]!.path, "/v1alpha1/robots/FROM-MSG-PATH/commands");
    assert.deepEqual((server.requests[0]!.body as { commandParameter: unknown }).commandParameter, {
      startNavigationParameter: { map: "Flow Map", position: "charging" },
    });
  });

  const badInputs: Array<[string, Record<string, unknown>, Record<string, unknown>, RegExp]> = [
    ["an unknown command", {}, { payload: { command: "DANCE" } }, /payload\.command: must be one of START_TASK/],
    ["an unknown msg.command", { command: "" }, { payload: 1, command: "DANCE" }, /msg\.command: must be one of/],
    ["no command anywhere", { command: "" }, { payload: 1 }, /command: no command is set/],
    [
      "two families at once",
      {},
      { payload: { serialNumber: SERIAL, remoteTaskCommandType: "PAUSE_TASK", remoteControlCommandType: "REMOTE_CONTROL_STOP" } },
      /remoteControlCommandType: only one of/,
    ],
    ["a missing map", { command: "CROSS_NAVIGATE", map: "" }, { payload: 1 }, /commandParameter\.startNavigationParameter\.map/],
    ["a mistyped loop count", {}, { payload: { command: "START_TASK", loopCount: "three" } }, /commandParameter\.startTaskParameter\.task\.loopCount: must be a number/],
    ["an unknown direction", {}, { payload: { command: "REMOTE_CONTROL_MOVE", direction: "up" } }, /controlMovingParameter\.direction: must be one of FORWARD/],
    ["a parameter on a command without one", {}, { payload: { serialNumber: SERIAL, remoteTaskCommandType: "PAUSE_TASK", commandParameter: { controlMovingParameter: { direction: "LEFT" } } } }, /commandParameter\.controlMovingParameter: is not allowed for PAUSE_TASK/],
    ["an unknown compact field", {}, { payload: { command: "CROSS_NAVIGATE", postion: "charging" } }, /payload\.postion: is not a field/],
    ["an empty serial number", { serialNumber: "" }, { payload: 1 }, /serialNumber: is not set/],
    ["an unsafe serial number", {}, { payload: 1, serialNumber: "../../admin" }, /serialNumber: must be 1-128/],
    ["a serial number that is not text", {}, { payload: 1, serialNumber: 42 }, /serialNumber: must be a string/],
  ];
  for (const [label, settings, msg, expected] of badInputs) {
    it(`reports ${label} to a Catch node, naming the field, and sends nothing`, async () => {
      await load(settings);
      const statuses = recordStatuses("cmd");
      const { caught, output } = await outcome({ ...msg, topic: "keep-me" });
      assert.equal(output, undefined);
      const error = caught!.error as { message: string; code: string; source: { id: string } };
      assert.match(error.message, expected);
      assert.equal(error.code, "INVALID_INPUT");
      assert.equal(error.source.id, "cmd");
      assert.equal(caught!.topic, "keep-me");
      assert.equal(server.requests.length, 0);
      assert.deepEqual(statuses.at(-1), { fill: "red", shape: "ring", text: "INVALID_INPUT" });
    });
  }

  const failures: Array<[string, Parameters<RecordingServer["reply"]>[0], string, RegExp]> = [
    ["a 400 with an error body", { status: 400, body: { code: 3, message: "The map name must not be blank." } }, "INVALID_ARGUMENT", /HTTP 400 INVALID_ARGUMENT: The map name must not be blank\./],
    ["a 500 with a text body", { status: 500, body: "upstream exploded", headers: { "Content-Type": "text/plain" } }, "HTTP_500", /HTTP 500: upstream exploded/],
    ["a non-JSON answer", { status: 200, body: "<html>gateway</html>", headers: { "Content-Type": "text/html" } }, "BAD_RESPONSE", /not JSON/],
    ["an answer that is not a command resource", { status: 200, body: { unexpected: true } }, "BAD_RESPONSE", /unexpected answer: name/],
    ["a dropped connection", { drop: true }, "NETWORK_ERROR", /network error/],
    ["a timeout", { delayMs: 1500 }, "TIMEOUT", /no answer within 0.3 s/],
  ];
  for (const [label, reply, code, expected] of failures) {
    it(`reports ${label} to a Catch node once, then works normally`, async () => {
      server.reply(reply);
      await load({ command: "PAUSE_TASK" }, { timeout: 0.3 });
      const outputs = collectMessages("out");
      const caughtAll = collectMessages("caught");
      helper.getNode("cmd").receive({ payload: "first", topic: "t1" });
      await waitFor(() => caughtAll.length === 1, 5000, "the error");
      const error = caughtAll[0]!.error as { message: string; code: string };
      assert.equal(error.code, code);
      assert.match(error.message, expected);
      assert.equal(caughtAll[0]!.topic, "t1");
      helper.getNode("cmd").receive({ payload: "second" });
      await waitFor(() => outputs.length === 1, 5000, "the next output");
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(caughtAll.length, 1, "one error, no more");
      assert.equal(outputs.length, 1);
      assert.equal(server.requests.length, 2, "the failed command was not sent again");
      assert.ok(!JSON.stringify(caughtAll).includes(TEST_TOKEN));
    });
  }

  it("keeps the message's other properties and shows the state in the status", async () => {
    await load({ command: "START_TASK" });
    const statuses = recordStatuses("cmd");
    const { output } = await outcome({ payload: 1, topic: "spill/kitchen", _custom: { a: 1 } });
    assert.equal(output!.topic, "spill/kitchen");
    assert.deepEqual(output!._custom, { a: 1 });
    assert.deepEqual(statuses[0], { fill: "blue", shape: "dot", text: "requesting" });
    assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "start_task: WAITING" });
    assert.ok(!JSON.stringify(output).includes(TEST_TOKEN));
  });

  it("answers 300 concurrent messages exactly once each and submits each once", async () => {
    server.respondWith((request) => {
      const body = request.body as { serialNumber: string };
      // Every seventh fails, so errors and outputs are both counted under load.
      return body.serialNumber.endsWith("7") ? { status: 500, body: { code: 13, message: "busy" }, delayMs: 5 } : { ...commandResource(request), delayMs: 5 };
    });
    await load({ command: "PAUSE_TASK" });
    const outputs = collectMessages("out");
    const caught = collectMessages("caught");
    const sent = Array.from({ length: 300 }, (_, i) => ({ payload: i, serialNumber: `SN-${i}` }));
    for (const msg of sent) helper.getNode("cmd").receive(msg);
    await waitFor(() => outputs.length + caught.length >= 300, 15000, "300 outcomes");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(outputs.length + caught.length, 300);
    assert.equal(caught.length, sent.filter((m) => m.serialNumber.endsWith("7")).length);
    assert.equal(server.requests.length, 300);
    const ids = [...outputs, ...caught].map((m) => m._msgid);
    assert.equal(new Set(ids).size, 300);
    const payloads = new Set(server.requests.map((r) => (r.body as { serialNumber: string }).serialNumber));
    assert.equal(payloads.size, 300);
  });

  it("abandons an in-flight command on close without output or crash", async () => {
    server.reply({ delayMs: 2000 });
    await load({ command: "PAUSE_TASK" });
    const outputs = collectMessages("out");
    helper.getNode("cmd").receive({ payload: 1 });
    await waitFor(() => server.requests.length === 1, 2000, "the request");
    await helper.unload();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(outputs.length, 0);
  });
});
