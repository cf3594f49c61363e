/**
 * Where things go on a floor plan so that nothing hides anything else: robots
 * closer than a marker's size are set around their common spot (each keeps
 * its true spot for a leader line), and labels are placed where they
 * overlap no other label and cover no robot, a robot's name before a
 * navigation point's, and a label with no free place is left out. Pure geometry
 * in the map image's pixels (rows from the top); fleet-map.ts draws it.
 */

export interface Point {
  x: number;
  y: number;
}

/** A rectangle, top-left corner and size. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** How many rings around its spot a crowded robot may be moved out to before it is drawn where it is. */
const MAX_RINGS = 40;

/**
 * Every item at its drawn spot: where it is when no item drawn before stands
 * within `spacing`; else the first free place on rings around its spot,
 * `spacing` apart (ring k has about 6k places, starting above), so a crowd at
 * one charger becomes a cluster around it. The caller's order decides who
 * keeps the true spot (sort it to keep pictures stable).
 */
export function spreadMarkers<T extends Point>(items: readonly T[], spacing: number): Array<T & { drawnAt: Point }> {
  const grid = new Map<string, Point[]>();
  const cell = (value: number) => Math.floor(value / spacing);
  const free = (point: Point) => {
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (const other of grid.get(`${cell(point.x) + dx},${cell(point.y) + dy}`) ?? []) {
          if (Math.hypot(other.x - point.x, other.y - point.y) < spacing - 1e-9) return false;
        }
      }
    }
    return true;
  };
  return items.map((item) => {
    let drawnAt: Point = { x: item.x, y: item.y };
    search: for (let ring = 1; !free(drawnAt) && ring <= MAX_RINGS; ring++) {
      const places = Math.ceil(2 * Math.PI * ring);
      for (let place = 0; place < places; place++) {
        const angle = -Math.PI / 2 + (2 * Math.PI * place) / places;
        const candidate = { x: item.x + ring * spacing * Math.cos(angle), y: item.y + ring * spacing * Math.sin(angle) };
        if (free(candidate)) {
          drawnAt = candidate;
          break search;
        }
      }
    }
    const key = `${cell(drawnAt.x)},${cell(drawnAt.y)}`;
    grid.set(key, [...(grid.get(key) ?? []), drawnAt]);
    return { ...item, drawnAt };
  });
}

/** A label to place next to its anchor (a robot's or a point's centre), at least `clearance` from it. */
export interface LabelRequest {
  id: string;
  text: string;
  anchor: Point;
  clearance: number;
  /** Robots' names are placed before points' names. */
  kind: "robot" | "point";
}

/** A placed label: its text's start on the baseline, the box it covers, and whether it stands far enough to need a line to its anchor. */
export interface PlacedLabel {
  x: number;
  y: number;
  box: Box;
  far: boolean;
}

/** Width of a text at `font` pixels, estimated without font metrics: CJK characters are square, others about 0.6 wide. */
export function textWidth(text: string, font: number): number {
  let width = 0;
  for (const character of text) width += character.codePointAt(0)! >= 0x2e80 ? font : font * 0.6;
  return width;
}

export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

function overlapArea(a: Box, b: Box): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return width > 0 && height > 0 ? width * height : 0;
}

/** Right, left, above, below, then the corners; each a direction from the anchor. */
const DIRECTIONS: ReadonlyArray<readonly [number, number]> = [
  [1, 0],
  [-1, 0],
  [0, -1],
  [0, 1],
  [1, -1],
  [1, 1],
  [-1, -1],
  [-1, 1],
];
/** Candidates further out, as multiples of the clearance; past LEADER_DISTANCE a label is drawn with a line to its robot. */
const DISTANCES = [1, 1.8, 2.8, 4, 5.5, 7.5, 10, 13];
export const LEADER_DISTANCE = 3;

/** The box of a label whose nearest edge stands `distance` from the anchor in `direction`. */
function candidate(anchor: Point, direction: readonly [number, number], distance: number, width: number, font: number): Box {
  const height = font * 1.2;
  const [dx, dy] = direction;
  const x = dx > 0 ? anchor.x + distance : dx < 0 ? anchor.x - distance - width : anchor.x - width / 2;
  const y = dy > 0 ? anchor.y + distance : dy < 0 ? anchor.y - distance - height : anchor.y - height / 2;
  return { x, y, width, height };
}

const inside = (box: Box, bounds: Box) =>
  box.x >= bounds.x && box.y >= bounds.y && box.x + box.width <= bounds.x + bounds.width && box.y + box.height <= bounds.y + bounds.height;

/**
 * Places labels, every robot's name first, then the points' names: each at
 * the first candidate (near its anchor first, then further out) inside
 * `bounds` that overlaps no label placed before and no box of `keepClear`
 * (robots' markers, points' dots). A label with no free place is left out
 * (the caller still names its robot or point in a tooltip), so a point's name
 * gives way before a robot's, and nothing is ever drawn over anything.
 */
export function placeLabels(
  requests: readonly LabelRequest[],
  keepClear: readonly Box[],
  font: number,
  bounds: Box,
): Map<string, PlacedLabel> {
  const placed = new Map<string, PlacedLabel>();
  const taken: Box[] = [];
  const ordered = [...requests.filter((request) => request.kind === "robot"), ...requests.filter((request) => request.kind === "point")];
  for (const request of ordered) {
    const width = textWidth(request.text, font);
    let best: { box: Box; cost: number; distance: number } | undefined;
    search: for (const distance of DISTANCES) {
      for (const direction of DIRECTIONS) {
        const box = candidate(request.anchor, direction, request.clearance * distance, width, font);
        // Outside the floor plan is as bad as covering something: the label would be cut off.
        let cost = inside(box, bounds) ? 0 : box.width * box.height;
        for (const other of taken) cost += overlapArea(box, other);
        for (const other of keepClear) cost += overlapArea(box, other);
        if (!best || cost < best.cost) best = { box, cost, distance };
        if (cost === 0) break search;
      }
    }
    if (!best || best.cost > 0) continue;
    taken.push(best.box);
    // The baseline sits a fifth of the font above the box's bottom, room for descenders.
    placed.set(request.id, {
      x: best.box.x,
      y: best.box.y + best.box.height - font * 0.25,
      box: best.box,
      far: best.distance > LEADER_DISTANCE,
    });
  }
  return placed;
}
