/**
 * The seeded fleet and what commands do to it, driven through the real
 * RobotClient: every state change shows in the B1 status, site information
 * (and the robot on no site), temporary site tasks (B3) and temporary tasks
 * (B4: accepted, refused when busy or the area is unknown), maps.
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import type { CommandRequest, TempTaskCommandRequest } from "../../src/api/cloud/schemas";
import { DEMO_TOKEN, demoFleet, startSimulator } from "../../src/simulator";
import { failureOf } from "../support/failures";
import { useClientOnSimulator } from "../support/client-on-server";

const FLEET = demoFleet();
const SITE = FLEET.sites[0]!;
const [FLOOR_1, FLOOR_2] = FLEET.robots[0]!.maps as [(typeof FLEET.robots)[0]["maps"][0], (typeof FLEET.robots)[0]["maps"][0]];
const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";
const WAREHOUSE = "GS-S-000201";
const metres = (pixels: number) => Math.round(pixels * 0.05 * 1000) / 1000;
/** Where a navigation point is, as mapPosition shows a robot standing on it (x, y in pixels; the same in metres). */
const at = (map: typeof FLOOR_1, name: string) => {
  const point = map.navigationPoints.find((candidate) => candidate.name === name)!;
  return { x: point.x, y: point.y, angle: point.angle, worldX: metres(point.x), worldY: metres(point.y) };
};
const CHARGING_1 = at(FLOOR_1, "charging");

interface Status {
  taskState: string;
  /** The recorded S-line shape: the run and its cleaning mode, not the task's name (that is the simulator's own record: `task`). */
  currentTask: { workMode: { name: string }; taskInstanceId: string; manualControlling: boolean };
  battery: { charging: boolean; powerPercentage: number };
  localizationInfo: {
    localizationState: string;
    map: { id: string; name: string; version: string };
    mapPosition: { x: number; y: number; angle: number; worldX: number; worldY: number };
  };
  navigationPoints: { naviPoints: { naviPointName: string; navPointGridX: number; navPointGridY: number }[] };
  cleanModes: { name: string }[];
  supportSite: boolean;
  online: boolean;
}

function startTask(serialNumber: string, map = "Floor 1", name = "Lobby"): CommandRequest {
  return {
    serialNumber,
    remoteTaskCommandType: "START_TASK",
    commandParameter: { startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name, map, loop: false, loopCount: 1 } } },
  };
}

function navigate(
  serialNumber: string,
  map: string,
  position: string,
  type: CommandRequest["remoteNavigationCommandType"] = "CROSS_NAVIGATE",
): CommandRequest {
  return { serialNumber, remoteNavigationCommandType: type, commandParameter: { startNavigationParameter: { map, position } } };
}

function tempTask(productId: string, areaId: string | number = "2", mapName = "Floor 1"): TempTaskCommandRequest {
  return {
    productId,
    tempTaskCommand: {
      taskName: "Spot clean",
      cleaningMode: "清扫",
      loop: false,
      loopCount: 1,
      mapName,
      startParam: { mapId: FLOOR_1.id, areaId },
    },
  };
}

