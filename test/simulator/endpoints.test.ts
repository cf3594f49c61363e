/**
 * The simulator serves every row of the endpoint table with an answer the
 * table's own response schema accepts (on the wire and through the real
 * RobotClient), the B4 path other clients use, the command read-back, and the
 * exact command resource of the spec.
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import {
  ENDPOINTS,
  OPERATION_NAMES,
  pathFor,
  pathParamsOf,
  queryFor,
  type Endpoint,
  type OperationName,
  type RequestOf,
} from "../../src/api/cloud/endpoints";
import { Envelope, OPEN_ACCESS_GRANT_TYPE } from "../../src/api/cloud/schemas";
import { DEMO_CLIENT, DEMO_TOKEN, demoFleet } from "../../src/simulator";
import { stableId } from "../../src/simulator/world/values";
import { rawRequest } from "../support/raw-http";
import { useClientOnSimulator } from "../support/client-on-server";

const FLEET = demoFleet();
const SITE = FLEET.sites[0]!;
const FLOOR_1 = FLEET.robots[0]!.maps[0]!;

/** A valid request for every operation: a row added to the table without a sample does not compile. */
const SAMPLES: { [Op in OperationName]: RequestOf<Op> } = {
  submitCommand: { serialNumber: "GS-S-000102", remoteTaskCommandType: "PAUSE_TASK" },
  // The id of a command submitted first (see withStoredCommand).
  getCommand: { serialNumber: "GS-S-000102", commandId: "set-by-withStoredCommand" },
  getRobotStatus: { serialNumber: "GS-S-000101" },
  getSiteInfo: { serialNumber: "GS-S-000101" },
  createTempSiteTask: {
    cleaningMode: "清扫",
    loopCount: 1,
    siteId: SITE.id,
    siteName: SITE.name,
    taskName: "Morning lobby",
    floors: [{ index: 0, name: "Floor 1", mapId: FLOOR_1.id, area: { id: "1", name: "Lobby" } }],
    tasks: [{ mapId: FLOOR_1.id, subTasks: [{ mapId: FLOOR_1.id, areaId: "1" }] }],
    serialNumber: "GS-S-000101",
  },
  sendTempTask: {
    productId: "GS-S-000102",
    tempTaskCommand: {
      taskName: "Corridor spot clean",
      cleaningMode: "清扫",
      loop: "false",
      loopCount: "1",
      mapName: "Floor 1",
      startParam: { mapId: FLOOR_1.id, areaId: "2" },
    },
  },
  getSubareas: { mapId: FLOOR_1.id, robotSn: "GS-S-000101" },
  listMaps: { robotSn: "GS-S-000201" },
  listRobots: { page: 1, pageSize: 2 },
  batchGetRobotStatus: { names: ["GS-S-000102", "GS-S-000101"] },
  batchGetSRobotStatus: { names: ["GS-S-000201", "GS-S-000101"] },
  listTaskReports: { serialNumber: "GS-S-000102", page: 1, pageSize: 5 },
  // The kitchen robot's seeded report of yesterday (task-reports.ts).
  getTaskReportImages: { robotSn: "GS-S-000102", taskReportId: stableId("GS-S-000102/report/1") },
  getMapImageUri: { serialNumber: "GS-S-000101", mapId: FLOOR_1.id, mapName: FLOOR_1.name, mapVersion: FLOOR_1.version },
  grantToken: {
    grant_type: OPEN_ACCESS_GRANT_TYPE,
    client_id: DEMO_CLIENT.clientId,
    client_secret: DEMO_CLIENT.clientSecret,
    open_access_key: DEMO_CLIENT.accessKeySecret,
  },
};

