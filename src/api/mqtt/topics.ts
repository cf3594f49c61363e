/**
 * The bridge's topic rules (pure): where each robot's messages go under the
 * base topic, where Home Assistant finds its discovery config, which serial
 * numbers can be a topic level at all, and what an incoming topic is.
 */
import { invalidInput } from "../errors";
import { trimmedTextOf } from "../cloud/values";

/** Home Assistant's discovery ids (object_id, unique_id) allow only these. */
const DISCOVERY_ID_PATTERN = /[^a-zA-Z0-9_-]/g;

/** A serial number as Home Assistant allows it in ids: every other character becomes "_". */
export function discoveryIdOf(serialNumber: string): string {
  return serialNumber.replace(DISCOVERY_ID_PATTERN, "_");
}

/** Why a serial number cannot be one level of a topic (wildcards, a separator, nothing, a NUL), or undefined when it can. */
export function topicLevelProblem(serialNumber: string): string | undefined {
  if (serialNumber === "") return "is empty";
  if (/[+#]/.test(serialNumber)) return "holds an MQTT wildcard (+ or #)";
  if (serialNumber.includes("/")) return "holds a / (a topic separator)";
  if (serialNumber.includes("\u0000")) return "holds a NUL character";
  return undefined;
}

/**
 * A base topic or discovery prefix from the dialog: one or more levels,
 * no wildcards, no empty level (so no leading or trailing slash).
 */
export function checkTopicRoot(value: unknown, field: string, fallback: string): string {
  const text = trimmedTextOf(value) ?? fallback;
  if (/[+#]/.test(text) || text.includes("\u0000")) throw invalidInput(field, "must not hold MQTT wildcards (+, #) or a NUL");
  if (text.split("/").some((level) => level === ""))
    throw invalidInput(field, "must not have an empty level (no leading, trailing or double /)");
  if (Buffer.byteLength(text) > 1024) throw invalidInput(field, "must be at most 1024 bytes");
  return text;
}

export interface TopicRoots {
  /** Home Assistant's discovery prefix (default "homeassistant"). */
  prefix: string;
  /** Where the bridge publishes states and takes commands (default "robot-fleet"). */
  base: string;
}

/** The topics of one robot. */
export interface RobotTopics {
  discovery: string;
  state: string;
  availability: string;
  attributes: string;
  result: string;
  command: string;
  fanSpeed: string;
  sendCommand: string;
  /** Home Assistant's clean_segments_command_topic: the segments vacuum.clean_area chose. */
  cleanSegments: string;
}

/** The bridge's own availability: "online" while it runs (the online sensor reads it). */
export function bridgeAvailabilityTopic(roots: TopicRoots): string {
  return `${roots.base}/availability`;
}

/** Home Assistant's birth (and will) topic. */
export function birthTopic(roots: TopicRoots): string {
  return `${roots.prefix}/status`;
}

/** The discovery node id of a robot: the package's name first, so two bridges' robots never share one. */
export function deviceObjectId(serialNumber: string): string {
  return `robot_fleet_${discoveryIdOf(serialNumber)}`;
}

/** Suffixes of a robot's topics under <base>/<serial>/. */
const OWN_SUFFIXES = { state: "state", availability: "availability", attributes: "attributes", result: "result" } as const;
const INPUT_SUFFIXES = {
  command: "command",
  fanSpeed: "set_fan_speed",
  sendCommand: "send_command",
  cleanSegments: "clean_segments",
} as const;

export function robotTopics(roots: TopicRoots, serialNumber: string): RobotTopics {
  const under = `${roots.base}/${serialNumber}`;
  return {
    discovery: `${roots.prefix}/device/${deviceObjectId(serialNumber)}/config`,
    state: `${under}/${OWN_SUFFIXES.state}`,
    availability: `${under}/${OWN_SUFFIXES.availability}`,
    attributes: `${under}/${OWN_SUFFIXES.attributes}`,
    result: `${under}/${OWN_SUFFIXES.result}`,
    command: `${under}/${INPUT_SUFFIXES.command}`,
    fanSpeed: `${under}/${INPUT_SUFFIXES.fanSpeed}`,
    sendCommand: `${under}/${INPUT_SUFFIXES.sendCommand}`,
    cleanSegments: `${under}/${INPUT_SUFFIXES.cleanSegments}`,
  };
}

export type InputKind = keyof typeof INPUT_SUFFIXES;

/** What a topic that arrives from mqtt in is. */
export type IncomingTopic =
  /** Something the bridge publishes itself (its echo from <base>/#): nothing to do but know the broker is up. */
  | { kind: "own" }
  /** Home Assistant's <prefix>/status. */
  | { kind: "birth" }
  | { kind: "input"; input: InputKind; serialNumber: string }
  /** Anything else; `serialNumber` when the topic names one under the base. */
  | { kind: "unknown"; serialNumber?: string };

export function readIncomingTopic(roots: TopicRoots, topic: unknown): IncomingTopic {
  if (typeof topic !== "string") return { kind: "unknown" };
  if (topic === birthTopic(roots)) return { kind: "birth" };
  if (topic === bridgeAvailabilityTopic(roots)) return { kind: "own" };
  const start = `${roots.base}/`;
  if (!topic.startsWith(start)) return { kind: "unknown" };
  const levels = topic.slice(start.length).split("/");
  if (levels.length !== 2)
    return { kind: "unknown", ...(levels.length > 1 && !topicLevelProblem(levels[0]!) ? { serialNumber: levels[0] } : {}) };
  const [serialNumber, suffix] = levels as [string, string];
  if (topicLevelProblem(serialNumber)) return { kind: "unknown" };
  if ((Object.values(OWN_SUFFIXES) as string[]).includes(suffix)) return { kind: "own" };
  const input = (Object.keys(INPUT_SUFFIXES) as InputKind[]).find((key) => INPUT_SUFFIXES[key] === suffix);
  return input ? { kind: "input", input, serialNumber } : { kind: "unknown", serialNumber };
}
