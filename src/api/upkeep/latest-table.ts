/**
 * The account's last upkeep table, kept in this process: robot-upkeep keeps
 * each table it makes here, and what shows upkeep without making it (the
 * console's upkeep view, robot-mqtt's due-day sensors) reads the forecasts
 * from here. Where no robot-upkeep runs on the account there are none: a
 * robot's row is then its status' facts alone (upkeepRobotOfFacts), no due day.
 */
import { keptForAccount } from "../account/account-memory";
import { DEFAULT_UPKEEP_LIMITS } from "./attention";
import type { UpkeepFacts } from "./facts";
import type { UpkeepRobot } from "./table";

export class LatestUpkeep {
  private readonly robots = new Map<string, UpkeepRobot>();

  /** A table robot-upkeep made: each robot's row replaces the one kept (a table of some robots leaves the others). */
  keep(table: readonly UpkeepRobot[]): void {
    for (const robot of table) this.robots.set(robot.serialNumber, robot);
  }

  robot(serialNumber: string): UpkeepRobot | undefined {
    return this.robots.get(serialNumber);
  }
}

/** The last upkeep table of account `accountKey`, the same object for every node of it in this process. */
export function latestUpkeepOf(accountKey: string): LatestUpkeep {
  return keptForAccount(accountKey, "latest upkeep", () => new LatestUpkeep());
}

/** A robot's row from its status' facts alone: the default threshold, no forecast (no history read). */
export function upkeepRobotOfFacts(serialNumber: string, facts: UpkeepFacts, readAt: Date, name?: string): UpkeepRobot {
  return {
    serialNumber,
    ...(name !== undefined ? { name } : {}),
    readAt: readAt.toISOString(),
    parts: facts.parts.map(({ part, remaining, usedLife, lifeSpan }) => ({
      part,
      remaining,
      usedLife,
      lifeSpan,
      threshold: DEFAULT_UPKEEP_LIMITS.partThreshold,
      forecast: { basis: "too little history", historyDays: 0 },
    })),
    tanks: facts.tanks,
    battery: facts.battery,
  };
}
