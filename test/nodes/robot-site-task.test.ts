/**
 * robot-site-task through real Node-RED against a recording server: the exact
 * request of each operation (B1-B4) and its parsed answer, msg.operation,
 * serial-number precedence, the B3/B4 bodies from msg.payload and from the
 * dialog, B4's string coercion and rejection, bad input (nothing sent), and
 * status texts.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import robotMaps from "../../src/nodes/robot-maps/robot-maps";
import robotSiteTask from "../../src/nodes/robot-site-task/robot-site-task";
import { DIALOG_FIELDS_OF } from "../../src/nodes/robot-site-task/table";
import type { RecordedRequest, ScriptedReply } from "../support/recording-server";
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
  useRecordingServerAndNodeRed,
  outcomeOf,
  expectInvalidInput,
  itRefusesEachBadInput,
  itKeepsTheMessageAndHidesTheToken,
  type BadInput,
  coreNodes,
  loadExampleFlow,
} from "../support/node-red";
import { TEMP_SITE_TASK_BODY as DIALOG_B3_BODY, TEMP_TASK_BODY as DIALOG_B4_BODY, SERIAL, MAP_ID, SITE_ID, robotSiteTaskNode } from "../support/fixtures";
import { PACKAGE_ROOT } from "../support/child-node";
import { CONFIRM_POLL_INTERVAL_MS, POLL_SETTINGS } from "../../src/api/watching/confirmation-poller";

const CORE_NODES_USED_BY_THE_EXAMPLE = coreNodes("inject", "comment", "function");


const STATUS_ANSWER = {
  serialNumber: SERIAL,
  taskState: "RUNNING",
  online: true,
  speedKilometerPerHour: 1.2,
  battery: { charging: false, powerPercentage: 87 },
  localizationInfo: { localizationState: "NORMAL", map: { id: MAP_ID, name: "Floor 1", version: 3 } },
  firmwareOnlyField: { nested: ["kept"] },
};
const SITE_ANSWER = {
  siteId: SITE_ID,
  siteName: "Headquarters",
  buildings: [{ name: "Main", floors: [{ index: 0, name: "Floor 1", mapId: MAP_ID }] }],
  unknownField: 7,
};
const TEMP_SITE_TASK_ANSWER = { taskId: "task-42", state: "CREATED", extra: { kept: true } };
const TEMP_TASK_ACCEPTED = {
  productId: SERIAL,
  requestId: "req-1",
  orderType: "start_task",
  cmdStatus: 5,
  cmdResultCode: "6880",
  newField: "kept",
};

const PATHS = {
  status: (serial: string) => `/openapi/v2alpha1/s/robots/${serial}/status`,
  siteInfo: (serial: string) => `/openapi/v2alpha1/robots/${serial}/getSiteInfo`,
  createTempTask: "/openapi/v2/robot/tasks/temp/withSite",
  sendTempTask: "/v2alpha1/robotCommand/tempTask:send",
};

/** The cloud's answer for each path. */
function answerFor(request: RecordedRequest): ScriptedReply {
  if (request.path.endsWith("/status")) return { body: STATUS_ANSWER };
  if (request.path.endsWith("/getSiteInfo")) return { body: SITE_ANSWER };
  if (request.path === PATHS.createTempTask) return { body: TEMP_SITE_TASK_ANSWER };
  if (request.path === PATHS.sendTempTask) return { body: TEMP_TASK_ACCEPTED };
  return { status: 404, body: { code: 5, message: "no such path" } };
}

