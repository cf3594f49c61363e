/**
 * The node shims Node-RED loads (nodes/*.js, through nodes/load-node.js): a
 * child process of this test run loads each node from the code this run
 * tests (src/ from source, dist/ compiled), and a process the tests did not
 * set up (a user's Node-RED) always asks for dist/.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { CHILD_ENV, CHILD_NODE_OPTIONS, PACKAGE_ROOT } from "../support/child-node";

const FROM_SOURCE = __filename.endsWith(".ts");
const nodeFiles = (JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { "node-red": { nodes: Record<string, string> } })[
  "node-red"
].nodes;

/** Runs `script` (argv[1]: the package root) in a child Node with `options` and `env`, and parses the JSON it prints. */
function inChild<T>(script: string, options: readonly string[], env: NodeJS.ProcessEnv): T {
  return JSON.parse(execFileSync(process.execPath, [...options, "-e", script, PACKAGE_ROOT], { env, encoding: "utf8" })) as T;
}

/** Without the variable the test support sets: the environment of a process it did not start. */
function envWithout(name: string): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env[name];
  return env;
}

describe("the node shims (nodes/*.js)", function () {
  this.timeout(60_000);

  it(`load each node, in a child of this run, from ${FROM_SOURCE ? "its TypeScript source in src/" : "its compiled file in dist/"}`, () => {
    // The file that exports the very function the shim hands Node-RED.
    const loadedFrom = inChild<Record<string, string>>(
      `const path = require("node:path");
      const root = process.argv[1];
      const files = ${JSON.stringify(nodeFiles)};
      const from = {};
      for (const [type, file] of Object.entries(files)) {
        const node = require(path.join(root, file));
        const owner = Object.values(require.cache).find((m) => m.exports && m.exports.default === node);
        from[type] = owner ? path.relative(root, owner.filename) : typeof node;
      }
      console.log(JSON.stringify(from));`,
      CHILD_NODE_OPTIONS,
      { ...process.env, ...CHILD_ENV },
    );
    assert.deepEqual(Object.keys(loadedFrom), Object.keys(nodeFiles));
    for (const [type, file] of Object.entries(loadedFrom)) {
      assert.match(file, FROM_SOURCE ? new RegExp(`^src/nodes/${type}/[a-z-]+\\.ts$`) : new RegExp(`^dist/src/nodes/${type}/[a-z-]+\\.js$`), type);
    }
  });

  describe("what nodes/load-node.js asks require() for", () => {
    /** Its requests when nodes/robot-command.js is loaded (dist/ need not exist: a failed load is still a request). */
    const REQUESTED = `const Module = require("node:module");
      const load = Module._load;
      const requested = [];
      Module._load = function (request, parent, ...rest) {
        if (parent && parent.filename.endsWith("load-node.js")) requested.push(request);
        return load.call(this, request, parent, ...rest);
      };
      try { require(require("node:path").join(process.argv[1], "nodes/robot-command.js")); } catch {}
      console.log(JSON.stringify(requested));`;
    const DIST = ["../dist/src/nodes/robot-command/robot-command"];

    it("dist/ in a process that can require TypeScript (tsx registered) but was not told to load the sources, as a user's Node-RED may", () => {
      assert.deepEqual(inChild<string[]>(REQUESTED, ["--require", "tsx/cjs"], envWithout("ROBOT_FLEET_FROM_SOURCE")), DIST);
    });

    it("dist/ in a process told to load the sources that cannot require TypeScript", () => {
      assert.deepEqual(inChild<string[]>(REQUESTED, [], { ...process.env, ROBOT_FLEET_FROM_SOURCE: "1" }), DIST);
    });

    it("src/ when both hold, as in the children of the fast loop (npm run test:unit)", () => {
      assert.deepEqual(inChild<string[]>(REQUESTED, ["--require", "tsx/cjs"], { ...process.env, ROBOT_FLEET_FROM_SOURCE: "1" }), [
        "../src/nodes/robot-command/robot-command",
      ]);
    });
  });
});
