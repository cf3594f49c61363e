// @stryker-mutator/mocha-runner 10.0.0 requires mocha's CLI helpers as "mocha/lib/cli/<name>", written for a
// mocha 12 pre-release; mocha 12.0 ships them as "<name>.cjs", which require() does not try. Loaded with
// --require into Stryker and its test runner processes (stryker.config.mjs), it retries those with ".cjs".
"use strict";
const Module = require("node:module");

const resolve = Module._resolveFilename;
const MOCHA_CLI_HELPER = /[\\/]mocha[\\/]lib[\\/]cli[\\/][\w-]+$/;

Module._resolveFilename = function resolveMochaCliHelper(request, ...rest) {
  try {
    return resolve.call(this, request, ...rest);
  } catch (error) {
    if (MOCHA_CLI_HELPER.test(request)) return resolve.call(this, `${request}.cjs`, ...rest);
    throw error;
  }
};
