/**
 * The simulated fleet: its data model, the seeded demo fleet (three S-line
 * robots, one site, two accounts) and the credentials that reach it.
 */
import { grow, normalizeAngle, type Pose } from "../maps/geometry";
import { FLOOR_1_MAP_ID, FLOOR_2_MAP_ID, WAREHOUSE_MAP_ID, officeMaps, warehouseMap, type SimMap } from "../maps/maps";
import type { WearChanges } from "../server/control-requests";
import { changeWear, seededWear, type RobotWear } from "./wear";

export type { NavigationPoint, Partition, SimMap } from "../maps/maps";

export type TaskState = "IDLE" | "RUNNING" | "PAUSED" | "OTHER";

export interface SiteFloor {
  index: number;
  name: string;
  mapId: string;
}

export interface SiteBuilding {
  id: string;
  name: string;
  floors: SiteFloor[];
}

export interface SimSite {
  id: string;
  name: string;
  buildings: SiteBuilding[];
}

/**
 * Where a robot is on its current map: pixels of the map image, rows counted
 * from its bottom edge, and the way it faces in degrees, counter-clockwise
 * from +x (src/simulator/maps/geometry.ts).
 */
export type Position = Pose;

export interface CurrentTask {
  id: string;
  name: string;
  /** Which endpoint started it: the command endpoint (A), a site task (B3) or a temporary task (B4). */
  source: "command" | "site_task" | "temp_task";
  cleaningMode: string;
  mapId: string;
  mapName: string;
  loop: boolean;
  loopCount: number;
  /** Area ids (as strings, the way B3 and B4 send them) when the task names areas. */
  areaIds: string[];
  siteId?: string;
  startTime: string;
}

export interface NavigationState {
  state: "NAVIGATING" | "ARRIVED" | "PAUSED" | "STOPPED";
  mapName: string;
  position: string;
}

export interface SimRobot {
  serialNumber: string;
  displayName: string;
  model: string;
  firmwareVersion: string;
  online: boolean;
  /**
   * false (set by PATCH /_sim/robots/<serial>): the cloud cannot reach the robot, so a status read naming it, a
   * batch's included, is answered 230003 whole, as public clients report (robot field notes, turn 6). Unset: reachable.
   */
  reachable?: boolean;
  taskState: TaskState;
  battery: { charging: boolean; powerPercentage: number };
  emergencyStop: boolean;
  /** Undefined for a robot that is on no site (B2 then answers code 5). */
  siteId: string | undefined;
  maps: SimMap[];
  cleanModes: string[];
  localization: { state: "NORMAL" | "LOST"; mapId: string; position: Position };
  currentTask: CurrentTask | undefined;
  navigation: NavigationState | undefined;
  remoteControl: boolean;
  /** Its wear parts, tanks and battery health (wear.ts), which cleaning and charging change. */
  wear: RobotWear;
}

export interface ClientCredentialSeed {
  clientId: string;
  clientSecret: string;
  /** What the portal calls AccessKeyID; sending it as open_access_key is the classic mistake (HTTP 400). */
  accessKeyId: string;
  /** The value the grant wants as open_access_key. */
  accessKeySecret: string;
}

export interface AccountSeed {
  id: string;
  name: string;
  /** Opaque user id echoed in command resources. */
  userId: string;
  /** Serial numbers this account may use, or "all". */
  robots: string[] | "all";
  /** Fixed access tokens of the account. */
  tokens: string[];
  /** Client credentials that grant a token for this account. */
  clients: ClientCredentialSeed[];
}

export interface FleetSeed {
  sites: SimSite[];
  robots: SimRobot[];
  accounts: AccountSeed[];
}

/** Sees all three robots. */
export const DEMO_TOKEN = "demo-token";
/** Sees only GS-S-000201, the warehouse robot. */
export const WAREHOUSE_TOKEN = "warehouse-token";
/** Grants a token for the demo account through POST /gas/api/v1alpha1/oauth/token. */
export const DEMO_CLIENT: Readonly<ClientCredentialSeed> = {
  clientId: "demo-client",
  clientSecret: "demo-client-secret",
  accessKeyId: "demo-access-key-id",
  accessKeySecret: "demo-access-key-secret",
};

export const SITE_ROBOTS = ["GS-S-000101", "GS-S-000102"] as const;
export const OFF_SITE_ROBOT = "GS-S-000201";

const RIVERSIDE_SITE_ID = "6b1f0c4e-2d7a-4e93-b5a8-1c9e7f3d2a60";

const S_LINE_CLEAN_MODES = ["__middle_cleaning", "__heavy_cleaning", "__light_cleaning", "清扫", "清洗", "尘推", "吸尘"];

/** Where a navigation point of the map is, as a robot standing there. */
function pointOf(map: SimMap, name: string): Position {
  const point = map.navigationPoints.find((candidate) => candidate.name === name)!;
  return { x: point.x, y: point.y, angle: point.angle };
}

/**
 * A spot on Floor 1 for the grown fleet's robot number `index`: its spaces
 * taken in turn, somewhere inside each that the index decides, facing one
 * of eight ways, so a thousand robots do not stand on one pixel.
 */
function spotFor(index: number): Position {
  const map = officeMaps()[0]!;
  const spaces = [...map.partitions.map((partition) => partition.rect), ...map.otherSpaces];
  const room = grow(spaces[index % spaces.length]!, -16);
  const share = (step: number) => ((index * step) % 101) / 100;
  return {
    x: Math.round(room.x + share(37) * room.width),
    y: Math.round(room.y + share(59) * room.height),
    angle: normalizeAngle((index % 8) * 45),
  };
}

