/**
 * The simulator's map images: the map endpoint answers a pre-signed
 * downloadUri on its object store, which serves a real PNG of the map's
 * floor plan (its own size, no robot on it) with no token, answers 400 when
 * an Authorization header comes along, 403 for a wrong signature and once
 * expired; and the PNG encoder.
 */
import assert from "node:assert/strict";
import { AREA_COLOURS, MAP_COLOURS } from "../../src/simulator/maps/map-image";
import { Canvas, PNG_SIGNATURE, encodePng } from "../../src/simulator/maps/png";
import { DEMO_TOKEN, WAREHOUSE_TOKEN, demoFleet, startSimulator } from "../../src/simulator";
import { decodePng } from "../support/png";
import { rawRequest } from "../support/raw-http";
import { failureOf } from "../support/failures";
import { useClientOnSimulator } from "../support/client-on-server";

const LOBBY = "GS-S-000101";
const [FLOOR_1, FLOOR_2] = demoFleet().robots[0]!.maps as [
  ReturnType<typeof demoFleet>["robots"][0]["maps"][0],
  ReturnType<typeof demoFleet>["robots"][0]["maps"][0],
];
const FLOOR_1_REF = { serialNumber: LOBBY, mapId: FLOOR_1.id, mapName: FLOOR_1.name, mapVersion: FLOOR_1.version };
const FLOOR_2_REF = { serialNumber: LOBBY, mapId: FLOOR_2.id, mapName: FLOOR_2.name, mapVersion: FLOOR_2.version };

