/**
 * Every row of the endpoint table on the wire: method, path, headers, raw body
 * and the parsed answer (unknown fields kept), each command of Endpoint A, the
 * string coercion of B3/B4 and the robot's rejection of a temporary task.
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import { COMMANDS, COMMAND_TYPES, type CommandType } from "../../src/api/cloud/commands";
import {
  ENDPOINTS,
  OPERATION_NAMES,
  pathParamsOf,
  type Endpoint,
  type HttpMethod,
  type OperationName,
  type RequestOf,
} from "../../src/api/cloud/endpoints";
import { OPEN_ACCESS_GRANT_TYPE } from "../../src/api/cloud/schemas";
import { type RecordedRequest } from "../support/recording-server";
import { failureOf } from "../support/failures";
import { SERIAL as SN, MAP_ID, TEMP_SITE_TASK_BODY as SITE_TASK, TEMP_TASK_BODY as TEMP_TASK, COMMAND_BODIES } from "../support/fixtures";
import { useClientOnRecordingServer } from "../support/client-on-server";

const TOKEN = "tok-endpoints-3c9e";
const CREDENTIALS = { clientId: "client-42", clientSecret: "cs-endpoints-77", accessKeySecret: "aks-endpoints-88" };

/** What one row must look like on the wire; written out here, not read from the table. */
interface RowExpectation<Op extends OperationName> {
  method: HttpMethod;
  template: string;
  /** The path the server must see for `input`. */
  wirePath: string;
  input: RequestOf<Op>;
  /** The JSON body the server must receive; undefined: no body at all. */
  body: unknown;
  /** The Content-Type the server must see: application/json unless the cloud refuses one there (undefined). */
  contentType?: undefined;
  /** The server's answer (with fields the schemas do not know). */
  answer: unknown;
  /** What the client must return for that answer. */
  result: unknown;
}

const STATUS_ANSWER = {
  serialNumber: SN,
  taskState: "IDLE",
  online: true,
  speedKilometerPerHour: 0,
  battery: { charging: false, powerPercentage: 87 },
  localizationInfo: { localizationState: "NORMAL", map: { id: MAP_ID, name: "Floor 1", version: "3" } },
  firmwareOnlyField: { anything: [1, 2, 3] },
};
const SITE_ANSWER = { siteId: SITE_TASK.siteId, siteName: "Head office", buildings: [{ id: "b1", floors: [] }] };
const COMMAND_ANSWER = {
  name: `robots/${SN}/commands/0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b`,
  parent: `robots/${SN}`,
  commandParameter: {},
  state: "WAITING",
  serialNumber: SN,
  user: "u-1",
  createTime: "2024-05-01T08:00:00.123456789Z",
  updateTime: "2024-05-01T08:00:00.123456789Z",
  startTime: "2024-05-01T08:00:00.123Z",
  startDelay: 1800000,
  rawCommandType: "pause_task",
  notInTheSpec: "kept",
};
const SUBAREAS = {
  mapId: MAP_ID,
  subareas: {
    partitions: [
      { id: 1, name: "Lobby", polygon: [[0, 0]] },
      { id: 2, name: "Corridor" },
    ],
    total: "2",
  },
  mapVersion: "3",
};
const MAP_LIST = [{ mapId: MAP_ID, mapName: "Floor 1", mapVersion: "3" }];

/** Answers with fields the schemas do not know, and int64 values as strings (field notes). */
const ROBOT_LIST = {
  robots: [
    { serialNumber: SN, displayName: "Lobby", modelTypeCode: "S50", softwareVersion: "3.8.2", online: true, fleetGroup: { id: 4 } },
    { serialNumber: "GS-S-000102", createTime: "1714550400000" },
  ],
  total: "51",
  nextPageToken: "",
};
const V1_STATUSES = {
  robotStatuses: [
    {
      name: `robots/${SN}`,
      serialNumber: SN,
      online: true,
      navStatus: "NAVI_IDLE",
      latestReportTime: "1714550400123",
      battery: { soc: 87, soh: 97, cycleTimes: "212" },
      executingTask: { id: "t-1", name: "Lobby", progress: 0.4, timeRemaining: "600" },
    },
    { name: "robots/GS-S-000102", latestReportTime: 1714550400456, unknownToTheSchema: [null] },
  ],
};
const TASK_REPORTS = {
  robotTaskReports: [
    {
      id: "r-1",
      displayName: "Nightly",
      robotSerialNumber: SN,
      completionPercentage: 0.87,
      durationSeconds: "3600",
      taskEndStatus: "1",
      consumablesResidualPercentage: { brush: 0.7 },
      startTime: "2024-05-01T01:00:00Z",
      endTime: "2024-05-01T02:00:00Z",
    },
    { id: 42, durationSeconds: 60 },
  ],
  total: "12",
};

