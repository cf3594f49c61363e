/**
 * The fleet endpoints of the field notes on the wire, beyond the table's own
 * row test: defaults and encoding of query parameters, the S-line GET body,
 * tolerant answers, refused inputs; and the two helpers built on them:
 * listAllRobots (paging, and its bounds) and batchGetStatuses (batches of 11
 * through the engine).
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import type { CallTracker } from "../../src/api/settings/call-settings";
import { type RecordedRequest } from "../support/recording-server";
import { failureOf } from "../support/failures";
import { useClientOnRecordingServer } from "../support/client-on-server";

const TOKEN = "tok-fleet-5d1f";
const SN = "GS-S-000101";

function serials(count: number, prefix = "SN-"): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}${String(index + 1).padStart(3, "0")}`);
}

/** The query of a recorded request as a list of [name, value] pairs, in order. */
function queryOf(request: RecordedRequest): [string, string][] {
  return [...new URL(request.path, "http://h").searchParams];
}

function namesOf(request: RecordedRequest): string[] {
  return queryOf(request)
    .filter(([name]) => name === "names")
    .map(([, value]) => value);
}

describe("api: fleet endpoints on the wire", function () {
  const stub = useClientOnRecordingServer({ auth: { token: TOKEN }, engine: { rateLimit: 0 } });

  it("listRobots sends page=1&pageSize=100&relation=cugrup when nothing is given", async function () {
    stub.server.reply({ body: { robots: [] } });
    await stub.client.listRobots({});
    assert.equal(stub.server.requests[0]!.path, "/v1alpha1/robots?page=1&pageSize=100&relation=cugrup");
    assert.equal(stub.server.requests[0]!.method, "GET");
    assert.equal(stub.server.requests[0]!.rawBody, "");
  });

  it("query values are percent-encoded (a space is %20) and read back exactly", async function () {
    stub.server.reply({ body: {} });
    await stub.client.listRobots({ page: "3", pageSize: 7, relation: "a b&c=d/é+#" });
    const request = stub.server.requests[0]!;
    assert.equal(request.path, "/v1alpha1/robots?page=3&pageSize=7&relation=a%20b%26c%3Dd%2F%C3%A9%2B%23");
    assert.deepEqual(queryOf(request), [
      ["page", "3"],
      ["pageSize", "7"],
      ["relation", "a b&c=d/é+#"],
    ]);
  });

  it("the v1 batch repeats names once per robot, in order, never comma-joined", async function () {
    stub.server.reply({ body: { robotStatuses: [] } });
    await stub.client.batchGetRobotStatus({ names: ["A-1", "B_2", "c-3"] });
    const request = stub.server.requests[0]!;
    assert.equal(request.path, "/v1alpha1/robots/-/status:batchGet?names=A-1&names=B_2&names=c-3");
    assert.ok(!request.path.includes(","), request.path);
    assert.deepEqual(namesOf(request), ["A-1", "B_2", "c-3"]);
  });

  it("the S-line batch is a GET whose JSON body holds the names, with Content-Type and Content-Length", async function () {
    stub.server.reply({ body: { robotStatus: [{ serialNumber: "A-1" }] } });
    const answer = await stub.client.batchGetSRobotStatus({ names: ["A-1", "B-2"] });
    const request = stub.server.requests[0]!;
    assert.equal(request.method, "GET");
    assert.equal(request.path, "/openapi/v2alpha1/s/robots/*/status:batchGet");
    assert.equal(request.headers["content-type"], "application/json");
    assert.equal(request.rawBody, '{"names":["A-1","B-2"]}');
    assert.equal(request.headers["content-length"], String(request.rawBody.length));
    assert.equal(request.headers["transfer-encoding"], undefined);
    assert.deepEqual(answer, { robotStatus: [{ serialNumber: "A-1" }] });
  });

  it("task reports: the serial number in the path, page and pageSize in the query (defaults 1 and 10)", async function () {
    stub.server.reply({ body: {} }, { body: {} });
    await stub.client.listTaskReports({ serialNumber: SN });
    await stub.client.listTaskReports({ serialNumber: SN, page: 4, pageSize: 25 });
    assert.deepEqual(
      stub.server.requests.map((request) => request.path),
      [`/openapi/v2alpha1/robots/${SN}/taskReports?page=1&pageSize=10`, `/openapi/v2alpha1/robots/${SN}/taskReports?page=4&pageSize=25`],
    );
  });

  it("answers that leave out an empty list are empty lists; unknown fields and int64 strings are kept", async function () {
    stub.server.reply({ body: {} }, { body: { total: "0" } }, { body: {} }, { body: { nextPageToken: "" } });
    assert.deepEqual(await stub.client.listRobots({}), { robots: [] });
    assert.deepEqual(await stub.client.listTaskReports({ serialNumber: SN }), { robotTaskReports: [], total: "0" });
    assert.deepEqual(await stub.client.batchGetRobotStatus({ names: [SN] }), { robotStatuses: [] });
    assert.deepEqual(await stub.client.batchGetSRobotStatus({ names: [SN] }), { robotStatus: [], nextPageToken: "" });
  });

  it("an answer of the wrong shape is a bad_response naming the field", async function () {
    stub.server.reply({ body: { robots: [{ displayName: "no serial" }] } });
    const error = await failureOf(stub.client.listRobots({}));
    assert.equal(error.kind, "bad_response");
    assert.match(error.message, /robots\.0\.serialNumber/);
  });

  const refused: [string, () => Promise<unknown>, string][] = [
    ["twelve names in one batch", () => stub.client.batchGetRobotStatus({ names: serials(12) }), "names"],
    ["no names", () => stub.client.batchGetSRobotStatus({ names: [] }), "names"],
    ["a comma-joined name", () => stub.client.batchGetRobotStatus({ names: ["SN-1,SN-2"] }), "names.0"],
    ["a name with a slash", () => stub.client.batchGetSRobotStatus({ names: ["SN-1", "a/b"] }), "names.1"],
    ["page 0", () => stub.client.listRobots({ page: 0 }), "page"],
    ["pageSize 1001", () => stub.client.listRobots({ pageSize: 1001 }), "pageSize"],
    ["a fractional page", () => stub.client.listTaskReports({ serialNumber: SN, page: 1.5 }), "page"],
    ["page as words", () => stub.client.listTaskReports({ serialNumber: SN, page: "two" }), "page"],
    ["an unknown field", () => stub.client.listRobots({ cursor: "x" } as never), "cursor"],
    ["a bad serial number in the path", () => stub.client.listTaskReports({ serialNumber: "../x" }), "serialNumber"],
  ];
  for (const [name, call, field] of refused) {
    it(`refuses ${name} before sending (invalid_input, field ${field})`, async function () {
      const error = await failureOf(call());
      assert.equal(error.kind, "invalid_input");
      assert.equal(error.field, field);
      assert.equal(stub.server.requests.length, 0);
    });
  }
});

