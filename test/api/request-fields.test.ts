/**
 * Every field of every request schema given a value of the wrong type: the
 * call is refused before anything is sent, naming that field. The fields are
 * read from the schemas (endpoints.ts), so a field added later is covered (or
 * this test says it has no valid sample); which types a field takes is written
 * out here, not read from the schema under test.
 */
import assert from "node:assert/strict";
import { COMMAND_BODIES, SERIAL as SN, MAP_ID, TEMP_SITE_TASK_BODY, TEMP_TASK_BODY } from "../support/fixtures";
import { ENDPOINTS, OPERATION_NAMES, type OperationName, type RobotOperationName } from "../../src/api/cloud/endpoints";
import { describeIssues, isRobotApiError } from "../../src/api/errors";
import { prepareCall } from "../../src/api/http/prepare";
import { OPEN_ACCESS_GRANT_TYPE } from "../../src/api/cloud/schemas";
import { useClientOnRecordingServer } from "../support/client-on-server";
import { assertSamplesCover, schemaFields, withField, wrongTypesOf, type JsonType } from "../support/schema-fields";

/** Valid requests that between them hold every field of each operation's schema. */
const SAMPLES: Record<OperationName, readonly Record<string, unknown>[]> = {
  submitCommand: [COMMAND_BODIES.START_TASK, COMMAND_BODIES.CROSS_NAVIGATE, COMMAND_BODIES.REMOTE_CONTROL_MOVE],
  getCommand: [{ serialNumber: SN, commandId: "0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b" }],
  getRobotStatus: [{ serialNumber: SN }],
  getSiteInfo: [{ serialNumber: SN }],
  createTempSiteTask: [TEMP_SITE_TASK_BODY],
  sendTempTask: [TEMP_TASK_BODY],
  getSubareas: [{ mapId: MAP_ID, robotSn: SN }],
  listMaps: [{ robotSn: SN }],
  listRobots: [{ page: 2, pageSize: 50, relation: "cugrup" }],
  batchGetRobotStatus: [{ names: [SN] }],
  batchGetSRobotStatus: [{ names: [SN] }],
  listTaskReports: [
    { serialNumber: SN, page: 3, pageSize: 10, startTimeUtcFloor: "2026-11-01T00:00:00Z", startTimeUtcUpper: "2026-11-02T00:00:00Z" },
  ],
  getTaskReportImages: [{ robotSn: SN, taskReportId: "r-1" }],
  getMapImageUri: [{ serialNumber: SN, mapId: MAP_ID, mapName: "Floor 1", mapVersion: "3" }],
  grantToken: [{ grant_type: OPEN_ACCESS_GRANT_TYPE, client_id: "client-1", client_secret: "cs-1", open_access_key: "aks-1" }],
};

/**
 * The fields documented (docs/cloud-api.md) to take more than one type; every
 * other field takes only the type of its sample's value.
 */
const SEVERAL_TYPES: Partial<Record<OperationName, Record<string, readonly JsonType[]>>> = {
  createTempSiteTask: { "floors.0.area.id": ["string", "number"], "tasks.0.subTasks.0.areaId": ["string", "number"] },
  sendTempTask: {
    "tempTaskCommand.loop": ["boolean", "string"],
    "tempTaskCommand.loopCount": ["number", "string"],
    "tempTaskCommand.startParam.areaId": ["string", "number"],
  },
  listRobots: { page: ["number", "string"], pageSize: ["number", "string"] },
  // The time window takes ISO 8601 text or epoch milliseconds (a Date too, which JSON has not).
  listTaskReports: {
    page: ["number", "string"],
    pageSize: ["number", "string"],
    startTimeUtcFloor: ["string", "number"],
    startTimeUtcUpper: ["string", "number"],
  },
  getMapImageUri: { mapVersion: ["string", "number"] },
};

const wrongTypeCases = (operation: OperationName) => wrongTypesOf(SAMPLES[operation], SEVERAL_TYPES[operation]);

