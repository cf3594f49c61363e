/**
 * Where the simulated robots are, as the statuses say it (pixels of the map
 * image, rows from its bottom edge, angles in degrees), with a clock the test
 * moves: a cleaning robot travels its rooms at the timing's speed, facing the
 * way it goes; a navigation ends exactly on its point; a charging robot stands
 * at the charging point; a lost robot has no position; PATCH mapPosition
 * places a robot, and refuses a spot off the map.
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import { DEMO_TOKEN, demoFleet, grownFleet, mapPositionOf, startSimulator, type RunningSimulator, type SimMap } from "../../src/simulator";
import { contains, distance, heading, normalizeAngle } from "../../src/simulator/maps/geometry";
import { onFloor } from "../../src/simulator/maps/paths";
import type { Timing } from "../../src/simulator/world/timing";
import { statusOf } from "../../src/simulator/world/views";
import { rawRequest } from "../support/raw-http";

const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";
const WAREHOUSE = "GS-S-000201";
const [FLOOR_1, FLOOR_2] = demoFleet().robots[0]!.maps as [SimMap, SimMap];
const point = (map: SimMap, name: string) => map.navigationPoints.find((candidate) => candidate.name === name)!;

interface MapPosition {
  x: number;
  y: number;
  angle: number;
  worldX: number;
  worldY: number;
}
interface Status {
  taskState: string;
  battery: { charging: boolean };
  navStatus: string;
  localizationInfo: { localizationState: string; map: { id: string; name: string; version: string }; mapPosition?: MapPosition };
  navigationPoints: { naviPoints: { naviPointName: string; navPointGridX: number; navPointGridY: number }[] };
}

const navigate = (map: string, position: string, type: "CROSS_NAVIGATE" | "PAUSE_NAVIGATE" | "RESUME_NAVIGATE" = "CROSS_NAVIGATE") =>
  ({ remoteNavigationCommandType: type, commandParameter: { startNavigationParameter: { map, position } } }) as const;
const START_TASK = {
  remoteTaskCommandType: "START_TASK",
  commandParameter: {
    startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "All of Floor 1", map: "Floor 1", loop: false, loopCount: 1 } },
  },
} as const;

/** Whether a status's position can be drawn on the map's image: (x, height - y) is one of its pixels. */
function onImage(map: SimMap, position: MapPosition): boolean {
  return (
    position.x >= 0 &&
    position.x < map.width &&
    position.y > 0 &&
    position.y <= map.height &&
    position.angle > -180 &&
    position.angle <= 180
  );
}

