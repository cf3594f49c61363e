/**
 * The one reader of a robot's upkeep facts: how much of each wear part is
 * left, the water tanks, the battery's health (the `device` and `battery`
 * blocks of the S-line and v1 statuses, and a task report's
 * consumablesResidualPercentage: docs/cloud-api.md). Which parts a robot has
 * depends on its model, so only the parts its status names are read; nothing
 * is invented for the others. Pure: no calls.
 */

import { isRecord, numberOf, recordOf, textOf } from "../cloud/values";

/** Wear parts of the recorded statuses' device block, each `{lifeSpan, usedLife}` in one unit (hours). */
export const WEAR_PARTS = [
  "rollingBrush",
  "scrubberBrush",
  "softSqueegee",
  "rollingSqueegee",
  "ordinaryDustPush",
  "rollingDustPush",
  "filter",
] as const;

export type WearPart = (typeof WEAR_PARTS)[number];

/** One wear part as a status gives it. */
export interface PartWear {
  part: WearPart;
  /** The part's life in the cloud's unit (hours in every recorded answer). */
  lifeSpan: number;
  /** Used of it, same unit; the cloud's counter, which a service engineer may reset. */
  usedLife: number;
  /** Share left, 0-1: 1 - usedLife/lifeSpan, held to 0-1. */
  remaining: number;
}

/** The parts a task report's consumablesResidualPercentage names (0-100 there). */
export const REPORTED_PARTS = ["brush", "filter", "suctionBlade"] as const;

export type ReportedPart = (typeof REPORTED_PARTS)[number];

export interface ReportedResidual {
  part: ReportedPart;
  /** Share left, 0-1. */
  remaining: number;
}

/** Water tank levels, 0-100, where the status gives them. */
export interface TankLevels {
  cleanWater?: number;
  recoveryWater?: number;
}

/** The battery's health as the v1 status gives it. */
export interface BatteryHealth {
  /** soh: a word in the recordings ("HEALTHY"); a number from another firmware is kept as its text. */
  health?: string;
  /** Charge cycles (cycleTimes, an int64 sent as a string or a number). */
  cycles?: number;
  /** The hottest of temperature1..7, in °C. */
  hottestCell?: number;
  /** Full capacity as the status gives it (fullCapacity). */
  fullCapacity?: number;
  /** protectorStatus: the battery protection's flags, as listed. */
  protectorStatus?: string[];
}

export interface UpkeepFacts {
  parts: PartWear[];
  tanks: TankLevels;
  battery: BatteryHealth;
}

const BATTERY_TEMPERATURES = [1, 2, 3, 4, 5, 6, 7].map((index) => `temperature${index}`);

/**
 * A part's share left, 0-1, from its counters (life above 0). (life - used) / life rather than
 * 1 - used/life: exact at a threshold (225 of 250 is 0.1, not 0.09999999999999998).
 */
export function shareLeft(used: number, life: number): number {
  return Math.min(1, Math.max(0, (life - used) / life));
}

function partOf(part: WearPart, value: unknown): PartWear | undefined {
  const block = recordOf(value);
  const lifeSpan = numberOf(block?.lifeSpan);
  const usedLife = numberOf(block?.usedLife);
  // A part without a life (side brushes give ifPutDown only) has no wear to read; a life of 0 would divide by zero.
  if (lifeSpan === undefined || usedLife === undefined || lifeSpan <= 0) return undefined;
  return { part, lifeSpan, usedLife, remaining: shareLeft(usedLife, lifeSpan) };
}

function levelOf(value: unknown): number | undefined {
  const level = numberOf(recordOf(value)?.level);
  return level === undefined ? undefined : Math.min(100, Math.max(0, level));
}

function batteryHealthOf(value: unknown): BatteryHealth {
  const battery = recordOf(value);
  if (!battery) return {};
  const temperatures = BATTERY_TEMPERATURES.map((key) => numberOf(battery[key])).filter((reading) => reading !== undefined);
  const soh = battery.soh;
  const health = typeof soh === "number" && Number.isFinite(soh) ? String(soh) : textOf(soh);
  const protectorStatus = Array.isArray(battery.protectorStatus)
    ? battery.protectorStatus.filter((flag): flag is string => typeof flag === "string")
    : undefined;
  return {
    ...(health !== undefined ? { health } : {}),
    ...(numberOf(battery.cycleTimes) !== undefined ? { cycles: numberOf(battery.cycleTimes) } : {}),
    ...(temperatures.length > 0 ? { hottestCell: Math.max(...temperatures) } : {}),
    ...(numberOf(battery.fullCapacity) !== undefined ? { fullCapacity: numberOf(battery.fullCapacity) } : {}),
    ...(protectorStatus ? { protectorStatus } : {}),
  };
}

/** What a status (S-line or v1) says of upkeep; undefined for a status that carries none of it (the V3 status). */
export function upkeepFactsOf(status: unknown): UpkeepFacts | undefined {
  if (!isRecord(status)) return undefined;
  const device = recordOf(status.device);
  const parts = device
    ? WEAR_PARTS.flatMap((part) => {
        const wear = partOf(part, device[part]);
        return wear ? [wear] : [];
      })
    : [];
  const cleanWater = levelOf(device?.cleanWaterTank);
  const recoveryWater = levelOf(device?.recoveryWaterTank);
  const tanks: TankLevels = {
    ...(cleanWater !== undefined ? { cleanWater } : {}),
    ...(recoveryWater !== undefined ? { recoveryWater } : {}),
  };
  const battery = batteryHealthOf(status.battery);
  if (parts.length === 0 && Object.keys(tanks).length === 0 && Object.keys(battery).length === 0) return undefined;
  return { parts, tanks, battery };
}

/** A task report's consumablesResidualPercentage (0-100 each) as shares left, 0-1; the parts it names only. */
export function reportedResidualsOf(report: unknown): ReportedResidual[] {
  const residual = recordOf(recordOf(report)?.consumablesResidualPercentage);
  if (!residual) return [];
  return REPORTED_PARTS.flatMap((part) => {
    const percent = numberOf(residual[part]);
    return percent === undefined ? [] : [{ part, remaining: Math.min(1, Math.max(0, percent / 100)) }];
  });
}
