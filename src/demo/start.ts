/**
 * The README's start command: the robot-cloud simulator, an embedded MQTT
 * broker and Node-RED 4.1 with this package installed and every example flow
 * deployed against the simulator. Ctrl-C stops all of it. With --shared, a
 * second Node-RED instance runs the same flows, sharing the robot account with
 * the first through a redis-server the demo starts (or REDIS_URL).
 *
 * Flows are kept in a lasting folder (user-dir.ts): DEMO_DIR, else
 * ~/.node-red-robot-fleet-demo; --fresh starts again from the examples.
 *
 * Its options and environment settings: `npm start -- --help` (command-line.ts, the help in banner.ts).
 * package.json's start runs it with `exec`, so the signal npm passes on reaches this process, not a shell.
 */
import { fork, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { Aedes } from "aedes";
import { startSimulator } from "../simulator";
import { DEMO_TOKEN } from "../simulator/world/fleet";
import { REALISTIC_TIMING } from "../simulator/world/timing";
import { startEmbeddedNodeRed } from "./embedded";
import { DEMO_PUSH_APP_ID, buildDemoFlows, secondInstanceFlows } from "./flows";
import { startRedisServer, type RedisServer } from "./redis-server";
import { demoWords } from "./banner";
import { DEMO_DEFAULTS, DemoUsageError, parseDemoArgs, type DemoOptions } from "./command-line";
import { demoFolder, demoLanguage, demoSettings, packageRoot, prepareSecondUserDir, prepareUserDir } from "./user-dir";

/** The terminal's words, in the language the demo's Node-RED runs in. */
const words = demoWords(demoLanguage());

/** Ctrl-C frees every port within this long, whatever a client holds open. */
const STOP_LIMIT_MS = 4000;

/** In a terminal, one Ctrl-C reaches the demo twice (from the terminal, and passed on by npm): a signal this soon after the first is the same press. */
const SAME_PRESS_MS = 1000;

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, not "${raw}"`);
  return port;
}

/** Says which setting to change when a port is taken, instead of Node's bare EADDRINUSE. */
async function onPort<T>(setting: string, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (/EADDRINUSE/.test(error instanceof Error ? `${(error as { code?: string }).code} ${error.message}` : String(error))) {
      throw new Error(`port ${port} is in use: set ${setting} to a free port (${setting}=0 picks one)`, { cause: error });
    }
    throw error;
  }
}

/** A port nobody listens on now, for PORT=0: the example comments must name it before the editor opens. */
async function freePort(host: string): Promise<number> {
  const probe = net.createServer();
  const port = await listen(probe, 0, host);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function listen(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** Starts the second instance in its own process and resolves once its editor answers. */
function startSecondInstance(userDir: string, host: string, port: number): Promise<ChildProcess> {
  const child = fork(path.join(__dirname, "second-instance.js"), [], {
    // Its own folder: Node-RED takes a relative flow file from the working folder first, and this process runs in the
    // first instance's, so the second would run (and save over) the first's flows.
    cwd: userDir,
    env: { ...process.env, ROBOT_FLEET_DEMO_USER_DIR: userDir, HOST: host, PORT: String(port), DEMO_LANG: demoLanguage() ?? "" },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the second Node-RED instance ended (code ${code}):\n${output}`)));
    const poll = setInterval(() => {
      if (!output.includes("Second Node-RED instance ready")) return;
      clearInterval(poll);
      child.stdout!.off("data", collect);
      child.stderr!.off("data", collect);
      // Its log is the first instance's too, marked so a reader can tell them apart.
      child.stdout!.on("data", (chunk: Buffer) => process.stdout.write(chunk.toString().replace(/^(?=.)/gm, "[second] ")));
      child.stderr!.on("data", (chunk: Buffer) => process.stderr.write(chunk.toString().replace(/^(?=.)/gm, "[second] ")));
      resolve(child);
    }, 50);
  });
}

