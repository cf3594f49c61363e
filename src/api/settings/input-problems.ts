/**
 * The problems with a field that every node shares (a serial number, a
 * required field, a number out of its range, a value not among its choices),
 * each under a key with its English: an INVALID_INPUT error made with one
 * keeps the key and its values, so the nodes word it in Node-RED's language
 * (the shared catalogue's `input` texts, whose English a test keeps equal to
 * these). The client used without Node-RED says the English.
 */

/** English of each problem, after the field's name; __name__ marks a value, as in Node-RED's catalogues. */
export const INPUT_PROBLEMS = {
  serialNumber: "must be 1-128 letters, digits, '-' or '_'",
  notSet: "is not set",
  notOfAccount: "the account has no robot __serialNumber__",
  itemNotOfAccount: 'the account has no robot __serialNumber__ (item "__item__")',
  serialNumberNotSet: "is not set: give the robot's serial number in the message or the node",
  actionSerialNumberNotSet: "is not set (an action needs the robot's serial number)",
  goToPointNotSet: "is not set (goTo needs the navigation point)",
  startTaskNameNotSet: "is not set (startTask needs the task's name)",
  notSetFor: "is not set (__needer__ needs it)",
  oneOf: "must be one of __choices__",
  oneOfGot: "must be one of __choices__ (got __got__)",
  number: "must be a number",
  wholeAtLeast: "must be a whole number of __min__ or more",
  wholeRange: "must be a whole number from __min__ to __max__",
  numberAtLeast: "must be a number of __min__ or more",
  numberRange: "must be a number from __min__ to __max__",
  atLeast: "must be __min__ or more",
  atLeastUnit: "must be __min__ or more __unit__",
  range: "must be from __min__ to __max__",
  rangeUnit: "must be from __min__ to __max__ __unit__",
} as const;

export type InputProblemKey = keyof typeof INPUT_PROBLEMS;
export type InputProblemParams = Readonly<Record<string, string | number>>;

/** A problem as an error keeps it: its key, its values, and its English. */
export interface InputProblem {
  readonly key: InputProblemKey;
  readonly params: InputProblemParams;
  readonly text: string;
}

/** Fills a text's __name__ marks with `params`. */
export function fillText(text: string, params: InputProblemParams = {}): string {
  return text.replace(/__(\w+)__/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

export function inputProblem(key: InputProblemKey, params: InputProblemParams = {}): InputProblem {
  return { key, params, text: fillText(INPUT_PROBLEMS[key], params) };
}

/** "must be one of A, B (got "x")": a value not among `choices`, the value shown as JSON. */
export function notOneOf(choices: readonly string[], ...got: [] | [unknown]): InputProblem {
  const listed = choices.join(", ");
  if (got.length === 0) return inputProblem("oneOf", { choices: listed });
  return inputProblem("oneOfGot", { choices: listed, got: JSON.stringify(got[0]) ?? String(got[0]) });
}

const BY_TEXT = new Map<string, InputProblemKey>(
  Object.entries(INPUT_PROBLEMS)
    .filter(([, text]) => !text.includes("__"))
    .map(([key, text]) => [text, key as InputProblemKey]),
);

/** A problem given as text (a schema's message) that is one of the texts without values, as its problem; else undefined. */
export function problemOfText(text: string): InputProblem | undefined {
  const key = BY_TEXT.get(text);
  return key === undefined ? undefined : inputProblem(key);
}
