/**
 * robot-maps' fleetMap through real Node-RED against a recording stub of the
 * cloud: markers at the right pixels of a non-square image (rows counted from
 * the bottom), the angle, lost robots listed and not drawn, statuses taken
 * from msg.statuses without a status call, one image download for ten
 * pictures of the same map version and a new one after the version changes,
 * robots on another map left out, and bad input refused before any call.
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { alarmsOfAccount } from "../../src/api/pushes/open-alarms";
import { readPush, type IncidentEvent } from "../../src/api/pushes/pushes";
import robotMaps from "../../src/nodes/robot-maps/robot-maps";
import { Canvas } from "../../src/simulator/maps/png";
import { flowWith, helper, loadFlow, outcomeOf, outputsAndCatch, recordStatuses, useRecordingServerAndNodeRed, expectInvalidInput } from "../support/node-red";
import { robotMapsNode } from "../support/fixtures";
import type { RecordedRequest, ScriptedReply } from "../support/recording-server";
import { shapeProblems } from "../support/recorded-shapes";
import { recordedV1Status } from "../support/recorded-statuses";

const WIDTH = 400;
const HEIGHT = 250;
const FLOOR = "6f1c0d8e-2b1a-4c7e-9d55-0a1b2c3d4e5f";
const OTHER_FLOOR = "0b9e6a55-7c1d-4e2f-8a3b-5c6d7e8f9a0b";
const ANCHOR = "GS-S-000101";
/** The account's robots as its robot list names them ("Robot 101"). */
const ACCOUNT_ROBOTS = Array.from({ length: 20 }, (_each, index) => `GS-S-000${101 + index}`);

/** A PNG of the given size, as the object store would serve it. */
function png(width: number, height: number): Buffer {
  return new Canvas(width, height, [250, 250, 250]).toPng();
}

/** A B1 status on `mapId`; `position` undefined leaves mapPosition out. */
function status(serialNumber: string, position: { x: number; y: number; angle: number } | undefined, extra: Record<string, unknown> = {}, mapId = FLOOR, version = 3): Record<string, unknown> {
  return {
    serialNumber,
    online: true,
    taskState: "IDLE",
    battery: { charging: false, powerPercentage: 80 },
    emergencyStop: { enabled: false },
    localizationInfo: {
      localizationState: "NORMAL",
      map: { id: mapId, name: mapId === FLOOR ? "Floor 1" : "Floor 2", version },
      ...(position ? { mapPosition: position } : {}),
    },
    navigationPoints: { naviPoints: [{ naviPointName: "charging", navPointGridX: 20, navPointGridY: 30 }] },
    ...extra,
  };
}

/** One robot near each corner (in the cloud's bottom-up rows), each a different state. */
const CORNERS = [
  status("GS-S-000101", { x: 10, y: 12, angle: 90 }, { taskState: "RUNNING" }),
  status("GS-S-000102", { x: 390, y: 240, angle: -45 }, { taskState: "PAUSED" }),
  status("GS-S-000103", { x: 8, y: 245, angle: 180 }, { battery: { charging: true, powerPercentage: 40 } }),
  status("GS-S-000104", { x: 395, y: 5, angle: 0 }, { online: false }),
];

