/** robot-mqtt's tables: the bounds and defaults of its settings, for the node and the editor. */
import type { NumberSetting } from "../../api/settings/input-rules";
import { MIN_WATCH_INTERVAL_MS } from "../../api/watching/watcher";

export const MQTT_LIMITS = {
  interval: { default: 10, min: MIN_WATCH_INTERVAL_MS / 1000, max: 86_400, integer: false, unit: "s" },
} as const satisfies Record<string, NumberSetting>;

export const MQTT_DEFAULTS = { prefix: "homeassistant", base: "robot-fleet", accept: "all" } as const;

/** What the command topics may drive: every robot, none (states only), the robots listed. */
export { ACCEPT_MODES as MQTT_ACCEPT_MODES } from "../../api/mqtt/accepted-commands";
