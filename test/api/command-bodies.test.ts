/** The command bodies robot-command, the MQTT bridge and a job's start send: one shape each, accepted by the request schemas. */
import assert from "node:assert/strict";
import { areaTaskBody, buildCommandRequest, navigateBody, RUN_ONCE, startTaskBody } from "../../src/api/cloud/command-bodies";
import { prepareCall } from "../../src/api/http/prepare";
import { planVacuumCommand, withRobotDefaults } from "../../src/api/mqtt/commands";
import type { RobotView } from "../../src/api/mqtt/robot-view";

const SERIAL = "GS-S-000101";

describe("command bodies", () => {
  it("a job's START_TASK runs its task once, as the request schema wants it", () => {
    const body = startTaskBody(SERIAL, "Lobby", "Floor 1", "__middle_cleaning");
    assert.deepEqual(body, {
      serialNumber: SERIAL,
      remoteTaskCommandType: "START_TASK",
      commandParameter: {
        startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Lobby", map: "Floor 1", loop: false, loopCount: 1 } },
      },
    });
    assert.doesNotThrow(() => prepareCall("submitCommand", body));
  });

  it("CROSS_NAVIGATE names the map and the point", () => {
    const body = navigateBody(SERIAL, "Floor 1", "Reception");
    assert.deepEqual(body, {
      serialNumber: SERIAL,
      remoteNavigationCommandType: "CROSS_NAVIGATE",
      commandParameter: { startNavigationParameter: { map: "Floor 1", position: "Reception" } },
    });
    assert.doesNotThrow(() => prepareCall("submitCommand", body));
  });

  it("an area's temporary task runs once, its loop fields as the strings B4 wants", () => {
    const body = areaTaskBody(SERIAL, "Spill", "__middle_cleaning", "Floor 1", "m1", "7");
    assert.deepEqual(body, {
      productId: SERIAL,
      tempTaskCommand: {
        taskName: "Spill",
        cleaningMode: "__middle_cleaning",
        loop: "false",
        loopCount: "1",
        mapName: "Floor 1",
        startParam: { mapId: "m1", areaId: "7" },
      },
    });
    assert.doesNotThrow(() => prepareCall("sendTempTask", body));
  });

  it("a command without parameters carries no commandParameter", () => {
    assert.deepEqual(buildCommandRequest(SERIAL, "STOP_TASK", { map: "ignored" }), {
      serialNumber: SERIAL,
      remoteTaskCommandType: "STOP_TASK",
    });
  });

  it("the MQTT bridge's starts take the same run-once defaults", () => {
    const view = {
      serialNumber: SERIAL,
      mapName: "Floor 1",
      state: { taskState: "IDLE" },
      cleaningModes: ["__middle_cleaning"],
    } as unknown as RobotView;
    const planned = planVacuumCommand("start", view, { task: { name: "Lobby", mapName: "Floor 1" }, cleaningMode: "__middle_cleaning" });
    assert.ok("command" in planned && planned.command === "START_TASK");
    assert.equal(planned.parameters.loop, RUN_ONCE.loop);
    assert.equal(planned.parameters.loopCount, RUN_ONCE.loopCount);
    const compact = withRobotDefaults({ command: "START_TASK", parameters: { taskName: "Lobby" } }, view, "__middle_cleaning");
    assert.deepEqual(
      buildCommandRequest(SERIAL, "START_TASK", compact.parameters),
      startTaskBody(SERIAL, "Lobby", "Floor 1", "__middle_cleaning"),
    );
  });
});
