/** What a person may type: serial numbers, base and Redis URLs, numbers in settings, and the account's settings table. */

import { invalidInput } from "../errors";
import { INPUT_PROBLEMS, inputProblem, type InputProblem } from "./input-problems";

/**
 * Plain rules the schemas, the nodes and the editor share, kept free of zod:
 * a module that needs only these (the node files when Node-RED loads them,
 * the editor's tables) does not pay for loading the schemas.
 */

/**
 * Serial numbers end up in URL paths. Letters, digits, '-' and '_' only: no
 * '/', '.', '%' or '?' can steer a request to another path.
 */
export const SERIAL_NUMBER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
/** What a value that fails SERIAL_NUMBER_PATTERN is told, after its field's name. */
export const SERIAL_NUMBER_RULE = INPUT_PROBLEMS.serialNumber;

export const DEFAULT_BASE_URL = "https://openapi.gs-robot.com";

/**
 * What a URL may be: one of these protocols, and none of these parts. The
 * rules are data so that the editor's dialogs apply the same ones (they parse
 * with the same WHATWG URL); brokenUrlRule is their one check on the runtime.
 */
export interface UrlRules {
  readonly protocols: readonly string[];
  readonly forbiddenParts: readonly ("username" | "password" | "search" | "hash")[];
}

/** The URL `raw` stands for, or undefined when it is none. */
export function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** Which of `rules` a URL breaks: its protocol, or a part it must not hold; undefined when it keeps them. */
export function brokenUrlRule(url: URL, rules: UrlRules): "protocol" | "parts" | undefined {
  if (!rules.protocols.includes(url.protocol)) return "protocol";
  return rules.forbiddenParts.some((part) => url[part] !== "") ? "parts" : undefined;
}

/** What a base URL may be. */
export const BASE_URL_RULES = {
  protocols: ["http:", "https:"],
  forbiddenParts: ["username", "password", "search", "hash"],
} as const satisfies UrlRules;

/**
 * A map image's pre-signed download URL: http or https only (no file:, data:
 * or other schemes), no user name or password; its query is its signature.
 */
export const DOWNLOAD_URL_RULES = {
  protocols: ["http:", "https:"],
  forbiddenParts: ["username", "password"],
} as const satisfies UrlRules;

/**
 * What robot-config's Redis URL may be ("Share with other Node-RED
 * instances"), as data for the editor too: redis:// or rediss://, a user name
 * allowed (Redis ACLs), the password never (it is a credential).
 */
export const REDIS_URL_RULES = {
  protocols: ["redis:", "rediss:"],
  forbiddenParts: ["password", "search", "hash"],
} as const satisfies UrlRules;

/** Every Redis key of a shared account starts with the key prefix: this is what it may hold. */
export const REDIS_PREFIX_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const DEFAULT_REDIS_PREFIX = "robot-fleet";

/**
 * The one rule for a number a person types into a setting (a dialog field, a
 * command-line option): its bounds, whether it must be whole, and the words
 * that say what is wrong. The account's limits, the confirmation timeout, the
 * watch settings, the site task's whole numbers and the simulator's options
 * all read their numbers with it; the editor's dialogs get the same bounds in
 * robotConfigTables and say the same words (resources/robot-fleet-editor.js).
 */

export interface NumberRange {
  readonly min: number;
  /** No upper bound when absent. */
  readonly max?: number;
  /** Whole numbers only. */
  readonly integer: boolean;
  /** Shown after the input in a dialog and named in errors ("s", "/s", "%"). */
  readonly unit: string;
}

export interface NumberSetting extends NumberRange {
  /** What an empty field means. */
  readonly default: number;
}

/**
 * The problem with a value, in words that follow its name ("must be a whole
 * number from 1 to 256", "must be 0 or more"), or undefined when it is acceptable.
 */
export function numberProblem(value: unknown, range: NumberRange): string | undefined {
  return numberInputProblem(value, range)?.text;
}