/** A robot's seeded wear with `upkeep` changed. */
function wearOf(kind: Parameters<typeof seededWear>[0], serialNumber: string, upkeep: WearChanges): RobotWear {
  const wear = seededWear(kind, serialNumber);
  changeWear(wear, upkeep, 0);
  return wear;
}

/** An idle S50 scrubber on the office site, on Floor 1 at `position`, at its seeded wear with `upkeep` changed. */
function officeRobot(
  serialNumber: string,
  displayName: string,
  battery: SimRobot["battery"],
  position: Position,
  upkeep: WearChanges = {},
): SimRobot {
  const wear = wearOf("scrubber", serialNumber, upkeep);
  return {
    serialNumber,
    displayName,
    model: "S-line S50",
    firmwareVersion: "3.8.2",
    online: true,
    taskState: "IDLE",
    battery,
    emergencyStop: false,
    siteId: RIVERSIDE_SITE_ID,
    maps: officeMaps(),
    cleanModes: [...S_LINE_CLEAN_MODES],
    localization: { state: "NORMAL", mapId: FLOOR_1_MAP_ID, position },
    currentTask: undefined,
    navigation: undefined,
    remoteControl: false,
    wear,
  };
}

/** The fleet every simulator starts with (a fresh copy each call: reset must not see old changes). */
export function demoFleet(): FleetSeed {
  return {
    sites: [
      {
        id: RIVERSIDE_SITE_ID,
        name: "Riverside Office Park",
        buildings: [
          {
            id: "b7d3e1a2-5c4f-4a8b-9e61-0f2c3d4b5a01",
            name: "Tower A",
            floors: [
              { index: 0, name: "Floor 1", mapId: FLOOR_1_MAP_ID },
              { index: 1, name: "Floor 2", mapId: FLOOR_2_MAP_ID },
            ],
          },
        ],
      },
    ],
    robots: [
      // On the charger, at Floor 1's charging point.
      // The demo's upkeep from the start (issue 46): the Lobby scrubber's soft squeegee has 11 % left, a few
      // cleaning hours above the 10 % a part is due at; the Kitchen scrubber's clean water is under the 15 % a person refills at.
      officeRobot("GS-S-000101", "Lobby scrubber", { charging: true, powerPercentage: 96 }, pointOf(officeMaps()[0]!, "charging"), {
        parts: { softSqueegee: { usedLife: 222.5 } },
      }),
      officeRobot("GS-S-000102", "Kitchen scrubber", { charging: false, powerPercentage: 64 }, pointOf(officeMaps()[0]!, "Kitchen door"), {
        cleanWater: 12,
      }),
      {
        serialNumber: OFF_SITE_ROBOT,
        displayName: "Warehouse sweeper",
        model: "S-line S75",
        firmwareVersion: "3.6.0",
        online: true,
        taskState: "IDLE",
        battery: { charging: false, powerPercentage: 41 },
        emergencyStop: false,
        siteId: undefined,
        maps: [warehouseMap()],
        cleanModes: ["__middle_cleaning", "__heavy_cleaning", "清扫", "尘推"],
        localization: { state: "NORMAL", mapId: WAREHOUSE_MAP_ID, position: pointOf(warehouseMap(), "Dock 3") },
        currentTask: undefined,
        navigation: undefined,
        remoteControl: false,
        // A sweeper: no water tanks, no scrubber brush or squeegee. Its filter is due from the start (8 % left,
        // under the 10 % a part is due at), so the demo's upkeep tab and robot-upkeep's example show a part due.
        wear: wearOf("sweeper", OFF_SITE_ROBOT, { parts: { filter: { usedLife: 185 } } }),
      },
    ],
    accounts: [
      {
        id: "hq-facility",
        name: "HQ facility management",
        userId: "5c2e9a41-7b3d-4f18-a6e0-91d4c8b2f701",
        robots: "all",
        tokens: [DEMO_TOKEN],
        clients: [{ ...DEMO_CLIENT }],
      },
      {
        id: "warehouse-contractor",
        name: "Warehouse cleaning contractor",
        userId: "5c2e9a41-7b3d-4f18-a6e0-91d4c8b2f702",
        robots: [OFF_SITE_ROBOT],
        tokens: [WAREHOUSE_TOKEN],
        clients: [],
      },
    ],
  };
}

/** Robots a fleet may be grown to (`--robots`): enough for load tests, little enough to stay quick. */
export const MAX_FLEET_ROBOTS = 5000;

/**
 * The demo fleet grown to `robots` robots for load tests: the three seeded
 * robots first, unchanged, then office robots GS-S-100004, GS-S-100005, ...
 * on the same two maps, spread over Floor 1's rooms and hallways, with
 * batteries spread over 30-99 %, that the demo account (which sees every
 * robot) may use.
 */
export function grownFleet(robots: number): FleetSeed {
  if (!Number.isInteger(robots) || robots < 1 || robots > MAX_FLEET_ROBOTS) {
    throw new Error(`robots must be a whole number from 1 to ${MAX_FLEET_ROBOTS}`);
  }
  const fleet = demoFleet();
  fleet.robots = fleet.robots.slice(0, robots);
  for (let index = fleet.robots.length + 1; index <= robots; index++) {
    const battery = { charging: false, powerPercentage: 30 + ((index * 37) % 70) };
    fleet.robots.push(officeRobot(`GS-S-${String(100000 + index)}`, `Scrubber ${index}`, battery, spotFor(index)));
  }
  return fleet;
}

export function mayUse(account: AccountSeed, serialNumber: string): boolean {
  return account.robots === "all" || account.robots.includes(serialNumber);
}
