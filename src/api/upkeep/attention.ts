/**
 * What of the upkeep table needs a person (pure): parts due within the
 * coming days (or under their threshold already), tanks that need emptying or
 * filling now, batteries whose health or temperature leaves normal. One
 * reading for everything a person looks at: the console's upkeep view and the
 * work order list the same items in the same order.
 */
import type { UpkeepRobot, ForecastBasis } from "./table";
import type { ReportedPart, WearPart } from "./facts";

export interface UpkeepLimits {
  /** A part whose forecast day is at most this many days after today is due (today + 14 is, today + 15 is not). */
  dueWithinDays: number;
  /** A clean-water level under this (per cent) needs filling. */
  cleanWaterBelow: number;
  /** A recovery-water level over this (per cent) needs emptying. */
  recoveryWaterAbove: number;
  /** A battery cell hotter than this (°C) is out of normal. */
  batteryHotAbove: number;
}

/** The defaults (robot-upkeep's settings start from them): 14 days ahead, clean water under 15 %, recovery over 85 %. */
export const DEFAULT_UPKEEP_LIMITS: Readonly<UpkeepLimits> = {
  dueWithinDays: 14,
  cleanWaterBelow: 15,
  recoveryWaterAbove: 85,
  batteryHotAbove: 55,
};

/** The battery health word of the recorded statuses that means all is well. */
export const HEALTHY_BATTERY = "HEALTHY";

export type TankName = "cleanWater" | "recoveryWater";

interface OfRobot {
  serialNumber: string;
  robotName: string;
}

export interface PartDue extends OfRobot {
  kind: "part";
  part: WearPart | ReportedPart;
  /** Share left, 0-1. */
  remaining: number;
  threshold: number;
  /** Already at or under its threshold: due now, whatever the forecast says. */
  overdue: boolean;
  dueDay?: string;
  basis: ForecastBasis;
  historyDays: number;
  hoursPerDay?: number;
}

export interface TankNeed extends OfRobot {
  kind: "tank";
  tank: TankName;
  /** Level, 0-100. */
  level: number;
}

export interface BatteryNotice extends OfRobot {
  kind: "battery";
  health?: string;
  hottestCell?: number;
  cycles?: number;
  /** Why: a health word other than HEALTHY, a cell over the limit, or both. */
  reasons: Array<"health" | "temperature">;
}

export type UpkeepItem = PartDue | TankNeed | BatteryNotice;

const DAY_MS = 86_400_000;

/** The calendar day `days` after `day` (YYYY-MM-DD; no zone involved). */
export function dayAfter(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

const naturalOrder = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/**
 * The zone a table's "today" is taken in (the console's list, the work order):
 * the zone its robots' days share (table.ts `zone`); undefined (the runtime's)
 * when they are in two zones or give none.
 */
export function zoneOfTable(table: readonly UpkeepRobot[]): string | undefined {
  const zones = new Set(table.map((robot) => robot.zone));
  return zones.size === 1 ? [...zones][0] : undefined;
}

/** The parts due by `today` + dueWithinDays, those under their threshold first, then by day, robot and part. */
export function partsDue(table: readonly UpkeepRobot[], today: string, limits: UpkeepLimits = DEFAULT_UPKEEP_LIMITS): PartDue[] {
  const last = dayAfter(today, limits.dueWithinDays);
  const due: PartDue[] = [];
  for (const robot of table) {
    for (const part of robot.parts) {
      const overdue = part.remaining <= part.threshold;
      const { dueDay } = part.forecast;
      if (!overdue && (dueDay === undefined || dueDay > last)) continue;
      due.push({
        kind: "part",
        serialNumber: robot.serialNumber,
        robotName: robot.name ?? robot.serialNumber,
        part: part.part,
        remaining: part.remaining,
        threshold: part.threshold,
        overdue,
        ...(dueDay !== undefined ? { dueDay } : {}),
        basis: part.forecast.basis,
        historyDays: part.forecast.historyDays,
        ...(part.forecast.hoursPerDay !== undefined ? { hoursPerDay: part.forecast.hoursPerDay } : {}),
      });
    }
  }
  return due.sort(
    (a, b) =>
      Number(b.overdue) - Number(a.overdue) ||
      (a.dueDay ?? "").localeCompare(b.dueDay ?? "") ||
      naturalOrder.compare(a.robotName, b.robotName) ||
      a.part.localeCompare(b.part),
  );
}

/** Tanks that need a person now: clean water under its limit, recovery water over its limit. */
export function tanksNeedingPerson(table: readonly UpkeepRobot[], limits: UpkeepLimits = DEFAULT_UPKEEP_LIMITS): TankNeed[] {
  const needs: TankNeed[] = [];
  for (const robot of byName(table)) {
    const robotName = robot.name ?? robot.serialNumber;
    const { cleanWater, recoveryWater } = robot.tanks;
    if (cleanWater !== undefined && cleanWater < limits.cleanWaterBelow)
      needs.push({ kind: "tank", serialNumber: robot.serialNumber, robotName, tank: "cleanWater", level: cleanWater });
    if (recoveryWater !== undefined && recoveryWater > limits.recoveryWaterAbove)
      needs.push({ kind: "tank", serialNumber: robot.serialNumber, robotName, tank: "recoveryWater", level: recoveryWater });
  }
  return needs;
}

/** Batteries out of normal: a health word other than HEALTHY, or a cell over the temperature limit. */
export function batteryNotices(table: readonly UpkeepRobot[], limits: UpkeepLimits = DEFAULT_UPKEEP_LIMITS): BatteryNotice[] {
  return byName(table).flatMap((robot): BatteryNotice[] => {
    const { health, hottestCell, cycles } = robot.battery;
    const reasons: BatteryNotice["reasons"] = [];
    if (health !== undefined && health.toUpperCase() !== HEALTHY_BATTERY) reasons.push("health");
    if (hottestCell !== undefined && hottestCell > limits.batteryHotAbove) reasons.push("temperature");
    if (reasons.length === 0) return [];
    return [
      {
        kind: "battery",
        serialNumber: robot.serialNumber,
        robotName: robot.name ?? robot.serialNumber,
        ...(health !== undefined ? { health } : {}),
        ...(hottestCell !== undefined ? { hottestCell } : {}),
        ...(cycles !== undefined ? { cycles } : {}),
        reasons,
      },
    ];
  });
}

/** Everything that needs a person, in the order a person works through it: parts due, tanks, batteries. */
export function upkeepItems(table: readonly UpkeepRobot[], today: string, limits: UpkeepLimits = DEFAULT_UPKEEP_LIMITS): UpkeepItem[] {
  return [...partsDue(table, today, limits), ...tanksNeedingPerson(table, limits), ...batteryNotices(table, limits)];
}

function byName(table: readonly UpkeepRobot[]): UpkeepRobot[] {
  return [...table].sort((a, b) => naturalOrder.compare(a.name ?? a.serialNumber, b.name ?? b.serialNumber));
}
