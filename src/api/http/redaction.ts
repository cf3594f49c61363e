/**
 * No secret leaves the client: a server may echo what it was sent, so every
 * text taken from an answer, every error message and every parsed answer
 * passes through the client's redactor, which knows every token it ever sent.
 * It works on what is shown, never on an answer's raw text before it is
 * parsed: a token of one character (a digit, a brace, a quote) or one that is
 * also a JSON key would otherwise break every answer.
 */

/**
 * Secrets shorter than this are not looked for in a parsed answer: "a", "1"
 * or "id" are found in any answer's own text, and replacing them there would
 * change the answer. Error messages still never show them.
 */
export const SHORTEST_SECRET_IN_ANSWERS = 8;

/** Replaces every secret in a text by ***; `answer` does the same inside a parsed answer. */
export interface Redact {
  (text: string): string;
  /**
   * A parsed answer (`raw` its text) with every secret of at least
   * SHORTEST_SECRET_IN_ANSWERS characters replaced in its strings and keys.
   */
  answer(value: unknown, raw: string): unknown;
}

function replaceAll(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) {
    if (redacted.includes(secret)) redacted = redacted.split(secret).join("***");
  }
  return redacted;
}

/** A redactor of the secrets a source knows now (a token source adds each token it hands out). */
export function redactorOf(secrets: () => readonly string[]): Redact {
  const redact = (text: string) => replaceAll(text, secrets());
  return Object.assign(redact, {
    answer(value: unknown, raw: string): unknown {
      const findable = secrets().filter((secret) => secret.length >= SHORTEST_SECRET_IN_ANSWERS);
      // A JSON escape (\/ or \u00XX) can hide a secret from the raw text that parsing brings back.
      const mayHold = raw.includes("\\") || findable.some((secret) => raw.includes(secret));
      return mayHold ? redactValues(value, (text) => replaceAll(text, findable)) : value;
    },
  });
}

/** Every string (and key) in a parsed answer, passed through `redact`. */
function redactValues(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactValues(item, redact));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), redactValues(item, redact)]));
  }
  return value;
}
