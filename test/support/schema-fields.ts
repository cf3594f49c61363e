/**
 * Fields of a zod schema and of a sample value as dotted paths (an array's
 * element as ".0"), and a sample with one field replaced: what the tests that
 * give every field of every request and answer a wrong type are built from.
 */
import assert from "node:assert/strict";
import { z } from "zod";

export type JsonType = "string" | "number" | "boolean" | "object" | "array" | "null";

/** One value of each type, none of which any field takes unless it takes its type. */
export const WRONG_VALUES: Record<JsonType, unknown> = { string: "7", number: 7, boolean: true, object: {}, array: ["7"], null: null };

export function typeOf(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean" || type === "object") return type;
  throw new Error(`a sample holds a ${type}`);
}

/** The schema's fields as dotted paths (an array's element as ".0"), objects and arrays included. */
export function schemaFields(schema: z.core.$ZodType, path = ""): string[] {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) return schemaFields(schema.unwrap(), path);
  if (schema instanceof z.ZodPipe) return schemaFields(schema.in, path);
  const here = path === "" ? [] : [path];
  if (schema instanceof z.ZodObject) {
    return [...here, ...Object.entries(schema.shape).flatMap(([name, field]) => schemaFields(field as z.core.$ZodType, join(path, name)))];
  }
  if (schema instanceof z.ZodArray) return [...here, ...schemaFields(schema.element, join(path, "0"))];
  return here;
}

/** The fields of a sample as dotted paths with their values (an array's first element only). */
export function sampleFields(value: unknown, path = ""): [string, unknown][] {
  const here: [string, unknown][] = path === "" ? [] : [[path, value]];
  if (Array.isArray(value)) return value.length ? [...here, ...sampleFields(value[0], join(path, "0"))] : here;
  if (typeof value === "object" && value !== null) {
    return [...here, ...Object.entries(value).flatMap(([name, field]) => sampleFields(field, join(path, name)))];
  }
  return here;
}

const join = (path: string, name: string) => (path === "" ? name : `${path}.${name}`);

/** A deep copy of `sample` with the field at `path` replaced by `value`. */
export function withField(sample: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(sample);
  const names = path.split(".");
  let parent = copy;
  for (const name of names.slice(0, -1)) parent = parent[name] as Record<string, unknown>;
  parent[names.at(-1)!] = value;
  return copy;
}

export interface WrongTypeCase {
  field: string;
  given: JsonType;
  input: Record<string, unknown>;
}

/**
 * Every field of the samples given each type it does not take: the type of its
 * sample's value, or those `severalTypes` lists for it.
 */
export function wrongTypesOf(
  samples: readonly Record<string, unknown>[],
  severalTypes: Record<string, readonly JsonType[]> = {},
): WrongTypeCase[] {
  const cases: WrongTypeCase[] = [];
  const seen = new Set<string>();
  for (const sample of samples) {
    for (const [field, value] of sampleFields(sample)) {
      if (seen.has(field)) continue;
      seen.add(field);
      const takes = severalTypes[field] ?? [typeOf(value)];
      for (const given of Object.keys(WRONG_VALUES) as JsonType[]) {
        if (!takes.includes(given)) cases.push({ field, given, input: withField(sample, field, WRONG_VALUES[given]) });
      }
    }
  }
  return cases;
}

/** The samples hold every field of the schema and none it lacks (a field added later needs a sample). */
export function assertSamplesCover(name: string, schema: z.core.$ZodType, samples: readonly unknown[]): void {
  const sampled = new Set(samples.flatMap((sample) => sampleFields(sample).map(([field]) => field)));
  const fields = schemaFields(schema);
  assert.ok(fields.length > 0, `${name}: its schema has fields`);
  assert.deepEqual(
    fields.filter((field) => !sampled.has(field)),
    [],
    `${name}: fields without a sample`,
  );
  assert.deepEqual(
    [...sampled].filter((field) => !fields.includes(field)),
    [],
    `${name}: sampled fields the schema lacks`,
  );
}
