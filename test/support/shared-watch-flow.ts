/**
 * The flows of one copy of a shared-account watch, for the tests and benches
 * that run them in several Node-RED processes: a robot-config shared through
 * Redis with a fixed token (give it as `{ cfg: { token } }` credentials) and
 * one watching robot-status node, "watcher", reading the S-line batch of every
 * robot of the account.
 */
export interface SharedWatchOptions {
  baseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  rateLimit: number;
  /** The watcher's interval, seconds. */
  intervalS: number;
}

export function sharedWatchFlow(options: SharedWatchOptions): Array<Record<string, unknown>> {
  return [
    { id: "tab", type: "tab", label: "shared" },
    {
      id: "cfg",
      type: "robot-config",
      name: "shared",
      baseUrl: options.baseUrl,
      authMode: "token",
      rateLimit: options.rateLimit,
      redisUrl: options.redisUrl,
      redisPrefix: options.redisPrefix,
    },
    {
      id: "watcher",
      type: "robot-status",
      z: "tab",
      robot: "cfg",
      operation: "fleetStatus",
      serialNumbers: "",
      line: "s",
      watch: true,
      interval: options.intervalS,
      batteryStep: 10,
      batteryLow: 20,
      wires: [[], []],
    },
  ];
}
