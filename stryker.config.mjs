// Mutation testing of src/api's policy modules: `npm run mutate` (not in CI, not in npm test).
// One folder at a time while working on it (each picks its own tests, below):
//   npm run mutate -- --mutate "src/api/pushes/**/*.ts"
// StrykerJS 10 needs Node.js 22 or later; the script runs it on one fetched from the registry, as `npm run compat` does.
// Results: the clear-text report on the terminal, reports/mutation/index.html, and reports/stryker-incremental.json
// (the incremental file: a mutant whose code and tests did not change is not run again). reports/ is not committed.
import { existsSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";

const MOCHA_HELPERS_HOOK = fileURLToPath(new URL("scripts/stryker-mocha-helpers.js", import.meta.url));

/**
 * What is mutated, folder by folder, and the tests that cover it: the unit tests in test/api where they reach
 * every policy of the folder; node tests (slower: a real embedded Node-RED) only where a policy is seen through a node.
 */
const FOLDERS = {
  "src/api/pushes": {
    mutate: ["src/api/pushes/**/*.ts"],
    spec: [
      "test/api/pushes.test.ts",
      "test/api/open-alarms.test.ts",
      "test/api/pushes-boundaries.test.ts",
      "test/api/incident-figures.test.ts",
    ],
  },
  "src/api/reports": {
    mutate: ["src/api/reports/**/*.ts"],
    spec: ["test/api/reports.test.ts", "test/api/report-store.test.ts", "test/api/reports-boundaries.test.ts"],
  },
  "src/api/mqtt": {
    mutate: ["src/api/mqtt/**/*.ts"],
    spec: ["test/api/mqtt.test.ts", "test/api/mqtt-boundaries.test.ts"],
  },
  "src/api/engine": {
    mutate: ["src/api/engine/**/*.ts"],
    spec: [
      "test/api/engine.test.ts",
      "test/api/engine-gate.test.ts",
      "test/api/engine-edges.test.ts",
      "test/api/abort-listeners.test.ts",
      "test/api/retries.test.ts",
      "test/api/fleet.test.ts",
      "test/api/engine-boundaries.test.ts",
    ],
  },
  "src/api/jobs": {
    mutate: ["src/api/jobs/**/*.ts"],
    // robot-job's node tests (test/nodes/robot-job*.test.ts) need a real Redis and run for seconds: not per mutant.
    spec: [
      "test/api/dispatch.test.ts",
      "test/api/navigation.test.ts",
      "test/api/status-reader.test.ts",
      "test/api/jobs-boundaries.test.ts",
      "test/api/robot-claims.test.ts",
      "test/api/sightings.test.ts",
      // task-report.ts's listing of a start's report, and its choice at its boundaries (clock offset, names, job record).
      "test/api/report-store.test.ts",
      "test/api/start-report.test.ts",
    ],
  },
  // robot-plan's plan reading, calendar, occurrences, plan book and proof-of-service report (the node's Redis and
  // context paths are tried through real Node-RED in test/nodes/robot-plan*.test.ts, too slow per mutant).
  "src/api/plans": {
    mutate: ["src/api/plans/**/*.ts"],
    spec: [
      "test/api/plan-calendar.test.ts",
      "test/api/plan-report.test.ts",
      "test/api/plan-report-boundaries.test.ts",
      "test/api/plan-book.test.ts",
    ],
  },
  // The tables the engine's tests also cover.
  other: {
    mutate: [
      "src/api/settings/call-settings.ts",
      "src/api/cloud/schemas.ts",
      "src/api/cloud/incident-levels.ts",
      // Only the account's keys of the Redis link (accountKeyOf and key()): the rest of the link talks to
      // a real Redis, whose tests (test:redis) take too long to run once per mutant on a shared machine.
      "src/api/sharing/redis-link.ts:29-32",
      "src/api/sharing/redis-link.ts:90-93",
    ],
    spec: [
      "test/api/engine.test.ts",
      "test/api/fleet.test.ts",
      "test/api/request-fields.test.ts",
      "test/api/answer-fields.test.ts",
      "test/api/endpoints.test.ts",
      "test/api/paths.test.ts",
      "test/api/errors.test.ts",
      "test/api/pushes.test.ts",
      "test/api/open-alarms.test.ts",
      "test/api/account-keys.test.ts",
    ],
  },
};

/** The patterns given with --mutate (or -m) on the command line, if any. */
function mutateArgument(argv) {
  const index = argv.findIndex((arg) => arg === "--mutate" || arg === "-m" || arg.startsWith("--mutate="));
  if (index < 0) return undefined;
  const value = argv[index].startsWith("--mutate=") ? argv[index].slice("--mutate=".length) : argv[index + 1];
  return value?.split(",").map((pattern) => pattern.trim());
}

const directoryOf = (pattern) => pattern.replace(/\/[^/]*$/, "");
const asked = mutateArgument(process.argv);
// A run of some folders takes only their tests; a run of everything (or of a file no folder names), all of them.
const chosen = Object.entries(FOLDERS).filter(
  ([, { mutate }]) => asked && asked.some((pattern) => mutate.some((own) => pattern.startsWith(directoryOf(own.replace(/\*\*.*$/, ""))))),
);
const runOf = chosen.length > 0 ? chosen : Object.entries(FOLDERS);
const specs = [...new Set(runOf.flatMap(([, entry]) => entry.spec))].filter((spec) => existsSync(spec));
// Each folder keeps its own incremental file and HTML report, so that running one does not forget another's results.
const runName = chosen.length === 1 ? chosen[0][0].replace(/^src\/api\//, "") : "all";

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "mocha",
  mutate: Object.values(FOLDERS).flatMap((entry) => entry.mutate),
  mochaOptions: {
    "no-config": true,
    // Straight from the TypeScript through tsx (as test:unit does).
    spec: specs,
    require: ["tsx/cjs"],
  },
  testRunnerNodeArgs: ["--require", MOCHA_HELPERS_HOOK],
  coverageAnalysis: "perTest",
  // Two cores shared with other work.
  concurrency: 2,
  incremental: true,
  incrementalFile: `reports/stryker-incremental-${runName}.json`,
  reporters: ["clear-text", "progress", "html"],
  htmlReporter: { fileName: `reports/mutation/${runName}.html` },
  // Anchored: "reports" alone would leave src/api/reports out of the sandbox.
  ignorePatterns: ["/dist", "/reports", "/.bench", "/nodes/icons"],
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
