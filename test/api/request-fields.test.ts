/**
 * Every field of every request schema given a value of the wrong type: the
 * call is refused before anything is sent, naming that field. The fields are
 * read from the schemas (endpoints.ts), so a field added later is covered (or
 * this test says it has no valid sample); which types a field takes is written
 * out here, not read from the schema under test.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { COMMAND_BODIES, SERIAL as SN, MAP_ID, TEMP_SITE_TASK_BODY, TEMP_TASK_BODY } from "../support/fixtures";
import { ENDPOINTS, OPERATION_NAMES, type OperationName, type RobotOperationName } from "../../src/api/endpoints";
import { describeIssues, isRobotApiError } from "../../src/api/errors";
import { OPEN_ACCESS_GRANT_TYPE } from "../../src/api/schemas";
import { useClientOnRecordingServer } from "../support/client-on-server";

type JsonType = "string" | "number" | "boolean" | "object" | "array" | "null";

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
  listTaskReports: [{ serialNumber: SN, page: 3, pageSize: 10 }],
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
  listTaskReports: { page: ["number", "string"], pageSize: ["number", "string"] },
  getMapImageUri: { mapVersion: ["string", "number"] },
};

/** One value of each type, none of which any field takes unless it takes its type. */
const WRONG_VALUES: Record<JsonType, unknown> = { string: "7", number: 7, boolean: true, object: {}, array: ["7"], null: null };

function typeOf(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean" || type === "object") return type;
  throw new Error(`a sample holds a ${type}`);
}

/** The schema's fields as dotted paths (an array's element as ".0"), objects and arrays included. */
function schemaFields(schema: z.core.$ZodType, path = ""): string[] {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) return schemaFields(schema.unwrap(), path);
  if (schema instanceof z.ZodPipe) return schemaFields(schema.in, path);
  const here = path === "" ? [] : [path];
  if (schema instanceof z.ZodObject) {
    return [...here, ...Object.entries(schema.shape).flatMap(([name, field]) => schemaFields(field as z.core.$ZodType, join(path, name)))];
  }
  if (schema instanceof z.ZodArray) return [...here, ...schemaFields(schema.element, join(path, "0"))];
  return here;
}

/** The fields of a sample as dotted paths with their values (an array's first element only). */
function sampleFields(value: unknown, path = ""): [string, unknown][] {
  const here: [string, unknown][] = path === "" ? [] : [[path, value]];
  if (Array.isArray(value)) return value.length ? [...here, ...sampleFields(value[0], join(path, "0"))] : here;
  if (typeof value === "object" && value !== null) {
    return [...here, ...Object.entries(value).flatMap(([name, field]) => sampleFields(field, join(path, name)))];
  }
  return here;
}

const join = (path: string, name: string) => (path === "" ? name : `${path}.${name}`);

/** A deep copy of `sample` with the field at `path` replaced by `value`. */
function withField(sample: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(sample);
  const names = path.split(".");
  let parent = copy;
  for (const name of names.slice(0, -1)) parent = parent[name] as Record<string, unknown>;
  parent[names.at(-1)!] = value;
  return copy;
}

interface WrongTypeCase {
  operation: OperationName;
  field: string;
  given: JsonType;
  input: Record<string, unknown>;
}

function wrongTypeCases(operation: OperationName): WrongTypeCase[] {
  const cases: WrongTypeCase[] = [];
  const seen = new Set<string>();
  for (const sample of SAMPLES[operation]) {
    for (const [field, value] of sampleFields(sample)) {
      if (seen.has(field)) continue;
      seen.add(field);
      const takes = SEVERAL_TYPES[operation]?.[field] ?? [typeOf(value)];
      for (const given of Object.keys(WRONG_VALUES) as JsonType[]) {
        if (!takes.includes(given)) cases.push({ operation, field, given, input: withField(sample, field, WRONG_VALUES[given]) });
      }
    }
  }
  return cases;
}

describe("api: a wrong type in any field of any request is refused, naming the field", function () {
  const context = useClientOnRecordingServer({ auth: { token: "tok-fields-1" }, retry: { maxRetries: 0 } });

  it("the samples are valid and hold every field of every request schema", function () {
    for (const operation of OPERATION_NAMES) {
      const request = ENDPOINTS[operation].request;
      const sampled = new Set<string>();
      for (const sample of SAMPLES[operation]) {
        assert.ok(request.safeParse(sample).success, `${operation}: sample ${JSON.stringify(sample)} is valid`);
        for (const [field] of sampleFields(sample)) sampled.add(field);
      }
      const fields = schemaFields(request);
      assert.ok(fields.length > 0, `${operation}: its schema has fields`);
      assert.deepEqual(fields.filter((field) => !sampled.has(field)), [], `${operation}: fields without a sample`);
      assert.deepEqual([...sampled].filter((field) => !fields.includes(field)), [], `${operation}: sampled fields the schema lacks`);
      for (const field of Object.keys(SEVERAL_TYPES[operation] ?? {})) assert.ok(fields.includes(field), `${operation}.${field} is a field`);
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
        assert.ok(refusal.message.startsWith(`${field}: `), refusal.message);
      }
      assert.equal(context.server.requests.length, 0);
    });
  }

  it("grantToken: each field, each wrong type, named as the token request's field", function () {
    for (const { field, given, input } of wrongTypeCases("grantToken")) {
      const parsed = ENDPOINTS.grantToken.request.safeParse(input);
      assert.equal(parsed.success, false, `${field} given a ${given} was accepted`);
      assert.equal(describeIssues(parsed.error).field, field, `${field} given a ${given}`);
    }
  });
});