/** One expectation per row: a row added to the table without one here does not compile. */
const ROWS: { [Op in OperationName]: RowExpectation<Op> } = {
  submitCommand: {
    method: "POST",
    template: "/v1alpha1/robots/{serialNumber}/commands",
    wirePath: `/v1alpha1/robots/${SN}/commands`,
    input: { serialNumber: SN, remoteTaskCommandType: "PAUSE_TASK" },
    body: { serialNumber: SN, remoteTaskCommandType: "PAUSE_TASK" },
    answer: COMMAND_ANSWER,
    result: COMMAND_ANSWER,
  },
  getCommand: {
    method: "GET",
    template: "/v1alpha1/robots/{serialNumber}/commands/{commandId}",
    wirePath: `/v1alpha1/robots/${SN}/commands/0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b`,
    input: { serialNumber: SN, commandId: "0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b" },
    body: undefined,
    answer: { ...COMMAND_ANSWER, state: "RUNNING", startDelay: "1800000" },
    result: { ...COMMAND_ANSWER, state: "RUNNING", startDelay: "1800000" },
  },
  getRobotStatus: {
    method: "GET",
    template: "/openapi/v2alpha1/s/robots/{serialNumber}/status",
    wirePath: `/openapi/v2alpha1/s/robots/${SN}/status`,
    input: { serialNumber: SN },
    body: undefined,
    answer: STATUS_ANSWER,
    result: STATUS_ANSWER,
  },
  getSiteInfo: {
    method: "GET",
    template: "/openapi/v2alpha1/robots/{serialNumber}/getSiteInfo",
    wirePath: `/openapi/v2alpha1/robots/${SN}/getSiteInfo`,
    input: { serialNumber: SN },
    body: undefined,
    answer: SITE_ANSWER,
    result: SITE_ANSWER,
  },
  createTempSiteTask: {
    method: "POST",
    template: "/openapi/v2/robot/tasks/temp/withSite",
    wirePath: "/openapi/v2/robot/tasks/temp/withSite",
    input: SITE_TASK,
    body: SITE_TASK,
    answer: { taskId: "t-123", requestId: "r-456" },
    result: { taskId: "t-123", requestId: "r-456" },
  },
  sendTempTask: {
    method: "POST",
    template: "/v2alpha1/robotCommand/tempTask:send",
    wirePath: "/v2alpha1/robotCommand/tempTask:send",
    input: TEMP_TASK,
    body: TEMP_TASK,
    answer: { productId: SN, requestId: "r-789", orderType: "start_task", cmdStatus: 5, cmdResultCode: "6880", extra: true },
    result: { productId: SN, requestId: "r-789", orderType: "start_task", cmdStatus: 5, cmdResultCode: "6880", extra: true },
  },
  getSubareas: {
    method: "POST",
    template: "/openapi/v1/map/subareas/get",
    wirePath: "/openapi/v1/map/subareas/get",
    input: { mapId: MAP_ID, robotSn: SN },
    body: { mapId: MAP_ID, robotSn: SN },
    answer: { code: 0, msg: "SUCCESS", data: SUBAREAS },
    result: SUBAREAS,
  },
  listMaps: {
    method: "POST",
    template: "/openapi/v1/map/robotMap/list",
    wirePath: "/openapi/v1/map/robotMap/list",
    input: { robotSn: SN },
    body: { robotSn: SN },
    answer: { code: 0, msg: "SUCCESS", data: MAP_LIST },
    result: MAP_LIST,
  },
  listRobots: {
    method: "GET",
    template: "/v1alpha1/robots",
    wirePath: "/v1alpha1/robots?page=2&pageSize=50&relation=cugrup",
    input: { page: 2, pageSize: 50, relation: "cugrup" },
    body: undefined,
    // The cloud answers the robot list 415 when it carries a Content-Type (docs/cloud-api.md).
    contentType: undefined,
    answer: ROBOT_LIST,
    result: ROBOT_LIST,
  },
  batchGetRobotStatus: {
    method: "GET",
    template: "/v1alpha1/robots/-/status:batchGet",
    // Repeated, never comma-joined (a joined list is one unknown name: 403).
    wirePath: `/v1alpha1/robots/-/status:batchGet?names=${SN}&names=GS-S-000102`,
    input: { names: [SN, "GS-S-000102"] },
    body: undefined,
    answer: V1_STATUSES,
    result: V1_STATUSES,
  },
  batchGetSRobotStatus: {
    method: "GET",
    template: "/openapi/v2alpha1/s/robots/*/status:batchGet",
    wirePath: "/openapi/v2alpha1/s/robots/*/status:batchGet",
    input: { names: [SN, "GS-S-000102"] },
    // A GET with a JSON body.
    body: { names: [SN, "GS-S-000102"] },
    answer: { robotStatus: [STATUS_ANSWER, { serialNumber: "GS-S-000102", online: false }] },
    result: { robotStatus: [STATUS_ANSWER, { serialNumber: "GS-S-000102", online: false }] },
  },
  listTaskReports: {
    method: "GET",
    template: "/openapi/v2alpha1/robots/{serialNumber}/taskReports",
    // The time window in UTC; epoch milliseconds are written as ISO 8601 without fractions.
    wirePath: `/openapi/v2alpha1/robots/${SN}/taskReports?page=3&pageSize=10&startTimeUtcFloor=2026-11-01T00%3A00%3A00Z&startTimeUtcUpper=2026-11-02T06%3A30%3A00Z`,
    input: {
      serialNumber: SN,
      page: 3,
      pageSize: 10,
      startTimeUtcFloor: "2026-11-01T00:00:00Z",
      startTimeUtcUpper: Date.UTC(2026, 10, 2, 6, 30),
    },
    body: undefined,
    answer: TASK_REPORTS,
    result: TASK_REPORTS,
  },
  getTaskReportImages: {
    method: "POST",
    template: "/openapi-server/v1/api/task/report/map-images/query",
    wirePath: "/openapi-server/v1/api/task/report/map-images/query",
    input: { robotSn: SN, taskReportId: "r-1" },
    body: { robotSn: SN, taskReportId: "r-1" },
    answer: { data: ["https://oss.example/r-1.png?sig=1"] },
    result: { data: ["https://oss.example/r-1.png?sig=1"] },
  },
  getMapImageUri: {
    method: "GET",
    template: "/openapi/v2alpha1/robots/{serialNumber}/map",
    // Every query value percent-encoded: a space is %20, a CJK name is UTF-8; the version goes as text.
    wirePath: `/openapi/v2alpha1/robots/${SN}/map?mapId=${MAP_ID}&mapName=Floor%201%20%E4%B8%80%E6%A5%BC&mapVersion=3`,
    input: { serialNumber: SN, mapId: MAP_ID, mapName: "Floor 1 一楼", mapVersion: 3 },
    body: undefined,
    answer: { downloadUri: "https://objects.example.test/maps/m.png?X-Amz-Signature=abc", expiresIn: "600" },
    result: { downloadUri: "https://objects.example.test/maps/m.png?X-Amz-Signature=abc", expiresIn: "600" },
  },
  grantToken: {
    method: "POST",
    template: "/gas/api/v1alpha1/oauth/token",
    wirePath: "/gas/api/v1alpha1/oauth/token",
    input: {
      grant_type: OPEN_ACCESS_GRANT_TYPE,
      client_id: CREDENTIALS.clientId,
      client_secret: CREDENTIALS.clientSecret,
      open_access_key: CREDENTIALS.accessKeySecret,
    },
    body: {
      grant_type: "urn:gaussian:params:oauth:grant-type:open-access-token",
      client_id: "client-42",
      client_secret: "cs-endpoints-77",
      open_access_key: "aks-endpoints-88",
    },
    answer: { token_type: "bearer", access_token: "granted-token-1", expires_in: 1772804832183, scope: "robots" },
    // The grant's answer is not returned to the caller; it must become the next call's bearer token.
    result: undefined,
  },
};

