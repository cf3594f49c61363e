// npm test, after pretest built the package and checked the system: the lint
// (prettier, type-aware eslint, the dependency rules) and every mocha test at
// once. The lint takes a minute of one core; the compiled suite waits on real
// seconds, child processes and a browser most of the time, so running them
// side by side keeps npm test within its 10 minutes on a 2-core machine. The
// lint's output is shown after the tests'; either failing fails npm test.
"use strict";
const { spawn } = require("node:child_process");

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, options);
    let output = "";
    child.stdout?.on("data", (chunk) => (output += chunk));
    child.stderr?.on("data", (chunk) => (output += chunk));
    child.on("error", (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

async function main() {
  const lint = run(npm, ["run", "--silent", "lint"], { stdio: ["ignore", "pipe", "pipe"] });
  // mocha reads .mocharc.json; extra arguments (npm test -- --grep x) go to it.
  const tests = run(process.execPath, [require.resolve("mocha/bin/mocha.js"), ...process.argv.slice(2)], { stdio: "inherit" });
  const [linted, tested] = await Promise.all([lint, tests]);
  process.stdout.write(
    `\nnpm run lint: ${linted.code === 0 ? "passed" : `failed (exit ${linted.code})`}\n${linted.code === 0 ? "" : linted.output}`,
  );
  process.exitCode = tested.code !== 0 ? tested.code : linted.code;
}

void main();
