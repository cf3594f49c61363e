/**
 * robot-command: submits one of the eleven commands of Endpoint A. msg.payload
 * may be the spec's request body, a compact {command, ...parameters} object, or
 * anything else (a sensor reading), in which case the node's command is sent.
 */
import type { Node, NodeAPI, NodeDef, NodeMessageInFlow } from "node-red";
import { COMMANDS, COMMAND_FAMILIES, COMMAND_TYPES, isCommandType, type CommandType } from "../api/commands";
import { invalidInput } from "../api/errors";
import type { CommandRequest } from "../api/schemas";
import { evaluateProperty, handleRobotInput, isPlainObject, resolveSerialNumber, type SerialNumberSetting } from "./robot-input";

export interface RobotCommandProperties extends NodeDef, SerialNumberSetting {
  robot: string;
  /** One of the eleven command types, or "" to take it from msg.command / msg.payload.command. */
  command: string;
  cleaningMode: string;
  taskName: string;
  taskNameType: string;
  map: string;
  mapType: string;
  loop: boolean;
  loopCount: string | number;
  position: string;
  positionType: string;
  direction: string;
}

/** The fields a compact payload may carry besides `command` and `serialNumber`. */
export const COMPACT_PARAMETER_FIELDS = ["cleaningMode", "taskName", "map", "loop", "loopCount", "position", "direction"] as const;
type CompactParameters = Partial<Record<(typeof COMPACT_PARAMETER_FIELDS)[number], unknown>>;
const COMPACT_FIELDS = new Set<string>(["command", "serialNumber", ...COMPACT_PARAMETER_FIELDS]);

/** Which compact fields each parameter object is built from. */
const FIELDS_OF_PARAMETER = {
  startTaskParameter: ["cleaningMode", "taskName", "map", "loop", "loopCount"],
  startNavigationParameter: ["map", "position"],
  controlMovingParameter: ["direction"],
} as const;

/** Builds the spec's request body for a command from flat parameters. */
export function buildCommandRequest(serialNumber: unknown, command: CommandType, p: CompactParameters): Record<string, unknown> {
  const { family, parameter } = COMMANDS[command];
  const body: Record<string, unknown> = { serialNumber, [family]: command };
  switch (parameter) {
    case "startTaskParameter":
      body.commandParameter = {
        startTaskParameter: {
          cleaningMode: p.cleaningMode,
          task: { name: p.taskName, map: p.map, loop: p.loop, loopCount: p.loopCount },
        },
      };
      break;
    case "startNavigationParameter":
      body.commandParameter = { startNavigationParameter: { map: p.map, position: p.position } };
      break;
    case "controlMovingParameter":
      // Directions are upper case on the wire (the cloud echoes them lower case).
      body.commandParameter = {
        controlMovingParameter: { direction: typeof p.direction === "string" ? p.direction.toUpperCase() : p.direction },
      };
      break;
    case undefined:
      break;
  }
  return body;
}

function isRawRequest(payload: unknown): payload is Record<string, unknown> {
  return isPlainObject(payload) && COMMAND_FAMILIES.some((family) => family in payload);
}

function isCompactRequest(payload: unknown): payload is Record<string, unknown> {
  return isPlainObject(payload) && "command" in payload;
}

function commandFrom(value: unknown, field: string): CommandType {
  const command = typeof value === "string" ? value.trim().toUpperCase() : value;
  if (!isCommandType(command)) {
    throw invalidInput(field, `must be one of ${COMMAND_TYPES.join(", ")} (got ${JSON.stringify(value)})`);
  }
  return command;
}

function loopCountOf(value: string | number | undefined): unknown {
  if (value === undefined || value === "") return 1;
  const count = Number(value);
  return Number.isFinite(count) ? count : value;
}

export default function registerRobotCommand(RED: NodeAPI): void {
  function RobotCommand(this: Node, config: RobotCommandProperties) {
    RED.nodes.createNode(this, config);
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the helpers below evaluate properties for this node
    const node = this;

    /** The node's own parameter values, evaluated for this message (only those the command needs). */
    async function configuredParameters(msg: NodeMessageInFlow, command: CommandType): Promise<CompactParameters> {
      const parameter = COMMANDS[command].parameter;
      const needed = new Set<string>(parameter ? FIELDS_OF_PARAMETER[parameter] : []);
      const values: CompactParameters = {};
      if (needed.has("cleaningMode")) values.cleaningMode = config.cleaningMode;
      if (needed.has("taskName")) values.taskName = await evaluateProperty(RED, node, msg, config.taskName, config.taskNameType);
      if (needed.has("map")) values.map = await evaluateProperty(RED, node, msg, config.map, config.mapType);
      if (needed.has("loop")) values.loop = Boolean(config.loop);
      if (needed.has("loopCount")) values.loopCount = loopCountOf(config.loopCount);
      if (needed.has("position")) values.position = await evaluateProperty(RED, node, msg, config.position, config.positionType);
      if (needed.has("direction")) values.direction = config.direction;
      return values;
    }

    const serialNumberFor = (msg: NodeMessageInFlow, fromPayload: unknown) =>
      resolveSerialNumber(RED, node, msg, fromPayload, config);

    async function requestFor(msg: NodeMessageInFlow): Promise<CommandRequest> {
      const payload = msg.payload;
      if (isRawRequest(payload)) {
        // The spec's body is sent as it is; only a missing serial number is filled in.
        return { ...payload, serialNumber: await serialNumberFor(msg, payload.serialNumber) } as CommandRequest;
      }
      if (isCompactRequest(payload)) {
        const unknown = Object.keys(payload).filter((key) => !COMPACT_FIELDS.has(key));
        if (unknown.length) {
          throw invalidInput(`payload.${unknown[0]}`, `is not a field of the compact form (use ${[...COMPACT_FIELDS].join(", ")})`);
        }
        const command = commandFrom(payload.command, "payload.command");
        const given = Object.fromEntries(Object.entries(payload).filter(([, value]) => value !== undefined));
        const parameters = { ...(await configuredParameters(msg, command)), ...given };
        return buildCommandRequest(await serialNumberFor(msg, payload.serialNumber), command, parameters) as CommandRequest;
      }
      const chosen = config.command || (msg as { command?: unknown }).command;
      if (chosen === undefined || chosen === "") {
        throw invalidInput("command", "no command is set in the node, in msg.command or in msg.payload.command");
      }
      const command = commandFrom(chosen, config.command ? "command" : "msg.command");
      return buildCommandRequest(await serialNumberFor(msg, undefined), command, await configuredParameters(msg, command)) as CommandRequest;
    }

    handleRobotInput(RED, node, config.robot, {
      run: async ({ msg, client, signal }) => client.submitCommand(await requestFor(msg), { signal }),
      statusText: (resource) => `${resource.rawCommandType ?? "command"}: ${resource.state}`,
    });
  }
  RED.nodes.registerType("robot-command", RobotCommand);
}
