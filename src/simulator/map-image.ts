/**
 * The simulator's map images: a PNG drawn from a map's areas and navigation
 * points, in the look of a robot map (grey unknown space, white floor, dark
 * walls), so a flow or a dashboard shows something recognisable. The areas
 * have no geometry in the data, so they are laid out as a grid of rooms.
 */
import type { Position, SimMap } from "./fleet";
import { Canvas, type Rgb } from "./png";

export const MAP_IMAGE_WIDTH = 320;
export const MAP_IMAGE_HEIGHT = 240;

export const MAP_COLOURS = {
  unknown: [205, 205, 205],
  floor: [250, 250, 250],
  wall: [60, 60, 60],
  navigationPoint: [33, 102, 172],
  charging: [26, 152, 80],
  robot: [215, 48, 39],
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

function darker([r, g, b]: Rgb): Rgb {
  return [Math.round(r * 0.6), Math.round(g * 0.6), Math.round(b * 0.6)];
}

const MARGIN = 12;
const WALL = 3;

/** The map as a PNG; `robotAt` marks the robot when it is on this map. */
export function drawMap(map: SimMap, robotAt?: Position): Buffer {
  const canvas = new Canvas(MAP_IMAGE_WIDTH, MAP_IMAGE_HEIGHT, MAP_COLOURS.unknown);
  const inner = { x: MARGIN, y: MARGIN, width: MAP_IMAGE_WIDTH - 2 * MARGIN, height: MAP_IMAGE_HEIGHT - 2 * MARGIN };
  canvas.fill(inner.x, inner.y, inner.width, inner.height, MAP_COLOURS.floor);
  canvas.outline(inner.x, inner.y, inner.width, inner.height, WALL, MAP_COLOURS.wall);

  // Areas: a grid of rooms, each a filled rectangle, its outline and a door mark.
  const count = map.partitions.length;
  if (count > 0) {
    const columns = Math.ceil(Math.sqrt(count));
    const rows = Math.ceil(count / columns);
    const cellWidth = (inner.width - 2 * WALL) / columns;
    const cellHeight = (inner.height - 2 * WALL) / rows;
    map.partitions.forEach((_, index) => {
      const colour = AREA_COLOURS[index % AREA_COLOURS.length]!;
      const x = inner.x + WALL + (index % columns) * cellWidth + 4;
      const y = inner.y + WALL + Math.floor(index / columns) * cellHeight + 4;
      const width = cellWidth - 8;
      const height = cellHeight - 8;
      canvas.fill(x, y, width, height, colour);
      canvas.outline(x, y, width, height, 2, darker(colour));
      canvas.fill(x + width / 2 - 6, y + height - 2, 12, 2, MAP_COLOURS.floor);
    });
  }

  // Navigation points and the robot, scaled from map metres into the floor.
  const points = [...map.navigationPoints.map((point) => ({ x: point.x, y: point.y })), ...(robotAt ? [robotAt] : [])];
  if (points.length > 0) {
    const xs = points.map((point) => point.x);
    const ys = points.map((point) => point.y);
    const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const pad = 24;
    const scale = Math.min((inner.width - 2 * pad) / Math.max(1, maxX - minX), (inner.height - 2 * pad) / Math.max(1, maxY - minY));
    // Image rows grow downwards, map y upwards.
    const place = (point: { x: number; y: number }) => ({
      x: inner.x + pad + (point.x - minX) * scale,
      y: inner.y + inner.height - pad - (point.y - minY) * scale,
    });
    for (const point of map.navigationPoints) {
      const at = place(point);
      canvas.fill(at.x - 3, at.y - 3, 6, 6, point.name === "charging" ? MAP_COLOURS.charging : MAP_COLOURS.navigationPoint);
    }
    if (robotAt) {
      const at = place(robotAt);
      canvas.fill(at.x - 4, at.y - 4, 8, 8, MAP_COLOURS.robot);
    }
  }
  return canvas.toPng();
}
