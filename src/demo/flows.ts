/**
 * Turns the importable example flows into one deployable flow file for the
 * demo: one tab per example, every robot-config pointed at the running
 * simulator with the demo token, every MQTT broker at the embedded broker,
 * every robot-events node given the app id the simulator pushes with. Two
 * examples' robot-events nodes on one path (the console's and
 * incident-alerts', both where the cloud pushes) cannot both listen there:
 * the first keeps it and hands each of its outputs on to where the other's
 * were wired (incidents from the other's Incidents from up), and the other
 * listens on a path of its own.
 */
import fs from "node:fs";
import path from "node:path";

export type FlowNode = Record<string, unknown> & { id: string; type: string };

export interface DemoTargets {
  simulatorUrl: string;
  token: string;
  mqttPort: number;
  editorPort: number;
  /** npm start -- --shared: the account is shared through this Redis by the demo's two instances. */
  redisUrl?: string;
}

/** The default ports the examples' comments name, and what they become in the demo. */
function portsNamedIn(targets: DemoTargets): Array<[RegExp, string]> {
  const simulatorPort = new URL(targets.simulatorUrl).port;
  return [
    [/(127\.0\.0\.1|localhost):18080\b/g, `127.0.0.1:${simulatorPort}`],
    [/\b18080\b/g, simulatorPort],
    [/(127\.0\.0\.1|localhost):1880\b/g, `127.0.0.1:${targets.editorPort}`],
    [/\b1883\b/g, String(targets.mqttPort)],
  ];
}

/** A comment's text with the ports the demo really runs on. */
function withDemoPorts(text: unknown, targets: DemoTargets): unknown {
  if (typeof text !== "string") return text;
  return portsNamedIn(targets).reduce((result, [pattern, port]) => result.replace(pattern, port), text);
}

/**
 * Every example brings its own robot-config (an import must stand alone);
 * the demo deploys one in their place, so a new node finds it preselected
 * rather than a list of identical names.
 */
export const DEMO_CONFIG_ID = "demo-robot-cloud";

/** The app id the demo's simulator pushes with, and its robot-events nodes expect. */
export const DEMO_PUSH_APP_ID = "demo-push-app";

const DEFAULT_PUSH_PATH = "/robot-events";

/**
 * Wires `receiver`'s outputs on to where `second`'s are wired, through link
 * nodes on `second`'s tab: the nodes the two need. Incidents pass only from
 * `second`'s Incidents from (its minLevel, "H4") up, as its own output would.
 */
function handOn(receiver: FlowNode, second: FlowNode): FlowNode[] {
  const added: FlowNode[] = [];
  const receiverWires = receiver.wires as string[][];
  (second.wires as string[][]).forEach((targets, output) => {
    if (targets.length === 0) return;
    const id = `${second.id}-from-${receiver.id}-${output}`;
    const minLevel = output === 0 && typeof second.minLevel === "string" ? /^H([2-7])$/.exec(second.minLevel)?.[1] : undefined;
    const placed = { z: second.z, x: Number(second.x ?? 0), y: Number(second.y ?? 0) + 60 * (output + 1) };
    receiverWires[output] = [...(receiverWires[output] ?? []), `${id}-out`];
    added.push({
      id: `${id}-out`,
      type: "link out",
      z: receiver.z,
      name: "",
      mode: "link",
      links: [`${id}-in`],
      x: Number(receiver.x ?? 0) + 200,
      y: Number(receiver.y ?? 0) + 40 * output,
      wires: [],
    });
    added.push({
      id: `${id}-in`,
      type: "link in",
      ...placed,
      name: `${typeof receiver.name === "string" && receiver.name !== "" ? receiver.name : receiver.id} (${output + 1})`,
      links: [`${id}-out`],
      wires: [minLevel ? [`${id}-level`] : targets],
    });
    if (minLevel) {
      added.push({
        id: `${id}-level`,
        type: "switch",
        ...placed,
        x: placed.x + 160,
        name: `H${minLevel} and above`,
        property: "payload.level.rank",
        propertyType: "msg",
        rules: [{ t: "gte", v: minLevel, vt: "num" }],
        checkall: "true",
        repair: false,
        outputs: 1,
        wires: [targets],
      });
    }
  });
  return added;
}

