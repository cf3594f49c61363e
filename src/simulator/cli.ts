#!/usr/bin/env node
/**
 * robot-cloud-simulator: runs the simulated robot cloud so flows can be built
 * with no robot. Prints the base URL, the tokens and the client credentials to
 * put in a robot-config node; Ctrl-C (or SIGTERM) stops it.
 */
import { parseArgs } from "node:util";
import { numberProblem, type NumberRange } from "../api/settings/input-rules";
import { demoFleet, grownFleet, DEMO_CLIENT, MAX_FLEET_ROBOTS } from "./world/fleet";
import { REALISTIC_TIMING, type Timing } from "./world/timing";
import { FAULT_FLAGS, FaultsUpdate, type Faults } from "./faults/faults";
import { PushTargetSchema, type PushTarget } from "./pushes/pushes";
import { CONTROL_PREFIX, DEFAULT_RATE_LIMIT, OBJECT_PREFIX, startSimulator, type RateLimit, type SimulatorOptions } from "./server/server";

export const DEFAULT_CLI_PORT = 18080;

export const USAGE = `Usage: robot-cloud-simulator [options]

A simulated robot cloud on this machine: three S-line robots, maps, site
tasks, the token grant, and the same checks as the real service.

Options:
  --port N             port to listen on (default ${DEFAULT_CLI_PORT}; 0 picks a free one)
  --host ADDRESS       address to listen on (default 127.0.0.1)
  --token T            access token of the demo account (repeatable or a comma list;
                       replaces the default "demo-token")
  --latency MS         add MS milliseconds to every answer (0-60000)
  --fail-rate R        share 0..1 of answers that fail (HTTP 500, or code 13 on map endpoints)
  --drop-rate R        share 0..1 of requests whose connection is dropped after taking effect
  --malformed-rate R   share 0..1 of answers whose body is cut short
  --rate-limit N       requests allowed per token and window (default ${DEFAULT_RATE_LIMIT.requests}; 0 turns it off)
  --rate-window MS     length of the rate-limit window (default ${DEFAULT_RATE_LIMIT.windowMs})
  --seed N             seed of the fault dice (default 1), for repeatable runs
  --robots N           grow the fleet to N robots (1-${MAX_FLEET_ROBOTS}) for load tests (default 3)
  --command-delay MS   an accepted command takes effect MS later (default ${REALISTIC_TIMING.commandDelayMs})
  --navigation-ms MS   a navigation takes MS to arrive (default ${REALISTIC_TIMING.navigationMs}; 0 arrives at once)
  --task-ms MS         a task finishes after running MS (default ${REALISTIC_TIMING.taskDurationMs}; 0 runs until stopped)
  --battery-drain P    battery percent used per minute cleaning or navigating (default ${REALISTIC_TIMING.batteryDrainPerMinute})
  --battery-charge P   battery percent gained per minute at the charger (default ${REALISTIC_TIMING.batteryChargePerMinute})
  --speed PX           pixels per second a cleaning robot travels over its map (default
                       ${REALISTIC_TIMING.speedPixelsPerSecond}, at 0.05 m per pixel ${REALISTIC_TIMING.speedPixelsPerSecond * 0.05} m/s; 0 keeps robots still)
  --ignore-rate R      share 0..1 of accepted commands a robot never carries out (default 0)
  --task-fault-rate R  share 0..1 of task starts that fail (default 0): half refused as busy
                       (B4 cmdResultCode 2010100012), half with the battery failing partway
                       (below 5 %, the task ends in error, the robot goes to charge)
  --push-url URL       push incidents and task reports to this http(s) URL, as the maker's
                       Robot Push Service does (a JSON POST; needs --push-app-id)
  --push-app-id ID     the appId every push carries (the receiver's only check; needs --push-url)
  --push-duplicate-rate R
                       share 0..1 of pushes delivered twice (default 0)
  --push-drop-rate R   share 0..1 of pushes never delivered (default 0)
  --quiet              no log line per request
  --help               show this text

While it runs, GET/PUT ${CONTROL_PREFIX}faults changes the faults and the seed (JSON with any of
latencyMs, failRate, dropRate, malformedRate, ignoreRate, pushDuplicateRate, pushDropRate,
taskFaultRate and seed, such as {"ignoreRate":1}), PATCH ${CONTROL_PREFIX}robots/<serial> changes a robot (JSON with any of
online, reachable (false: every status read naming it is answered 230003), batteryPercentage,
charging, emergencyStop, localizationState, taskState, and mapPosition {x, y, angle} to place it on its current map: pixels of the map image with
rows counted from its bottom edge, angle in degrees counter-clockwise from +x, such as
{"mapPosition":{"x":200,"y":150,"angle":90}}) and POST ${CONTROL_PREFIX}reset puts the fleet back as it
started (open incidents are forgotten; the push target stays). Map images (floor plans of each
map's width x height pixels, no robot drawn) are served under ${OBJECT_PREFIX} at the pre-signed URLs
the map endpoint gives (no token; they expire).

Pushes, as the maker's Robot Push Service sends them: with a push target, each task that ends is
POSTed as {appId, payload: {serialNumber, modelTypeCode, taskReport}} (its times in epoch ms), and
each incident raised (incidentStatus 1) or recovered (0, same incidentId) as {appId, payload:
{serialNumber, modelTypeCode, content: {incidentCode, incidentName, incidentLevel, incidentId,
incidentStatus, startTime, endTime, task and map fields}}}; each push also carries pushTime, a
field the maker does not document. A robot raises an incident by itself when its emergency stop
is pressed, its battery falls below 5 % or it is lost (H4), or it goes offline (H5), and recovers
it when that clears. GET/PUT ${CONTROL_PREFIX}push reads the target and the counters {url, appId, envelope,
times, sent, failed, dropped, duplicated} and sets the target, such as
{"url":"http://127.0.0.1:1880/robot-events","appId":"my-app"} ({"url":null} stops pushing);
"envelope":"typed" sends the newer envelope (messageTypeId, productId as the only serial number,
messageId, traceId, messageTimestamp), "times":"iso" sends startTime and endTime as RFC 3339 text
(null for "not yet"). POST ${CONTROL_PREFIX}robots/<serial>/scheduling-tasks pushes a scheduled task's
run (messageTypeId 3, always typed; its fields are the simulator's own), such as {"taskName":"Night"}.
POST ${CONTROL_PREFIX}robots/<serial>/incidents raises an incident by hand, such as
{"incidentLevel":"H3","incidentCode":2001,"incidentName":"Water tank empty"}, or recovers an open
one with {"raised":false,"incidentId":"..."} or {"raised":false,"incidentCode":2001}; GET lists
the open ones. Nothing is retried: a push the receiver does not answer with 2xx within 5 s is lost.`;

