/**
 * The one reading of the cloud's times (src/api/cloud/cloud-time.ts): epoch
 * milliseconds as numbers and digit strings, seconds-sized numbers as epoch
 * seconds, RFC 3339 with any zone, and a time without a zone as UTC whatever
 * the machine's zone. What the nodes make of it under other zones is
 * test/nodes/cloud-time-zones.test.ts.
 */
import assert from "node:assert/strict";
import { cloudTimeIso, cloudTimeMs, isoTimesOf } from "../../src/api/cloud/cloud-time";

/** 2025-11-24T16:00:00Z */
const T = 1_764_000_000_000;

describe("cloud times: one reading", function () {
  const cases: Array<[label: string, value: unknown, ms: number | undefined]> = [
    ["epoch ms, a number", T, T],
    ["epoch ms, an int64 string", "1764000000000", T],
    ["epoch ms with spaces around", " 1764000000000 ", T],
    ["epoch seconds, a number (10^9 to 10^11)", 1_764_000_000, T],
    ["epoch seconds, a digit string", "1764000000", T],
    ["the first epoch second read as seconds (2001-09-09)", 1e9, 1e12],
    ["the first epoch ms read as ms (1973-03-03)", 1e11, 1e11],
    ["below 10^9: not a time", 999_999_999, undefined],
    ["past the last instant a Date holds", 9e15, undefined],
    ["RFC 3339 with Z", "2025-11-24T16:00:00Z", T],
    ["RFC 3339 with a lower-case z and a fraction", "2025-11-24t16:00:00.5z", T + 500],
    ["nine fraction digits (three are read)", "2025-11-24T16:00:00.999999999Z", T + 999],
    ["with +08:00", "2025-11-25T00:00:00+08:00", T],
    ["with -0800", "2025-11-24T08:00:00-0800", T],
    ["without a zone: UTC", "2025-11-24T16:00:00", T],
    ["without a zone or seconds, a space for T: UTC", "2025-11-24 16:00", T],
    ["a date alone: its UTC midnight", "2025-11-24", T - 16 * 3600_000],
    ["0: not yet", 0, undefined],
    ['"0": not yet', "0", undefined],
    ["null: not yet", null, undefined],
    ["missing", undefined, undefined],
    ["empty", "", undefined],
    ["blank", "   ", undefined],
    ["negative", -5, undefined],
    ["NaN", Number.NaN, undefined],
    ["Infinity", Infinity, undefined],
    ["garbage text", "yesterday", undefined],
    ["a day-first date", "24/11/2025", undefined],
    ["an impossible date", "2025-13-45T99:00:00Z", undefined],
    ["an object", {}, undefined],
    ["a boolean", true, undefined],
  ];
  for (const [label, value, ms] of cases) {
    it(`${label}: ${JSON.stringify(value) ?? "undefined"} → ${ms === undefined ? "no time" : new Date(ms).toISOString()}`, () => {
      assert.equal(cloudTimeMs(value), ms);
      assert.equal(cloudTimeIso(value), ms === undefined ? undefined : new Date(ms).toISOString());
    });
  }

  it("gives a record's startTimeIso and endTimeIso only where they can be read", () => {
    assert.deepEqual(isoTimesOf({ startTime: "2025-11-24T16:00:00", endTime: 0 }), { startTimeIso: "2025-11-24T16:00:00.000Z" });
    assert.deepEqual(isoTimesOf({ startTime: "soon", endTime: String(T) }), { endTimeIso: "2025-11-24T16:00:00.000Z" });
    assert.deepEqual(isoTimesOf({}), {});
  });
});
