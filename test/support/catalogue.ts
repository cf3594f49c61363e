/**
 * The shared catalogue (nodes/locales/<language>/robot-fleet.json) as a
 * node's translator reads it, for tests of the pages and lists the package
 * words without a Node-RED: a key the catalogue lacks fails the test.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { packageRoot } from "./editor";

export type CatalogueWords = (key: string, params?: Record<string, string | number>) => string;

export function sharedCatalogue(language: string): CatalogueWords {
  const catalogue = JSON.parse(fs.readFileSync(path.join(packageRoot, "nodes/locales", language, "robot-fleet.json"), "utf8")) as {
    "robot-fleet": Record<string, unknown>;
  };
  return (key, params = {}) => {
    let value: unknown = catalogue["robot-fleet"];
    for (const part of key.split(".")) value = (value as Record<string, unknown> | undefined)?.[part];
    assert.equal(typeof value, "string", `${key} in ${language}`);
    return (value as string).replace(/__(\w+)__/g, (_whole, name: string) => String(params[name]));
  };
}
