/**
 * Where requests go: normaliseBaseUrl (http/https only, trailing slash,
 * garbage refused), and path safety: pathFor/matchPath round-trip, and no
 * serial number the schemas accept can make a path other than the endpoint's
 * template (a property checked over nasty and random strings).
 */
import assert from "node:assert/strict";
import { DEFAULT_BASE_URL, RobotClient, normaliseBaseUrl } from "../../src/api/client";
import {
  ENDPOINTS,
  OPERATION_NAMES,
  matchPath,
  pathFor,
  type Endpoint,
  type OperationName,
  type RequestOf,
} from "../../src/api/endpoints";
import { RobotApiError } from "../../src/api/errors";
import { OPEN_ACCESS_GRANT_TYPE } from "../../src/api/schemas";
import { RecordingServer } from "../support/recording-server";

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
    let server: RecordingServer;
    before(async () => {
      server = await new RecordingServer().start();
    });
    after(async () => {
      await server.stop();
    });
    beforeEach(() => server.reset());

    it("a trailing slash does not double the slash in the request path", async function () {
      server.reply({ body: { code: 0, msg: "SUCCESS", data: [] } });
      await new RobotClient({ baseUrl: `${server.url}/`, auth: { token: TOKEN } }).listMaps({ robotSn: "SN-1" });
      assert.equal(server.requests[0]!.path, "/openapi/v1/map/robotMap/list");
    });

    it("a path prefix in the base URL is kept (gateway in front of the cloud)", async function () {
      server.reply({ body: {} });
      await new RobotClient({ baseUrl: `${server.url}/gateway/`, auth: { token: TOKEN } }).getRobotStatus({ serialNumber: "SN-1" });
      assert.equal(server.requests[0]!.path, "/gateway/openapi/v2alpha1/s/robots/SN-1/status");
    });
  });
});

// ---------------------------------------------------------------- path safety

/** A request of each operation with `serial` where the robot's serial number goes. */
const WITH_SERIAL: { [Op in OperationName]: (serial: string) => RequestOf<Op> } = {
  submitCommand: (serial) => ({ serialNumber: serial, remoteTaskCommandType: "PAUSE_TASK" }),
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
    tempTaskCommand: { taskName: "Spot", cleaningMode: "清扫", loop: "false", loopCount: "1", mapName: "Floor 1", startParam: { mapId: "m-1", areaId: "2" } },
  }),
  getSubareas: (serial) => ({ mapId: "m-1", robotSn: serial }),
  listMaps: (serial) => ({ robotSn: serial }),
  // The grant names no robot: its path must stay fixed whatever else is passed.
  grantToken: () => ({ grant_type: OPEN_ACCESS_GRANT_TYPE, client_id: "c", client_secret: "s", open_access_key: "k" }),
};

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
  const templated = OPERATION_NAMES.filter((operation) => ENDPOINTS[operation].path.includes("{serialNumber}"));

  it("the serial number is in the path of A, B1 and B2 only", function () {
    assert.deepEqual([...templated].sort(), ["getRobotStatus", "getSiteInfo", "submitCommand"]);
  });

  for (const operation of templated) {
    const endpoint = ENDPOINTS[operation] as unknown as Endpoint;
    it(`${operation}: pathFor and matchPath round-trip, and match no other template`, function () {
      for (const serial of ["GS-S-000101", "A", "a_b-C9", "x".repeat(128), "a/b", "%2e%2e", "é", ".."]) {
        const path = pathFor(endpoint, serial);
        assert.equal(matchPath(endpoint, path), serial, path);
        for (const other of OPERATION_NAMES.filter((name) => name !== operation)) {
          assert.equal(matchPath(ENDPOINTS[other] as unknown as Endpoint, path), undefined, `${path} matched ${other}`);
        }
      }
    });

    it(`${operation}: matchPath refuses paths outside the template`, function () {
      const [before, after] = endpoint.path.split("{serialNumber}") as [string, string];
      for (const path of [
        `${before}${after}`,
        `${before}a/b${after}`,
        `${before}SN${after}/extra`,
        `/prefix${before}SN${after}`,
        `${before}%E0%A4%A${after}`,
      ]) {
        assert.equal(matchPath(endpoint, path), undefined, path);
      }
    });
  }

  it("endpoints without a serial number in their template keep their path whatever serial is given", function () {
    for (const operation of OPERATION_NAMES.filter((name) => !templated.includes(name))) {
      const endpoint = ENDPOINTS[operation] as unknown as Endpoint;
      for (const serial of [...NASTY.filter((s) => !s.includes("\uD800")), undefined]) {
        assert.equal(pathFor(endpoint, serial), endpoint.path);
      }
      assert.equal(matchPath(endpoint, endpoint.path), "");
      assert.equal(matchPath(endpoint, `${endpoint.path}/x`), undefined);
    }
  });

  const candidates = [...NASTY, ...randomSerials(400, 0x5eed1234)];

  it(`no serial the schemas accept leaves the template (${candidates.length} strings x every row)`, function () {
    let accepted = 0;
    let refused = 0;
    for (const operation of OPERATION_NAMES) {
      const endpoint = ENDPOINTS[operation] as unknown as Endpoint;
      for (const serial of candidates) {
        const parsed = endpoint.request.safeParse(WITH_SERIAL[operation](serial));
        if (!parsed.success) {
          refused++;
          continue;
        }
        accepted++;
        const path = pathFor(endpoint, endpoint.serialNumberOf?.(parsed.data));
        if (!endpoint.path.includes("{serialNumber}")) {
          assert.equal(path, endpoint.path);
          continue;
        }
        // Accepted serials need no escaping, survive URL normalisation and come back unchanged.
        assert.equal(path, endpoint.path.replace("{serialNumber}", serial), JSON.stringify(serial));
        assert.equal(new URL(path, "http://127.0.0.1").pathname, path, JSON.stringify(serial));
        assert.equal(matchPath(endpoint, path), serial);
        assert.match(serial, /^[A-Za-z0-9][A-Za-z0-9_-]*$/);
      }
    }
    // The property means something only if both sides were exercised.
    assert.ok(accepted > 20, `accepted ${accepted}`);
    assert.ok(refused > 100, `refused ${refused}`);
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
          assert.deepEqual(server.requests.map((request) => request.path), [`/openapi/v2alpha1/robots/${serial}/getSiteInfo`]);
        } else {
          assert.equal(outcome, "invalid_input", JSON.stringify(serial));
          assert.equal(server.requests.length, 0, `${JSON.stringify(serial)} reached the server`);
        }
      }
    } finally {
      await server.stop();
    }
  });
});
