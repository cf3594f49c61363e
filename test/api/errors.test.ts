/**
 * Each kind of RobotApiError, provoked through a real HTTP server on loopback:
 * invalid_input (no request sent), http, envelope, timeout, network,
 * bad_response and aborted.
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import type { RobotOperationName } from "../../src/api/cloud/endpoints";
import { RobotApiError } from "../../src/api/errors";

// The encoding Node-RED applies to what reaches the debug sidebar.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeRedUtil = (require("@node-red/util") as { util: { encodeObject(message: object): unknown } }).util;
import { RecordingServer } from "../support/recording-server";
import { failureOf } from "../support/failures";
import { SERIAL as SN, MAP_ID, TEMP_SITE_TASK_BODY as SITE_TASK, TEMP_TASK_BODY as TEMP_TASK, COMMAND_BODIES } from "../support/fixtures";

const START_TASK = COMMAND_BODIES.START_TASK;
import { useClientOnRecordingServer } from "../support/client-on-server";

const TOKEN = "tok-errors-5d21";

async function waitUntil(predicate: () => boolean, ms = 5000): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > ms) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}

interface BadInput {
  name: string;
  operation: RobotOperationName;
  input: unknown;
  field: string;
}

const withSerial = (serial: string): BadInput[] => [
  {
    name: `command to serial ${JSON.stringify(serial)}`,
    operation: "submitCommand",
    input: { serialNumber: serial, remoteTaskCommandType: "PAUSE_TASK" },
    field: "serialNumber",
  },
  {
    name: `status of serial ${JSON.stringify(serial)}`,
    operation: "getRobotStatus",
    input: { serialNumber: serial },
    field: "serialNumber",
  },
  {
    name: `site info of serial ${JSON.stringify(serial)}`,
    operation: "getSiteInfo",
    input: { serialNumber: serial },
    field: "serialNumber",
  },
  {
    name: `site task for serial ${JSON.stringify(serial)}`,
    operation: "createTempSiteTask",
    input: { ...SITE_TASK, serialNumber: serial },
    field: "serialNumber",
  },
  {
    name: `temp task for product ${JSON.stringify(serial)}`,
    operation: "sendTempTask",
    input: { ...TEMP_TASK, productId: serial },
    field: "productId",
  },
  {
    name: `sub-areas for robot ${JSON.stringify(serial)}`,
    operation: "getSubareas",
    input: { mapId: MAP_ID, robotSn: serial },
    field: "robotSn",
  },
  { name: `maps of robot ${JSON.stringify(serial)}`, operation: "listMaps", input: { robotSn: serial }, field: "robotSn" },
];

const BAD_INPUTS: BadInput[] = [
  {
    name: "unknown command",
    operation: "submitCommand",
    input: { serialNumber: SN, remoteTaskCommandType: "DANCE" },
    field: "remoteTaskCommandType",
  },
  {
    name: "a task command in the navigation family",
    operation: "submitCommand",
    input: { serialNumber: SN, remoteNavigationCommandType: "PAUSE_TASK" },
    field: "remoteNavigationCommandType",
  },
  {
    name: "two families at once",
    operation: "submitCommand",
    input: { serialNumber: SN, remoteTaskCommandType: "PAUSE_TASK", remoteControlCommandType: "REMOTE_CONTROL_STOP" },
    field: "remoteControlCommandType",
  },
  { name: "no command at all", operation: "submitCommand", input: { serialNumber: SN }, field: "input" },
  {
    name: "START_TASK without its parameter",
    operation: "submitCommand",
    input: { serialNumber: SN, remoteTaskCommandType: "START_TASK" },
    field: "commandParameter.startTaskParameter",
  },
  {
    name: "CROSS_NAVIGATE with the moving parameter instead of the navigation one",
    operation: "submitCommand",
    input: {
      serialNumber: SN,
      remoteNavigationCommandType: "CROSS_NAVIGATE",
      commandParameter: { controlMovingParameter: { direction: "FORWARD" } },
    },
    field: "commandParameter.startNavigationParameter",
  },
  {
    name: "PAUSE_TASK with a start-task parameter",
    operation: "submitCommand",
    input: { ...START_TASK, remoteTaskCommandType: "PAUSE_TASK" },
    field: "commandParameter.startTaskParameter",
  },
  {
    name: "REMOTE_CONTROL_STOP with an empty commandParameter",
    operation: "submitCommand",
    input: { serialNumber: SN, remoteControlCommandType: "REMOTE_CONTROL_STOP", commandParameter: {} },
    field: "commandParameter",
  },
  {
    name: "loop as a string in START_TASK",
    operation: "submitCommand",
    input: {
      ...START_TASK,
      commandParameter: {
        startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "L", map: "Floor 1", loop: "yes", loopCount: 1 } },
      },
    },
    field: "commandParameter.startTaskParameter.task.loop",
  },
  {
    name: "loopCount as a fraction in START_TASK",
    operation: "submitCommand",
    input: {
      ...START_TASK,
      commandParameter: {
        startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "L", map: "Floor 1", loop: false, loopCount: 1.5 } },
      },
    },
    field: "commandParameter.startTaskParameter.task.loopCount",
  },
  {
    name: "blank map name in START_TASK",
    operation: "submitCommand",
    input: {
      ...START_TASK,
      commandParameter: {
        startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "L", map: "  ", loop: false, loopCount: 1 } },
      },
    },
    field: "commandParameter.startTaskParameter.task.map",
  },
  {
    name: "unknown direction",
    operation: "submitCommand",
    input: {
      serialNumber: SN,
      remoteControlCommandType: "REMOTE_CONTROL_MOVE",
      commandParameter: { controlMovingParameter: { direction: "UP" } },
    },
    field: "commandParameter.controlMovingParameter.direction",
  },
  {
    name: "misspelt field",
    operation: "submitCommand",
    input: { serialNumber: SN, remoteTaskCommandType: "PAUSE_TASK", comandParameter: {} },
    field: "comandParameter",
  },
  {
    name: "unknown field inside the task",
    operation: "submitCommand",
    input: {
      ...START_TASK,
      commandParameter: {
        startTaskParameter: { cleaningMode: "x", task: { name: "L", map: "M", loop: false, loopCount: 1, subTasks: [] } },
      },
    },
    field: "commandParameter.startTaskParameter.task.subTasks",
  },
  { name: "input that is not an object", operation: "getRobotStatus", input: null, field: "input" },
  { name: "serial number as a number", operation: "getRobotStatus", input: { serialNumber: 101 }, field: "serialNumber" },
  {
    name: "B4 loop that is not a boolean",
    operation: "sendTempTask",
    input: { ...TEMP_TASK, tempTaskCommand: { ...TEMP_TASK.tempTaskCommand, loop: "maybe" } },
    field: "tempTaskCommand.loop",
  },
  {
    name: "B4 loopCount that is not a whole number",
    operation: "sendTempTask",
    input: { ...TEMP_TASK, tempTaskCommand: { ...TEMP_TASK.tempTaskCommand, loopCount: "2x" } },
    field: "tempTaskCommand.loopCount",
  },
  {
    name: "B4 areaId that is an object",
    operation: "sendTempTask",
    input: { ...TEMP_TASK, tempTaskCommand: { ...TEMP_TASK.tempTaskCommand, startParam: { mapId: MAP_ID, areaId: { id: 1 } } } },
    field: "tempTaskCommand.startParam.areaId",
  },
  { name: "B3 negative loopCount", operation: "createTempSiteTask", input: { ...SITE_TASK, loopCount: -1 }, field: "loopCount" },
  { name: "B3 without floors", operation: "createTempSiteTask", input: { ...SITE_TASK, floors: [] }, field: "floors" },
  { name: "C1 map id as a number", operation: "getSubareas", input: { mapId: 5, robotSn: SN }, field: "mapId" },
  ...["../x", "a/b", "%2e%2e", "", "..", "a?b", "a#b", "a b", "x".repeat(129)].flatMap(withSerial),
];

describe("api: error kinds", function () {
  const stub = useClientOnRecordingServer({
    auth: { token: TOKEN },
    timeoutMs: 2000,
    retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 },
  });

  describe("invalid_input: names the field, sends nothing", function () {
    for (const bad of BAD_INPUTS) {
      it(`${bad.operation}: ${bad.name} -> ${bad.field}`, async function () {
        const error = await failureOf(stub.client.call(bad.operation, bad.input as never));
        assert.equal(error.kind, "invalid_input");
        assert.equal(error.code, "INVALID_INPUT");
        assert.equal(error.field, bad.field);
        assert.equal(error.operation, bad.operation);
        assert.ok(error.message.startsWith(`${bad.field}: `), `message names the field: ${error.message}`);
        assert.equal(stub.server.requests.length, 0, "no request may reach the server");
      });
    }

    it("an empty static token is refused before anything is sent", async function () {
      const tokenless = new RobotClient({ baseUrl: stub.server.url, auth: { token: "" } });
      const error = await failureOf(tokenless.getRobotStatus({ serialNumber: SN }));
      assert.equal(error.kind, "invalid_input");
      assert.equal(error.field, "token");
      assert.equal(stub.server.requests.length, 0);
    });

    it("a bad timeout is refused when the client is made", function () {
      for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        assert.throws(
          () => new RobotClient({ baseUrl: stub.server.url, auth: { token: TOKEN }, timeoutMs }),
          (error: unknown) => error instanceof RobotApiError && error.kind === "invalid_input" && error.field === "timeoutMs",
        );
      }
    });
  });

  describe("http", function () {
    it("400 with a google.rpc-like body: status, apiCode, its name and the server's message", async function () {
      stub.server.reply({ status: 400, body: { code: 3, message: "The map name must not be blank.", details: [] } });
      const error = await failureOf(stub.client.submitCommand({ serialNumber: SN, remoteTaskCommandType: "PAUSE_TASK" }));
      assert.equal(error.kind, "http");
      assert.equal(error.status, 400);
      assert.equal(error.apiCode, 3);
      assert.equal(error.apiCodeName, "INVALID_ARGUMENT");
      assert.equal(error.code, "INVALID_ARGUMENT");
      assert.equal(error.operation, "submitCommand");
      assert.match(error.message, /^submitCommand: HTTP 400 INVALID_ARGUMENT: The map name must not be blank\.$/);
      assert.equal(error.isRateLimited, false);
    });

    it("reads as text in Node-RED's debug sidebar without a Catch node (its cause is not [object Object]) and stays data for a Catch node", async function () {
      stub.server.reply({ status: 403, body: { code: 7, message: "no permission on this robot" } });
      const error = await failureOf(stub.client.getRobotStatus({ serialNumber: SN }));
      // What the debug sidebar gets for an error logged by a node: Node-RED's own encoding of it.
      const encoded = nodeRedUtil.encodeObject({ msg: error }) as { msg: string };
      const cause = (JSON.parse(encoded.msg) as { data: { cause: string } }).data.cause;
      assert.equal(
        cause,
        "kind: http, code: PERMISSION_DENIED, operation: getRobotStatus, status: 403, apiCode: 7, apiCodeName: PERMISSION_DENIED",
      );
      // A Catch node reads the same details as properties, and they stay plain data (the text is not a key).
      assert.equal((error.cause as { status: number }).status, 403);
      assert.deepEqual(Object.keys(error.cause as object), ["kind", "code", "operation", "status", "apiCode", "apiCodeName"]);
    });

    it("403 with {code, msg}", async function () {
      stub.server.reply({ status: 403, body: { code: 7, msg: "no permission on this robot" } });
      const error = await failureOf(stub.client.getRobotStatus({ serialNumber: SN }));
      assert.equal(error.kind, "http");
      assert.equal(error.status, 403);
      assert.equal(error.apiCode, 7);
      assert.equal(error.apiCodeName, "PERMISSION_DENIED");
      assert.match(error.message, /HTTP 403 PERMISSION_DENIED: no permission on this robot/);
    });

    it("404 with an empty JSON body: HTTP_404 and the status text", async function () {
      stub.server.reply({ status: 404, body: {} });
      const error = await failureOf(stub.client.getSiteInfo({ serialNumber: SN }));
      assert.equal(error.kind, "http");
      assert.equal(error.status, 404);
      assert.equal(error.apiCode, undefined);
      assert.equal(error.apiCodeName, undefined);
      assert.equal(error.code, "HTTP_404");
      assert.match(error.message, /^getSiteInfo: HTTP 404: Not Found$/);
    });

    it("500 with a non-JSON body: the body's text is the reason", async function () {
      stub.server.reply({ status: 500, body: "<html><body>upstream exploded</body></html>", headers: { "Content-Type": "text/html" } });
      const error = await failureOf(stub.client.listMaps({ robotSn: SN }));
      assert.equal(error.kind, "http");
      assert.equal(error.status, 500);
      assert.equal(error.apiCode, undefined);
      assert.equal(error.code, "HTTP_500");
      assert.match(error.message, /HTTP 500: <html><body>upstream exploded/);
    });

    it("a very long non-JSON error body is cut short", async function () {
      stub.server.reply({ status: 502, body: "x".repeat(5000) });
      const error = await failureOf(stub.client.listMaps({ robotSn: SN }));
      assert.equal(error.status, 502);
      assert.ok(error.message.length < 300, `message is ${error.message.length} characters`);
    });

    it("a redirect is not followed (it could carry the token elsewhere)", async function () {
      stub.server.reply({ status: 302, headers: { Location: "http://127.0.0.1:9/elsewhere" } });
      const error = await failureOf(stub.client.getRobotStatus({ serialNumber: SN }));
      assert.equal(error.kind, "http");
      assert.equal(error.status, 302);
      assert.equal(stub.server.requests.length, 1);
    });
  });

  describe("envelope", function () {
    const cases = [
      { code: 3, name: "INVALID_ARGUMENT", msg: "INVALID_ARGUMENT", data: {} },
      { code: 7, name: "PERMISSION_DENIED", msg: "PERMISSION_DENIED", data: [] },
      { code: 13, name: "INTERNAL", msg: "System error.", data: [] },
    ];
    for (const { code, name, msg, data } of cases) {
      it(`code ${code} -> ${name} with the envelope's msg`, async function () {
        stub.server.reply({ body: { code, msg, data } });
        const error = await failureOf(stub.client.listMaps({ robotSn: SN }));
        assert.equal(error.kind, "envelope");
        assert.equal(error.apiCode, code);
        assert.equal(error.apiCodeName, name);
        assert.equal(error.code, name);
        assert.equal(error.status, 200);
        assert.equal(error.operation, "listMaps");
        assert.equal(error.message, `listMaps: ${name}: ${msg}`);
        assert.equal(stub.server.requests.length, 1, "not retried");
      });
    }

    it("code 8 is reported as RESOURCE_EXHAUSTED after the retries", async function () {
      stub.server.respondWith(() => ({ body: { code: 8, msg: "rate limit exceeded", data: {} } }));
      const error = await failureOf(stub.client.getSubareas({ mapId: MAP_ID, robotSn: SN }));
      assert.equal(error.kind, "envelope");
      assert.equal(error.apiCode, 8);
      assert.equal(error.code, "RESOURCE_EXHAUSTED");
      assert.equal(error.isRateLimited, true);
      assert.match(error.message, /rate limit exceeded/);
      assert.equal(stub.server.requests.length, 3, "maxRetries 2: three requests");
    });

    it("an unknown code 42 is CODE_42, without a name", async function () {
      stub.server.reply({ body: { code: 42, msg: "something new", data: {} } });
      const error = await failureOf(stub.client.getSubareas({ mapId: MAP_ID, robotSn: SN }));
      assert.equal(error.kind, "envelope");
      assert.equal(error.apiCode, 42);
      assert.equal(error.apiCodeName, undefined);
      assert.equal(error.code, "CODE_42");
      assert.match(error.message, /code 42: something new/);
    });

    it("a google.rpc-like error body under HTTP 200 on a non-envelope endpoint is an error too", async function () {
      stub.server.reply({ body: { code: 5, message: "The robot is not on a site." } });
      const error = await failureOf(stub.client.getSiteInfo({ serialNumber: SN }));
      assert.equal(error.kind, "envelope");
      assert.equal(error.apiCode, 5);
      assert.equal(error.code, "NOT_FOUND");
      assert.match(error.message, /NOT_FOUND: The robot is not on a site\./);
    });
  });

  describe("timeout, network, bad_response, aborted", function () {
    it("timeout: the server answers later than timeoutMs", async function () {
      const impatient = new RobotClient({ baseUrl: stub.server.url, auth: { token: TOKEN }, timeoutMs: 40 });
      stub.server.reply({ body: { state: "WAITING", name: "late" }, delayMs: 1000 });
      const error = await failureOf(impatient.getRobotStatus({ serialNumber: SN }));
      assert.equal(error.kind, "timeout");
      assert.equal(error.code, "TIMEOUT");
      assert.equal(error.operation, "getRobotStatus");
      assert.equal(error.status, undefined);
      assert.match(error.message, /no answer within 0\.04 s/);
    });

    it("network: the connection is dropped under a command (which is never sent twice)", async function () {
      stub.server.reply({ drop: true });
      const error = await failureOf(stub.client.submitCommand({ serialNumber: SN, remoteTaskCommandType: "PAUSE_TASK" }));
      assert.equal(error.kind, "network");
      assert.equal(error.code, "NETWORK_ERROR");
      assert.equal(error.status, undefined);
      assert.equal(error.connectionReset, true);
      assert.match(error.message, /^submitCommand: network error: /);
      assert.equal(stub.server.requests.length, 1);
    });

    it("network: connection refused on a closed port", async function () {
      const closed = await new RecordingServer().start();
      const url = closed.url;
      await closed.stop();
      const nowhere = new RobotClient({ baseUrl: url, auth: { token: TOKEN } });
      const error = await failureOf(nowhere.listMaps({ robotSn: SN }));
      assert.equal(error.kind, "network");
      assert.match(error.message, /ECONNREFUSED/);
    });

    it("bad_response: HTTP 200 that is not JSON", async function () {
      stub.server.reply({ body: "<html>maintenance</html>", headers: { "Content-Type": "text/html" } });
      const error = await failureOf(stub.client.getRobotStatus({ serialNumber: SN }));
      assert.equal(error.kind, "bad_response");
      assert.equal(error.code, "BAD_RESPONSE");
      assert.equal(error.status, 200);
      assert.match(error.message, /not JSON/);
    });

    it("bad_response: an envelope without its code", async function () {
      stub.server.reply({ body: { msg: "SUCCESS", data: [] } });
      const error = await failureOf(stub.client.listMaps({ robotSn: SN }));
      assert.equal(error.kind, "bad_response");
      assert.match(error.message, /envelope/);
    });

    it("bad_response: data that fails the response schema names the field", async function () {
      stub.server.reply({ body: { code: 0, msg: "SUCCESS", data: [{ mapId: MAP_ID, mapName: 7 }] } });
      const error = await failureOf(stub.client.listMaps({ robotSn: SN }));
      assert.equal(error.kind, "bad_response");
      assert.match(error.message, /unexpected answer: 0\.mapName/);
    });

    it("bad_response: a command answer without name and state", async function () {
      stub.server.reply({ body: { serialNumber: SN } });
      const error = await failureOf(stub.client.submitCommand({ serialNumber: SN, remoteTaskCommandType: "STOP_TASK" }));
      assert.equal(error.kind, "bad_response");
      assert.match(error.message, /name/);
      assert.equal(stub.server.requests.length, 1, "a malformed answer is not a reason to send the command again");
    });

    it("aborted: the caller's signal fires mid-request", async function () {
      const controller = new AbortController();
      stub.server.reply({ body: {}, delayMs: 1000 });
      const pending = failureOf(stub.client.getRobotStatus({ serialNumber: SN }, { signal: controller.signal }));
      await until(() => stub.server.requests.length === 1);
      controller.abort();
      const error = await pending;
      assert.equal(error.kind, "aborted");
      assert.equal(error.code, "ABORTED");
      assert.equal(error.operation, "getRobotStatus");
      assert.equal(stub.server.requests.length, 1);
    });

    it("aborted: a signal already aborted sends nothing", async function () {
      const error = await failureOf(stub.client.getRobotStatus({ serialNumber: SN }, { signal: AbortSignal.abort() }));
      assert.equal(error.kind, "aborted");
      assert.equal(stub.server.requests.length, 0);
    });

    it("aborted: the signal fires while the call waits out the account's pause", async function () {
      const slow = new RobotClient({ baseUrl: stub.server.url, auth: { token: TOKEN }, retry: { maxRetries: 3 } });
      const controller = new AbortController();
      stub.server.reply({ status: 429, headers: { "Retry-After": "30" } });
      const failure = failureOf(slow.getRobotStatus({ serialNumber: SN }, { signal: controller.signal }));
      // Refused once, the call is back in the queue behind a 30 s pause.
      await waitUntil(() => stub.server.requests.length === 1 && slow.engine.waiting === 1);
      assert.ok(slow.engine.pausedForMs() > 20_000, "the account is paused");
      controller.abort();
      const error = await failure;
      assert.equal(error.kind, "aborted");
      assert.equal(error.operation, "getRobotStatus");
      assert.equal(slow.engine.waiting, 0);
      assert.equal(stub.server.requests.length, 1, "no retry after the abort");
      slow.close();
    });
  });

  describe("RobotApiError", function () {
    it("is an Error with its name, and toJSON holds the fields a flow needs", function () {
      const error = new RobotApiError({ kind: "http", status: 403, apiCode: 7, operation: "listMaps", message: "listMaps: HTTP 403" });
      assert.ok(error instanceof Error);
      assert.equal(error.name, "RobotApiError");
      assert.equal(String(error), "RobotApiError: listMaps: HTTP 403");
      assert.deepEqual(JSON.parse(JSON.stringify(error)), {
        name: "RobotApiError",
        message: "listMaps: HTTP 403",
        kind: "http",
        code: "PERMISSION_DENIED",
        operation: "listMaps",
        status: 403,
        apiCode: 7,
        apiCodeName: "PERMISSION_DENIED",
      });
    });

    it("a 429 without a code is HTTP_429 and rate-limited", function () {
      const error = new RobotApiError({ kind: "http", status: 429, message: "x" });
      assert.equal(error.code, "HTTP_429");
      assert.equal(error.isRateLimited, true);
    });
  });
});
