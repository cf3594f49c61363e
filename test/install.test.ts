/**
 * What a user installs: the packed tarball holds exactly the allowed files
 * within a size bound; installed with --omit=dev into a fresh Node-RED user
 * directory (the registry's newest versions) it brings its eight runtime
 * dependencies and nothing outside their trees, and loads every node and the
 * editor plugin; a git URL installs and loads too (npm builds it first); and a
 * plain source clone installed by path says in one line what to run.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DECLARED_NODE_TYPES } from "./support/declared-nodes";
import { dependencyTree, installedPackages, packageNameOf } from "./support/dependency-tree";
import { packageRoot, startNodeRed } from "./support/editor";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

interface PackedFile {
  path: string;
  size: number;
}

/** What `npm pack` would put in the tarball, from the current build (no scripts run). */
function packList(): { files: PackedFile[]; size: number; unpackedSize: number } {
  const json = execFileSync(NPM, ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: packageRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  return (JSON.parse(json) as Array<{ files: PackedFile[]; size: number; unpackedSize: number }>)[0]!;
}

/** Every file the tarball may hold; anything else (maps, demo, tests, sources) is a mistake. */
const ALLOWED = [
  /^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/,
  /^dist\/src\/(api|nodes|simulator)\/([a-z-]+\/){0,2}[a-z0-9-]+\.js$/,
  // Types for the client and the simulator, which a TypeScript user may import.
  /^dist\/src\/(api|simulator)\/([a-z-]+\/)?[a-z-]+\.d\.ts$/,
  /^nodes\/[a-z-]+\.(js|html)$/,
  // The editor's scripts, which Node-RED serves from a module's resources/.
  /^resources\/[a-z-]+\.js$/,
  /^nodes\/icons\/[a-z-]+\.svg$/,
  /^nodes\/locales\/(en-US|zh-CN)\/[a-z-]+\.(json|html)$/,
  /^examples\/[a-z-]+\.json$/,
];
/**
 * The runtime dependencies every user installs with the package, each chosen for its size on an edge box
 * (test/package.test.ts says why each is there): a development dependency moved into "dependencies" fails here.
 */
const RUNTIME_DEPENDENCIES = ["axios", "cors", "hpagent", "ioredis", "luxon", "proxy-from-env", "rate-limiter-flexible", "zod"];

// 0.3 adds the fleet map, the simulator's floor plans and pushes, the editor scripts in resources/,
// robot-events and the shared account (275 kB packed, 964 kB unpacked); robot-job, robot-reports and
// robot-mqtt with their examples, help and the account's jobs, reports and alarms bring it to 380 kB
// packed, 1342 kB unpacked; the robot directory, navigation read from positions, robot-job's state
// table and bounds, the one time, value and report readers, with their help, 447 kB packed and 1566 kB
// unpacked; robot-plan with its proof-of-service report and example, the console's notices, alarms,
// areas and plan timeline, Home Assistant's segments and command setting, and the words in Chinese,
// 524 kB packed and 1833 kB unpacked; a robot the cloud refuses found in its batch, a robot not of the
// account refused where named, a start confirmed by its report, to the charger from a task, the incident
// log and its figures, the proof of service's parties, totals, sign-off, incidents and reasons, and the
// demo's command line, 556 kB packed and 1935 kB unpacked; robot-upkeep with its history, forecast, work
// order, example and help, the console's upkeep view, Home Assistant's part sensors, the simulator's wear
// and one plan report and one sweep for a shared account, 622 kB packed and 2165 kB unpacked. A bound a
// stray image or fixture would break.
const MAX_PACKED_BYTES = 680 * 1024;
const MAX_UNPACKED_BYTES = 2350 * 1024;

describe("install", function () {
  this.timeout(300_000);

  it("packs only what a user runs, within the size bound", () => {
    const { files, size, unpackedSize } = packList();
    const paths = files.map((file) => file.path);
    assert.deepEqual(
      paths.filter((file) => !ALLOWED.some((pattern) => pattern.test(file))),
      [],
    );
    for (const needed of [
      "LICENSE",
      "CHANGELOG.md",
      "nodes/robot-fleet.html",
      "resources/robot-fleet-editor.js",
      "nodes/locales/zh-CN/robot-command.html",
      "dist/src/simulator/cli.js",
    ]) {
      assert.ok(paths.includes(needed), needed);
    }
    assert.ok(!paths.some((file) => file.endsWith(".map") || file.includes("/demo/")));
    assert.ok(size <= MAX_PACKED_BYTES, `packed ${size} bytes`);
    assert.ok(unpackedSize <= MAX_UNPACKED_BYTES, `unpacked ${unpackedSize} bytes`);
  });

  describe("into a fresh Node-RED user directory", () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-install-"));
    after(() => fs.rmSync(work, { recursive: true, force: true }));

    function npm(args: string[], cwd: string) {
      return spawnSync(NPM, [...args, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd, encoding: "utf8" });
    }

    /** Node-RED from this repository, loading nothing but what `userDir` holds, lists every node and the plugin with no error. */
    async function expectNodeRedLoadsThePackage(userDir: string): Promise<void> {
      const nodeRed = await startNodeRed([], {}, { userDir, nodesDir: [] });
      try {
        const json = { headers: { accept: "application/json" } };
        const sets = (await (await fetch(new URL("nodes", nodeRed.url), json)).json()) as Array<{
          module: string;
          types: string[];
          enabled: boolean;
          err?: string;
        }>;
        const ours = sets.filter((set) => set.module === "node-red-contrib-robot-fleet");
        assert.deepEqual(ours.map((set) => set.err ?? "").filter(Boolean), []);
        assert.ok(ours.length > 0 && ours.every((set) => set.enabled));
        assert.deepEqual(ours.flatMap((set) => set.types).sort(), DECLARED_NODE_TYPES);
        const plugins = (await (await fetch(new URL("plugins", nodeRed.url), json)).json()) as Array<{
          module: string;
          plugins: Array<{ id: string }>;
        }>;
        assert.deepEqual(
          plugins.filter((set) => set.module === "node-red-contrib-robot-fleet").flatMap((set) => set.plugins.map((plugin) => plugin.id)),
          ["robot-fleet-editor"],
        );
        const chinese = (await (await fetch(new URL("nodes/messages?lng=zh-CN", nodeRed.url), json)).json()) as Record<
          string,
          { "robot-command"?: { paletteLabel?: string } }
        >;
        assert.equal(chinese["node-red-contrib-robot-fleet/robot-command"]?.["robot-command"]?.paletteLabel, "指令");
        assert.doesNotMatch(nodeRed.output(), /\[error\]/);
      } finally {
        await nodeRed.stop();
      }
    }

    /** A Node-RED user directory, as `node-red` creates one. */
    function freshUserDir(name: string): string {
      const userDir = path.join(work, name);
      fs.mkdirSync(userDir);
      fs.writeFileSync(path.join(userDir, "package.json"), JSON.stringify({ name: "node-red-project", private: true }));
      return userDir;
    }

    it("installs the packed tarball with --omit=dev and loads every node and the editor plugin; the tarball has no install script", async () => {
      // With its scripts, as npm publish packs: prepack leaves "prepare" out of the packed manifest.
      const packed = execFileSync(NPM, ["pack", "--pack-destination", work], {
        cwd: packageRoot,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      })
        .trim()
        .split("\n")
        .at(-1)!;
      const manifest = JSON.parse(
        execFileSync("tar", ["-xzOf", path.join(work, packed), "package/package.json"], { encoding: "utf8" }),
      ) as { scripts?: Record<string, string>; dependencies?: Record<string, string> };
      const installScripts = ["preinstall", "install", "postinstall", "prepare"].filter((name) => manifest.scripts?.[name] !== undefined);
      assert.deepEqual(installScripts, [], "npm 11 asks users to approve these");
      const working = JSON.parse(fs.readFileSync(path.join(packageRoot, "package.json"), "utf8")) as { scripts: Record<string, string> };
      assert.ok(working.scripts.prepare, "the working tree keeps prepare");
      const userDir = freshUserDir("user");
      const installed = npm(["install", "--omit=dev", path.join(work, packed)], userDir);
      assert.equal(installed.status, 0, installed.stderr);
      // Each installed package.json says what it brought, as the registry serves it today: a dependency's later release
      // may need other packages than the lockfile's versions did.
      const declared = Object.keys(manifest.dependencies ?? {}).sort();
      assert.deepEqual(declared, RUNTIME_DEPENDENCIES, "the runtime dependencies");
      const ours = path.join(userDir, "node_modules", "node-red-contrib-robot-fleet");
      const brought = dependencyTree(declared, ours);
      const extra = installedPackages(path.join(userDir, "node_modules")).filter((dir) => dir !== ours && !brought.has(dir));
      assert.deepEqual(extra.map(packageNameOf), [], "installed, though no runtime dependency's tree has it");

      await expectNodeRedLoadsThePackage(userDir);
      // A program beside it requires the client by the package's name (its exports map), the simulator by its subpath, no internal module; the bin runs.
      const script = `
        const { RobotClient, RobotApiError } = require("node-red-contrib-robot-fleet");
        const { startSimulator } = require("node-red-contrib-robot-fleet/simulator");
        let deep;
        try { require("node-red-contrib-robot-fleet/dist/src/api/engine/engine.js"); deep = "loaded"; } catch (error) { deep = error.code; }
        console.log([typeof RobotClient, typeof RobotApiError, typeof startSimulator, deep].join(" "));`;
      assert.equal(
        execFileSync(process.execPath, ["-e", script], { cwd: userDir, encoding: "utf8" }).trim(),
        "function function function ERR_PACKAGE_PATH_NOT_EXPORTED",
      );
      const bin = spawnSync(path.join(userDir, "node_modules", ".bin", "robot-cloud-simulator"), ["--help"], { encoding: "utf8" });
      assert.equal(bin.status, 0, bin.stderr);
      assert.match(bin.stdout, /--port/);
    });

    it("installs from a git URL of this clone's HEAD: npm builds it with its dev dependencies, then Node-RED loads it", async function () {
      if (!fs.existsSync(path.join(packageRoot, ".git"))) this.skip();
      const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: packageRoot, encoding: "utf8" }).trim();
      const userDir = freshUserDir("user-git");
      // --offline: the dev dependencies that "prepare" builds with come from npm's cache, which this clone's own install filled.
      const installed = npm(["install", "--omit=dev", "--offline", `git+file://${packageRoot}#${head}`], userDir);
      assert.equal(installed.status, 0, installed.stderr);
      const installedRoot = path.join(userDir, "node_modules", "node-red-contrib-robot-fleet");
      assert.ok(
        fs.existsSync(path.join(installedRoot, "dist", "src", "nodes", "robot-command", "robot-command.js")),
        "prepare built the nodes",
      );
      assert.ok(!fs.existsSync(path.join(installedRoot, "dist", "test")), "only what the files list allows was kept");
      await expectNodeRedLoadsThePackage(userDir);
    });

    it("says in one line what to run when a plain source clone is installed by path", () => {
      const clone = path.join(work, "clone");
      // The clone as git has it: tracked files only, nothing built, no node_modules.
      for (const file of execFileSync("git", ["ls-files"], { cwd: packageRoot, encoding: "utf8" }).split("\n").filter(Boolean)) {
        fs.mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
        fs.copyFileSync(path.join(packageRoot, file), path.join(clone, file));
      }
      const userDir = freshUserDir("user-clone");
      const installed = npm(["install", "--omit=dev", clone], userDir);
      assert.notEqual(installed.status, 0);
      const ours = (installed.stdout + installed.stderr).split("\n").filter((line) => line.includes("node-red-contrib-robot-fleet:"));
      assert.equal(ours.length, 1, installed.stderr);
      assert.match(ours[0]!, /this source clone is not built; run "npm install" in .*clone first/);
      assert.doesNotMatch(installed.stderr, /tsc: not found|MODULE_NOT_FOUND/);
    });
  });
});
