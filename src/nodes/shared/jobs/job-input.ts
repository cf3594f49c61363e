/**
 * What a message asks of robot-job: a job (its work from msg.payload or the
 * node's settings, its options from msg.payload or the node's defaults), or
 * the cancelling of one. Bad input is an INVALID_INPUT error naming the field.
 */
import { randomUUID } from "node:crypto";
import { invalidInput } from "../../../api/errors";
import type { JobWork, NearSpec } from "../../../api/jobs/dispatch";
import type { JobSettings } from "../../../api/jobs/job-book";
import { isEmptySetting, numberInputProblem, readNumberSetting, type NumberSetting } from "../../../api/settings/input-rules";
import { isPlainObject } from "../plain-data";
import { confirmTimeoutMs } from "../confirm";
import { JOB_MIN_BATTERY, JOB_OFFLINE_LIMIT, JOB_TRIES, JOB_WAIT_UP_TO, WORK_KINDS, type WorkKind } from "../../robot-job/table";
import { inputProblem } from "../../../api/settings/input-problems";

export interface RobotJobSettings {
  minBattery?: string | number;
  waitUpTo?: string | number;
  tries?: string | number;
  /** Minutes. */
  offlineLimit?: string | number;
  confirmTimeout?: string | number;
  /** "" when the message gives the work. */
  work?: string;
  map?: string;
  /** The task, area or navigation point the node's work names. */
  target?: string;
  mode?: string;
}

export type JobRequest = { cancel: string } | { jobId: string; work: JobWork; settings: JobSettings };

/** The node's defaults, read once at deploy (a bad one is every message's error). */
export interface NodeDefaults {
  minBattery: number;
  waitUpToMs: number;
  tries: number;
  confirmTimeoutMs: number;
  offlineLimitMs: number;
}

export function readNodeDefaults(config: RobotJobSettings): NodeDefaults {
  return {
    minBattery: readNumberSetting(config.minBattery, "minBattery", JOB_MIN_BATTERY),
    waitUpToMs: readNumberSetting(config.waitUpTo, "waitUpTo", JOB_WAIT_UP_TO) * 1000,
    tries: readNumberSetting(config.tries, "tries", JOB_TRIES),
    confirmTimeoutMs: confirmTimeoutMs(config.confirmTimeout),
    offlineLimitMs: readNumberSetting(config.offlineLimit, "offlineLimit", JOB_OFFLINE_LIMIT) * 60_000,
  };
}

function nonEmptyText(value: unknown, field: string): string {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string" || value.trim() === "") throw invalidInput(field, `must be a non-empty text (got ${JSON.stringify(value) ?? String(value)})`);
  return value.trim();
}

function numberIn(value: unknown, field: string, setting: NumberSetting): number {
  const problem = typeof value === "number" ? numberInputProblem(value, setting) : inputProblem("number");
  if (problem) throw invalidInput(field, problem);
  return value as number;
}

function nearOf(value: unknown, field: string): NearSpec {
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  if (isPlainObject(value) && typeof value.x === "number" && typeof value.y === "number" && Number.isFinite(value.x) && Number.isFinite(value.y)) return { x: value.x, y: value.y };
  throw invalidInput(field, 'must be a navigation point name or {"x", "y"} in map pixels');
}

function robotsOf(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidInput(field, "must be a non-empty list of serial numbers");
  return value.map((entry, index) => nonEmptyText(entry, `${field}.${index}`));
}

/**
 * The request a message makes. `known(jobId)` says whether the account has
 * that job; `cancellable(jobId)` whether a robot-job node of the account in
 * this process follows it (so can stop it).
 */
export function readJobRequest(
  payload: unknown,
  config: RobotJobSettings,
  defaults: NodeDefaults,
  known: (jobId: string) => boolean,
  cancellable: (jobId: string) => boolean,
  /** Where the request is, as errors name its fields: robot-plan's items are `plan[2]`. */
  field = "payload",
): JobRequest {
  const given = isPlainObject(payload) ? payload : {};
  if (given.cancel !== undefined) {
    const jobId = nonEmptyText(given.cancel, `${field}.cancel`);
    if (!cancellable(jobId)) throw invalidInput(`${field}.cancel`, `no job "${jobId}" of this account is under way here`);
    return { cancel: jobId };
  }
  const kinds = WORK_KINDS.filter((kind) => given[kind] !== undefined);
  if (kinds.length > 1) throw invalidInput(`${field}.${kinds[1]}`, `give one of task, area or goto, not ${kinds.join(" and ")}`);
  let kind: WorkKind;
  let target: string;
  if (kinds.length === 1) {
    kind = kinds[0]!;
    target = nonEmptyText(given[kind], `${field}.${kind}`);
  } else {
    if (!(WORK_KINDS as readonly string[]).includes(config.work ?? "")) throw invalidInput(`${field}.task`, "no work: give task, area or goto in msg.payload, or set the work in the node");
    kind = config.work as WorkKind;
    target = nonEmptyText(config.target, "target");
  }
  const map = given.map !== undefined ? nonEmptyText(given.map, `${field}.map`) : isEmptySetting(config.map) ? undefined : nonEmptyText(config.map, "map");
  if (map === undefined) throw invalidInput(`${field}.map`, "no map: give it in msg.payload.map or set it in the node");
  const work: JobWork = kind === "task" ? { kind, task: target, map } : kind === "area" ? { kind, area: target, map } : { kind, point: target, map };

  const settings: JobSettings = {
    minBattery: given.minBattery !== undefined ? numberIn(given.minBattery, `${field}.minBattery`, JOB_MIN_BATTERY) : defaults.minBattery,
    waitUpToMs: given.waitUpTo !== undefined ? numberIn(given.waitUpTo, `${field}.waitUpTo`, JOB_WAIT_UP_TO) * 1000 : defaults.waitUpToMs,
    tries: defaults.tries,
    confirmTimeoutMs: defaults.confirmTimeoutMs,
    offlineLimitMs: defaults.offlineLimitMs,
  };
  if (given.near !== undefined) settings.near = nearOf(given.near, `${field}.near`);
  if (given.robots !== undefined) settings.robots = robotsOf(given.robots, `${field}.robots`);
  if (given.mode !== undefined) settings.mode = nonEmptyText(given.mode, `${field}.mode`);
  else if (!isEmptySetting(config.mode)) settings.mode = String(config.mode).trim();
  if (given.name !== undefined) settings.name = nonEmptyText(given.name, `${field}.name`);
  const jobId = given.jobId !== undefined ? nonEmptyText(given.jobId, `${field}.jobId`) : randomUUID();
  if (known(jobId)) throw invalidInput(`${field}.jobId`, `a job "${jobId}" is already under way`);
  return { jobId, work, settings };
}
