/**
 * How the simulated robots wear (issue 46): wear parts, water tanks and
 * battery health as the device and battery blocks of the recorded statuses
 * carry them (test/fixtures/recorded-shapes.json; docs/cloud-api.md, "Upkeep
 * fields"), changed by cleaning time and charging under the world's clock,
 * and what the control API reads and sets of them. No recording gives a rate,
 * so the rates here are the simulator's own.
 */
import { createHash } from "node:crypto";
import { cleaningModeMeaningOf } from "../../api/cloud/cleaning-modes";
import { WEAR_PARTS, shareLeft, type WearPart } from "../../api/upkeep/facts";
import type { WearChanges, WearQuery } from "../server/control-requests";
import { invalid } from "../server/sim-errors";
import { milliTimestamp, round } from "./values";

/** One wear part's counters as the cloud gives them: both in hours. */
export interface PartCounter {
  lifeSpan: number;
  usedLife: number;
}

export interface BatteryWear {
  /** A word in the recorded statuses ("HEALTHY"); the control API may set another. */
  soh: string;
  cycleTimes: number;
  /** temperature1..n of the recorded battery block, °C. */
  temperatures: number[];
  /** Percent charged since the last cycle counted: every 100 % charged is one more cycle. */
  chargedSinceCycle: number;
}

export interface RobotWear {
  /** The parts the robot's model has (which ones depends on the model, as on the real cloud). */
  parts: Partial<Record<WearPart, PartCounter>>;
  /** Tank levels 0-100; absent on a model without tanks (the sweeper). */
  cleanWater?: number;
  recoveryWater?: number;
  battery: BatteryWear;
  /** When a part was last replaced through the control API (epoch ms): the simulator's truth, in no status. */
  replacedAt: Partial<Record<WearPart, number>>;
}

/**
 * The parts of each kind of simulated robot and their lifeSpan in hours: the
 * recorded S-line status's (rolling and scrubber brush 300, soft squeegee
 * 250, filter 201); the sweeper's dust push (400) is the simulator's own.
 */
export const MODEL_PARTS = {
  scrubber: { rollingBrush: 300, scrubberBrush: 300, softSqueegee: 250, filter: 201 },
  sweeper: { rollingBrush: 300, rollingDustPush: 400, filter: 201 },
} as const satisfies Record<string, Partial<Record<WearPart, number>>>;

export type WearModel = keyof typeof MODEL_PARTS;

/** Worn while scrubbing: usedLife counts the hours the part ran (the recorded counters are hours). */
const SCRUBBING_PARTS: readonly WearPart[] = ["scrubberBrush", "softSqueegee", "rollingSqueegee"];
/** Worn while sweeping, dust mopping or vacuuming. */
const DRY_PARTS: readonly WearPart[] = ["rollingBrush", "ordinaryDustPush", "rollingDustPush", "filter"];
/** Points of the clean-water tank a scrubbing hour uses (a full tank lasts 4 hours) and of the recovery tank it fills (less: the floor keeps some). */
const CLEAN_WATER_PER_HOUR = 25;
const RECOVERY_WATER_PER_HOUR = 22;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A share 0-1 that is the same on every run for the same text: the fleet's spread of wear is seeded, not random. */
function seededShare(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0) / 2 ** 32;
}

const tenths = (value: number): number => Math.round(value * 10) / 10;

/** A robot's wear at the simulator's start, different for each serial number and the same on every start. */
export function seededWear(model: WearModel, serialNumber: string): RobotWear {
  const share = (what: string) => seededShare(`${serialNumber}/${what}`);
  const parts: RobotWear["parts"] = {};
  for (const [part, lifeSpan] of Object.entries(MODEL_PARTS[model]) as [WearPart, number][])
    parts[part] = { lifeSpan, usedLife: tenths(lifeSpan * (0.05 + 0.75 * share(part))) };
  return {
    parts,
    ...(model === "scrubber"
      ? { cleanWater: Math.round(40 + 60 * share("clean")), recoveryWater: Math.round(30 * share("recovery")) }
      : {}),
    battery: {
      soh: "HEALTHY",
      cycleTimes: Math.floor(40 + 360 * share("cycles")),
      temperatures: [1, 2, 3, 4, 5, 6, 7].map((cell) => tenths(26 + 4 * share(`temperature${cell}`))),
      chargedSinceCycle: 0,
    },
    replacedAt: {},
  };
}

/**
 * Whether cleaning in `mode` scrubs: on a robot with scrubbing parts, every
 * mode but those whose name says sweeping, dust mopping or vacuuming
 * (cleaning-modes.ts); a robot without them never scrubs.
 */
