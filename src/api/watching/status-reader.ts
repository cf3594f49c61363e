/**
 * The one reader of a robot's status (B1, the S-line batch or the v1 batch:
 * docs/cloud-api.md). The watcher, the confirmation poller, the fleet map,
 * the node status texts, the MQTT bridge, robot-job and the editor's pickers
 * all read a status through it, so that they never disagree on what a status
 * says. Pure: no calls.
 */

import { idTextOf, numberOf, recordOf, textOf } from "../cloud/values";

/** A cell of the map's grid: a pixel of the map image, rows counted from the bottom edge (docs/cloud-api.md). */
export interface GridPoint {
  x: number;
  y: number;
}

export interface MapPosition extends GridPoint {
  angle: number;
}

/** A navigation point of the robot's map (S-line navigationPoints.naviPoints); `grid` where the status places it. */
export interface NavigationPoint {
  name: string;
  grid?: GridPoint;
}

/** A task the robot can run (the v1 status' executableTasks), with the map it runs on where the status names it. */
export interface ExecutableTask {
  name: string;
  mapId?: string;
  mapName?: string;
}

/** What a status says that the package acts on; what a status lacks stays undefined. */
export interface StatusReading {
  /** Its own field, or the v1 status' `name` (robots/<sn>). */
  serialNumber?: string;
  online?: boolean;
  taskState?: string;
  charging?: boolean;
  /** Battery charge in percent (B1 powerPercentage, v1 soc). */
  battery?: number;
  /** emergencyStop.enabled, the only form the cloud gives (docs/cloud-api.md). */
  emergencyStop?: boolean;
  localizationState?: string;
  /** Name of the task the robot runs (B1 currentTask, v1 executingTask). */
  taskName?: string;
  /** How far the running task is, 0-1 (v1 executingTask.progress). */
  taskProgress?: number;
  /** Seconds the running task still needs (v1 executingTask.timeRemaining). */
  timeRemaining?: number;
  /**
   * The v1 status' navStatus: NAVI_IDLE when no navigation runs; the cloud
   * publishes no other value (navigation.ts reads it).
   */
  navStatus?: string;
  /** The navigation points of the robot's map, where the status lists them (the S-line status does, the v1 status not). */
  navigationPoints?: NavigationPoint[];
  remoteControl?: boolean;
  /** The map the robot is on (localizationInfo.map.id). */
  mapId?: string;
  /** Its version (localizationInfo.map.version), which the map image wants: the S-line status gives it, the v1 status not. */
  mapVersion?: string;
  /** Where on it: pixels of the map image, rows from the bottom edge, angle in degrees (docs/cloud-api.md). */
  position?: MapPosition;
}