/**
 * The demo's robots clean for 5 minutes a task (the CLI's 2 would leave a
 * plan's timeline hardly a running occurrence) and some task starts fail,
 * refused as busy or with their battery failing partway (the simulator's
 * taskFaultRate). SIMULATOR_TASK_FAULT_RATE sets the share (0 turns it off, as the demo's tests do).
 */
const DEMO_TIMING = { ...REALISTIC_TIMING, taskDurationMs: 5 * 60_000 };

function taskFaultRateFromEnv(): number {
  const raw = process.env.SIMULATOR_TASK_FAULT_RATE;
  if (raw === undefined || raw === "") return DEMO_DEFAULTS.taskFaultRate;
  const rate = Number(raw);
  if (!(rate >= 0 && rate <= 1)) throw new Error(`SIMULATOR_TASK_FAULT_RATE=${raw}: must be a number from 0 to 1`);
  return rate;
}

/** SIMULATOR_ROBOTS: the simulated fleet grown to that many robots (the console at a fleet's size); unset, the three of the examples. */
function robotsFromEnv(): { robots?: number } {
  const raw = process.env.SIMULATOR_ROBOTS;
  if (raw === undefined || raw === "") return {};
  const robots = Number(raw);
  if (!Number.isInteger(robots) || robots < 1 || robots > DEMO_DEFAULTS.maxRobots) {
    throw new Error(`SIMULATOR_ROBOTS=${raw}: must be a whole number from 1 to ${DEMO_DEFAULTS.maxRobots}`);
  }
  return { robots };
}

