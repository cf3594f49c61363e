/**
 * Where requests go: normaliseBaseUrl (http/https only, trailing slash,
 * garbage refused), and path safety: pathFor/matchPath round-trip, and no
 * serial number the schemas accept can make a path other than the endpoint's
 * template (a property checked over nasty and random strings).
 */
import assert from "node:assert/strict";
import { DEFAULT_BASE_URL, RobotClient, normaliseBaseUrl, prepareCall } from "../../src/api/client";
import {
  ENDPOINTS,
  OPERATION_NAMES,
  matchPath,
  pathFor,
  pathParamsOf,
  type Endpoint,
  type OperationName,
  type RequestOf,
} from "../../src/api/cloud/endpoints";
import { RobotApiError } from "../../src/api/errors";
import { OPEN_ACCESS_GRANT_TYPE } from "../../src/api/cloud/schemas";
import { RecordingServer, useRecordingServer } from "../support/recording-server";

const TOKEN = "tok-paths-0a0b";

function thrownBy(action: () => unknown): RobotApiError {
  try {
    action();
  } catch (error) {
    assert.ok(error instanceof RobotApiError, `expected a RobotApiError, got ${String(error)}`);
    return error;
  }
  return assert.fail("expected a RobotApiError to be thrown");
}

describe("api: normaliseBaseUrl", function () {
  const accepted: [string, string][] = [
    ["https://openapi.gs-robot.com", "https://openapi.gs-robot.com"],
    ["https://openapi.gs-robot.com/", "https://openapi.gs-robot.com"],
    ["https://openapi.gs-robot.com///", "https://openapi.gs-robot.com"],
    ["http://127.0.0.1:1880/", "http://127.0.0.1:1880"],
    ["  https://example.test/gateway/  ", "https://example.test/gateway"],
    ["HTTPS://Example.TEST/Api", "https://example.test/Api"],
    ["http://[::1]:8080", "http://[::1]:8080"],
  ];
  for (const [raw, expected] of accepted) {
    it(`${JSON.stringify(raw)} -> ${expected}`, function () {
      assert.equal(normaliseBaseUrl(raw), expected);
    });
  }

  const refused: [string, unknown, RegExp][] = [
    ["ftp:", "ftp://example.test/", /only http and https/],
    ["file:", "file:///etc/passwd", /only http and https/],
    ["javascript:", "javascript:alert(1)", /only http and https/],
    ["data:", "data:text/plain,hello", /only http and https/],
    ["ws:", "ws://example.test", /only http and https/],
    ["empty", "", /not a URL/],
    ["blank", "   ", /not a URL/],
    ["words", "not a url", /not a URL/],
    ["missing colon", "http//example.test", /not a URL/],
    ["no host", "http://", /not a URL/],
    ["credentials", "https://user:pw@example.test", /credentials/],
    ["query", "https://example.test/?key=1", /query/],
    ["fragment", "https://example.test/#top", /fragment/],
    ["not a string", 42, /string/],
  ];
  for (const [name, raw, problem] of refused) {
    it(`refuses ${name} (${JSON.stringify(raw)}) as invalid_input naming baseUrl`, function () {
      const error = thrownBy(() => normaliseBaseUrl(raw as string));
      assert.equal(error.kind, "invalid_input");
      assert.equal(error.field, "baseUrl");
      assert.ok(error.message.startsWith("baseUrl: "), error.message);
      assert.match(error.message, problem);
    });
  }

  it("the client refuses a bad base URL when it is made", function () {
    const error = thrownBy(() => new RobotClient({ baseUrl: "javascript:alert(1)", auth: { token: TOKEN } }));
    assert.equal(error.field, "baseUrl");
  });

  it("the client defaults to the real cloud", function () {
    const client = new RobotClient({ auth: { token: TOKEN } });
    assert.equal(client.baseUrl, "https://openapi.gs-robot.com");
    assert.equal(DEFAULT_BASE_URL, "https://openapi.gs-robot.com");
  });

  describe("on the wire", function () {
    const stub = useRecordingServer();

    it("a trailing slash does not double the slash in the request path", async function () {
      stub.server.reply({ body: { code: 0, msg: "SUCCESS", data: [] } });
      await new RobotClient({ baseUrl: `${stub.server.url}/`, auth: { token: TOKEN } }).listMaps({ robotSn: "SN-1" });
      assert.equal(stub.server.requests[0]!.path, "/openapi/v1/map/robotMap/list");
    });

    it("a path prefix in the base URL is kept (gateway in front of the cloud)", async function () {
      stub.server.reply({ body: {} });
      await new RobotClient({ baseUrl: `${stub.server.url}/gateway/`, auth: { token: TOKEN } }).getRobotStatus({ serialNumber: "SN-1" });
      assert.equal(stub.server.requests[0]!.path, "/gateway/openapi/v2alpha1/s/robots/SN-1/status");
    });
  });
});

