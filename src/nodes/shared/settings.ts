/**
 * Reading a robot node's settings for one message: its TypedInputs, the robot
 * it is for, its checkboxes, and the settings a message may override.
 */
import type { Node, NodeAPI, NodeMessageInFlow } from "node-red";
import { refuseRobotsNotOfAccount } from "../../api/account/robot-directory";
import { invalidInput } from "../../api/errors";
import { SERIAL_NUMBER_PATTERN } from "../../api/settings/input-rules";
import { plainData, type MessageInput } from "./plain-data";
import { trimmedTextOf } from "../../api/cloud/values";
import { notOneOf } from "../../api/settings/input-problems";

/**
 * Evaluates a TypedInput property (str, num, msg, flow, global, env, ...) for
 * one message, as plain data; `field` names it in errors.
 */
export function evaluateProperty(
  RED: NodeAPI,
  node: Node,
  msg: NodeMessageInFlow,
  value: string | undefined,
  type: string | undefined,
  field: string,
): Promise<unknown> {
  if (value === undefined || value === "") return Promise.resolve(undefined);
  // A typed-in text is already plain data: no need to ask the runtime, once per message.
  if (!type || type === "str") return Promise.resolve(value);
  return new Promise((resolve, reject) => {
    try {
      RED.util.evaluateNodeProperty(value, type || "str", node, msg, (...answer: unknown[]) => {
        // A getter that throws undefined or null reaches us as a falsy error: only (null, result) is a value.
        const [err, result] = answer;
        if (err || answer.length < 2) reject(invalidInput(field, "could not be read"));
        else {
          try {
            resolve(plainData(result, field));
          } catch (error) {
            reject(error instanceof Error ? error : invalidInput(field, "could not be read"));
          }
        }
      });
    } catch {
      reject(invalidInput(field, "could not be read (a getter or proxy threw)"));
    }
  });
}

/** The first candidate that is a non-empty string (after trimming), else undefined. */
export function firstText(...candidates: unknown[]): string | undefined {
  for (const candidate of candidates) {
    const text = trimmedTextOf(candidate);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** The node properties every robot node has for choosing its robot. */
export interface SerialNumberSetting {
  serialNumber: string;
  serialNumberType: string;
}

/** How errors name where a robot's serial number came from: the payload's field, msg.serialNumber, else the node's setting. */
export function serialNumberField(call: { input: MessageInput }, fromPayload: unknown, names: { payload?: string; node?: string } = {}): string {
  if (fromPayload !== undefined) return names.payload ?? "payload.serialNumber";
  if (call.input.serialNumber !== undefined) return "msg.serialNumber";
  return names.node ?? "serialNumber";
}

/**
 * The robot a message is for: the value the payload gives, else
 * msg.serialNumber, else the node's (TypedInput) setting. A robot the
 * account does not have is refused here, naming `field`
 * (refuseRobotsNotOfAccount); any other bad value is the request schema's to
 * report with its field.
 */
export async function resolveSerialNumber(
  RED: NodeAPI,
  node: Node,
  call: { msg: NodeMessageInFlow; input: MessageInput; client: { accountKey: string } },
  fromPayload: unknown,
  setting: SerialNumberSetting,
  field: string = serialNumberField(call, fromPayload),
): Promise<unknown> {
  let value = fromPayload ?? call.input.serialNumber;
  if (value === undefined) {
    const fromNode = await evaluateProperty(RED, node, call.msg, setting.serialNumber, setting.serialNumberType, "serialNumber");
    value = typeof fromNode === "string" ? fromNode.trim() : (fromNode ?? "");
  }
  // A robot the list names is answered without a promise: no wait on the path of every message.
  const refusing = refuseRobotsNotOfAccount(call.client.accountKey, field, [value]);
  if (refusing) await refusing;
  return value;
}

/**
 * A ticked checkbox of the dialog (loop, watch): its boolean, or the text
 * "true" in any case in a flow edited by hand. Boolean() would read "false"
 * as true.
 */
export function isTicked(setting: unknown): boolean {
  return setting === true || (typeof setting === "string" && setting.trim().toLowerCase() === "true");
}

/**
 * A node setting that a message may override (operation, burst): msg.<name>
 * when given, else the node's; a value not in `allowed` is refused, named
 * where it came from.
 */
export function chooseSetting<Value extends string>(input: MessageInput, name: string, configured: string, allowed: readonly Value[]): Value {
  const fromMsg = input[name];
  const chosen = fromMsg === undefined || fromMsg === "" ? configured : fromMsg;
  if (typeof chosen !== "string" || !(allowed as readonly string[]).includes(chosen)) {
    const field = fromMsg === undefined || fromMsg === "" ? name : `msg.${name}`;
    throw invalidInput(field, notOneOf(allowed, chosen ?? null));
  }
  return chosen as Value;
}

/** "GS-S-1, GS-S-2\nGS-S-3" as a list; each checked like any serial number. */
export function serialNumberList(text: string | undefined, field = "serialNumbers"): string[] {
  const names = (text ?? "").split(/[\s,;]+/).filter((name) => name !== "");
  for (const name of names) {
    if (!SERIAL_NUMBER_PATTERN.test(name)) throw invalidInput(field, `"${name}" is not a serial number (letters, digits, - and _)`);
  }
  return names;
}