async function main(options: DemoOptions): Promise<void> {
  const host = process.env.HOST || DEMO_DEFAULTS.host;
  const requestedEditorPort = portFromEnv("PORT", DEMO_DEFAULTS.port);
  const editorPort = requestedEditorPort === 0 ? await freePort(host) : requestedEditorPort;
  const { shared } = options;
  let redis: RedisServer | undefined;
  if (shared && !process.env.REDIS_URL) {
    const requestedRedisPort = portFromEnv("REDIS_PORT", DEMO_DEFAULTS.redisPort);
    const redisPort = requestedRedisPort === 0 ? await freePort("127.0.0.1") : requestedRedisPort;
    redis = await onPort("REDIS_PORT", redisPort, () => startRedisServer(redisPort));
  }
  const redisUrl = shared ? (process.env.REDIS_URL ?? redis!.url) : undefined;

  // Robots behave as the CLI's do: a command takes effect about 2 s after the cloud accepted it. The
  // console shows the simulator's failed requests only, unless `npm start -- --verbose` asks for every one.
  const simulatorPort = portFromEnv("SIMULATOR_PORT", DEMO_DEFAULTS.simulatorPort);
  const simulator = await onPort("SIMULATOR_PORT", simulatorPort, () =>
    startSimulator({
      host: "127.0.0.1",
      port: simulatorPort,
      timing: DEMO_TIMING,
      faults: { taskFaultRate: taskFaultRateFromEnv() },
      logFailuresOnly: !options.verbose,
      ...robotsFromEnv(),
    }),
  );

  const broker = await Aedes.createBroker();
  // The banner says "publish now", so it waits until the example's MQTT-in node has subscribed
  // (it connects after the flows start); a message published before that would be lost.
  const sensorsSubscribed = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 15_000);
    broker.on("subscribe", (subscriptions) => {
      if (subscriptions.some((subscription) => subscription.topic.startsWith("facility/sensors/"))) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const mqttSockets = new Set<net.Socket>();
  const mqttServer = net.createServer((socket) => {
    mqttSockets.add(socket);
    socket.once("close", () => mqttSockets.delete(socket));
    broker.handle(socket);
  });
  const requestedMqttPort = portFromEnv("MQTT_PORT", DEMO_DEFAULTS.mqttPort);
  const mqttPort = await onPort("MQTT_PORT", requestedMqttPort, () => listen(mqttServer, requestedMqttPort, "127.0.0.1"));

  const { flows, credentials, pushPaths } = buildDemoFlows(path.join(packageRoot, "examples"), {
    simulatorUrl: simulator.url,
    token: DEMO_TOKEN,
    mqttPort,
    editorPort,
    redisUrl,
  });
  const prepared = prepareUserDir(demoFolder(), flows, credentials, options.fresh);
  const { userDir } = prepared;
  // A flow's relative files (the cleaning-reports example's CSV) belong with the user's flows, not in this clone.
  process.chdir(userDir);
  const nodeRed = await onPort("PORT", editorPort, () => startEmbeddedNodeRed({ host, port: editorPort, settings: demoSettings(userDir) }));
  const port = nodeRed.port;
  await sensorsSubscribed;

  let second: { child: ChildProcess; port: number } | undefined;
  if (shared) {
    const requestedSecondPort = portFromEnv("SECOND_PORT", port + 1);
    const secondPort = requestedSecondPort === 0 ? await freePort(host) : requestedSecondPort;
    const secondUserDir = prepareSecondUserDir(userDir, secondInstanceFlows);
    second = {
      child: await onPort("SECOND_PORT", secondPort, () => startSecondInstance(secondUserDir, host, secondPort)),
      port: secondPort,
    };
  }
  // The simulator pushes incidents and task reports to the example's robot-events node, as the cloud would
  // to a URL registered with the maker; on a wildcard HOST, Node-RED is reached on loopback.
  const pushHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const pushUrl =
    pushPaths[0] === undefined ? undefined : `http://${pushHost.includes(":") ? `[${pushHost}]` : pushHost}:${port}${pushPaths[0]}`;
  if (pushUrl) simulator.setPush({ url: pushUrl, appId: DEMO_PUSH_APP_ID });

  console.log(
    words.banner({
      host,
      port,
      simulatorUrl: simulator.url,
      token: DEMO_TOKEN,
      mqttPort,
      sensorTopic: "facility/sensors/kitchen/spill",
      pushUrl,
      second: second && { port: second.port, redisUrl: redisUrl! },
      userDir,
      kept: prepared.kept,
      savedAs: prepared.savedAs,
    }),
  );

  let stopStartedAt: number | undefined;
  const stop = async () => {
    if (stopStartedAt !== undefined) {
      if (Date.now() - stopStartedAt < SAME_PRESS_MS) return;
      console.log(words.secondCtrlC);
      process.exit(1);
    }
    stopStartedAt = Date.now();
    console.log(words.stopping);
    // Whatever hangs (a client that does not let go), the ports are free within the promise Ctrl-C makes.
    setTimeout(() => {
      console.log(words.stopLimit(STOP_LIMIT_MS / 1000));
      process.exit(1);
    }, STOP_LIMIT_MS).unref();
    if (second) {
      const ended = new Promise((resolve) => second.child.once("exit", resolve));
      second.child.kill("SIGTERM");
      await ended;
    }
    await nodeRed.stop();
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    const mqttClosed = new Promise<void>((resolve) => mqttServer.close(() => resolve()));
    for (const socket of mqttSockets) socket.destroy();
    await mqttClosed;
    await simulator.close();
    redis?.stop();
    console.log(words.stopped(Date.now() - stopStartedAt));
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
}

async function run(): Promise<void> {
  let options: DemoOptions;
  try {
    options = parseDemoArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof DemoUsageError)) throw error;
    console.error(words.badOption(error.message));
    process.exitCode = 2;
    return;
  }
  if (options.help) {
    console.log(words.usage({ defaults: DEMO_DEFAULTS, folder: demoFolder() }));
    return;
  }
  await main(options);
}

run().catch((error: unknown) => {
  console.error(words.couldNotStart(error instanceof Error ? error.message : String(error)));
  process.exit(1);
});
