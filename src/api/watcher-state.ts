/**
 * The part of a robot's status that matters to a flow, and what changed
 * between two of them (pure functions): what the fleet watcher and the
 * confirmation poller compare. No Node-RED, no calls.
 */

/** What a watcher compares of a status (B1, the S-line batch or the v1 batch: the fields they share). */
export interface RobotState {
  serialNumber: string;
  displayName?: string;
  online?: boolean;
  taskState?: string;
  charging?: boolean;
  /** Battery charge in percent. */
  battery?: number;
  emergencyStop?: boolean;
  localizationState?: string;
  /** Name of the task the robot runs (B1 currentTask, v1 executingTask). */
  taskName?: string;
  /** The navigation the status reports, where it reports one (the simulator's B1 does). */
  navigation?: { state?: string; position?: string };
  remoteControl?: boolean;
  /** The map the robot is on (localizationInfo.map.id). */
  mapId?: string;
  /** Where on it: pixels of the map image, rows from the bottom edge, angle in degrees (docs/cloud-api.md). */
  position?: MapPosition;
}

export interface MapPosition {
  x: number;
  y: number;
  angle: number;
}

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

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function flag(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

/** A number, or a number the cloud sent as a string (int64 values come as strings). */
function numeric(value: unknown): number | undefined {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof number === "number" && Number.isFinite(number) ? number : undefined;
}

/** The watched part of a status, from any of the cloud's status shapes; what a status lacks stays undefined. */
export function robotStateOf(status: Record<string, unknown>): RobotState {
  const battery = record(status.battery);
  const localization = record(status.localizationInfo);
  const task = record(status.executingTask) ?? record(status.currentTask);
  const navigation = record(status.navigation);
  const name = text(status.name);
  const state: RobotState = {
    serialNumber: text(status.serialNumber) ?? (name?.startsWith("robots/") ? name.slice("robots/".length) : ""),
    displayName: text(status.displayName),
    online: flag(status.online),
    taskState: text(status.taskState),
    charging: flag(battery?.charging),
    battery: numeric(battery?.powerPercentage ?? battery?.soc),
    emergencyStop: flag(record(status.emergencyStop)?.enabled),
    localizationState: text(localization?.localizationState),
    taskName: text(task?.name),
    remoteControl: flag(record(status.remoteControl)?.enabled),
  };
  if (navigation) state.navigation = { state: text(navigation.state), position: text(navigation.position) };
  const mapId = text(record(localization?.map)?.id);
  if (mapId !== undefined) state.mapId = mapId;
  const position = record(localization?.mapPosition);
  const [x, y, angle] = [numeric(position?.x), numeric(position?.y), numeric(position?.angle)];
  if (x !== undefined && y !== undefined) state.position = { x, y, angle: angle ?? 0 };
  return state;
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
export function diffRobotStates(previous: RobotState | undefined, current: RobotState, thresholds: BatteryThresholds = DEFAULT_BATTERY_THRESHOLDS, moves = false): Changes {
  const changes: Changes = {};
  const before: RobotState = previous ?? { serialNumber: current.serialNumber };
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
  compare("battery", before.battery, current.battery, batteryBand(before.battery, thresholds.step) !== batteryBand(current.battery, thresholds.step));
  compare("batteryLow", isLow(before.battery, thresholds.low), isLow(current.battery, thresholds.low));
  compare("emergencyStop", before.emergencyStop, current.emergencyStop);
  compare("localizationState", before.localizationState, current.localizationState);
  if (moves) {
    compare("map", before.mapId, current.mapId);
    compare("position", before.position, current.position, moved(before.position, current.position));
  }
  return changes;
}
