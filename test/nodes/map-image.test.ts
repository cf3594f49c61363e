/**
 * robot-maps' mapImage through real Node-RED against the simulator: the PNG
 * the simulator's object store serves comes out as msg.payload (its download
 * answers 400 to a request that carries an Authorization header, so getting
 * it at all proves there was none), msg.contentType and msg.map; a map given
 * by id alone is looked up in the map list; an unknown id is an error naming
 * mapId with nothing asked for; an expired link is a catchable 403.
 */
import assert from "node:assert/strict";
import robotMaps from "../../src/nodes/robot-maps/robot-maps";
import { DEMO_TOKEN, demoFleet, startSimulator, type RunningSimulator } from "../../src/simulator";
import { PNG_SIGNATURE } from "../../src/simulator/maps/png";
import { flowWith, loadFlow, outcomeOf, outputsAndCatch, recordStatuses, useNodeRed } from "../support/node-red";
import { rawRequest } from "../support/raw-http";
import { robotMapsNode } from "../support/fixtures";

const LOBBY = "GS-S-000101";
const FLOOR_1 = demoFleet().robots[0]!.maps[0]!;

describe("robot-maps: mapImage against the simulator", function () {
  let clock = 1_800_000_000_000;
  let simulator: RunningSimulator;
  const requests: string[] = [];
  /** When set, the simulator's clock jumps this far once it has handed out a map link (before it is fetched). */
  let jumpAfterLink = 0;

  before(async () => {
    simulator = await startSimulator({
      rateLimit: false,
      now: () => clock,
      downloadUrlLifetimeMs: 60_000,
      log: (line) => {
        requests.push(line);
        if (jumpAfterLink && line.startsWith(`GET /openapi/v2alpha1/robots/${LOBBY}/map 200`)) clock += jumpAfterLink;
      },
    });
  });
  after(async () => {
    await simulator.close();
  });
  beforeEach(() => {
    requests.length = 0;
    simulator.reset();
  });
  useNodeRed();

  async function load(settings: Record<string, unknown> = {}) {
    await loadFlow([robotMaps], flowWith(simulator.url, [robotMapsNode("maps", { serialNumber: LOBBY, operation: "mapImage", mapId: "", ...settings }), ...outputsAndCatch("maps")]), { config: { token: DEMO_TOKEN } });
  }

  it("emits the PNG, its content type and the map, from a map-list entry", async () => {
    await load();
    const statuses = recordStatuses("maps");
    const entry = { mapId: FLOOR_1.id, mapName: FLOOR_1.name, mapVersion: FLOOR_1.version };
    const { output, caught } = await outcomeOf("maps", { payload: entry, topic: "map" });
    assert.equal(caught, undefined, JSON.stringify(caught?.error));
    assert.ok(output);
    const png = output.payload as Buffer;
    assert.ok(Buffer.isBuffer(png));
    assert.deepEqual(png.subarray(0, 8), PNG_SIGNATURE);
    assert.equal(output.contentType, "image/png");
    assert.deepEqual(output.map, entry);
    assert.equal(output.topic, "map");
    // The same bytes the object store serves for that map.
    const uri = await fetch(`${simulator.url}/openapi/v2alpha1/robots/${LOBBY}/map?mapId=${FLOOR_1.id}&mapName=${encodeURIComponent(FLOOR_1.name)}&mapVersion=${FLOOR_1.version}`, {
      headers: { Authorization: `Bearer ${DEMO_TOKEN}` },
    }).then(async (response) => ((await response.json()) as { downloadUri: string }).downloadUri);
    const link = new URL(uri);
    const direct = await rawRequest(link.origin, "GET", link.pathname + link.search);
    assert.equal(direct.status, 200);
    assert.deepEqual(direct.bytes, png);
    assert.equal(requests.filter((line) => line.includes("robotMap/list")).length, 0, "the entry was whole: no lookup");
    assert.match(String(statuses.at(-1)?.text), /^map image \d+ kB$/);
  });

  it("looks the name and version up when only mapId is given (payload or the node's Map id)", async () => {
    await load({ mapId: FLOOR_1.id });
    const { output } = await outcomeOf("maps", { payload: "tick" });
    assert.ok(output);
    assert.deepEqual(output.map, { mapId: FLOOR_1.id, mapName: FLOOR_1.name, mapVersion: FLOOR_1.version });
    assert.equal(requests.filter((line) => line.includes("robotMap/list")).length, 1, "one map-list lookup");
  });

  it("reports an unknown map id as INVALID_INPUT naming mapId and the robot's maps, with no image asked for", async () => {
    await load();
    const { caught } = await outcomeOf("maps", { payload: { mapId: "no-such-map" } });
    const error = caught?.error as { code: string; message: string };
    assert.equal(error.code, "INVALID_INPUT");
    assert.match(error.message, /mapId: "no-such-map" is not a map of robot GS-S-000101; its maps: .*Floor 1/);
    assert.equal(requests.filter((line) => line.includes("/map?") || line.includes("object")).length, 0);
  });

  it("takes mapImage from msg.operation on a node set to listMaps", async () => {
    await load({ operation: "listMaps" });
    const { output } = await outcomeOf("maps", { operation: "mapImage", payload: { mapId: FLOOR_1.id } });
    assert.ok(Buffer.isBuffer(output?.payload));
  });

  it("reports an expired link as a catchable HTTP_403 that says to ask again", async () => {
    await load();
    jumpAfterLink = 120_000;
    try {
      const { caught } = await outcomeOf("maps", { payload: { mapId: FLOOR_1.id, mapName: FLOOR_1.name, mapVersion: FLOOR_1.version } });
      const error = caught?.error as { code: string; message: string };
      assert.equal(error.code, "HTTP_403");
      assert.match(error.message, /may have expired/);
    } finally {
      jumpAfterLink = 0;
    }
  });
});