function flag(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

/**
 * Task states in which the robot's task is not over: running, paused, or the
 * cloud's OTHER (a state of a task it names no further). A robot in one is
 * busy for a job, a chosen segment is not done, and its task's name and
 * progress are followed.
 */
const TASK_UNDER_WAY_STATES: ReadonlySet<string> = new Set(["RUNNING", "PAUSED", "OTHER"]);

/** Whether a status's task state (any shape's `taskState`) says a task is under way. */
export function isTaskUnderWay(taskState: unknown): boolean {
  return typeof taskState === "string" && TASK_UNDER_WAY_STATES.has(taskState);
}

/** A status's serial number: its own field, or the v1 status' `name` (robots/<sn>). */
export function serialNumberOf(status: Record<string, unknown>): string | undefined {
  const name = textOf(status.name);
  return textOf(status.serialNumber) ?? (name?.startsWith("robots/") ? textOf(name.slice("robots/".length)) : undefined);
}

/** Everything the package reads of a status. */
export function readStatus(status: Record<string, unknown>): StatusReading {
  const battery = recordOf(status.battery);
  const localization = recordOf(status.localizationInfo);
  const task = recordOf(status.executingTask) ?? recordOf(status.currentTask);
  const reading: StatusReading = {
    serialNumber: serialNumberOf(status),
    online: flag(status.online),
    taskState: textOf(status.taskState),
    charging: flag(battery?.charging),
    battery: numberOf(battery?.powerPercentage ?? battery?.soc),
    emergencyStop: flag(recordOf(status.emergencyStop)?.enabled),
    localizationState: textOf(localization?.localizationState),
    taskName: textOf(task?.name),
    // Recorded statuses say it as currentTask.manualControlling; remoteControl.enabled is the older form.
    remoteControl: flag(recordOf(status.currentTask)?.manualControlling) ?? flag(recordOf(status.remoteControl)?.enabled),
  };
  const executing = recordOf(status.executingTask);
  const progress = numberOf(executing?.progress);
  if (progress !== undefined) reading.taskProgress = Math.min(1, Math.max(0, progress));
  const timeRemaining = numberOf(executing?.timeRemaining);
  if (timeRemaining !== undefined) reading.timeRemaining = Math.max(0, timeRemaining);
  const navStatus = textOf(status.navStatus);
  if (navStatus !== undefined) reading.navStatus = navStatus;
  const points = navigationPointsOf(status);
  if (points !== undefined) reading.navigationPoints = points;
  const mapId = textOf(recordOf(localization?.map)?.id);
  if (mapId !== undefined) reading.mapId = mapId;
  const mapVersion = idTextOf(recordOf(localization?.map)?.version);
  if (mapVersion !== undefined) reading.mapVersion = mapVersion;
  const position = recordOf(localization?.mapPosition);
  const [x, y, angle] = [numberOf(position?.x), numberOf(position?.y), numberOf(position?.angle)];
  if (x !== undefined && y !== undefined) reading.position = { x, y, angle: angle ?? 0 };
  return reading;
}

/** navigationPoints.naviPoints as named points, each with its grid cell where both coordinates are given; undefined when the status has no list. */
function navigationPointsOf(status: Record<string, unknown>): NavigationPoint[] | undefined {
  const listed = recordOf(status.navigationPoints)?.naviPoints;
  if (!Array.isArray(listed)) return undefined;
  return listed.flatMap((entry: unknown) => {
    const point = recordOf(entry);
    const name = textOf(point?.naviPointName);
    if (name === undefined) return [];
    const [x, y] = [numberOf(point?.navPointGridX), numberOf(point?.navPointGridY)];
    return [x !== undefined && y !== undefined ? { name, grid: { x, y } } : { name }];
  });
}

/** The name of the map the robot is on: localizationInfo.map.name, else the v1 status' position.mapName. */
export function mapNameOf(status: Record<string, unknown>): string | undefined {
  return textOf(recordOf(recordOf(status.localizationInfo)?.map)?.name) ?? textOf(recordOf(status.position)?.mapName);
}

/** The cleaning modes a status offers (cleanModes, as names or {name}), named as the robot names them ("__洗地"). */
export function cleaningModesOf(status: Record<string, unknown>): string[] {
  const modes = Array.isArray(status.cleanModes) ? (status.cleanModes as unknown[]) : [];
  return modes.flatMap((mode) => {
    const name = textOf(recordOf(mode)?.name) ?? textOf(mode);
    return name === undefined ? [] : [name];
  });
}

/**
 * The tasks a status offers (executableTasks: the v1 status lists them, the
 * S-line status not), each with its map's id and name where given; undefined
 * when the status has no list, so "lists none" and "does not say" stay apart.
 */
export function executableTasksOf(status: Record<string, unknown>): ExecutableTask[] | undefined {
  if (!Array.isArray(status.executableTasks)) return undefined;
  return (status.executableTasks as unknown[]).flatMap((entry) => {
    const task = recordOf(entry);
    const name = textOf(task?.name);
    if (name === undefined) return [];
    const map = recordOf(task?.map);
    const [mapId, mapName] = [idTextOf(map?.id), idTextOf(map?.name)];
    return [{ name, ...(mapId !== undefined ? { mapId } : {}), ...(mapName !== undefined ? { mapName } : {}) }];
  });
}
