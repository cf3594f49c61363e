/**
 * robot-maps through real Node-RED against a recording server: the exact C1
 * and C2 requests and their parsed data, msg.operation, map-id and serial-number
 * precedence, every envelope code reaching a Catch node (code 8 after the
 * configured retries), bad input (nothing sent), and status texts.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import robotMaps from "../../src/nodes/robot-maps/robot-maps";
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
  itRefusesEachBadInput,
  itKeepsTheMessageAndHidesTheToken,
  type BadInput,
  coreNodes,
  loadExampleFlow,
  isDirectoryRead,
} from "../support/node-red";
import { robotMapsNode, SERIAL, MAP_ID } from "../support/fixtures";
import { PACKAGE_ROOT } from "../support/child-node";

const CORE_NODES_USED_BY_THE_EXAMPLE = coreNodes("inject", "comment", "change", "split");

const LIST_PATH = "/openapi/v1/map/robotMap/list";
const SUBAREAS_PATH = "/openapi/v1/map/subareas/get";

const MAPS = [
  { mapId: MAP_ID, mapName: "Floor 1", mapVersion: "3" },
  { mapId: "map-2", mapName: "Floor 2", mapVersion: "1", futureField: { kept: true } },
  { mapId: "map-3", mapName: "Car park" },
];
const SUBAREAS = {
  mapId: MAP_ID,
  subareas: {
    partitions: [
      { id: 1, name: "Lobby" },
      { id: 2, name: "Canteen", polygon: [[0, 0], [1, 1]] },
      { id: 3, name: "Corridor" },
      { id: 4, name: "Kitchen" },
      { id: 5, name: "Toilets" },
    ],
    extra: "kept",
  },
  version: 9,
};

/** The cloud's code-0 envelope for each path. */
function answerFor(request: RecordedRequest): ScriptedReply {
  if (request.path === LIST_PATH) return { body: { code: 0, msg: "SUCCESS", data: MAPS } };
  if (request.path === SUBAREAS_PATH) return { body: { code: 0, msg: "SUCCESS", data: SUBAREAS } };
  return { status: 404, body: { code: 5, msg: "no such path" } };
}

