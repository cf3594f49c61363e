/** Temporary tasks: B3 on the robot's site, B4 straight to the robot, started like any task after the command delay. */
import { randomUUID } from "node:crypto";
import { checkArea, checkCleaningMode, mapById } from "./checks";
import type { SimMap, SimRobot } from "./fleet";
import { Code, SimError, invalid } from "../server/sim-errors";
import { nanoTimestamp } from "./values";
import { siteOf } from "./views";
import { notReadyFor } from "./readiness";
import type { Parsed, StartingTask, World } from "./world";

/** B4 result codes (docs/cloud-api.md: 2010100006-13 are refusals with published meanings; 6880 with cmdStatus 5 is accepted). */
export const TEMP_TASK_ACCEPTED = { cmdStatus: 5, cmdResultCode: "6880" } as const;
/** "Task parameters rejected (most often a wrong areaId ...)": an area or map name the robot does not have. */
export const TEMP_TASK_PARAMETERS_REJECTED = "2010100009";
/** "A temporary task is already there": the nearest published meaning for a robot busy with any task. */
export const TEMP_TASK_ROBOT_BUSY = "2010100012";
/** "The robot cannot switch sites in its state": the nearest published meaning for a robot offline, stopped, lost or low. */
export const TEMP_TASK_ROBOT_NOT_READY = "2010100013";
export const TEMP_TASK_REJECTED = 7;

/** B3: a temporary task on the robot's site. */
export function createTempSiteTask(
  world: World,
  robot: SimRobot,
  request: Parsed<"createTempSiteTask">,
  raw: unknown,
): Record<string, unknown> {
  requireStrings(raw, [
    ...request.floors.map((_, index) => ["floors", index, "area", "id"]),
    ...request.tasks.flatMap((task, index) => task.subTasks.map((_, sub) => ["tasks", index, "subTasks", sub, "areaId"])),
  ]);
  const site = siteOf(world.sites, robot);
  if (request.siteId !== site.id)
    throw invalid("siteId", `robot ${robot.serialNumber} is on site ${site.id} (${site.name}), not ${request.siteId}`);
  checkCleaningMode(robot, request.cleaningMode, "cleaningMode");
  request.floors.forEach((floor, index) => {
    const map = mapById(robot, floor.mapId, `floors.${index}.mapId`);
    checkArea(map, String(floor.area.id), `floors.${index}.area.id`);
  });
  const areaIds: string[] = [];
  let firstMap: SimMap | undefined;
  request.tasks.forEach((task, index) => {
    const map = mapById(robot, task.mapId, `tasks.${index}.mapId`);
    firstMap ??= map;
    task.subTasks.forEach((subTask, sub) => {
      const field = `tasks.${index}.subTasks.${sub}`;
      const subMap = mapById(robot, subTask.mapId, `${field}.mapId`);
      checkArea(subMap, String(subTask.areaId), `${field}.areaId`);
      areaIds.push(String(subTask.areaId));
    });
  });
  if (robot.taskState === "RUNNING" || robot.taskState === "PAUSED") {
    throw new SimError(
      Code.FAILED_PRECONDITION,
      `Robot ${robot.serialNumber} is busy with task "${robot.currentTask?.name ?? "unknown"}".`,
    );
  }
  const notReady = notReadyFor(robot);
  if (notReady) throw new SimError(Code.FAILED_PRECONDITION, `Robot ${robot.serialNumber} ${notReady}: it cannot start a task.`);
  const fault = world.taskFault();
  if (fault?.kind === "busy") throw new SimError(Code.FAILED_PRECONDITION, `Robot ${robot.serialNumber} is busy with another task.`);
  const taskId = randomUUID();
  const task = {
    name: request.taskName,
    source: "site_task",
    cleaningMode: request.cleaningMode,
    map: firstMap!,
    loop: request.loopCount > 1,
    loopCount: request.loopCount,
    areaIds,
    siteId: site.id,
  } as const;
  const idle = () => robot.taskState !== "RUNNING" && robot.taskState !== "PAUSED";
  world.accept(
    robot,
    () => {
      if (idle()) world.startTask(robot, task, taskId, fault);
    },
    () => {
      if (idle()) world.failToStart(robot, task, taskId);
    },
  );
  return {
    taskId,
    taskName: task.name,
    siteId: site.id,
    siteName: site.name,
    serialNumber: robot.serialNumber,
    state: "RUNNING",
    createTime: nanoTimestamp(world.now()),
  };
}

/** B4: accepted (cmdStatus 5) or refused by the robot (cmdStatus 7) under HTTP 200 (docs/cloud-api.md). */
export function sendTempTask(world: World, robot: SimRobot, request: Parsed<"sendTempTask">, raw: unknown): Record<string, unknown> {
  requireStrings(raw, [
    ["tempTaskCommand", "loop"],
    ["tempTaskCommand", "loopCount"],
    ["tempTaskCommand", "startParam", "areaId"],
  ]);
  const command = request.tempTaskCommand;
  checkCleaningMode(robot, command.cleaningMode, "tempTaskCommand.cleaningMode");
  const answer = (result: { cmdStatus: number; cmdResultCode: string }) => ({
    productId: robot.serialNumber,
    requestId: randomUUID(),
    orderType: "start_task",
    ...result,
  });
  const map = robot.maps.find((candidate) => candidate.id === command.startParam.mapId);
  const areaId = String(command.startParam.areaId);
  const reachable =
    map !== undefined && map.name === command.mapName && map.partitions.some((partition) => String(partition.id) === areaId);
  if (!reachable) return answer({ cmdStatus: TEMP_TASK_REJECTED, cmdResultCode: TEMP_TASK_PARAMETERS_REJECTED });
  if (robot.taskState === "RUNNING" || robot.taskState === "PAUSED") {
    return answer({ cmdStatus: TEMP_TASK_REJECTED, cmdResultCode: TEMP_TASK_ROBOT_BUSY });
  }
  if (notReadyFor(robot)) return answer({ cmdStatus: TEMP_TASK_REJECTED, cmdResultCode: TEMP_TASK_ROBOT_NOT_READY });
  const fault = world.taskFault();
  if (fault?.kind === "busy") return answer({ cmdStatus: TEMP_TASK_REJECTED, cmdResultCode: TEMP_TASK_ROBOT_BUSY });
  const loopCount = Number(command.loopCount);
  const starting: StartingTask = {
    name: command.taskName,
    source: "temp_task",
    cleaningMode: command.cleaningMode,
    map,
    loop: String(command.loop) === "true",
    loopCount,
    areaIds: [areaId],
  };
  const idle = () => robot.taskState !== "RUNNING" && robot.taskState !== "PAUSED";
  world.accept(
    robot,
    () => {
      if (idle()) world.startTask(robot, starting, undefined, fault);
    },
    () => {
      if (idle()) world.failToStart(robot, starting);
    },
  );
  return answer(TEMP_TASK_ACCEPTED);
}

/**
 * The real cloud parses B3 and B4 against protobuf string fields: a number or
 * boolean where a string belongs is refused (docs/cloud-api.md), although the
 * client's schema would turn it into a string. This checks the wire form.
 */
function requireStrings(raw: unknown, paths: (string | number)[][]): void {
  for (const path of paths) {
    let value: unknown = raw;
    for (const key of path) value = (value as Record<string | number, unknown> | undefined)?.[key];
    if (value !== undefined && typeof value !== "string") {
      throw invalid(path.join("."), `invalid value ${JSON.stringify(value)} for type TYPE_STRING`);
    }
  }
}
