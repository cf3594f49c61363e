/**
 * The real cloud's answer shapes as recorded (test/fixtures/recorded-shapes.json)
 * and the check of an answer against one: every field path of the answer is
 * recorded, with the recorded JSON type, and every field the recording does not
 * mark optional is there (under an optional object: whenever that object is).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "./child-node";

export type JsonType = "string" | "number" | "boolean" | "object" | "array" | "null";

export interface RecordedField {
  type: JsonType;
  optional?: boolean;
  note?: string;
}

export interface RecordedKind {
  answer: string;
  source: string;
  fields: Record<string, RecordedField>;
}

// From the package root: the build compiles test/ into dist/ but copies no data file there.
export const RECORDED_SHAPES_FILE = path.join(PACKAGE_ROOT, "test", "fixtures", "recorded-shapes.json");

const shapes = JSON.parse(readFileSync(RECORDED_SHAPES_FILE, "utf8")) as { kinds: Record<string, RecordedKind> };

export type RecordedKindName =
  "v1Status" | "sLineStatus" | "robotListEntry" | "taskReport" | "taskReportPush" | "incidentPush" | "commandAnswer" | "tempTaskAnswer";

export function recordedKind(name: RecordedKindName): RecordedKind {
  const kind = shapes.kinds[name];
  if (!kind) throw new Error(`${RECORDED_SHAPES_FILE} has no kind ${name}`);
  return kind;
}

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean" || type === "object") return type;
  throw new Error(`not a JSON value: a ${type}`);
}

/** The path of a field inside the object at `parent` ("" at the top). */
const join = (parent: string, key: string) => (parent === "" ? key : `${parent}.${key}`);

/** The paths recorded directly inside `parent` (an object's fields; "x[]" is an array's element, a child of "x"). */
function childrenOf(fields: Record<string, RecordedField>, parent: string): string[] {
  return Object.keys(fields).filter((candidate) => {
    const rest = parent === "" ? candidate : candidate.startsWith(`${parent}.`) ? candidate.slice(parent.length + 1) : undefined;
    return rest !== undefined && rest !== "" && !rest.includes(".") && !rest.includes("[]");
  });
}

/**
 * What is wrong with `answer` as an answer of `kind`, one line per problem
 * naming the path (`where` says which answer, for the failure message).
 * Empty when the answer has the recorded shape.
 */
export function shapeProblems(name: RecordedKindName, answer: unknown, where: string): string[] {
  const { fields } = recordedKind(name);
  const problems: string[] = [];
  const visit = (value: unknown, at: string, shown: string) => {
    const type = jsonTypeOf(value);
    if (type === "object") {
      const object = value as Record<string, unknown>;
      for (const child of childrenOf(fields, at)) {
        const key = child.slice(at === "" ? 0 : at.length + 1);
        if (!(key in object) && !fields[child]!.optional) problems.push(`${where}: lacks ${join(shown, key)} (recorded as required)`);
      }
      for (const [key, child] of Object.entries(object)) check(child, join(at, key), join(shown, key));
    } else if (type === "array") {
      (value as unknown[]).forEach((element, index) => check(element, `${at}[]`, `${shown}[${index}]`));
    }
  };
  // An array of objects is recorded by its elements' fields ("x[].id"), an array of values by its element ("x[]").
  const recordedAt = (at: string): Pick<RecordedField, "type"> | undefined =>
    fields[at] ?? (at.endsWith("[]") && childrenOf(fields, at).length > 0 ? { type: "object" } : undefined);
  const check = (value: unknown, at: string, shown: string) => {
    const recorded = recordedAt(at);
    if (!recorded) {
      problems.push(`${where}: carries ${shown}, which no recorded ${name} has`);
      return;
    }
    const type = jsonTypeOf(value);
    if (type !== recorded.type) {
      problems.push(`${where}: ${shown} is ${type} (${JSON.stringify(value)}), recorded as ${recorded.type}`);
      return;
    }
    visit(value, at, shown);
  };
  if (jsonTypeOf(answer) !== "object") return [`${where}: is ${jsonTypeOf(answer)}, not an object`];
  visit(answer, "", "");
  return problems;
}
