/**
 * robot-command: submits one of the eleven commands of Endpoint A. msg.payload
 * may be the API's request body, a compact {command, ...parameters} object, an
 * action ({action: "pause"}, checked against the robot's state first), or
 * anything else (a sensor reading), in which case the node's command is sent.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage } from "node-red";
import { COMMAND_FAMILIES, COMMAND_TYPES, commandTypeOf, isCommandType, type CommandParameterName, type CommandType } from "../../api/cloud/commands";
import type { PreparedCall } from "../../api/client";
import { clientModule } from "../shared/api";
import { commandConfirmationRule, type CommandBody } from "../../api/watching/confirmation";
import { invalidInput } from "../../api/errors";
import type { CommandResource } from "../../api/cloud/schemas";
import { configuredConfirmTimeout, confirmOnRobot, messageWithConfirmation, startFactsOf, type Confirmation } from "../shared/confirm";
import { isPlainObject } from "../shared/plain-data";
import { REPLACED, SKIPPED, NoOutput } from "../shared/no-output";
import { handleRobotInput, type RobotCall } from "../shared/robot-input";
import { chooseSetting, evaluateProperty, isTicked, resolveSerialNumber, serialNumberField, type SerialNumberSetting } from "../shared/settings";
import { FIELD_PATHS, PARAMETER_FIELDS, buildCommandRequest, fieldsOf, type ParameterField, type ParameterValues } from "../../api/cloud/command-bodies";
import { BURST_POLICIES, LITERAL_TYPE, LOOP_COUNT } from "./table";
import { SEND_WHEN } from "../shared/confirm-table";
import { cloudWord } from "../shared/status-text";
import type { Translate } from "../shared/i18n";
import { commandForAction, isActionPayload } from "./action";
import type { RobotAction } from "../../api/watching/robot-actions";
import { stopTaskBeforeCharger } from "../../api/watching/to-charger";
import type { StatusReading } from "../../api/watching/status-reader";
import { inputProblem, notOneOf } from "../../api/settings/input-problems";



/** Fields of the compact payload besides the parameters; `name` is accepted for taskName. */
const COMPACT_EXTRA_FIELDS = ["command", "serialNumber", "name"] as const;
const COMPACT_FIELDS = new Set<string>([...COMPACT_EXTRA_FIELDS, ...PARAMETER_FIELDS]);


/** What a message ends with: the command resource and, when asked for, its confirmation. */
export interface Submitted {
  resource: CommandResource;
  confirmation?: Confirmation;
}

export interface RobotCommandProperties extends NodeDef, SerialNumberSetting {
  robot: string;
  /** One of SEND_WHEN; flows saved before it existed send when accepted. */
  sendWhen?: string;
  /** Seconds to wait for the robot to show the command; empty: 120. */
  confirmTimeout?: string | number;
  /** One of BURST_POLICIES; flows saved before it existed send every message. */
  burst?: string;
  /** One of the eleven command types, or "" to take it from msg.command. */
  command: string;
  cleaningMode: string;
  cleaningModeType?: string;
  taskName: string;
  taskNameType?: string;
  map: string;
  mapType?: string;
  /** A checkbox's boolean in flows saved before loop became a TypedInput; "true"/"false" since. */
  loop: boolean | string;
  loopType?: string;
  loopCount: string | number;
  loopCountType?: string;
  position: string;
  positionType?: string;
  direction: string;
  directionType?: string;
  /** A second output that says "sent" once the cloud accepted the command; flows saved before it have one output. */
  sentOutput?: boolean | string;
}


/** The flat field a request path stands for, e.g. commandParameter.startTaskParameter.task.name is taskName. */
function fieldAtPath(path: readonly PropertyKey[]): ParameterField | "serialNumber" | undefined {
  if (path.length === 1 && path[0] === "serialNumber") return "serialNumber";
  if (path[0] !== "commandParameter") return undefined;
  const parameter = path[1] as CommandParameterName;
  if (!Object.prototype.hasOwnProperty.call(FIELD_PATHS, parameter)) return undefined;
  const inner = path.slice(2).join(".");
  const paths: Partial<Record<ParameterField, readonly string[]>> = FIELD_PATHS[parameter];
  return PARAMETER_FIELDS.find((field) => paths[field]?.join(".") === inner);
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let value = body;
  for (const key of path) value = isPlainObject(value) ? value[key as string] : undefined;
  return value;
}

