/**
 * What the bridge takes from its command topics (pure): any client that may
 * publish on the broker drives the robots the bridge accepts commands for, so
 * the bridge can accept them for every robot (as before), for none (it only
 * publishes states), or for the robots of a list. A command it does not take
 * is answered on the robot's result topic and reaches no cloud; the broker's
 * own users and ACLs (docs/nodes/robot-mqtt.md) decide who may publish at all.
 */
import { invalidInput } from "../errors";

export const ACCEPT_MODES = ["all", "none", "listed"] as const;
export type AcceptMode = (typeof ACCEPT_MODES)[number];

export type CommandAcceptance = { mode: "all" } | { mode: "none" } | { mode: "listed"; serialNumbers: ReadonlySet<string> };

/** The setting as the dialog gives it (`accept`, and `acceptRobots` for "listed"); an unknown mode or an empty list is bad input naming its field. */
export function readCommandAcceptance(mode: unknown, listed: readonly string[]): CommandAcceptance {
  const chosen = mode === undefined || mode === "" ? "all" : mode;
  if (!(ACCEPT_MODES as readonly unknown[]).includes(chosen)) throw invalidInput("accept", `must be one of ${ACCEPT_MODES.join(", ")}`);
  if (chosen !== "listed") return { mode: chosen as "all" | "none" };
  if (listed.length === 0) throw invalidInput("acceptRobots", 'name at least one robot (or take commands from none: "states only")');
  return { mode: "listed", serialNumbers: new Set(listed) };
}

export function acceptsCommandsFor(acceptance: CommandAcceptance, serialNumber: string): boolean {
  switch (acceptance.mode) {
    case "all":
      return true;
    case "none":
      return false;
    case "listed":
      return acceptance.serialNumbers.has(serialNumber);
  }
}

/** Why a command for a robot is not taken, for its result. */
export function refusalOfAcceptance(acceptance: CommandAcceptance): string {
  return acceptance.mode === "none"
    ? "the bridge takes no commands from MQTT (its setting Commands: states only); nothing was sent"
    : "the bridge takes commands only for the robots listed in its setting Commands; nothing was sent";
}
