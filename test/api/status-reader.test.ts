/**
 * One reading of a robot status for every reader: the watcher's state, the
 * confirmation poller's reasons, the fleet map's markers and the node status
 * text all say the same of the same status (docs/cloud-api.md: B1 and v1).
 */
import assert from "node:assert/strict";
import { executableTasksOf, readStatus, serialNumberOf } from "../../src/api/watching/status-reader";
import { robotFactsOf } from "../../src/api/jobs/dispatch";
import { executableTaskNames } from "../../src/nodes/robot-maps/fleet-view";
import { watchedStateOf } from "../../src/api/watching/watcher-state";
import { placeRobots } from "../../src/nodes/robot-maps/fleet-map";
import { robotStatusText } from "../../src/nodes/shared/status-text";
import { cellsToPoint } from "../../src/api/watching/navigation";

/** A status on map floor-1 at (10, 20), with `fields` over it. */
function onFloor(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    serialNumber: "GS-S-000101",
    online: true,
    taskState: "IDLE",
    localizationInfo: { localizationState: "NORMAL", map: { id: "floor-1" }, mapPosition: { x: 10, y: 20, angle: 0 } },
    ...fields,
  };
}

function markerOf(status: Record<string, unknown>): string | undefined {
  const { placed, unplaced } = placeRobots([status], "floor-1", 100);
  return [...placed, ...unplaced][0]?.state;
}

