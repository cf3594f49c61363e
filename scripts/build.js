#!/usr/bin/env node
// Builds what Node-RED loads: compiles src/ and test/ into dist/ (incrementally: a second run with
// nothing changed takes a moment) and copies icons/ to nodes/icons/, where Node-RED looks for them.
// Plain JavaScript, because it must run before anything is compiled.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { spawnSync } = require("node:child_process");

const root = path.resolve(__dirname, "..");
let tsc;
try {
  tsc = require.resolve("typescript/bin/tsc", { paths: [root] });
} catch {
  // A source clone installed straight into Node-RED (npm install /path/to/clone) has no dev dependencies.
  if (fs.existsSync(path.join(root, "dist", "src", "nodes", "robot-command", "robot-command.js"))) process.exit(0);
  console.error(
    `node-red-contrib-robot-fleet: this source clone is not built; run "npm install" in ${root} first (it builds the nodes), or install the published package or a packed tarball (npm pack).`,
  );
  process.exit(1);
}
const compiled = spawnSync(process.execPath, [tsc, "-p", path.join(root, "tsconfig.json")], { stdio: "inherit" });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
fs.cpSync(path.join(root, "icons"), path.join(root, "nodes", "icons"), { recursive: true });