describe("api: a wrong type in any field of any request is refused, naming the field", function () {
  const context = useClientOnRecordingServer({ auth: { token: "tok-fields-1" }, retry: { maxRetries: 0 } });

  it("the samples are valid and hold every field of every request schema", function () {
    for (const operation of OPERATION_NAMES) {
      const request = ENDPOINTS[operation].request;
      for (const sample of SAMPLES[operation])
        assert.ok(request.safeParse(sample).success, `${operation}: sample ${JSON.stringify(sample)} is valid`);
      assertSamplesCover(operation, request, SAMPLES[operation]);
      const fields = schemaFields(request);
      for (const field of Object.keys(SEVERAL_TYPES[operation] ?? {}))
        assert.ok(fields.includes(field), `${operation}.${field} is a field`);
    }
  });

  for (const operation of OPERATION_NAMES.filter((name): name is RobotOperationName => name !== "grantToken")) {
    it(`${operation}: each field, each wrong type, through the client; nothing sent`, async function () {
      const cases = wrongTypeCases(operation);
      assert.ok(cases.length >= 5, `${cases.length} cases`);
      for (const { field, given, input } of cases) {
        const refusal = await context.client.call(operation, input as never).then(
          () => assert.fail(`${operation}.${field} given a ${given} was accepted`),
          (error: unknown) => error,
        );
        assert.ok(isRobotApiError(refusal), `${operation}.${field} given a ${given}: ${String(refusal)}`);
        assert.equal(refusal.kind, "invalid_input", `${operation}.${field} given a ${given}`);
        assert.equal(refusal.field, field, `${operation}.${field} given a ${given}: ${refusal.message}`);
        assert.match(refusal.message.slice(field.length), /^: \S/, `${refusal.message}: the field, then what is wrong with it`);
      }
      assert.equal(context.server.requests.length, 0);
    });
  }

  it("grantToken: each field, each wrong type, named as the token request's field", function () {
    for (const { field, given, input } of wrongTypeCases("grantToken")) {
      const parsed = ENDPOINTS.grantToken.request.safeParse(input);
      assert.equal(parsed.success, false, `${field} given a ${given} was accepted`);
      const { field: named, message } = describeIssues(parsed.error);
      assert.equal(named, field, `${field} given a ${given}`);
      assert.match(message.slice(field.length), /^: \S/, `${message}: the field, then what is wrong with it`);
    }
  });
});

/** What prepareCall (the one validation of a call) says of `input`, or "accepted". */
function verdictOf(operation: RobotOperationName, input: unknown): string {
  try {
    prepareCall(operation, input);
    return "accepted";
  } catch (error) {
    assert.ok(isRobotApiError(error), String(error));
    return error.message;
  }
}

const RULE = "must be 1-128 letters, digits, '-' or '_'";

