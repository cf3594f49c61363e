/**
 * The demo's command line: --help prints every option and every environment
 * setting the demo reads (found in its sources, so a new one is not left out
 * of the help) and starts nothing; an option it does not know is refused with
 * the pointer to --help, and nothing starts either.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { root } from "../support/demo-process";

/** The demo's command, run to its end; DEMO_DIR a folder that does not exist yet (the demo creates it when it starts). */
function runDemo(args: string[]) {
  const demoDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-demo-help-")), "flows");
  const result = spawnSync(process.execPath, [path.join(root, "dist/src/demo/start.js"), ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, DEMO_DIR: demoDir, PORT: "0", SIMULATOR_PORT: "0", MQTT_PORT: "0" },
    timeout: 60_000,
  });
  const started = fs.existsSync(demoDir);
  fs.rmSync(path.dirname(demoDir), { recursive: true, force: true });
  return { ...result, started };
}

/** The environment settings the first process reads (second-instance.ts is told its own by start.ts). */
function settingsReadBySources(): string[] {
  const folder = path.join(root, "src", "demo");
  const names = new Set<string>();
  for (const file of fs.readdirSync(folder).filter((name) => name.endsWith(".ts") && name !== "second-instance.ts")) {
    const text = fs.readFileSync(path.join(folder, file), "utf8");
    for (const match of text.matchAll(/process\.env\.([A-Z_]+)|portFromEnv\("([A-Z_]+)"/g)) names.add((match[1] ?? match[2])!);
  }
  return [...names].sort();
}

describe("demo: the command line", function () {
  this.timeout(120_000);

  it("--help lists every option and every environment setting the demo reads, exits 0 and starts nothing", () => {
    const help = runDemo(["--help"]);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: npm start -- \[options\]/);
    for (const option of ["--fresh", "--shared", "--verbose", "--lang CODE", "-h, --help"]) assert.ok(help.stdout.includes(option), option);
    const settings = settingsReadBySources();
    // What the sources read must include at least these, or the scan itself is broken.
    for (const known of ["PORT", "SIMULATOR_ROBOTS", "SIMULATOR_TASK_FAULT_RATE", "DEMO_DIR", "REDIS_URL"])
      assert.ok(settings.includes(known), known);
    assert.deepEqual(
      settings.filter((name) => !new RegExp(`^  ${name}\\b`, "m").test(help.stdout)),
      [],
      "settings the demo reads that the help does not list",
    );
    assert.match(help.stdout, /^ {2}LC_ALL, LC_MESSAGES, LANG\b/m);
    assert.equal(help.started, false, "the demo's folder was not created");
    assert.doesNotMatch(help.stdout, /Robot fleet demo is running/);
  });

  it("prints the help in Chinese with --lang zh-CN", () => {
    const help = runDemo(["--lang", "zh-CN", "-h"]);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^用法：npm start -- \[选项\]/);
    assert.match(help.stdout, /^ {2}SIMULATOR_TASK_FAULT_RATE\s+任务启动失败的比例/m);
  });

  for (const args of [["--nope"], ["--fresh", "kitchen"], ["--lang"]]) {
    it(`refuses ${args.join(" ")} with the pointer to --help, exits 2 and starts nothing`, () => {
      const refused = runDemo(args);
      assert.equal(refused.status, 2, refused.stdout + refused.stderr);
      assert.match(refused.stderr, /^The demo does not take that: .+\nnpm start -- --help lists what it takes\.$/m);
      assert.ok(refused.stderr.includes(args.at(-1)!), `names ${args.at(-1)}`);
      assert.equal(refused.started, false, "the demo's folder was not created");
      assert.equal(refused.stdout, "");
    });
  }
});
