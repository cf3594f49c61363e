// Mutation testing of src/api's policy modules: `npm run mutate` (not in CI, not in npm test).
// One module at a time while working on it: `npm run mutate -- --mutate src/api/pushes/pushes.ts`.
// StrykerJS 10 needs Node.js 22 or later; the script runs it on one fetched from the registry, as `npm run compat` does.
import { fileURLToPath } from "node:url";

const MOCHA_HELPERS_HOOK = fileURLToPath(new URL("scripts/stryker-mocha-helpers.js", import.meta.url));

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "mocha",
  mutate: [
    "src/api/engine/engine.ts",
    "src/api/settings/call-settings.ts",
    "src/api/cloud/schemas.ts",
    "src/api/pushes/pushes.ts",
    "src/api/pushes/push-receiver.ts",
    "src/api/cloud/incident-levels.ts",
    // Only the account's keys of the Redis link (accountKeyOf and key()): the rest of the link talks to
    // a real Redis, whose tests (test:redis) take too long to run once per mutant on a shared machine.
    "src/api/sharing/redis-link.ts:29-32",
    "src/api/sharing/redis-link.ts:90-93",
  ],
  mochaOptions: {
    "no-config": true,
    // The tests that exercise those modules, straight from the TypeScript through tsx (as test:unit does).
    spec: [
      "test/api/engine.test.ts",
      "test/api/engine-gate.test.ts",
      "test/api/engine-edges.test.ts",
      "test/api/retries.test.ts",
      "test/api/fleet.test.ts",
      "test/api/request-fields.test.ts",
      "test/api/answer-fields.test.ts",
      "test/api/endpoints.test.ts",
      "test/api/paths.test.ts",
      "test/api/errors.test.ts",
      "test/api/pushes.test.ts",
      "test/api/account-keys.test.ts",
    ],
    require: ["tsx/cjs"],
  },
  testRunnerNodeArgs: ["--require", MOCHA_HELPERS_HOOK],
  coverageAnalysis: "perTest",
  // Two cores shared with other work.
  concurrency: 2,
  incremental: true,
  incrementalFile: "reports/stryker-incremental.json",
  reporters: ["clear-text", "progress", "html"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  ignorePatterns: ["dist", "reports", ".bench", "nodes/icons"],
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
