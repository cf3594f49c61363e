/**
 * Every typed field of every answer given a value of the wrong type: the call
 * fails as a bad_response naming that field (answers are loose: unknown fields
 * pass, but a field the package reads must be what it reads). The fields are
 * read from the answer schemas, so a field typed later needs a sample here;
 * which types a field takes is written out here. Each answer goes through
 * readAnswer, which the client reads every answer with (no socket needed).
 */
import assert from "node:assert/strict";
import { readAnswer } from "../../src/api/http/answers";
import { redactorOf } from "../../src/api/http/redaction";
import { ENDPOINTS, type Endpoint, type OperationName } from "../../src/api/cloud/endpoints";
import { isRobotApiError } from "../../src/api/errors";
import { MAP_ID, SERIAL as SN } from "../support/fixtures";
import { assertSamplesCover, wrongTypesOf, type JsonType } from "../support/schema-fields";

const COMMAND = {
  name: `robots/${SN}/commands/1`,
  parent: `robots/${SN}`,
  commandParameter: {},
  state: "WAITING",
  serialNumber: SN,
  user: "u-1",
  createTime: "2024-05-01T08:00:00Z",
  updateTime: "2024-05-01T08:00:00Z",
  startTime: "2024-05-01T08:00:00Z",
  startDelay: 0,
  rawCommandType: "pause_task",
};
const STATUS = { serialNumber: SN, taskState: "IDLE", online: true };

/** A valid answer (the envelope's data, for C1 and C2), per operation with typed fields. */
const ANSWERS: Partial<Record<OperationName, { answer: Record<string, unknown> }>> = {
  submitCommand: { answer: COMMAND },
  getCommand: { answer: COMMAND },
  getRobotStatus: { answer: STATUS },
  sendTempTask: {
    answer: { productId: SN, requestId: "r-1", orderType: "start_task", cmdStatus: 5, cmdResultCode: "0" },
  },
  getSubareas: { answer: { mapId: MAP_ID, subareas: { partitions: [{ id: 1, name: "Lobby" }] } } },
  listMaps: { answer: [{ mapId: MAP_ID, mapName: "Floor 1" }] as unknown as Record<string, unknown> },
  listRobots: {
    answer: {
      robots: [
        { serialNumber: SN, displayName: "Lobby", modelFamilyCode: "S", modelTypeCode: "S50", softwareVersion: "3.8.2", online: true },
      ],
      total: 1,
    },
  },
  batchGetRobotStatus: { answer: { robotStatuses: [{ name: `robots/${SN}`, ...STATUS, latestReportTime: 1 }] } },
  batchGetSRobotStatus: { answer: { robotStatus: [STATUS] } },
  listTaskReports: {
    answer: {
      robotTaskReports: [
        {
          id: "r-1",
          displayName: "Nightly",
          robotSerialNumber: SN,
          completionPercentage: 0.5,
          durationSeconds: 60,
          taskEndStatus: 1,
          startTime: "a",
          endTime: "b",
        },
      ],
      total: 1,
    },
  },
  grantToken: { answer: { access_token: "granted-1", token_type: "bearer", expires_in: 86400, refresh_token: "refresh-1" } },
  getMapImageUri: { answer: { downloadUri: "https://objects.example.test/m.png" } },
  getTaskReportImages: { answer: { data: ["https://objects.example.test/r-1.png"] } },
};

/** int64 values may come as numbers or strings (docs/cloud-api.md); a report id is either too. */
const INT64: readonly JsonType[] = ["number", "string"];
const SEVERAL_TYPES: Partial<Record<OperationName, Record<string, readonly JsonType[]>>> = {
  grantToken: { expires_in: INT64 },
  submitCommand: { startDelay: INT64 },
  getCommand: { startDelay: INT64 },
  sendTempTask: { cmdStatus: INT64, cmdResultCode: INT64 },
  listRobots: { total: INT64 },
  batchGetRobotStatus: { "robotStatuses.0.latestReportTime": INT64 },
  listTaskReports: {
    total: INT64,
    "robotTaskReports.0.id": INT64,
    "robotTaskReports.0.durationSeconds": INT64,
    "robotTaskReports.0.taskEndStatus": INT64,
  },
};

/** What is left out: the answers with no typed field (B2, B3). */
const UNTYPED: readonly string[] = ["getSiteInfo", "createTempSiteTask"];

/** What the client makes of `body` answered with HTTP 200 to `operation`. */
function failureOf(operation: OperationName, body: unknown): unknown {
  const answer = { status: 200, statusText: "OK", header: () => undefined, body: Buffer.from(JSON.stringify(body)) };
  try {
    readAnswer(
      ENDPOINTS[operation] as unknown as Endpoint,
      operation,
      answer,
      redactorOf(() => []),
    );
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("api: a wrong type in any typed field of any answer is a bad_response naming the field", function () {
  it("the samples are valid answers and hold every typed field of every answer schema", function () {
    for (const [operation, { answer }] of Object.entries(ANSWERS)) {
      const response = ENDPOINTS[operation as OperationName].response;
      assert.ok(response.safeParse(answer).success, `${operation}: sample is valid`);
      assertSamplesCover(operation, response, [answer]);
    }
    assert.deepEqual(
      Object.keys(ENDPOINTS).filter((name) => !(name in ANSWERS)),
      UNTYPED,
    );
  });

  for (const [operation, { answer }] of Object.entries(ANSWERS) as [OperationName, { answer: Record<string, unknown> }][]) {
    it(`${operation}: each field, each wrong type`, function () {
      const { envelope } = ENDPOINTS[operation];
      const wrap = (data: unknown) => (envelope ? { code: 0, msg: "SUCCESS", data } : data);
      assert.equal(failureOf(operation, wrap(answer)), undefined, "the sample itself is read");
      for (const { field, given, input: wrong } of wrongTypesOf([answer], SEVERAL_TYPES[operation])) {
        const failure = failureOf(operation, wrap(wrong));
        assert.ok(isRobotApiError(failure), `${operation} answer's ${field} given a ${given}: ${String(failure)}`);
        assert.equal(failure.kind, "bad_response", `${field} given a ${given}: ${failure.message}`);
        assert.match(
          failure.message,
          new RegExp(`^${operation}: unexpected answer: ${field.replace(/\./g, "\\.")}: \\S`),
          `${field} given a ${given}`,
        );
      }
    });
  }
});
