/** A throwaway Node-RED user directory with this package installed, as npm links a local folder. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const packageRoot = path.resolve(__dirname, "../../..");
const packageName = (JSON.parse(fs.readFileSync(path.join(packageRoot, "package.json"), "utf8")) as { name: string }).name;

/** Makes the directory with the package linked in and the flows and credentials written; returns its path. */
export function prepareUserDir(flows: unknown, credentials: unknown): string {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-demo-"));
  const modules = path.join(userDir, "node_modules");
  fs.mkdirSync(path.dirname(path.join(modules, packageName)), { recursive: true });
  fs.symlinkSync(packageRoot, path.join(modules, packageName), "dir");
  fs.writeFileSync(path.join(userDir, "flows.json"), JSON.stringify(flows, null, 2));
  fs.writeFileSync(path.join(userDir, "flows_cred.json"), JSON.stringify(credentials, null, 2));
  return userDir;
}

/** The embedded Node-RED settings of a demo instance. */
export function demoSettings(userDir: string): Record<string, unknown> {
  return {
    userDir,
    flowFile: "flows.json",
    // Flows serve pages at the editor's port, as in a default Node-RED (the fleet-page example at /fleet).
    httpNodeRoot: "/",
    logging: { console: { level: "info", metrics: false, audit: false } },
  };
}
