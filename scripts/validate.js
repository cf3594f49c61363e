#!/usr/bin/env node
// The Flow Library's checks (node-red-dev validate), not part of npm test: it downloads the tool
// and asks the npm registry. Passes when the only warning is the advice to use a scoped name
// (P04). Two checks (P08 similar package names, N01 node type names) compare against
// catalogue.nodered.org; where that is unreachable they get an empty catalogue and say so.
// Usage: npm run validate
"use strict";
const fs = require("node:fs");
const https = require("node:https");
const os = require("node:os");
const path = require("node:path");
const { spawnSync } = require("node:child_process");

const CATALOGUE = "https://catalogue.nodered.org/catalogue.json";
const ALLOWED_WARNING = /P04 New Packages should use a scoped name/;

if (require.main !== module) {
  // Loaded with --require into the tool's process: its axios answers the catalogue with no modules.
  const Module = require("node:module");
  const load = Module._load;
  Module._load = function (request, parent) {
    const loaded = load.apply(this, arguments);
    if (request !== "axios" || !parent?.filename.includes("node-red-dev")) return loaded;
    const get = loaded.get.bind(loaded);
    return Object.assign(Object.create(loaded), {
      get: (url, ...rest) => (url === CATALOGUE ? Promise.resolve({ data: { modules: [] } }) : get(url, ...rest)),
    });
  };
  return;
}

function catalogueReachable() {
  return new Promise((resolve) => {
    const request = https.get(CATALOGUE, { method: "HEAD", timeout: 5000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(false));
  });
}

async function main() {
  const root = path.resolve(__dirname, "..");
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-validate-"));
  try {
    const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", work, "node-red-dev@0"], {
      stdio: "inherit",
    });
    if (install.status !== 0) return install.status ?? 1;
    const tool = path.join(work, "node_modules", "node-red-dev", "bin", "run");
    const offline = !(await catalogueReachable());
    if (offline) console.log(`${CATALOGUE} is unreachable: P08 and N01 run against an empty catalogue and prove nothing here.`);
    const args = [...(offline ? ["--require", __filename] : []), tool, "validate", "-p", root];
    const result = spawnSync(process.execPath, args, { encoding: "utf8" });
    const output = `${result.stdout}${result.stderr}`;
    process.stdout.write(output);
    const warnings = output.split("\n").filter((line) => /Warning:|Error:/.test(line) && !ALLOWED_WARNING.test(line));
    if (result.status !== 0 || warnings.length > 0 || !/^Complete$/m.test(result.stdout)) {
      console.error(`validate: FAIL (exit ${result.status}, ${warnings.length} warning(s) other than P04)`);
      return 1;
    }
    console.log("validate: PASS (no warning other than the scoped-name advice)");
    return 0;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code));