function scrubs(wear: RobotWear, mode: string | undefined): boolean {
  if (!SCRUBBING_PARTS.some((part) => wear.parts[part])) return false;
  const meaning = cleaningModeMeaningOf(mode);
  if (!meaning) return true;
  return "kind" in meaning ? !["sweep", "dustMop", "vacuum"].includes(meaning.kind) : meaning.words !== "sweeping";
}

const tankLevel = (value: number): number => Math.min(100, Math.max(0, value));

/** What `ms` of cleaning in `mode` does: the parts the mode uses gain the hours; scrubbing draws clean water and fills the recovery tank. */
export function wearWhileCleaning(wear: RobotWear, mode: string | undefined, ms: number): void {
  if (!(ms > 0)) return;
  const hours = ms / HOUR_MS;
  const scrubbing = scrubs(wear, mode);
  // The cloud's counter goes on past lifeSpan: a worn-out part still runs.
  for (const part of scrubbing ? SCRUBBING_PARTS : DRY_PARTS) if (wear.parts[part]) wear.parts[part].usedLife += hours;
  if (!scrubbing) return;
  if (wear.cleanWater !== undefined) wear.cleanWater = tankLevel(wear.cleanWater - hours * CLEAN_WATER_PER_HOUR);
  if (wear.recoveryWater !== undefined) wear.recoveryWater = tankLevel(wear.recoveryWater + hours * RECOVERY_WATER_PER_HOUR);
}

/** A charge of `gained` percent: every 100 % charged counts one more of the battery's cycleTimes. */
export function countCharge(battery: BatteryWear, gained: number): void {
  if (!(gained > 0)) return;
  battery.chargedSinceCycle += gained;
  const cycles = Math.floor(battery.chargedSinceCycle / 100);
  battery.cycleTimes += cycles;
  battery.chargedSinceCycle -= cycles * 100;
}

/**
 * The device block of both recorded statuses, from the robot's wear: its
 * tanks and parts (the flags each part carries in the recording: the
 * scrubber brush's enabled and ifPutDown, the squeegees' ifPutDown, the
 * filter's isRunning, true while the robot is `cleaning` in a mode that uses
 * the part) and the recorded spray on a robot with tanks.
 */
export function deviceBlockOf(wear: RobotWear, cleaningMode: string | undefined, cleaning: boolean): Record<string, unknown> {
  const inUse = new Set(cleaning ? (scrubs(wear, cleaningMode) ? SCRUBBING_PARTS : DRY_PARTS) : []);
  const device: Record<string, unknown> = {};
  if (wear.cleanWater !== undefined) device.cleanWaterTank = { level: Math.round(wear.cleanWater) };
  if (wear.recoveryWater !== undefined) device.recoveryWaterTank = { level: Math.round(wear.recoveryWater) };
  for (const part of WEAR_PARTS) {
    const counter = wear.parts[part];
    if (!counter) continue;
    const using = inUse.has(part);
    const flags =
      part === "scrubberBrush"
        ? { enabled: using, ifPutDown: using }
        : part === "softSqueegee" || part === "rollingSqueegee"
          ? { ifPutDown: using }
          : part === "filter"
            ? { isRunning: using }
            : {};
    device[part] = { ...flags, lifeSpan: counter.lifeSpan, usedLife: tenths(counter.usedLife) };
  }
  if (wear.cleanWater !== undefined) device.spray = { isRunning: false, waterLevel: 0 };
  return device;
}

/** The battery block's health fields of the recorded statuses: soh (a word), cycleTimes, temperature1..n. */
export function batteryHealthBlockOf(battery: BatteryWear): Record<string, unknown> {
  return {
    soh: battery.soh,
    cycleTimes: battery.cycleTimes,
    ...Object.fromEntries(battery.temperatures.map((temperature, index) => [`temperature${index + 1}`, temperature])),
  };
}

const percentLeft = (counter: PartCounter | undefined): number =>
  counter ? Math.round(100 * shareLeft(counter.usedLife, counter.lifeSpan)) : 100;

/**
 * A report's consumablesResidualPercentage (percent left, whole numbers as
 * recorded), from the parts now: brush the scrubber brush (else the rolling
 * brush), filter the filter, suctionBlade the squeegee. The recorded shape
 * always has all three; for a part the model lacks it is 100 (nothing of it worn).
 */
export function residualPercentagesOf(wear: RobotWear): { brush: number; filter: number; suctionBlade: number } {
  const { parts } = wear;
  return {
    brush: percentLeft(parts.scrubberBrush ?? parts.rollingBrush),
    filter: percentLeft(parts.filter),
    suctionBlade: percentLeft(parts.softSqueegee ?? parts.rollingSqueegee),
  };
}

