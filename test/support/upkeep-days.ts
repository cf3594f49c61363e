/**
 * Days of a robot's work as the upkeep history hears of them: its v1 status
 * (the recorded shape with a wear part in its device block) read before and
 * after each day's task, and the day's task report. The part's counter
 * runs an hour per cleaning hour, as the cloud's counters do.
 */
import { readReport } from "../../src/api/reports/reading";
import { upkeepFactsOf, type WearPart } from "../../src/api/upkeep/facts";
import type { UpkeepHistory } from "../../src/api/upkeep/history";
import { recordedV1Status } from "./recorded-statuses";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** A recorded v1 status of `serialNumber` whose device block gives `part` these counters. */
export function wearStatus(serialNumber: string, part: WearPart, usedLife: number, lifeSpan: number): Record<string, unknown> {
  return { ...recordedV1Status({ serialNumber }), device: { [part]: { lifeSpan, usedLife, ifPutDown: true } } };
}

export interface WorkDays {
  serialNumber: string;
  part?: WearPart;
  lifeSpan: number;
  /** The counter before the first day. */
  usedLife: number;
  /** Midnight (UTC) of the first day. */
  from: number;
  days: number;
  hoursPerDay: number;
}

/**
 * Each day: a status at 07:00 UTC, a task from 08:00 for `hoursPerDay` hours
 * (its report), a status at 20:00; days of 0 hours have statuses and no
 * report. Returns the counter after the last day.
 */
export function workDays(history: UpkeepHistory, work: WorkDays): number {
  const part = work.part ?? "filter";
  let used = work.usedLife;
  const read = (at: number) =>
    history.observe(work.serialNumber, upkeepFactsOf(wearStatus(work.serialNumber, part, used, work.lifeSpan)), at);
  for (let day = 0; day < work.days; day++) {
    const midnight = work.from + day * DAY_MS;
    read(midnight + 7 * HOUR_MS);
    if (work.hoursPerDay > 0) {
      const start = midnight + 8 * HOUR_MS;
      const seconds = work.hoursPerDay * 3600;
      const report = {
        id: `${work.serialNumber}-${midnight}`,
        startTime: new Date(start).toISOString(),
        endTime: new Date(start + seconds * 1000).toISOString(),
        durationSeconds: seconds,
      };
      history.observeReport(readReport(report, work.serialNumber)!);
      used += work.hoursPerDay;
    }
    read(midnight + 20 * HOUR_MS);
  }
  return used;
}