describe("api: listAllRobots", function () {
  const stub = useClientOnRecordingServer({ auth: { token: TOKEN }, engine: { rateLimit: 0 } });

  /** A fleet of `count` robots, paged as the cloud pages it. */
  function fleetOf(count: number) {
    const all = serials(count, "GS-S-");
    return (request: RecordedRequest) => {
      const query = new URL(request.path, "http://h").searchParams;
      const page = Number(query.get("page"));
      const pageSize = Number(query.get("pageSize"));
      const robots = all.slice((page - 1) * pageSize, page * pageSize).map((serialNumber) => ({ serialNumber, extra: "kept" }));
      return { body: { robots, total: String(count) } };
    };
  }

  it("pages on until a page is shorter than pageSize (250 robots: pages of 100, 100, 50)", async function () {
    stub.server.respondWith(fleetOf(250));
    const robots = await stub.client.listAllRobots();
    assert.equal(robots.length, 250);
    assert.deepEqual(robots.slice(0, 2), [
      { serialNumber: "GS-S-001", extra: "kept" },
      { serialNumber: "GS-S-002", extra: "kept" },
    ]);
    assert.deepEqual(
      stub.server.requests.map((request) => request.path),
      [1, 2, 3].map((page) => `/v1alpha1/robots?page=${page}&pageSize=100&relation=cugrup`),
    );
  });

  it("a fleet of exactly two full pages takes a third, empty page to end", async function () {
    stub.server.respondWith(fleetOf(20));
    assert.equal((await stub.client.listAllRobots({ pageSize: 10, relation: "cugrup" })).length, 20);
    assert.equal(stub.server.requests.length, 3);
  });

  it("an empty account is one request and an empty list", async function () {
    stub.server.respondWith(() => ({ body: {} }));
    assert.deepEqual(await stub.client.listAllRobots(), []);
    assert.equal(stub.server.requests.length, 1);
  });

  it("a robot listed on two pages (the fleet changed meanwhile) is kept once", async function () {
    stub.server.reply(
      { body: { robots: [{ serialNumber: "A" }, { serialNumber: "B" }] } },
      { body: { robots: [{ serialNumber: "B" }, { serialNumber: "C" }] } },
      { body: { robots: [{ serialNumber: "D" }] } },
    );
    const robots = await stub.client.listAllRobots({ pageSize: 2 });
    assert.deepEqual(
      robots.map((robot) => robot.serialNumber),
      ["A", "B", "C", "D"],
    );
  });

  it("a server that ignores page stops at the second page with a bad_response", async function () {
    stub.server.respondWith(() => ({ body: { robots: serials(100).map((serialNumber) => ({ serialNumber })) } }));
    const error = await failureOf(stub.client.listAllRobots());
    assert.equal(error.kind, "bad_response");
    assert.match(error.message, /ignore paging/);
    assert.equal(stub.server.requests.length, 2);
  });

  it("a server that never ends is given up on after maxPages, with a bad_response", async function () {
    stub.server.respondWith((request) => {
      const page = new URL(request.path, "http://h").searchParams.get("page")!;
      return { body: { robots: [{ serialNumber: `P${page}-A` }, { serialNumber: `P${page}-B` }] } };
    });
    const error = await failureOf(stub.client.listAllRobots({ pageSize: 2, maxPages: 4 }));
    assert.equal(error.kind, "bad_response");
    assert.match(error.message, /after 4 pages/);
    assert.equal(stub.server.requests.length, 4);
  });

  it("a failing page fails the whole listing with that page's error", async function () {
    stub.server.reply(
      { body: { robots: serials(2).map((serialNumber) => ({ serialNumber })) } },
      { status: 403, body: { code: 7, message: "no" } },
    );
    const error = await failureOf(stub.client.listAllRobots({ pageSize: 2 }));
    assert.equal(error.status, 403);
    assert.equal(error.code, "PERMISSION_DENIED");
  });

  it("refuses a maxPages that is not a whole number of 1 or more", async function () {
    for (const maxPages of [0, -1, 1.5, NaN]) {
      const error = await failureOf(stub.client.listAllRobots({ maxPages }));
      assert.equal(error.field, "maxPages");
    }
    assert.equal(stub.server.requests.length, 0);
  });
});

