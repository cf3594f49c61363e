/**
 * The last status the package read of each robot of an account, whoever read
 * it (a watching fleet status node, or, on a shared account, the instance
 * that watches, mirrored through Redis). A console draws the fleet from here
 * without a call of its own, and on every Node-RED instance that shares the
 * account, not only on the one that polls.
 */
import { keptForAccount } from "../account/account-memory";
import { serialNumberOf } from "./status-reader";

/** Robots kept at most per account; past this the one read longest ago is forgotten. */
export const MAX_KEPT_STATUSES = 5000;

export interface KeptStatus {
  status: Record<string, unknown>;
  /** When it was read (ms since the epoch). */
  at: number;
}

export class FleetStatuses {
  /** Least recently read first. */
  private readonly statuses = new Map<string, KeptStatus>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly capacity = MAX_KEPT_STATUSES) {}

  /** Keeps each status (one without a serial number is skipped); an older read never replaces a newer one. */
  record(statuses: readonly Record<string, unknown>[], at: number = Date.now()): void {
    let changed = false;
    for (const status of statuses) {
      const serialNumber = serialNumberOf(status);
      if (serialNumber === undefined) continue;
      const known = this.statuses.get(serialNumber);
      if (known && known.at > at) continue;
      this.statuses.delete(serialNumber);
      this.statuses.set(serialNumber, { status, at });
      changed = true;
    }
    while (this.statuses.size > this.capacity) this.statuses.delete(this.statuses.keys().next().value!);
    if (changed) for (const listener of this.listeners) listener();
  }

  /** Statuses each with its own read time (another instance's reads, mirrored): one record per read time. */
  recordKept(kept: readonly KeptStatus[]): void {
    const byTime = new Map<number, Record<string, unknown>[]>();
    for (const { status, at } of kept) {
      if (!Number.isFinite(at)) continue;
      let statuses = byTime.get(at);
      if (!statuses) byTime.set(at, (statuses = []));
      statuses.push(status);
    }
    for (const [at, statuses] of [...byTime].sort(([left], [right]) => left - right)) this.record(statuses, at);
  }

  /**
   * S-line statuses (a confirmation poll's): kept only for robots of which no
   * v1 status is kept, which alone lists the executable tasks and the task's
   * progress; a console's pickers and progress would otherwise blink away
   * between two polls of a v1 watcher.
   */
  recordLean(statuses: readonly Record<string, unknown>[], at: number = Date.now()): void {
    this.record(
      statuses.filter((status) => {
        const serialNumber = serialNumberOf(status);
        const known = serialNumber === undefined ? undefined : this.statuses.get(serialNumber);
        return known === undefined || !isV1Status(known.status);
      }),
      at,
    );
  }

  get(serialNumber: string): KeptStatus | undefined {
    return this.statuses.get(serialNumber);
  }

  /** Every robot's last status, by serial number. */
  all(): KeptStatus[] {
    return [...this.statuses.values()].sort((a, b) => {
      const [left, right] = [serialNumberOf(a.status)!, serialNumberOf(b.status)!];
      return left < right ? -1 : left > right ? 1 : 0;
    });
  }

  get size(): number {
    return this.statuses.size;
  }

  /** Calls `listener` after each record that kept something; returns what stops it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The v1 batch's status names the robot `robots/<sn>`; B1 and the S-line batch have no name. */
function isV1Status(status: Record<string, unknown>): boolean {
  return typeof status.name === "string" && status.name.startsWith("robots/");
}

/** The last statuses of the account `accountKey` (RobotClient.accountKey), the same object for every node of it in this process. */
export function fleetStatusesOf(accountKey: string): FleetStatuses {
  return keptForAccount(accountKey, "fleet statuses", () => new FleetStatuses());
}