describe("api: the robot status reader", function () {
  it("reads the emergency stop as emergencyStop.enabled only, the one form the cloud gives; the watcher and the map agree on every form", function () {
    const forms: Array<[unknown, boolean | undefined]> = [
      [{ enabled: true }, true],
      [{ enabled: false }, false],
      // Not what the cloud sends: neither reader takes it for a pressed stop (the map once did, the watcher not).
      [true, undefined],
      [{ enabled: "true" }, undefined],
      [undefined, undefined],
    ];
    for (const [emergencyStop, pressed] of forms) {
      const status = onFloor({ emergencyStop });
      const what = JSON.stringify(emergencyStop);
      assert.equal(readStatus(status).emergencyStop, pressed, what);
      assert.equal(watchedStateOf(status).emergencyStop, pressed, `the watcher on ${what}`);
      assert.equal(markerOf(status) === "emergencyStop", pressed === true, `the map on ${what}`);
    }
  });

  it("takes a serial number from serialNumber or a v1 name robots/<sn>, and from nothing else, for the watcher and the map alike", function () {
    assert.equal(serialNumberOf({ serialNumber: "GS-S-1", name: "robots/GS-S-2" }), "GS-S-1");
    assert.equal(serialNumberOf({ name: "robots/GS-X-7" }), "GS-X-7");
    for (const status of [{ name: "GS-X-7" }, { name: "robots/" }, { serialNumber: "  " }, { serialNumber: 101 }]) {
      assert.equal(serialNumberOf(status), undefined, JSON.stringify(status));
      assert.equal(watchedStateOf(status).serialNumber, "", `the watcher on ${JSON.stringify(status)}`);
      assert.equal(markerOf(onFloor({ serialNumber: undefined, ...status })), undefined, `the map leaves out ${JSON.stringify(status)}`);
    }
  });

  it("reads the battery from B1's powerPercentage or v1's soc, numbers sent as strings too, the same for the watcher and the status text", function () {
    const t = (key: string) => key;
    for (const [battery, percent] of [
      [{ powerPercentage: 64 }, 64],
      [{ powerPercentage: "64.4" }, 64.4],
      [{ soc: "42" }, 42],
      [{ powerPercentage: "" }, undefined],
      [{ powerPercentage: "full" }, undefined],
    ] as const) {
      const status = { taskState: "IDLE", battery };
      assert.equal(watchedStateOf(status).battery, percent, JSON.stringify(battery));
      assert.equal(robotStatusText(status, t), percent === undefined ? "IDLE" : `IDLE ${Math.round(percent)}%`, JSON.stringify(battery));
    }
  });

  it("places a robot by the position the watcher reads, rows turned to count from the top", function () {
    const status = onFloor({
      localizationInfo: { localizationState: "NORMAL", map: { id: "floor-1" }, mapPosition: { x: "903", y: 26, angle: "-92.7" } },
    });
    assert.deepEqual(watchedStateOf(status).position, { x: 903, y: 26, angle: -92.7 });
    assert.deepEqual(placeRobots([status], "floor-1", 100).placed[0], {
      serialNumber: "GS-S-000101",
      name: "GS-S-000101",
      x: 903,
      y: 74,
      angle: -92.7,
      state: "idle",
    });
  });

  // 0 is a pixel like any other (the map's left column, its bottom row): read as no position, a robot there went unplaced.
  for (const [x, y] of [
    [0, 5],
    [5, 0],
    [0, 0],
    [1, 1],
    [-1, -1],
  ] as const) {
    it(`a mapPosition and a navigation point at (${x}, ${y}) place the robot and the point for the watcher, dispatch, the map and navigation alike`, function () {
      const status = onFloor({
        localizationInfo: { localizationState: "NORMAL", map: { id: "floor-1" }, mapPosition: { x, y, angle: 0 } },
        navigationPoints: { naviPoints: [{ naviPointName: "Corner", navPointGridX: x, navPointGridY: y }] },
      });
      const reading = readStatus(status);
      assert.deepEqual(reading.position, { x, y, angle: 0 });
      assert.deepEqual(reading.navigationPoints, [{ name: "Corner", grid: { x, y } }]);
      assert.deepEqual(watchedStateOf(status).position, { x, y, angle: 0 });
      assert.deepEqual(robotFactsOf(status).position, { x, y });
      assert.equal(cellsToPoint(reading, "Corner"), 0, "the robot stands on the point");
      const { placed, unplaced } = placeRobots([status], "floor-1", 100);
      assert.deepEqual([placed.map((robot) => [robot.x, robot.y]), unplaced], [[[x, 100 - y]], []]);
    });
  }

  it("reads a running task's progress (0-1) and time remaining (s) from the v1 executingTask, int64 strings too; B1's currentTask has neither", function () {
    const running = readStatus(
      onFloor({ taskState: "RUNNING", executingTask: { id: "t1", name: "All of Lobby", progress: 0.42, timeRemaining: "360" } }),
    );
    assert.equal(running.taskName, "All of Lobby");
    assert.equal(running.taskProgress, 0.42);
    assert.equal(running.timeRemaining, 360);
    const b1 = readStatus(onFloor({ taskState: "RUNNING", currentTask: { name: "All of Lobby" } }));
    assert.equal(b1.taskName, "All of Lobby");
    assert.equal("taskProgress" in b1 || "timeRemaining" in b1, false, "nothing made up where the status has no figures");
    const odd = readStatus(onFloor({ executingTask: { name: "x", progress: 1.02, timeRemaining: -3 } }));
    assert.deepEqual([odd.taskProgress, odd.timeRemaining], [1, 0], "kept within 0-1 and never below 0 s");
    const garbled = readStatus(onFloor({ executingTask: { name: "x", progress: "soon", timeRemaining: null } }));
    assert.deepEqual([garbled.taskProgress, garbled.timeRemaining], [undefined, undefined]);
  });

  it("reads the executable tasks with their maps, tells a status without a list from an empty one, and the fleet view and dispatch agree", function () {
    const listed = onFloor({
      executableTasks: [
        { id: "t1", name: "All of Lobby", map: { id: "floor-1", name: "Lobby" } },
        { id: "t2", name: "Stairs", map: { id: 7 } },
        { id: "t3", name: "Anywhere" },
        { id: "t4", name: " " },
        "not a task",
      ],
    });
    const tasks = executableTasksOf(listed);
    assert.deepEqual(tasks, [
      { name: "All of Lobby", mapId: "floor-1", mapName: "Lobby" },
      { name: "Stairs", mapId: "7" },
      { name: "Anywhere" },
    ]);
    assert.equal(executableTasksOf(onFloor({})), undefined, "the S-line status says nothing of tasks");
    assert.deepEqual(executableTasksOf(onFloor({ executableTasks: [] })), [], "the v1 status lists none");
    assert.deepEqual(
      executableTaskNames(listed, "floor-1"),
      ["All of Lobby", "Anywhere"],
      "the console offers the map's tasks and those of no map",
    );
    assert.deepEqual(robotFactsOf(listed).executableTasks, tasks, "dispatch reads them through the reader");
  });
});
