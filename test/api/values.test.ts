/** Each reading of a value of unknown shape, over the boundaries that tell the meanings apart. */
import assert from "node:assert/strict";
import { idTextOf, isRecord, numberOf, recordOf, textOf, trimmedIdOf, trimmedTextOf } from "../../src/api/cloud/values";

const READERS = { textOf, trimmedTextOf, idTextOf, trimmedIdOf };

// value, then what textOf, trimmedTextOf, idTextOf and trimmedIdOf make of it.
const TEXT_CASES: [unknown, ...(string | undefined)[]][] = [
  ["Lobby", "Lobby", "Lobby", "Lobby", "Lobby"],
  [" Lobby ", " Lobby ", "Lobby", " Lobby ", "Lobby"],
  ["", undefined, undefined, undefined, undefined],
  ["  ", undefined, undefined, undefined, undefined],
  [42, undefined, undefined, "42", "42"],
  [0, undefined, undefined, "0", "0"],
  [Number.NaN, undefined, undefined, undefined, undefined],
  [Number.POSITIVE_INFINITY, undefined, undefined, undefined, undefined],
  [true, undefined, undefined, undefined, undefined],
  [null, undefined, undefined, undefined, undefined],
  [{ name: "Lobby" }, undefined, undefined, undefined, undefined],
];

describe("api: reading values of unknown shape", function () {
  for (const [value, ...expected] of TEXT_CASES) {
    it(`reads ${typeof value === "number" ? String(value) : JSON.stringify(value)} as each kind of text`, function () {
      assert.deepEqual(
        Object.values(READERS).map((read) => read(value)),
        expected,
      );
    });
  }

  it("takes a JSON object, not null or an array, as a record", function () {
    assert.deepEqual(recordOf({ a: 1 }), { a: 1 });
    assert.equal(recordOf([1]), undefined);
    assert.equal(recordOf(null), undefined);
    assert.equal(recordOf("x"), undefined);
    assert.equal(isRecord({}), true);
    assert.equal(isRecord([]), false);
  });

  it("reads numbers and int64 strings as numbers, nothing else", function () {
    assert.equal(numberOf(12.5), 12.5);
    assert.equal(numberOf("360"), 360);
    assert.equal(numberOf(" 7 "), 7);
    assert.equal(numberOf(""), undefined);
    assert.equal(numberOf(" "), undefined);
    assert.equal(numberOf("soon"), undefined);
    assert.equal(numberOf(Number.NaN), undefined);
    assert.equal(numberOf(null), undefined);
    assert.equal(numberOf(true), undefined);
  });
});