/** What the simulator knows of a robot's wear (GET /_sim/robots/<serial>/wear): the truth a forecast is held to. */
export interface WearTruth {
  serialNumber: string;
  /** The simulated clock's time of this reading. */
  at: string;
  /** The share left the crossing figures are for (the query's, 0.1 by default). */
  share: number;
  hoursPerDay?: number;
  parts: {
    part: WearPart;
    lifeSpan: number;
    usedLife: number;
    /** 1 - usedLife/lifeSpan, held to 0-1 (to 0.001, as every figure here). */
    remaining: number;
    /** Hours of cleaning that wears the part until it has `share` left (0 once it has). */
    cleaningHoursToShare: number;
    /** When it has `share` left at `hoursPerDay` hours of such cleaning a day from now (with hoursPerDay only). */
    reachesShareAt?: string;
    replacedAt?: string;
  }[];
  cleanWater?: number;
  recoveryWater?: number;
  battery: { soh: string; cycleTimes: number; temperatures: number[] };
}

export function wearTruthOf(serialNumber: string, wear: RobotWear, query: WearQuery, now: number): WearTruth {
  const { share, hoursPerDay } = query;
  const parts = WEAR_PARTS.flatMap((part) => {
    const counter = wear.parts[part];
    if (!counter) return [];
    const cleaningHoursToShare = Math.max(0, counter.lifeSpan * (1 - share) - counter.usedLife);
    const replaced = wear.replacedAt[part];
    return [
      {
        part,
        lifeSpan: counter.lifeSpan,
        usedLife: round(counter.usedLife),
        remaining: round(shareLeft(counter.usedLife, counter.lifeSpan)),
        cleaningHoursToShare: round(cleaningHoursToShare),
        ...(hoursPerDay !== undefined ? { reachesShareAt: milliTimestamp(now + (cleaningHoursToShare / hoursPerDay) * DAY_MS) } : {}),
        ...(replaced !== undefined ? { replacedAt: milliTimestamp(replaced) } : {}),
      },
    ];
  });
  const { soh, cycleTimes, temperatures } = wear.battery;
  return {
    serialNumber,
    at: milliTimestamp(now),
    share,
    ...(hoursPerDay !== undefined ? { hoursPerDay } : {}),
    parts,
    ...(wear.cleanWater !== undefined ? { cleanWater: round(wear.cleanWater) } : {}),
    ...(wear.recoveryWater !== undefined ? { recoveryWater: round(wear.recoveryWater) } : {}),
    battery: { soh, cycleTimes, temperatures: [...temperatures] },
  };
}

/**
 * What a person does to a robot (PATCH /_sim/robots/<serial>/wear): replaces
 * parts (usedLife 0, the time kept), sets a counter (a service engineer's
 * reset is usedLife 0; a lagging counter is left or set), refills or empties
 * a tank, sets the battery's health words and figures. A part or tank the
 * robot does not have is refused naming it; nothing changes then.
 */
export function changeWear(wear: RobotWear, changes: WearChanges, now: number): void {
  const missing = [...(changes.replace ?? []), ...Object.keys(changes.parts ?? {})].find((part) => !wear.parts[part as WearPart]);
  if (missing !== undefined)
    throw invalid(changes.replace?.includes(missing as WearPart) ? "replace" : `parts.${missing}`, `the robot has no ${missing}`);
  for (const tank of ["cleanWater", "recoveryWater"] as const)
    if (changes[tank] !== undefined && wear[tank] === undefined) throw invalid(tank, "the robot has no water tanks");
  for (const part of changes.replace ?? []) {
    wear.parts[part]!.usedLife = 0;
    wear.replacedAt[part] = now;
  }
  for (const [part, set] of Object.entries(changes.parts ?? {}) as [WearPart, { usedLife?: number; lifeSpan?: number }][]) {
    if (set.usedLife !== undefined) wear.parts[part]!.usedLife = set.usedLife;
    if (set.lifeSpan !== undefined) wear.parts[part]!.lifeSpan = set.lifeSpan;
  }
  if (changes.cleanWater !== undefined) wear.cleanWater = changes.cleanWater;
  if (changes.recoveryWater !== undefined) wear.recoveryWater = changes.recoveryWater;
  const battery = changes.battery;
  if (battery?.soh !== undefined) wear.battery.soh = battery.soh;
  if (battery?.cycleTimes !== undefined) wear.battery.cycleTimes = battery.cycleTimes;
  if (battery?.temperatures !== undefined) wear.battery.temperatures = [...battery.temperatures];
}