/** [operation, field, value, what the user is told]: the words are the interface, so each is written out. */
const WORDING: [RobotOperationName, string, unknown, string][] = [
  ["getRobotStatus", "serialNumber", 7, "serialNumber: must be a string"],
  ["getRobotStatus", "serialNumber", "", "serialNumber: is not set: give the robot's serial number in the message or the node"],
  ["getRobotStatus", "serialNumber", "GS/1", `serialNumber: ${RULE}`],
  ["getCommand", "commandId", 7, "commandId: must be a string"],
  ["getCommand", "commandId", "", "commandId: is not set: give the id of the command (the last part of its name)"],
  ["getCommand", "commandId", "a/b", `commandId: ${RULE} (a UUID such as the end of the command's name)`],
  ["getSubareas", "mapId", 7, "mapId: must be a string"],
  ["getSubareas", "mapId", "  ", "mapId: must not be empty"],
  ["createTempSiteTask", "loopCount", "1", "loopCount: must be a number"],
  ["createTempSiteTask", "loopCount", 1.5, "loopCount: must be a whole number"],
  ["createTempSiteTask", "loopCount", -1, "loopCount: must be 0 or more"],
  ["createTempSiteTask", "floors", [], "floors: must list at least one floor"],
  ["createTempSiteTask", "tasks", [], "tasks: must list at least one task"],
  ["createTempSiteTask", "floors.0.area.id", true, "floors.0.area.id: must be a string or a whole number"],
  ["createTempSiteTask", "floors.0.area.id", 4, "accepted"],
  ["sendTempTask", "tempTaskCommand.loop", "yes", 'tempTaskCommand.loop: must be true, false, "true" or "false"'],
  ["sendTempTask", "tempTaskCommand.loop", "true", "accepted"],
  ["sendTempTask", "tempTaskCommand.loopCount", "x1", "tempTaskCommand.loopCount: must hold a whole number"],
  ["sendTempTask", "tempTaskCommand.loopCount", "1x", "tempTaskCommand.loopCount: must hold a whole number"],
  ["sendTempTask", "tempTaskCommand.loopCount", true, "tempTaskCommand.loopCount: must be a whole number or a string holding one"],
  ["sendTempTask", "tempTaskCommand.loopCount", "12", "accepted"],
  [
    "submitCommand",
    "commandParameter.startTaskParameter.task.loop",
    "true",
    "commandParameter.startTaskParameter.task.loop: must be true or false",
  ],
  ["listRobots", "page", "x", "page: must be a whole number from 1 to 1000000"],
  ["listRobots", "page", 0, "page: must be a whole number from 1 to 1000000"],
  ["listRobots", "page", "1x", "page: must be a whole number from 1 to 1000000"],
  ["listRobots", "page", "x1", "page: must be a whole number from 1 to 1000000"],
  ["listRobots", "page", "12", "accepted"],
  ["listRobots", "pageSize", 1000, "accepted"],
  ["listRobots", "pageSize", 1001, "pageSize: must be a whole number from 1 to 1000"],
  ["batchGetRobotStatus", "names", "GS-1", "names: must be a list of serial numbers"],
  ["batchGetRobotStatus", "names", [], "names: must name at least one robot"],
  [
    "batchGetRobotStatus",
    "names",
    Array.from({ length: 12 }, (_, i) => `GS-${i}`),
    "names: must name at most 11 robots per request (batchGetStatuses splits longer lists)",
  ],
];

const sampleOf = (operation: RobotOperationName) => SAMPLES[operation][0]!;
const FAMILIES = "remoteTaskCommandType, remoteNavigationCommandType, remoteControlCommandType";

describe("api: what a refused request tells the user, word for word", function () {
  for (const [operation, field, value, expected] of WORDING) {
    it(`${operation}.${field} = ${JSON.stringify(value).slice(0, 40)}`, function () {
      assert.equal(verdictOf(operation, withField(sampleOf(operation), field, value)), expected);
    });
  }

  it("a command names its one family and the parameter that command takes, and only that", function () {
    const command = (fields: Record<string, unknown>) => verdictOf("submitCommand", { serialNumber: SN, ...fields });
    assert.equal(command({}), `input: exactly one of ${FAMILIES} is required`);
    assert.equal(
      command({ remoteTaskCommandType: "PAUSE_TASK", remoteControlCommandType: "REMOTE_CONTROL_STOP" }),
      `remoteControlCommandType: only one of ${FAMILIES} may be given (got remoteTaskCommandType and remoteControlCommandType)`,
    );
    assert.equal(command({ remoteTaskCommandType: "START_TASK" }), "commandParameter.startTaskParameter: is required for START_TASK");
    assert.equal(
      command({ remoteTaskCommandType: "PAUSE_TASK", commandParameter: { startNavigationParameter: { map: "a", position: "b" } } }),
      "commandParameter.startNavigationParameter: is not allowed for PAUSE_TASK; commandParameter: must be omitted for PAUSE_TASK",
    );
    assert.equal(
      command({ remoteControlCommandType: "REMOTE_CONTROL_MOVE", commandParameter: { controlMovingParameter: { direction: "UP" } } }),
      "commandParameter.controlMovingParameter.direction: must be one of FORWARD, BACKWARD, LEFT, RIGHT",
    );
  });
});
