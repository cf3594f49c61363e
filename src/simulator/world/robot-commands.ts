/** Endpoint A: commands, what each one checks when it is submitted, and its effect on the robot. */
import { randomUUID } from "node:crypto";
import { commandTypeOf, type CommandType } from "../../api/cloud/commands";
import type { CommandResource } from "../../api/cloud/schemas";
import { checkCleaningMode, mapByIdOrName, names } from "./checks";
import type { AccountSeed, SimMap, SimRobot } from "./fleet";
import { normalizeAngle } from "../maps/geometry";
import { Code, SimError, invalid } from "../server/sim-errors";
import { TASK_END_STATUS } from "./task-reports";
import { milliTimestamp, nanoTimestamp, round } from "./values";
import { currentMap } from "./views";
import type { Parsed, StartingTask, World } from "./world";

/** Every command resource says so (docs/cloud-api.md); its unit is not documented. */
export const START_DELAY = 1800000;

/** Lower-cases the enumerated values of a command parameter (docs/cloud-api.md); cleaningMode and names stay. */
function echoParameter(parameter: NonNullable<Parsed<"submitCommand">["commandParameter"]>): Record<string, unknown> {
  const echo: Record<string, unknown> = {};
  if (parameter.startTaskParameter) {
    const { cleaningMode, task } = parameter.startTaskParameter;
    echo.startTaskParameter = { cleaningMode, task: { ...task, subTasks: [] } };
  }
  if (parameter.startNavigationParameter) echo.startNavigationParameter = { ...parameter.startNavigationParameter };
  if (parameter.controlMovingParameter) {
    echo.controlMovingParameter = { direction: parameter.controlMovingParameter.direction.toLowerCase() };
  }
  return echo;
}

/**
 * The areas a START_TASK cleans, by the task's name: the executable tasks
 * (views.ts, executableTasksOf) are the whole map and each area on its own,
 * named as the area, so a task named as an area of its map cleans that area
 * only; any other name (the whole map's task among them) cleans every area.
 */
export function areaIdsOfTask(map: SimMap, taskName: string): string[] {
  const area = map.partitions.find((partition) => partition.name === taskName);
  return area ? [String(area.id)] : [];
}

/** A remote-control step: 10 pixels (0.5 m) forward or back, or a turn of 15 degrees. */
const REMOTE_STEP_PIXELS = 10;
const REMOTE_TURN_DEGREES = 15;

/** A command's effect on the robot, and for a task start what happens when the robot hears it but cannot act. */
type Effect = (() => void) & { cannotAct?: () => void };

/** Endpoint A: a command stored with its id and state WAITING; its effect comes after the command delay. */
export function submitCommand(world: World, robot: SimRobot, request: Parsed<"submitCommand">, account: AccountSeed): CommandResource {
  // The request schema guarantees exactly one family field, of a known type.
  const type = commandTypeOf(request) as CommandType;
  const effect = planCommand(world, robot, type, request.commandParameter);
  const now = world.now();
  const id = randomUUID();
  const createTime = nanoTimestamp(now);
  const resource: CommandResource = {
    name: `robots/${robot.serialNumber}/commands/${id}`,
    parent: `robots/${robot.serialNumber}`,
    commandParameter: request.commandParameter ? echoParameter(request.commandParameter) : {},
    state: "WAITING",
    serialNumber: robot.serialNumber,
    user: account.userId,
    createTime,
    updateTime: createTime,
    startTime: milliTimestamp(now),
    startDelay: START_DELAY,
    rawCommandType: type.toLowerCase(),
  };
  const stored = world.commands.get(robot.serialNumber)!;
  stored.set(id, resource);
  while (stored.size > world.maxCommandsPerRobot) stored.delete(stored.keys().next().value!);
  world.accept(robot, effect, effect.cannotAct);
  return structuredClone(resource);
}

/** A command read back by its id. */
export function readCommand(world: World, robot: SimRobot, commandId: string): CommandResource {
  const resource = world.commands.get(robot.serialNumber)?.get(commandId);
  if (!resource) throw new SimError(Code.NOT_FOUND, `Command ${commandId} of robot ${robot.serialNumber} not found.`);
  return structuredClone(resource);
}

/**
 * Checks a command against the robot and returns its effect. A robot busy
 * with a task when the effect is due ignores new task or navigation starts:
 * the command is still accepted (WAITING), and the status shows that nothing
 * started (docs/cloud-api.md). A task start the robot cannot carry out
 * (battery low, emergency stop, lost) ends as a report of a task that failed
 * to start.
 */
