/**
 * The account's upkeep table for the nodes that show it beside other things
 * (robot-mqtt's sensors, robot-maps' console). Its builder reads the plans'
 * calendar (Luxon) and schemas (zod), so it is loaded at the first table, not
 * when Node-RED loads the nodes (test/package.test.ts holds that).
 */
import type { UpkeepRobot } from "../../api/upkeep/table";
import type { UpkeepTableOptions } from "../../api/upkeep/table-builder";

type TableBuilder = typeof import("../../api/upkeep/table-builder");
let builder: TableBuilder | undefined;

export function upkeepTableOfAccount(accountKey: string, serialNumbers: readonly string[], options?: Omit<UpkeepTableOptions, "plans" | "nameOf">): UpkeepRobot[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose, see above
  builder ??= require("../../api/upkeep/table-builder") as TableBuilder;
  return builder.upkeepTableOfAccount(accountKey, serialNumbers, options);
}