function assertWire(request: RecordedRequest, row: RowExpectation<OperationName>, endpoint: Endpoint, bearer: string | undefined) {
  assert.equal(request.method, row.method);
  assert.equal(request.path, row.wirePath);
  assert.equal(request.headers["content-type"], "contentType" in row ? row.contentType : "application/json");
  assert.equal(request.headers.authorization, bearer === undefined ? undefined : `Bearer ${bearer}`);
  if (row.body === undefined) {
    assert.equal(request.rawBody, "", "no body is sent");
    assert.equal(request.headers["transfer-encoding"], undefined);
  } else {
    assert.deepEqual(JSON.parse(request.rawBody), row.body);
    // Framed by its length, on a GET as on a POST.
    assert.equal(request.headers["content-length"], String(Buffer.byteLength(request.rawBody)));
    // Exactly the validated request, serialised once: nothing added, nothing reformatted.
    assert.equal(request.rawBody, JSON.stringify(endpoint.request.parse(row.input)));
  }
}

describe("api: the endpoint table on the wire", function () {
  const stub = useClientOnRecordingServer({ auth: { token: TOKEN } });

  it("has exactly the rows of the spec (A, B1-B4, C1, C2, token grant) and of the field notes (A-read, N1-N5)", function () {
    assert.deepEqual([...OPERATION_NAMES].sort(), Object.keys(ROWS).sort());
    assert.deepEqual(OPERATION_NAMES.map((operation) => ENDPOINTS[operation].id).sort(), [
      "A",
      "A-read",
      "B1",
      "B2",
      "B3",
      "B4",
      "C1",
      "C2",
      "N1",
      "N2",
      "N3",
      "N4",
      "N5",
      "N6",
      "token",
    ]);
  });

  it("every reading row says so (read: true), every row that changes something does not", function () {
    const reads = OPERATION_NAMES.filter((operation) => ENDPOINTS[operation].read).sort();
    assert.deepEqual(reads, [
      "batchGetRobotStatus",
      "batchGetSRobotStatus",
      "getCommand",
      "getMapImageUri",
      "getRobotStatus",
      "getSiteInfo",
      "getSubareas",
      "getTaskReportImages",
      "listMaps",
      "listRobots",
      "listTaskReports",
    ]);
  });

  it("a row's path and query parameters are fields of its request, and a query is never sent with a body", function () {
    for (const operation of OPERATION_NAMES) {
      const endpoint = ENDPOINTS[operation] as unknown as Endpoint;
      const shape = (endpoint.request as unknown as { shape?: Record<string, unknown> }).shape ?? {};
      for (const name of [...pathParamsOf(endpoint.path), ...Object.keys(endpoint.query ?? {})]) {
        assert.ok(name in shape, `${operation}: ${name} is not a field of its request`);
      }
      if (endpoint.sendsBody) assert.equal(endpoint.query, undefined, `${operation}: query and body`);
      // A GET without a body carries its whole request in the path and the query: nothing may be dropped.
      if (!endpoint.sendsBody) {
        const carried = new Set([...pathParamsOf(endpoint.path), ...Object.keys(endpoint.query ?? {})]);
        assert.deepEqual(
          Object.keys(shape).filter((name) => !carried.has(name)),
          [],
          `${operation}: fields not sent`,
        );
      }
    }
  });

  for (const operation of OPERATION_NAMES) {
    const row = ROWS[operation] as RowExpectation<OperationName>;
    const endpoint = ENDPOINTS[operation] as unknown as Endpoint;

    it(`${operation} (${endpoint.id}): ${row.method} ${row.template} in the table`, function () {
      assert.equal(endpoint.method, row.method);
      assert.equal(endpoint.path, row.template);
      assert.equal(endpoint.sendsBody, row.body !== undefined);
      assert.equal(endpoint.authenticated, operation !== "grantToken");
    });

    if (operation === "grantToken") {
      it("grantToken (token): the grant carries the credentials and no Authorization, its token is then used", async function () {
        const robotAnswer = ROWS.getRobotStatus;
        stub.server.reply({ body: row.answer }, { body: robotAnswer.answer });
        const viaGrant = new RobotClient({ baseUrl: stub.server.url, auth: CREDENTIALS });
        const result = await viaGrant.getRobotStatus(robotAnswer.input);
        assert.equal(stub.server.requests.length, 2);
        assertWire(stub.server.requests[0]!, row, endpoint, undefined);
        assert.ok(!("authorization" in stub.server.requests[0]!.headers), "the grant must carry no Authorization header");
        assertWire(stub.server.requests[1]!, robotAnswer, ENDPOINTS.getRobotStatus, "granted-token-1");
        assert.deepEqual(result, robotAnswer.result);
      });
      continue;
    }

    it(`${operation} (${endpoint.id}): request on the wire and the parsed answer`, async function () {
      stub.server.reply({ body: row.answer });
      const result = await stub.client.call(operation, row.input as never);
      assert.equal(stub.server.requests.length, 1);
      assertWire(stub.server.requests[0]!, row, endpoint, TOKEN);
      assert.deepEqual(result, row.result);
    });

    it(`${operation}: the derived method is the same call`, async function () {
      stub.server.reply({ body: row.answer });
      // Taken off the client on purpose: the derived methods must not depend on `this` at the call site.
      const method = stub.client[operation] as (input: unknown) => Promise<unknown>;
      assert.equal(typeof method, "function");
      assert.deepEqual(await method(row.input), row.result);
      assert.equal(stub.server.requests[0]!.path, row.wirePath);
    });
  }

  it("offers no method for the token grant (it is internal to the client)", function () {
    assert.equal((stub.client as unknown as Record<string, unknown>).grantToken, undefined);
  });
});

