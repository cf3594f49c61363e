/**
 * How a child process runs a module of src/: its compiled file when the tests
 * run compiled (npm test), or its TypeScript source through tsx when they run
 * from source (npm run test:unit, no build).
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
