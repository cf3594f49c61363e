/**
 * robot-mqtt (palette: mqtt bridge): the account's robots in Home Assistant
 * and any MQTT system. Wired between Node-RED's own mqtt in (subscribed to
 * <base>/# and <prefix>/status) and mqtt out, which keep the broker
 * connection: it publishes discovery, states and results on its output and
 * takes commands on its input. The payloads and rules are src/api/mqtt's.
 */
import fs from "node:fs";
import path from "node:path";
import type { Node, NodeAPI, NodeDef, NodeStatus } from "node-red";
import { RobotApiError, invalidInput } from "../../api/errors";
import { readStartTasks } from "../../api/mqtt/commands";
import type { Origin } from "../../api/mqtt/discovery";
import { checkTopicRoot } from "../../api/mqtt/topics";
import { readCommandAcceptance } from "../../api/mqtt/accepted-commands";
import { readNumberSetting } from "../../api/settings/input-rules";
import { configProblemStatus, lookUpConfig } from "../shared/config-node";
import { MODULE_NAME, translator } from "../shared/i18n";
import { refuseMessages, takeMessages } from "../shared/robot-input";
import { serialNumberList } from "../shared/settings";
import { MQTT_DEFAULTS, MQTT_LIMITS } from "./table";
import { MqttBridge, type BridgeSettings } from "./bridge";

export interface RobotMqttProperties extends NodeDef {
  robot: string;
  interval: string | number;
  /** Serial numbers separated by commas, spaces or new lines; empty: every robot. */
  serialNumbers: string;
  prefix: string;
  base: string;
  /** "map = task" per line. */
  startTasks: string;
  /** What the command topics may drive: "all" (the default, also when absent), "none" (states only) or "listed". */
  accept?: string;
  /** The robots whose commands are taken when accept is "listed". */
  acceptRobots?: string;
}

let origin: Origin | undefined;
/** Home Assistant's origin: this package and its version, read once. */
function originOfPackage(): Origin {
  if (origin) return origin;
  let version: string | undefined;
  try {
    // dist/src/nodes/robot-mqtt -> the package root.
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "..", "..", "package.json"), "utf8")) as { version?: string };
    version = manifest.version;
  } catch {
    version = undefined;
  }
  origin = { name: MODULE_NAME, ...(version ? { sw_version: version } : {}), support_url: "https://github.com/robot-fleet/node-red-contrib-robot-fleet" };
  return origin;
}

export function readBridgeSettings(config: RobotMqttProperties): BridgeSettings {
  let startTasks: Map<string, string>;
  try {
    startTasks = readStartTasks(config.startTasks);
  } catch (error) {
    throw invalidInput("startTasks", (error as Error).message);
  }
  return {
    roots: { prefix: checkTopicRoot(config.prefix, "prefix", MQTT_DEFAULTS.prefix), base: checkTopicRoot(config.base, "base", MQTT_DEFAULTS.base) },
    intervalMs: readNumberSetting(config.interval, "interval", MQTT_LIMITS.interval) * 1000,
    serialNumbers: serialNumberList(config.serialNumbers),
    startTasks,
    origin: originOfPackage(),
    acceptance: readCommandAcceptance(config.accept, serialNumberList(config.acceptRobots, "acceptRobots")),
  };
}

function setUpRobotMqtt(RED: NodeAPI, node: Node, config: RobotMqttProperties): void {
  const t = translator(RED, "robot-mqtt");
  // Reported once at deploy: each message from mqtt in failing again would flood a Catch node.
  const refuse = (problem: RobotApiError, status: NodeStatus) => refuseMessages(node, status, problem, { atDeploy: true, eachMessage: false });
  let settings: BridgeSettings;
  try {
    settings = readBridgeSettings(config);
  } catch (error) {
    const problem = error instanceof RobotApiError ? error : invalidInput("", String(error));
    refuse(problem, { fill: "red", shape: "ring", text: t("status.setting", { field: problem.field ?? problem.code }) });
    return;
  }
  const { client, problem } = lookUpConfig(RED, config.robot);
  if (problem) {
    refuse(problem, configProblemStatus(problem, t));
    return;
  }
  const bridge = new MqttBridge(node, client, settings, t);
  void bridge.start();
  takeMessages(RED, node, (msg) => {
    // Whatever a publisher sends ends here: answered on the result topic, warned about, never thrown.
    try {
      bridge.receive(msg);
    } catch (error) {
      node.warn(`input not handled: ${String(error)}`);
    }
    return Promise.resolve(undefined);
  });
  node.on("close", (removed: boolean, done: () => void) => {
    void bridge.close(removed).then(() => done());
  });
}

export default function registerRobotMqtt(RED: NodeAPI): void {
  RED.nodes.registerType("robot-mqtt", function RobotMqttNode(this: Node, config: RobotMqttProperties) {
    RED.nodes.createNode(this, config);
    setUpRobotMqtt(RED, this, config);
  });
}
