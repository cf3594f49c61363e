/**
 * The eleven commands of Endpoint A as data: which family field names them and
 * which parameter object (if any) they carry. Client, nodes, editor and
 * simulator all read this one list.
 */

export const COMMAND_FAMILIES = ["remoteTaskCommandType", "remoteNavigationCommandType", "remoteControlCommandType"] as const;
export type CommandFamily = (typeof COMMAND_FAMILIES)[number];

export const COMMAND_PARAMETERS = ["startTaskParameter", "startNavigationParameter", "controlMovingParameter"] as const;
export type CommandParameterName = (typeof COMMAND_PARAMETERS)[number];

interface CommandSpec {
  family: CommandFamily;
  parameter: CommandParameterName | undefined;
}

export const COMMANDS = {
  START_TASK: { family: "remoteTaskCommandType", parameter: "startTaskParameter" },
  PAUSE_TASK: { family: "remoteTaskCommandType", parameter: undefined },
  RESUME_TASK: { family: "remoteTaskCommandType", parameter: undefined },
  STOP_TASK: { family: "remoteTaskCommandType", parameter: undefined },
  CROSS_NAVIGATE: { family: "remoteNavigationCommandType", parameter: "startNavigationParameter" },
  PAUSE_NAVIGATE: { family: "remoteNavigationCommandType", parameter: "startNavigationParameter" },
  RESUME_NAVIGATE: { family: "remoteNavigationCommandType", parameter: "startNavigationParameter" },
  STOP_NAVIGATE: { family: "remoteNavigationCommandType", parameter: "startNavigationParameter" },
  REMOTE_CONTROL_START: { family: "remoteControlCommandType", parameter: undefined },
  REMOTE_CONTROL_MOVE: { family: "remoteControlCommandType", parameter: "controlMovingParameter" },
  REMOTE_CONTROL_STOP: { family: "remoteControlCommandType", parameter: undefined },
} as const satisfies Record<string, CommandSpec>;

export type CommandType = keyof typeof COMMANDS;
export const COMMAND_TYPES = Object.keys(COMMANDS) as CommandType[];

export function commandsOfFamily(family: CommandFamily): CommandType[] {
  return COMMAND_TYPES.filter((type) => COMMANDS[type].family === family);
}

/** Directions of REMOTE_CONTROL_MOVE seen in public clients (docs/cloud-api.md). */
export const MOVE_DIRECTIONS = ["FORWARD", "BACKWARD", "LEFT", "RIGHT"] as const;
export type MoveDirection = (typeof MOVE_DIRECTIONS)[number];

export function isCommandType(value: unknown): value is CommandType {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(COMMANDS, value);
}

/** Commands that stop motion: they go ahead of every waiting call (a stop never waits behind status reads). */
export const MOTION_STOPPING_COMMANDS: ReadonlySet<CommandType> = new Set<CommandType>([
  "STOP_TASK",
  "PAUSE_TASK",
  "STOP_NAVIGATE",
  "PAUSE_NAVIGATE",
  "REMOTE_CONTROL_STOP",
]);

/** The command type a request body names in whichever family field it uses. */
export function commandTypeOf(body: Partial<Record<CommandFamily, string>>): string | undefined {
  return body.remoteTaskCommandType ?? body.remoteNavigationCommandType ?? body.remoteControlCommandType;
}

/** The navigation point every robot's charger is: going to the charger is CROSS_NAVIGATE to it (docs/cloud-api.md). */
export const CHARGING_POINT = "charging";
