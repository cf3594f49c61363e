/**
 * The node types package.json declares (its "node-red".nodes), sorted: what a
 * running Node-RED must have loaded. test/package.test.ts pins this list
 * itself; the tests of a running Node-RED compare against it, so a new node
 * is listed once.
 */
import fs from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "./child-node";

const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as {
  "node-red": { nodes: Record<string, string> };
};

export const DECLARED_NODE_TYPES: readonly string[] = Object.keys(pkg["node-red"].nodes).sort();
