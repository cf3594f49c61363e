/**
 * A client playing Home Assistant on a real broker: it subscribes to the
 * discovery prefix and the bridge's topics as Home Assistant would, keeps the
 * last payload of each topic, publishes commands and its birth message, and
 * checks a device discovery config against the rules Home Assistant's MQTT
 * docs give (device discovery, vacuum, sensor, binary_sensor).
 */
import mqtt, { type MqttClient } from "mqtt";

/** Features the MQTT vacuum (state schema) accepts in supported_features; not `status`, which it deprecated and ignores. */
export const VACUUM_FEATURES_ALLOWED = [
  "start",
  "stop",
  "pause",
  "return_home",
  "battery",
  "locate",
  "clean_spot",
  "fan_speed",
  "send_command",
];
export const SENSOR_DEVICE_CLASSES = [
  "battery",
  "enum",
  "timestamp",
  "duration",
  "power",
  "energy",
  "temperature",
  "humidity",
  "signal_strength",
  "voltage",
  "current",
];
/** A sensor's state_class: what Home Assistant keeps long-term statistics of. */
export const SENSOR_STATE_CLASSES = ["measurement", "total", "total_increasing"];
export const BINARY_SENSOR_DEVICE_CLASSES = [
  "battery",
  "battery_charging",
  "connectivity",
  "moving",
  "problem",
  "running",
  "safety",
  "plug",
  "power",
  "presence",
  "update",
];
const PLATFORMS = ["vacuum", "sensor", "binary_sensor"];
const ID = /^[a-zA-Z0-9_-]+$/;

export interface Received {
  topic: string;
  payload: string;
  retain: boolean;
  at: number;
}

export class HomeAssistantClient {
  readonly last = new Map<string, string>();
  readonly received: Received[] = [];

  private constructor(readonly client: MqttClient) {
    client.on("message", (topic, payload, packet) => {
      const text = payload.toString("utf8");
      this.received.push({ topic, payload: text, retain: packet.retain, at: Date.now() });
      if (text === "") this.last.delete(topic);
      else this.last.set(topic, text);
    });
  }

  /** `login`: a broker user (and MQTT 5, whose PUBACK says when the broker refuses a publish). */
  static async connect(url: string, topics: string[], login?: { username: string; password: string }): Promise<HomeAssistantClient> {
    const client = await mqtt.connectAsync(url, {
      clientId: `home-assistant-${process.pid}-${Math.random().toString(16).slice(2, 8)}`,
      reconnectPeriod: login ? 0 : 200,
      ...(login ? { ...login, protocolVersion: 5 as const } : {}),
    });
    const ha = new HomeAssistantClient(client);
    await client.subscribeAsync(topics, { qos: 1 });
    return ha;
  }

  json(topic: string): Record<string, unknown> {
    const text = this.last.get(topic);
    if (text === undefined) throw new Error(`nothing on ${topic}`);
    return JSON.parse(text) as Record<string, unknown>;
  }

  /** Messages on `topic` since index `from` of received. */
  on(topic: string, from = 0): Received[] {
    return this.received.slice(from).filter((message) => message.topic === topic);
  }

  async publish(topic: string, payload: string | Buffer, retain = false): Promise<void> {
    await this.client.publishAsync(topic, payload, { qos: 1, retain });
  }

  async end(): Promise<void> {
    await this.client.endAsync(true);
  }
}

