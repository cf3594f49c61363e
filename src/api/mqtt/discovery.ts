/**
 * Home Assistant's discovery config of one robot (pure), as one device
 * config (`<prefix>/device/<object_id>/config`, Home Assistant 2024.11 and
 * later) rather than one config per entity: a robot is one retained message
 * instead of six (200 robots: 200 messages, not 1200), it appears and
 * disappears whole (one empty payload removes the device and every entity),
 * and its entities can never be half updated.
 */
import { readableCleaningMode } from "../cloud/cleaning-modes";
import { bridgeAvailabilityTopic, deviceObjectId, robotTopics, type TopicRoots } from "./topics";
import { type RobotView } from "./robot-view";
import type { WearPart } from "../upkeep/facts";
import { englishText, SHARED_CATALOGUE } from "../english-catalogue";

/**
 * A wear part's entity name: Home Assistant shows an MQTT entity by the name its config gives, in one
 * language, as it does Battery and Online; the words are the English catalogue's, as the console says them.
 */
const partEntityName = (part: WearPart) => englishText(SHARED_CATALOGUE, `${SHARED_CATALOGUE}.upkeep.parts.${part}`) ?? part;

/** A component key and unique id suffix from the cloud's part name: rollingBrush -> rolling_brush. */
export const partEntityKey = (part: string) => part.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Who publishes the configs (Home Assistant's `origin`, required in a device config). */
export interface Origin {
  name: string;
  sw_version?: string;
  support_url?: string;
}

/**
 * The vacuum's features: what the bridge carries out (fan_speed only for a
 * robot with cleaning modes). Not `status`, which Home Assistant deprecated
 * and ignores (the state says it); clean_area needs no feature name: Home
 * Assistant offers it for a vacuum with a clean_segments_command_topic.
 */
export const VACUUM_FEATURES = ["start", "pause", "stop", "return_home", "send_command"] as const;

type Component = Record<string, unknown> & { platform: string; unique_id: string };

export interface DeviceConfig {
  device: Record<string, unknown>;
  origin: Origin;
  components: Record<string, Component>;
}

/**
 * The device config of one robot: a vacuum, battery, online, problem, alarm
 * and task; each wear part its status has as a sensor of the share left (%)
 * and a timestamp sensor of its due day, each water tank it has as a sensor
 * of its level (%). A robot the bridge takes no commands for (accepted-commands.ts)
 * gets a vacuum that only shows its state: no feature, no command topic.
 */
export function deviceConfigOf(view: RobotView, roots: TopicRoots, origin: Origin, takesCommands = true): DeviceConfig {
  const topics = robotTopics(roots, view.serialNumber);
  const id = deviceObjectId(view.serialNumber);
  const bridge = bridgeAvailabilityTopic(roots);
  // The robot's entities are available while the bridge runs and the robot is online.
  const robotAvailable = { availability: [{ topic: bridge }, { topic: topics.availability }], availability_mode: "all" };
  const fromAttributes = (template: string) => ({ state_topic: topics.attributes, value_template: template });
  const device: Record<string, unknown> = {
    identifiers: [view.serialNumber],
    name: view.displayName ?? view.serialNumber,
    serial_number: view.serialNumber,
  };
  if (view.model) device.model = view.model;
  if (view.softwareVersion) device.sw_version = view.softwareVersion;

  const features: string[] = takesCommands ? [...VACUUM_FEATURES] : [];
  const vacuum: Component = {
    platform: "vacuum",
    unique_id: `${id}_vacuum`,
    // null: the entity is called by the device's name.
    name: null,
    state_topic: topics.state,
    json_attributes_topic: topics.attributes,
    supported_features: features,
    ...robotAvailable,
  };
  if (takesCommands) {
    Object.assign(vacuum, {
      command_topic: topics.command,
      send_command_topic: topics.sendCommand,
      clean_segments_command_topic: topics.cleanSegments,
    });
    if (view.cleaningModes.length > 0) {
      features.push("fan_speed");
      vacuum.set_fan_speed_topic = topics.fanSpeed;
      vacuum.fan_speed_list = view.cleaningModes.map(readableCleaningMode);
    }
  }
  return {
    device,
    origin,
    components: {
      vacuum,
      battery: {
        platform: "sensor",
        unique_id: `${id}_battery`,
        name: "Battery",
        device_class: "battery",
        unit_of_measurement: "%",
        state_class: "measurement",
        ...fromAttributes("{{ value_json.battery }}"),
        ...robotAvailable,
      },
      online: {
        platform: "binary_sensor",
        unique_id: `${id}_online`,
        name: "Online",
        device_class: "connectivity",
        state_topic: topics.availability,
        payload_on: "online",
        payload_off: "offline",
        // Only the bridge: an offline robot reads off, not unavailable.
        availability_topic: bridge,
      },
      problem: {
        platform: "binary_sensor",
        unique_id: `${id}_problem`,
        name: "Problem",
        device_class: "problem",
        ...fromAttributes("{{ 'ON' if value_json.problem else 'OFF' }}"),
        json_attributes_topic: topics.attributes,
        json_attributes_template: "{{ {'problems': value_json.problems} | tojson }}",
        ...robotAvailable,
      },
      alarm: {
        platform: "sensor",
        unique_id: `${id}_alarm`,
        name: "Alarm",
        icon: "mdi:alert-circle-outline",
        ...fromAttributes("{{ value_json.alarm }}"),
        ...robotAvailable,
      },
      task: {
        platform: "sensor",
        unique_id: `${id}_task`,
        name: "Task",
        icon: "mdi:broom",
        ...fromAttributes("{{ value_json.task }}"),
        ...robotAvailable,
      },
      ...upkeepComponents(view, id, (component) => ({ ...component, ...robotAvailable }), fromAttributes),
    },
  };
}

/**
 * The upkeep sensors, for what the robot's status has only: a part's share
 * left and its due day (unknown while the history is too short to forecast one: the
 * attribute is null, which Home Assistant's template renders as None), the tanks' levels.
 */
function upkeepComponents(
  view: RobotView,
  id: string,
  available: (component: Component) => Component,
  fromAttributes: (template: string) => Record<string, string>,
): Record<string, Component> {
  const components: Record<string, Component> = {};
  const sensor = (key: string, name: string, shows: Record<string, string>, template: string) =>
    (components[key] = available({ platform: "sensor", unique_id: `${id}_${key}`, name, ...shows, ...fromAttributes(template) }));
  const percent = (icon: string) => ({ icon, unit_of_measurement: "%", state_class: "measurement" });
  for (const { part } of view.upkeep?.parts ?? []) {
    const key = partEntityKey(part);
    sensor(key, partEntityName(part), percent("mdi:wrench-clock"), `{{ value_json.parts.${part} }}`);
    sensor(`${key}_due`, `${partEntityName(part)} due`, { device_class: "timestamp" }, `{{ value_json.parts_due.${part} }}`);
  }
  for (const { tank, key, name, icon } of TANK_ENTITIES)
    if (view.upkeep?.tanks[tank] !== undefined) sensor(key, name, percent(icon), `{{ value_json.${key} }}`);
  return components;
}

/** The tanks' sensors: each reads the attribute of its key (attributesOf). */
const TANK_ENTITIES = [
  { tank: "cleanWater", key: "clean_water", name: "Clean water", icon: "mdi:water" },
  { tank: "recoveryWater", key: "recovery_water", name: "Recovery water", icon: "mdi:water-opacity" },
] as const;

/** The unique ids a robot's entities get: for tests and the help's table. */
export function uniqueIdsOf(serialNumber: string): string[] {
  const id = deviceObjectId(serialNumber);
  return ["vacuum", "battery", "online", "problem", "alarm", "task"].map((entity) => `${id}_${entity}`);
}