// ---------------------------------------------------------------- path safety

const COMMAND_ID = "0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b";

/** A request of each operation with `serial` where the robot's serial number goes. */
const WITH_SERIAL: { [Op in OperationName]: (serial: string) => RequestOf<Op> } = {
  submitCommand: (serial) => ({ serialNumber: serial, remoteTaskCommandType: "PAUSE_TASK" }),
  getCommand: (serial) => ({ serialNumber: serial, commandId: COMMAND_ID }),
  getRobotStatus: (serial) => ({ serialNumber: serial }),
  getSiteInfo: (serial) => ({ serialNumber: serial }),
  createTempSiteTask: (serial) => ({
    cleaningMode: "清扫",
    loopCount: 1,
    siteId: "site-1",
    siteName: "Head office",
    taskName: "Morning",
    floors: [{ index: 0, name: "Floor 1", mapId: "m-1", area: { id: "1", name: "Lobby" } }],
    tasks: [{ mapId: "m-1", subTasks: [{ mapId: "m-1", areaId: "1" }] }],
    serialNumber: serial,
  }),
  sendTempTask: (serial) => ({
    productId: serial,
    tempTaskCommand: {
      taskName: "Spot",
      cleaningMode: "清扫",
      loop: "false",
      loopCount: "1",
      mapName: "Floor 1",
      startParam: { mapId: "m-1", areaId: "2" },
    },
  }),
  getSubareas: (serial) => ({ mapId: "m-1", robotSn: serial }),
  listMaps: (serial) => ({ robotSn: serial }),
  // The account's robots: no serial number anywhere, the path stays fixed.
  listRobots: () => ({ page: 1, pageSize: 100 }),
  batchGetRobotStatus: (serial) => ({ names: ["GS-S-000101", serial] }),
  batchGetSRobotStatus: (serial) => ({ names: [serial] }),
  listTaskReports: (serial) => ({ serialNumber: serial, page: 2, pageSize: 10 }),
  getTaskReportImages: (serial) => ({ robotSn: serial, taskReportId: "r-1" }),
  getMapImageUri: (serial) => ({ serialNumber: serial, mapId: "m-1", mapName: "Floor 1", mapVersion: 3 }),
  // The grant names no robot: its path must stay fixed whatever else is passed.
  grantToken: () => ({ grant_type: OPEN_ACCESS_GRANT_TYPE, client_id: "c", client_secret: "s", open_access_key: "k" }),
};

/** For path parameters other than the serial number: a request with `value` in that parameter. */
const WITH_PATH_VALUE: Record<string, Partial<{ [Op in OperationName]: (value: string) => RequestOf<Op> }>> = {
  commandId: { getCommand: (value) => ({ serialNumber: "GS-S-000101", commandId: value }) },
};

/** Every way a test string can reach a path: each operation's serial number, and each other parameter. */
const INJECTIONS: { operation: OperationName; param: string; request: (value: string) => unknown }[] = [
  ...OPERATION_NAMES.map((operation) => ({ operation, param: "serialNumber", request: WITH_SERIAL[operation] })),
  ...Object.entries(WITH_PATH_VALUE).flatMap(([param, byOperation]) =>
    Object.entries(byOperation).map(([operation, request]) => ({ operation: operation as OperationName, param, request })),
  ),
];