describe("simulator: map images", function () {
  let clock = 1_800_000_000_000;
  const demo = useClientOnSimulator({ now: () => clock, downloadUrlLifetimeMs: 60_000 });

  it("answers an absolute pre-signed downloadUri on the simulator's object store", async () => {
    const { downloadUri } = await demo.client.getMapImageUri(FLOOR_1_REF);
    const url = new URL(downloadUri);
    assert.equal(url.origin, demo.simulator.url);
    assert.equal(url.pathname, `/_objects/maps/${LOBBY}/${FLOOR_1.id}.png`);
    assert.deepEqual([...url.searchParams.keys()], ["expires", "signature"]);
    assert.equal(url.searchParams.get("expires"), String((clock + 60_000) / 1000));
    assert.match(url.searchParams.get("signature")!, /^[0-9a-f]{64}$/);
  });

  it("serves a real PNG with no token: signature bytes, the map's own width x height in RGB, valid CRCs, the areas' colours", async () => {
    const image = await demo.client.getMapImage(FLOOR_1_REF);
    assert.equal(image.contentType, "image/png");
    assert.deepEqual([...image.data.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const png = decodePng(image.data);
    assert.deepEqual([png.width, png.height], [FLOOR_1.width, FLOOR_1.height]);
    assert.deepEqual([png.width, png.height], [800, 520]);
    assert.deepEqual(png.chunks, ["IHDR", "IDAT", "IEND"]);
    const colours = png.colours();
    for (const colour of AREA_COLOURS.slice(0, FLOOR_1.partitions.length))
      assert.ok(colours.has(colour.join(",")), `area colour ${colour.join(",")}`);
    assert.ok(!colours.has(AREA_COLOURS[FLOOR_1.partitions.length]!.join(",")), "one colour per area, no more");
    assert.ok(colours.has(MAP_COLOURS.wall.join(",")));
    assert.ok(colours.has(MAP_COLOURS.floor.join(",")));
    assert.deepEqual(png.pixel(0, 0), [...MAP_COLOURS.unknown]);
    // Floor 2 is a map of its own size.
    const floor2 = decodePng((await demo.client.getMapImage(FLOOR_2_REF)).data);
    assert.deepEqual([floor2.width, floor2.height], [FLOOR_2.width, FLOOR_2.height]);
  });

  it("draws no robot, as the real cloud's image has none: the image is the same wherever the robot is", async () => {
    const before = (await demo.client.getMapImage(FLOOR_1_REF)).data;
    const spot = demo.simulator.state.robot(LOBBY)!.localization.position;
    // The colour the simulator once marked robots with is nowhere, and the robot's spot shows the floor plan.
    assert.ok(!decodePng(before).colours().has("215,48,39"));
    assert.deepEqual(
      decodePng(before).pixel(spot.x, FLOOR_1.height - spot.y),
      [...AREA_COLOURS[0]!],
      "the lobby's floor where the robot stands",
    );
    const entrance = FLOOR_1.navigationPoints.find((point) => point.name === "Lobby entrance")!;
    await demo.client.submitCommand({
      serialNumber: LOBBY,
      remoteNavigationCommandType: "CROSS_NAVIGATE",
      commandParameter: { startNavigationParameter: { map: FLOOR_1.name, position: entrance.name } },
    });
    assert.deepEqual(demo.simulator.state.robot(LOBBY)!.localization.position, { x: entrance.x, y: entrance.y, angle: entrance.angle });
    const after = (await demo.client.getMapImage(FLOOR_1_REF)).data;
    assert.deepEqual(after, before, "the same bytes after the robot moved");
    await demo.client.submitCommand({
      serialNumber: LOBBY,
      remoteNavigationCommandType: "CROSS_NAVIGATE",
      commandParameter: { startNavigationParameter: { map: FLOOR_2.name, position: "Canteen" } },
    });
    assert.equal(demo.simulator.state.robot(LOBBY)!.localization.mapId, FLOOR_2.id);
    assert.deepEqual((await demo.client.getMapImage(FLOOR_1_REF)).data, before, "nor after it left the map");
  });

  it("takes the map's version as the S-line status names it (a resource name) as well as the map list's number", async () => {
    const status = (await demo.client.getRobotStatus({ serialNumber: LOBBY })) as { localizationInfo: { map: { version: string } } };
    const named = status.localizationInfo.map.version;
    assert.notEqual(named, String(FLOOR_1.version), "the status names it otherwise than the map list");
    const byStatus = await demo.client.getMapImage({ ...FLOOR_1_REF, mapVersion: named });
    assert.deepEqual(byStatus.data, (await demo.client.getMapImage(FLOOR_1_REF)).data);
  });

  it("answers 400 when an Authorization header comes along, as object stores do for pre-signed URLs", async () => {
    const { downloadUri } = await demo.client.getMapImageUri(FLOOR_1_REF);
    const answer = await rawRequest(demo.simulator.url, "GET", downloadUri, { headers: { Authorization: `Bearer ${DEMO_TOKEN}` } });
    assert.equal(answer.status, 400);
    assert.equal(answer.headers["content-type"], "application/xml");
    assert.match(answer.text, /<Code>InvalidArgument<\/Code>/);
    // The same URL without it works.
    assert.equal((await rawRequest(demo.simulator.url, "GET", downloadUri)).status, 200);
  });

  it("answers 403 once expired, and the client says the link may have expired", async () => {
    const { downloadUri } = await demo.client.getMapImageUri(FLOOR_1_REF);
    clock += 59_000;
    assert.equal((await rawRequest(demo.simulator.url, "GET", downloadUri)).status, 200, "still valid");
    clock += 1_000;
    const expired = await rawRequest(demo.simulator.url, "GET", downloadUri);
    assert.equal(expired.status, 403);
    assert.match(expired.text, /<Code>AccessDenied<\/Code><Message>Request has expired<\/Message>/);
    const error = await failureOf(demo.client.downloadMapImage(downloadUri));
    assert.equal(error.status, 403);
    assert.match(error.message, /Request has expired/);
    assert.ok(!error.message.includes("signature="), error.message);
  });

  it("answers 403 for a changed signature, a changed expiry, another path, or no signature", async () => {
    const { downloadUri } = await demo.client.getMapImageUri(FLOOR_1_REF);
    const url = new URL(downloadUri);
    const signature = url.searchParams.get("signature")!;
    const variants = [
      downloadUri.replace(signature, `${signature.slice(0, -1)}${signature.endsWith("0") ? "1" : "0"}`),
      downloadUri.replace(/expires=\d+/, `expires=${Number(url.searchParams.get("expires")) + 3600}`),
      downloadUri.replace(FLOOR_1.id, FLOOR_2.id),
      downloadUri.replace(LOBBY, "GS-S-000102"),
      `${url.origin}${url.pathname}`,
      `${url.origin}${url.pathname}?expires=${url.searchParams.get("expires")}&signature=not-hex`,
    ];
    for (const variant of variants) {
      const answer = await rawRequest(demo.simulator.url, "GET", variant);
      assert.equal(answer.status, 403, variant);
    }
  });

  it("answers 405 to anything but GET and HEAD; HEAD has the headers and no body", async () => {
    const { downloadUri } = await demo.client.getMapImageUri(FLOOR_1_REF);
    assert.equal((await rawRequest(demo.simulator.url, "PUT", downloadUri, { body: "x" })).status, 405);
    const head = await rawRequest(demo.simulator.url, "HEAD", downloadUri);
    assert.equal(head.status, 200);
    assert.equal(head.headers["content-type"], "image/png");
    assert.equal(head.bytes.length, 0);
  });

  it("the download needs no token and is not counted by the cloud's rate limit", async () => {
    const limited = await startSimulator({ quiet: true, rateLimit: { requests: 1, windowMs: 60_000 } });
    try {
      const uri = await rawRequest(
        limited.url,
        "GET",
        `/openapi/v2alpha1/robots/${LOBBY}/map?mapId=${FLOOR_1.id}&mapName=Floor%201&mapVersion=${FLOOR_1.version}`,
        { token: DEMO_TOKEN },
      );
      assert.equal(uri.status, 200, uri.text);
      const { downloadUri } = uri.json as { downloadUri: string };
      for (let time = 0; time < 3; time++) assert.equal((await rawRequest(limited.url, "GET", downloadUri)).status, 200);
      assert.equal((await rawRequest(limited.url, "GET", "/v1alpha1/robots", { token: DEMO_TOKEN })).status, 429);
    } finally {
      await limited.close();
    }
  });

  it("the map endpoint checks the map against the map list, naming the field (code 3)", async () => {
    const cases: [Partial<typeof FLOOR_1_REF>, string][] = [
      [{ mapId: "no-such-map" }, "mapId"],
      [{ mapName: "Floor 2" }, "mapName"],
      [{ mapVersion: FLOOR_1.version + 1 }, "mapVersion"],
    ];
    for (const [change, field] of cases) {
      const error = await failureOf(demo.client.getMapImageUri({ ...FLOOR_1_REF, ...change }));
      assert.equal(error.status, 400, field);
      assert.equal(error.apiCode, 3);
      assert.match(error.message, new RegExp(`: ${field}: `));
    }
  });

  it("the map endpoint keeps the cloud's checks: no token 401, another account's robot 403", async () => {
    const path = `/openapi/v2alpha1/robots/${LOBBY}/map?mapId=${FLOOR_1.id}&mapName=Floor%201&mapVersion=3`;
    assert.equal((await rawRequest(demo.simulator.url, "GET", path)).status, 401);
    assert.equal((await rawRequest(demo.simulator.url, "GET", path, { token: WAREHOUSE_TOKEN })).status, 403);
  });
});

describe("simulator: the PNG encoder", function () {
  it("writes the signature, an IHDR of the size, and the pixels back exactly", () => {
    const canvas = new Canvas(5, 3, [1, 2, 3]);
    canvas.fill(1, 1, 2, 1, [250, 0, 10]);
    canvas.fill(-10, -10, 1000, 11, [9, 9, 9]);
    canvas.fill(0, -50, 5, 10, [7, 7, 7]);
    const png = decodePng(canvas.toPng());
    assert.deepEqual([png.width, png.height], [5, 3]);
    assert.deepEqual(png.pixel(0, 0), [9, 9, 9]);
    assert.deepEqual(png.pixel(4, 0), [9, 9, 9]);
    assert.deepEqual(png.pixel(0, 1), [1, 2, 3]);
    assert.deepEqual(png.pixel(1, 1), [250, 0, 10]);
    assert.deepEqual(png.pixel(2, 1), [250, 0, 10]);
    assert.deepEqual(png.pixel(3, 1), [1, 2, 3]);
    assert.deepEqual(png.pixel(4, 2), [1, 2, 3]);
  });

  it("starts with the eight PNG signature bytes and ends with IEND", () => {
    const file = encodePng(1, 1, new Uint8Array([0, 0, 0]));
    assert.deepEqual(file.subarray(0, 8), PNG_SIGNATURE);
    assert.equal(file.toString("latin1", file.length - 8, file.length - 4), "IEND");
  });

  it("refuses pixels of the wrong length and sizes out of range", () => {
    assert.throws(() => encodePng(2, 2, new Uint8Array(11)), RangeError);
    assert.throws(() => new Canvas(0, 10, [0, 0, 0]), RangeError);
  });
});