/** SAMPLES with getCommand reading back a command submitted now. */
async function withStoredCommand(client: RobotClient): Promise<typeof SAMPLES> {
  const stored = await client.submitCommand({ serialNumber: "GS-S-000102", remoteTaskCommandType: "PAUSE_TASK" });
  return { ...SAMPLES, getCommand: { serialNumber: "GS-S-000102", commandId: stored.name.split("/").pop()! } };
}

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const NANO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/;
const MILLI_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("simulator: the endpoint table", function () {
  const demo = useClientOnSimulator();

  it("answers every row on the wire with what the row's response schema accepts", async () => {
    const samples = await withStoredCommand(demo.client);
    for (const operation of OPERATION_NAMES) {
      const endpoint = ENDPOINTS[operation] as unknown as Endpoint;
      const request = endpoint.request.parse(samples[operation]) as Record<string, unknown>;
      const params = Object.fromEntries(pathParamsOf(endpoint.path).map((name) => [name, String(request[name])]));
      const query = queryFor(endpoint, request);
      const path = pathFor(endpoint, params) + (query ? `?${query}` : "");
      // node:http rather than fetch: the S-line batch is a GET with a body.
      const answer = await rawRequest(demo.simulator.url, endpoint.method, path, {
        token: endpoint.authenticated ? DEMO_TOKEN : undefined,
        body: endpoint.sendsBody ? request : undefined,
      });
      assert.equal(answer.status, 200, `${operation}: ${answer.text}`);
      let data = answer.json;
      if (endpoint.envelope) {
        const envelope = Envelope.parse(answer.json);
        assert.deepEqual([envelope.code, envelope.msg], [0, "SUCCESS"], operation);
        data = envelope.data;
      }
      const parsed = endpoint.response.safeParse(data);
      assert.ok(parsed.success, `${operation}: ${answer.text}`);
      assert.equal(endpoint.rejectionOf?.(parsed.data as never), undefined, operation);
    }
  });

  it("answers every robot operation through the real RobotClient", async () => {
    const results: Record<string, unknown> = {};
    const samples = await withStoredCommand(demo.client);
    for (const operation of OPERATION_NAMES) {
      if (operation === "grantToken") continue;
      results[operation] = await demo.client.call(operation, samples[operation]);
    }
    assert.equal((results.getCommand as { rawCommandType: string }).rawCommandType, "pause_task");
    assert.deepEqual(
      (results.listRobots as { robots: { serialNumber: string }[] }).robots.map((robot) => robot.serialNumber),
      ["GS-S-000101", "GS-S-000102"],
    );
    assert.deepEqual(
      (results.batchGetRobotStatus as { robotStatuses: { name: string }[] }).robotStatuses.map((status) => status.name),
      ["robots/GS-S-000102", "robots/GS-S-000101"],
    );
    assert.deepEqual(
      (results.batchGetSRobotStatus as { robotStatus: { serialNumber: string }[] }).robotStatus.map((status) => status.serialNumber),
      ["GS-S-000201", "GS-S-000101"],
    );
    assert.ok((results.listTaskReports as { robotTaskReports: unknown[] }).robotTaskReports.length >= 1);
    assert.match((results.getMapImageUri as { downloadUri: string }).downloadUri, /^http:\/\/127\.0\.0\.1:\d+\/_objects\/maps\//);
    assert.equal((results.getRobotStatus as { serialNumber: string }).serialNumber, "GS-S-000101");
    assert.equal((results.getSiteInfo as { siteId: string }).siteId, SITE.id);
    assert.deepEqual(
      (results.listMaps as { mapName: string }[]).map((map) => map.mapName),
      ["Warehouse"],
    );
    assert.deepEqual(results.getSubareas, {
      mapId: FLOOR_1.id,
      // Ids and names only: the rooms' rectangles are the simulator's floor plan, not C1's answer.
      subareas: { partitions: FLOOR_1.partitions.map(({ id, name }) => ({ id, name })) },
    });
    assert.equal((results.sendTempTask as { cmdStatus: number }).cmdStatus, 5);
    assert.equal((results.submitCommand as { rawCommandType: string }).rawCommandType, "pause_task");
  });

  it("accepts B4 under /openapi/v2alpha1 as well, the path other real clients use", async () => {
    const answer = await rawRequest(demo.simulator.url, "POST", `/openapi${ENDPOINTS.sendTempTask.path}`, {
      token: DEMO_TOKEN,
      body: SAMPLES.sendTempTask,
    });
    assert.equal(answer.status, 200, answer.text);
    const { requestId, ...rest } = answer.json as Record<string, unknown>;
    assert.match(String(requestId), new RegExp(`^${UUID}$`));
    assert.deepEqual(rest, { productId: "GS-S-000102", orderType: "start_task", cmdStatus: 5, cmdResultCode: "6880" });
    assert.equal(demo.simulator.state.robot("GS-S-000102")!.taskState, "RUNNING");
  });

  it("answers the command resource of the spec, lower-casing enum values and adding subTasks", async () => {
    await demo.client.submitCommand({ serialNumber: "GS-S-000101", remoteControlCommandType: "REMOTE_CONTROL_START" });
    const move = await demo.client.submitCommand({
      serialNumber: "GS-S-000101",
      remoteControlCommandType: "REMOTE_CONTROL_MOVE",
      commandParameter: { controlMovingParameter: { direction: "FORWARD" } },
    });
    assert.deepEqual(Object.keys(move).sort(), [
      "commandParameter",
      "createTime",
      "name",
      "parent",
      "rawCommandType",
      "serialNumber",
      "startDelay",
      "startTime",
      "state",
      "updateTime",
      "user",
    ]);
    assert.match(move.name, new RegExp(`^robots/GS-S-000101/commands/${UUID}$`));
    assert.equal(move.parent, "robots/GS-S-000101");
    assert.deepEqual(move.commandParameter, { controlMovingParameter: { direction: "forward" } });
    assert.equal(move.state, "WAITING");
    assert.equal(move.serialNumber, "GS-S-000101");
    assert.equal(move.user, FLEET.accounts[0]!.userId);
    assert.match(move.createTime!, NANO_TIME);
    assert.equal(move.updateTime, move.createTime);
    assert.match(move.startTime!, MILLI_TIME);
    assert.equal(move.startDelay, 1800000);
    assert.equal(move.rawCommandType, "remote_control_move");

    const start = await demo.client.submitCommand({
      serialNumber: "GS-S-000102",
      remoteTaskCommandType: "START_TASK",
      commandParameter: {
        startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Lobby", map: "Floor 1", loop: true, loopCount: 2 } },
      },
    });
    assert.deepEqual(start.commandParameter, {
      startTaskParameter: {
        cleaningMode: "__middle_cleaning",
        task: { name: "Lobby", map: "Floor 1", loop: true, loopCount: 2, subTasks: [] },
      },
    });
    assert.equal(start.rawCommandType, "start_task");

    const pause = await demo.client.submitCommand({ serialNumber: "GS-S-000102", remoteTaskCommandType: "PAUSE_TASK" });
    assert.deepEqual(pause.commandParameter, {});
    assert.notEqual(pause.name, start.name);
  });

  it("reads a stored command back with GET /v1alpha1/robots/<sn>/commands/<id>, a row of the table", async () => {
    const submitted = await demo.client.submitCommand({
      serialNumber: "GS-S-000201",
      remoteNavigationCommandType: "CROSS_NAVIGATE",
      commandParameter: { startNavigationParameter: { map: "Warehouse", position: "charging" } },
    });
    const readBack = await rawRequest(demo.simulator.url, "GET", `/v1alpha1/${submitted.name}`, { token: DEMO_TOKEN });
    assert.equal(readBack.status, 200, readBack.text);
    assert.deepEqual(readBack.json, submitted);

    assert.deepEqual(await demo.client.getCommand({ serialNumber: "GS-S-000201", commandId: submitted.name.split("/").pop()! }), submitted);

    const unknown = await rawRequest(demo.simulator.url, "GET", "/v1alpha1/robots/GS-S-000201/commands/no-such-command", {
      token: DEMO_TOKEN,
    });
    assert.equal(unknown.status, 404);
    assert.equal((unknown.json as { code: number }).code, 5);

    // An id outside the safe alphabet is refused like any bad parameter, naming it.
    const badId = await rawRequest(demo.simulator.url, "GET", "/v1alpha1/robots/GS-S-000201/commands/a%2Fb", { token: DEMO_TOKEN });
    assert.equal(badId.status, 400);
    assert.match((badId.json as { message: string }).message, /^commandId: /);

    const noToken = await rawRequest(demo.simulator.url, "GET", `/v1alpha1/${submitted.name}`);
    assert.equal(noToken.status, 401);

    const otherAccount = await rawRequest(demo.simulator.url, "GET", `/v1alpha1/${submitted.name.replace("GS-S-000201", "GS-S-000101")}`, {
      token: "warehouse-token",
    });
    assert.equal(otherAccount.status, 403);
    assert.equal((otherAccount.json as { code: number }).code, 7);
  });

  it("answers the robot list 415 with the reason when it carries a Content-Type, as the cloud does; other bodyless GETs take one or none", async () => {
    const listPath = `${ENDPOINTS.listRobots.path}?page=1&pageSize=10`;
    const refused = await rawRequest(demo.simulator.url, "GET", listPath, {
      token: DEMO_TOKEN,
      headers: { "Content-Type": "application/json" },
    });
    assert.equal(refused.status, 415);
    assert.match((refused.json as { message: string }).message, /GET \/v1alpha1\/robots must be sent without a Content-Type header/);
    const listed = await rawRequest(demo.simulator.url, "GET", listPath, { token: DEMO_TOKEN });
    assert.equal(listed.status, 200, listed.text);
    const statusPath = pathFor(ENDPOINTS.getRobotStatus, { serialNumber: "GS-S-000101" });
    for (const headers of [{ "Content-Type": "application/json" }, {}] as Record<string, string>[]) {
      assert.equal(
        (await rawRequest(demo.simulator.url, "GET", statusPath, { token: DEMO_TOKEN, headers })).status,
        200,
        JSON.stringify(headers),
      );
    }
    // The client sends the list without one: every robot, through the real RobotClient.
    assert.equal((await demo.client.listAllRobots()).length, FLEET.robots.length);
  });

  it("answers 404 for an unknown path and 405 with Allow for a wrong method", async () => {
    const unknown = await rawRequest(demo.simulator.url, "GET", "/v1alpha1/no-such-thing", { token: DEMO_TOKEN });
    assert.equal(unknown.status, 404);
    assert.equal((unknown.json as { code: number }).code, 5);

    const wrongMethod = await rawRequest(demo.simulator.url, "GET", ENDPOINTS.listMaps.path, { token: DEMO_TOKEN });
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers["allow"], "POST");

    const postStatus = await rawRequest(demo.simulator.url, "POST", pathFor(ENDPOINTS.getRobotStatus, { serialNumber: "GS-S-000101" }), {
      token: DEMO_TOKEN,
      body: {},
    });
    assert.equal(postStatus.status, 405);
    assert.equal(postStatus.headers["allow"], "GET");
  });
});