/** The path parameters of a validated request, as the client takes them. */
function paramsOf(endpoint: Endpoint, request: unknown): Record<string, string> {
  const fields = request as Record<string, unknown>;
  return Object.fromEntries(pathParamsOf(endpoint.path).map((name) => [name, String(fields[name])]));
}

const NASTY = [
  "",
  " ",
  ".",
  "..",
  "../x",
  "..%2f",
  "%2e%2e",
  "%2F",
  "a/b",
  "a\\b",
  "/",
  "a?b=c",
  "a#b",
  "a b",
  "a;b",
  "a%00",
  "a\u0000b",
  "x\n",
  "\u2215etc",
  "\uFF0E\uFF0E",
  "é",
  "\uD800",
  "-leading-dash",
  "_",
  "A".repeat(128),
  "A".repeat(129),
  "GS-S-000101",
  "gs_s_000101",
  "0",
];

/** A small deterministic generator, so a failure can be replayed. */
function randomSerials(count: number, seed: number): string[] {
  const alphabet = "aZ09-_./\\%?#&=+:;@~ \u0000\n\u2215\uFF0E\u00E9";
  let state = seed;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
  return Array.from({ length: count }, () => {
    const length = Math.floor(next() * 10);
    return Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
  });
}

describe("api: path safety", function () {
  const templated = OPERATION_NAMES.filter((operation) => pathParamsOf(ENDPOINTS[operation].path).length > 0);
  /** A valid value of each path parameter. */
  const VALID: Record<string, string> = { serialNumber: "GS-S-000101", commandId: COMMAND_ID };

  it("path parameters are exactly these, each a field of its row's request", function () {
    const params = Object.fromEntries(templated.map((operation) => [operation, pathParamsOf(ENDPOINTS[operation].path)]));
    assert.deepEqual(params, {
      submitCommand: ["serialNumber"],
      getCommand: ["serialNumber", "commandId"],
      getRobotStatus: ["serialNumber"],
      getSiteInfo: ["serialNumber"],
      listTaskReports: ["serialNumber"],
      getMapImageUri: ["serialNumber"],
    });
    for (const operation of templated) {
      const shape = (ENDPOINTS[operation].request as unknown as { shape?: Record<string, unknown> }).shape;
      for (const name of pathParamsOf(ENDPOINTS[operation].path))
        assert.ok(shape && name in shape, `${operation}: ${name} is not a request field`);
    }
  });

  it("pathFor refuses an empty, '.' or '..' value, which no encoding keeps in its segment", function () {
    for (const value of ["", ".", "..", undefined]) {
      const error = thrownBy(() => pathFor(ENDPOINTS.getCommand, { serialNumber: "SN-1", commandId: value }));
      assert.equal(error.kind, "invalid_input");
      assert.equal(error.field, "commandId");
    }
    // WHATWG URL parsing (browsers, most HTTP clients) would have turned these into a path one level up.
    assert.equal(new URL("/v1alpha1/robots/SN/commands/%2e%2e", "http://h").pathname, "/v1alpha1/robots/SN/");
  });

  for (const operation of templated) {
    const endpoint = ENDPOINTS[operation] as unknown as Endpoint;
    const names = pathParamsOf(endpoint.path);
    const valid = Object.fromEntries(names.map((name) => [name, VALID[name]!]));

    it(`${operation}: pathFor and matchPath round-trip in every parameter, and match no other template`, function () {
      for (const name of names) {
        for (const value of ["GS-S-000101", "A", "a_b-C9", "x".repeat(128), "a/b", "%2e%2e", "é", "...", "a?b#c", "x y"]) {
          const params = { ...valid, [name]: value };
          const path = pathFor(endpoint, params);
          assert.deepEqual(matchPath(endpoint, path), params, path);
          for (const other of OPERATION_NAMES.filter((candidate) => candidate !== operation)) {
            assert.equal(matchPath(ENDPOINTS[other] as unknown as Endpoint, path), undefined, `${path} matched ${other}`);
          }
        }
      }
    });

    it(`${operation}: matchPath refuses paths outside the template`, function () {
      for (const name of names) {
        const [before, after] = pathFor(endpoint, { ...valid, [name]: "\u0000" }).split("%00") as [string, string];
        for (const path of [
          `${before}${after}`,
          `${before}a/b${after}`,
          `${before}SN${after}/extra`,
          `/prefix${before}SN${after}`,
          `${before}%E0%A4%A${after}`,
          `${before}..${after}`,
          `${before}%2E${after}`,
        ]) {
          assert.equal(matchPath(endpoint, path), undefined, path);
        }
      }
    });
  }

  it("endpoints without parameters in their template keep their path whatever values are given", function () {
    for (const operation of OPERATION_NAMES.filter((name) => !templated.includes(name))) {
      const endpoint = ENDPOINTS[operation] as unknown as Endpoint;
      for (const serial of [...NASTY.filter((s) => !s.includes("\uD800")), undefined]) {
        assert.equal(pathFor(endpoint, { serialNumber: serial, commandId: serial }), endpoint.path);
      }
      assert.deepEqual(matchPath(endpoint, endpoint.path), {});
      assert.equal(matchPath(endpoint, `${endpoint.path}/x`), undefined);
    }
  });

  const candidates = [...NASTY, ...randomSerials(400, 0x5eed1234)];

  it(`no value the schemas accept leaves its segment (${candidates.length} strings x every way into a path)`, function () {
    let accepted = 0;
    let refused = 0;
    for (const { operation, param, request } of INJECTIONS) {
      const endpoint = ENDPOINTS[operation] as unknown as Endpoint;
      for (const value of candidates) {
        const parsed = endpoint.request.safeParse(request(value));
        if (!parsed.success) {
          refused++;
          continue;
        }
        accepted++;
        const params = paramsOf(endpoint, parsed.data);
        const path = pathFor(endpoint, params);
        if (!(param in params)) {
          assert.equal(path, endpoint.path);
          continue;
        }
        // Accepted values need no escaping, survive URL normalisation and come back unchanged.
        assert.equal(params[param], value);
        assert.equal(
          path,
          endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name]!),
          JSON.stringify(value),
        );
        assert.equal(new URL(path, "http://127.0.0.1").pathname, path, JSON.stringify(value));
        assert.deepEqual(matchPath(endpoint, path), params);
        assert.match(value, /^[A-Za-z0-9][A-Za-z0-9_-]*$/);
      }
    }
    // The property means something only if both sides were exercised.
    assert.ok(accepted > 20, `accepted ${accepted}`);
    assert.ok(refused > 100, `refused ${refused}`);
  });

  it(`no map name, id or version leaves its query parameter (${candidates.length} strings in each)`, function () {
    let accepted = 0;
    const base = { serialNumber: "GS-S-000101", mapId: "m-1", mapName: "Floor 1", mapVersion: "3" };
    for (const value of candidates) {
      for (const field of ["mapId", "mapName", "mapVersion"] as const) {
        let prepared;
        try {
          prepared = prepareCall("getMapImageUri", { ...base, [field]: value });
        } catch (error) {
          assert.ok(error instanceof RobotApiError && error.kind === "invalid_input", `${JSON.stringify(value)}: ${String(error)}`);
          continue;
        }
        accepted++;
        const url = new URL(`${prepared.path}${prepared.query}`, "http://127.0.0.1");
        assert.equal(url.pathname, "/openapi/v2alpha1/robots/GS-S-000101/map");
        assert.equal(url.hash, "");
        assert.deepEqual(
          [...url.searchParams],
          [
            ["mapId", base.mapId],
            ["mapName", base.mapName],
            ["mapVersion", base.mapVersion],
          ].map(([name, text]) => [name, name === field ? value : text]),
          JSON.stringify(value),
        );
      }
    }
    assert.ok(accepted > 300, `accepted ${accepted}`);
  });

  it(`no query value leaves its parameter or the query (${candidates.length} strings in relation, and in page)`, function () {
    let accepted = 0;
    for (const value of candidates) {
      for (const input of [{ relation: value }, { page: value }]) {
        let query: string;
        try {
          query = prepareCall("listRobots", input).query;
        } catch (error) {
          assert.ok(error instanceof RobotApiError && error.kind === "invalid_input", `${JSON.stringify(value)}: ${String(error)}`);
          continue;
        }
        accepted++;
        const url = new URL(`${ENDPOINTS.listRobots.path}${query}`, "http://127.0.0.1");
        assert.equal(url.pathname, ENDPOINTS.listRobots.path);
        assert.equal(url.hash, "");
        const expected = { page: "1", pageSize: "100", relation: "cugrup", ...input };
        assert.deepEqual([...url.searchParams.keys()], ["page", "pageSize", "relation"], JSON.stringify(value));
        assert.deepEqual(Object.fromEntries(url.searchParams), { ...expected, page: String(Number(expected.page)) }, JSON.stringify(value));
        // Only unreserved characters and %XX escapes: nothing a server could read as '+' for a space, '&' or '#'.
        assert.match(query.slice(1), /^([A-Za-z0-9_.!~*'()-]|%[0-9A-F]{2}|[=&])*$/, JSON.stringify(value));
      }
    }
    assert.ok(accepted > 100, `accepted ${accepted}`);
  });

  it("a lone surrogate in a query value is an invalid input naming the field, not a URIError", function () {
    const error = thrownBy(() => prepareCall("listRobots", { relation: "a\uD800" }));
    assert.equal(error.kind, "invalid_input");
    assert.equal(error.field, "relation");
  });

  it("every nasty serial is refused or sent to exactly its template path (over HTTP)", async function () {
    const server = await new RecordingServer().start();
    try {
      const client = new RobotClient({ baseUrl: server.url, auth: { token: TOKEN } });
      for (const serial of NASTY) {
        server.reset();
        server.reply({ body: {} });
        const outcome = await client.getSiteInfo({ serialNumber: serial }).then(
          () => "sent",
          (error: unknown) => (error instanceof RobotApiError ? error.kind : String(error)),
        );
        if (/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(serial)) {
          assert.equal(outcome, "sent", JSON.stringify(serial));
          assert.deepEqual(
            server.requests.map((request) => request.path),
            [`/openapi/v2alpha1/robots/${serial}/getSiteInfo`],
          );
        } else {
          assert.equal(outcome, "invalid_input", JSON.stringify(serial));
          assert.equal(server.requests.length, 0, `${JSON.stringify(serial)} reached the server`);
        }
      }
    } finally {
      await server.stop();
    }
  });

  it("every nasty command id is refused or sent to exactly its template path (over HTTP)", async function () {
    const server = await new RecordingServer().start();
    try {
      const client = new RobotClient({ baseUrl: server.url, auth: { token: TOKEN } });
      for (const commandId of NASTY) {
        server.reset();
        server.reply({ body: { name: `robots/SN-1/commands/${commandId}`, state: "WAITING" } });
        const outcome = await client.getCommand({ serialNumber: "SN-1", commandId }).then(
          () => "sent",
          (error: unknown) => (error instanceof RobotApiError ? `${error.kind} ${error.field}` : String(error)),
        );
        if (/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(commandId)) {
          assert.equal(outcome, "sent", JSON.stringify(commandId));
          assert.deepEqual(
            server.requests.map((request) => request.path),
            [`/v1alpha1/robots/SN-1/commands/${commandId}`],
          );
        } else {
          assert.equal(outcome, "invalid_input commandId", JSON.stringify(commandId));
          assert.equal(server.requests.length, 0, `${JSON.stringify(commandId)} reached the server`);
        }
      }
    } finally {
      await server.stop();
    }
  });
});
