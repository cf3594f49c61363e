/**
 * The flow robot-mqtt's node tests deploy (mqtt-broker, mqtt in on the base
 * topic and Home Assistant's birth topic, the bridge, mqtt out), its topics,
 * and a command published as Home Assistant does, answered on the result topic.
 */
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { startSimulator, type RunningSimulator } from "../../src/simulator";
import type { SimulatorOptions } from "../../src/simulator/server/options";
import type { HomeAssistantClient } from "./home-assistant";
import { reserveMosquitto, type Mosquitto } from "./mosquitto";
import { helper, useNodeRed, waitFor, type FlowNode } from "./node-red";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- Node-RED's core MQTT nodes are a plain CommonJS module
export const mqttNodes = require("@node-red/nodes/core/network/10-mqtt.js") as (RED: never) => void;

export const PREFIX = "homeassistant";
export const BASE = "robot-fleet";
export const configTopic = (serial: string) => `${PREFIX}/device/robot_fleet_${serial.replace(/[^a-zA-Z0-9_-]/g, "_")}/config`;

function mqttIn(id: string, topic: string): FlowNode {
  return {
    id,
    type: "mqtt in",
    topic,
    qos: "1",
    datatype: "utf8",
    broker: "broker",
    nl: false,
    rap: true,
    rh: 0,
    inputs: 0,
    wires: [["bridge"]],
  };
}

export function bridgeFlow(brokerPort: number, settings: Record<string, unknown> = {}): FlowNode[] {
  return [
    {
      id: "broker",
      type: "mqtt-broker",
      broker: "127.0.0.1",
      port: String(brokerPort),
      clientid: "",
      autoConnect: true,
      usetls: false,
      protocolVersion: "4",
      keepalive: "15",
      cleansession: true,
    },
    mqttIn("in-base", `${BASE}/#`),
    mqttIn("in-birth", `${PREFIX}/status`),
    {
      id: "bridge",
      type: "robot-mqtt",
      robot: "config",
      interval: 5,
      serialNumbers: "",
      prefix: PREFIX,
      base: BASE,
      startTasks: "",
      wires: [["out"]],
      ...settings,
    },
    { id: "out", type: "mqtt out", broker: "broker", topic: "", qos: "", retain: "", wires: [] },
  ];
}

/** Publishes on `<base>/<serial>/<suffix>` as Home Assistant does and resolves with the bridge's first result after it. */
export async function resultOf(
  client: HomeAssistantClient,
  serial: string,
  suffix: string,
  payload: string | Buffer,
): Promise<Record<string, unknown>> {
  const from = client.received.length;
  await client.publish(`${BASE}/${serial}/${suffix}`, payload);
  const topic = `${BASE}/${serial}/result`;
  await waitFor(() => client.on(topic, from).length > 0, 20_000, `a result on ${topic}`);
  return JSON.parse(client.on(topic, from)[0]!.payload) as Record<string, unknown>;
}

export interface BridgeRig {
  readonly simulator: RunningSimulator;
  readonly broker: Mosquitto;
  /** The client playing Home Assistant, ended after each test. */
  ha: HomeAssistantClient | undefined;
}

/**
 * A simulator for the describe block, a fresh mosquitto per test (started
 * unless `startBroker` is false: a test may start it late), and Node-RED.
 */
export function useBridgeRig(simulatorOptions: Partial<SimulatorOptions> = {}, startBroker = true): BridgeRig {
  const rig = {} as { simulator: RunningSimulator; broker: Mosquitto; ha: HomeAssistantClient | undefined };
  before(async () => {
    rig.simulator = await startSimulator({ rateLimit: false, log: () => undefined, ...simulatorOptions });
    helper.settings({ mqttReconnectTime: 300 });
  });
  after(async () => {
    await rig.simulator.close();
  });
  beforeEach(async () => {
    rig.simulator.reset();
    rig.broker = await reserveMosquitto();
    if (startBroker) await rig.broker.start();
  });
  afterEach(async () => {
    await rig.ha?.end();
    rig.ha = undefined;
    await rig.broker.stop();
    // The simulator is reset for each test; so is what the package keeps of the account (a robot it rests as unreachable).
    forgetAccountMemory();
  });
  useNodeRed();
  return rig;
}

/**
 * Runs `deploy` and resolves with the abort signal of the lifetime of the
 * robot-mqtt bridge it made (the AbortController made in bridge.ts), so a
 * test can count the listeners left on it.
 */
export async function bridgeLifetimeOf(deploy: () => Promise<unknown>): Promise<AbortSignal> {
  const made: AbortSignal[] = [];
  const Original = globalThis.AbortController;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      // Frame 0 is this constructor; frame 1 the code that made the controller.
      const caller = new Error().stack?.split("\n")[2] ?? "";
      if (/robot-mqtt[/\\]bridge\.[jt]s/.test(caller)) made.push(this.signal);
    }
  };
  try {
    await deploy();
  } finally {
    globalThis.AbortController = Original;
  }
  if (made.length !== 1) throw new Error(`expected one bridge lifetime, found ${made.length}`);
  return made[0]!;
}
