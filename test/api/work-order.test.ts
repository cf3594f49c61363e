/**
 * The work order as CSV (what robot-upkeep answers {"workOrder": {"format":
 * "csv"}} with): each limit at its boundary and one each side (a part due on
 * the 14th day ahead, not the 15th; at its threshold; clean water under 15 %,
 * recovery over 85 %; a cell over 55 °C; a health word other than HEALTHY),
 * the order a person works in, names quoted, the words in English and Chinese,
 * and a format it does not make refused by field.
 */
import assert from "node:assert/strict";
import type { UpkeepPart, UpkeepRobot } from "../../src/api/upkeep/table";
import { workOrderAnswer } from "../../src/api/upkeep/work-order";
import { WORK_ORDER_COLUMNS } from "../../src/api/upkeep/work-order-csv";
import { sharedCatalogue } from "../support/catalogue";

const NOW = new Date("2026-12-07T09:00:00Z");
const ZONE = "Europe/Berlin";
const english = sharedCatalogue("en-US");

function part(name: UpkeepPart["part"], remaining: number, dueDay?: string, basis: UpkeepPart["forecast"]["basis"] = "plan"): UpkeepPart {
  return {
    part: name,
    remaining,
    threshold: 0.1,
    forecast: { basis, historyDays: 21, ...(dueDay ? { dueDay, dueAt: `${dueDay}T00:00:00+01:00`, hoursPerDay: 5.5 } : {}) },
  };
}

function robot(serialNumber: string, fields: Partial<UpkeepRobot> = {}): UpkeepRobot {
  return { serialNumber, name: `Robot ${serialNumber}`, readAt: NOW.toISOString(), parts: [], tanks: {}, battery: {}, ...fields };
}

/** The CSV's lines as records by column. */
function rowsOf(csv: string): Array<Record<string, string>> {
  const [head, ...lines] = csv.trimEnd().split("\n");
  assert.equal(head, WORK_ORDER_COLUMNS.join(","));
  return lines.map((line) => {
    const fields = line
      .match(/("([^"]|"")*"|[^,]*)(,|$)/g)!
      .map((field) => field.replace(/,$/, "").replace(/^"|"$/g, "").replace(/""/g, '"'));
    return Object.fromEntries(WORK_ORDER_COLUMNS.map((column, index) => [column, fields[index] ?? ""]));
  });
}

const csvOf = (table: UpkeepRobot[], words = english) => rowsOf(workOrderAnswer(table, "csv", words, { now: NOW, timeZone: ZONE }));

describe("work order (CSV)", () => {
  it("lists a part due on the 13th and 14th day ahead, not on the 15th nor one without a due day", () => {
    const rows = csvOf([
      robot("S-1", {
        parts: [
          part("filter", 0.3, "2026-12-20"),
          part("rollingBrush", 0.3, "2026-12-21"),
          part("softSqueegee", 0.3, "2026-12-22"),
          part("scrubberBrush", 0.5),
        ],
      }),
    ]);
    assert.deepEqual(
      rows.map((row) => [row.item, row.due_day]),
      [
        ["filter", "2026-12-20"],
        ["rollingBrush", "2026-12-21"],
      ],
    );
    assert.deepEqual(rows[0], {
      kind: "part",
      serial_number: "S-1",
      robot: "Robot S-1",
      item: "filter",
      item_text: "Filter",
      remaining_percent: "30",
      due_day: "2026-12-20",
      basis: "plan",
      basis_text: "at the planned 5.5 h a day · 21 days of history",
      history_days: "21",
      hours_per_day: "5.5",
      todo: "",
    });
  });

  it("lists a part at its threshold as due now (first), not one a hundredth above it", () => {
    const rows = csvOf([
      robot("S-1", {
        parts: [
          part("filter", 0.11, undefined, "too little history"),
          part("rollingBrush", 0.1, undefined, "too little history"),
          part("softSqueegee", 0.09, "2026-12-09"),
        ],
      }),
    ]);
    assert.deepEqual(
      rows.map((row) => [row.item, row.todo, row.basis_text]),
      [
        ["rollingBrush", "under its threshold now", "too little history to say"],
        ["softSqueegee", "under its threshold now", "at the planned 5.5 h a day · 21 days of history"],
      ],
    );
  });

  it("lists clean water under 15 % and recovery water over 85 %, not at the limits", () => {
    const rows = csvOf([
      robot("S-1", { tanks: { cleanWater: 14, recoveryWater: 86 } }),
      robot("S-2", { tanks: { cleanWater: 15, recoveryWater: 85 } }),
      robot("S-3", { tanks: { cleanWater: 16, recoveryWater: 84 } }),
    ]);
    assert.deepEqual(
      rows.map((row) => [row.kind, row.serial_number, row.item, row.remaining_percent, row.todo, row.basis]),
      [
        ["tank", "S-1", "cleanWater", "14", "fill it", "status"],
        ["tank", "S-1", "recoveryWater", "86", "empty it", "status"],
      ],
    );
  });

  it("lists a battery whose health is not HEALTHY or whose hottest cell is over 55 °C, not one at 55 °C", () => {
    const rows = csvOf([
      robot("S-1", { battery: { health: "HEALTHY", hottestCell: 55, cycles: 300 } }),
      robot("S-2", { battery: { health: "HEALTHY", hottestCell: 56 } }),
      robot("S-3", { battery: { health: "WARNING", hottestCell: 30 } }),
      robot("S-4", { battery: { hottestCell: 54 } }),
    ]);
    assert.deepEqual(
      rows.map((row) => [row.serial_number, row.todo]),
      [
        ["S-2", "health: HEALTHY · hottest cell 56 °C"],
        ["S-3", "health: WARNING"],
      ],
    );
  });

  it("puts parts first (by day, robots in natural order), then tanks, then batteries; a name with a comma quoted", () => {
    const rows = csvOf([
      robot("S-11", { name: "Scrubber 11", parts: [part("filter", 0.2, "2026-12-10")], battery: { health: "BAD" } }),
      robot("S-2", { name: 'Scrubber 2, "lobby"', parts: [part("filter", 0.2, "2026-12-10")], tanks: { cleanWater: 3 } }),
      robot("S-3", { name: "Scrubber 3", parts: [part("filter", 0.2, "2026-12-08")] }),
    ]);
    assert.deepEqual(
      rows.map((row) => `${row.kind} ${row.robot}`),
      ["part Scrubber 3", 'part Scrubber 2, "lobby"', "part Scrubber 11", 'tank Scrubber 2, "lobby"', "battery Scrubber 11"],
    );
  });

  it("words each item in Chinese in a runtime set to zh-CN", () => {
    const rows = csvOf(
      [robot("S-1", { parts: [part("filter", 0.2, "2026-12-10")], tanks: { recoveryWater: 90 } })],
      sharedCatalogue("zh-CN"),
    );
    assert.deepEqual(
      rows.map((row) => [row.item_text, row.basis_text, row.todo]),
      [
        ["滤网", "按计划每天 5.5 小时 · 依据 21 天的历史", ""],
        ["污水箱", "当前状态", "排空"],
      ],
    );
  });
});
