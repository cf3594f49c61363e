/**
 * The one rule for a number a person types into a setting (a dialog field, a
 * command-line option): its bounds, whether it must be whole, and the words
 * that say what is wrong. The account's limits, the confirmation timeout, the
 * watch settings, the site task's whole numbers and the simulator's options
 * all read their numbers with it; the editor's dialogs get the same bounds in
 * robotConfigTables and say the same words (resources/robot-fleet-editor.js).
 */
import { invalidInput } from "./errors";

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
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : undefined;
  const number = text === undefined || text === "" ? NaN : Number(text);
  const bounds = range.max === undefined ? `${range.min} or more` : `from ${range.min} to ${range.max}`;
  const kindBounds = range.max === undefined ? `of ${bounds}` : bounds;
  const kind = range.integer ? "a whole number" : "a number";
  if (!Number.isFinite(number) || (range.integer && !Number.isInteger(number))) return `must be ${kind} ${kindBounds}`;
  if (number < range.min || (range.max !== undefined && number > range.max)) return `must be ${bounds}${range.unit ? ` ${range.unit}` : ""}`;
  return undefined;
}

export function isEmptySetting(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

/** A setting's number: empty takes the default, anything else must pass numberProblem or `field` is named in an INVALID_INPUT error. */
export function readNumberSetting(value: unknown, field: string, setting: NumberSetting): number {
  if (isEmptySetting(value)) return setting.default;
  const problem = numberProblem(value, setting);
  if (problem) throw invalidInput(field, problem);
  return Number(value);
}
