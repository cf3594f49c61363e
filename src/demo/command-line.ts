/**
 * The demo's command line and the environment settings it reads: their
 * defaults, which the help (banner.ts) prints, and the parse that refuses what
 * the demo does not know, so `npm start -- --help` or a typo starts nothing.
 */
import { parseArgs } from "node:util";
import { MAX_FLEET_ROBOTS } from "../simulator/world/fleet";

/** What the demo takes when a setting is not given. */
export const DEMO_DEFAULTS = {
  host: "127.0.0.1",
  port: 1880,
  simulatorPort: 18080,
  mqttPort: 1883,
  redisPort: 6380,
  /** One task start in ten fails, so a day of the cleaning-plan example shows every status. */
  taskFaultRate: 0.1,
  maxRobots: MAX_FLEET_ROBOTS,
} as const;

export interface DemoOptions {
  help: boolean;
  fresh: boolean;
  shared: boolean;
  verbose: boolean;
}

export class DemoUsageError extends Error {}

/** The demo's options from `argv` (without node and the script); throws DemoUsageError for one it does not know. */
export function parseDemoArgs(argv: string[]): DemoOptions {
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: "boolean", short: "h" },
        fresh: { type: "boolean" },
        shared: { type: "boolean" },
        verbose: { type: "boolean" },
        // Read by demoLanguage (user-dir.ts), which the second instance shares; checked here with the rest.
        lang: { type: "string" },
      },
    });
    return { help: values.help ?? false, fresh: values.fresh ?? false, shared: values.shared ?? false, verbose: values.verbose ?? false };
  } catch (error) {
    throw new DemoUsageError(error instanceof Error ? error.message : String(error));
  }
}
