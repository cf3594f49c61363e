/**
 * The robot-cloud-simulator command: flags become options (bad ones are named),
 * the real process prints what a user needs, serves requests with the flags
 * applied, and stops cleanly on SIGINT and SIGTERM.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { RobotClient } from "../../src/api/client";
import { RobotApiError } from "../../src/api/errors";
import { CliUsageError, USAGE, parseCliArgs } from "../../src/simulator/cli";
import { REALISTIC_TIMING } from "../../src/simulator/world/timing";
import { CHILD_NODE_OPTIONS, srcFile } from "../support/child-node";

const CLI = srcFile("simulator/cli");

function run(args: string[]): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [...CHILD_NODE_OPTIONS, CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => text, exit };
}

async function urlOf(output: () => string, exit: Promise<number | null>): Promise<string> {
  let exited = false;
  void exit.then(() => (exited = true));
  for (const started = Date.now(); Date.now() - started < 10_000 && !exited;) {
    const url = /listening on (http:\/\/\S+)/.exec(output())?.[1];
    if (url) return url;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`the simulator did not start:\n${output()}`);
}

describe("simulator: the robot-cloud-simulator command", function () {
  describe("flags", () => {
    it("turns flags into options, tokens repeatable and comma-separated", () => {
      const command = parseCliArgs([
        "--port",
        "0",
        "--host",
        "::1",
        "--token",
        "a,b",
        "--token",
        "c",
        "--latency",
        "25",
        "--fail-rate",
        "0.1",
        "--drop-rate",
        "0",
        "--malformed-rate",
        "1",
        "--rate-limit",
        "5",
        "--rate-window",
        "2000",
        "--seed",
        "9",
        "--quiet",
        "--robots",
        "200",
        "--command-delay",
        "500",
        "--navigation-ms",
        "0",
        "--task-ms",
        "60000",
        "--battery-drain",
        "2.5",
        "--battery-charge",
        "10",
        "--ignore-rate",
        "0.25",
        "--task-fault-rate",
        "0.1",
        "--speed",
        "2.5",
      ]);
      assert.deepEqual(command, {
        help: false,
        options: {
          port: 0,
          host: "::1",
          tokens: ["a", "b", "c"],
          faults: { latencyMs: 25, failRate: 0.1, dropRate: 0, malformedRate: 1, ignoreRate: 0.25, taskFaultRate: 0.1 },
          rateLimit: { requests: 5, windowMs: 2000 },
          seed: 9,
          quiet: true,
          robots: 200,
          timing: {
            commandDelayMs: 500,
            navigationMs: 0,
            taskDurationMs: 60_000,
            batteryDrainPerMinute: 2.5,
            batteryChargePerMinute: 10,
            speedPixelsPerSecond: 2.5,
          },
        },
      });
    });

    it("defaults to port 18080 on loopback with the default rate limit, and --rate-limit 0 turns it off", () => {
      assert.deepEqual(parseCliArgs([]), {
        help: false,
        options: {
          port: 18080,
          host: "127.0.0.1",
          faults: {},
          rateLimit: { requests: 20, windowMs: 1000 },
          timing: REALISTIC_TIMING,
          quiet: false,
        },
      });
      const off = parseCliArgs(["--rate-limit", "0"]);
      assert.equal(off.help === false && off.options.rateLimit, false);
      assert.deepEqual(parseCliArgs(["--help"]), { help: true });
    });

    it("documents --speed and PATCH's mapPosition (pixels, rows from the bottom edge) in the help", () => {
      assert.match(USAGE, /--speed PX +pixels per second a cleaning robot travels/);
      assert.match(USAGE, /mapPosition \{x, y, angle\}/);
      assert.match(USAGE, /rows counted from its bottom edge/);
    });

    for (const [args, message] of [
      [["--fail-rate", "1.5"], /--fail-rate must be a number from 0 to 1/],
      [["--port", "70000"], /^--port must be from 0 to 65535, not "70000"$/],
      [["--latency", "fast"], /--latency must be a whole number/],
      [["--token", "a,,b"], /--token must not be empty/],
      [["--colour"], /colour/],
      [["--robots", "0"], /^--robots must be from 1 to 5000, not "0"$/],
      [["--command-delay=-1"], /^--command-delay must be 0 or more ms, not "-1"$/],
      [["--ignore-rate", "2"], /--ignore-rate must be a number from 0 to 1/],
      [["--latency", "100000"], /^--latency must be a whole number of milliseconds from 0 to 60000, not "100000"$/],
      [["--latency", "1.5"], /^--latency must be a whole number of milliseconds/],
      [["--seed", "x"], /^--seed must be a whole number, not "x"$/],
      [["--battery-drain", "x"], /^--battery-drain must be a number from 0 to 100, not "x"$/],
      [["--speed=-1"], /^--speed must be from 0 to 200 pixels per second, not "-1"$/],
      [["extra"], /extra/],
    ] as const) {
      it(`refuses ${args.join(" ")}`, () => {
        assert.throws(
          () => parseCliArgs([...args]),
          (error: unknown) => error instanceof CliUsageError && message.test(error.message),
        );
      });
    }
  });

  describe("the process", () => {
    it("starts with a node shebang (the package.json bin entry runs it directly)", () => {
      assert.match(fs.readFileSync(CLI, "utf8"), /^#!\/usr\/bin\/env node\n/);
    });

    it("prints the URL, tokens and client credentials, applies its flags, and stops on SIGINT", async () => {
      const { child, output, exit } = run(["--port", "0", "--token", "cli-token-1,cli-token-2", "--fail-rate", "1", "--quiet"]);
      try {
        const url = await urlOf(output, exit);
        const text = output();
        assert.match(text, /cli-token-1 +\(all robots\)/);
        assert.match(text, /warehouse-token +\(GS-S-000201 only\)/);
        assert.match(text, /client id demo-client, client secret demo-client-secret/);
        assert.match(text, /access key secret demo-access-key-secret/);
        assert.match(text, /Faults +fail 100%/);

        const client = new RobotClient({ baseUrl: url, auth: { token: "cli-token-2" }, retry: { maxRetries: 0 } });
        const error = await client.getRobotStatus({ serialNumber: "GS-S-000101" }).then(
          () => assert.fail("the fail rate of 1 applies"),
          (failure: unknown) => failure as RobotApiError,
        );
        assert.equal(error.status, 500);
        const faults = (await (await fetch(`${url}/_sim/faults`)).json()) as { failRate: number };
        assert.equal(faults.failRate, 1);
      } finally {
        child.kill("SIGINT");
      }
      assert.equal(await exit, 0, output());
    });

    it("stops cleanly on SIGTERM", async () => {
      const { child, output, exit } = run(["--port", "0"]);
      await urlOf(output, exit);
      child.kill("SIGTERM");
      assert.equal(await exit, 0, output());
      assert.match(output(), /SIGTERM: stopping the simulator/);
    });

    it("prints the usage for --help and exits 2 with the usage for a bad flag", async () => {
      const help = run(["--help"]);
      assert.equal(await help.exit, 0);
      assert.match(help.output(), /^Usage: robot-cloud-simulator/);
      const bad = run(["--drop-rate", "2"]);
      assert.equal(await bad.exit, 2);
      assert.match(bad.output(), /--drop-rate must be a number from 0 to 1/);
      assert.match(bad.output(), /Usage: robot-cloud-simulator/);
      // Past the bound of PUT /_sim/faults: refused on the command line in one line, never a crash with zod's JSON.
      const slow = run(["--latency", "100000"]);
      assert.equal(await slow.exit, 2);
      assert.match(
        slow.output(),
        /^robot-cloud-simulator: --latency must be a whole number of milliseconds from 0 to 60000, not "100000"$/m,
      );
      assert.doesNotMatch(slow.output(), /"code":|ZodError|could not start/);
    });
  });
});