export class CliUsageError extends Error {}

export type CliCommand = { help: true } | { help: false; options: SimulatorOptions };

/** A number option within its range, by the rule every setting of the package follows (src/api/settings/input-rules.ts). */
function numberOption(name: string, raw: string | undefined, range: NumberRange): number | undefined {
  if (raw === undefined) return undefined;
  const problem = numberProblem(raw, range);
  if (problem) throw new CliUsageError(`--${name} ${problem}, not "${raw}"`);
  return Number(raw);
}

/** Whole numbers from `min` up, in `unit`. */
const wholeFrom = (min: number, unit = ""): NumberRange => ({ min, integer: true, unit });
const PERCENT_PER_MINUTE: NumberRange = { min: 0, max: 100, integer: false, unit: "% per minute" };

/**
 * The fault flags, checked by the schema PUT /_sim/faults uses: a value one
 * refuses, the other refuses too, and the error names the flag.
 */
function faultOptions(values: Record<string, unknown>): FaultsUpdate {
  const given: Record<string, number> = {};
  for (const [field, flag] of Object.entries(FAULT_FLAGS)) {
    const raw = values[flag];
    if (typeof raw === "string") given[field] = raw.trim() === "" ? NaN : Number(raw);
  }
  const checked = FaultsUpdate.safeParse(given);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0]!;
  const flag = FAULT_FLAGS[issue.path[0] as keyof FaultsUpdate];
  throw new CliUsageError(`--${flag} ${issue.message}, not "${String(values[flag])}"`);
}

/** --push-url and --push-app-id, both or neither, checked by the schema of PUT /_sim/push. */
function pushOption(url: string | undefined, appId: string | undefined): PushTarget | undefined {
  if (url === undefined && appId === undefined) return undefined;
  if (appId === undefined) throw new CliUsageError("--push-url needs --push-app-id (the appId every push carries)");
  if (url === undefined) throw new CliUsageError("--push-app-id needs --push-url (where to push)");
  const checked = PushTargetSchema.safeParse({ url, appId });
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0]!;
  const flag = issue.path[0] === "url" ? "push-url" : "push-app-id";
  throw new CliUsageError(`--${flag} ${issue.message}, not "${flag === "push-url" ? url : appId}"`);
}

