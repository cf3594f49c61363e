/** The package's programmatic API: the robot-cloud client, usable without Node-RED. */
export * from "./auth";
export * from "./client";
export * from "./commands";
export * from "./endpoints";
export * from "./errors";
export * as schemas from "./schemas";
