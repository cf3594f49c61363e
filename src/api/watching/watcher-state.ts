/**
 * The part of a robot's status that matters to a flow, and what changed
 * between two of them (pure functions): what the fleet watcher and the
 * confirmation poller compare. No Node-RED, no calls.
 */
import { readStatus, type MapPosition, type StatusReading } from "./status-reader";

/** What a watcher keeps of a robot and compares from poll to poll: a status's reading, of a robot with a serial number. */
export type WatchedState = StatusReading & { serialNumber: string };

/** The properties a change is reported for, in the order msg.changes lists them. */
export const WATCHED_PROPERTIES = [
  "online",
  "taskState",
  "taskName",
  "charging",
  "battery",
  "batteryLow",
  "emergencyStop",
  "localizationState",
  "map",
  "position",
] as const;
export type WatchedProperty = (typeof WATCHED_PROPERTIES)[number];

/** One change: the value before (absent on a robot's first report) and now. */
export interface Change {
  old?: unknown;
  new?: unknown;
}
export type Changes = Partial<Record<WatchedProperty, Change>>;

export interface BatteryThresholds {
  /** A change is reported each time the battery crosses a multiple of this (percent, 1-100). */
  step: number;
  /** At or below this the robot is "low" (percent, 0-100); crossing it is reported as batteryLow. */
  low: number;
}

export const DEFAULT_BATTERY_THRESHOLDS: BatteryThresholds = { step: 10, low: 20 };

/** A move smaller than this (pixels) or a turn smaller than this (degrees) is not a change: a robot at rest jitters. */
export const MOVE_PIXELS = 1;
export const TURN_DEGREES = 5;

/** The watched state of a status; "" as the serial number of a status that names no robot. */
export function watchedStateOf(status: Record<string, unknown>): WatchedState {
  const reading = readStatus(status);
  return { ...reading, serialNumber: reading.serialNumber ?? "" };
}

function moved(before: MapPosition | undefined, now: MapPosition | undefined): boolean {
  if (!before || !now) return before !== now;
  const turn = Math.abs(((now.angle - before.angle + 540) % 360) - 180);
  return Math.hypot(now.x - before.x, now.y - before.y) >= MOVE_PIXELS || turn >= TURN_DEGREES;
}

function batteryBand(battery: number | undefined, step: number): number | undefined {
  return battery === undefined ? undefined : Math.floor(battery / step);
}

function isLow(battery: number | undefined, low: number): boolean | undefined {
  return battery === undefined ? undefined : battery <= low;
}

/**
 * What changed from `previous` to `current` that a flow cares about. With no
 * previous state (a robot's first report) every known property is listed,
 * with no old value, so a flow that reacts to `changes.batteryLow.new` also
 * sees a robot that was already low when watching began. The battery counts
 * as changed only when it crosses a multiple of `step`; `batteryLow` when it
 * crosses `low`. With `moves`, the map and the position are compared too: a
 * move of MOVE_PIXELS or a turn of TURN_DEGREES counts.
 */
export function diffWatchedStates(
  previous: WatchedState | undefined,
  current: WatchedState,
  thresholds: BatteryThresholds = DEFAULT_BATTERY_THRESHOLDS,
  moves = false,
): Changes {
  const changes: Changes = {};
  const before: WatchedState = previous ?? { serialNumber: current.serialNumber };
  const compare = (property: WatchedProperty, old: unknown, now: unknown, differ = old !== now) => {
    if (previous === undefined) {
      if (now !== undefined) changes[property] = { new: now };
    } else if (differ) {
      changes[property] = old === undefined ? { new: now } : now === undefined ? { old } : { old, new: now };
    }
  };
  compare("online", before.online, current.online);
  compare("taskState", before.taskState, current.taskState);
  compare("taskName", before.taskName, current.taskName);
  compare("charging", before.charging, current.charging);
  compare(
    "battery",
    before.battery,
    current.battery,
    batteryBand(before.battery, thresholds.step) !== batteryBand(current.battery, thresholds.step),
  );
  compare("batteryLow", isLow(before.battery, thresholds.low), isLow(current.battery, thresholds.low));
  compare("emergencyStop", before.emergencyStop, current.emergencyStop);
  compare("localizationState", before.localizationState, current.localizationState);
  if (moves) {
    compare("map", before.mapId, current.mapId);
    compare("position", before.position, current.position, moved(before.position, current.position));
  }
  return changes;
}
