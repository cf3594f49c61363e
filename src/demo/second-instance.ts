/**
 * The demo's second Node-RED instance (npm start -- --shared): the same flows
 * as the first, sharing the robot account through Redis, in a process of its
 * own (Node-RED runs once per process). Started by start.ts, which passes
 * the user directory and the port in its environment and stops it on exit.
 */
import { startEmbeddedNodeRed } from "./embedded";
import { demoSettings } from "./user-dir";

async function main(): Promise<void> {
  const userDir = process.env.ROBOT_FLEET_DEMO_USER_DIR!;
  const nodeRed = await startEmbeddedNodeRed({
    host: process.env.HOST || "127.0.0.1",
    port: Number(process.env.PORT),
    settings: demoSettings(userDir),
  });
  console.log(`Second Node-RED instance ready on port ${nodeRed.port}`);
  const stop = () => void nodeRed.stop().finally(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // The demo's process ended without stopping this one (killed): end too.
  process.on("disconnect", stop);
}

main().catch((error: unknown) => {
  console.error(`The second Node-RED instance could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
