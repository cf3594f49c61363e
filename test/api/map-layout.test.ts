/**
 * The floor plan's layout, apart from drawing: robots on one spot fanned out
 * and labels that hide nothing, checked on seeded scenes up to fleet size
 * with an overlap test of the test's own.
 */
import assert from "node:assert/strict";
import { placeLabels, spreadMarkers, textWidth, type Box, type LabelRequest } from "../../src/api/map-layout";
import { between, seeded } from "../support/seeded";

const intersect = (a: Box, b: Box) =>
  Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > 1e-6 &&
  Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) > 1e-6;
const square = (x: number, y: number, radius: number): Box => ({ x: x - radius, y: y - radius, width: 2 * radius, height: 2 * radius });

describe("map layout", () => {
  it("leaves lone robots where they are and sets robots on one spot a marker apart, around that spot", () => {
    const spread = spreadMarkers(
      [
        { id: "alone", x: 300, y: 40 },
        { id: "a", x: 50, y: 50 },
        { id: "b", x: 50, y: 50 },
        { id: "c", x: 51, y: 50 },
      ],
      10,
    );
    assert.deepEqual(spread[0]!.drawnAt, { x: 300, y: 40 });
    const group = spread.slice(1);
    for (let i = 0; i < group.length; i++) {
      for (let j = i + 1; j < group.length; j++) {
        const apart = Math.hypot(group[i]!.drawnAt.x - group[j]!.drawnAt.x, group[i]!.drawnAt.y - group[j]!.drawnAt.y);
        assert.ok(apart >= 10 - 1e-9, `${group[i]!.id}-${group[j]!.id} ${apart} apart`);
      }
    }
    for (const robot of group)
      assert.ok(Math.hypot(robot.drawnAt.x - robot.x, robot.drawnAt.y - robot.y) <= 10 + 1e-9, `${robot.id} stays next to its spot`);
    assert.deepEqual(group[0]!.drawnAt, { x: 50, y: 50 }, "the first keeps its spot");
    assert.deepEqual(
      group.map((robot) => [robot.x, robot.y]),
      [
        [50, 50],
        [50, 50],
        [51, 50],
      ],
      "each keeps its true spot",
    );
  });

  it("estimates CJK text as square characters and Latin text narrower", () => {
    assert.equal(textWidth("清洁", 10), 20);
    assert.equal(textWidth("ab", 10), 12);
  });

  for (const [seed, count] of [
    [1, 40],
    [2, 40],
    [3, 200],
    [4, 200],
    [5, 200],
  ] as const) {
    it(`places ${count} robots and 40 points (seed ${seed}): no two markers or labels overlap, no label covers a marker, robots named before points`, () => {
      const rng = seeded(seed);
      const width = 1000;
      const height = 700;
      const unit = 8;
      // A quarter of the robots wait at eight chargers, the rest are out on the floor.
      const chargers = Array.from({ length: 8 }, () => ({ x: between(rng, 60, width - 60), y: between(rng, 60, height - 60) }));
      const robots = Array.from({ length: count }, (_, index) => {
        const charger = chargers[between(rng, 0, chargers.length - 1)]!;
        return rng() < 0.25
          ? { id: `R${index}`, ...charger }
          : { id: `R${index}`, x: between(rng, 10, width - 10), y: between(rng, 10, height - 10) };
      });
      const spread = spreadMarkers(robots, unit * 2.6);
      for (let i = 0; i < spread.length; i++) {
        for (let j = i + 1; j < spread.length; j++) {
          const apart = Math.hypot(spread[i]!.drawnAt.x - spread[j]!.drawnAt.x, spread[i]!.drawnAt.y - spread[j]!.drawnAt.y);
          assert.ok(apart >= 2 * unit, `${spread[i]!.id} and ${spread[j]!.id} overlap`);
        }
      }
      const points = Array.from({ length: 40 }, (_, index) => ({
        name: `Point ${index}`,
        x: between(rng, 10, width - 10),
        y: between(rng, 10, height - 10),
      }));
      const markers = spread.map((robot) => square(robot.drawnAt.x, robot.drawnAt.y, unit * 1.2));
      const requests: LabelRequest[] = [
        ...spread.map((robot): LabelRequest => ({
          id: robot.id,
          text: `Scrubber ${robot.id}`,
          anchor: robot.drawnAt,
          clearance: unit * 1.3,
          kind: "robot",
        })),
        ...points.map((point): LabelRequest => ({ id: point.name, text: point.name, anchor: point, clearance: unit, kind: "point" })),
      ];
      const placed = placeLabels(requests, markers, unit * 1.6, { x: 0, y: 0, width, height });
      const boxes = [...placed.entries()];
      for (let i = 0; i < boxes.length; i++) {
        const [id, { box }] = boxes[i]!;
        assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height, `${id} is cut off`);
        for (let j = i + 1; j < boxes.length; j++) assert.ok(!intersect(box, boxes[j]![1].box), `${id} over ${boxes[j]![0]}`);
        for (const marker of markers) assert.ok(!intersect(box, marker), `${id} covers a robot`);
      }
      const robotsNamed = spread.filter((robot) => placed.has(robot.id)).length;
      const pointsNamed = placed.size - robotsNamed;
      // On a floor of 40 robots every name finds room; at 200 on 1000 x 700 pixels names would cover a third of
      // the floor, and those with no free place are left to the tooltip rather than drawn over others.
      if (count === 40) assert.equal(robotsNamed, 40, `${robotsNamed} of 40 robots named`);
      else assert.ok(robotsNamed >= 0.6 * count, `${robotsNamed} robots and ${pointsNamed} points named`);
    });
  }
});