describe("simulator: the fleet and what commands do", function () {
  const demo = useClientOnSimulator();

  const status = async (serialNumber: string) => (await demo.client.getRobotStatus({ serialNumber })) as unknown as Status;
  /** The simulator's own record of the robot's task (name, source, areas), which no status carries. */
  const task = (serialNumber: string) => demo.simulator.state.robot(serialNumber)!.currentTask;

  it("seeds three believable robots: two on a site, one on none", async () => {
    for (const serialNumber of [LOBBY, KITCHEN, WAREHOUSE]) {
      const robot = await status(serialNumber);
      assert.equal(robot.taskState, "IDLE", serialNumber);
      assert.equal(robot.online, true);
      assert.equal(robot.localizationInfo.localizationState, "NORMAL");
      assert.ok(
        robot.navigationPoints.naviPoints.some((point) => point.naviPointName === "charging"),
        serialNumber,
      );
      assert.ok(robot.cleanModes.some((mode) => mode.name === "__middle_cleaning"));
      assert.ok(robot.cleanModes.some((mode) => mode.name === "清扫"));
      assert.ok(robot.battery.powerPercentage > 0 && robot.battery.powerPercentage <= 100);
      assert.equal(robot.supportSite, serialNumber !== WAREHOUSE);
      assert.equal(robot.currentTask.taskInstanceId, "", "no task under way");
      assert.equal(task(serialNumber), undefined);
    }
    assert.deepEqual(demo.simulator.state.serialNumbers(), [LOBBY, KITCHEN, WAREHOUSE]);
  });

  it("runs a task through START, PAUSE, RESUME and STOP, each visible in the status", async () => {
    await demo.client.submitCommand(startTask(KITCHEN, "Floor 2", "Canteen"));
    let robot = await status(KITCHEN);
    assert.equal(robot.taskState, "RUNNING");
    assert.deepEqual(
      { name: task(KITCHEN)?.name, map: task(KITCHEN)?.mapName, mode: robot.currentTask.workMode.name },
      { name: "Canteen", map: "Floor 2", mode: "__middle_cleaning" },
    );
    assert.equal(robot.currentTask.taskInstanceId, task(KITCHEN)?.id, "the status names the run");
    assert.equal(robot.localizationInfo.map.name, "Floor 2", "the robot works on the task's map");

    await demo.client.submitCommand({ serialNumber: KITCHEN, remoteTaskCommandType: "PAUSE_TASK" });
    robot = await status(KITCHEN);
    assert.equal(robot.taskState, "PAUSED");
    assert.equal(task(KITCHEN)?.name, "Canteen");

    await demo.client.submitCommand({ serialNumber: KITCHEN, remoteTaskCommandType: "RESUME_TASK" });
    assert.equal((await status(KITCHEN)).taskState, "RUNNING");

    await demo.client.submitCommand({ serialNumber: KITCHEN, remoteTaskCommandType: "STOP_TASK" });
    robot = await status(KITCHEN);
    assert.equal(robot.taskState, "IDLE");
    assert.equal(robot.currentTask.taskInstanceId, "");
    assert.equal((await status(LOBBY)).taskState, "IDLE", "other robots are untouched");
  });

  it("accepts a START_TASK by map id too, and ignores a second start while busy (accepted is not executed)", async () => {
    await demo.client.submitCommand(startTask(LOBBY, FLOOR_1.id, "First"));
    const second = await demo.client.submitCommand(startTask(LOBBY, "Floor 2", "Second"));
    assert.equal(second.state, "WAITING");
    assert.equal(task(LOBBY)?.name, "First");
    assert.equal((await status(LOBBY)).currentTask.taskInstanceId, task(LOBBY)?.id, "the status shows the first task's run");
    assert.equal(demo.simulator.state.commands(LOBBY).length, 2);
  });

  it("refuses a task on a map or with a clean mode the robot does not have, naming the field", async () => {
    const map = await failureOf(demo.client.submitCommand(startTask(WAREHOUSE, "Floor 1")));
    assert.equal(map.status, 400);
    assert.equal(map.apiCode, 3);
    assert.match(map.message, /commandParameter\.startTaskParameter\.task\.map: unknown map "Floor 1".*Warehouse/);
    const request = startTask(WAREHOUSE, "Warehouse");
    request.commandParameter!.startTaskParameter!.cleaningMode = "__light_cleaning";
    const mode = await failureOf(demo.client.submitCommand(request));
    assert.match(mode.message, /cleaningMode: "__light_cleaning" is not a clean mode/);
    assert.equal((await status(WAREHOUSE)).taskState, "IDLE");
    assert.equal(demo.simulator.state.commands(WAREHOUSE).length, 0, "a refused command is not stored");
  });

  it("moves the robot to a navigation point with CROSS_NAVIGATE, across maps, and docks it at charging", async () => {
    await demo.client.submitCommand(navigate(KITCHEN, "Floor 2", "Canteen"));
    let robot = await status(KITCHEN);
    assert.equal(robot.localizationInfo.map.name, "Floor 2");
    assert.deepEqual(robot.localizationInfo.mapPosition, at(FLOOR_2, "Canteen"));
    assert.deepEqual(
      robot.navigationPoints.naviPoints,
      FLOOR_2.navigationPoints.map((point) => ({ naviPointName: point.name, navPointGridX: point.x, navPointGridY: point.y })),
      "the status lists the points of the current map, with their pixels",
    );
    assert.equal(robot.battery.charging, false);

    await demo.client.submitCommand(navigate(KITCHEN, "Floor 1", "charging"));
    robot = await status(KITCHEN);
    assert.deepEqual(robot.localizationInfo.mapPosition, CHARGING_1);
    assert.equal(robot.battery.charging, true);

    await demo.client.submitCommand(navigate(KITCHEN, "Floor 1", "charging", "STOP_NAVIGATE"));
    assert.equal(demo.simulator.state.robot(KITCHEN)!.navigation?.state, "STOPPED");
  });

  it("refuses navigation to an unknown point (code 3) or by anything but a map name", async () => {
    const point = await failureOf(demo.client.submitCommand(navigate(LOBBY, "Floor 1", "Roof")));
    assert.equal(point.status, 400);
    assert.equal(point.apiCode, 3);
    assert.match(point.message, /commandParameter\.startNavigationParameter\.position: no navigation point "Roof" on map Floor 1/);
    const byId = await failureOf(demo.client.submitCommand(navigate(LOBBY, FLOOR_1.id, "charging")));
    assert.match(byId.message, /commandParameter\.startNavigationParameter\.map: .* is not a map name/);
    assert.deepEqual((await status(LOBBY)).localizationInfo.mapPosition, CHARGING_1);
  });

  it("drives the robot by remote control: start sets the flag, moves change the position, stop clears it", async () => {
    const move = (direction: "FORWARD" | "BACKWARD" | "LEFT" | "RIGHT"): CommandRequest => ({
      serialNumber: LOBBY,
      remoteControlCommandType: "REMOTE_CONTROL_MOVE",
      commandParameter: { controlMovingParameter: { direction } },
    });
    const early = await failureOf(demo.client.submitCommand(move("FORWARD")));
    assert.equal(early.status, 400);
    assert.equal(early.code, "FAILED_PRECONDITION");

    await demo.client.submitCommand({ serialNumber: LOBBY, remoteControlCommandType: "REMOTE_CONTROL_START" });
    assert.equal((await status(LOBBY)).currentTask.manualControlling, true);
    await demo.client.submitCommand(move("FORWARD"));
    await demo.client.submitCommand(move("FORWARD"));
    let robot = await status(LOBBY);
    // Two steps of 10 pixels (0.5 m) along +x, the way the charger faces.
    assert.deepEqual(robot.localizationInfo.mapPosition, { ...CHARGING_1, x: CHARGING_1.x + 20, worldX: metres(CHARGING_1.x + 20) });
    assert.equal(robot.battery.charging, false, "driving off the charger");
    await demo.client.submitCommand(move("LEFT"));
    robot = await status(LOBBY);
    assert.equal(robot.localizationInfo.mapPosition.angle, 15, "left is counter-clockwise: 15 degrees");
    await demo.client.submitCommand(move("BACKWARD"));
    robot = await status(LOBBY);
    assert.deepEqual(
      [robot.localizationInfo.mapPosition.x, robot.localizationInfo.mapPosition.y],
      [Math.round(CHARGING_1.x + 20 - 10 * Math.cos(Math.PI / 12)), Math.round(CHARGING_1.y - 10 * Math.sin(Math.PI / 12))],
      "a step back against the heading: down and to the left",
    );

    await demo.client.submitCommand({ serialNumber: LOBBY, remoteControlCommandType: "REMOTE_CONTROL_STOP" });
    assert.equal((await status(LOBBY)).currentTask.manualControlling, false);
  });

  it("answers the site information of a robot on a site", async () => {
    const site = (await demo.client.getSiteInfo({ serialNumber: LOBBY })) as {
      siteId: string;
      siteName: string;
      buildings: { name: string; floors: { index: number; name: string; mapId: string; areas: { id: string; name: string }[] }[] }[];
    };
    assert.equal(site.siteId, SITE.id);
    assert.equal(site.siteName, "Riverside Office Park");
    const floors = site.buildings.flatMap((building) => building.floors);
    assert.deepEqual(
      floors.map((floor) => [floor.index, floor.name, floor.mapId]),
      [
        [0, "Floor 1", FLOOR_1.id],
        [1, "Floor 2", FLOOR_2.id],
      ],
    );
    assert.deepEqual(floors[0]!.areas[0], { id: "1", name: "Lobby" });
  });

  it('answers B2 for the robot on no site with code 5 "The robot is not on a site."', async () => {
    const error = await failureOf(demo.client.getSiteInfo({ serialNumber: WAREHOUSE }));
    assert.equal(error.status, 404);
    assert.equal(error.apiCode, 5);
    assert.match(error.message, /The robot is not on a site\./);
  });

  it("starts a temporary site task (B3) and refuses one while the robot is busy or for an unknown area", async () => {
    const request = {
      cleaningMode: "清扫",
      loopCount: 1,
      siteId: SITE.id,
      siteName: SITE.name,
      taskName: "Kitchen deep clean",
      floors: [{ index: 0, name: "Floor 1", mapId: FLOOR_1.id, area: { id: 3, name: "Kitchen" } }],
      tasks: [{ mapId: FLOOR_1.id, subTasks: [{ mapId: FLOOR_1.id, areaId: 3 }] }],
      serialNumber: KITCHEN,
    };
    const unknownArea = await failureOf(
      demo.client.createTempSiteTask({ ...request, tasks: [{ mapId: FLOOR_1.id, subTasks: [{ mapId: FLOOR_1.id, areaId: "9" }] }] }),
    );
    assert.equal(unknownArea.apiCode, 3);
    assert.match(unknownArea.message, /tasks\.0\.subTasks\.0\.areaId: unknown area 9/);

    const answer = await demo.client.createTempSiteTask(request);
    assert.equal(answer.state, "RUNNING");
    const robot = await status(KITCHEN);
    assert.equal(robot.taskState, "RUNNING");
    assert.deepEqual(
      { name: task(KITCHEN)?.name, source: task(KITCHEN)?.source, areas: task(KITCHEN)?.areaIds },
      { name: "Kitchen deep clean", source: "site_task", areas: ["3"] },
    );

    const busy = await failureOf(demo.client.createTempSiteTask({ ...request, taskName: "Another" }));
    assert.equal(busy.code, "FAILED_PRECONDITION");
    assert.equal(task(KITCHEN)?.name, "Kitchen deep clean");

    const offSite = await failureOf(demo.client.createTempSiteTask({ ...request, serialNumber: WAREHOUSE }));
    assert.equal(offSite.apiCode, 5);
  });

  it("accepts a temporary task (B4) and starts it", async () => {
    const answer = await demo.client.sendTempTask(tempTask(LOBBY, 2));
    assert.deepEqual([answer.productId, answer.orderType, answer.cmdStatus, answer.cmdResultCode], [LOBBY, "start_task", 5, "6880"]);
    const robot = await status(LOBBY);
    assert.equal(robot.taskState, "RUNNING");
    assert.deepEqual([task(LOBBY)?.name, task(LOBBY)?.source, task(LOBBY)?.areaIds], ["Spot clean", "temp_task", ["2"]]);
  });

  it("refuses a B4 task while one is running (cmdStatus 7, 2010100012: a task is already there), and the running task goes on", async () => {
    await demo.client.submitCommand(startTask(LOBBY));
    const error = await failureOf(demo.client.sendTempTask(tempTask(LOBBY)));
    assert.equal(error.kind, "rejected");
    assert.equal(error.resultCode, "2010100012");
    assert.match(error.message, /2010100012: a temporary task is already there/);
    assert.equal(task(LOBBY)?.name, "Lobby");

    await demo.client.submitCommand({ serialNumber: LOBBY, remoteTaskCommandType: "PAUSE_TASK" });
    const whilePaused = await failureOf(demo.client.sendTempTask(tempTask(LOBBY)));
    assert.equal(whilePaused.resultCode, "2010100012", "a paused task still occupies the robot");
  });

  it("refuses a B4 task for an unknown area or a map name that does not match the map", async () => {
    for (const request of [tempTask(KITCHEN, "99"), tempTask(KITCHEN, "2", "Floor 2")]) {
      const error = await failureOf(demo.client.sendTempTask(request));
      assert.equal(error.kind, "rejected");
      assert.equal(error.resultCode, "2010100009");
      assert.match(error.message, /2010100009: the task parameters were rejected \(most often a wrong areaId/);
    }
    assert.equal((await status(KITCHEN)).taskState, "IDLE");
  });

  it("lists maps with versions and answers their sub-areas; an unknown map is code 3", async () => {
    const maps = await demo.client.listMaps({ robotSn: LOBBY });
    assert.deepEqual(maps, [
      { mapId: FLOOR_1.id, mapName: "Floor 1", mapVersion: 3 },
      { mapId: FLOOR_2.id, mapName: "Floor 2", mapVersion: 1 },
    ]);
    const areas = await demo.client.getSubareas({ robotSn: LOBBY, mapId: FLOOR_2.id });
    assert.deepEqual(areas, {
      mapId: FLOOR_2.id,
      subareas: {
        partitions: [
          { id: 4, name: "Canteen" },
          { id: 5, name: "Meeting rooms" },
        ],
      },
    });
    const unknown = await failureOf(demo.client.getSubareas({ robotSn: LOBBY, mapId: "no-such-map" }));
    assert.equal(unknown.code, "INVALID_ARGUMENT");
    assert.match(unknown.message, /unknown map no-such-map/);
  });

  it("reset puts the fleet back as seeded", async () => {
    await demo.client.submitCommand(startTask(LOBBY));
    demo.simulator.reset();
    assert.equal((await status(LOBBY)).taskState, "IDLE");
    assert.equal(demo.simulator.state.commands(LOBBY).length, 0);
  });

  it("keeps at most the configured number of commands per robot, dropping the oldest", async () => {
    const small = await startSimulator({ quiet: true, rateLimit: false, maxCommandsPerRobot: 3 });
    try {
      const smallClient = new RobotClient({ baseUrl: small.url, auth: { token: DEMO_TOKEN } });
      const names: string[] = [];
      for (let i = 0; i < 5; i++) {
        names.push((await smallClient.submitCommand({ serialNumber: LOBBY, remoteTaskCommandType: "PAUSE_TASK" })).name);
      }
      assert.deepEqual(
        small.state.commands(LOBBY).map((command) => command.name),
        names.slice(2),
      );
    } finally {
      await small.close();
    }
  });
});
