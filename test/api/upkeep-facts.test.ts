/**
 * The one reader of upkeep facts (src/api/upkeep/facts.ts) at its bounds:
 * each wear part's share left around its life span, parts that give no life
 * (side brushes) or a life of 0, counters sent as strings, a model without
 * some parts; tank levels held to 0-100; the battery's health word, cycles
 * and hottest cell; a V3 status, which carries none of it; a report's
 * residual percentages.
 */
import assert from "node:assert/strict";
import { reportedResidualsOf, upkeepFactsOf, type UpkeepFacts } from "../../src/api/upkeep/facts";

/** A v1 status as recorded (test/fixtures/recorded-shapes.json), with the device and battery given. */
function status(device: Record<string, unknown>, battery: Record<string, unknown> = { charging: false, powerPercentage: 80 }) {
  return { serialNumber: "GS-S-000101", name: "robots/GS-S-000101", taskState: "IDLE", online: true, battery, device };
}

const partsOf = (facts: UpkeepFacts | undefined) =>
  facts?.parts.map(({ part, usedLife, lifeSpan, remaining }) => [part, usedLife, lifeSpan, remaining]);

describe("upkeep facts: the one reader of wear, water and battery health", function () {
  describe("wear parts", function () {
    it("reads the share left as 1 - usedLife/lifeSpan at, below and past the life span, held to 0-1", function () {
      const remainingAt = (usedLife: number) =>
        upkeepFactsOf(status({ filter: { isRunning: false, lifeSpan: 256, usedLife } }))!.parts[0]!.remaining;
      // A life of 256 hours keeps the shares exact in binary.
      assert.equal(remainingAt(256), 0, "used up at its life span");
      assert.equal(remainingAt(255), 1 / 256, "an hour before it");
      assert.equal(remainingAt(257), 0, "an hour past it: 0, not negative (the counter goes on)");
      assert.equal(remainingAt(0), 1, "new");
      assert.equal(remainingAt(-1), 1, "a counter below 0: held to 1");
      assert.equal(remainingAt(192), 0.25);
      const atThreshold = upkeepFactsOf(status({ softSqueegee: { ifPutDown: false, lifeSpan: 250, usedLife: 225 } }))!.parts[0]!.remaining;
      assert.equal(atThreshold, 0.1, "225 of 250 is exactly the 10 % a threshold compares with, not a hair under");
    });

    it("reads no part with a life span of 0 or less (no division by it); one just above 0 is read", function () {
      const parts = (lifeSpan: number) => partsOf(upkeepFactsOf(status({ rollingBrush: { lifeSpan, usedLife: 0 } })));
      assert.equal(upkeepFactsOf(status({ rollingBrush: { lifeSpan: 0, usedLife: 0 } })), undefined, "nothing else to read: no facts");
      assert.deepEqual(parts(-1), undefined);
      assert.deepEqual(parts(0.1), [["rollingBrush", 0, 0.1, 1]]);
    });

    it("reads counters sent as strings (int64 style) as numbers; text that is no number is no counter", function () {
      const facts = upkeepFactsOf(
        status({
          scrubberBrush: { enabled: false, ifPutDown: false, lifeSpan: "300", usedLife: "75" },
          filter: { lifeSpan: "201", usedLife: "n/a" },
          cleanWaterTank: { level: 10 },
        }),
      );
      assert.deepEqual(partsOf(facts), [["scrubberBrush", 75, 300, 0.75]]);
    });

    it("reads no part that gives ifPutDown only (the side brushes) or no usedLife", function () {
      const facts = upkeepFactsOf(
        status({
          leftSideBrush: { ifPutDown: true },
          rightSideBrush: { ifPutDown: false },
          softSqueegee: { ifPutDown: true },
          rollingSqueegee: { ifPutDown: true, lifeSpan: 250 },
          filter: { isRunning: true, lifeSpan: 201, usedLife: 60 },
        }),
      );
      assert.deepEqual(
        facts!.parts.map((part) => part.part),
        ["filter"],
      );
    });

    it("reads the parts a model has, in the reader's order, inventing none for a model without the others", function () {
      const sweeper = upkeepFactsOf(
        status({
          filter: { isRunning: false, lifeSpan: 201, usedLife: 20.1 },
          rollingDustPush: { lifeSpan: 400, usedLife: 100 },
          rollingBrush: { lifeSpan: 300, usedLife: 30 },
          vacuum: { enabled: false },
        }),
      );
      assert.deepEqual(partsOf(sweeper), [
        ["rollingBrush", 30, 300, 0.9],
        ["rollingDustPush", 100, 400, 0.75],
        ["filter", 20.1, 201, 0.9],
      ]);
      assert.deepEqual(sweeper!.tanks, {}, "no tanks named: none read");
      const every = upkeepFactsOf(
        status(
          Object.fromEntries(
            ["rollingBrush", "scrubberBrush", "softSqueegee", "rollingSqueegee", "ordinaryDustPush", "rollingDustPush", "filter"].map(
              (part) => [part, { lifeSpan: 100, usedLife: 10 }],
            ),
          ),
        ),
      );
      assert.equal(every!.parts.length, 7, "all seven recorded parts");
    });
  });

  describe("tanks", function () {
    it("reads both levels held to 0-100, at and beyond each bound, numbers sent as strings too", function () {
      const tanks = (clean: unknown, recovery: unknown) =>
        upkeepFactsOf(status({ cleanWaterTank: { level: clean }, recoveryWaterTank: { level: recovery } }))?.tanks;
      assert.deepEqual(tanks(0, 100), { cleanWater: 0, recoveryWater: 100 });
      assert.deepEqual(tanks(-1, 101), { cleanWater: 0, recoveryWater: 100 });
      assert.deepEqual(tanks(0.5, 99.5), { cleanWater: 0.5, recoveryWater: 99.5 });
      assert.deepEqual(tanks("12", "85"), { cleanWater: 12, recoveryWater: 85 });
      assert.deepEqual(
        upkeepFactsOf(status({ cleanWaterTank: {}, recoveryWaterTank: { level: 3 } }))!.tanks,
        { recoveryWater: 3 },
        "a tank with no level is left out",
      );
    });
  });

  describe("battery", function () {
    const battery = (fields: Record<string, unknown>) =>
      upkeepFactsOf(status({}, { charging: false, powerPercentage: 80, ...fields }))?.battery;

    it("keeps soh as the word it is; a number from another firmware as its text; a blank word as none", function () {
      assert.deepEqual(battery({ soh: "HEALTHY" }), { health: "HEALTHY" });
      assert.deepEqual(battery({ soh: 97 }), { health: "97" });
      assert.equal(battery({ soh: " " }), undefined, "nothing read at all: no facts");
    });

    it("reads cycleTimes as a number or an int64 string, and the hottest of temperature1..7 only", function () {
      assert.deepEqual(battery({ cycleTimes: "212" }), { cycles: 212 });
      assert.deepEqual(battery({ cycleTimes: 0 }), { cycles: 0 });
      const cells = Object.fromEntries(
        [31, 29, 44.5, 30, 28, 27, 26].map((temperature, index) => [`temperature${index + 1}`, temperature]),
      );
      assert.deepEqual(
        battery({ ...cells, temperature8: 90, cellVoltage1: 3.6 }),
        { hottestCell: 44.5 },
        "temperature8 is no recorded cell",
      );
      assert.deepEqual(battery({ temperature7: "61" }), { hottestCell: 61 }, "one cell given, as a string");
      assert.deepEqual(battery({ temperature1: -5, temperature2: -7 }), { hottestCell: -5 }, "below freezing: still the hottest");
    });

    it("reads fullCapacity and the protector's flags, leaving out what is no flag; no health field: nothing", function () {
      assert.deepEqual(battery({ fullCapacity: 105, protectorStatus: ["OVER_TEMPERATURE", 3, null] }), {
        fullCapacity: 105,
        protectorStatus: ["OVER_TEMPERATURE"],
      });
      assert.equal(battery({ soc: 80, totalVoltage: 25.1 }), undefined);
    });
  });

  describe("statuses that carry none of it", function () {
    it("answers undefined for a V3 status (work state and charge only), for no object, and for a status without device or health", function () {
      const v3 = { serialNumber: "GS-S-000101", online: true, workState: 260, battery: { powerPercentage: 80, charging: false } };
      assert.equal(upkeepFactsOf(v3), undefined);
      assert.equal(upkeepFactsOf(undefined), undefined);
      assert.equal(upkeepFactsOf([status({ filter: { lifeSpan: 1, usedLife: 0 } })]), undefined, "a list is no status");
      assert.equal(upkeepFactsOf(status({ vacuum: { enabled: true }, spray: { isRunning: false, waterLevel: 0 } })), undefined);
    });

    it("reads a recorded S-line status with the device block alike", function () {
      const sLine = {
        serialNumber: "GS-S-000101",
        taskState: "IDLE",
        battery: { charging: true, powerPercentage: 96 },
        device: { cleanWaterTank: { level: 60 }, softSqueegee: { ifPutDown: false, lifeSpan: 250, usedLife: 22.5 } },
      };
      assert.deepEqual(upkeepFactsOf(sLine), {
        parts: [{ part: "softSqueegee", lifeSpan: 250, usedLife: 22.5, remaining: 0.91 }],
        tanks: { cleanWater: 60 },
        battery: {},
      });
    });
  });

  describe("a report's residual percentages", function () {
    it("reads each as a share left, held to 0-1 at and beyond its bounds, strings too, the parts named only", function () {
      assert.deepEqual(reportedResidualsOf({ consumablesResidualPercentage: { brush: 74, filter: 81, suctionBlade: 90 } }), [
        { part: "brush", remaining: 0.74 },
        { part: "filter", remaining: 0.81 },
        { part: "suctionBlade", remaining: 0.9 },
      ]);
      assert.deepEqual(reportedResidualsOf({ consumablesResidualPercentage: { brush: 100, filter: 101, suctionBlade: 0 } }), [
        { part: "brush", remaining: 1 },
        { part: "filter", remaining: 1 },
        { part: "suctionBlade", remaining: 0 },
      ]);
      assert.deepEqual(reportedResidualsOf({ consumablesResidualPercentage: { brush: -1, filter: "50", sideBrush: 20 } }), [
        { part: "brush", remaining: 0 },
        { part: "filter", remaining: 0.5 },
      ]);
      assert.deepEqual(reportedResidualsOf({ waterConsumptionLiter: 3 }), []);
      assert.deepEqual(reportedResidualsOf({ consumablesResidualPercentage: [74] }), []);
      assert.deepEqual(reportedResidualsOf(null), []);
    });
  });
});