/** Nodes on a canvas have coordinates or wires; config nodes have neither and stay global. */
function isCanvasNode(node: FlowNode): boolean {
  return "wires" in node || "x" in node;
}

export function buildDemoFlows(
  examplesDir: string,
  targets: DemoTargets,
): { flows: FlowNode[]; credentials: Record<string, Record<string, string>>; pushPaths: string[] } {
  const flows: FlowNode[] = [];
  const configs = new Map<string, FlowNode>();
  const credentials: Record<string, Record<string, string>> = {};
  const pushPaths: string[] = [];
  const receivers = new Map<string, FlowNode>();
  const files = fs
    .readdirSync(examplesDir)
    .filter((file) => file.endsWith(".json"))
    .sort();
  for (const file of files) {
    const tabId = `demo-${path.basename(file, ".json")}`;
    flows.push({ id: tabId, type: "tab", label: path.basename(file, ".json"), info: `Example flow ${file}` });
    const nodes = JSON.parse(fs.readFileSync(path.join(examplesDir, file), "utf8")) as FlowNode[];
    for (const node of nodes) {
      if (node.type === "tab") continue;
      if (isCanvasNode(node)) {
        const placed: FlowNode = { ...node, z: tabId, ...(node.robot === undefined ? {} : { robot: DEMO_CONFIG_ID }) };
        if (node.type === "comment")
          Object.assign(placed, { name: withDemoPorts(node.name, targets), info: withDemoPorts(node.info, targets) });
        if (node.type === "robot-events") {
          credentials[node.id] = { appId: DEMO_PUSH_APP_ID };
          const pushPath = typeof node.path === "string" && node.path !== "" ? node.path : DEFAULT_PUSH_PATH;
          const receiver = receivers.get(pushPath);
          if (receiver) {
            placed.path = `${pushPath}-${path.basename(file, ".json")}`;
            flows.push(...handOn(receiver, placed));
          } else {
            receivers.set(pushPath, placed);
            pushPaths.push(pushPath);
          }
        }
        flows.push(placed);
        continue;
      }
      const config: FlowNode = { ...node };
      delete config.z;
      if (config.type === "robot-config") {
        Object.assign(config, { id: DEMO_CONFIG_ID, name: "Robot cloud simulator", baseUrl: targets.simulatorUrl, authMode: "token" });
        if (targets.redisUrl) Object.assign(config, { redisUrl: targets.redisUrl, redisPrefix: "robot-fleet-demo" });
        credentials[DEMO_CONFIG_ID] = { token: targets.token };
      } else if (config.type === "mqtt-broker") {
        config.broker = "127.0.0.1";
        config.port = String(targets.mqttPort);
      }
      configs.set(config.id, config);
    }
  }
  // The cloud pushes to one registered URL: the default path's receiver (incident-alerts), which passes
  // its task reports on to cleaning-reports; another example's own receiver is for importing it alone.
  pushPaths.sort((a, b) => Number(b === DEFAULT_PUSH_PATH) - Number(a === DEFAULT_PUSH_PATH));
  return { flows: [...flows, ...configs.values()], credentials, pushPaths };
}

/**
 * The second instance's copy: the same flows, but the spill sensor's and the
 * MQTT bridge's tabs disabled. Both instances would receive each MQTT message and start the
 * robot twice; sharing the account does not change what a flow sends (in
 * production, an MQTT shared subscription gives each message to one). Both
 * run in one folder, so the second writes no file either: its file nodes and
 * the function nodes that feed them (the cleaning-reports CSV's line and
 * header) are disabled, or the CSV would get each report twice.
 */
export function secondInstanceFlows(flows: readonly FlowNode[]): FlowNode[] {
  // The MQTT bridge too: both copies would carry out each command from Home Assistant.
  const onePerBroker = new Set(["iot-spill-sensor-cleaning", "home-assistant"]);
  const fileWriters = new Set(flows.filter((node) => node.type === "file").map((node) => node.id));
  const writesFiles = (node: FlowNode) =>
    fileWriters.has(node.id) ||
    (node.type === "function" && ((node.wires as string[][] | undefined) ?? []).flat().some((id) => fileWriters.has(id)));
  return flows.map((node) => {
    if (node.type === "tab" && onePerBroker.has(String(node.label))) return { ...node, disabled: true };
    return writesFiles(node) ? { ...node, d: true } : node;
  });
}