describe("api: batchGetStatuses", function () {
  const stub = useClientOnRecordingServer({ auth: { token: TOKEN }, engine: { rateLimit: 0 } });

  /** Answers each batch with one status per name asked for, like the cloud. */
  function statusPerName(line: "v1" | "s") {
    return (request: RecordedRequest) => {
      const names = line === "v1" ? namesOf(request) : (request.body as { names: string[] }).names;
      const statuses = names.map((serialNumber) => ({ serialNumber, online: true, latestReportTime: "1714550400000" }));
      return { body: line === "v1" ? { robotStatuses: statuses } : { robotStatus: statuses } };
    };
  }

  it("v1: 25 serial numbers are 3 requests of 11, 11 and 3 names, statuses in order", async function () {
    stub.server.respondWith(statusPerName("v1"));
    const wanted = serials(25);
    const statuses = await stub.client.batchGetStatuses(wanted, { line: "v1" });
    assert.deepEqual(
      statuses.map((status) => status.serialNumber),
      wanted,
    );
    assert.equal(statuses[0]!.latestReportTime, "1714550400000");
    assert.equal(stub.server.requests.length, 3);
    const batches = stub.server.requests.map(namesOf).sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
    assert.deepEqual(batches, [wanted.slice(0, 11), wanted.slice(11, 22), wanted.slice(22)]);
    for (const request of stub.server.requests) {
      assert.equal(request.method, "GET");
      assert.ok(request.path.startsWith("/v1alpha1/robots/-/status:batchGet?names="), request.path);
      assert.equal(request.rawBody, "");
    }
  });

  it("s: 25 serial numbers are 3 GETs with bodies of 11, 11 and 3 names", async function () {
    stub.server.respondWith(statusPerName("s"));
    const wanted = serials(25);
    const statuses = await stub.client.batchGetStatuses(wanted, { line: "s" });
    assert.deepEqual(
      statuses.map((status) => status.serialNumber),
      wanted,
    );
    const bodies = stub.server.requests
      .map((request) => (request.body as { names: string[] }).names)
      .sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
    assert.deepEqual(bodies, [wanted.slice(0, 11), wanted.slice(11, 22), wanted.slice(22)]);
    for (const request of stub.server.requests) {
      assert.equal(request.method, "GET");
      assert.equal(request.path, "/openapi/v2alpha1/s/robots/*/status:batchGet");
    }
  });

  it("exactly 11 is one request, 12 is two; duplicates are asked for once; none is no request", async function () {
    stub.server.respondWith(statusPerName("v1"));
    await stub.client.batchGetStatuses(serials(11), { line: "v1" });
    assert.equal(stub.server.requests.length, 1);
    stub.server.reset();
    stub.server.respondWith(statusPerName("v1"));
    await stub.client.batchGetStatuses(serials(12), { line: "v1" });
    assert.deepEqual(stub.server.requests.map((request) => namesOf(request).length).sort(), [1, 11]);
    stub.server.reset();
    stub.server.respondWith(statusPerName("v1"));
    const statuses = await stub.client.batchGetStatuses(["A", "B", "A", "B", "C"], { line: "v1" });
    assert.deepEqual(namesOf(stub.server.requests[0]!), ["A", "B", "C"]);
    assert.equal(statuses.length, 3);
    stub.server.reset();
    assert.deepEqual(await stub.client.batchGetStatuses([], { line: "s" }), []);
    assert.equal(stub.server.requests.length, 0);
  });

  it("one bad serial number anywhere sends nothing and names its place", async function () {
    const list = [...serials(20), "bad,one"];
    const error = await failureOf(stub.client.batchGetStatuses(list, { line: "v1" }));
    assert.equal(error.kind, "invalid_input");
    assert.equal(error.field, "serialNumbers.20");
    assert.equal(stub.server.requests.length, 0);
  });

  it("refuses an unknown line", async function () {
    assert.equal((await failureOf(stub.client.batchGetStatuses(["A"], { line: "v2" as never }))).field, "line");
    assert.equal(stub.server.requests.length, 0);
  });

  it("keeps at most 5 batches on the wire", async function () {
    let open = 0;
    let most = 0;
    stub.server.respondWith((request) => {
      open++;
      most = Math.max(most, open);
      setTimeout(() => open--, 30);
      return { ...statusPerName("v1")(request), delayMs: 30 };
    });
    assert.equal((await stub.client.batchGetStatuses(serials(110), { line: "v1" })).length, 110);
    assert.equal(stub.server.requests.length, 10);
    assert.ok(most <= 5, `${most} batches at once`);
    assert.ok(most >= 2, "batches do run side by side");
  });

  it("every batch goes through the account's engine: with one connection they wait in its queue", async function () {
    const narrow = new RobotClient({ baseUrl: stub.server.url, auth: { token: TOKEN }, engine: { rateLimit: 0, connections: 1 } });
    try {
      let open = 0;
      let most = 0;
      stub.server.respondWith((request) => {
        open++;
        most = Math.max(most, open);
        setTimeout(() => open--, 10);
        return { ...statusPerName("s")(request), delayMs: 10 };
      });
      let mostWaiting = 0;
      const tracker: CallTracker = {
        waiting: 0,
        sending: 0,
        changed: () => {
          mostWaiting = Math.max(mostWaiting, tracker.waiting);
        },
      };
      const statuses = await narrow.batchGetStatuses(serials(33), { line: "s", tracker });
      assert.equal(statuses.length, 33);
      assert.equal(most, 1, "one request on the wire at a time");
      assert.ok(mostWaiting >= 1, "batches queued in the engine");
      assert.deepEqual([tracker.waiting, tracker.sending], [0, 0]);
    } finally {
      narrow.close();
    }
  });

  it("a failing batch fails the call with its own error, and the batches still waiting are never sent", async function () {
    let calls = 0;
    stub.server.respondWith((request) => {
      calls++;
      // The cloud's own failure, not a robot's (a robot's refusal splits the batch: unreachable-robots.test.ts).
      if (calls === 1) return { status: 500, body: { code: 13, message: "internal error" } };
      return { ...statusPerName("v1")(request), delayMs: 20 };
    });
    // One connection: the other batches wait in the account's queue while the first is answered.
    const narrow = new RobotClient({
      baseUrl: stub.server.url,
      auth: { token: TOKEN },
      engine: { rateLimit: 0, connections: 1 },
      retry: { maxRetries: 0 },
    });
    try {
      const error = await failureOf(narrow.batchGetStatuses(serials(110), { line: "v1" }));
      assert.equal(error.status, 500);
      assert.equal(error.code, "INTERNAL");
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(stub.server.requests.length, 1, "nothing after the failure");
    } finally {
      narrow.close();
    }
  });

  it("the caller's signal withdraws every batch", async function () {
    stub.server.respondWith((request) => ({ ...statusPerName("v1")(request), delayMs: 200 }));
    const controller = new AbortController();
    const pending = stub.client.batchGetStatuses(serials(110), { line: "v1", signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const error = await failureOf(pending);
    assert.equal(error.kind, "aborted");
    assert.ok(stub.server.requests.length <= 5, `${stub.server.requests.length} sent`);
  });
});

describe("api: classes of calls through the client", function () {
  const stub = useClientOnRecordingServer({ auth: { token: TOKEN } });

  it("a status read takes the status class by default: with one connection it goes before commands queued earlier", async function () {
    const narrow = new RobotClient({ baseUrl: stub.server.url, auth: { token: TOKEN }, engine: { rateLimit: 0, connections: 1 } });
    try {
      stub.server.respondWith((request) =>
        request.path.includes("status:batchGet")
          ? { body: { robotStatus: [{ serialNumber: SN }] } }
          : { body: { code: 0, msg: "SUCCESS", data: [] }, delayMs: 5 },
      );
      const held = narrow.listMaps({ robotSn: SN });
      const maps = Array.from({ length: 6 }, () => narrow.listMaps({ robotSn: SN }));
      const statuses = narrow.batchGetStatuses([SN], { line: "s" });
      await Promise.all([held, ...maps, statuses]);
      const paths = stub.server.requests.map((request) => request.path);
      assert.equal(paths.length, 8);
      assert.match(paths[1]!, /status:batchGet/, `the status read came second: ${paths.join(", ")}`);

      // The caller's class wins over the endpoint's: as "other" it waits its turn behind the earlier calls.
      stub.server.requests.length = 0;
      const heldAgain = narrow.listMaps({ robotSn: SN });
      const more = Array.from({ length: 3 }, () => narrow.listMaps({ robotSn: SN }));
      const asOther = narrow.batchGetStatuses([SN], { line: "s", callClass: "other" });
      await Promise.all([heldAgain, ...more, asOther]);
      assert.match(stub.server.requests.at(-1)!.path, /status:batchGet/);
    } finally {
      narrow.close();
    }
  });

  it("an unknown callClass is INVALID_INPUT naming it, and nothing is sent", async function () {
    const error = await failureOf(stub.client.listTaskReports({ serialNumber: SN }, { callClass: "urgent" as never }));
    assert.equal(error.code, "INVALID_INPUT");
    assert.equal(error.field, "callClass");
    assert.equal(stub.server.requests.length, 0);
  });
});
