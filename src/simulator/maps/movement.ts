/**
 * How a simulated robot moves over its map between answers: along its
 * cleaning route while its task runs (at the timing's speed), from where it
 * was to a navigation point while navigating (arriving exactly on the point,
 * in the navigation's time), and to the charging point while it charges.
 * Positions are pixels of the map image, bottom-up; angles degrees
 * (src/simulator/maps/geometry.ts).
 */
import { poseAt, route, type Pose, type Route } from "./geometry";
import type { NavigationPoint, SimMap } from "./maps";
import { cleaningRoute, wayBetween } from "./paths";

/** A navigation's part under way: its way there and its time (a resumed navigation starts a new leg). */
export interface NavigationLeg {
  /** When it arrives; undefined while paused. */
  arriveAt: number | undefined;
  /** How long it still needs (kept while paused). */
  remainingMs: number;
  map: SimMap;
  point: NavigationPoint;
  /** From where the robot was when this leg started to the point. */
  way: Route;
  /** The leg's whole time: the robot covers `way` evenly in it. */
  legMs: number;
}

/** A robot's state between answers: what moves with time, kept exactly (answers show whole percents and pixels). */
export interface Motion {
  /** Up to when time has been applied. */
  lastMs: number;
  battery: number;
  /** Running time of the current task. */
  taskRunMs: number;
  /** The running time at which the current task's battery fails (the task fault), if it does. */
  batteryFailsAtMs?: number;
  /** A navigation under way: when it arrives (or, paused, how long it still needs) and where to. */
  navigation: NavigationLeg | undefined;
  /** The running task's route over its rooms and how far along it the robot has come (pixels). */
  cleaning: { route: Route; travelled: number } | undefined;
}

/** A navigation leg from `from` to the point, taking `needsMs` from `now`. */
export function navigationLeg(map: SimMap, point: NavigationPoint, from: Pose, needsMs: number, now: number): NavigationLeg {
  return { arriveAt: now + needsMs, remainingMs: needsMs, map, point, way: route(wayBetween(map, from, point)), legMs: needsMs };
}

/** Where a navigating robot is at `at` (before it arrives): the share of its way that the share of the leg's time gives. */
export function poseOnLeg(leg: NavigationLeg & { arriveAt: number }, at: number, angle: number): Pose {
  const share = leg.legMs > 0 ? Math.min(1, Math.max(0, 1 - (leg.arriveAt - at) / leg.legMs)) : 1;
  return poseAt(leg.way, share * leg.way.length, angle);
}

/** The cleaning of a task's areas (by id, as tasks name them; none: every area of the map) from where the robot is. */
export function cleaningFrom(map: SimMap, from: Pose, areaIds: readonly string[]): Motion["cleaning"] {
  const rooms = map.partitions.filter((partition) => areaIds.includes(String(partition.id))).map((partition) => partition.rect);
  return { route: cleaningRoute(map, from, rooms), travelled: 0 };
}

/** The map's charging point, where a charging robot stands. */
export function chargingPoint(map: SimMap): NavigationPoint | undefined {
  return map.navigationPoints.find((point) => point.name === "charging");
}

/** Whether (x, height - y) is a pixel of the map's image: a position a drawer can place. */
export function onImage(map: SimMap, point: { x: number; y: number }): boolean {
  return point.x >= 0 && point.x < map.width && point.y > 0 && point.y <= map.height;
}
