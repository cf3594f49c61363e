// npm test, after pretest built the package and checked the system: the lint
// (prettier, type-aware eslint, the dependency rules) and every mocha test at
// once. The lint takes a minute of one core; the compiled suite waits on real
// seconds, child processes and a browser most of the time, so running them
// side by side keeps npm test within its 10 minutes on a 2-core machine. The
// lint runs at the lowest priority, so the tests' timers fire no later than
// they would alone. Its output is shown after the tests'; either failing
// fails npm test.
"use strict";
const { spawn } = require("node:child_process");
const os = require("node:os");

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** The lowest scheduling priority (nice 19): the lint takes what the tests leave idle, and their timers are not made late. */
const LOWEST_PRIORITY = 19;

function run(command, args, options, priority) {
  return new Promise((resolve) => {
    const child = spawn(command, args, options);
    // Set before npm starts the lint's programs (its start takes far longer), which inherit it.
    if (priority !== undefined && child.pid !== undefined) {
      try {
        os.setPriority(child.pid, priority);
      } catch {
        // Not allowed here: the lint runs at the tests' priority.
      }
    }
    let output = "";
    child.stdout?.on("data", (chunk) => (output += chunk));
    child.stderr?.on("data", (chunk) => (output += chunk));
    child.on("error", (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

async function main() {
  const lint = run(npm, ["run", "--silent", "lint"], { stdio: ["ignore", "pipe", "pipe"] }, LOWEST_PRIORITY);
  // mocha reads .mocharc.json; extra arguments (npm test -- --grep x) go to it.
  const tests = run(process.execPath, [require.resolve("mocha/bin/mocha.js"), ...process.argv.slice(2)], { stdio: "inherit" });
  const [linted, tested] = await Promise.all([lint, tests]);
  process.stdout.write(
    `\nnpm run lint: ${linted.code === 0 ? "passed" : `failed (exit ${linted.code})`}\n${linted.code === 0 ? "" : linted.output}`,
  );
  process.exitCode = tested.code !== 0 ? tested.code : linted.code;
}

void main();