/** numberProblem's problem with its key and values, for an error the nodes word in Node-RED's language. */
export function numberInputProblem(value: unknown, range: NumberRange): InputProblem | undefined {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : undefined;
  const number = text === undefined || text === "" ? NaN : Number(text);
  const bounds = { min: range.min, ...(range.max === undefined ? {} : { max: range.max }) };
  if (!Number.isFinite(number) || (range.integer && !Number.isInteger(number))) {
    const kind = range.integer ? "whole" : "number";
    return inputProblem(range.max === undefined ? `${kind}AtLeast` : `${kind}Range`, bounds);
  }
  if (number < range.min || (range.max !== undefined && number > range.max))
    return range.unit
      ? inputProblem(range.max === undefined ? "atLeastUnit" : "rangeUnit", { ...bounds, unit: range.unit })
      : inputProblem(range.max === undefined ? "atLeast" : "range", bounds);
  return undefined;
}

export function isEmptySetting(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

/** A setting's number: empty takes the default, anything else must pass numberProblem or `field` is named in an INVALID_INPUT error. */
export function readNumberSetting(value: unknown, field: string, setting: NumberSetting): number {
  if (isEmptySetting(value)) return setting.default;
  const problem = numberInputProblem(value, setting);
  if (problem) throw invalidInput(field, problem);
  return Number(value);
}

/**
 * The per-account settings of a robot-config node, declared once: the runtime
 * checks them with this table and the editor's dialog reads the same table
 * (in the exportable runtime setting `robotConfigTables`), so the dialog
 * accepts exactly what the runtime accepts.
 */

export const ACCOUNT_SETTINGS = {
  /** Seconds a call may take, from sending to the whole answer. */
  timeout: { default: 10, min: 0.1, max: 600, integer: false, unit: "s" },
  /** Resends of a call that the cloud refused for rate limiting or that could not connect. */
  maxRetries: { default: 3, min: 0, max: 10, integer: true, unit: "" },
  /** Keep-alive sockets to the cloud, and so calls in flight at once. */
  connections: { default: 16, min: 1, max: 256, integer: true, unit: "" },
  /** Calls started per second for the whole account; 0 sends as fast as the connections allow. */
  rateLimit: { default: 20, min: 0, max: 10_000, integer: false, unit: "/s" },
  /** Calls allowed to wait for a connection or the rate limit; one more ends at once with QUEUE_FULL. */
  queueLimit: { default: 10_000, min: 1, max: 10_000_000, integer: true, unit: "" },
  /** The longest Retry-After the account waits out; a longer one fails the calls it would hold. */
  maxRetryWait: { default: 60, min: 0, max: 86_400, integer: false, unit: "s" },
  /** Minutes between reads of the robot list, where robots' names, models and software versions come from (robot-directory.ts). */
  robotListInterval: { default: 10, min: 1, max: 1440, integer: false, unit: "min" },
  /**
   * Grid cells (pixels of the map image) within which a robot has arrived at a navigation point
   * (watching/navigation.ts): 10 cells is 0.5 m at the 0.05 m per cell real maps were seen with.
   */
  arrivalRadius: { default: 10, min: 0, max: 1000, integer: false, unit: "cells" },
} as const satisfies Record<string, NumberSetting>;

export type AccountSettingName = keyof typeof ACCOUNT_SETTINGS;
export type AccountSettings = Record<AccountSettingName, number>;

export const ACCOUNT_SETTING_NAMES = Object.keys(ACCOUNT_SETTINGS) as AccountSettingName[];

/** The problem with a value, in words that follow the field name, or undefined when it is acceptable. */
export function accountSettingProblem(name: AccountSettingName, value: unknown): string | undefined {
  return numberProblem(value, ACCOUNT_SETTINGS[name]);
}

/**
 * Reads the settings of a config node: an empty or missing value takes the
 * default (flows saved before a setting existed have none), anything else must
 * pass accountSettingProblem or the field is named in an INVALID_INPUT error.
 */
export function readAccountSettings(raw: Partial<Record<AccountSettingName, unknown>>): AccountSettings {
  const settings = {} as AccountSettings;
  for (const name of ACCOUNT_SETTING_NAMES) settings[name] = readNumberSetting(raw[name], name, ACCOUNT_SETTINGS[name]);
  return settings;
}
