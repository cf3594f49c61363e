/** robot-events' table: where it listens and which levels it can filter on. */
import { INCIDENT_LEVEL_CODES } from "../../api/cloud/incident-levels";

export const DEFAULT_EVENTS_PATH = "/robot-events";
/**
 * A path is plain segments of letters, digits and - _ . ~ : none of the
 * characters Express reads as a pattern (: * ? + ( ) { }), so two nodes claim
 * the same path exactly when their paths are equal, and no path can match
 * another node's URLs.
 */
export const EVENTS_PATH_PATTERN = /^(\/[A-Za-z0-9._~-]+)+$/;
export const EVENTS_PATH_RULE = "must start with / and hold only letters, digits and - _ . ~ between slashes";
/** The choices of "Send incidents from": every level, or one of H0-H7 and above. */
export const MIN_LEVELS = ["", ...INCIDENT_LEVEL_CODES] as const;
/** Larger bodies are answered 413; the cloud's pushes are a few kB. */
export const MAX_PUSH_BYTES = 1024 * 1024;

const settingText = (value: unknown) => (typeof value === "string" ? value.trim() : "");

/** The node's Path as the runtime reads it: trimmed, empty meaning DEFAULT_EVENTS_PATH; undefined when it breaks the rule. */
export function eventsPathOf(value: unknown): string | undefined {
  const path = settingText(value) || DEFAULT_EVENTS_PATH;
  return EVENTS_PATH_PATTERN.test(path) ? path : undefined;
}

/** The node's Incidents from: "" (every level) or H0-H7, missing meaning ""; undefined for anything else. */
export function minLevelOf(value: unknown): string | undefined {
  const level = settingText(value);
  return (MIN_LEVELS as readonly string[]).includes(level) ? level : undefined;
}