describe("robot-site-task", function () {
  const stub = useRecordingServerAndNodeRed(answerFor);

  async function load(settings: Record<string, unknown> = {}, config: Record<string, unknown> = {}) {
    await loadFlow([robotSiteTask], flowWith(stub.server.url, [robotSiteTaskNode("site", settings), ...outputsAndCatch("site")], config));
  }

  const outcome = (msg: Record<string, unknown>) => outcomeOf("site", msg);

  function assertAuthenticatedJson(request: RecordedRequest) {
    assert.equal(request.headers.authorization, `Bearer ${TEST_TOKEN}`);
    assert.equal(request.headers["content-type"], "application/json");
  }

  describe("status and siteInfo", () => {
    it("status: GETs B1 without a body and emits the whole answer", async () => {
      await load({ operation: "status" });
      const statuses = recordStatuses("site");
      const { output } = await outcome({ payload: "tick", topic: "poll" });
      assert.ok(output, "an output");
      assert.equal(stub.server.requests.length, 1);
      const request = stub.server.requests[0]!;
      assert.equal(request.method, "GET");
      assert.equal(request.path, PATHS.status(SERIAL));
      assert.equal(request.rawBody, "");
      assertAuthenticatedJson(request);
      assert.deepEqual(output.payload, STATUS_ANSWER);
      assert.equal(output.topic, "poll");
      assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "RUNNING 87%" });
    });

    it("siteInfo: GETs B2 without a body, emits the whole answer and shows the site's name", async () => {
      await load({ operation: "siteInfo" });
      const statuses = recordStatuses("site");
      const { output } = await outcome({ payload: 1 });
      assert.ok(output);
      const request = stub.server.requests[0]!;
      assert.equal(request.method, "GET");
      assert.equal(request.path, PATHS.siteInfo(SERIAL));
      assert.equal(request.rawBody, "");
      assertAuthenticatedJson(request);
      assert.deepEqual(output.payload, SITE_ANSWER);
      assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "Headquarters" });
    });

    it("siteInfo for a robot on no site reaches the Catch node with the cloud's code and text", async () => {
      stub.server.reply({ status: 404, body: { code: 5, message: "The robot is not on a site." } });
      await load({ operation: "siteInfo", serialNumber: "GS-S-000201" });
      const statuses = recordStatuses("site");
      const { caught, output } = await outcome({ payload: 1, topic: "site?" });
      assert.equal(output, undefined);
      const error = caught!.error as { message: string; code: string };
      assert.equal(error.code, "NOT_FOUND");
      assert.match(error.message, /NOT_FOUND: The robot is not on a site\./);
      assert.equal(caught!.topic, "site?");
      assert.equal(stub.server.requests[0]!.path, PATHS.siteInfo("GS-S-000201"));
      assert.deepEqual(statuses.at(-1), { fill: "red", shape: "ring", text: "NOT_FOUND" });
      assert.ok(!JSON.stringify(caught).includes(TEST_TOKEN));
    });

    it("shows the task state alone when the answer has no battery, and offline when it has no state", async () => {
      stub.server.reply({ body: { serialNumber: SERIAL, taskState: "IDLE" } }, { body: { serialNumber: SERIAL, online: false } });
      await load({ operation: "status" });
      const statuses = recordStatuses("site");
      await outcome({ payload: 1 });
      assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "IDLE" });
      await outcome({ payload: 2 });
      assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "offline" });
    });

    it("takes the serial number from msg.payload.serialNumber, then msg.serialNumber, then the node", async () => {
      await load({ operation: "status" });
      await outcome({ payload: { serialNumber: "FROM-PAYLOAD" }, serialNumber: "FROM-MSG" });
      await outcome({ payload: "x", serialNumber: "FROM-MSG" });
      await outcome({ payload: { other: 1 } });
      assert.deepEqual(
        stub.server.requests.map((r) => r.path),
        [PATHS.status("FROM-PAYLOAD"), PATHS.status("FROM-MSG"), PATHS.status(SERIAL)],
      );
    });

    it("evaluates the node's serial number from msg, flow and env", async () => {
      process.env.ROBOT_FLEET_SITE_TEST_SERIAL = "FROM-ENV";
      try {
        await load({ operation: "status", serialNumber: "robot.sn", serialNumberType: "msg" });
        await outcome({ payload: 1, robot: { sn: "FROM-MSG-PATH" } });
        await helper.unload();
        await load({ operation: "status", serialNumber: "robotSerial", serialNumberType: "flow" });
        helper.getNode("site").context().flow.set("robotSerial", "FROM-FLOW");
        await outcome({ payload: 1 });
        await helper.unload();
        await load({ operation: "status", serialNumber: "ROBOT_FLEET_SITE_TEST_SERIAL", serialNumberType: "env" });
        await outcome({ payload: 1 });
      } finally {
        delete process.env.ROBOT_FLEET_SITE_TEST_SERIAL;
      }
      assert.deepEqual(
        stub.server.requests.map((r) => r.path),
        [PATHS.status("FROM-MSG-PATH"), PATHS.status("FROM-FLOW"), PATHS.status("FROM-ENV")],
      );
    });
  });

  describe("msg.operation", () => {
    it("overrides the node's operation and stays on the message", async () => {
      await load({ operation: "status" });
      const { output } = await outcome({ payload: 1, operation: "siteInfo" });
      assert.equal(stub.server.requests[0]!.path, PATHS.siteInfo(SERIAL));
      assert.equal(output!.operation, "siteInfo");
      assert.deepEqual(output!.payload, SITE_ANSWER);
      const second = await outcome({ payload: 1, operation: "sendTempTask" });
      assert.ok(second.output);
      assert.equal(stub.server.requests[1]!.path, PATHS.sendTempTask);
      assert.deepEqual(stub.server.requests[1]!.body, DIALOG_B4_BODY);
      const third = await outcome({ payload: 1, operation: "" });
      assert.ok(third.output, "an empty msg.operation counts as not set");
      assert.equal(stub.server.requests[2]!.path, PATHS.status(SERIAL));
    });
  });

  describe("createTempTask (B3)", () => {
    const B3_BODY = {
      cleaningMode: "清扫",
      loopCount: 2,
      siteId: SITE_ID,
      siteName: "Headquarters",
      taskName: "Two floors",
      floors: [
        { index: 0, name: "Floor 1", mapId: MAP_ID, area: { id: "1", name: "Lobby" } },
        { index: 1, name: "Floor 2", mapId: "map-2", area: { id: "4", name: "Canteen" } },
      ],
      tasks: [
        { mapId: MAP_ID, subTasks: [{ mapId: MAP_ID, areaId: "1" }] },
        { mapId: "map-2", subTasks: [{ mapId: "map-2", areaId: "4" }] },
      ],
      serialNumber: "GS-S-000102",
    };

    it("POSTs the spec's body from msg.payload unchanged and emits the answer", async () => {
      await load({ operation: "createTempTask" });
      const statuses = recordStatuses("site");
      const { output } = await outcome({ payload: B3_BODY, topic: "b3" });
      assert.ok(output);
      assert.equal(stub.server.requests.length, 1);
      const request = stub.server.requests[0]!;
      assert.equal(request.method, "POST");
      assert.equal(request.path, PATHS.createTempTask);
      assertAuthenticatedJson(request);
      assert.deepEqual(JSON.parse(request.rawBody), B3_BODY);
      assert.deepEqual(output.payload, TEMP_SITE_TASK_ANSWER);
      assert.equal(output.topic, "b3");
      assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "task sent" });
    });

    it("fills a missing serialNumber from msg.serialNumber, else the node", async () => {
      await load({ operation: "createTempTask" });
      const withoutSerial: Record<string, unknown> = { ...B3_BODY };
      delete withoutSerial.serialNumber;
      await outcome({ payload: withoutSerial, serialNumber: "FROM-MSG" });
      await outcome({ payload: withoutSerial });
      await outcome({ payload: B3_BODY, serialNumber: "FROM-MSG" });
      assert.deepEqual(
        stub.server.requests.map((r) => (r.body as { serialNumber: string }).serialNumber),
        ["FROM-MSG", SERIAL, "GS-S-000102"],
      );
    });

    it("accepts numeric area ids in the body and sends them as strings", async () => {
      await load({ operation: "createTempTask" });
      const body = structuredClone(B3_BODY) as unknown as { floors: Array<{ area: { id: unknown } }>; tasks: Array<{ subTasks: Array<{ areaId: unknown }> }> };
      body.floors[0]!.area.id = 1;
      body.tasks[0]!.subTasks[0]!.areaId = 1;
      await outcome({ payload: body });
      const sent = stub.server.requests[0]!.body as typeof body;
      assert.equal(sent.floors[0]!.area.id, "1");
      assert.equal(sent.tasks[0]!.subTasks[0]!.areaId, "1");
    });

    it("builds the body from the dialog's fields when msg.payload is not a B3 body", async () => {
      await load({ operation: "createTempTask" });
      for (const payload of [undefined, 1700000000000, "go", { temperature: 21 }, [1, 2], { serialNumber: SERIAL }]) {
        const { output } = await outcome({ payload });
        assert.ok(output, `an output for ${JSON.stringify(payload)}`);
      }
      assert.equal(stub.server.requests.length, 6);
      for (const request of stub.server.requests) {
        assert.equal(request.path, PATHS.createTempTask);
        assert.deepEqual(request.body, DIALOG_B3_BODY);
      }
    });

    it("builds the body from fields that come from the message (a robot maps answer)", async () => {
      await load({
        operation: "createTempTask",
        mapId: "payload.mapId",
        mapIdType: "msg",
        areaId: "payload.subareas.partitions[0].id",
        areaIdType: "msg",
        areaName: "payload.subareas.partitions[0].name",
        areaNameType: "msg",
        floorIndex: 2,
        loopCount: "3",
      });
      const subareas = { mapId: "map-from-msg", subareas: { partitions: [{ id: 7, name: "Corridor" }] } };
      await outcome({ payload: subareas, serialNumber: "GS-S-000103" });
      assert.deepEqual(stub.server.requests[0]!.body, {
        ...DIALOG_B3_BODY,
        loopCount: 3,
        floors: [{ index: 2, name: "Floor 1", mapId: "map-from-msg", area: { id: "7", name: "Corridor" } }],
        tasks: [{ mapId: "map-from-msg", subTasks: [{ mapId: "map-from-msg", areaId: "7" }] }],
        serialNumber: "GS-S-000103",
      });
    });
  });

  describe("sendTempTask (B4)", () => {
    it("POSTs the spec's body, coercing loop, loopCount and areaId to strings and filling productId", async () => {
      await load({ operation: "sendTempTask" });
      const statuses = recordStatuses("site");
      const payload = {
        tempTaskCommand: {
          taskName: "Spill",
          cleaningMode: "清扫",
          loop: true,
          loopCount: 2,
          mapName: "Floor 1",
          startParam: { mapId: MAP_ID, areaId: 3 },
        },
      };
      const { output } = await outcome({ payload, serialNumber: "GS-S-000104" });
      assert.ok(output);
      const request = stub.server.requests[0]!;
      assert.equal(request.method, "POST");
      assert.equal(request.path, PATHS.sendTempTask);
      assertAuthenticatedJson(request);
      assert.deepEqual(JSON.parse(request.rawBody), {
        productId: "GS-S-000104",
        tempTaskCommand: {
          taskName: "Spill",
          cleaningMode: "清扫",
          loop: "true",
          loopCount: "2",
          mapName: "Floor 1",
          startParam: { mapId: MAP_ID, areaId: "3" },
        },
      });
      assert.deepEqual(output.payload, TEMP_TASK_ACCEPTED);
      assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "task sent" });
    });

    it("keeps a body's own productId and string values as they are", async () => {
      await load({ operation: "sendTempTask" });
      const body = {
        productId: "GS-S-000105",
        tempTaskCommand: {
          taskName: "Night",
          cleaningMode: "清扫",
          loop: "false",
          loopCount: "1",
          mapName: "Floor 1",
          startParam: { mapId: MAP_ID, areaId: "2" },
        },
      };
      await outcome({ payload: body, serialNumber: "FROM-MSG" });
      assert.deepEqual(JSON.parse(stub.server.requests[0]!.rawBody), body);
    });

    it("builds the body from the dialog's fields when msg.payload is not a B4 body", async () => {
      await load({ operation: "sendTempTask" });
      await outcome({ payload: "go" });
      await outcome({ payload: { serialNumber: "FROM-PAYLOAD" } });
      await helper.unload();
      await load({ operation: "sendTempTask", loop: true, loopCount: 4, areaId: "12" });
      await outcome({ payload: 0, serialNumber: "FROM-MSG" });
      assert.deepEqual(
        stub.server.requests.map((r) => r.body),
        [
          DIALOG_B4_BODY,
          { ...DIALOG_B4_BODY, productId: "FROM-PAYLOAD" },
          {
            productId: "FROM-MSG",
            tempTaskCommand: { ...DIALOG_B4_BODY.tempTaskCommand, loop: "true", loopCount: "4", startParam: { mapId: MAP_ID, areaId: "12" } },
          },
        ],
      );
    });

    it("reports a task the robot rejected (cmdStatus 7) with its cmdResultCode, once, without retrying", async () => {
      stub.server.reply({ body: { productId: SERIAL, requestId: "req-9", orderType: "start_task", cmdStatus: 7, cmdResultCode: "2010100009" } });
      await load({ operation: "sendTempTask" });
      const statuses = recordStatuses("site");
      const outputs = collectMessages("out");
      const caught = collectMessages("caught");
      helper.getNode("site").receive({ payload: "go", topic: "spill" });
      await waitFor(() => caught.length === 1, 5000, "the rejection");
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(outputs.length, 0);
      assert.equal(caught.length, 1);
      const error = caught[0]!.error as { message: string; code: string };
      assert.equal(error.code, "COMMAND_REJECTED");
      // Node-RED writes an error's name before its message on msg.error.message.
      assert.equal(
        error.message,
        "RobotApiError: sendTempTask: robot rejected the temporary task (cmdResultCode 2010100009: the task parameters were rejected (most often a wrong areaId, or a cleaning mode the robot does not support))",
      );
      assert.equal((caught[0]!.error as { cause: { resultCode: string } }).cause.resultCode, "2010100009", "the code stays for a flow to switch on");
      assert.equal(caught[0]!.topic, "spill");
      assert.equal(stub.server.requests.length, 1, "a rejected task is not sent again");
      assert.deepEqual(statuses.at(-1), { fill: "red", shape: "ring", text: "COMMAND_REJECTED" });
      assert.ok(!JSON.stringify(caught).includes(TEST_TOKEN));
    });
  });

  describe("sendTempTask answered cmdStatus 6: delivered, not started yet", () => {
    /** S-line status polls answered IDLE before the robot shows the task running. */
    const IDLE_POLLS = 5;
    const statusOfPoll = (poll: number) =>
      poll <= IDLE_POLLS
        ? { ...STATUS_ANSWER, taskState: "IDLE" }
        : { ...STATUS_ANSWER, taskState: "RUNNING", currentTask: { name: DIALOG_B4_BODY.tempTaskCommand.taskName } };
    const isStatusPoll = (request: RecordedRequest) => request.path.startsWith("/openapi/v2alpha1/s/robots/*/status:batchGet");

    before(() => {
      POLL_SETTINGS.intervalMs = 100;
    });
    after(() => {
      POLL_SETTINGS.intervalMs = CONFIRM_POLL_INTERVAL_MS;
    });

    /**
     * Sends B4 with "the robot shows it", answered with `cmdStatus`: the
     * status under the node while it waited (read when the robot is about to
     * show the task, past the status view's 250 ms redraw), every status it
     * showed, and how the message ended.
     */
    async function sendAnswered(cmdStatus: number | string) {
      let underNodeWhileWaiting: string | undefined;
      let polls = 0;
      await load({ operation: "sendTempTask", sendWhen: "shown", bodyFrom: "payload" });
      const statuses = recordStatuses("site");
      stub.server.respondWith((request) => {
        if (request.path === PATHS.sendTempTask) {
          return { body: { productId: SERIAL, requestId: "req-6", orderType: "start_task", cmdStatus, cmdResultCode: cmdStatus === 7 ? "2010100012" : "6880" } };
        }
        if (isStatusPoll(request)) {
          polls++;
          // Every poll so far showed the robot idle: what the node shows now is what it showed while waiting.
          if (polls === IDLE_POLLS + 1) underNodeWhileWaiting = statuses.at(-1)?.text;
          return { body: { robotStatus: [statusOfPoll(polls)] } };
        }
        return { status: 404, body: { code: 5, message: "no such path" } };
      });
      const ended = await outcome({ payload: DIALOG_B4_BODY });
      return { ...ended, statuses, underNodeWhileWaiting, polls: () => polls };
    }

    for (const cmdStatus of [6, "6"]) {
      it(`shows "delivered, not started yet" while it waits, then ends confirmed (cmdStatus ${JSON.stringify(cmdStatus)}, 6880)`, async () => {
        const { output, caught, statuses, underNodeWhileWaiting, polls } = await sendAnswered(cmdStatus);
        assert.equal(caught, undefined, JSON.stringify(caught?.error));
        assert.ok(polls() > IDLE_POLLS, `the task showed at poll ${polls()}`);
        assert.equal(underNodeWhileWaiting, "delivered, not started yet");
        assert.ok(
          statuses.some((status) => status.text === "delivered, not started yet" && status.fill === "blue" && status.shape === "ring"),
          JSON.stringify(statuses),
        );
        assert.ok(!statuses.some((status) => status.text === "waiting for robot"), JSON.stringify(statuses));
        assert.equal((output?.payload as { cmdStatus: unknown }).cmdStatus, cmdStatus);
        assert.equal((output?.confirmation as { state: string }).state, "RUNNING");
        assert.equal(statuses.at(-1)?.fill, "green");
        assert.match(statuses.at(-1)?.text ?? "", /^task RUNNING \(\d+ s\)$/);
        assert.equal(stub.server.requests.filter((request) => request.path === PATHS.sendTempTask).length, 1, "sent once");
      });
    }

    it('cmdStatus 5 (accepted) waits as "waiting for robot"', async () => {
      const { output, caught, statuses, underNodeWhileWaiting } = await sendAnswered(5);
      assert.equal(caught, undefined, JSON.stringify(caught?.error));
      assert.equal(underNodeWhileWaiting, "waiting for robot");
      assert.ok(!statuses.some((status) => status.text === "delivered, not started yet"), JSON.stringify(statuses));
      assert.equal((output?.confirmation as { state: string }).state, "RUNNING");
    });

    it("cmdStatus 7 stays a refusal: no wait, nothing about delivery", async () => {
      const { output, caught, statuses, polls } = await sendAnswered(7);
      assert.equal(output, undefined);
      assert.equal((caught?.error as { code: string }).code, "COMMAND_REJECTED");
      assert.equal(polls(), 0, "a refused task is not waited for");
      assert.ok(!statuses.some((status) => status.text === "delivered, not started yet"), JSON.stringify(statuses));
      assert.deepEqual(statuses.at(-1), { fill: "red", shape: "ring", text: "COMMAND_REJECTED" });
    });

    it("has the text in English and in Chinese", () => {
      const catalogue = (lang: string) =>
        (JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "nodes", "locales", lang, "robot-fleet.json"), "utf8")) as Record<string, { status: Record<string, string> }>)[
          "robot-fleet"
        ]!.status;
      assert.equal(catalogue("en-US").deliveredNotStarted, "delivered, not started yet");
      assert.equal(catalogue("zh-CN").deliveredNotStarted, "已送达，尚未开始");
      assert.match(catalogue("zh-CN").deliveredNotStartedCount!, /^已送达，尚未开始（__count__）$/);
    });
  });

  const badInputs: BadInput[] = [
    [
      "a B3 floor without an area id",
      { operation: "createTempTask" },
      {
        payload: {
          ...DIALOG_B3_BODY,
          floors: [{ index: 0, name: "Floor 1", mapId: MAP_ID, area: { name: "Lobby" } }],
        },
      },
      /floors\.0\.area\.id: must be a string or a whole number/,
    ],
    [
      "a B3 sub-task with a boolean area id",
      { operation: "createTempTask" },
      { payload: { ...DIALOG_B3_BODY, tasks: [{ mapId: MAP_ID, subTasks: [{ mapId: MAP_ID, areaId: true }] }] } },
      /tasks\.0\.subTasks\.0\.areaId/,
    ],
    ["a B3 body without floors", { operation: "createTempTask" }, { payload: { ...DIALOG_B3_BODY, floors: [] } }, /floors: must list at least one floor/],
    ["a B3 body with a misspelt field", { operation: "createTempTask" }, { payload: { ...DIALOG_B3_BODY, flors: [] } }, /flors/],
    [
      "a B4 loop value that is not a boolean",
      { operation: "sendTempTask" },
      { payload: { tempTaskCommand: { ...DIALOG_B4_BODY.tempTaskCommand, loop: "yes" } } },
      /tempTaskCommand\.loop: must be true, false/,
    ],
    [
      "a B4 loop count that is not a whole number",
      { operation: "sendTempTask" },
      { payload: { tempTaskCommand: { ...DIALOG_B4_BODY.tempTaskCommand, loopCount: 1.5 } } },
      /tempTaskCommand\.loopCount/,
    ],
    ["a dialog field left empty (createTempTask)", { operation: "createTempTask", mapId: "" }, { payload: 1 }, /mapId: is required for createTempTask/],
    ["a dialog field left empty (sendTempTask)", { operation: "sendTempTask", mapName: "" }, { payload: 1 }, /mapName: is required for sendTempTask/],
    ["a dialog loop count that is not a number", { operation: "sendTempTask", loopCount: "twice" }, { payload: 1 }, /loopCount: must be a whole number/],
    ["no serial number anywhere", { serialNumber: "" }, { payload: 1 }, /serialNumber: is not set/],
    ["an empty msg.serialNumber", {}, { payload: 1, serialNumber: "" }, /serialNumber: is not set/],
    ["an unsafe serial number", {}, { payload: { serialNumber: "../../admin" } }, /serialNumber: must be 1-128/],
    ["an unsafe productId", { operation: "sendTempTask" }, { payload: { ...DIALOG_B4_BODY, productId: "a/b" } }, /productId: must be 1-128/],
    ["an unknown msg.operation", {}, { payload: 1, operation: "reboot" }, /msg\.operation: must be one of status, siteInfo, createTempTask, sendTempTask/],
    ["an unknown operation in the node", { operation: "reboot" }, { payload: 1 }, /^RobotApiError: operation: must be one of/],
  ];
  itRefusesEachBadInput("site", badInputs, load, stub);
  itKeepsTheMessageAndHidesTheToken("site", () => load({ operation: "status" }));

  it("names every missing dialog field of a temporary task in one error, not one per message", async () => {
    await load({ operation: "sendTempTask", taskName: "", cleaningMode: "", mapName: "", mapId: "", areaId: "" });
    await expectInvalidInput("site", { payload: 1 }, /taskName: are required \(taskName, cleaningMode, mapName, mapId, areaId\) for sendTempTask/, stub.server);
  });

  it("reads the cleaning mode from the message like any other text field (it was plain text before 0.2)", async () => {
    await load({ operation: "sendTempTask", cleaningMode: "mode", cleaningModeType: "msg" });
    const { output } = await outcome({ payload: 1, mode: "尘推" });
    assert.ok(output);
    assert.equal((JSON.parse(stub.server.requests[0]!.rawBody) as { tempTaskCommand: { cleaningMode: string } }).tempTaskCommand.cleaningMode, "尘推");
  });

  it('sends loop "false" for a node whose loop is the text "false" (Boolean("false") would be true)', async () => {
    await load({ operation: "sendTempTask", loop: "false" });
    await outcome({ payload: 1 });
    assert.equal((JSON.parse(stub.server.requests[0]!.rawBody) as { tempTaskCommand: { loop: string } }).tempTaskCommand.loop, "false");
  });

  it("every field that builds a body has its dialog row", () => {
    const html = fs.readFileSync(path.join(PACKAGE_ROOT, "nodes/robot-site-task.html"), "utf8");
    // The plugin draws each row named in data-robot-fleet-rows as form-row robot-site-task-row-<field>.
    const rows = [...html.matchAll(/data-robot-fleet-rows="([^"]+)"/g)].flatMap((match) => match[1]!.split(/\s+/).map((entry) => entry.split(":")[0]));
    for (const field of new Set(Object.values(DIALOG_FIELDS_OF).flat())) assert.ok(rows.includes(field), `the dialog has ${field}`);
  });

  describe("the example flow", () => {
    const EXAMPLE = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "examples/robot-site-task.json"), "utf8")) as FlowNode[];

    /** A plausible cloud: GS-S-000101 is on a site with one map of two areas; GS-S-000201 is on no site. */
    function exampleCloud(request: RecordedRequest): ScriptedReply {
      if (request.path === PATHS.siteInfo("GS-S-000201")) return { status: 404, body: { code: 5, message: "The robot is not on a site." } };
      if (request.path === "/openapi/v1/map/robotMap/list") return { body: { code: 0, msg: "SUCCESS", data: [{ mapId: MAP_ID, mapName: "Floor 1" }] } };
      if (request.path === "/openapi/v1/map/subareas/get") {
        return { body: { code: 0, msg: "SUCCESS", data: { mapId: MAP_ID, subareas: { partitions: [{ id: 3, name: "Lobby" }, { id: 4, name: "Hall" }] } } } };
      }
      return answerFor(request);
    }

    async function loadExample() {
      stub.server.respondWith(exampleCloud);
      await loadExampleFlow(EXAMPLE, [robotSiteTask, robotMaps, ...CORE_NODES_USED_BY_THE_EXAMPLE], stub.server.url, TEST_TOKEN);
    }

    it("points at the simulator, carries no credentials and has an inject per operation", () => {
      const config = EXAMPLE.find((node) => node.type === "robot-config")!;
      assert.equal(config.name, "Robot cloud simulator");
      assert.equal(config.baseUrl, "http://127.0.0.1:18080");
      assert.ok(!JSON.stringify(EXAMPLE).includes("credentials"));
      const operations = new Set(EXAMPLE.filter((node) => node.type === "robot-site-task").map((node) => node.operation));
      assert.deepEqual([...operations].sort(), ["createTempTask", "sendTempTask", "siteInfo", "status"]);
      assert.ok(EXAMPLE.some((node) => node.type === "catch"), "a catch node");
    });

    it("reads status and site info, and catches the site info of a robot on no site", async () => {
      await loadExample();
      const status = nextMessage("sitetask-debug-status");
      helper.getNode("sitetask-inject-status").receive({});
      assert.deepEqual((await status).payload, STATUS_ANSWER);
      const site = nextMessage("sitetask-debug-site");
      helper.getNode("sitetask-inject-site").receive({});
      assert.deepEqual((await site).payload, SITE_ANSWER);
      const error = nextMessage("sitetask-debug-errors");
      helper.getNode("sitetask-inject-nosite").receive({});
      assert.equal(((await error).error as { code: string }).code, "NOT_FOUND");
      assert.equal(stub.server.requests.at(-1)!.path, PATHS.siteInfo("GS-S-000201"));
    });

    it("sends a temporary task for the first area of the first map", async () => {
      await loadExample();
      const sent = nextMessage("sitetask-debug-b4");
      helper.getNode("sitetask-inject-b4").receive({});
      assert.deepEqual((await sent).payload, TEMP_TASK_ACCEPTED);
      assert.deepEqual(stub.server.requests.at(-1)!.body, {
        productId: SERIAL,
        tempTaskCommand: {
          taskName: "Clean Lobby",
          cleaningMode: "清扫",
          loop: "false",
          loopCount: "1",
          mapName: "Floor 1",
          startParam: { mapId: MAP_ID, areaId: "3" },
        },
      });
    });

    it("creates a site task from the site, the first map and its first area", async () => {
      await loadExample();
      const created = nextMessage("sitetask-debug-b3");
      helper.getNode("sitetask-inject-b3").receive({});
      assert.deepEqual((await created).payload, TEMP_SITE_TASK_ANSWER);
      assert.deepEqual(stub.server.requests.at(-1)!.body, {
        cleaningMode: "清扫",
        loopCount: 1,
        siteId: SITE_ID,
        siteName: "Headquarters",
        taskName: "Temporary site task",
        floors: [{ index: 0, name: "Floor 1", mapId: MAP_ID, area: { id: "3", name: "Lobby" } }],
        tasks: [{ mapId: MAP_ID, subTasks: [{ mapId: MAP_ID, areaId: "3" }] }],
        serialNumber: SERIAL,
      });
    });
  });
});