describe("robot-maps", function () {
  const stub = useRecordingServerAndNodeRed(answerFor);

  async function load(settings: Record<string, unknown> = {}, config: Record<string, unknown> = {}) {
    await loadFlow([robotMaps], flowWith(stub.server.url, [robotMapsNode("maps", settings), ...outputsAndCatch("maps")], config));
  }

  /** What the node sent: not its config's reads of the robot list (the robot directory's). */
  const nodeRequests = () => stub.server.requests.filter((request) => !isDirectoryRead(request));
  const outcome = (msg: Record<string, unknown>) => outcomeOf("maps", msg);

  function assertJsonPost(request: RecordedRequest, path: string) {
    assert.equal(request.method, "POST");
    assert.equal(request.path, path);
    assert.equal(request.headers["content-type"], "application/json");
    assert.equal(request.headers.authorization, `Bearer ${TEST_TOKEN}`);
  }

  it("listMaps: POSTs {robotSn} to C2 and emits the data array with every field", async () => {
    await load({ operation: "listMaps" });
    const statuses = recordStatuses("maps");
    const { output } = await outcome({ payload: "go", topic: "maps" });
    assert.ok(output);
    assert.equal(nodeRequests().length, 1);
    assertJsonPost(nodeRequests()[0]!, LIST_PATH);
    assert.deepEqual(JSON.parse(nodeRequests()[0]!.rawBody), { robotSn: SERIAL });
    assert.deepEqual(output.payload, MAPS);
    assert.equal(output.topic, "maps");
    assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "3 maps" });
  });

  it("getSubareas: POSTs {mapId, robotSn} to C1 and emits the data object with every field", async () => {
    await load({ operation: "getSubareas" });
    const statuses = recordStatuses("maps");
    const { output } = await outcome({ payload: 1 });
    assert.ok(output);
    assertJsonPost(nodeRequests()[0]!, SUBAREAS_PATH);
    assert.deepEqual(JSON.parse(nodeRequests()[0]!.rawBody), { mapId: MAP_ID, robotSn: SERIAL });
    assert.deepEqual(output.payload, SUBAREAS);
    assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "5 areas" });
  });

  it("says 1 map, 1 area and 0 areas", async () => {
    stub.server.reply(
      { body: { code: 0, msg: "SUCCESS", data: [MAPS[0]] } },
      { body: { code: 0, msg: "SUCCESS", data: { mapId: MAP_ID, subareas: { partitions: [{ id: 1, name: "Lobby" }] } } } },
      { body: { code: 0, msg: "SUCCESS", data: { mapId: MAP_ID, subareas: { partitions: [] } } } },
    );
    await load();
    const statuses = recordStatuses("maps");
    await outcome({ payload: 1 });
    assert.equal(statuses.at(-1)!.text, "1 map");
    await outcome({ payload: 1, operation: "getSubareas" });
    assert.equal(statuses.at(-1)!.text, "1 area");
    await outcome({ payload: 1, operation: "getSubareas" });
    assert.equal(statuses.at(-1)!.text, "0 areas");
  });

  it("msg.operation overrides the node's operation and stays on the message", async () => {
    await load({ operation: "listMaps" });
    const { output } = await outcome({ payload: { mapId: "map-2" }, operation: "getSubareas" });
    assert.equal(nodeRequests()[0]!.path, SUBAREAS_PATH);
    assert.deepEqual(nodeRequests()[0]!.body, { mapId: "map-2", robotSn: SERIAL });
    assert.equal(output!.operation, "getSubareas");
    await outcome({ payload: 1, operation: "" });
    assert.equal(nodeRequests()[1]!.path, LIST_PATH, "an empty msg.operation counts as not set");
  });

  it("takes mapId from msg.payload.mapId, else the node's Map id from str, msg or flow", async () => {
    await load({ operation: "getSubareas" });
    await outcome({ payload: { mapId: "from-payload" } });
    await outcome({ payload: "x" });
    await helper.unload();
    await load({ operation: "getSubareas", mapId: "chosen.map", mapIdType: "msg" });
    await outcome({ payload: 1, chosen: { map: "from-msg-path" } });
    await helper.unload();
    await load({ operation: "getSubareas", mapId: "currentMap", mapIdType: "flow" });
    helper.getNode("maps").context().flow.set("currentMap", "from-flow");
    await outcome({ payload: 1 });
    assert.deepEqual(
      nodeRequests().map((r) => (r.body as { mapId: string }).mapId),
      ["from-payload", MAP_ID, "from-msg-path", "from-flow"],
    );
  });

  it("takes the robot from msg.payload.robotSn, then msg.serialNumber, then the node", async () => {
    await load({ operation: "listMaps" });
    await outcome({ payload: { robotSn: "FROM-PAYLOAD" }, serialNumber: "FROM-MSG" });
    await outcome({ payload: "x", serialNumber: "FROM-MSG" });
    await outcome({ payload: { serialNumber: "NOT-READ" } });
    assert.deepEqual(
      nodeRequests().map((r) => r.body),
      [{ robotSn: "FROM-PAYLOAD" }, { robotSn: "FROM-MSG" }, { robotSn: SERIAL }],
    );
  });

  it("accepts a map-list entry as payload and sends only mapId and robotSn", async () => {
    await load({ operation: "getSubareas" });
    await outcome({ payload: MAPS[1] });
    assert.deepEqual(JSON.parse(nodeRequests()[0]!.rawBody), { mapId: "map-2", robotSn: SERIAL });
  });

  const envelopeFailures: Array<[number, string, string, unknown]> = [
    [3, "INVALID_ARGUMENT", "INVALID_ARGUMENT", {}],
    [7, "PERMISSION_DENIED", "PERMISSION_DENIED", []],
    [13, "INTERNAL", "INTERNAL", []],
    [42, "CODE_42", "code 42", []],
  ];
  for (const operation of ["listMaps", "getSubareas"]) {
    for (const [code, errorCode, name, data] of envelopeFailures) {
      it(`${operation}: envelope code ${code} reaches the Catch node once as ${errorCode}, with the cloud's msg`, async () => {
        const cloudText = `robot says ${code}`;
        stub.server.reply({ body: { code, msg: cloudText, data } });
        await load({ operation });
        const statuses = recordStatuses("maps");
        const outputs = collectMessages("out");
        const caught = collectMessages("caught");
        helper.getNode("maps").receive({ payload: "go", topic: "t" });
        await waitFor(() => caught.length === 1, 5000, "the error");
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(outputs.length, 0);
        assert.equal(caught.length, 1);
        const error = caught[0]!.error as { message: string; code: string };
        assert.equal(error.code, errorCode);
        assert.ok(error.message.includes(`${name}: ${cloudText}`), error.message);
        assert.equal(caught[0]!.topic, "t");
        assert.equal(caught[0]!.payload, "go");
        assert.equal(nodeRequests().length, 1, "not retried");
        assert.deepEqual(statuses.at(-1), { fill: "red", shape: "ring", text: errorCode });
        assert.ok(!JSON.stringify(caught).includes(TEST_TOKEN));
      });
    }
  }

  for (const maxRetries of [0, 2]) {
    it(`code 8 RESOURCE_EXHAUSTED is retried maxRetries (${maxRetries}) times, then reaches the Catch node`, async () => {
      stub.server.respondWith(() => ({ headers: { "Retry-After": "0" }, body: { code: 8, msg: "too many requests", data: [] } }));
      await load({ operation: "listMaps" }, { maxRetries });
      const outputs = collectMessages("out");
      const caught = collectMessages("caught");
      helper.getNode("maps").receive({ payload: "go" });
      await waitFor(() => caught.length === 1, 10000, "the error");
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(outputs.length, 0);
      assert.equal(caught.length, 1);
      const error = caught[0]!.error as { message: string; code: string };
      assert.equal(error.code, "RESOURCE_EXHAUSTED");
      assert.match(error.message, /RESOURCE_EXHAUSTED: too many requests/);
      assert.equal(nodeRequests().length, maxRetries + 1);
      for (const request of nodeRequests()) assert.deepEqual(request.body, { robotSn: SERIAL });
    });
  }

  it("code 8 followed by code 0 ends in the output, once", async () => {
    stub.server.reply({ headers: { "Retry-After": "0" }, body: { code: 8, msg: "slow down", data: [] } });
    await load({ operation: "getSubareas" });
    const outputs = collectMessages("out");
    const caught = collectMessages("caught");
    helper.getNode("maps").receive({ payload: 1 });
    await waitFor(() => outputs.length === 1, 10000, "the output");
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(caught.length, 0);
    assert.equal(outputs.length, 1);
    assert.deepEqual(outputs[0]!.payload, SUBAREAS);
    assert.equal(nodeRequests().length, 2);
  });

  const badInputs: BadInput[] = [
    ["no map id for getSubareas", { operation: "getSubareas", mapId: "" }, { payload: 1 }, /mapId: is required for getSubareas/],
    ["an empty msg.payload.mapId", { operation: "getSubareas" }, { payload: { mapId: " " } }, /mapId: must not be empty/],
    ["a map id that is not text", { operation: "getSubareas" }, { payload: { mapId: 12 } }, /mapId: must be a string/],
    ["no serial number anywhere", { serialNumber: "" }, { payload: 1 }, /robotSn: is not set/],
    ["an empty msg.serialNumber", {}, { payload: 1, serialNumber: "" }, /robotSn: is not set/],
    ["an unsafe robotSn", {}, { payload: { robotSn: "a/../b" } }, /robotSn: must be 1-128/],
    ["an unknown msg.operation", {}, { payload: 1, operation: "deleteMap" }, /msg\.operation: must be one of listMaps, getSubareas/],
    ["an unknown operation in the node", { operation: "deleteMap" }, { payload: 1 }, /^RobotApiError: operation: must be one of listMaps, getSubareas/],
  ];
  itRefusesEachBadInput("maps", badInputs, load, stub);
  itKeepsTheMessageAndHidesTheToken("maps", () => load({ operation: "listMaps" }));

  describe("the example flow", () => {
    const EXAMPLE = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "examples/robot-maps.json"), "utf8")) as FlowNode[];

    /** Like the simulator: maps of GS-S-000101, sub-areas per map, code 3 for an unknown map. */
    function exampleCloud(request: RecordedRequest): ScriptedReply {
      if (request.path === SUBAREAS_PATH) {
        const { mapId } = request.body as { mapId: string };
        if (!MAPS.some((map) => map.mapId === mapId)) return { body: { code: 3, msg: `unknown map ${mapId}`, data: {} } };
        return { body: { code: 0, msg: "SUCCESS", data: { ...SUBAREAS, mapId } } };
      }
      return answerFor(request);
    }

    async function loadExample() {
      stub.server.respondWith(exampleCloud);
      await loadExampleFlow(EXAMPLE, [robotMaps, ...CORE_NODES_USED_BY_THE_EXAMPLE], stub.server.url, TEST_TOKEN);
    }

    it("points at the simulator, carries no credentials and uses both operations", () => {
      const config = EXAMPLE.find((node) => node.type === "robot-config")!;
      assert.equal(config.name, "Robot cloud simulator");
      assert.equal(config.baseUrl, "http://127.0.0.1:18080");
      assert.ok(!JSON.stringify(EXAMPLE).includes("credentials"));
      const operations = new Set(EXAMPLE.filter((node) => node.type === "robot-maps").map((node) => node.operation));
      assert.deepEqual([...operations].sort(), ["getSubareas", "listMaps"]);
    });

    it("lists the maps, then reads the sub-areas of the first one and of every one", async () => {
      await loadExample();
      const maps = nextMessage("maps-debug-list");
      helper.getNode("maps-inject-list").receive({});
      assert.deepEqual((await maps).payload, MAPS);
      const areas = nextMessage("maps-debug-areas");
      helper.getNode("maps-inject-first").receive({});
      assert.equal(((await areas).payload as { mapId: string }).mapId, MAP_ID);
      const everyMap = collectMessages("maps-debug-every");
      helper.getNode("maps-inject-every").receive({});
      await waitFor(() => everyMap.length === MAPS.length, 5000, "one answer per map");
      assert.deepEqual(everyMap.map((msg) => (msg.payload as { mapId: string }).mapId).sort(), MAPS.map((map) => map.mapId).sort());
    });

    it("catches the error code of an unknown map", async () => {
      await loadExample();
      const error = nextMessage("maps-debug-errors");
      helper.getNode("maps-inject-unknown").receive({});
      const caught = (await error).error as { code: string; message: string };
      assert.equal(caught.code, "INVALID_ARGUMENT");
      assert.match(caught.message, /unknown map no-such-map/);
      assert.deepEqual(nodeRequests().at(-1)!.body, { mapId: "no-such-map", robotSn: SERIAL });
    });
  });
});