// ------------------------------------------------------------------ Endpoint A

/** Family and parameter of each command as the spec's table says, written out independently of COMMANDS. */
const SPEC_COMMANDS: Record<CommandType, { family: string; parameter: string | undefined; raw: string }> = {
  START_TASK: { family: "remoteTaskCommandType", parameter: "startTaskParameter", raw: "start_task" },
  PAUSE_TASK: { family: "remoteTaskCommandType", parameter: undefined, raw: "pause_task" },
  RESUME_TASK: { family: "remoteTaskCommandType", parameter: undefined, raw: "resume_task" },
  STOP_TASK: { family: "remoteTaskCommandType", parameter: undefined, raw: "stop_task" },
  CROSS_NAVIGATE: { family: "remoteNavigationCommandType", parameter: "startNavigationParameter", raw: "cross_navigate" },
  PAUSE_NAVIGATE: { family: "remoteNavigationCommandType", parameter: "startNavigationParameter", raw: "pause_navigate" },
  RESUME_NAVIGATE: { family: "remoteNavigationCommandType", parameter: "startNavigationParameter", raw: "resume_navigate" },
  STOP_NAVIGATE: { family: "remoteNavigationCommandType", parameter: "startNavigationParameter", raw: "stop_navigate" },
  REMOTE_CONTROL_START: { family: "remoteControlCommandType", parameter: undefined, raw: "remote_control_start" },
  REMOTE_CONTROL_MOVE: { family: "remoteControlCommandType", parameter: "controlMovingParameter", raw: "remote_control_move" },
  REMOTE_CONTROL_STOP: { family: "remoteControlCommandType", parameter: undefined, raw: "remote_control_stop" },
};

