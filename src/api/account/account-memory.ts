/**
 * What belongs to an account rather than to one node (open alarms, robots
 * held by jobs, seen task reports), kept for the life of the process. A
 * deploy closes and re-creates every node, robot-config included, but the
 * process stays: a node that comes back finds its account's state here, keyed
 * by the account (base URL and identity), not by the node.
 */
import { createHash } from "node:crypto";

const kept = new Map<string, unknown>();

/** The account as a key: a hash of the base URL and the identity (client id, or the token), never either in clear. */
export function accountKeyOf(baseUrl: string, identity: string): string {
  return createHash("sha256").update(`${baseUrl}\n${identity}`).digest("hex").slice(0, 32);
}

/** The account's `kind` of state, made by `create` the first time it is asked for in this process. */
export function keptForAccount<T>(accountKey: string, kind: string, create: () => T): T {
  const key = `${accountKey}\n${kind}`;
  if (!kept.has(key)) kept.set(key, create());
  return kept.get(key) as T;
}

/** Forgets every account's state: a process that reuses accounts between tests starts clean. */
export function forgetAccountMemory(): void {
  kept.clear();
}
