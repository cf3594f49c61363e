/** What the MQTT bridge's unit tests share: the topic roots, the origin, an S-line status of one robot, and a stand-in for the bridge's node. */
import type { Node } from "node-red";

export const ROOTS = { prefix: "homeassistant", base: "robot-fleet" };
export const ORIGIN = { name: "node-red-contrib-robot-fleet", sw_version: "0.2.0" };

/** An S-line status of robot `serialNumber`, idle on Floor 1 with two cleaning modes; `extra` overrides any field. */
export function bridgeStatus(serialNumber: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    serialNumber,
    online: true,
    taskState: "IDLE",
    battery: { charging: false, powerPercentage: 80 },
    emergencyStop: { enabled: false },
    localizationInfo: { localizationState: "NORMAL", map: { id: "m1", name: "Floor 1" }, mapPosition: { x: 10, y: 20, angle: 90 } },
    cleanModes: [{ name: "__middle_cleaning" }, { name: "尘推" }],
    ...extra,
  };
}

export type Sent = { topic: string; payload: string };

/** What the bridge uses of a node: send, warn, status, context; each send recorded. */
export function recordingNode(sent: Sent[], store = new Map<string, unknown>()): Node {
  return {
    id: "bridge",
    send: (messages: [Sent[]]) => sent.push(...messages[0]),
    warn: () => undefined,
    error: () => undefined,
    log: () => undefined,
    status: () => undefined,
    context: () => ({
      get: (key: string, callback: (error: undefined, value: unknown) => void) => callback(undefined, store.get(key)),
      set: (key: string, value: unknown, callback: () => void) => {
        store.set(key, value);
        callback();
      },
    }),
  } as unknown as Node;
}
