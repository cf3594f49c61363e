/**
 * How a child process runs a module of src/: its compiled file when the tests
 * run compiled (npm test), or its TypeScript source through tsx when they run
 * from source (npm run test:unit, no build). A child that loads this package's
 * nodes into Node-RED (nodesDir the package root) needs both CHILD_NODE_OPTIONS
 * and CHILD_ENV: the node shims (nodes/*.js, through nodes/load-node.js) load
 * src/ only when told to and tsx is registered, and dist/ otherwise.
 */
import path from "node:path";

const FROM_SOURCE = __filename.endsWith(".ts");
const ROOT = path.resolve(__dirname, FROM_SOURCE ? "../.." : "../../..");
/** The package's root directory (examples/, nodes/), from source or compiled alike. */
export const PACKAGE_ROOT = ROOT;

/** The file of a module of src/ ("api/client") that this test run uses. */
export function srcFile(srcModule: string): string {
  return FROM_SOURCE ? path.join(ROOT, "src", `${srcModule}.ts`) : path.join(ROOT, "dist", "src", `${srcModule}.js`);
}

/** Node's options a child needs before its script or `-e` code to load src/ as this run does. */
export const CHILD_NODE_OPTIONS: readonly string[] = FROM_SOURCE ? ["--require", "tsx/cjs"] : [];

/** Environment a child needs, over its own, for the node shims to load src/ as this run does (nodes/load-node.js). */
export const CHILD_ENV: Readonly<Record<string, string>> = FROM_SOURCE ? { ROBOT_FLEET_FROM_SOURCE: "1" } : {};
