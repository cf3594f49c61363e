/**
 * The request bodies of the cloud's commands (Endpoint A, and B4's temporary
 * task), built from flat parameter values. robot-command, the MQTT bridge
 * and a job's start all build their bodies here, so a body has one shape.
 */
import { COMMANDS, type CommandParameterName, type CommandType } from "./commands";

/** The command parameters a compact payload and robot-command's dialog speak of, flat. */
export const PARAMETER_FIELDS = ["cleaningMode", "taskName", "map", "loop", "loopCount", "position", "direction"] as const;
export type ParameterField = (typeof PARAMETER_FIELDS)[number];
export type ParameterValues = Partial<Record<ParameterField, unknown>>;

/**
 * Where each flat field sits inside its parameter object. This one table builds
 * the request, decides which dialog rows a command shows and turns a schema
 * error's path back into the name the user gave the value.
 */
export const FIELD_PATHS = {
  startTaskParameter: {
    cleaningMode: ["cleaningMode"],
    taskName: ["task", "name"],
    map: ["task", "map"],
    loop: ["task", "loop"],
    loopCount: ["task", "loopCount"],
  },
  startNavigationParameter: { map: ["map"], position: ["position"] },
  controlMovingParameter: { direction: ["direction"] },
} as const satisfies Record<CommandParameterName, Partial<Record<ParameterField, readonly string[]>>>;

/** The flat fields a command needs, in dialog order ([] for commands without parameters). */
export function fieldsOf(command: CommandType): ParameterField[] {
  const parameter = COMMANDS[command].parameter;
  return parameter ? (Object.keys(FIELD_PATHS[parameter]) as ParameterField[]) : [];
}

/** A task started without a loop setting runs once: START_TASK's defaults wherever a start names none. */
export const RUN_ONCE = { loop: false, loopCount: 1 } as const;

/** Builds the API's request body for a command from flat parameter values (robot-command's fields, the MQTT bridge's compact form). */
export function buildCommandRequest(serialNumber: unknown, command: CommandType, values: ParameterValues): Record<string, unknown> {
  const { family, parameter } = COMMANDS[command];
  const body: Record<string, unknown> = { serialNumber, [family]: command };
  if (parameter) {
    const object: Record<string, unknown> = {};
    for (const [field, path] of Object.entries(FIELD_PATHS[parameter]) as Array<[ParameterField, readonly string[]]>) {
      let parent = object;
      for (const key of path.slice(0, -1)) parent = (parent[key] ??= {}) as Record<string, unknown>;
      parent[path.at(-1)!] = values[field];
    }
    body.commandParameter = { [parameter]: object };
  }
  return body;
}

/** START_TASK of a task on a map, run once. */
export function startTaskBody(
  serialNumber: string,
  taskName: string,
  mapName: string,
  cleaningMode: string | undefined,
): Record<string, unknown> {
  return buildCommandRequest(serialNumber, "START_TASK", { cleaningMode, taskName, map: mapName, ...RUN_ONCE });
}

/** CROSS_NAVIGATE to a navigation point of a map. */
export function navigateBody(serialNumber: string, mapName: string, point: string): Record<string, unknown> {
  return buildCommandRequest(serialNumber, "CROSS_NAVIGATE", { map: mapName, position: point });
}

/** B4's temporary task over one area of a map, run once (its loop fields are strings: docs/cloud-api.md). */
export function areaTaskBody(
  serialNumber: string,
  taskName: string,
  cleaningMode: string | undefined,
  mapName: string,
  mapId: string,
  areaId: string,
): Record<string, unknown> {
  const [loop, loopCount] = [String(RUN_ONCE.loop), String(RUN_ONCE.loopCount)];
  return { productId: serialNumber, tempTaskCommand: { taskName, cleaningMode, loop, loopCount, mapName, startParam: { mapId, areaId } } };
}
