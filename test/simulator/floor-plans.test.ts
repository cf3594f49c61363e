/**
 * The simulated maps as floor plans: every map's PNG, read back by pngjs (a
 * decoder that is not ours), is exactly the map's width x height; the
 * navigation points and the entrance are on the floor of the image at
 * (x, height - y); every door joins two spaces; every space can be reached
 * from every other, and the ways and cleaning routes never leave the floor.
 */
import assert from "node:assert/strict";
import { PNG } from "pngjs";
import { demoFleet, drawMap, grownFleet, type SimMap } from "../../src/simulator";
import { distance, grow, intersection, poseAt, route, type Point } from "../../src/simulator/maps/geometry";
import { AREA_COLOURS, MAP_COLOURS } from "../../src/simulator/maps/map-image";
import { cleaningRoute, lanesOver, onFloor, wayBetween } from "../../src/simulator/maps/paths";

/** Every distinct map of the demo fleet and of a grown one, by id. */
function allMaps(): SimMap[] {
  const maps = new Map<string, SimMap>();
  for (const robot of [...demoFleet().robots, ...grownFleet(20).robots])
    for (const map of robot.maps) if (!maps.has(map.id)) maps.set(map.id, map);
  return [...maps.values()];
}

/** The image's colour at a bottom-up map point, as "r,g,b". */
function colourAt(png: PNG, map: SimMap, point: Point): string {
  const at = (png.width * (map.height - Math.round(point.y)) + Math.round(point.x)) * 4;
  return [png.data[at], png.data[at + 1], png.data[at + 2]].join(",");
}

/** Points every `step` pixels along a path of corners. */
function along(points: Point[], step = 2): Point[] {
  const path = route(points);
  const samples: Point[] = [];
  for (let travelled = 0; travelled <= path.length; travelled += step) samples.push(poseAt(path, travelled, 0));
  return samples;
}

describe("simulator: maps as floor plans", function () {
  const maps = allMaps();

  it("has three maps of hundreds of pixels a side, none square, each of its own size, at 0.05 m per pixel", () => {
    assert.deepEqual(
      maps.map((map) => [map.name, map.width, map.height]),
      [
        ["Floor 1", 800, 520],
        ["Floor 2", 640, 900],
        ["Warehouse", 1000, 620],
      ],
    );
    for (const map of maps) assert.equal(map.resolution, 0.05);
  });

  for (const map of allMaps()) {
    describe(map.name, () => {
      const png = PNG.sync.read(drawMap(map));
      const floorColours = new Set([MAP_COLOURS.floor, ...AREA_COLOURS].map((colour) => colour.join(",")));

      it("draws a PNG of exactly the map's width x height, grey outside, walls around the floor", () => {
        assert.deepEqual([png.width, png.height], [map.width, map.height]);
        assert.equal(colourAt(png, map, { x: 0, y: 1 }), MAP_COLOURS.unknown.join(","));
        const first = map.partitions[0]!.rect;
        assert.equal(
          colourAt(png, map, { x: first.x - 2, y: first.y + first.height / 2 }),
          MAP_COLOURS.wall.join(","),
          "a wall left of the first room",
        );
      });

      it("has its navigation points and entrance on the floor, where the image shows floor at (x, height - y)", () => {
        for (const point of [...map.navigationPoints, { name: "entrance", ...map.entrance }]) {
          assert.ok(onFloor(map, point), `${point.name} on the floor`);
          assert.ok(floorColours.has(colourAt(png, map, point)), `${point.name}: floor in the image, not ${colourAt(png, map, point)}`);
        }
        assert.ok(map.navigationPoints.some((point) => point.name === "charging"));
      });

      it("gives every area a room, and every door joins exactly two spaces", () => {
        const spaces = [...map.partitions.map((partition) => partition.rect), ...map.otherSpaces];
        for (const space of spaces) {
          assert.ok(
            space.x >= 8 && space.y >= 8 && space.x + space.width <= map.width - 8 && space.y + space.height <= map.height - 8,
            "inside the image with room for walls",
          );
        }
        for (const door of map.doors) {
          assert.equal(spaces.filter((space) => intersection(grow(door, 1), space)).length, 2, JSON.stringify(door));
        }
      });

      it("reaches every space from every other without leaving the floor", () => {
        const spaces = [...map.partitions.map((partition) => partition.rect), ...map.otherSpaces];
        const middles = spaces.map((space) => ({ x: space.x + space.width / 2, y: space.y + space.height / 2 }));
        for (const from of middles) {
          for (const to of middles) {
            const way = wayBetween(map, from, to);
            assert.deepEqual([way[0], way.at(-1)], [from, to]);
            for (const point of along(way))
              assert.ok(
                onFloor(map, point),
                `${JSON.stringify(from)} to ${JSON.stringify(to)} leaves the floor at ${JSON.stringify(point)}`,
              );
          }
        }
      });

      it("cleans back and forth over each room, and its routes stay on the floor", () => {
        for (const partition of map.partitions) {
          const lanes = lanesOver(partition.rect);
          assert.ok(lanes.length >= 4, partition.name);
          for (const point of lanes) assert.ok(onFloor(map, point));
        }
        const charging = map.navigationPoints.find((point) => point.name === "charging")!;
        const whole = cleaningRoute(map, charging, []);
        assert.ok(whole.loopFrom !== undefined && whole.length > whole.loopFrom, "it goes round again");
        for (const point of along(whole.points, 4))
          assert.ok(onFloor(map, point), `the route leaves the floor at ${JSON.stringify(point)}`);
        // Past its end it starts over, and goes on from where the round began.
        const once = whole.length - whole.loopFrom;
        assert.ok(distance(poseAt(whole, whole.loopFrom + 5, 0), poseAt(whole, whole.loopFrom + 5 + once, 0)) < 1e-6);
      });
    });
  }

  it("spreads a grown fleet's robots over Floor 1's floor", () => {
    const fleet = grownFleet(300);
    const floor1 = fleet.robots[0]!.maps[0]!;
    const spots = new Set<string>();
    for (const robot of fleet.robots.slice(0, 2).concat(fleet.robots.slice(3))) {
      assert.equal(robot.localization.mapId, floor1.id);
      assert.ok(onFloor(floor1, robot.localization.position), `${robot.serialNumber} at ${JSON.stringify(robot.localization.position)}`);
      spots.add(`${robot.localization.position.x},${robot.localization.position.y}`);
    }
    assert.ok(spots.size > 250, `${spots.size} different spots`);
  });
});
