/**
 * No secret leaves the client: a server may echo what it was sent, so every
 * text and value taken from an answer, and every error message, passes
 * through the client's redactor, which knows every token it ever sent.
 */

/** Replaces every secret in a text by ***. */
export type Redact = (text: string) => string;

/** A redactor of the secrets a source knows now (a token source adds each token it hands out). */
export function redactorOf(secrets: () => readonly string[]): Redact {
  return (text) => {
    let redacted = text;
    for (const secret of secrets()) {
      if (redacted.includes(secret)) redacted = redacted.split(secret).join("***");
    }
    return redacted;
  };
}

/** Every string (and key) in a parsed answer, redacted. */
export function redactValues(value: unknown, redact: Redact): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactValues(item, redact));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), redactValues(item, redact)]));
  }
  return value;
}
