// npm test: every compiled test file, three at a time. Most of the compiled
// suite waits on real seconds, timers, child processes and a browser, so three
// files keep two cores busy without starving them.
const fs = require("node:fs");
const path = require("node:path");

// Mocha's parallel workers take files in the order given. The longest files go
// first, so that none of them starts last and leaves the other workers idle at
// the end (these took 40-120 s each on the 2-core development machine).
const LONGEST_FIRST = [
  "install",
  "nodes/robot-mqtt-home-assistant",
  "cluster/shared-account",
  "nodes/robot-mqtt",
  "demo/dashboard",
  "nodes/confirmation",
  "demo/demo",
  "editor/pickers",
  "editor/palette-config-help",
  "demo/console-notices",
].map((name) => path.resolve("dist", "test", `${name}.test.js`));

function testFiles(folder) {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) return testFiles(file);
    return entry.name.endsWith(".test.js") ? [file] : [];
  });
}

const all = fs.existsSync(path.resolve("dist", "test")) ? testFiles(path.resolve("dist", "test")).sort() : [];

module.exports = {
  spec: [...LONGEST_FIRST.filter((file) => all.includes(file)), ...all.filter((file) => !LONGEST_FIRST.includes(file))],
  "fail-zero": true,
  timeout: 20000,
  exit: true,
  parallel: true,
  jobs: 3,
};