function planCommand(world: World, robot: SimRobot, type: CommandType, parameter: Parsed<"submitCommand">["commandParameter"]): Effect {
  const busy = () => robot.taskState === "RUNNING" || robot.taskState === "PAUSED";
  switch (type) {
    case "START_TASK": {
      const { cleaningMode, task } = parameter!.startTaskParameter!;
      const field = "commandParameter.startTaskParameter";
      const map = mapByIdOrName(robot, task.map, `${field}.task.map`);
      checkCleaningMode(robot, cleaningMode, `${field}.cleaningMode`);
      const starting: StartingTask = {
        name: task.name,
        source: "command",
        cleaningMode,
        map,
        loop: task.loop,
        loopCount: task.loopCount,
        areaIds: areaIdsOfTask(map, task.name),
      };
      // A start that the task fault makes busy is heard and not carried out: a report that it failed to start.
      const fault = world.taskFault();
      const apply = () => {
        if (busy()) return;
        if (fault?.kind === "busy") world.failToStart(robot, starting);
        else world.startTask(robot, starting, undefined, fault);
      };
      return Object.assign(apply, {
        cannotAct: () => {
          if (!busy()) world.failToStart(robot, starting);
        },
      });
    }
    case "PAUSE_TASK":
      return () => {
        if (robot.taskState === "RUNNING") robot.taskState = "PAUSED";
      };
    case "RESUME_TASK":
      return () => {
        if (robot.taskState === "PAUSED") robot.taskState = "RUNNING";
      };
    case "STOP_TASK":
      return () => {
        if (!busy()) return;
        world.finishTask(robot, TASK_END_STATUS.STOPPED);
      };
    case "CROSS_NAVIGATE":
    case "PAUSE_NAVIGATE":
    case "RESUME_NAVIGATE":
    case "STOP_NAVIGATE": {
      const { map: mapName, position } = parameter!.startNavigationParameter!;
      const field = "commandParameter.startNavigationParameter";
      const map = robot.maps.find((candidate) => candidate.name === mapName);
      if (!map) throw invalid(`${field}.map`, `"${mapName}" is not a map name of robot ${robot.serialNumber} (${names(robot.maps)})`);
      const point = map.navigationPoints.find((candidate) => candidate.name === position);
      if (!point) {
        throw invalid(`${field}.position`, `no navigation point "${position}" on map ${map.name} (${names(map.navigationPoints)})`);
      }
      // A navigation takes navigationMs (at once when 0); a paused one keeps the time it still needs.
      return () => {
        const motion = world.motionOf(robot);
        const now = world.now();
        if (type === "CROSS_NAVIGATE" || type === "RESUME_NAVIGATE") {
          if (busy()) return;
          const resuming = type === "RESUME_NAVIGATE" && robot.navigation?.state === "PAUSED" && motion.navigation?.point === point;
          // A resumed navigation goes on from where it was paused, in the time it still needed.
          world.navigate(robot, map, point, resuming ? motion.navigation!.remainingMs : world.timing.navigationMs);
        } else if (robot.navigation) {
          const navigation = motion.navigation;
          if (type === "PAUSE_NAVIGATE" && navigation?.arriveAt !== undefined) {
            navigation.remainingMs = Math.max(0, navigation.arriveAt - now);
            navigation.arriveAt = undefined;
          }
          if (type === "STOP_NAVIGATE") motion.navigation = undefined;
          robot.navigation.state = type === "PAUSE_NAVIGATE" ? "PAUSED" : "STOPPED";
        }
      };
    }
    case "REMOTE_CONTROL_START":
      return () => {
        robot.remoteControl = true;
      };
    case "REMOTE_CONTROL_MOVE": {
      if (!robot.remoteControl) {
        throw new SimError(Code.FAILED_PRECONDITION, "Remote control is not started: send REMOTE_CONTROL_START first.");
      }
      const direction = parameter!.controlMovingParameter!.direction;
      return () => {
        const position = robot.localization.position;
        if (direction === "LEFT" || direction === "RIGHT") {
          // Counter-clockwise is to the left (angles count that way, bottom-up).
          position.angle = round(normalizeAngle(position.angle + (direction === "LEFT" ? REMOTE_TURN_DEGREES : -REMOTE_TURN_DEGREES)));
          return;
        }
        const step = direction === "FORWARD" ? REMOTE_STEP_PIXELS : -REMOTE_STEP_PIXELS;
        const radians = (position.angle * Math.PI) / 180;
        // Never off the map's image.
        const map = currentMap(robot);
        position.x = round(Math.min(map.width - 1, Math.max(0, position.x + step * Math.cos(radians))));
        position.y = round(Math.min(map.height, Math.max(1, position.y + step * Math.sin(radians))));
        robot.battery.charging = false;
      };
    }
    case "REMOTE_CONTROL_STOP":
      return () => {
        robot.remoteControl = false;
      };
  }
}
