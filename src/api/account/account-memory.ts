/**
 * What belongs to an account rather than to one node (open alarms, robots
 * held by jobs, seen task reports), kept for the life of the process. A
 * deploy closes and re-creates every node, robot-config included, but the
 * process stays: a node that comes back finds its account's state here, keyed
 * by the account (base URL and identity), not by the node.
 */
import { createHash } from "node:crypto";

/** By account, then by kind: looked up on every command sent, so no key is built per call. */
const kept = new Map<string, Map<string, unknown>>();

/** The account as a key: a hash of the base URL and the identity (client id, or the token), never either in clear. */
export function accountKeyOf(baseUrl: string, identity: string): string {
  return createHash("sha256").update(`${baseUrl}\n${identity}`).digest("hex").slice(0, 32);
}

/** The account's `kind` of state, made by `create` the first time it is asked for in this process. */
export function keptForAccount<T>(accountKey: string, kind: string, create: () => T): T {
  let account = kept.get(accountKey);
  if (!account) kept.set(accountKey, (account = new Map<string, unknown>()));
  if (!account.has(kind)) account.set(kind, create());
  return account.get(kind) as T;
}

/** The account's `kind` of state if something asked for it in this process, else undefined (nothing is made). */
export function keptIfAsked<T>(accountKey: string, kind: string): T | undefined {
  return kept.get(accountKey)?.get(kind) as T | undefined;
}

/** Forgets every account's state: a process that reuses accounts between tests starts clean. */
export function forgetAccountMemory(): void {
  kept.clear();
}