describe("simulator: where robots are and how they move", function () {
  let clock = 1_950_000_000_000;
  let simulator: RunningSimulator;
  let client: RobotClient;

  async function start(timing: Partial<Timing> = {}, robots?: number) {
    simulator = await startSimulator({ quiet: true, rateLimit: false, now: () => clock, timing, ...(robots ? { robots } : {}) });
    client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN }, engine: { rateLimit: 0 }, retry: { maxRetries: 0 } });
  }
  afterEach(async () => {
    client?.close();
    await simulator?.close();
  });

  const status = async (serialNumber: string) => (await client.getRobotStatus({ serialNumber })) as unknown as Status;
  const positionOf = async (serialNumber: string) => (await status(serialNumber)).localizationInfo.mapPosition!;
  const patch = (serialNumber: string, body: unknown) =>
    rawRequest(simulator.url, "PATCH", `/_sim/robots/${serialNumber}`, {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });

  it("gives every robot a mapPosition in pixels on its map's image, in both statuses, and the points' pixels", async () => {
    await start({}, 40);
    const serialNumbers = simulator.state.serialNumbers();
    const statuses = (await client.batchGetStatuses(serialNumbers, { line: "s" })) as unknown as Status[];
    const v1 = (await client.batchGetStatuses(serialNumbers, { line: "v1" })) as unknown as (Status & {
      position: Record<string, unknown>;
    })[];
    statuses.forEach((robot, index) => {
      const map = simulator.state.robot(serialNumbers[index]!)!.maps.find((candidate) => candidate.id === robot.localizationInfo.map.id)!;
      const position = robot.localizationInfo.mapPosition!;
      assert.ok(onImage(map, position), `${serialNumbers[index]} at ${JSON.stringify(position)} on ${map.width} x ${map.height}`);
      assert.ok(onFloor(map, position), `${serialNumbers[index]} on the floor`);
      assert.deepEqual(
        [position.worldX, position.worldY],
        [Math.round(position.x * 5) / 100, Math.round(position.y * 5) / 100],
        "metres: pixels x 0.05",
      );
      assert.deepEqual(v1[index]!.localizationInfo.mapPosition, position, "the v1 status says the same");
      assert.deepEqual(v1[index]!.position, { latitude: 0, longitude: 0, angle: 0 }, "the v1 position is geographic, recorded as zeros");
      assert.deepEqual(
        robot.navigationPoints.naviPoints,
        map.navigationPoints.map((navigationPoint) => ({
          naviPointName: navigationPoint.name,
          navPointGridX: navigationPoint.x,
          navPointGridY: navigationPoint.y,
        })),
      );
    });
    const warehouse = statuses[2]!.localizationInfo;
    assert.deepEqual([warehouse.map.name, warehouse.mapPosition!.x, warehouse.mapPosition!.y], ["Warehouse", 700, 64], "at Dock 3");
  });

  it("gives a lost robot its map but no mapPosition, in either status, and its position back once found", async () => {
    await start();
    const before = await positionOf(KITCHEN);
    simulator.updateRobot(KITCHEN, { localizationState: "LOST" });
    const lost = await status(KITCHEN);
    assert.equal(lost.localizationInfo.localizationState, "LOST");
    assert.deepEqual(lost.localizationInfo.map, { id: FLOOR_1.id, name: "Floor 1", version: `maps/${FLOOR_1.id}/versions/3` });
    assert.ok(!("mapPosition" in lost.localizationInfo));
    const [v1] = (await client.batchGetStatuses([KITCHEN], { line: "v1" })) as unknown as (Status & {
      position: Record<string, unknown>;
    })[];
    assert.ok(!("mapPosition" in v1!.localizationInfo));
    assert.deepEqual(v1!.localizationInfo.map, { id: FLOOR_1.id, name: "Floor 1" }, "the v1 status names no version");
    assert.equal(mapPositionOf(simulator.state.robot(KITCHEN)!), undefined);
    simulator.updateRobot(KITCHEN, { localizationState: "NORMAL" });
    assert.deepEqual(await positionOf(KITCHEN), before);
  });

  it("moves a running robot along its rooms at the timing's speed, facing the way it goes, and not while paused", async () => {
    await start({ speedPixelsPerSecond: 10 });
    const start0 = await positionOf(LOBBY);
    assert.deepEqual([start0.x, start0.y], [point(FLOOR_1, "charging").x, point(FLOOR_1, "charging").y]);
    await client.submitCommand({ serialNumber: LOBBY, ...START_TASK });
    const samples: MapPosition[] = [];
    for (let second = 0; second < 120; second += 3) {
      clock += 3000;
      const position = await positionOf(LOBBY);
      assert.ok(onFloor(FLOOR_1, position) && onImage(FLOOR_1, position), JSON.stringify(position));
      samples.push(position);
    }
    assert.ok(distance(samples[0]!, start0) > 20, "off the charger within 3 s");
    const steps = samples.slice(1).map((position, index) => distance(samples[index]!, position));
    assert.ok(
      steps.every((step) => step <= 31),
      `at most 10 px/s: ${steps.join(", ")}`,
    );
    assert.ok(steps.filter((step) => step > 5).length > 30, "it keeps going");
    // On a straight stretch it faces the way it goes (counter-clockwise from +x, rows from the bottom).
    const straight = samples.slice(1).filter((position, index) => Math.abs(distance(samples[index]!, position) - 30) < 0.8);
    assert.ok(straight.length > 5, `${straight.length} straight stretches`);
    for (const position of straight) {
      const previous = samples[samples.indexOf(position) - 1]!;
      const way = heading(previous, position)!;
      assert.ok(Math.abs(normalizeAngle(way - position.angle)) < 5, `heading ${way}, angle ${position.angle}`);
    }
    await client.submitCommand({ serialNumber: LOBBY, remoteTaskCommandType: "PAUSE_TASK" });
    const paused = await positionOf(LOBBY);
    clock += 30_000;
    assert.deepEqual(await positionOf(LOBBY), paused, "a paused robot stays");
    await client.submitCommand({ serialNumber: LOBBY, remoteTaskCommandType: "RESUME_TASK" });
    clock += 2000;
    assert.ok(distance(await positionOf(LOBBY), paused) > 10, "and goes on once resumed");
    await client.submitCommand({ serialNumber: LOBBY, remoteTaskCommandType: "STOP_TASK" });
    const stopped = await positionOf(LOBBY);
    clock += 30_000;
    assert.deepEqual(await positionOf(LOBBY), stopped, "an idle robot stays");
  });

  it("cleans the rooms of its task's areas: a temporary task on the kitchen takes the robot there, keeps it there, and reports the kitchen's area", async () => {
    await start({ speedPixelsPerSecond: 50 });
    const kitchen = FLOOR_1.partitions.find((partition) => partition.name === "Kitchen")!;
    await client.sendTempTask({
      productId: KITCHEN,
      tempTaskCommand: {
        taskName: "Kitchen",
        cleaningMode: "清扫",
        loop: false,
        loopCount: 1,
        mapName: "Floor 1",
        startParam: { mapId: FLOOR_1.id, areaId: String(kitchen.id) },
      },
    });
    clock += 20_000;
    for (let sample = 0; sample < 40; sample++) {
      clock += 7000;
      const position = await positionOf(KITCHEN);
      assert.ok(contains(kitchen.rect, position), `in the kitchen: ${JSON.stringify(position)}`);
    }
    await client.submitCommand({ serialNumber: KITCHEN, remoteTaskCommandType: "STOP_TASK" });
    const { robotTaskReports } = (await client.listTaskReports({ serialNumber: KITCHEN, page: 1, pageSize: 1 })) as {
      robotTaskReports: Record<string, unknown>[];
    };
    const kitchenSquareMetres = kitchen.rect.width * kitchen.rect.height * FLOOR_1.resolution ** 2;
    assert.equal(robotTaskReports[0]!.plannedCleaningAreaSquareMeter, Math.round(kitchenSquareMetres * 1000) / 1000, "the kitchen's area");
  });

  it("cleans only the area a START_TASK names (an executable task of one area): the robot goes there and stays, and its report plans that area", async () => {
    await start({ speedPixelsPerSecond: 50 });
    const kitchen = FLOOR_1.partitions.find((partition) => partition.name === "Kitchen")!;
    const [v1] = (await client.batchGetStatuses([LOBBY], { line: "v1" })) as unknown as {
      executableTasks: { id: string; name: string }[];
    }[];
    const kitchenTask = v1!.executableTasks.find((task) => task.name === kitchen.name)!;
    await client.submitCommand({
      serialNumber: LOBBY,
      remoteTaskCommandType: "START_TASK",
      commandParameter: {
        startTaskParameter: {
          cleaningMode: "__middle_cleaning",
          task: { name: kitchenTask.name, map: "Floor 1", loop: false, loopCount: 1 },
        },
      },
    });
    assert.ok(!contains(kitchen.rect, await positionOf(LOBBY)), "it starts in the lobby");
    clock += 30_000;
    for (let sample = 0; sample < 40; sample++) {
      clock += 7000;
      const position = await positionOf(LOBBY);
      assert.ok(contains(kitchen.rect, position), `in the kitchen: ${JSON.stringify(position)}`);
    }
    await client.submitCommand({ serialNumber: LOBBY, remoteTaskCommandType: "STOP_TASK" });
    const { robotTaskReports } = (await client.listTaskReports({ serialNumber: LOBBY, page: 1, pageSize: 1 })) as {
      robotTaskReports: Record<string, unknown>[];
    };
    const report = robotTaskReports[0]!;
    const kitchenSquareMetres = kitchen.rect.width * kitchen.rect.height * FLOOR_1.resolution ** 2;
    assert.equal(
      report.plannedCleaningAreaSquareMeter,
      Math.round(kitchenSquareMetres * 1000) / 1000,
      "the kitchen's area, not the floor's",
    );
    assert.equal(report.areaNameList, kitchen.name);
    assert.deepEqual(
      (report.subTasks as Record<string, unknown>[]).map((subTask) => [subTask.mapId, subTask.taskId]),
      [[FLOOR_1.id, kitchenTask.id]],
      "one sub-task, the kitchen's executable task",
    );
  });

  it("cleans every area for the whole map's task, and its report plans the whole floor", async () => {
    await start();
    await client.submitCommand({ serialNumber: LOBBY, ...START_TASK });
    clock += 60_000;
    assert.deepEqual(simulator.state.robot(LOBBY)!.currentTask?.areaIds, [], "no area named: all of them");
    await client.submitCommand({ serialNumber: LOBBY, remoteTaskCommandType: "STOP_TASK" });
    const { robotTaskReports } = (await client.listTaskReports({ serialNumber: LOBBY, page: 1, pageSize: 1 })) as {
      robotTaskReports: Record<string, unknown>[];
    };
    const floorSquareMetres = FLOOR_1.partitions.reduce(
      (sum, area) => sum + area.rect.width * area.rect.height * FLOOR_1.resolution ** 2,
      0,
    );
    assert.equal(robotTaskReports[0]!.plannedCleaningAreaSquareMeter, Math.round(floorSquareMetres * 1000) / 1000);
    assert.equal(robotTaskReports[0]!.areaNameList, "");
  });

  it("keeps robots still at speed 0 (the default of startSimulator), so a test sees exactly what it did", async () => {
    await start();
    const before = await positionOf(KITCHEN);
    await client.submitCommand({ serialNumber: KITCHEN, ...START_TASK });
    clock += 60_000;
    assert.equal((await status(KITCHEN)).taskState, "RUNNING");
    assert.deepEqual(await positionOf(KITCHEN), before);
  });

  it("travels a navigation in navigationMs and arrives exactly at the point's navPointGridX/Y and angle", async () => {
    await start({ navigationMs: 10_000 });
    const from = await positionOf(KITCHEN);
    await client.submitCommand({ serialNumber: KITCHEN, ...navigate("Floor 1", "Lobby entrance") });
    const target = (await status(KITCHEN)).navigationPoints.naviPoints.find((candidate) => candidate.naviPointName === "Lobby entrance")!;
    const way: MapPosition[] = [];
    for (let second = 1; second < 10; second++) {
      clock += 1000;
      const robot = await status(KITCHEN);
      assert.equal(simulator.state.robot(KITCHEN)!.navigation?.state, "NAVIGATING");
      assert.equal(robot.navStatus, "NAVI_IDLE", "the only published navStatus, navigating or not");
      way.push(robot.localizationInfo.mapPosition!);
      assert.ok(onFloor(FLOOR_1, robot.localizationInfo.mapPosition!), JSON.stringify(robot.localizationInfo.mapPosition));
    }
    const toTarget = (position: MapPosition) => distance(position, { x: target.navPointGridX, y: target.navPointGridY });
    assert.ok(
      way.every((position, index) => toTarget(position) < toTarget(way[index - 1] ?? from)),
      "nearer every second",
    );
    assert.ok(toTarget(way.at(-1)!) > 0, "not there before its time");
    clock += 1000;
    const arrived = await status(KITCHEN);
    assert.equal(simulator.state.robot(KITCHEN)!.navigation?.state, "ARRIVED");
    const lobbyEntrance = point(FLOOR_1, "Lobby entrance");
    assert.deepEqual(
      [arrived.localizationInfo.mapPosition!.x, arrived.localizationInfo.mapPosition!.y, arrived.localizationInfo.mapPosition!.angle],
      [target.navPointGridX, target.navPointGridY, lobbyEntrance.angle],
    );
  });

  it("holds a paused navigation where it is, and resumes from there to arrive on time", async () => {
    await start({ navigationMs: 8000 });
    await client.submitCommand({ serialNumber: KITCHEN, ...navigate("Floor 1", "charging") });
    clock += 3000;
    await client.submitCommand({ serialNumber: KITCHEN, ...navigate("Floor 1", "charging", "PAUSE_NAVIGATE") });
    const paused = await positionOf(KITCHEN);
    clock += 60_000;
    assert.deepEqual(await positionOf(KITCHEN), paused);
    await client.submitCommand({ serialNumber: KITCHEN, ...navigate("Floor 1", "charging", "RESUME_NAVIGATE") });
    clock += 2500;
    const resumed = await positionOf(KITCHEN);
    assert.ok(distance(resumed, paused) > 5, "moving again");
    clock += 2500;
    const docked = await status(KITCHEN);
    assert.equal(simulator.state.robot(KITCHEN)!.navigation?.state, "ARRIVED");
    assert.deepEqual(
      [docked.localizationInfo.mapPosition!.x, docked.localizationInfo.mapPosition!.y],
      [point(FLOOR_1, "charging").x, point(FLOOR_1, "charging").y],
    );
  });

  it("comes onto another map at its entrance and ends on the point there", async () => {
    await start({ navigationMs: 4000 });
    await client.submitCommand({ serialNumber: KITCHEN, ...navigate("Floor 2", "Canteen") });
    clock += 1000;
    const onTheWay = await status(KITCHEN);
    assert.equal(onTheWay.localizationInfo.map.name, "Floor 2");
    assert.ok(onImage(FLOOR_2, onTheWay.localizationInfo.mapPosition!) && onFloor(FLOOR_2, onTheWay.localizationInfo.mapPosition!));
    clock += 3000;
    const canteen = point(FLOOR_2, "Canteen");
    assert.deepEqual(await positionOf(KITCHEN), {
      x: canteen.x,
      y: canteen.y,
      angle: canteen.angle,
      worldX: canteen.x * 0.05,
      worldY: canteen.y * 0.05,
    });
  });

  it("keeps a charging robot at its map's charging point", async () => {
    await start({ batteryChargePerMinute: 5 });
    const charging = point(FLOOR_1, "charging");
    const atCharger = { x: charging.x, y: charging.y, angle: charging.angle, worldX: 3.2, worldY: 6 };
    assert.equal((await status(LOBBY)).battery.charging, true);
    assert.deepEqual(await positionOf(LOBBY), atCharger);
    const patched = await patch(KITCHEN, { charging: true });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual((patched.json as Status).localizationInfo.mapPosition, atCharger, "put on charge: at the charger");
    clock += 10 * 60_000;
    assert.deepEqual(await positionOf(KITCHEN), atCharger);
    const warehouseCharger = point(demoFleet().robots[2]!.maps[0]!, "charging");
    simulator.updateRobot(WAREHOUSE, { charging: true });
    assert.deepEqual([(await positionOf(WAREHOUSE)).x, (await positionOf(WAREHOUSE)).y], [warehouseCharger.x, warehouseCharger.y]);
  });

  it("places a robot with PATCH mapPosition, off the charger, and a running task goes on from there", async () => {
    await start({ speedPixelsPerSecond: 10 });
    const placed = await patch(LOBBY, { mapPosition: { x: 400, y: 230, angle: -90 } });
    assert.equal(placed.status, 200, placed.text);
    const shown = placed.json as Status;
    assert.deepEqual(shown.localizationInfo.mapPosition, { x: 400, y: 230, angle: -90, worldX: 20, worldY: 11.5 });
    assert.equal(shown.battery.charging, false);
    assert.deepEqual(statusOf(simulator.state.robot(LOBBY)!, clock).localizationInfo, shown.localizationInfo);
    await client.submitCommand({ serialNumber: LOBBY, ...START_TASK });
    clock += 5000;
    const moved = await positionOf(LOBBY);
    simulator.updateRobot(LOBBY, { mapPosition: { x: 150, y: 150, angle: 0 } });
    clock += 1000;
    const after = await positionOf(LOBBY);
    assert.ok(distance(after, { x: 150, y: 150 }) <= 10.5, `from the new spot: ${JSON.stringify(after)} (was ${JSON.stringify(moved)})`);
  });

  it("refuses a mapPosition off the map's image, a bad angle, or with charging true, naming the field and changing nothing", async () => {
    await start();
    const before = await positionOf(KITCHEN);
    for (const [body, message] of [
      [{ mapPosition: { x: 800, y: 100, angle: 0 } }, /mapPosition: \(800, 100\) is not on map Floor 1 of 800 x 520 pixels/],
      [{ mapPosition: { x: 10, y: 0, angle: 0 } }, /mapPosition: .*y above 0 up to 520/],
      [{ mapPosition: { x: -1, y: 10, angle: 0 } }, /mapPosition/],
      [{ mapPosition: { x: 10, y: 10, angle: -180 } }, /mapPosition\.angle: must be more than -180 and at most 180 degrees/],
      [{ mapPosition: { x: 10, y: 10 } }, /mapPosition\.angle/],
      [{ mapPosition: { x: 10, y: 10, angle: 0, z: 1 } }, /z/],
      [
        { mapPosition: { x: 100, y: 100, angle: 0 }, charging: true, online: false },
        /mapPosition: a charging robot stands at the charging point/,
      ],
    ] as const) {
      const answer = await patch(KITCHEN, body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.match(answer.text, message);
    }
    const robot = await status(KITCHEN);
    assert.deepEqual(robot.localizationInfo.mapPosition, before);
    assert.equal(robot.battery.charging, false);
    assert.throws(() => simulator.updateRobot(KITCHEN, { mapPosition: { x: 5, y: 900, angle: 0 } }), /mapPosition/);
  });

  it("keeps the grown fleet still and in place when nothing runs", async () => {
    await start({ speedPixelsPerSecond: 10 }, 30);
    const fleet = grownFleet(30);
    clock += 60_000;
    const statuses = (await client.batchGetStatuses(simulator.state.serialNumbers(), { line: "s" })) as unknown as Status[];
    statuses.forEach((robot, index) => {
      const seeded = fleet.robots[index]!.localization.position;
      assert.deepEqual([robot.localizationInfo.mapPosition!.x, robot.localizationInfo.mapPosition!.y], [seeded.x, seeded.y]);
    });
  });
});
