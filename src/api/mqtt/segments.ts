/**
 * The map's areas as Home Assistant's vacuum segments (pure): the vacuum's
 * JSON state offers `segments` (id -> name, Home Assistant 2026.3 and later)
 * and Home Assistant's `vacuum.clean_area` publishes the chosen ids, as a
 * JSON list of strings, on the vacuum's `clean_segments_command_topic`.
 *
 * A segment's id names its map as well as its area (`<map id>:<area id>`):
 * area ids are the map's own, so an id chosen while the robot stood on one
 * floor can never clean an area of another floor it stands on later.
 */
import type { Problem } from "./commands";
import type { JobOutcome } from "../jobs/job-result";

/** Segment id -> the area's name, as the vacuum's state offers them. */
export type Segments = Record<string, string>;

/** At most this many segments in one clean_segments message: more is no choice a person made. */
export const MAX_SEGMENTS_CHOSEN = 50;

export interface SegmentArea {
  mapId: string;
  areaId: string;
}

export function segmentIdOf(mapId: string, areaId: number | string): string {
  return `${mapId}:${String(areaId)}`;
}

/** The segments of one map, from its areas (C1 partitions). */
export function segmentsOf(mapId: string, areas: readonly { id: number | string; name: string }[]): Segments {
  const segments: Segments = {};
  for (const area of areas) segments[segmentIdOf(mapId, area.id)] = area.name;
  return segments;
}

/** The map and area a segment id names; undefined for an id the bridge never offered the shape of. */
export function areaOfSegment(segmentId: string): SegmentArea | undefined {
  const at = segmentId.lastIndexOf(":");
  if (at <= 0 || at === segmentId.length - 1) return undefined;
  return { mapId: segmentId.slice(0, at), areaId: segmentId.slice(at + 1) };
}

/** A clean_segments payload: a JSON list of segment ids (strings), none repeated, at least one. */
export function readSegmentIds(text: string): string[] | Problem {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problem: "json", reason: `the payload is not JSON: ${(error as Error).message}` };
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((id) => typeof id === "string" && id !== ""))
    return {
      problem: "segments",
      reason: 'clean_segments takes a JSON list of segment ids, e.g. ["<map id>:3"], as the state\'s segments name them',
    };
  if (parsed.length > MAX_SEGMENTS_CHOSEN)
    return { problem: "segments", reason: `clean_segments takes at most ${MAX_SEGMENTS_CHOSEN} segments (got ${parsed.length})` };
  return [...new Set(parsed as string[])];
}

/**
 * The areas to clean, in the order chosen, when every id is a segment the
 * robot's map offers now; else a problem naming the first that is not.
 */
export function chosenAreas(
  ids: readonly string[],
  robotMapId: string | undefined,
  offered: Segments | undefined,
): SegmentArea[] | Problem {
  const areas: SegmentArea[] = [];
  for (const id of ids) {
    const area = areaOfSegment(id);
    const quoted = JSON.stringify(id.slice(0, 100));
    if (area && area.mapId !== robotMapId)
      return {
        problem: "segments",
        reason: `segment ${quoted} is on map ${area.mapId}; the robot is on ${robotMapId ?? "no known map"} now`,
      };
    if (!area || offered?.[id] === undefined) {
      const listed = Object.keys(offered ?? {}).join(", ");
      return {
        problem: "segments",
        reason: `segment ${quoted} is not one the robot offers (${listed === "" ? "its map's areas are not read yet" : `it offers ${listed}`})`,
      };
    }
    areas.push(area);
  }
  return areas;
}

export type ChosenArea = SegmentArea & { name: string };

/** The job that cleans one chosen area (jobs.ts): on its map, named as the area, with the fan speed chosen with set_fan_speed when there is one. */
export function areaJobOf(area: ChosenArea, chosenMode: string | undefined): Record<string, unknown> {
  return { area: area.areaId, map: area.mapId, name: area.name, ...(chosenMode === undefined ? {} : { mode: chosenMode }) };
}

/** Why an area's task ended other than done, in words, by its report's outcome (docs/cloud-api.md, taskEndStatus); nothing for a task done or with no report. */
const WHY_ENDED: Record<JobOutcome, string | undefined> = {
  completed: undefined,
  unknown: undefined,
  stoppedByHand: "stopped by hand",
  error: "the task ended with an error",
  failedToStart: "the task failed to start",
  cancelled: "cancelled",
};

/**
 * The result of a run of chosen areas once it ends: at its last area, or at
 * one that left the robot with a problem (the rest not started). It says why
 * when the area did not end done: its report's outcome, the robot's problems.
 */
export function areaEndResult(
  name: string,
  outcome: JobOutcome,
  problems: readonly string[],
  notStarted: number,
): { ok: boolean; reason: string } {
  const why = [WHY_ENDED[outcome], ...problems].filter((text): text is string => text !== undefined);
  const rest = notStarted > 0 ? `; ${notStarted} not started` : "";
  return { ok: why.length === 0, reason: `${name} ended${why.length > 0 ? `: ${why.join(", ")}` : ""}${rest}` };
}
