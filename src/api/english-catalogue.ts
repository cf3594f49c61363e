/**
 * The package's English message catalogues (nodes/locales/en-US/<catalogue>.json),
 * read from disk once each: the words a runtime without Node-RED's i18n shows
 * (nodes/shared/i18n.ts), and those Home Assistant shows in one language
 * (mqtt/discovery.ts), are the catalogue's, not a copy of them.
 */
import fs from "node:fs";
import path from "node:path";

/** The catalogue of the editor plugin (package.json "node-red".plugins): the words every node shares. */
export const SHARED_CATALOGUE = "robot-fleet";

/** nodes/locales/, from dist/src/api/ where this file runs (or src/api/, when the tests run the sources through tsx). */
const LOCALES = path.resolve(__dirname, __filename.endsWith(".ts") ? "../.." : "../../..", "nodes/locales");
const english = new Map<string, Record<string, unknown>>();

/** The English text of `key` (its catalogue's name first, as Node-RED keys it: "robot-fleet.upkeep.parts.filter"), or undefined where it has none. */
export function englishText(catalogue: string, key: string): string | undefined {
  let messages = english.get(catalogue);
  if (!messages) {
    try {
      messages = JSON.parse(fs.readFileSync(path.join(LOCALES, "en-US", `${catalogue}.json`), "utf8")) as Record<string, unknown>;
    } catch {
      messages = {};
    }
    english.set(catalogue, messages);
  }
  let value: unknown = messages;
  for (const part of key.split("."))
    value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  return typeof value === "string" ? value : undefined;
}
