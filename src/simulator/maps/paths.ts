/**
 * The ways a simulated robot takes over a floor plan: from one point to
 * another through the doors (every space is a rectangle, so a straight line
 * within one never meets a wall), and the back-and-forth lanes of cleaning
 * over the rooms of a task's areas.
 */
import { centre, clampInto, contains, distance, grow, intersection, route, type Point, type Rect, type Route } from "./geometry";
import type { SimMap } from "./maps";

/** How far a robot keeps from a wall (its radius and a little): 0.5 m. */
export const CLEARANCE = 10;
/** The distance between two cleaning lanes (about a scrubber's width): 0.6 m. */
export const LANE = 12;

/** A way from one space into another: where to be on this side, then on the other. */
interface Passage {
  to: number;
  via: Point[];
}

interface Plan {
  spaces: Rect[];
  passages: Passage[][];
}

const plans = new WeakMap<SimMap, Plan>();

/** The map's spaces (its areas' rooms first, in partition order, then the others) and how they connect. */
function planOf(map: SimMap): Plan {
  const known = plans.get(map);
  if (known) return known;
  const spaces = [...map.partitions.map((partition) => partition.rect), ...map.otherSpaces];
  const passages: Passage[][] = spaces.map(() => []);
  spaces.forEach((from, i) => {
    spaces.forEach((to, j) => {
      if (i === j) return;
      // Overlapping spaces (an L-shaped hallway) join where they overlap.
      const overlap = intersection(from, to);
      if (overlap) {
        passages[i]!.push({ to: j, via: [centre(overlap)] });
        return;
      }
      for (const door of map.doors) {
        if (!intersection(grow(door, 1), from) || !intersection(grow(door, 1), to)) continue;
        // Straight through the door: just inside this space, then just inside the other.
        const middle = centre(door);
        passages[i]!.push({ to: j, via: [clampInto(grow(from, -CLEARANCE), middle), clampInto(grow(to, -CLEARANCE), middle)] });
        break;
      }
    });
  });
  const plan = { spaces, passages };
  plans.set(map, plan);
  return plan;
}

/** The space a point is in; one on the floor's edge or off it counts as in the nearest space. */
function spaceAt(plan: Plan, point: Point): number {
  const inside = plan.spaces.findIndex((space) => contains(space, point));
  if (inside >= 0) return inside;
  let nearest = 0;
  plan.spaces.forEach((space, index) => {
    if (distance(clampInto(space, point), point) < distance(clampInto(plan.spaces[nearest]!, point), point)) nearest = index;
  });
  return nearest;
}

/** Whether a point is on the map's floor (in a room, another space or a door). */
export function onFloor(map: SimMap, point: Point): boolean {
  return [...planOf(map).spaces, ...map.doors].some((space) => contains(space, point));
}

/**
 * The corners of a way from `from` to `to` on the map, both included: through
 * the fewest doors, straight within each space. A point off the floor first
 * goes straight to the nearest space.
 */
export function wayBetween(map: SimMap, from: Point, to: Point): Point[] {
  const plan = planOf(map);
  const start = spaceAt(plan, from);
  const goal = spaceAt(plan, to);
  // Breadth first over the spaces: the fewest passages.
  const cameFrom = new Map<number, { space: number; passage: Passage }>();
  const queue = [start];
  const seen = new Set([start]);
  while (queue.length > 0 && !seen.has(goal)) {
    const space = queue.shift()!;
    for (const passage of plan.passages[space]!) {
      if (seen.has(passage.to)) continue;
      seen.add(passage.to);
      cameFrom.set(passage.to, { space, passage });
      queue.push(passage.to);
    }
  }
  const via: Point[] = [];
  for (let space = goal; cameFrom.has(space); space = cameFrom.get(space)!.space) via.unshift(...cameFrom.get(space)!.passage.via);
  const points = [from, ...(contains(plan.spaces[start]!, from) ? [] : [clampInto(grow(plan.spaces[start]!, -CLEARANCE), from)]), ...via];
  if (!contains(plan.spaces[goal]!, to)) points.push(clampInto(grow(plan.spaces[goal]!, -CLEARANCE), to));
  points.push(to);
  return points;
}

/** Back-and-forth lanes over a room, along its longer side, CLEARANCE from its walls. */
export function lanesOver(room: Rect): Point[] {
  const inner = grow(room, -CLEARANCE);
  const along = inner.width >= inner.height ? "x" : "y";
  const [length, across] = along === "x" ? [inner.width, inner.height] : [inner.height, inner.width];
  const lanes = Math.max(1, Math.floor(across / LANE) + 1);
  const points: Point[] = [];
  for (let lane = 0; lane < lanes; lane++) {
    const offset = lanes === 1 ? across / 2 : Math.min(across, lane * LANE);
    const ends = lane % 2 === 0 ? [0, length] : [length, 0];
    for (const end of ends)
      points.push(along === "x" ? { x: inner.x + end, y: inner.y + offset } : { x: inner.x + offset, y: inner.y + end });
  }
  return points;
}

/**
 * A cleaning task's route from where the robot is: to the first room, lanes
 * over every room in turn (through the doors between them), and then again
 * from the first room, for as long as the task runs.
 */
export function cleaningRoute(map: SimMap, from: Point, rooms: readonly Rect[]): Route {
  const cleaned = rooms.length > 0 ? rooms : map.partitions.map((partition) => partition.rect);
  if (cleaned.length === 0) return route([from]);
  const lanes = cleaned.map(lanesOver);
  const first = lanes[0]![0]!;
  const approach = wayBetween(map, from, first);
  const round: Point[] = [];
  lanes.forEach((room, index) => {
    if (index > 0) round.push(...wayBetween(map, round.at(-1)!, room[0]!).slice(1, -1));
    round.push(...room);
  });
  // Back to the first lane's start, so the round repeats.
  round.push(...wayBetween(map, round.at(-1)!, first).slice(1));
  const approachLength = route(approach).length;
  return route([...approach, ...round.slice(1)], approachLength);
}