type PreparedCommand = PreparedCall<"submitCommand">;

/**
 * Checks a request body with the API's schema (the one check before it is
 * sent), naming each bad value where the user gave it (payload.map,
 * msg.serialNumber, the node's map, ...) rather than by its place in the request.
 */
function checkRequest(body: Record<string, unknown>, nameOf: (path: readonly PropertyKey[]) => string, needer: string): PreparedCommand {
  return clientModule().prepareCall("submitCommand", body, {
    nameOf,
    restate: (issue, path) => {
      if (issue.code === "unrecognized_keys") return "is not a field of the request body";
      if (issue.code === "invalid_type" && valueAt(body, path) === undefined) return inputProblem("notSetFor", { needer });
      return undefined;
    },
  });
}


function isSpecBody(payload: unknown): payload is Record<string, unknown> {
  return isPlainObject(payload) && COMMAND_FAMILIES.some((family) => family in payload);
}

function isCompactCommand(payload: unknown): payload is Record<string, unknown> {
  return isPlainObject(payload) && "command" in payload;
}

/** A command type given as text, in any case ("cross_navigate" is CROSS_NAVIGATE). */
function commandFrom(value: unknown, field: string): CommandType {
  const command = typeof value === "string" ? value.trim().toUpperCase() : value;
  if (!isCommandType(command)) {
    throw invalidInput(field, notOneOf(COMMAND_TYPES, value));
  }
  return command;
}

/** Directions are upper case on the wire (the cloud echoes them lower case); any case is accepted from users. */
function normaliseDirection(value: unknown): unknown {
  return typeof value === "string" ? value.trim().toUpperCase() : value;
}

/**
 * Text from env variables (and the dialog) holding a boolean or a whole number
 * is read as one; anything else is left for the schema to reject by name.
 */