describe("robot-maps: fleetMap", function () {
  let images: Record<string, Buffer> = {};
  let served: unknown[] = [];
  const stub = useRecordingServerAndNodeRed();

  function respond(request: RecordedRequest): ScriptedReply {
    const { server } = stub;
    const url = new URL(request.path, server.url);
    if (url.pathname.endsWith("/status:batchGet")) return { body: { robotStatus: served } };
    if (url.pathname === "/v1alpha1/robots") {
      // Names come from the robot list, not from statuses: the robots served, else the account's twenty.
      const serialNumbers = served.length > 0 ? served.map((each) => (each as { serialNumber: string }).serialNumber) : ACCOUNT_ROBOTS;
      return { body: { robots: serialNumbers.map((serialNumber) => ({ serialNumber, displayName: `Robot ${serialNumber.slice(-3)}` })), total: String(serialNumbers.length) } };
    }
    if (url.pathname.endsWith("/map")) return { body: { downloadUri: `${server.url}/objects/${url.searchParams.get("mapId")}/${url.searchParams.get("mapVersion")}.png` } };
    if (url.pathname.startsWith("/objects/")) {
      const image = images[url.pathname];
      return image ? { body: image, headers: { "Content-Type": "image/png" } } : { status: 404, body: "no such object" };
    }
    if (url.pathname === "/openapi/v1/map/robotMap/list") {
      return { body: { code: 0, msg: "ok", data: [{ mapId: FLOOR, mapName: "Floor 1", mapVersion: 3 }, { mapId: OTHER_FLOOR, mapName: "Floor 2", mapVersion: 1 }] } };
    }
    return { status: 404, body: { code: 5, message: `not stubbed: ${url.pathname}` } };
  }

  beforeEach(() => {
    images = { [`/objects/${FLOOR}/3.png`]: png(WIDTH, HEIGHT), [`/objects/${OTHER_FLOOR}/1.png`]: png(300, 500) };
    served = [];
    stub.server.respondWith(respond);
  });

  async function load(settings: Record<string, unknown> = {}) {
    await loadFlow([robotMaps], flowWith(stub.server.url, [robotMapsNode("maps", { serialNumber: ANCHOR, operation: "fleetMap", mapId: "", ...settings }), ...outputsAndCatch("maps")]));
  }

  const downloads = () => stub.server.requests.filter((request) => request.path.startsWith("/objects/")).length;
  const statusCalls = () => stub.server.requests.filter((request) => /status/.test(request.path)).length;

  /** Each robot marker of the SVG: its serial number, state, opacity when faded, centre and the rotation of its heading mark. */
  function markers(svg: string) {
    return [...svg.matchAll(/<g class="robot [^"]*" data-serial-number="([^"]+)" data-state="([^"]+)"(?: opacity="([^"]+)")? transform="translate\(([-\d.]+) ([-\d.]+)\)">.*?rotate\(([-\d.]+)\)/g)].map((match) => ({
      serialNumber: match[1],
      state: match[2],
      ...(match[3] === undefined ? {} : { opacity: Number(match[3]) }),
      x: Number(match[4]),
      y: Number(match[5]),
      rotation: Number(match[6]),
    }));
  }

  it("draws each robot at its pixel on a non-square image, rows counted from the bottom, pointing along its angle, coloured by state", async () => {
    await load();
    const statuses = recordStatuses("maps");
    const { output, caught } = await outcomeOf("maps", { statuses: CORNERS, topic: "floor" });
    assert.equal(caught, undefined, JSON.stringify(caught?.error));
    const svg = output!.payload as string;
    // The legend sits below the floor plan: the viewBox grows downwards, the image keeps its pixels at 0,0.
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 400 2\d\d(\.\d+)?" width="400" height="2\d\d(\.\d+)?" class="robot-fleet-map" data-map-id="[^"]+" data-map-height="250"/);
    assert.match(svg, /<image href="[^"]+" x="0" y="0" width="400" height="250"\/>/);
    assert.match(svg, /<g class="legend" transform="translate\(0 250\)">/);
    assert.equal(output!.contentType, "image/svg+xml");
    assert.equal(output!.topic, "floor");
    assert.deepEqual(markers(svg), [
      { serialNumber: "GS-S-000101", state: "cleaning", x: 10, y: 238, rotation: -90 },
      { serialNumber: "GS-S-000102", state: "paused", x: 390, y: 10, rotation: 45 },
      { serialNumber: "GS-S-000103", state: "charging", x: 8, y: 5, rotation: -180 },
      { serialNumber: "GS-S-000104", state: "offline", opacity: 0.55, x: 395, y: 245, rotation: 0 },
    ]);
    // Attributes only: a style sheet in the SVG would make a page that puts it in its document restyle the whole document at each update.
    assert.doesNotMatch(svg, /<style/);
    assert.match(svg, /font-family="sans-serif" font-size="[\d.]+"/);
    assert.deepEqual(
      (output!.robots as Array<Record<string, unknown>>).map(({ serialNumber, x, y, angle, state }) => [serialNumber, x, y, angle, state]),
      [
        ["GS-S-000101", 10, 238, 90, "cleaning"],
        ["GS-S-000102", 390, 10, -45, "paused"],
        ["GS-S-000103", 8, 5, 180, "charging"],
        ["GS-S-000104", 395, 245, 0, "offline"],
      ],
    );
    assert.deepEqual(output!.map, { mapId: FLOOR, mapName: "Floor 1", mapVersion: "3", width: WIDTH, height: HEIGHT });
    // The map image is the background, embedded: the very bytes the object store served.
    const embedded = /<image href="data:image\/png;base64,([^"]+)"/.exec(svg);
    assert.ok(embedded);
    assert.deepEqual(Buffer.from(embedded[1]!, "base64"), images[`/objects/${FLOOR}/3.png`]);
    // The anchor's navigation point, at its pixel.
    assert.match(svg, /<g class="navigation-point" data-name="charging" transform="translate\(20 220\)">/);
    assert.equal(statusCalls(), 0, "msg.statuses were drawn without a status call");
    assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "Floor 1: 4 robots" });
  });

  it("lists a lost robot and one without a position instead of drawing them, and leaves out robots on another map", async () => {
    await load();
    const lost = status("GS-S-000105", { x: 50, y: 50, angle: 0 });
    (lost.localizationInfo as Record<string, unknown>).localizationState = "LOST";
    delete (lost.localizationInfo as Record<string, unknown>).mapPosition;
    const silent = status("GS-S-000106", undefined);
    const elsewhere = status("GS-S-000107", { x: 30, y: 30, angle: 0 }, {}, OTHER_FLOOR, 1);
    const { output } = await outcomeOf("maps", { statuses: [CORNERS[0], lost, silent, elsewhere] });
    const svg = output!.payload as string;
    assert.deepEqual(markers(svg).map((marker) => marker.serialNumber), ["GS-S-000101"]);
    assert.deepEqual(output!.unplaced, [
      { serialNumber: "GS-S-000105", name: "Robot 105", reason: "lost", state: "idle" },
      { serialNumber: "GS-S-000106", name: "Robot 106", reason: "noPosition", state: "idle" },
    ]);
    assert.match(svg, /<text class="unplaced" data-unplaced-serial-number="GS-S-000105"[^>]*>Robot 105 \(GS-S-000105\): lost \(no position\)<\/text>/);
    assert.doesNotMatch(svg, /GS-S-000107/, "a robot on another floor is not in the picture");
  });

  it("rings the robots msg.alarms names, on the map and among the unplaced, with the alarm's text", async () => {
    await load();
    const lost = status("GS-S-000105", { x: 50, y: 50, angle: 0 });
    (lost.localizationInfo as Record<string, unknown>).localizationState = "LOST";
    const alarms = { "GS-S-000102": "H6 Brush motor fault", "GS-S-000105": "H4 Localization lost", "GS-S-000103": false, "GS-S-000999": "not on this map" };
    const { output } = await outcomeOf("maps", { statuses: [...CORNERS, lost], alarms });
    const svg = output!.payload as string;
    const ringed = [...svg.matchAll(/<g class="robot [^"]*robot-alarm" data-serial-number="([^"]+)"[^>]*><title>([^<]*)<\/title><circle class="alarm-ring"/g)].map((match) => [match[1], match[2]]);
    assert.deepEqual(ringed, [["GS-S-000102", "Robot 102 (GS-S-000102): paused – \u26a0 H6 Brush motor fault"]]);
    assert.equal((svg.match(/class="alarm-ring"/g) ?? []).length, 1, "false rings nothing, an unknown robot draws nothing");
    assert.match(svg, /<text class="unplaced" data-unplaced-serial-number="GS-S-000105"[^>]*fill="#d7301f">\u26a0 Robot 105 \(GS-S-000105\): lost \(no position\) – \u26a0 H4 Localization lost<\/text>/);
    assert.match(svg, /<g class="legend-alarm"[^>]*>.*?alarm raised<\/text>/);
    assert.deepEqual((output!.robots as Array<{ serialNumber: string; alarm?: string }>).filter((robot) => robot.alarm !== undefined), [
      { ...(output!.robots as Array<Record<string, unknown>>)[1], serialNumber: "GS-S-000102", alarm: "H6 Brush motor fault" },
    ]);
    // A list of serial numbers rings them without text.
    const listed = await outcomeOf("maps", { statuses: CORNERS, alarms: ["GS-S-000101"] });
    assert.match(listed.output!.payload as string, /<title>Robot 101 \(GS-S-000101\): cleaning – \u26a0<\/title><circle class="alarm-ring"/);
  });

  it("fans out robots that stand on one spot, each with a line to its true spot, and colours a robot whose navStatus is not NAVI_IDLE as navigating", async () => {
    await load();
    const charging = { x: 20, y: 30, angle: 0 };
    const docked = status("GS-S-000111", charging, { battery: { charging: true, powerPercentage: 90 } });
    const alarmed = status("GS-S-000112", charging, { battery: { charging: true, powerPercentage: 35 } });
    const driving = status("GS-S-000113", { x: 200, y: 100, angle: 0 }, { navStatus: "NAVI_RUNNING" });
    const { output } = await outcomeOf("maps", { statuses: [CORNERS[0], docked, alarmed, driving], alarms: { "GS-S-000112": "H5 Lidar blocked" } });
    const svg = output!.payload as string;
    /** Where a robot's body is drawn: its group's spot, moved by its fanned marker's offset when it has one. */
    const bodyOf = (serialNumber: string) => {
      const group = new RegExp(`data-serial-number="${serialNumber}"[^>]*transform="translate\\(([-\\d.]+) ([-\\d.]+)\\)">(.*?)<text class="robot-name"`).exec(svg);
      assert.ok(group, serialNumber);
      const fanned = /<line class="robot-leader" x1="0" y1="0" x2="([-\d.]+)" y2="([-\d.]+)"[^>]*\/>.*<g class="robot-fanned" transform="translate\(([-\d.]+) ([-\d.]+)\)">/.exec(group[3]!);
      if (fanned) assert.deepEqual([fanned[1], fanned[2]], [fanned[3], fanned[4]], `${serialNumber}'s line ends at its marker`);
      return { spot: [Number(group[1]), Number(group[2])], x: Number(group[1]) + Number(fanned?.[3] ?? 0), y: Number(group[2]) + Number(fanned?.[4] ?? 0), fanned: fanned !== null };
    };
    const [first, second] = [bodyOf("GS-S-000111"), bodyOf("GS-S-000112")];
    assert.deepEqual([first.spot, second.spot], [[20, 220], [20, 220]], "both groups stand at the charger's true spot");
    assert.deepEqual([first.fanned, second.fanned], [false, true], "the first keeps the spot, the second is set beside it with a line to it");
    const unit = Number(/<circle class="robot-body" r="([\d.]+)"/.exec(svg)![1]);
    const apart = Math.hypot(first.x - second.x, first.y - second.y);
    assert.ok(apart >= 2 * unit, `bodies ${apart} apart, each ${2 * unit} wide`);
    assert.match(svg, /data-serial-number="GS-S-000112"[^>]*>.*?<circle class="alarm-ring"/, "the alarm ring goes with the fanned marker");
    // No status says where a navigation goes: the state's word, no destination.
    assert.match(svg, /<g class="robot robot-navigating" data-serial-number="GS-S-000113" data-state="navigating"[^>]*><title>Robot 113 \(GS-S-000113\): navigating<\/title>/);
    assert.equal((output!.robots as Array<{ serialNumber: string; destination?: string }>).find((robot) => robot.serialNumber === "GS-S-000113")!.destination, undefined);
  });

  it("without msg.alarms rings the robots with an open alarm of the account (from a robot-events node linked to it)", async () => {
    await load();
    const { client } = (helper.getNode("config") as unknown as { robot: { client: { accountKey: string } } }).robot;
    const alarms = alarmsOfAccount(client.accountKey);
    try {
      const raise = (serialNumber: string, incidentId: string, level: string, name: string) =>
        alarms.record((readPush({ appId: "a", payload: { serialNumber, content: { incidentId, incidentStatus: 1, incidentLevel: level, incidentName: name, startTime: 1764000000000 } } }) as { event: IncidentEvent }).event);
      raise("GS-S-000103", "i-1", "H3", "Side brush worn");
      raise("GS-S-000103", "i-2", "H6", "Brush motor fault");
      const { output } = await outcomeOf("maps", { statuses: CORNERS });
      const ringed = (output!.robots as Array<{ serialNumber: string; alarm?: string }>).filter((robot) => robot.alarm !== undefined).map((robot) => [robot.serialNumber, robot.alarm]);
      assert.deepEqual(ringed, [["GS-S-000103", "H6 Brush motor fault"]], "the most severe of the robot's open alarms");
      const given = await outcomeOf("maps", { statuses: CORNERS, alarms: [] });
      assert.equal((given.output!.robots as Array<{ alarm?: string }>).filter((robot) => robot.alarm !== undefined).length, 0, "msg.alarms, when given, is the flow's word");
    } finally {
      forgetAccountMemory();
    }
  });

  it("refuses msg.alarms that is neither {serialNumber: text} nor a list of serial numbers, before any call", async () => {
    await load();
    await expectInvalidInput("maps", { statuses: CORNERS, alarms: "GS-S-000101" }, /msg\.alarms: must be \{serialNumber: text\} or a list of serial numbers/, stub.server);
    const { caught } = await outcomeOf("maps", { statuses: CORNERS, alarms: { "GS-S-000101": 3 } });
    assert.match((caught?.error as { message: string }).message, /msg\.alarms: must be/);
  });

  it("downloads a map's image once for ten pictures of the same version, and again when the version changes", async () => {
    await load();
    for (let round = 0; round < 10; round++) {
      const { output, caught } = await outcomeOf("maps", { statuses: CORNERS });
      assert.equal(caught, undefined, JSON.stringify(caught?.error));
      assert.equal(markers(output!.payload as string).length, 4);
    }
    assert.equal(downloads(), 1);
    images[`/objects/${FLOOR}/4.png`] = png(WIDTH, HEIGHT + 50);
    const updated = CORNERS.map((each) => status(String(each.serialNumber), { x: 10, y: 10, angle: 0 }, {}, FLOOR, 4));
    const { output } = await outcomeOf("maps", { statuses: updated });
    assert.equal(downloads(), 2);
    assert.match(output!.payload as string, /data-map-height="300"/);
    assert.equal((output!.map as { mapVersion: string }).mapVersion, "4");
  });

  it("draws a robot whose status is shaped exactly like the recorded v1 answer, its map without a version: the version from the map list", async () => {
    await load();
    const v1 = recordedV1Status({ serialNumber: ANCHOR, position: { x: 40, y: 50 }, map: { id: FLOOR, name: "Floor 1" } });
    assert.deepEqual(shapeProblems("v1Status", v1, "the test's v1 status"), []);
    const { output, caught } = await outcomeOf("maps", { statuses: [v1] });
    assert.equal(caught, undefined, JSON.stringify(caught?.error));
    assert.deepEqual(markers(output!.payload as string).map((marker) => [marker.serialNumber, marker.x, marker.y]), [[ANCHOR, 40, HEIGHT - 50]]);
    assert.equal((output!.map as { mapVersion: string }).mapVersion, "3", "C2's mapVersion");
    assert.equal(stub.server.requests.filter((request) => request.path === "/openapi/v1/map/robotMap/list").length, 1);
  });

  it("draws another map of the robot when mapId names it (its name and version from the map list)", async () => {
    await load({ mapId: OTHER_FLOOR });
    const elsewhere = status("GS-S-000107", { x: 30, y: 40, angle: 0 }, {}, OTHER_FLOOR, 1);
    const { output, caught } = await outcomeOf("maps", { statuses: [CORNERS[0], elsewhere] });
    assert.equal(caught, undefined, JSON.stringify(caught?.error));
    assert.deepEqual(markers(output!.payload as string).map((marker) => [marker.serialNumber, marker.x, marker.y]), [["GS-S-000107", 30, 460]]);
    assert.deepEqual(output!.map, { mapId: OTHER_FLOOR, mapName: "Floor 2", mapVersion: "1", width: 300, height: 500 });
  });

  it("without msg.statuses reads the statuses with one S-line batch: of msg.serialNumbers, else of every robot", async () => {
    served = CORNERS;
    await load();
    const { output } = await outcomeOf("maps", { serialNumbers: ["GS-S-000101", "GS-S-000102"] });
    assert.equal(markers(output!.payload as string).length, 4);
    const { server } = stub;
    const batches = server.requests.filter((request) => request.path.endsWith("/status:batchGet"));
    assert.equal(batches.length, 1);
    assert.deepEqual(batches[0]!.body, { names: ["GS-S-000101", "GS-S-000102"] });
    server.requests.length = 0;
    await outcomeOf("maps", { payload: "tick" });
    assert.equal(server.requests.filter((request) => request.path.startsWith("/v1alpha1/robots?")).length, 1, "the account's robots were listed");
    assert.deepEqual(server.requests.find((request) => request.path.endsWith("/status:batchGet"))!.body, { names: CORNERS.map((each) => each.serialNumber) });
  });

  it("refuses statuses that are not an array before any call", async () => {
    await load();
    await expectInvalidInput("maps", { statuses: { robots: [] } }, /msg\.statuses: must be an array of robot statuses/, stub.server);
  });

  it("refuses a serial-number list with a bad entry before any call", async () => {
    await load();
    await expectInvalidInput("maps", { serialNumbers: ["GS-S-000101", "../x"] }, /msg\.serialNumbers: must be an array of serial numbers/, stub.server);
  });
});
