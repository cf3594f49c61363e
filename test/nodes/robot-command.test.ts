/**
 * robot-command through real Node-RED against a recording server: the exact
 * request of every command, the three payload forms, msg.command, serial-number
 * precedence, TypedInput settings, bad input (nothing sent, field named), every
 * failure kind reaching a Catch node, one outcome per message under load, close
 * while a request is under way, the editor's catalogue, and the example flow
 * against the robot-cloud simulator.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { COMMAND_TYPES } from "../../src/api/cloud/commands";
import robotCommand from "../../src/nodes/robot-command/robot-command";
import { DEMO_TOKEN, type RunningSimulator } from "../../src/simulator";
import type { RecordedRequest, ScriptedReply } from "../support/recording-server";
import {
  TEST_TOKEN,
  collectMessages,
  flowWith,
  helper,
  loadFlow,
  outputsAndCatch,
  recordStatuses,
  waitFor,
  type FlowNode,
  useRecordingServerAndNodeRed,
  expectInvalidInput,
  itRefusesEachBadInput,
  itKeepsTheMessageAndHidesTheToken,
  type BadInput,
  coreNodes,
  loadExampleFlow,
  isDirectoryRead,
} from "../support/node-red";
import { SERIAL, robotCommandNode, COMMAND_BODIES, NAVIGATION } from "../support/fixtures";
import { PACKAGE_ROOT } from "../support/child-node";
import { useSimulator } from "../support/simulator";

const CORE_NODES_USED_BY_THE_EXAMPLE = coreNodes("inject", "comment");

type Msg = Record<string, unknown>;

/** What the cloud answers: a command resource for the submitted body. */
function commandResource(request: RecordedRequest): ScriptedReply {
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

/** The node under test: PAUSE_TASK unless a test sets another command. */
function commandNode(settings: Record<string, unknown> = {}): FlowNode {
  return robotCommandNode("cmd", { command: "PAUSE_TASK", ...settings });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("robot-command", function () {
  const stub = useRecordingServerAndNodeRed(commandResource);

  /** Every output and caught error of the node under test since the flow was loaded. */
  let seen: { outputs: Msg[]; caught: Msg[] };

  async function load(settings: Record<string, unknown> = {}, config: Record<string, unknown> = {}) {
    await loadFlow([robotCommand], flowWith(stub.server.url, [commandNode(settings), ...outputsAndCatch("cmd")], config));
    seen = { outputs: collectMessages("out"), caught: collectMessages("caught") };
  }

  /**
   * Sends one message and resolves with whichever comes: the output or the caught error.
   * Persistent listeners: with Node-RED's input callbacks, a nextMessage() still waiting on a node
   * makes the next one on that node miss its message.
   */
  async function outcome(msg: Msg): Promise<{ output?: Msg; caught?: Msg }> {
    const outputs = seen.outputs.length;
    const caught = seen.caught.length;
    helper.getNode("cmd").receive(msg);
    await waitFor(() => seen.outputs.length + seen.caught.length > outputs + caught, 5000, "an output or an error");
    return { output: seen.outputs[outputs], caught: seen.caught[caught] };
  }

  /** Sends one message that must succeed; returns the body the stub.server received. */
  async function sentBody(msg: Msg): Promise<unknown> {
    const before = stub.server.requests.length;
    const { output, caught } = await outcome(msg);
    assert.ok(output, `an output, not ${JSON.stringify(caught?.error)}`);
    assert.equal(stub.server.requests.length, before + 1);
    return stub.server.requests.at(-1)!.body;
  }

  describe("the request", () => {
    for (const [command, expected] of Object.entries(COMMAND_BODIES)) {
      it(`sends ${command} exactly as the spec shows it when the node is set to it`, async () => {
        await load({ command });
        const { output } = await outcome({ payload: Date.now() });
        assert.ok(output, "an output");
        assert.equal(stub.server.requests.length, 1);
        const request = stub.server.requests[0]!;
        assert.equal(request.method, "POST");
        assert.equal(request.path, `/v1alpha1/robots/${SERIAL}/commands`);
        assert.equal(request.headers["content-type"], "application/json");
        assert.equal(request.headers.authorization, `Bearer ${TEST_TOKEN}`);
        assert.deepEqual(request.body, expected);
        assert.equal((output.payload as { state: string }).state, "WAITING");
        assert.equal((output.payload as { rawCommandType: string }).rawCommandType, command.toLowerCase());
      });
    }

    it("covers every command of the catalogue", () => {
      assert.deepEqual(Object.keys(COMMAND_BODIES).sort(), [...COMMAND_TYPES].sort());
    });
  });

  describe("msg.payload", () => {
    it("form 1: sends the spec's request body unchanged", async () => {
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
      assert.equal(stub.server.requests[0]!.path, "/v1alpha1/robots/GS-S-000102/commands");
      assert.deepEqual(JSON.parse(stub.server.requests[0]!.rawBody), body);
      assert.equal(output.topic, "night-shift");
      assert.equal((output.payload as { futureField: string }).futureField, "kept");
    });

    it("form 1: fills a missing serialNumber from msg.serialNumber, then the node", async () => {
      await load({ command: "STOP_TASK" });
      const body = { remoteNavigationCommandType: "PAUSE_NAVIGATE", commandParameter: NAVIGATION };
      assert.deepEqual(await sentBody({ payload: body, serialNumber: "GS-S-000201" }), { ...body, serialNumber: "GS-S-000201" });
      assert.deepEqual(await sentBody({ payload: body }), { ...body, serialNumber: SERIAL });
    });

    it("form 2: builds the request from a compact payload, taking left-out fields from the node", async () => {
      await load({ command: "PAUSE_TASK", map: "Floor 7" });
      assert.deepEqual(await sentBody({ payload: { command: "CROSS_NAVIGATE", map: "9-2", position: "charging" } }), {
        serialNumber: SERIAL,
        remoteNavigationCommandType: "CROSS_NAVIGATE",
        commandParameter: { startNavigationParameter: { map: "9-2", position: "charging" } },
      });
      assert.deepEqual(await sentBody({ payload: { command: "stop_navigate", position: "lift" } }), {
        serialNumber: SERIAL,
        remoteNavigationCommandType: "STOP_NAVIGATE",
        commandParameter: { startNavigationParameter: { map: "Floor 7", position: "lift" } },
      });
      assert.deepEqual(await sentBody({ payload: { command: "REMOTE_CONTROL_MOVE", direction: "left", serialNumber: "GS-S-000201" } }), {
        serialNumber: "GS-S-000201",
        remoteControlCommandType: "REMOTE_CONTROL_MOVE",
        commandParameter: { controlMovingParameter: { direction: "LEFT" } },
      });
      assert.deepEqual(await sentBody({ payload: { command: "Remote_Control_Start" } }), {
        serialNumber: SERIAL,
        remoteControlCommandType: "REMOTE_CONTROL_START",
      });
    });

    it("form 2: builds START_TASK from all its fields, with name as another word for taskName", async () => {
      await load({ command: "" });
      const fields = { map: "Floor 1", loop: true, loopCount: 2, cleaningMode: "清扫" };
      const expected = {
        serialNumber: SERIAL,
        remoteTaskCommandType: "START_TASK",
        commandParameter: { startTaskParameter: { cleaningMode: "清扫", task: { name: "Spill", map: "Floor 1", loop: true, loopCount: 2 } } },
      };
      assert.deepEqual(await sentBody({ payload: { command: "START_TASK", taskName: "Spill", ...fields } }), expected);
      assert.deepEqual(await sentBody({ payload: { command: "START_TASK", name: "Spill", ...fields } }), expected);
      assert.deepEqual(await sentBody({ payload: { command: "START_TASK", name: "Spill" } }), {
        ...expected,
        commandParameter: {
          startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Spill", map: "Floor 1", loop: false, loopCount: 1 } },
        },
      });
    });

    it("form 3: sends the node's command for any other payload, never reading a sensor's serialNumber", async () => {
      await load({ command: "STOP_TASK" });
      const payloads = [42, "spill detected", "", true, null, undefined, { temperature: 21 }, [1, 2], { serialNumber: "SENSOR-7", level: 3 }];
      for (const payload of payloads) await sentBody({ payload });
      assert.equal(stub.server.requests.length, payloads.length);
      for (const request of stub.server.requests) {
        assert.equal(request.path, `/v1alpha1/robots/${SERIAL}/commands`);
        assert.deepEqual(request.body, { serialNumber: SERIAL, remoteTaskCommandType: "STOP_TASK" });
      }
    });
  });

  describe("msg.command", () => {
    it("chooses the command when the node has none, in any case", async () => {
      await load({ command: "" });
      assert.deepEqual(await sentBody({ payload: 1, command: "resume_task" }), { serialNumber: SERIAL, remoteTaskCommandType: "RESUME_TASK" });
      assert.deepEqual(await sentBody({ payload: { reading: 7 }, command: "CROSS_NAVIGATE" }), {
        serialNumber: SERIAL,
        remoteNavigationCommandType: "CROSS_NAVIGATE",
        commandParameter: NAVIGATION,
      });
    });

    it("comes after the payload's command and the node's command", async () => {
      await load({ command: "" });
      assert.deepEqual(await sentBody({ payload: { command: "STOP_TASK" }, command: "PAUSE_TASK" }), {
        serialNumber: SERIAL,
        remoteTaskCommandType: "STOP_TASK",
      });
      assert.deepEqual(await sentBody({ payload: { serialNumber: SERIAL, remoteControlCommandType: "REMOTE_CONTROL_STOP" }, command: "PAUSE_TASK" }), {
        serialNumber: SERIAL,
        remoteControlCommandType: "REMOTE_CONTROL_STOP",
      });
      await helper.unload();
      await load({ command: "RESUME_TASK" });
      assert.deepEqual(await sentBody({ payload: 1, command: "PAUSE_TASK" }), { serialNumber: SERIAL, remoteTaskCommandType: "RESUME_TASK" });
    });
  });

  describe("serial number", () => {
    it("is the payload's, else msg.serialNumber, else the node's", async () => {
      await load({ command: "PAUSE_TASK" });
      await sentBody({ payload: { serialNumber: "FROM-BODY", remoteTaskCommandType: "PAUSE_TASK" }, serialNumber: "FROM-MSG" });
      await sentBody({ payload: { command: "PAUSE_TASK", serialNumber: "FROM-COMPACT" }, serialNumber: "FROM-MSG" });
      await sentBody({ payload: { command: "PAUSE_TASK" }, serialNumber: "FROM-MSG" });
      await sentBody({ payload: "x", serialNumber: "FROM-MSG" });
      await sentBody({ payload: "x" });
      assert.deepEqual(
        stub.server.requests.map((r) => [r.path, (r.body as { serialNumber: string }).serialNumber]),
        [
          ["/v1alpha1/robots/FROM-BODY/commands", "FROM-BODY"],
          ["/v1alpha1/robots/FROM-COMPACT/commands", "FROM-COMPACT"],
          ["/v1alpha1/robots/FROM-MSG/commands", "FROM-MSG"],
          ["/v1alpha1/robots/FROM-MSG/commands", "FROM-MSG"],
          [`/v1alpha1/robots/${SERIAL}/commands`, SERIAL],
        ],
      );
    });

    it("of the node may come from msg, flow, global or an environment variable", async () => {
      process.env.ROBOT_FLEET_TEST_SERIAL = "FROM-ENV";
      try {
        await load({ serialNumber: "ROBOT_FLEET_TEST_SERIAL", serialNumberType: "env" });
        await sentBody({ payload: 1 });
      } finally {
        delete process.env.ROBOT_FLEET_TEST_SERIAL;
      }
      await helper.unload();
      await load({ serialNumber: "robot.sn", serialNumberType: "msg" });
      await sentBody({ payload: 1, robot: { sn: "FROM-MSG-PATH" } });
      await helper.unload();
      await load({ serialNumber: "robotSn", serialNumberType: "flow" });
      helper.getNode("cmd").context().flow.set("robotSn", "FROM-FLOW");
      await sentBody({ payload: 1 });
      await helper.unload();
      await load({ serialNumber: "robotSn", serialNumberType: "global" });
      helper.getNode("cmd").context().global.set("robotSn", "FROM-GLOBAL");
      await sentBody({ payload: 1 });
      assert.deepEqual(
        stub.server.requests.map((r) => r.path),
        ["FROM-ENV", "FROM-MSG-PATH", "FROM-FLOW", "FROM-GLOBAL"].map((sn) => `/v1alpha1/robots/${sn}/commands`),
      );
    });
  });

  describe("parameters from msg, flow, global and env", () => {
    it("evaluates every START_TASK setting for each message", async () => {
      process.env.ROBOT_FLEET_TEST_MODE = "__heavy_cleaning";
      process.env.ROBOT_FLEET_TEST_LOOPS = "3";
      try {
        await load({
          command: "START_TASK",
          cleaningMode: "ROBOT_FLEET_TEST_MODE",
          cleaningModeType: "env",
          taskName: "task.title",
          taskNameType: "msg",
          map: "mapName",
          mapType: "flow",
          loop: "repeat",
          loopType: "msg",
          loopCount: "ROBOT_FLEET_TEST_LOOPS",
          loopCountType: "env",
        });
        helper.getNode("cmd").context().flow.set("mapName", "Floor 2");
        assert.deepEqual(await sentBody({ payload: 1, task: { title: "Canteen" }, repeat: true }), {
          serialNumber: SERIAL,
          remoteTaskCommandType: "START_TASK",
          commandParameter: {
            startTaskParameter: { cleaningMode: "__heavy_cleaning", task: { name: "Canteen", map: "Floor 2", loop: true, loopCount: 3 } },
          },
        });
      } finally {
        delete process.env.ROBOT_FLEET_TEST_MODE;
        delete process.env.ROBOT_FLEET_TEST_LOOPS;
      }
    });

    it("evaluates map, position and direction, and reads a direction in any case", async () => {
      await load({ command: "CROSS_NAVIGATE", map: "site.map", mapType: "global", position: "target", positionType: "msg" });
      helper.getNode("cmd").context().global.set("site", { map: "Floor 2" });
      assert.deepEqual(await sentBody({ payload: 1, target: "Canteen" }), {
        serialNumber: SERIAL,
        remoteNavigationCommandType: "CROSS_NAVIGATE",
        commandParameter: { startNavigationParameter: { map: "Floor 2", position: "Canteen" } },
      });
      await helper.unload();
      await load({ command: "REMOTE_CONTROL_MOVE", direction: "direction", directionType: "msg" });
      for (const direction of ["backward", "Right"]) await sentBody({ payload: 1, direction });
      assert.deepEqual(
        stub.server.requests.slice(1).map((r) => r.body),
        ["BACKWARD", "RIGHT"].map((direction) => ({
          serialNumber: SERIAL,
          remoteControlCommandType: "REMOTE_CONTROL_MOVE",
          commandParameter: { controlMovingParameter: { direction } },
        })),
      );
    });

    it("reads flows saved before the parameters were TypedInputs (checkbox loop, no type fields)", async () => {
      await load({
        command: "START_TASK",
        loop: true,
        loopCount: "",
        cleaningModeType: undefined,
        loopType: undefined,
        loopCountType: undefined,
        directionType: undefined,
      });
      assert.deepEqual(await sentBody({ payload: 1 }), {
        serialNumber: SERIAL,
        remoteTaskCommandType: "START_TASK",
        commandParameter: {
          startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Lobby", map: "Floor 1", loop: true, loopCount: 1 } },
        },
      });
    });
  });

  describe("bad input", () => {
    const RAW_MOVE = { serialNumber: SERIAL, remoteControlCommandType: "REMOTE_CONTROL_MOVE" };
    const badInputs: BadInput[] = [
      ["an unknown command in the payload", {}, { payload: { command: "DANCE" } }, /payload\.command: must be one of START_TASK, /, "payload.command"],
      ["an unknown msg.command", { command: "" }, { payload: 1, command: "DANCE" }, /msg\.command: must be one of /, "msg.command"],
      ["a msg.command that is not text", { command: "" }, { payload: 1, command: 5 }, /msg\.command: must be one of .*\(got 5\)/, "msg.command"],
      ["an unknown command in the node", { command: "DANCE" }, { payload: 1 }, /command: must be one of /, "command"],
      ["no command anywhere", { command: "" }, { payload: 1 }, /command: no command is set in the node, in msg\.command or in msg\.payload\.command/, "command"],
      [
        "two families at once",
        {},
        { payload: { serialNumber: SERIAL, remoteTaskCommandType: "PAUSE_TASK", remoteControlCommandType: "REMOTE_CONTROL_STOP" } },
        /payload\.remoteControlCommandType: only one of/,
        "payload.remoteControlCommandType",
      ],
      [
        "a command of the wrong family",
        {},
        { payload: { serialNumber: SERIAL, remoteTaskCommandType: "CROSS_NAVIGATE" } },
        /payload\.remoteTaskCommandType: /,
        "payload.remoteTaskCommandType",
      ],
      [
        "a spec body without its parameter",
        {},
        { payload: { serialNumber: SERIAL, remoteNavigationCommandType: "CROSS_NAVIGATE" } },
        /payload\.commandParameter\.startNavigationParameter: is required for CROSS_NAVIGATE/,
        "payload.commandParameter.startNavigationParameter",
      ],
      [
        "a parameter on a command without one",
        {},
        { payload: { serialNumber: SERIAL, remoteTaskCommandType: "PAUSE_TASK", commandParameter: { controlMovingParameter: { direction: "LEFT" } } } },
        /payload\.commandParameter\.controlMovingParameter: is not allowed for PAUSE_TASK/,
        "payload.commandParameter.controlMovingParameter",
      ],
      [
        "a lower-case direction in a spec body (sent unchanged, so not normalised)",
        {},
        { payload: { ...RAW_MOVE, commandParameter: { controlMovingParameter: { direction: "left" } } } },
        /payload\.commandParameter\.controlMovingParameter\.direction: must be one of FORWARD, BACKWARD, LEFT, RIGHT/,
        "payload.commandParameter.controlMovingParameter.direction",
      ],
      [
        "an unknown field in a spec body",
        {},
        { payload: { serialNumber: SERIAL, remoteTaskCommandType: "PAUSE_TASK", command: "PAUSE_TASK" } },
        /payload\.command: is not a field of the request body/,
        "payload.command",
      ],
      ["an unknown compact field", {}, { payload: { command: "CROSS_NAVIGATE", postion: "charging" } }, /payload\.postion: is not a field of the compact form/, "payload.postion"],
      [
        "a compact field the command does not use",
        {},
        { payload: { command: "CROSS_NAVIGATE", direction: "LEFT" } },
        /payload\.direction: is not used by CROSS_NAVIGATE \(it takes map, position\)/,
        "payload.direction",
      ],
      ["a parameter for a command without any", {}, { payload: { command: "STOP_TASK", map: "Floor 1" } }, /payload\.map: is not used by STOP_TASK \(it takes no parameters\)/, "payload.map"],
      ["both name and taskName", {}, { payload: { command: "START_TASK", name: "a", taskName: "b" } }, /payload\.name: give the task name as taskName or as name, not both/, "payload.name"],
      ["a missing map in the node", { command: "CROSS_NAVIGATE", map: "" }, { payload: 1 }, /^RobotApiError: map: is not set \(CROSS_NAVIGATE needs it\)$/, "map"],
      [
        "a map missing from the msg property the node reads",
        { command: "CROSS_NAVIGATE", map: "place", mapType: "msg" },
        { payload: 1 },
        /map \(msg\.place\): is not set \(CROSS_NAVIGATE needs it\)/,
        "map (msg.place)",
      ],
      ["an empty position in the payload", {}, { payload: { command: "CROSS_NAVIGATE", position: " " } }, /payload\.position: must not be empty/, "payload.position"],
      ["a mistyped loop count", {}, { payload: { command: "START_TASK", loopCount: "three" } }, /payload\.loopCount: must be a number/, "payload.loopCount"],
      ["a negative loop count", {}, { payload: { command: "START_TASK", loopCount: -1 } }, /payload\.loopCount: must be 0 or more/, "payload.loopCount"],
      ["a mistyped loop", {}, { payload: { command: "START_TASK", loop: "yes" } }, /payload\.loop: must be true or false/, "payload.loop"],
      ["a loop count in the node that is not a number", { command: "START_TASK", loopCount: "2.5" }, { payload: 1 }, /loopCount: must be a whole number/, "loopCount"],
      ["an unknown direction", {}, { payload: { command: "REMOTE_CONTROL_MOVE", direction: "up" } }, /payload\.direction: must be one of FORWARD, BACKWARD, LEFT, RIGHT/, "payload.direction"],
      ["an empty serial number", { serialNumber: "" }, { payload: 1 }, /serialNumber: is not set/, "serialNumber"],
      ["an unsafe serial number in msg.serialNumber", {}, { payload: 1, serialNumber: "../../admin" }, /msg\.serialNumber: must be 1-128 letters/, "msg.serialNumber"],
      ["an unsafe serial number in the payload", {}, { payload: { command: "STOP_TASK", serialNumber: "a/b?c" } }, /payload\.serialNumber: must be 1-128/, "payload.serialNumber"],
      ["a serial number that is not text", {}, { payload: 1, serialNumber: 42 }, /msg\.serialNumber: must be a string/, "msg.serialNumber"],
      [
        "a serial number missing from the env variable the node reads",
        { serialNumber: "ROBOT_FLEET_TEST_UNSET", serialNumberType: "env" },
        { payload: 1 },
        /serialNumber \(env\.ROBOT_FLEET_TEST_UNSET\): is not set/,
        "serialNumber (env.ROBOT_FLEET_TEST_UNSET)",
      ],
    ];
    itRefusesEachBadInput("cmd", badInputs, load, stub);

    it("names every missing parameter of a START_TASK node in one error (the dialog marks the same fields)", async () => {
      await load({ command: "START_TASK", cleaningMode: "", taskName: "", map: "" });
      await expectInvalidInput(
        "cmd",
        { payload: 1 },
        /cleaningMode: is not set \(START_TASK needs it\); taskName: is not set \(START_TASK needs it\); map: is not set \(START_TASK needs it\)$/,
        stub.server,
      );
    });

    it("goes on normally after bad input", async () => {
      await load();
      const { caught } = await outcome({ payload: { command: "DANCE" } });
      assert.ok(caught);
      assert.ok((await outcome({ payload: 1 })).output);
      assert.equal(stub.server.requests.length, 1);
    });
  });

  describe("failures", () => {
    const failures: Array<[string, ScriptedReply, string, RegExp]> = [
      [
        "a 400 with an error body",
        { status: 400, body: { code: 3, message: "The map name must not be blank." } },
        "INVALID_ARGUMENT",
        /submitCommand: HTTP 400 INVALID_ARGUMENT: The map name must not be blank\./,
      ],
      ["a 200 with an error body", { status: 200, body: { code: 9, message: "robot is offline" } }, "FAILED_PRECONDITION", /FAILED_PRECONDITION: robot is offline/],
      ["a 500 with a text body", { status: 500, body: "upstream exploded", headers: { "Content-Type": "text/plain" } }, "HTTP_500", /HTTP 500: upstream exploded/],
      ["a non-JSON answer", { status: 200, body: "<html>gateway</html>", headers: { "Content-Type": "text/html" } }, "BAD_RESPONSE", /answer is not JSON/],
      ["an answer that is not a command resource", { status: 200, body: { unexpected: true } }, "BAD_RESPONSE", /unexpected answer: name/],
      ["a dropped connection", { drop: true }, "NETWORK_ERROR", /network error/],
      ["a timeout", { delayMs: 1500 }, "TIMEOUT", /no answer within 0.3 s/],
    ];
    for (const [label, reply, code, expected] of failures) {
      it(`reports ${label} to a Catch node once, then works normally`, async () => {
        stub.server.reply(reply);
        await load({ command: "PAUSE_TASK" }, { timeout: 0.3 });
        const statuses = recordStatuses("cmd");
        const outputs = collectMessages("out");
        const caught = collectMessages("caught");
        helper.getNode("cmd").receive({ payload: "first", topic: "t1" });
        await waitFor(() => caught.length === 1, 5000, "the error");
        const error = caught[0]!.error as { message: string; code: string };
        assert.equal(error.code, code);
        assert.match(error.message, expected);
        assert.equal(caught[0]!.topic, "t1");
        assert.deepEqual(statuses.at(-1), { fill: "red", shape: "ring", text: code });
        helper.getNode("cmd").receive({ payload: "second" });
        await waitFor(() => outputs.length === 1, 5000, "the next output");
        await pause(50);
        assert.equal(caught.length, 1, "one error, no more");
        assert.equal(outputs.length, 1);
        assert.equal((outputs[0]!.payload as { state: string }).state, "WAITING");
        assert.equal(stub.server.requests.length, 2, "the failed command was not sent again");
        assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "PAUSE_TASK: WAITING" });
      });
    }

    it("never shows the token, even when the stub.server echoes it", async () => {
      stub.server.reply({ status: 401, body: { code: 16, message: `token ${TEST_TOKEN} is not valid` } });
      await load({ command: "PAUSE_TASK" });
      const statuses = recordStatuses("cmd");
      const { caught } = await outcome({ payload: 1 });
      const error = caught!.error as { message: string; code: string };
      assert.equal(error.code, "UNAUTHENTICATED");
      assert.match(error.message, /token \*\*\* is not valid/);
      const { output } = await outcome({ payload: 2 });
      assert.ok(output);
      for (const seen of [caught, output, statuses]) assert.ok(!JSON.stringify(seen).includes(TEST_TOKEN));
      assert.equal(stub.server.requests[0]!.headers.authorization, `Bearer ${TEST_TOKEN}`, "the token did go to the server");
    });
  });

  describe("output and status", () => {
    itKeepsTheMessageAndHidesTheToken("cmd", () => load({ command: "START_TASK" }));

    it("emits the cloud's answer with fields the spec does not list, and shows the command's state", async () => {
      await load({ command: "START_TASK" });
      const statuses = recordStatuses("cmd");
      const { output } = await outcome({ payload: 1 });
      const payload = output!.payload as Record<string, unknown>;
      assert.equal(payload.name, `robots/${SERIAL}/commands/0b6f3c1e-9a53-4d3c-8a43-3e0f2e0c5d11`);
      assert.equal(payload.futureField, "kept", "fields the spec does not list pass through");
      assert.deepEqual(statuses, [
        { fill: "blue", shape: "dot", text: "requesting" },
        { fill: "green", shape: "dot", text: "START_TASK: WAITING" },
      ]);
    });

    it("shows the state alone when the answer does not say which command it was", async () => {
      stub.server.reply({ body: { name: `robots/${SERIAL}/commands/1`, state: "WAITING" } });
      await load();
      const statuses = recordStatuses("cmd");
      await outcome({ payload: 1 });
      assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "WAITING" });
    });
  });

  it("answers 300 concurrent messages exactly once each and submits each once", async () => {
    stub.server.respondWith((request) => {
      if (isDirectoryRead(request)) return { body: { robots: [], total: "0" } };
      const body = request.body as { serialNumber: string };
      // Every seventh fails, so errors and outputs are both counted under load.
      return body.serialNumber.endsWith("7") ? { status: 500, body: { code: 13, message: "busy" }, delayMs: 5 } : { ...commandResource(request), delayMs: 5 };
    });
    // Unpaced, so the test is about outcomes, not about waiting out the default 20/s.
    await load({ command: "PAUSE_TASK" }, { rateLimit: 0 });
    const outputs = collectMessages("out");
    const caught = collectMessages("caught");
    const sent = Array.from({ length: 300 }, (_, i) => ({ _msgid: `msg-${i}`, payload: i, serialNumber: `SN-${i}` }));
    for (const msg of sent) helper.getNode("cmd").receive(msg);
    await waitFor(() => outputs.length + caught.length >= 300, 15000, "300 outcomes");
    await pause(100);
    assert.equal(outputs.length + caught.length, 300);
    assert.equal(caught.length, sent.filter((m) => m.serialNumber.endsWith("7")).length);
    assert.ok(caught.every((m) => (m.error as { code: string }).code === "INTERNAL"));
    const submitted = stub.server.requests.filter((request) => !isDirectoryRead(request));
    assert.equal(submitted.length, 300);
    const ids = [...outputs, ...caught].map((m) => m._msgid).sort();
    assert.deepEqual(ids, sent.map((m) => m._msgid).sort(), "every _msgid exactly once");
    const robots = submitted.map((r) => (r.body as { serialNumber: string }).serialNumber).sort();
    assert.deepEqual(robots, sent.map((m) => m.serialNumber).sort(), "each message submitted once");
    // Each output carries the answer to its own message, not another's.
    for (const output of outputs) assert.equal((output.payload as { serialNumber: string }).serialNumber, output.serialNumber);
  });

  it("ends an in-flight command on close: no output, nothing caught, no crash", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      stub.server.reply({ delayMs: 1000 });
      await load({ command: "PAUSE_TASK" });
      const statuses = recordStatuses("cmd");
      const outputs = collectMessages("out");
      const caught = collectMessages("caught");
      // Watch the node itself: after close its flow no longer delivers, so the helpers alone would prove little.
      const cmd = helper.getNode("cmd") as unknown as { send: (...args: unknown[]) => void; error: (...args: unknown[]) => void };
      const sends: unknown[] = [];
      const errors: unknown[] = [];
      const originalSend = cmd.send.bind(cmd);
      const originalError = cmd.error.bind(cmd);
      cmd.send = (...args) => {
        sends.push(args);
        originalSend(...args);
      };
      cmd.error = (...args) => {
        errors.push(String(args[0]));
        originalError(...args);
      };
      helper.getNode("cmd").receive({ payload: 1 });
      await waitFor(() => stub.server.requests.length === 1, 2000, "the request");
      await helper.unload();
      await pause(1200);
      assert.equal(outputs.length, 0);
      assert.equal(caught.length, 0);
      assert.deepEqual(sends, [], "nothing sent after close");
      // robot-input ends the aborted message with done(err) (logged, see the report); nothing else may be reported.
      assert.ok(errors.every((error) => /request aborted/.test(String(error))), JSON.stringify(errors));
      assert.deepEqual(statuses.at(-1), {}, "the status is cleared");
      assert.deepEqual(unhandled, []);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  describe("the example flow", () => {
    const EXAMPLE = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "examples/robot-command.json"), "utf8")) as FlowNode[];
    const running = useSimulator();
    let simulator: RunningSimulator;
    let example: { outputs: Msg[]; caught: Msg[] };
    beforeEach(() => (simulator = running.simulator));

    async function loadExample() {
      await loadExampleFlow(EXAMPLE, [robotCommand, ...CORE_NODES_USED_BY_THE_EXAMPLE], simulator.url, DEMO_TOKEN);
      example = { outputs: collectMessages("command-debug"), caught: collectMessages("command-debug-errors") };
    }

    /** Presses an inject and resolves with the command resource; a caught error fails the test. */
    async function press(injectId: string): Promise<Record<string, unknown>> {
      const outputs = example.outputs.length;
      const caught = example.caught.length;
      helper.getNode(injectId).receive({});
      await waitFor(() => example.outputs.length > outputs || example.caught.length > caught, 5000, injectId);
      assert.equal(example.caught.length, caught, `${injectId}: ${JSON.stringify(example.caught.at(-1)?.error)}`);
      return example.outputs[outputs]!.payload as Record<string, unknown>;
    }

    it("points at the simulator, carries no credentials, and has an inject per command family", () => {
      const config = EXAMPLE.find((node) => node.type === "robot-config")!;
      assert.equal(config.name, "Robot cloud simulator");
      assert.equal(config.baseUrl, "http://127.0.0.1:18080");
      assert.ok(!JSON.stringify(EXAMPLE).includes("credentials"));
      // The comment may tell users the simulator's token; no node may hold it.
      for (const node of EXAMPLE) assert.ok(!Object.values(node).includes(DEMO_TOKEN), String(node.id));
      for (const type of ["inject", "debug", "catch", "robot-command"]) assert.ok(EXAMPLE.some((node) => node.type === type), type);
      const ids = EXAMPLE.map((node) => node.id);
      assert.equal(new Set(ids).size, ids.length);
      for (const node of EXAMPLE.filter((n) => n.type === "inject")) assert.equal(node.once, false, `${node.id} waits to be pressed`);
      for (const node of EXAMPLE.filter((n) => n.type === "robot-command")) assert.equal(node.serialNumber, SERIAL);
    });

    it("drives GS-S-000101 of the simulator through every command family", async () => {
      await loadExample();
      const robot = () => simulator.state.robot(SERIAL)!;

      assert.equal((await press("command-inject-start")).rawCommandType, "start_task");
      assert.equal(robot().taskState, "RUNNING");
      assert.equal(robot().currentTask?.mapName, "Floor 1");
      await press("command-inject-pause");
      assert.equal(robot().taskState, "PAUSED");
      await press("command-inject-resume");
      assert.equal(robot().taskState, "RUNNING");
      await press("command-inject-stop");
      assert.equal(robot().taskState, "IDLE");

      await press("command-inject-kitchen");
      assert.deepEqual(robot().navigation, { state: "ARRIVED", mapName: "Floor 1", position: "Kitchen door" });
      assert.equal((await press("command-inject-stop-navigation")).rawCommandType, "stop_navigate");
      assert.equal(robot().navigation?.state, "STOPPED");
      await press("command-inject-charger");
      assert.deepEqual(robot().navigation, { state: "ARRIVED", mapName: "Floor 1", position: "charging" });

      await press("command-inject-remote-start");
      assert.equal(robot().remoteControl, true);
      const before = { ...robot().localization.position };
      const moved = await press("command-inject-move-forward");
      assert.deepEqual(moved.commandParameter, { controlMovingParameter: { direction: "forward" } });
      assert.notDeepEqual(robot().localization.position, before);
      await press("command-inject-remote-stop");
      assert.equal(robot().remoteControl, false);
      const turned = await press("command-inject-turn-left");
      assert.deepEqual(turned.commandParameter, { controlMovingParameter: { direction: "left" } });
      assert.equal(robot().remoteControl, true, "turn left switched remote control on first");

      // start, pause, resume, stop; Kitchen door, stop navigation, charger; start; start+move; stop; start+move
      assert.equal(simulator.state.commands(SERIAL).length, 13);
      assert.ok(simulator.state.commands(SERIAL).every((command) => command.state === "WAITING"));
      assert.equal(example.caught.length, 0);
    });

    it("works inject by inject on a fresh fleet, as a user presses them", async () => {
      await loadExample();
      const injects = EXAMPLE.filter((node) => node.type === "inject" && node.id !== "command-inject-unknown-map");
      assert.equal(injects.length, 11);
      for (const inject of injects) {
        simulator.reset();
        const resource = await press(inject.id);
        assert.equal(resource.state, "WAITING", inject.id);
      }
    });

    it("shows the cloud's error for an unknown map on the Catch node's debug", async () => {
      await loadExample();
      helper.getNode("command-inject-unknown-map").receive({});
      await waitFor(() => example.caught.length === 1, 5000, "the error");
      const caught = example.caught[0]!.error as { code: string; message: string; source: { id: string } };
      assert.equal(caught.code, "INVALID_ARGUMENT");
      assert.match(caught.message, /Floor 9/);
      assert.equal(caught.source.id, "command-from-message");
      assert.equal(simulator.state.commands(SERIAL).length, 0);
    });
  });
});
