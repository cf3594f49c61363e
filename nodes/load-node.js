// A node's code for its shim: compiled (dist/), as users run it, or its TypeScript source (src/) in a child process that the fast
// test loop (npm run test:unit, no build) starts with tsx registered and ROBOT_FLEET_FROM_SOURCE=1, so it tests the current source.
const fromSource = process.env.ROBOT_FLEET_FROM_SOURCE === "1" && ".ts" in require.extensions;
module.exports = (node) => require(fromSource ? `../src/nodes/${node}` : `../dist/src/nodes/${node}`).default;
