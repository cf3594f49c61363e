/**
 * The simulated maps: floor plans in pixels of the map image (0.05 m per
 * pixel, rows counted from the image's bottom edge, as the cloud counts
 * them: docs/cloud-api.md, "Where a robot is on its map"). Every area
 * (partition) is a room, the rest of the floor is hallways and rooms that are
 * no area, and doors join them; walls are what surrounds the floor.
 */
import type { Point, Rect } from "./geometry";

export interface NavigationPoint {
  name: string;
  /** Pixels of the map image, bottom-up. */
  x: number;
  y: number;
  /** Degrees in (-180, 180], counter-clockwise from +x (bottom-up): the way the robot faces there. */
  angle: number;
}

export interface Partition {
  id: number;
  name: string;
  /** The area's room on the floor plan. */
  rect: Rect;
}

export interface SimMap {
  /** UUID-like, as C2 lists it. */
  id: string;
  name: string;
  version: number;
  /** Size of the map image in pixels. */
  width: number;
  height: number;
  /** Metres per pixel. */
  resolution: number;
  /** The areas, each a room of the floor plan. */
  partitions: Partition[];
  /** Floor that is no area: hallways, offices, a lift lobby. */
  otherSpaces: Rect[];
  /** Openings in the walls, each joining two spaces (rooms or other spaces) it touches. */
  doors: Rect[];
  /** Where a robot comes onto this map from another one (the lift). */
  entrance: Point;
  navigationPoints: NavigationPoint[];
}

/** The usual resolution of the maker's maps (docs/cloud-api.md). */
export const METRES_PER_PIXEL = 0.05;

const rect = (x: number, y: number, width: number, height: number): Rect => ({ x, y, width, height });

export const FLOOR_1_MAP_ID = "0a6c3f52-7d1e-4b8a-9f25-3c71e4d2b801";
export const FLOOR_2_MAP_ID = "0a6c3f52-7d1e-4b8a-9f25-3c71e4d2b802";
export const WAREHOUSE_MAP_ID = "9e4d2b17-3a6f-4c81-8d05-f2b7a1c6e901";

/**
 * Floor 1, 40 x 26 m: the lobby on the left (the building's entrance at its
 * bottom, the lift lobby above it), a hallway to the right with offices below
 * it, a meeting room and the kitchen above it.
 */
function floor1(): SimMap {
  return {
    id: FLOOR_1_MAP_ID,
    name: "Floor 1",
    version: 3,
    width: 800,
    height: 520,
    resolution: METRES_PER_PIXEL,
    partitions: [
      { id: 1, name: "Lobby", rect: rect(40, 40, 260, 260) },
      { id: 2, name: "Corridor", rect: rect(304, 200, 456, 60) },
      { id: 3, name: "Kitchen", rect: rect(520, 264, 240, 216) },
    ],
    otherSpaces: [
      rect(40, 304, 260, 176), // lift lobby
      rect(304, 40, 220, 156), // office
      rect(528, 40, 232, 156), // office
      rect(304, 264, 212, 216), // meeting room
    ],
    doors: [
      rect(300, 206, 4, 48), // lobby - corridor
      rect(140, 300, 60, 4), // lobby - lift lobby
      rect(600, 260, 44, 4), // corridor - kitchen
      rect(400, 196, 36, 4), // corridor - office
      rect(620, 196, 36, 4), // corridor - office
      rect(380, 260, 36, 4), // corridor - meeting room
    ],
    entrance: { x: 170, y: 440 },
    navigationPoints: [
      { name: "charging", x: 64, y: 120, angle: 0 },
      { name: "Lobby entrance", x: 170, y: 64, angle: 90 },
      { name: "Kitchen door", x: 622, y: 290, angle: 90 },
    ],
  };
}

/**
 * Floor 2, 32 x 45 m: a hallway up the middle from the lift, the canteen and
 * offices on its left, a kitchenette and the meeting rooms on its right.
 */
function floor2(): SimMap {
  return {
    id: FLOOR_2_MAP_ID,
    name: "Floor 2",
    version: 1,
    width: 640,
    height: 900,
    resolution: METRES_PER_PIXEL,
    partitions: [
      { id: 4, name: "Canteen", rect: rect(40, 40, 236, 420) },
      { id: 5, name: "Meeting rooms", rect: rect(364, 480, 236, 380) },
    ],
    otherSpaces: [
      rect(280, 40, 80, 820), // hallway
      rect(40, 464, 236, 396), // offices
      rect(364, 40, 236, 436), // kitchenette
    ],
    doors: [
      rect(276, 200, 4, 64), // canteen - hallway
      rect(360, 640, 4, 60), // meeting rooms - hallway
      rect(276, 600, 4, 48), // offices - hallway
      rect(360, 120, 4, 48), // kitchenette - hallway
    ],
    entrance: { x: 320, y: 90 },
    navigationPoints: [
      { name: "charging", x: 300, y: 60, angle: 90 },
      { name: "Canteen", x: 160, y: 250, angle: -90 },
    ],
  };
}

/** Two of the office floors, as each office robot has them. */
export function officeMaps(): SimMap[] {
  return [floor1(), floor2()];
}

/**
 * The warehouse, 50 x 31 m: the loading dock along the bottom, three long
 * aisles between rack rows above it, and a cross aisle at their right end
 * that joins them to the dock.
 */
export function warehouseMap(): SimMap {
  return {
    id: WAREHOUSE_MAP_ID,
    name: "Warehouse",
    version: 7,
    width: 1000,
    height: 620,
    resolution: METRES_PER_PIXEL,
    partitions: [
      { id: 1, name: "Aisle 1", rect: rect(40, 240, 816, 80) },
      { id: 2, name: "Aisle 2", rect: rect(40, 360, 816, 80) },
      { id: 3, name: "Loading dock", rect: rect(40, 40, 920, 160) },
    ],
    otherSpaces: [
      rect(860, 204, 100, 356), // cross aisle
      rect(40, 480, 816, 80), // aisle 3
    ],
    doors: [
      rect(872, 200, 76, 4), // dock - cross aisle
      rect(856, 250, 4, 60), // aisle 1 - cross aisle
      rect(856, 370, 4, 60), // aisle 2 - cross aisle
      rect(856, 490, 4, 60), // aisle 3 - cross aisle
    ],
    entrance: { x: 910, y: 120 },
    navigationPoints: [
      { name: "charging", x: 64, y: 120, angle: 0 },
      { name: "Dock 3", x: 700, y: 64, angle: -90 },
    ],
  };
}
