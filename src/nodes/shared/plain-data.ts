/**
 * Reading values from outside (a message, a context, an environment variable)
 * as plain JSON data, so that nothing a node later reads can change or throw
 * behind its back.
 */
import { types } from "node:util";
import type { NodeMessageInFlow } from "node-red";
import { RobotApiError, invalidInput } from "../../api/errors";

/** A message's values a node reads, each a plain-data copy. */
export type MessageInput = Record<string, unknown>;

/** Deeper than this is not a request anyone means to send. */
const MAX_DEPTH = 32;
/** More values than this in one property is not a request either (and would stall the runtime). */
const MAX_VALUES = 100_000;

/**
 * A value from a message, a context or an environment variable, copied as
 * plain JSON data (strings, numbers, booleans, null, arrays, plain objects).
 * Anything else (BigInt, Symbol, function, Buffer, typed array, Date, class
 * instance, a cycle, a getter or proxy that throws) is refused with an
 * INVALID_INPUT error naming where it was found. Every later step works on
 * the copy, so nothing it reads can change or throw behind its back.
 */
export function plainData(value: unknown, field: string): unknown {
  let count = 0;
  const ancestors = new Set<object>();
  const refuse = (path: string, problem: string): never => {
    throw invalidInput(path, problem);
  };
  const copy = (item: unknown, path: string, depth: number): unknown => {
    if (++count > MAX_VALUES) refuse(field, `holds more than ${MAX_VALUES} values`);
    switch (typeof item) {
      case "undefined":
      case "boolean":
      case "number":
      case "string":
        return item;
      case "bigint":
        return refuse(path, "must be JSON data, not a BigInt (use a number or a string)");
      case "symbol":
        return refuse(path, "must be JSON data, not a Symbol");
      case "function":
        return refuse(path, "must be JSON data, not a function");
    }
    if (item === null) return null;
    const object = item as object;
    if (depth >= MAX_DEPTH) refuse(path, `is nested deeper than ${MAX_DEPTH} levels`);
    if (ancestors.has(object)) refuse(path, "must be JSON data, but refers to itself");
    // Any proxy is refused: its traps could answer differently each time the runtime reads it.
    if (types.isProxy(object)) refuse(path, "must be JSON data, not a Proxy");
    if (Buffer.isBuffer(object) || ArrayBuffer.isView(object) || object instanceof ArrayBuffer) {
      refuse(path, "must be JSON data, not binary data (a Buffer or typed array)");
    }
    ancestors.add(object);
    try {
      if (Array.isArray(object)) {
        const out: unknown[] = [];
        for (let i = 0; i < object.length; i++) out.push(copy(object[i], `${path}[${i}]`, depth + 1));
        return out;
      }
      // A plain object's prototype is null or the root Object.prototype of its realm (function nodes run in another).
      const prototype = Object.getPrototypeOf(object) as object | null;
      if (prototype !== null && Object.getPrototypeOf(prototype) !== null) {
        const kind = (prototype as { constructor?: { name?: unknown } }).constructor?.name;
        refuse(path, `must be JSON data, not ${typeof kind === "string" && kind ? `a ${kind}` : "an object of a class"}`);
      }
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(object)) {
        const entry = copy((object as Record<string, unknown>)[key], `${path}.${key}`, depth + 1);
        // A "__proto__" key from JSON.parse stays data; assignment would change the copy's prototype.
        if (key === "__proto__") Object.defineProperty(out, key, { value: entry, enumerable: true, writable: true, configurable: true });
        else out[key] = entry;
      }
      return out;
    } finally {
      ancestors.delete(object);
    }
  };
  try {
    return copy(value, field, 0);
  } catch (error) {
    if (error instanceof RobotApiError) throw error;
    // A getter or proxy trap threw; what it threw may itself be hostile, so it is not described.
    throw invalidInput(field, "must be JSON data, but could not be read (a getter or proxy threw)");
  }
}

/** msg.payload and the properties named in `reads`, each as plain data. */
export function readMessage(msg: NodeMessageInFlow, reads: readonly string[]): MessageInput {
  const input: MessageInput = {};
  for (const key of ["payload", ...reads]) {
    const name = key === "payload" ? "payload" : `msg.${key}`;
    let value: unknown;
    try {
      value = (msg as Record<string, unknown>)[key];
    } catch {
      throw invalidInput(name, "could not be read (a getter or proxy threw)");
    }
    input[key] = plainData(value, name);
  }
  return input;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}
