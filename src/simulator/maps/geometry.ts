/**
 * Plane geometry of the simulated maps, in pixels of the map image with rows
 * counted from the image's bottom edge (the cloud's convention: a robot at
 * (x, y) is drawn at (x, height - y)). Angles are degrees in (-180, 180],
 * counter-clockwise from +x in that bottom-up frame, so 90 points to the top
 * of the image.
 */

export interface Point {
  x: number;
  y: number;
}

/** A point and a heading: where a robot stands and which way it faces. */
export interface Pose extends Point {
  angle: number;
}

/** An axis-parallel rectangle: (x, y) is its lower-left corner. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An angle in degrees brought into (-180, 180]. */
export function normalizeAngle(degrees: number): number {
  const turned = degrees % 360;
  if (turned > 180) return turned - 360;
  if (turned <= -180) return turned + 360;
  return turned;
}

/** The heading from `from` to `to`, in degrees; undefined when they are the same point. */
export function heading(from: Point, to: Point): number | undefined {
  if (from.x === to.x && from.y === to.y) return undefined;
  return normalizeAngle((Math.atan2(to.y - from.y, to.x - from.x) * 180) / Math.PI);
}

export function distance(a: Point, b: Point): number {
  return Math.hypot(b.x - a.x, b.y - a.y);
}

export function contains(rect: Rect, point: Point): boolean {
  return point.x >= rect.x && point.x <= rect.x + rect.width && point.y >= rect.y && point.y <= rect.y + rect.height;
}

/** The rectangle grown by `by` on every side (shrunk when negative, never past its centre). */
export function grow(rect: Rect, by: number): Rect {
  const dx = Math.max(by, -rect.width / 2);
  const dy = Math.max(by, -rect.height / 2);
  return { x: rect.x - dx, y: rect.y - dy, width: rect.width + 2 * dx, height: rect.height + 2 * dy };
}

/** Where two rectangles overlap with some area, or undefined. */
export function intersection(a: Rect, b: Rect): Rect | undefined {
  const left = Math.max(a.x, b.x);
  const bottom = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const top = Math.min(a.y + a.height, b.y + b.height);
  return right > left && top > bottom ? { x: left, y: bottom, width: right - left, height: top - bottom } : undefined;
}

export function centre(rect: Rect): Point {
  return { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
}

/** The point of the rectangle nearest to `point`. */
export function clampInto(rect: Rect, point: Point): Point {
  return {
    x: Math.min(rect.x + rect.width, Math.max(rect.x, point.x)),
    y: Math.min(rect.y + rect.height, Math.max(rect.y, point.y)),
  };
}

/**
 * A path of straight segments with its length so far at each point; a robot
 * is placed on it by the distance it has travelled. A route with `loopFrom`
 * goes on for ever: past its end it starts over at that distance (a cleaning
 * pattern repeated); without, it stops at its last point.
 */
export interface Route {
  points: Point[];
  /** `at[i]`: the length from the first point to point i. */
  at: number[];
  length: number;
  loopFrom?: number;
}

export function route(points: readonly Point[], loopFrom?: number): Route {
  const kept: Point[] = [];
  for (const point of points) {
    const last = kept.at(-1);
    if (!last || last.x !== point.x || last.y !== point.y) kept.push({ x: point.x, y: point.y });
  }
  const at = [0];
  for (let index = 1; index < kept.length; index++) at.push(at[index - 1]! + distance(kept[index - 1]!, kept[index]!));
  const length = at.at(-1) ?? 0;
  return loopFrom === undefined || loopFrom >= length ? { points: kept, at, length } : { points: kept, at, length, loopFrom };
}

/**
 * Where a robot is after travelling `travelled` along the route, facing along
 * the segment it is on (at a corner, the one it turns into); `angle` is kept
 * when the route has no length.
 */
export function poseAt(path: Route, travelled: number, angle: number): Pose {
  const { points, at, length, loopFrom } = path;
  if (points.length === 0) throw new RangeError("a route of no points");
  let along = Math.max(0, travelled);
  if (along > length && loopFrom !== undefined) along = loopFrom + ((along - loopFrom) % (length - loopFrom));
  if (points.length === 1 || along >= length) {
    const last = points.at(-1)!;
    const before = points.at(-2);
    return { x: last.x, y: last.y, angle: before ? (heading(before, last) ?? angle) : angle };
  }
  // The segment [lo, lo + 1] holds `along` (binary search: routes over a whole floor have many corners).
  let lo = 0;
  let hi = at.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (at[mid]! <= along) lo = mid;
    else hi = mid;
  }
  const from = points[lo]!;
  const to = points[lo + 1]!;
  const share = (along - at[lo]!) / (at[lo + 1]! - at[lo]!);
  return { x: from.x + (to.x - from.x) * share, y: from.y + (to.y - from.y) * share, angle: heading(from, to) ?? angle };
}
