/**
 * What npm actually installed, read from the installed packages' own
 * package.json files (not from a lockfile, which names the versions of the day
 * it was written: a dependency's later release may bring other packages).
 */
import fs from "node:fs";
import path from "node:path";

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function manifestOf(dir: string): Manifest {
  return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as Manifest;
}

/** Where Node (and npm's layout) finds `name` for the package in `from`: its own node_modules, then each folder above. */
function resolvePackage(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The folders of every package that `names`, required from `from`, bring with
 * them: each one and, recursively, what its package.json depends on (peer
 * dependencies too, which npm installs; an optional one that is not installed
 * is skipped).
 */
export function dependencyTree(names: readonly string[], from: string): Set<string> {
  const found = new Set<string>();
  const visit = (name: string, requiredFrom: string) => {
    const dir = resolvePackage(name, requiredFrom);
    if (dir === undefined || found.has(dir)) return;
    found.add(dir);
    const manifest = manifestOf(dir);
    const needs = { ...manifest.peerDependencies, ...manifest.optionalDependencies, ...manifest.dependencies };
    for (const dependency of Object.keys(needs)) visit(dependency, dir);
  };
  for (const name of names) visit(name, from);
  return found;
}

/** The folder of every package installed in `nodeModules`, nested ones included (a scope's packages as @scope/name). */
export function installedPackages(nodeModules: string): string[] {
  if (!fs.existsSync(nodeModules)) return [];
  return fs
    .readdirSync(nodeModules)
    .filter((name) => !name.startsWith("."))
    .flatMap((name) =>
      name.startsWith("@") ? fs.readdirSync(path.join(nodeModules, name)).map((inner) => path.join(name, inner)) : [name],
    )
    .flatMap((name) => {
      const dir = path.join(nodeModules, name);
      return [dir, ...installedPackages(path.join(dir, "node_modules"))];
    });
}

/** A package's name from its folder: the part after its last node_modules/. */
export function packageNameOf(dir: string): string {
  const marker = `node_modules${path.sep}`;
  return dir
    .slice(dir.lastIndexOf(marker) + marker.length)
    .split(path.sep)
    .join("/");
}