/** Turns the command line into simulator options; throws CliUsageError naming the flag that is wrong. */
export function parseCliArgs(argv: string[]): CliCommand {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        token: { type: "string", multiple: true },
        latency: { type: "string" },
        "fail-rate": { type: "string" },
        "drop-rate": { type: "string" },
        "malformed-rate": { type: "string" },
        "rate-limit": { type: "string" },
        "rate-window": { type: "string" },
        seed: { type: "string" },
        robots: { type: "string" },
        "command-delay": { type: "string" },
        "navigation-ms": { type: "string" },
        "task-ms": { type: "string" },
        "battery-drain": { type: "string" },
        "battery-charge": { type: "string" },
        speed: { type: "string" },
        "ignore-rate": { type: "string" },
        "push-url": { type: "string" },
        "push-app-id": { type: "string" },
        "push-duplicate-rate": { type: "string" },
        "push-drop-rate": { type: "string" },
        "task-fault-rate": { type: "string" },
        quiet: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new CliUsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return { help: true };

  const port = numberOption("port", values.port, { min: 0, max: 65_535, integer: true, unit: "" });
  const tokens = values.token?.flatMap((value) => value.split(",")).map((token) => token.trim());
  if (tokens?.some((token) => token === "" || /\s/.test(token))) {
    throw new CliUsageError("--token must not be empty or hold spaces");
  }
  const { seed, ...faults } = faultOptions(values);

  const requests = numberOption("rate-limit", values["rate-limit"], wholeFrom(0));
  const windowMs = numberOption("rate-window", values["rate-window"], wholeFrom(1, "ms"));
  const rateLimit: RateLimit | false =
    requests === 0 ? false : { requests: requests ?? DEFAULT_RATE_LIMIT.requests, windowMs: windowMs ?? DEFAULT_RATE_LIMIT.windowMs };
  const robots = numberOption("robots", values.robots, { min: 1, max: MAX_FLEET_ROBOTS, integer: true, unit: "" });
  const timing: Timing = { ...REALISTIC_TIMING };
  const timingFlags: [keyof Timing, string, NumberRange][] = [
    ["commandDelayMs", "command-delay", wholeFrom(0, "ms")],
    ["navigationMs", "navigation-ms", wholeFrom(0, "ms")],
    ["taskDurationMs", "task-ms", wholeFrom(0, "ms")],
    ["batteryDrainPerMinute", "battery-drain", PERCENT_PER_MINUTE],
    ["batteryChargePerMinute", "battery-charge", PERCENT_PER_MINUTE],
    ["speedPixelsPerSecond", "speed", { min: 0, max: 200, integer: false, unit: "pixels per second" }],
  ];
  for (const [key, flag, range] of timingFlags) {
    const value = numberOption(flag, values[flag as keyof typeof values] as string | undefined, range);
    if (value !== undefined) timing[key] = value;
  }

  const options: SimulatorOptions = {
    port: port ?? DEFAULT_CLI_PORT,
    host: values.host ?? "127.0.0.1",
    faults,
    rateLimit,
    timing,
    quiet: values.quiet ?? false,
  };
  const push = pushOption(values["push-url"], values["push-app-id"]);
  if (push) options.push = push;
  if (robots !== undefined) options.robots = robots;
  if (tokens) options.tokens = tokens;
  if (seed !== undefined) options.seed = seed;
  return { help: false, options };
}

function describeFaults(faults: Faults): string {
  const parts: string[] = [];
  if (faults.latencyMs) parts.push(`latency ${faults.latencyMs} ms`);
  if (faults.failRate) parts.push(`fail ${faults.failRate * 100}%`);
  if (faults.dropRate) parts.push(`drop ${faults.dropRate * 100}%`);
  if (faults.malformedRate) parts.push(`malformed ${faults.malformedRate * 100}%`);
  if (faults.ignoreRate) parts.push(`${faults.ignoreRate * 100}% of commands ignored`);
  if (faults.pushDuplicateRate) parts.push(`${faults.pushDuplicateRate * 100}% of pushes twice`);
  if (faults.pushDropRate) parts.push(`${faults.pushDropRate * 100}% of pushes lost`);
  if (faults.taskFaultRate) parts.push(`${faults.taskFaultRate * 100}% of task starts failing`);
  return parts.length ? parts.join(", ") : "none";
}

