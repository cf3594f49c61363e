/**
 * Values of unknown shape (the cloud's answers, pushes, what a person typed)
 * read as what the package means by them. Each meaning is here once, under
 * its own name, for src/api and the nodes alike.
 */

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value as a JSON object, else undefined: for reading nested fields that may be missing. */
export function recordOf(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}

/** A name the cloud sends: a string that is not blank, as given. */
export function textOf(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** What a person typed: a string that is not blank, trimmed. */
export function trimmedTextOf(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** A name or id the cloud sends as text or, for int64 ids, as a number: as text, strings as given. */
export function idTextOf(value: unknown): string | undefined {
  return typeof value === "number" && Number.isFinite(value) ? String(value) : textOf(value);
}

/** An id a person or a push gives (a serial number, an incident id): a number, or a string that is not blank, trimmed. */
export function trimmedIdOf(value: unknown): string | undefined {
  return typeof value === "number" && Number.isFinite(value) ? String(value) : trimmedTextOf(value);
}

/** A number, or a number the cloud sent as a string (int64 values come as strings: docs/cloud-api.md). */
export function numberOf(value: unknown): number | undefined {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof number === "number" && Number.isFinite(number) ? number : undefined;
}
