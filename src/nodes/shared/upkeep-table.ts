/**
 * The account's upkeep table for the nodes that show it beside other things
 * (robot-mqtt's sensors, robot-maps' console), at the account's upkeep limits:
 * those of its robot-upkeep node while one runs, so Home Assistant, the
 * console and the node's notices call the same part due on the same day. Its
 * builder reads the plans' calendar (Luxon) and schemas (zod), so it is loaded
 * at the first table, not when Node-RED loads the nodes (test/package.test.ts
 * holds that).
 */
import { keptForAccount } from "../../api/account/account-memory";
import { DEFAULT_UPKEEP_LIMITS, type UpkeepLimits } from "../../api/upkeep/attention";
import { DEFAULT_THRESHOLD, type UpkeepRobot } from "../../api/upkeep/table";
import type { UpkeepTableOptions } from "../../api/upkeep/table-builder";

type TableBuilder = typeof import("../../api/upkeep/table-builder");
let builder: TableBuilder | undefined;

/** What needs a person, and the share left (0-1) at or under which a part is due. */
export interface AccountUpkeepLimits extends UpkeepLimits {
  partDue: number;
}

/** The limits of an account without a robot-upkeep node: those the node's settings start from. */
export const DEFAULT_ACCOUNT_UPKEEP_LIMITS: Readonly<AccountUpkeepLimits> = { ...DEFAULT_UPKEEP_LIMITS, partDue: DEFAULT_THRESHOLD };

/** The running robot-upkeep nodes' limits by node id. */
const runningLimitsOf = (accountKey: string) => keptForAccount(accountKey, "upkeep-limits", () => new Map<string, AccountUpkeepLimits>());

/**
 * The account's limits: its robot-upkeep node's while one runs (of several, the one whose id sorts first: the
 * same one whatever order a deploy starts them in), else the defaults.
 */
export function upkeepLimitsOfAccount(accountKey: string): AccountUpkeepLimits {
  const running = runningLimitsOf(accountKey);
  const first = [...running.keys()].sort()[0];
  return (first === undefined ? undefined : running.get(first)) ?? DEFAULT_ACCOUNT_UPKEEP_LIMITS;
}

/**
 * A robot-upkeep node's limits, the account's while it runs (`stop` when it closes). `conflict`: other nodes of
 * the account that run with other limits, and the node whose limits the account takes.
 */
export function runUpkeepLimits(
  accountKey: string,
  nodeId: string,
  limits: AccountUpkeepLimits,
): { stop: () => void; conflict?: { others: string[]; winner: string } } {
  const running = runningLimitsOf(accountKey);
  running.set(nodeId, limits);
  const stop = () => running.delete(nodeId);
  const differs = (other: AccountUpkeepLimits) => (Object.keys(limits) as (keyof AccountUpkeepLimits)[]).some((key) => other[key] !== limits[key]);
  const others = [...running].flatMap(([id, other]) => (id !== nodeId && differs(other) ? [id] : []));
  return others.length === 0 ? { stop } : { stop, conflict: { others, winner: [...running.keys()].sort()[0]! } };
}

/** The table of `serialNumbers` with the account's part-due threshold unless `options` give one. */
export function upkeepTableOfAccount(accountKey: string, serialNumbers: readonly string[], options?: Omit<UpkeepTableOptions, "plans" | "nameOf">): UpkeepRobot[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose, see above
  builder ??= require("../../api/upkeep/table-builder") as TableBuilder;
  return builder.upkeepTableOfAccount(accountKey, serialNumbers, { threshold: upkeepLimitsOfAccount(accountKey).partDue, ...options });
}