function describeTiming(timing: Timing): string {
  return [
    `commands after ${timing.commandDelayMs / 1000} s`,
    `navigation ${timing.navigationMs / 1000} s`,
    timing.taskDurationMs ? `tasks ${timing.taskDurationMs / 1000} s` : "tasks until stopped",
    `battery -${timing.batteryDrainPerMinute}/+${timing.batteryChargePerMinute} % per min`,
    timing.speedPixelsPerSecond ? `cleaning at ${timing.speedPixelsPerSecond} px/s` : "robots still",
  ].join(", ");
}

/** What the user needs to point a robot-config node (or any client) at the simulator. */
export function banner(url: string, options: SimulatorOptions, faults: Faults): string {
  const fleet = options.robots === undefined ? demoFleet() : grownFleet(options.robots);
  const sites = new Map(fleet.sites.map((site) => [site.id, site.name]));
  const [demoAccount, ...otherAccounts] = fleet.accounts;
  const demoTokens = options.tokens ?? demoAccount?.tokens ?? [];
  const tokenLines = [
    ...demoTokens.map((token) => `${token}   (all robots)`),
    ...otherAccounts.flatMap((account) =>
      account.tokens.map((token) => `${token}   (${account.robots === "all" ? "all robots" : `${account.robots.join(", ")} only`})`),
    ),
  ];
  const shown = fleet.robots.slice(0, 5);
  const robotLines = shown.map(
    (robot) => `${robot.serialNumber}  ${robot.displayName}, ${robot.siteId ? `site "${sites.get(robot.siteId)}"` : "on no site"}`,
  );
  const rateLimit =
    options.rateLimit === false
      ? "off"
      : `${(options.rateLimit ?? DEFAULT_RATE_LIMIT).requests} requests per ${(options.rateLimit ?? DEFAULT_RATE_LIMIT).windowMs} ms per token`;
  const indent = `\n${" ".repeat(22)}`;
  return [
    `Robot cloud simulator listening on ${url}`,
    "",
    `  Base URL            ${url}`,
    `  Access tokens       ${tokenLines.join(indent)}`,
    `  Client credentials  client id ${DEMO_CLIENT.clientId}, client secret ${DEMO_CLIENT.clientSecret},` +
      `${indent}access key secret ${DEMO_CLIENT.accessKeySecret} (the grant's open_access_key)`,
    `  Robots              ${robotLines.join(indent)}`,
    ...(fleet.robots.length > shown.length ? [`                      ... and ${fleet.robots.length - shown.length} more`] : []),
    `  Rate limit          ${rateLimit}`,
    `  Timing              ${describeTiming({ ...REALISTIC_TIMING, ...options.timing })}`,
    `  Faults              ${describeFaults(faults)}`,
    `  Pushes              ${options.push ? `to ${options.push.url} (appId set)` : `off (--push-url and --push-app-id, or PUT ${CONTROL_PREFIX}push)`}`,
    `  Control             GET/PUT ${url}${CONTROL_PREFIX}faults   POST ${url}${CONTROL_PREFIX}reset`,
    `                      PATCH ${url}${CONTROL_PREFIX}robots/<serial>  e.g. {"batteryPercentage": 15} or {"online": false}`,
    `                      GET/PUT ${url}${CONTROL_PREFIX}push   POST ${url}${CONTROL_PREFIX}robots/<serial>/incidents`,
    "",
    "  Next, in Node-RED: Import > Examples > node-red-contrib-robot-fleet, pick a flow, open its",
    `  "Robot cloud simulator" config node, set Base URL ${url} and paste the token ${demoTokens[0] ?? ""},`,
    "  then Deploy and press an inject button.",
    "",
    "Ctrl-C stops it.",
  ].join("\n");
}

async function main(argv: string[]): Promise<void> {
  let command: CliCommand;
  try {
    command = parseCliArgs(argv);
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    console.error(`robot-cloud-simulator: ${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (command.help) {
    console.log(USAGE);
    return;
  }
  const simulator = await startSimulator(command.options);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (!command.options.quiet) console.log(`\n${signal}: stopping the simulator`);
    simulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`robot-cloud-simulator: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  // Printed once the signals are handled: whoever reads the banner may stop it at once.
  console.log(banner(simulator.url, command.options, simulator.faults));
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    const text = error instanceof Error ? error.message : String(error);
    console.error(`robot-cloud-simulator could not start: ${text}`);
    process.exit(1);
  });
}
