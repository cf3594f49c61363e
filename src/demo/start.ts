/**
 * The README's start command: the robot-cloud simulator, an embedded MQTT
 * broker and Node-RED 4.1 with this package installed and every example flow
 * deployed against the simulator. Ctrl-C stops all of it.
 *
 * Environment: PORT (editor, default 1880), HOST (default 127.0.0.1),
 * SIMULATOR_PORT (default 18080), MQTT_PORT (default 1883); 0 picks a free port.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { Aedes } from "aedes";
import { startSimulator } from "../simulator";
import { DEMO_TOKEN } from "../simulator/fleet";
import { REALISTIC_TIMING } from "../simulator/timing";
import { startEmbeddedNodeRed } from "./embedded";
import { DEMO_PUSH_APP_ID, buildDemoFlows } from "./flows";

const packageRoot = path.resolve(__dirname, "../../..");
const packageName = (JSON.parse(fs.readFileSync(path.join(packageRoot, "package.json"), "utf8")) as { name: string }).name;

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, not "${raw}"`);
  return port;
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

/** Installs this package into the throwaway user directory the way npm links a local folder. */
function prepareUserDir(): string {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-demo-"));
  const modules = path.join(userDir, "node_modules");
  fs.mkdirSync(path.dirname(path.join(modules, packageName)), { recursive: true });
  fs.symlinkSync(packageRoot, path.join(modules, packageName), "dir");
  return userDir;
}

async function main(): Promise<void> {
  const host = process.env.HOST || "127.0.0.1";
  const requestedEditorPort = portFromEnv("PORT", 1880);
  const editorPort = requestedEditorPort === 0 ? await freePort(host) : requestedEditorPort;

  // Robots behave as the CLI's do: a command takes effect about 2 s after the cloud accepted it. The
  // console shows the simulator's failed requests only, unless `npm start -- --verbose` asks for every one.
  const simulator = await startSimulator({
    host: "127.0.0.1",
    port: portFromEnv("SIMULATOR_PORT", 18080),
    timing: REALISTIC_TIMING,
    logFailuresOnly: !process.argv.includes("--verbose"),
  });

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
  const mqttServer = net.createServer((socket) => broker.handle(socket));
  const mqttPort = await listen(mqttServer, portFromEnv("MQTT_PORT", 1883), "127.0.0.1");

  const userDir = prepareUserDir();
  const { flows, credentials, pushPaths } = buildDemoFlows(path.join(packageRoot, "examples"), {
    simulatorUrl: simulator.url,
    token: DEMO_TOKEN,
    mqttPort,
    editorPort,
  });
  fs.writeFileSync(path.join(userDir, "flows.json"), JSON.stringify(flows, null, 2));
  fs.writeFileSync(path.join(userDir, "flows_cred.json"), JSON.stringify(credentials, null, 2));

  const nodeRed = await startEmbeddedNodeRed({
    host,
    port: editorPort,
    settings: {
      userDir,
      flowFile: "flows.json",
      // Flows serve pages at the editor's port, as in a default Node-RED (the fleet-page example at /fleet).
      httpNodeRoot: "/",
      logging: { console: { level: "info", metrics: false, audit: false } },
    },
  });
  const port = nodeRed.port;
  await sensorsSubscribed;
  // The simulator pushes incidents and task reports to the example's robot-events node, as the cloud would
  // to a URL registered with the maker; on a wildcard HOST, Node-RED is reached on loopback.
  const pushHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const pushUrl = pushPaths[0] === undefined ? undefined : `http://${pushHost.includes(":") ? `[${pushHost}]` : pushHost}:${port}${pushPaths[0]}`;
  if (pushUrl) simulator.setPush({ url: pushUrl, appId: DEMO_PUSH_APP_ID });

  const sensorTopic = "facility/sensors/kitchen/spill";
  console.log(`
  Robot fleet demo is running.
    Node-RED editor   http://${host}:${port}/
    Fleet dashboard   http://${host}:${port}/dashboard   (Node-RED Dashboard 2: live map, table, buttons)
    Fleet page        http://${host}:${port}/fleet   (the same map without Dashboard 2)
    Robot simulator   ${simulator.url}   (token "${DEMO_TOKEN}")
    MQTT broker       mqtt://127.0.0.1:${mqttPort}

  Publish a sensor message to start a cleaning run:
    npx mqtt pub -h 127.0.0.1 -p ${mqttPort} -t ${sensorTopic} -m '{"robot":"GS-S-000101"}'
  The debug sidebar of the iot-spill-sensor-cleaning tab shows the command accepted and,
  a few seconds later, the robot RUNNING. Every other tab has an inject per operation.

  The simulator pushes incidents and task reports to ${pushUrl ?? "(no robot-events node)"}. Raise one:
    curl -X POST ${simulator.url}/_sim/robots/GS-S-000101/incidents -H 'Content-Type: application/json' -d '{"incidentLevel":"H5","incidentName":"Lidar blocked"}'
  The incident-alerts tab's debug shows it; the dashboard rings the robot and notifies.
  Ctrl-C stops everything.
`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log("\nStopping the demo...");
    await nodeRed.stop();
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    await new Promise<void>((resolve) => mqttServer.close(() => resolve()));
    await simulator.close();
    fs.rmSync(userDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
}


main().catch((error: unknown) => {
  console.error(`The demo could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
