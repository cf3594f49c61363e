/**
 * robot-command's tables: its parameter fields and where they sit in a
 * request, their dialog types, and the burst policies. The node and the
 * editor's tables (editor-tables.ts) both read them; neither imports the other.
 */
import type { NumberSetting } from "../../api/settings/input-rules";
import { COMMANDS, type CommandParameterName, type CommandType } from "../../api/cloud/commands";

/** How many times a task runs when looped; an empty field runs it once. The request schema's count: whole, 0 or more. */
export const LOOP_COUNT = { default: 1, min: 0, integer: true, unit: "" } as const satisfies NumberSetting;

/** The command parameters a compact payload and the dialog speak of, flat. */
export const PARAMETER_FIELDS = ["cleaningMode", "taskName", "map", "loop", "loopCount", "position", "direction"] as const;
export type ParameterField = (typeof PARAMETER_FIELDS)[number];

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

/** What each field is when typed straight into the dialog (its TypedInput's own type). */
export const LITERAL_TYPE: Record<ParameterField, "str" | "num" | "bool" | "direction"> = {
  cleaningMode: "str",
  taskName: "str",
  map: "str",
  loop: "bool",
  loopCount: "num",
  position: "str",
  direction: "direction",
};

/**
 * What a node does with a message for a robot that already has one pending:
 * send it too, skip it while the earlier one is pending, or let it replace
 * the earlier one while that still waits in the queue.
 */
export const BURST_POLICIES = ["all", "skip", "latest"] as const;
export type BurstPolicy = (typeof BURST_POLICIES)[number];

export type ParameterValues = Partial<Record<ParameterField, unknown>>;

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