/** Lower-cases enumerated values the way the cloud echoes them (cleaningMode is echoed unchanged). */
function echoOf(parameter: unknown): unknown {
  if (parameter === undefined) return {};
  return JSON.parse(JSON.stringify(parameter), (key, value: unknown) =>
    key === "direction" && typeof value === "string" ? value.toLowerCase() : value,
  ) as unknown;
}

describe("api: the eleven commands of Endpoint A", function () {
  const stub = useClientOnRecordingServer({ auth: { token: TOKEN } });

  it("the command table lists exactly the spec's eleven commands in their families", function () {
    assert.deepEqual([...COMMAND_TYPES].sort(), Object.keys(SPEC_COMMANDS).sort());
    for (const type of COMMAND_TYPES) {
      assert.equal(COMMANDS[type].family, SPEC_COMMANDS[type].family, type);
      assert.equal(COMMANDS[type].parameter, SPEC_COMMANDS[type].parameter, type);
    }
  });

  for (const type of COMMAND_TYPES) {
    const spec = SPEC_COMMANDS[type];
    it(`${type}: ${spec.parameter ? `carries ${spec.parameter}` : "no commandParameter"}, answer kept whole`, async function () {
      const sent = COMMAND_BODIES[type];
      const answer = {
        ...COMMAND_ANSWER,
        commandParameter: echoOf(sent.commandParameter),
        rawCommandType: spec.raw,
        traceId: "unknown-field",
      };
      stub.server.reply({ body: answer });
      const result = await stub.client.submitCommand(sent);

      assert.equal(stub.server.requests.length, 1);
      const request = stub.server.requests[0]!;
      assert.equal(request.method, "POST");
      assert.equal(request.path, `/v1alpha1/robots/${SN}/commands`);
      assert.equal(request.headers["content-type"], "application/json");
      assert.equal(request.headers.authorization, `Bearer ${TOKEN}`);
      assert.equal(request.rawBody, JSON.stringify(sent));
      const body = JSON.parse(request.rawBody) as Record<string, unknown>;
      assert.equal(body.serialNumber, SN);
      assert.equal(body[spec.family], type);
      const families = ["remoteTaskCommandType", "remoteNavigationCommandType", "remoteControlCommandType"];
      assert.deepEqual(
        families.filter((family) => family in body),
        [spec.family],
        "exactly one family field",
      );
      if (spec.parameter === undefined) {
        assert.ok(!("commandParameter" in body), "commandParameter is omitted");
      } else {
        assert.deepEqual(Object.keys(body.commandParameter as object), [spec.parameter]);
      }
      assert.deepEqual(result, answer);
      assert.equal(result.state, "WAITING");
      assert.equal(result.traceId, "unknown-field");
    });
  }
});

