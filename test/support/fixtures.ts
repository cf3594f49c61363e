/**
 * What the tests share: the robot, map and site they speak of, a node of
 * each robot type with every setting typed in, and the temporary-task bodies
 * (B3, B4) that the site-task dialog's default fields build.
 */
import type { CommandType } from "../../src/api/cloud/commands";
import type { RequestOf } from "../../src/api/cloud/endpoints";
import type { CommandRequest } from "../../src/api/cloud/schemas";
import type { FlowNode } from "./node-red";

export const SERIAL = "GS-S-000101";
export const MAP_ID = "6f1c0d8e-2b1a-4c7e-9d55-0a1b2c3d4e5f";
export const SITE_ID = "a3e1b7c2-55d0-4f0e-8c1e-9b2d7f6a1c00";

/** A robot-command on the config "config", wired to "out", sending START_TASK with typed-in settings. */
export function robotCommandNode(id: string, settings: Record<string, unknown> = {}): FlowNode {
  return {
    id,
    type: "robot-command",
    robot: "config",
    serialNumber: SERIAL,
    serialNumberType: "str",
    command: "START_TASK",
    cleaningMode: "__middle_cleaning",
    cleaningModeType: "str",
    taskName: "Lobby",
    taskNameType: "str",
    map: "Floor 1",
    mapType: "str",
    loop: "false",
    loopType: "bool",
    loopCount: "1",
    loopCountType: "num",
    position: "charging",
    positionType: "str",
    direction: "FORWARD",
    directionType: "direction",
    burst: "all",
    wires: [["out"]],
    ...settings,
  };
}

/** The navigation parameter of robotCommandNode's map and position. */
export const NAVIGATION = { startNavigationParameter: { map: "Floor 1", position: "charging" } };

/** The spec's request body of each command, for SERIAL with the parameters robotCommandNode types in. */
export const COMMAND_BODIES: Record<CommandType, CommandRequest> = {
  START_TASK: {
    serialNumber: SERIAL,
    remoteTaskCommandType: "START_TASK",
    commandParameter: {
      startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Lobby", map: "Floor 1", loop: false, loopCount: 1 } },
    },
  },
  PAUSE_TASK: { serialNumber: SERIAL, remoteTaskCommandType: "PAUSE_TASK" },
  RESUME_TASK: { serialNumber: SERIAL, remoteTaskCommandType: "RESUME_TASK" },
  STOP_TASK: { serialNumber: SERIAL, remoteTaskCommandType: "STOP_TASK" },
  CROSS_NAVIGATE: { serialNumber: SERIAL, remoteNavigationCommandType: "CROSS_NAVIGATE", commandParameter: NAVIGATION },
  PAUSE_NAVIGATE: { serialNumber: SERIAL, remoteNavigationCommandType: "PAUSE_NAVIGATE", commandParameter: NAVIGATION },
  RESUME_NAVIGATE: { serialNumber: SERIAL, remoteNavigationCommandType: "RESUME_NAVIGATE", commandParameter: NAVIGATION },
  STOP_NAVIGATE: { serialNumber: SERIAL, remoteNavigationCommandType: "STOP_NAVIGATE", commandParameter: NAVIGATION },
  REMOTE_CONTROL_START: { serialNumber: SERIAL, remoteControlCommandType: "REMOTE_CONTROL_START" },
  REMOTE_CONTROL_MOVE: {
    serialNumber: SERIAL,
    remoteControlCommandType: "REMOTE_CONTROL_MOVE",
    commandParameter: { controlMovingParameter: { direction: "FORWARD" } },
  },
  REMOTE_CONTROL_STOP: { serialNumber: SERIAL, remoteControlCommandType: "REMOTE_CONTROL_STOP" },
};

/** A robot-site-task on the config "config", wired to "out", asking B1 status; its dialog fields build the bodies below. */
export function robotSiteTaskNode(id: string, settings: Record<string, unknown> = {}): FlowNode {
  return {
    id,
    type: "robot-site-task",
    robot: "config",
    serialNumber: SERIAL,
    serialNumberType: "str",
    operation: "status",
    siteId: SITE_ID,
    siteIdType: "str",
    siteName: "Headquarters",
    siteNameType: "str",
    floorIndex: 0,
    floorName: "Floor 1",
    floorNameType: "str",
    mapId: MAP_ID,
    mapIdType: "str",
    mapName: "Floor 1",
    mapNameType: "str",
    areaId: "1",
    areaIdType: "str",
    areaName: "Lobby",
    areaNameType: "str",
    taskName: "Lobby clean",
    taskNameType: "str",
    cleaningMode: "清扫",
    loop: false,
    loopCount: 1,
    wires: [["out"]],
    ...settings,
  };
}

/** A robot-maps on the config "config", wired to "out", listing the robot's maps. */
export function robotMapsNode(id: string, settings: Record<string, unknown> = {}): FlowNode {
  return {
    id,
    type: "robot-maps",
    robot: "config",
    serialNumber: SERIAL,
    serialNumberType: "str",
    operation: "listMaps",
    mapId: MAP_ID,
    mapIdType: "str",
    wires: [["out"]],
    ...settings,
  };
}

/** A robot-status on the config "config", wired to "out" and "offline", reading one robot's v1 status (no watch). */
export function robotStatusNode(id: string, settings: Record<string, unknown> = {}): FlowNode {
  return {
    id,
    type: "robot-status",
    robot: "config",
    operation: "status",
    serialNumber: SERIAL,
    serialNumberType: "str",
    serialNumbers: "",
    fleetOutput: "each",
    line: "v1",
    watch: false,
    interval: 30,
    batteryStep: 10,
    batteryLow: 20,
    wires: [["out"], ["offline"]],
    ...settings,
  };
}

export const TEMP_SITE_TASK_BODY: RequestOf<"createTempSiteTask"> = {
  cleaningMode: "清扫",
  loopCount: 1,
  siteId: SITE_ID,
  siteName: "Headquarters",
  taskName: "Lobby clean",
  floors: [{ index: 0, name: "Floor 1", mapId: MAP_ID, area: { id: "1", name: "Lobby" } }],
  tasks: [{ mapId: MAP_ID, subTasks: [{ mapId: MAP_ID, areaId: "1" }] }],
  serialNumber: SERIAL,
};

export const TEMP_TASK_BODY: RequestOf<"sendTempTask"> = {
  productId: SERIAL,
  tempTaskCommand: {
    taskName: "Lobby clean",
    cleaningMode: "清扫",
    loop: "false",
    loopCount: "1",
    mapName: "Floor 1",
    startParam: { mapId: MAP_ID, areaId: "1" },
  },
};
