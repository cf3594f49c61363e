#!/usr/bin/env node
// Compatibility run, not part of npm test (it downloads a Node.js and a Node-RED from the registry):
// the node tests and the install test under Node-RED 5 on Node.js 22, as a user on a newer box has
// them. Usage: npm run compat [-- <node-red version> <node version>]   (defaults: 5, 22)
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { spawnSync } = require("node:child_process");

const root = path.resolve(__dirname, "..");
const [nodeRedVersion = "5", nodeVersion = "22"] = process.argv.slice(2);
const work = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-compat-"));

function run(command, args, options = {}) {
  console.log(`$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { stdio: "inherit", ...options });
  if (result.status !== 0) {
    fs.rmSync(work, { recursive: true, force: true });
    process.exit(result.status ?? 1);
  }
}

try {
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", work, `node-red@${nodeRedVersion}`]);
  const nodeRed = path.join(work, "node_modules", "node-red");
  const version = JSON.parse(fs.readFileSync(path.join(nodeRed, "package.json"), "utf8")).version;
  const exactNode = spawnSync("npx", ["-y", "-p", `node@${nodeVersion}`, "node", "--version"], { encoding: "utf8" }).stdout.trim();
  console.log(`Node-RED ${version}, Node.js ${exactNode || nodeVersion}`);
  const mocha = path.join(root, "node_modules", "mocha", "bin", "mocha.js");
  const specs = ["dist/test/nodes/*.test.js", "dist/test/install.test.js"];
  run("npx", ["-y", "-p", `node@${nodeVersion}`, "node", mocha, "--no-config", "--timeout", "300000", "--exit", "--fail-zero", ...specs], {
    cwd: root,
    env: { ...process.env, ROBOT_FLEET_NODE_RED: nodeRed },
  });
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