function coerce(value: unknown, literal: (typeof LITERAL_TYPE)[ParameterField]): unknown {
  if (typeof value !== "string") return value;
  if (literal === "bool" && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === "true";
  if (literal === "num" && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return value;
}

/** A robot's messages pending in one node, for its burst policy. */
interface RobotPending {
  count: number;
  /** Withdraws the newest message while it still waits (latest wins); undefined once it was sent. */
  withdrawWaiting: (() => boolean) | undefined;
}

/**
 * What a confirmation showed (msg.confirmation.state: "RUNNING", "ARRIVED at
 * Lobby", "remote control on", ...) in the runtime's language; a state the
 * catalogue does not know, as it is.
 */
function confirmedWord(t: Translate, state: string): string {
  const arrivedAt = /^ARRIVED at (.+)$/.exec(state);
  if (arrivedAt) return t("confirmedStates.arrivedAt", { point: arrivedAt[1]! });
  return cloudWord(t, "confirmedStates", state.replace(/^remote control (on|off)$/, (_, on: string) => (on === "on" ? "remoteControlOn" : "remoteControlOff")));
}

function setUpRobotCommand(RED: NodeAPI, node: Node, config: RobotCommandProperties): void {
  const typeOf = (field: ParameterField | "serialNumber"): string | undefined => config[`${field}Type`];
  const pendingByRobot = new Map<string, RobotPending>();

  /** How a node setting is named in errors: "map", or "map (msg.place)" when it comes from elsewhere. */
  function settingName(field: ParameterField | "serialNumber"): string {
    const type = typeOf(field);
    const literal = field === "serialNumber" ? "str" : LITERAL_TYPE[field];
    if (!type || type === literal || type === "str") return field;
    return `${field} (${type}.${String(config[field])})`;
  }

  /** One of the node's parameter settings, evaluated for this message. */
  async function setting(call: RobotCall, field: ParameterField): Promise<unknown> {
    const literal = LITERAL_TYPE[field];
    const type = typeOf(field) || literal;
    const raw = config[field];
    let value: unknown;
    if (type === literal || type === "str") {
      // Flows saved before these fields were TypedInputs hold plain values (loop as a checkbox boolean).
      if (field === "loop") value = isTicked(raw);
      else if (field === "loopCount") value = raw === undefined || raw === "" ? LOOP_COUNT.default : raw;
      else value = raw === "" ? undefined : raw;
    } else {
      value = await evaluateProperty(RED, node, call.msg, String(raw ?? ""), type, settingName(field));
    }
    value = coerce(value, literal);
    return field === "direction" ? normaliseDirection(value) : value;
  }

  async function settings(call: RobotCall, fields: readonly ParameterField[]): Promise<ParameterValues> {
    const values: ParameterValues = {};
    for (const field of fields) values[field] = await setting(call, field);
    return values;
  }

  /** The robot's serial number (payload, then msg.serialNumber, then the node) and how to name it in errors. */
  async function serialNumberFor(call: RobotCall, fromPayload: unknown): Promise<{ value: unknown; name: string }> {
    const name = serialNumberField(call, fromPayload, { node: settingName("serialNumber") });
    return { value: await resolveSerialNumber(RED, node, call, fromPayload, config, name), name };
  }

  /** Form 1: the API's body, checked and sent unchanged (a missing serialNumber is filled in). */
  async function fromSpecBody(call: RobotCall, payload: Record<string, unknown>): Promise<PreparedCommand> {
    const serial = await serialNumberFor(call, payload.serialNumber);
    const body = { ...payload, serialNumber: serial.value };
    const family = COMMAND_FAMILIES.find((name) => payload[name] !== undefined);
    // The command's name as given, for the error text only; anything but a string is the schema's to refuse.
    const named = family ? payload[family] : undefined;
    const needer = typeof named === "string" ? named : "the command";
    return checkRequest(body, (path) => (path.length === 1 && path[0] === "serialNumber" ? serial.name : ["payload", ...path].join(".")), needer);
  }

  /** Form 2: {command, serialNumber?, ...parameters}; a parameter left out comes from the node. */
  async function fromCompact(call: RobotCall, payload: Record<string, unknown>): Promise<PreparedCommand> {
    const unknown = Object.keys(payload).find((key) => !COMPACT_FIELDS.has(key));
    if (unknown !== undefined) {
      throw invalidInput(`payload.${unknown}`, `is not a field of the compact form (use ${[...COMPACT_FIELDS].join(", ")})`);
    }
    const command = commandFrom(payload.command, "payload.command");
    if (payload.name !== undefined && payload.taskName !== undefined) {
      throw invalidInput("payload.name", "give the task name as taskName or as name, not both");
    }
    const given: ParameterValues = {};
    for (const field of PARAMETER_FIELDS) if (payload[field] !== undefined) given[field] = payload[field];
    if (payload.name !== undefined) given.taskName = payload.name;
    if (given.direction !== undefined) given.direction = normaliseDirection(given.direction);

    const needed = fieldsOf(command);
    const unused = (Object.keys(given) as ParameterField[]).find((field) => !needed.includes(field));
    if (unused !== undefined) {
      const shown = unused === "taskName" && payload.name !== undefined ? "name" : unused;
      const takes = needed.length ? `it takes ${needed.join(", ")}` : "it takes no parameters";
      throw invalidInput(`payload.${shown}`, `is not used by ${command} (${takes})`);
    }
    const fromNode = needed.filter((field) => given[field] === undefined);
    const values = { ...(await settings(call, fromNode)), ...given };
    const serial = await serialNumberFor(call, payload.serialNumber);
    const nameOf = (path: readonly PropertyKey[]) => {
      const field = fieldAtPath(path);
      if (field === "serialNumber") return serial.name;
      if (field === undefined) return path.join(".");
      if (field === "taskName" && payload.name !== undefined) return "payload.name";
      return fromNode.includes(field) ? settingName(field) : `payload.${field}`;
    };
    return checkRequest(buildCommandRequest(serial.value, command, values), nameOf, command);
  }

  /** Form 4: an action ({action, point?, task?, map?}), allowed or refused by the robot's last status. */
  async function fromAction(
    call: RobotCall,
    payload: Record<string, unknown>,
  ): Promise<{ prepared: PreparedCommand; action: RobotAction; state: StatusReading }> {
    const serial = await serialNumberFor(call, payload.serialNumber);
    if (typeof serial.value !== "string" || serial.value.trim() === "") throw invalidInput(serial.name, inputProblem("actionSerialNumberNotSet"));
    const { action, command, values, state } = await commandForAction(call, payload, serial.value, () => setting(call, "cleaningMode"));
    const nameOf = (path: readonly PropertyKey[]) => {
      const field = fieldAtPath(path);
      if (field === "serialNumber") return serial.name;
      if (field === "taskName") return "payload.task";
      if (field === "position") return action === "goTo" ? "payload.point" : "the robot's navigation point";
      if (field === "map") return payload.map !== undefined ? "payload.map" : "payload.map (the robot's status names no map)";
      return field === undefined ? path.join(".") : settingName(field);
    };
    return { prepared: checkRequest(buildCommandRequest(serial.value, command, values), nameOf, action), action, state };
  }

  /** Form 3: any other payload triggers the node's command (or msg.command when the node has none). */
  async function fromSettings(call: RobotCall): Promise<PreparedCommand> {
    const fromMsg = call.input.command;
    if (!config.command && (fromMsg === undefined || fromMsg === "")) {
      throw invalidInput("command", "no command is set in the node, in msg.command or in msg.payload.command");
    }
    const command = config.command ? commandFrom(config.command, "command") : commandFrom(fromMsg, "msg.command");
    const values = await settings(call, fieldsOf(command));
    // A payload that is not a command (a sensor reading) never names the robot: its serialNumber may be the sensor's.
    const serial = await serialNumberFor(call, undefined);
    const nameOf = (path: readonly PropertyKey[]) => {
      const field = fieldAtPath(path);
      if (field === "serialNumber") return serial.name;
      return field === undefined ? path.join(".") : settingName(field);
    };
    return checkRequest(buildCommandRequest(serial.value, command, values), nameOf, command);
  }

  /**
   * Form 3 with the node's command and every setting it uses typed in: the
   * request is the same for every message (the sensor-trigger case), so it is
   * built and checked once and then reused. A failure is not kept: each
   * message still gets its own error.
   */
  const settingsAreFixed =
    config.command !== "" &&
    isCommandType(config.command) &&
    [...fieldsOf(config.command), "serialNumber" as const].every((field) => {
      const type = typeOf(field);
      return !type || type === "str" || (field !== "serialNumber" && type === LITERAL_TYPE[field]);
    });
  let fixedRequest: Promise<PreparedCommand> | undefined;

  function requestFor(call: RobotCall): Promise<PreparedCommand> {
    const payload = call.input.payload;
    if (isSpecBody(payload)) return fromSpecBody(call, payload);
    if (isCompactCommand(payload)) return fromCompact(call, payload);
    if (!settingsAreFixed || call.input.serialNumber !== undefined) return fromSettings(call);
    fixedRequest ??= fromSettings(call).catch((error: unknown) => {
      fixedRequest = undefined;
      throw error;
    });
    return fixedRequest;
  }

  const confirmTimeout = configuredConfirmTimeout(config.confirmTimeout);

  /** Sends the command, and when asked waits for the robot to show it. */
  async function submitAndConfirm(call: RobotCall): Promise<Submitted | NoOutput> {
    const sendWhen = chooseSetting(call.input, "sendWhen", config.sendWhen || "accepted", SEND_WHEN);
    const timeoutMs = sendWhen === "shown" ? confirmTimeout() : 0;
    const payload = call.input.payload;
    const asAction = isActionPayload(payload) ? await fromAction(call, payload) : undefined;
    const prepared = asAction?.prepared ?? (await requestFor(call));
    const body = JSON.parse(prepared.body!) as CommandBody;
    // A task start's report settles it too: the reports kept before it is sent are not its task's.
    const start = sendWhen === "shown" && commandTypeOf(body) === "START_TASK" ? startFactsOf(call.client, prepared.serialNumber!) : undefined;
    if (asAction?.action === "toCharger") {
      // A cleaning robot ignores the way to its charger: its task is stopped, and the stop confirmed, first.
      const stopping = { timeoutMs: confirmTimeout(), signal: call.options.signal, operation: "toCharger" };
      await call.waitForRobot(stopTaskBeforeCharger(call.client, prepared.serialNumber!, asAction.state, stopping));
    }
    return submit(call, prepared, asAction?.action, async (resource) => {
      if (sendWhen === "accepted") return { resource };
      const rule = commandConfirmationRule(body, call.client.arrivalRadius);
      return { resource, confirmation: await confirmOnRobot(call, prepared.serialNumber!, rule, timeoutMs, "submitCommand", undefined, start) };
    });
  }

  /**
   * Sends the command as the message's burst policy says, or says why it was
   * not sent. The message stays pending for its robot until `finish` (the
   * confirmation) ends: "skip" also skips while the robot is being watched.
   */
  async function submit(
    call: RobotCall,
    prepared: PreparedCommand,
    action: RobotAction | undefined,
    finish: (resource: CommandResource) => Promise<Submitted>,
  ): Promise<Submitted | NoOutput> {
    const accepted = (resource: CommandResource): Promise<Submitted> => {
      if (sentOutput) call.sendEarly([null, sentMessage(call, prepared, resource, action)]);
      return finish(resource);
    };
    // Flows saved before the setting existed send every message.
    const policy = chooseSetting(call.input, "burst", config.burst || "all", BURST_POLICIES);
    if (policy === "all") return accepted(await call.client.send(prepared, call.options));

    const robot = prepared.serialNumber!;
    const earlier = pendingByRobot.get(robot);
    if (earlier && policy === "skip") return SKIPPED;
    if (earlier && policy === "latest") earlier.withdrawWaiting?.();
    const entry: RobotPending = earlier ?? { count: 0, withdrawWaiting: undefined };
    pendingByRobot.set(robot, entry);
    entry.count++;
    let withdrawn = false;
    let withdrawThis: (() => boolean) | undefined;
    try {
      let resource: CommandResource;
      try {
        resource = await call.client.send(prepared, {
          ...call.options,
          onQueued: (take) => {
            withdrawThis = () => (withdrawn = take());
            entry.withdrawWaiting = withdrawThis;
          },
          onSend: () => {
            if (entry.withdrawWaiting === withdrawThis) entry.withdrawWaiting = undefined;
          },
        });
      } catch (error) {
        if (withdrawn) return REPLACED;
        throw error;
      }
      return await accepted(resource);
    } finally {
      if (--entry.count === 0 && pendingByRobot.get(robot) === entry) pendingByRobot.delete(robot);
    }
  }

  const sentOutput = isTicked(config.sentOutput);

  /**
   * What output 2 says the moment the cloud accepted the command: a copy of the
   * asking message (so a dashboard matches it to its click by its own
   * properties), its payload the event.
   */
  function sentMessage(call: RobotCall, prepared: PreparedCommand, resource: CommandResource, action: RobotAction | undefined): NodeMessage {
    const command = commandTypeOf(JSON.parse(prepared.body!) as Record<string, unknown>) ?? resource.rawCommandType?.toUpperCase();
    return {
      ...RED.util.cloneMessage(call.msg),
      serialNumber: prepared.serialNumber,
      payload: { event: "sent", command, ...(action ? { action } : {}) },
    };
  }

  handleRobotInput<Submitted>(RED, node, config.robot, {
    reads: ["serialNumber", "command", "burst", "sendWhen"],
    run: submitAndConfirm,
    // "START_TASK: WAITING" ("开始清洁任务：等待中"): the command the cloud stored and the state it is in; once confirmed, what
    // the robot showed in words ("START_TASK: running (3 s)"), where msg.confirmation.state keeps the code.
    statusText: ({ resource, confirmation }, call) => {
      const state = confirmation
        ? call.t("confirmedStates.seconds", { state: confirmedWord(call.t, confirmation.state), seconds: Math.round(confirmation.seconds) })
        : cloudWord(call.t, "commandStates", resource.state);
      return resource.rawCommandType ? `${cloudWord(call.t, "statusCommands", resource.rawCommandType.toUpperCase())}: ${state}` : state;
    },
    output: ({ resource, confirmation }, msg) => {
      const ended = messageWithConfirmation(msg, resource, confirmation);
      return sentOutput ? [ended, null] : ended;
    },
  });
}

export default function registerRobotCommand(RED: NodeAPI): void {
  RED.nodes.registerType(
    "robot-command",
    function RobotCommand(this: Node, config: RobotCommandProperties) {
      RED.nodes.createNode(this, config);
      setUpRobotCommand(RED, this, config);
    },
  );
}