function isPublishTopic(value: unknown): boolean {
  return typeof value === "string" && value !== "" && !/[+#]/.test(value);
}

/**
 * What Home Assistant would refuse or not show in a device config, as
 * sentences; `exists` says whether a state topic carries a message (topics a
 * config subscribes to must be published on).
 */
export function deviceConfigProblems(config: Record<string, unknown>, exists: (topic: string) => boolean): string[] {
  const problems: string[] = [];
  const device = config.device as Record<string, unknown> | undefined;
  if (!device || (!Array.isArray(device.identifiers) && !Array.isArray(device.connections)))
    problems.push("device needs identifiers or connections");
  const origin = config.origin as Record<string, unknown> | undefined;
  if (typeof origin?.name !== "string" || origin.name === "") problems.push("origin.name is required");
  const components = config.components as Record<string, Record<string, unknown>> | undefined;
  if (!components || Object.keys(components).length === 0) return [...problems, "components are required"];
  const uniqueIds = new Set<string>();
  for (const [key, component] of Object.entries(components)) {
    const where = `components.${key}`;
    if (!ID.test(key)) problems.push(`${where}: key has characters outside [a-zA-Z0-9_-]`);
    if (!PLATFORMS.includes(String(component.platform))) problems.push(`${where}: platform ${String(component.platform)} is not expected`);
    if (typeof component.unique_id !== "string" || !ID.test(component.unique_id))
      problems.push(`${where}: unique_id must be [a-zA-Z0-9_-]+`);
    else if (uniqueIds.has(component.unique_id)) problems.push(`${where}: unique_id repeats`);
    else uniqueIds.add(component.unique_id);
    for (const [option, value] of Object.entries(component)) {
      if (option.endsWith("_topic") && !isPublishTopic(value)) problems.push(`${where}.${option}: not a valid topic`);
    }
    const readTopics: unknown[] = ["state_topic", "json_attributes_topic", "availability_topic"]
      .map((option) => component[option])
      .filter((topic) => topic !== undefined);
    if (Array.isArray(component.availability)) {
      for (const entry of component.availability as Record<string, unknown>[]) readTopics.push(entry.topic);
      if (component.availability_topic !== undefined)
        problems.push(`${where}: availability and availability_topic must not be used together`);
    }
    for (const topic of readTopics) if (!exists(String(topic))) problems.push(`${where}: nothing is published on ${String(topic)}`);
    switch (component.platform) {
      case "vacuum": {
        const features = component.supported_features;
        if (!Array.isArray(features)) problems.push(`${where}: supported_features must be a list of strings`);
        else
          for (const feature of features)
            if (!VACUUM_FEATURES_ALLOWED.includes(String(feature)))
              problems.push(`${where}: supported feature ${String(feature)} is not allowed`);
        if ("schema" in component) problems.push(`${where}: schema is deprecated`);
        if (
          Array.isArray(features) &&
          features.includes("fan_speed") &&
          (!Array.isArray(component.fan_speed_list) || component.fan_speed_list.length === 0 || !component.set_fan_speed_topic)
        ) {
          problems.push(`${where}: fan_speed needs fan_speed_list and set_fan_speed_topic`);
        }
        if (
          !component.command_topic &&
          Array.isArray(features) &&
          features.some((feature) => ["start", "pause", "stop"].includes(String(feature)))
        )
          problems.push(`${where}: no command_topic: start/pause/stop would do nothing`);
        if (component.clean_segments_command_topic !== undefined && typeof component.unique_id !== "string")
          problems.push(`${where}: clean_segments_command_topic needs a unique_id`);
        break;
      }
      case "sensor":
        if (component.device_class !== undefined && !SENSOR_DEVICE_CLASSES.includes(component.device_class as string))
          problems.push(`${where}: sensor device_class ${JSON.stringify(component.device_class)}`);
        if (component.device_class === "battery" && component.unit_of_measurement !== "%")
          problems.push(`${where}: a battery sensor is in %`);
        if (!component.state_topic) problems.push(`${where}: state_topic is required`);
        if (component.state_class !== undefined && !SENSOR_STATE_CLASSES.includes(component.state_class as string))
          problems.push(`${where}: state_class ${JSON.stringify(component.state_class)}`);
        // A timestamp has no unit and no statistics: Home Assistant refuses a state_class or unit beside it.
        if (component.device_class === "timestamp" && (component.state_class !== undefined || component.unit_of_measurement !== undefined))
          problems.push(`${where}: a timestamp sensor takes no state_class or unit_of_measurement`);
        break;
      case "binary_sensor":
        if (component.device_class !== undefined && !BINARY_SENSOR_DEVICE_CLASSES.includes(component.device_class as string))
          problems.push(`${where}: binary_sensor device_class ${JSON.stringify(component.device_class)}`);
        if (!component.state_topic) problems.push(`${where}: state_topic is required`);
        break;
    }
  }
  return problems;
}

/** The attribute path of a sensor whose value_template only reads one: "{{ value_json.parts.filter }}" -> ["parts", "filter"]. */
const PLAIN_TEMPLATE = /^\{\{ value_json\.([\w.]+) \}\}$/;

/**
 * What Home Assistant would make of each sensor's value, as sentences: a
 * timestamp sensor needs an ISO time with its offset (or None: unknown), a
 * measurement a number (or None); `json` gives a state topic's last JSON.
 */
export function sensorValueProblems(config: Record<string, unknown>, json: (topic: string) => Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [key, component] of Object.entries(config.components as Record<string, Record<string, unknown>>)) {
    const template = component.value_template;
    const path = typeof template === "string" ? PLAIN_TEMPLATE.exec(template)?.[1] : undefined;
    if (component.platform !== "sensor" || path === undefined) continue;
    let value: unknown = json(String(component.state_topic));
    for (const part of path.split(".")) value = (value as Record<string, unknown> | undefined)?.[part];
    if (value === undefined) problems.push(`components.${key}: ${path} is not in its state`);
    else if (value === null) continue;
    else if (
      component.device_class === "timestamp" &&
      !(typeof value === "string" && /([Zz]|[+-]\d\d:\d\d)$/.test(value) && !Number.isNaN(Date.parse(value)))
    )
      problems.push(`components.${key}: ${JSON.stringify(value)} is no ISO time with an offset`);
    else if (component.state_class === "measurement" && typeof value !== "number")
      problems.push(`components.${key}: ${JSON.stringify(value)} is no number`);
  }
  return problems;
}
