/**
 * What the bridge publishes (pure): each robot's discovery config, state,
 * availability and attributes as MQTT messages, and what changed since the
 * last publish, so a steady fleet costs only its changes.
 */
import { readableCleaningMode } from "../cloud/cleaning-modes";
import type { OpenAlarm } from "../pushes/open-alarms";
import { deviceConfigOf, type Origin } from "./discovery";
import { attributesOf, vacuumStateOf, type RobotView } from "./robot-view";
import type { Segments } from "./segments";
import { bridgeAvailabilityTopic, robotTopics, type TopicRoots } from "./topics";

/** A message for Node-RED's mqtt out node. */
export interface MqttMessage {
  topic: string;
  payload: string;
  retain: boolean;
  qos: 0 | 1;
}

/**
 * The vacuum's state JSON as Home Assistant's MQTT vacuum reads it. Home
 * Assistant keeps every key of it as an attribute until a message gives the
 * key again: `fan_speed` is always given (null when no mode is known), while
 * `segments` is given only once the map's areas were read, so a bridge that
 * restarts never offers "no segments" between two readings (which Home
 * Assistant would take for a changed map).
 */
export function vacuumStatePayload(
  view: RobotView,
  alarm: OpenAlarm | undefined,
  chosenMode: string | undefined,
  segments?: Segments,
): Record<string, unknown> {
  const mode = chosenMode ?? view.task?.cleaningMode;
  return {
    state: vacuumStateOf(view.state, alarm, view.destination),
    fan_speed: mode === undefined ? null : readableCleaningMode(mode),
    ...(segments === undefined ? {} : { segments }),
  };
}

/** What the bridge knows of a robot beside its status: the segments of its map, and whether it takes the robot's commands. */
export interface RobotExtras {
  segments?: Segments;
  takesCommands?: boolean;
}

/** Discovery first (Home Assistant subscribes to a new entity's topics when it reads its config), then its values. */
export function robotMessages(
  view: RobotView,
  alarm: OpenAlarm | undefined,
  chosenMode: string | undefined,
  roots: TopicRoots,
  origin: Origin,
  extras: RobotExtras = {},
): MqttMessage[] {
  const topics = robotTopics(roots, view.serialNumber);
  return [
    { topic: topics.discovery, payload: JSON.stringify(deviceConfigOf(view, roots, origin, extras.takesCommands)), retain: true, qos: 1 },
    { topic: topics.availability, payload: view.state.online === true ? "online" : "offline", retain: true, qos: 1 },
    { topic: topics.state, payload: JSON.stringify(vacuumStatePayload(view, alarm, chosenMode, extras.segments)), retain: true, qos: 0 },
    { topic: topics.attributes, payload: JSON.stringify(attributesOf(view, alarm)), retain: true, qos: 0 },
  ];
}

/** The retained empty payloads that remove a robot: its device (and so its entities), and its retained values. */
export function removalMessages(serialNumber: string, roots: TopicRoots): MqttMessage[] {
  const topics = robotTopics(roots, serialNumber);
  return [topics.discovery, topics.availability, topics.state, topics.attributes].map((topic) => ({
    topic,
    payload: "",
    retain: true,
    qos: 1,
  }));
}

export function bridgeAvailabilityMessage(roots: TopicRoots, online: boolean): MqttMessage {
  return { topic: bridgeAvailabilityTopic(roots), payload: online ? "online" : "offline", retain: true, qos: 1 };
}

/**
 * The payload last published on each topic: a message whose payload is the
 * same is not sent again, until forget() (a birth message, a deploy, a broker
 * that came up late) makes everything new.
 */
export class PublishedPayloads {
  private readonly last = new Map<string, string>();

  /** The messages that carry a change, remembered as published. */
  changed(messages: readonly MqttMessage[]): MqttMessage[] {
    const out: MqttMessage[] = [];
    for (const message of messages) {
      if (this.last.get(message.topic) === message.payload) continue;
      this.last.set(message.topic, message.payload);
      out.push(message);
    }
    return out;
  }

  /** Everything is sent again by the next changed(). */
  forget(): void {
    this.last.clear();
  }

  /** Forgets one robot's topics (it left the account). */
  forgetTopics(topics: readonly string[]): void {
    for (const topic of topics) this.last.delete(topic);
  }
}
