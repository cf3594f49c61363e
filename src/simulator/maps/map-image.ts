/**
 * The simulator's map images: a PNG of the map's floor plan, exactly the
 * map's width x height pixels, in the look of a robot map (grey unknown space
 * around the building, white floor, dark walls, gaps in them for doors), with
 * each area's room tinted so a flow or a dashboard can tell the areas apart.
 * Like the real cloud's image, it shows no robot: where a robot is comes from
 * its status (localizationInfo.mapPosition), in pixels of this image.
 */
import type { Rect } from "./geometry";
import type { SimMap } from "./maps";
import { Canvas, type Rgb } from "./png";

export const MAP_COLOURS = {
  unknown: [205, 205, 205],
  floor: [250, 250, 250],
  wall: [60, 60, 60],
} as const satisfies Record<string, Rgb>;

/** Fill colours of the areas, in partition order (wrapping). */
export const AREA_COLOURS: readonly Rgb[] = [
  [166, 206, 227],
  [178, 223, 138],
  [251, 154, 153],
  [253, 191, 111],
  [202, 178, 214],
  [255, 255, 153],
];

/** Wall thickness in pixels (0.2 m): the gap the floor plans leave between two spaces. */
export const WALL = 4;

/** Fills a rectangle given bottom-up (the maps' frame) on the canvas, whose rows count from the top. */
function fillRect(canvas: Canvas, rect: Rect, colour: Rgb): void {
  canvas.fill(rect.x, canvas.height - rect.y - rect.height, rect.width, rect.height, colour);
}

const drawn = new WeakMap<SimMap, Buffer>();

/** The map's floor plan as a PNG of map.width x map.height pixels (drawn once per map: nothing on it moves). */
export function drawMap(map: SimMap): Buffer {
  const cached = drawn.get(map);
  if (cached) return cached;
  const png = paintMap(map).toPng();
  drawn.set(map, png);
  return png;
}

function paintMap(map: SimMap): Canvas {
  const canvas = new Canvas(map.width, map.height, MAP_COLOURS.unknown);
  const spaces = [...map.partitions.map((partition) => partition.rect), ...map.otherSpaces];
  // Every space with its walls first, then the floors over them: walls stay only where no floor is.
  for (const space of spaces) {
    fillRect(
      canvas,
      { x: space.x - WALL, y: space.y - WALL, width: space.width + 2 * WALL, height: space.height + 2 * WALL },
      MAP_COLOURS.wall,
    );
  }
  for (const space of map.otherSpaces) fillRect(canvas, space, MAP_COLOURS.floor);
  map.partitions.forEach((partition, index) => fillRect(canvas, partition.rect, AREA_COLOURS[index % AREA_COLOURS.length]!));
  for (const door of map.doors) fillRect(canvas, door, MAP_COLOURS.floor);
  return canvas;
}

/** Where a task cleaned, on the map's floor plan. */
export const COVERAGE_COLOUR: Rgb = [46, 160, 67];

/**
 * A report's coverage image: the map's floor plan with the task's areas (all
 * of them when it named none) painted over from the bottom up, as far as the
 * report's completion (0-1) reached in each.
 */
export function drawCoverage(map: SimMap, areaIds: readonly string[], completion: number): Buffer {
  const canvas = paintMap(map);
  const share = Math.min(1, Math.max(0, completion));
  for (const partition of map.partitions) {
    if (areaIds.length > 0 && !areaIds.includes(String(partition.id))) continue;
    const { rect } = partition;
    const height = Math.round(rect.height * share);
    if (height > 0) fillRect(canvas, { ...rect, height }, COVERAGE_COLOUR);
  }
  return canvas.toPng();
}
