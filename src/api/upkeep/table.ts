/**
 * The upkeep table's shape: what robot-upkeep outputs, the console's upkeep
 * view and the work-order page show and robot-mqtt publishes. Built from the
 * facts (facts.ts), the history per robot and part and the forecast.
 */

import type { BatteryHealth, ReportedPart, TankLevels, WearPart } from "./facts";

/** A part is due at this share left unless told otherwise (robot-upkeep's default setting). */
export const DEFAULT_THRESHOLD = 0.1;

/** Where a forecast's hours a day come from. */
export type ForecastBasis =
  /** robot-plan's upcoming occurrences for the robot. */
  | "plan"
  /** The robot's own cleaning hours a day over its recent history (no plan names it). */
  | "recent"
  /** Too little history to learn a wear rate from: no due day is given (unless the part is at or under its threshold: today). */
  | "too little history";

export interface PartForecast {
  basis: ForecastBasis;
  /**
   * The calendar day (YYYY-MM-DD, in the forecast's zone) the part reaches its threshold: today when it is at or
   * under it; absent when it cannot be said (too little history, no wear, 0 hours a day, or over two years away).
   */
  dueDay?: string;
  /** That day's start as an ISO time (Home Assistant's timestamp sensor wants a time). */
  dueAt?: string;
  /** Cleaning hours a day the forecast assumes. */
  hoursPerDay?: number;
  /** Days of history the wear rate was learned from (first to last reading used, to 0.1): how sure the forecast is. */
  historyDays: number;
}

export interface UpkeepPart {
  part: WearPart | ReportedPart;
  /** Share left, 0-1. */
  remaining: number;
  /** The cloud's counters (status parts only; a report gives a share only). */
  usedLife?: number;
  lifeSpan?: number;
  /** Share of the part's life worn per cleaning hour, learned from the history. */
  wearPerCleaningHour?: number;
  /** Share worn per calendar day at the forecast's hours a day. */
  wearPerDay?: number;
  /** Share left at which the part is due (the node's setting, 0.1 by default). */
  threshold: number;
  forecast: PartForecast;
  /** When a replacement was last recorded (ISO time). */
  replacedAt?: string;
}

export interface UpkeepRobot {
  serialNumber: string;
  /** The robot's name where the robot directory gives one. */
  name?: string;
  /** When the facts were read (ISO time). */
  readAt: string;
  /**
   * The IANA zone of the robot's days (its due days, and the "today" they are
   * judged against): the zone of the plan that gives it hours, else the
   * runtime's. Absent on a row the table did not build (the console's row of a
   * robot the history does not know yet): the runtime's.
   */
  zone?: string;
  parts: UpkeepPart[];
  tanks: TankLevels;
  battery: BatteryHealth;
}