// ------------------------------------------------------------------ B3 / B4

describe("api: B3/B4 coercion and the robot's rejection", function () {
  const stub = useClientOnRecordingServer({ auth: { token: TOKEN } });

  const accepted = { productId: SN, requestId: "r-1", orderType: "start_task", cmdStatus: 5, cmdResultCode: "6880" };

  it("B4 sends loop, loopCount and areaId given as boolean/number as strings", async function () {
    stub.server.reply({ body: accepted });
    await stub.client.sendTempTask({
      productId: SN,
      tempTaskCommand: {
        taskName: "Spot",
        cleaningMode: "清扫",
        loop: true,
        loopCount: 3,
        mapName: "Floor 1",
        startParam: { mapId: MAP_ID, areaId: 7 },
      },
    });
    const sent = JSON.parse(stub.server.requests[0]!.rawBody) as { tempTaskCommand: Record<string, unknown> };
    assert.equal(sent.tempTaskCommand.loop, "true");
    assert.equal(sent.tempTaskCommand.loopCount, "3");
    assert.deepEqual(sent.tempTaskCommand.startParam, { mapId: MAP_ID, areaId: "7" });
    assert.match(stub.server.requests[0]!.rawBody, /"loop":"true","loopCount":"3"/);
    assert.match(stub.server.requests[0]!.rawBody, /"areaId":"7"/);
  });

  it('B4 sends loop false and loopCount 0 as "false" and "0" (falsy values are not dropped)', async function () {
    stub.server.reply({ body: accepted });
    await stub.client.sendTempTask({
      productId: SN,
      tempTaskCommand: { ...TEMP_TASK.tempTaskCommand, loop: false, loopCount: 0, startParam: { mapId: MAP_ID, areaId: 0 } },
    });
    const sent = JSON.parse(stub.server.requests[0]!.rawBody) as { tempTaskCommand: Record<string, unknown> };
    assert.equal(sent.tempTaskCommand.loop, "false");
    assert.equal(sent.tempTaskCommand.loopCount, "0");
    assert.deepEqual(sent.tempTaskCommand.startParam, { mapId: MAP_ID, areaId: "0" });
  });

  it("B3 sends numeric area ids as strings (floors and sub-tasks)", async function () {
    stub.server.reply({ body: {} });
    await stub.client.createTempSiteTask({
      ...SITE_TASK,
      floors: [{ index: 0, name: "Floor 1", mapId: MAP_ID, area: { id: 4, name: "Lobby" } }],
      tasks: [
        {
          mapId: MAP_ID,
          subTasks: [
            { mapId: MAP_ID, areaId: 4 },
            { mapId: MAP_ID, areaId: 5 },
          ],
        },
      ],
    });
    const sent = JSON.parse(stub.server.requests[0]!.rawBody) as {
      floors: { area: { id: unknown } }[];
      tasks: { subTasks: { areaId: unknown }[] }[];
      loopCount: unknown;
    };
    assert.equal(sent.floors[0]!.area.id, "4");
    assert.deepEqual(
      sent.tasks[0]!.subTasks.map((subTask) => subTask.areaId),
      ["4", "5"],
    );
    assert.equal(sent.loopCount, 1, "B3 loopCount stays an integer");
  });

  it("B4 cmdStatus 7 is a rejection: kind rejected, COMMAND_REJECTED, resultCode from cmdResultCode", async function () {
    stub.server.reply({ body: { productId: SN, requestId: "r-2", orderType: "start_task", cmdStatus: 7, cmdResultCode: "2010100009" } });
    const error = await failureOf(stub.client.sendTempTask(TEMP_TASK));
    assert.equal(error.kind, "rejected");
    assert.equal(error.code, "COMMAND_REJECTED");
    assert.equal(error.resultCode, "2010100009");
    assert.equal(error.operation, "sendTempTask");
    assert.equal(error.status, 200);
    assert.equal(
      error.message,
      "sendTempTask: robot rejected the temporary task (cmdResultCode 2010100009: the task parameters were rejected (most often a wrong areaId, or a cleaning mode the robot does not support))",
    );
    assert.equal(stub.server.requests.length, 1, "a rejection is not retried");
  });

  it("B4 refusal codes: each of 2010100006-13 is named with its published meaning, any other code as the code alone", async function () {
    const meanings: string[] = [];
    for (let code = 2010100006; code <= 2010100013; code++) {
      stub.server.reply({ body: { productId: SN, cmdStatus: 7, cmdResultCode: String(code) } });
      const error = await failureOf(stub.client.sendTempTask(TEMP_TASK));
      const named = new RegExp(`^sendTempTask: robot rejected the temporary task \\(cmdResultCode ${code}: (.+)\\)$`).exec(error.message);
      assert.ok(named, error.message);
      meanings.push(named[1]!);
    }
    assert.equal(new Set(meanings).size, 8, "eight different meanings");
    assert.match(meanings[1]!, /task area cannot be reached/);
    assert.match(meanings[6]!, /temporary task is already there/);
    for (const unknown of ["2010100014", "2010100005", "77"]) {
      stub.server.reply({ body: { productId: SN, cmdStatus: 7, cmdResultCode: unknown } });
      const error = await failureOf(stub.client.sendTempTask(TEMP_TASK));
      assert.equal(error.message, `sendTempTask: robot rejected the temporary task (cmdResultCode ${unknown})`);
      assert.equal(error.resultCode, unknown);
    }
  });

  it("B4 cmdStatus 7 sent as a string (int64) is a rejection too", async function () {
    stub.server.reply({ body: { productId: SN, cmdStatus: "7", cmdResultCode: 2010100006 } });
    const error = await failureOf(stub.client.sendTempTask(TEMP_TASK));
    assert.equal(error.kind, "rejected");
    assert.equal(error.resultCode, "2010100006");
  });

  it("B4 cmdStatus 5 is success and returns the whole answer", async function () {
    stub.server.reply({ body: { ...accepted, queuePosition: 0 } });
    assert.deepEqual(await stub.client.sendTempTask(TEMP_TASK), { ...accepted, queuePosition: 0 });
  });
});
