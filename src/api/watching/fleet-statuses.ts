/**
 * The last status the package read of each robot of an account, whoever read
 * it (a watching fleet status node, or, on a shared account, the instance
 * that watches, mirrored through Redis). A console draws the fleet from here
 * without a call of its own, and on every Node-RED instance that shares the
 * account, not only on the one that polls.
 */
import { keptForAccount, keptIfAsked } from "../account/account-memory";
import { robotDirectoryOf } from "../account/robot-directory";
import { cloudTimeMs } from "../cloud/cloud-time";
import { upkeepFactsOf } from "../upkeep/facts";
import { feedsUpkeepHistory, upkeepHistoryIfAsked } from "../upkeep/history";
import { isTaskUnderWay, readStatus, serialNumberOf } from "./status-reader";

/** Robots kept at most per account; past this the one read longest ago is forgotten. */
export const MAX_KEPT_STATUSES = 5000;

export interface KeptStatus {
  status: Record<string, unknown>;
  /** When it was read (ms since the epoch). */
  at: number;
}

/** A robot's last read of each shape: the v1 status lists its tasks, their progress and navStatus, the S-line status its navigation points and map version. */
interface Reads {
  v1?: KeptStatus;
  lean?: KeptStatus;
  /** The two merged, as get() answers. */
  merged: KeptStatus;
}

/**
 * One picture of a robot from its last reads of both shapes: the newer read's
 * fields, and the fields only the other shape carries (a v1 read's executable
 * tasks and navStatus under an S-line read, an S-line read's navigation
 * points under a v1 read, and its map's version when the v1 read names the
 * same map), except a running task's progress once the newer read shows none
 * running, and the older read's unreachable mark.
 */
function merge(reads: Omit<Reads, "merged">): KeptStatus {
  const [newer, older] = [reads.v1, reads.lean].filter((read): read is KeptStatus => read !== undefined).sort((a, b) => b.at - a.at);
  if (!older) return newer!;
  const status: Record<string, unknown> = { ...older.status, ...newer!.status };
  if (!("executingTask" in newer!.status) && !isTaskUnderWay(newer!.status.taskState)) delete status.executingTask;
  // A robot shown unreachable (unreachable-robots.ts) and read since is reachable again.
  if (!("unreachable" in newer!.status)) delete status.unreachable;
  const version = mapVersionCarried(newer!.status, older.status);
  if (version !== undefined) {
    const localization = status.localizationInfo as Record<string, unknown>;
    status.localizationInfo = { ...localization, map: { ...(localization.map as Record<string, unknown>), version } };
  }
  return { status, at: newer!.at };
}

/** The older read's map version, when the newer read names the same map without one (a v1 read under an S-line read). */
function mapVersionCarried(newer: Record<string, unknown>, older: Record<string, unknown>): string | undefined {
  const [now, before] = [readStatus(newer), readStatus(older)];
  return now.mapId !== undefined && now.mapVersion === undefined && before.mapId === now.mapId ? before.mapVersion : undefined;
}

export class FleetStatuses {
  /** Least recently read first. */
  private readonly robots = new Map<string, Reads>();
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly capacity = MAX_KEPT_STATUSES,
    /** Told the serial numbers of every record, so that a robot the robot list does not name yet is looked up. */
    private readonly named: (serialNumbers: string[]) => void = () => undefined,
    /** Told each status kept, as read (not merged), and when: the account's upkeep history is fed here, once asked for. */
    private readonly kept: (serialNumber: string, status: Record<string, unknown>, at: number) => void = () => undefined,
  ) {}

  /**
   * Keeps each status (one without a serial number is skipped) as the robot's
   * last read of its shape (v1 or S-line); an older read never replaces a newer one.
   */
  record(statuses: readonly Record<string, unknown>[], at: number = Date.now()): void {
    let changed = false;
    const named: string[] = [];
    for (const status of statuses) {
      const serialNumber = serialNumberOf(status);
      if (serialNumber === undefined) continue;
      named.push(serialNumber);
      const shape = statusShapeOf(status);
      const known = this.robots.get(serialNumber);
      if (known?.[shape] && known[shape].at > at) continue;
      const reads = { v1: known?.v1, lean: known?.lean, [shape]: { status, at } };
      this.robots.delete(serialNumber);
      this.robots.set(serialNumber, { ...reads, merged: merge(reads) });
      this.kept(serialNumber, status, at);
      changed = true;
    }
    while (this.robots.size > this.capacity) this.robots.delete(this.robots.keys().next().value!);
    this.named(named);
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

  /** The robot's last reads merged: the newest facts of both status shapes. */
  get(serialNumber: string): KeptStatus | undefined {
    return this.robots.get(serialNumber)?.merged;
  }

  /** When the robot's status of one shape was last read (ms since the epoch), if ever. */
  readAt(serialNumber: string, shape: "v1" | "lean"): number | undefined {
    return this.robots.get(serialNumber)?.[shape]?.at;
  }

  /**
   * The robot's clock minus this process's (ms), from the freshest read of
   * either shape whose status carries the robot's time (latestReportTime):
   * that time less the time it was read. Undefined when no read carries one.
   */
  clockOffsetOf(serialNumber: string): number | undefined {
    const reads = this.robots.get(serialNumber);
    let offset: number | undefined;
    let freshest = -Infinity;
    for (const read of [reads?.v1, reads?.lean]) {
      const robotTime = read && cloudTimeMs(read.status.latestReportTime);
      if (robotTime !== undefined && read!.at > freshest) [offset, freshest] = [robotTime - read!.at, read!.at];
    }
    return offset;
  }

  /** When this very status (the object kept) was read; undefined for one not kept here (another process's read, or one replaced since). */
  readTimeOf(status: Record<string, unknown>): number | undefined {
    const serialNumber = serialNumberOf(status);
    const read = serialNumber === undefined ? undefined : this.robots.get(serialNumber)?.[statusShapeOf(status)];
    return read?.status === status ? read.at : undefined;
  }

  /** Tells `kept` again of each read kept now (each robot's last of each shape, the older first): the upkeep history made after they were read reads them. */
  retell(): void {
    for (const [serialNumber, { v1, lean }] of this.robots) {
      const reads = [v1, lean].filter((read): read is KeptStatus => read !== undefined).sort((a, b) => a.at - b.at);
      for (const { status, at } of reads) this.kept(serialNumber, status, at);
    }
  }

  /** Every robot's last status (merged as get() does), by serial number. */
  all(): KeptStatus[] {
    return [...this.robots.entries()]
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
      .map(([, reads]) => reads.merged);
  }

  get size(): number {
    return this.robots.size;
  }

  /** Calls `listener` after each record that kept something; returns what stops it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Which of the two status shapes a status is: the v1 batch's names the robot `robots/<sn>`; B1 and the S-line batch's have no name. */
export function statusShapeOf(status: Record<string, unknown>): "v1" | "lean" {
  return typeof status.name === "string" && status.name.startsWith("robots/") ? "v1" : "lean";
}

const STATUSES_KIND = "fleet statuses";

/** The last statuses of the account `accountKey` (RobotClient.accountKey), the same object for every node of it in this process. */
export function fleetStatusesOf(accountKey: string): FleetStatuses {
  return keptForAccount(
    accountKey,
    STATUSES_KIND,
    () =>
      new FleetStatuses(
        MAX_KEPT_STATUSES,
        (serialNumbers) => robotDirectoryOf(accountKey).notice(serialNumbers),
        (serialNumber, status, at) => upkeepHistoryIfAsked(accountKey)?.observe(serialNumber, upkeepFactsOf(status), at),
      ),
  );
}

feedsUpkeepHistory((accountKey) => keptIfAsked<FleetStatuses>(accountKey, STATUSES_KIND)?.retell());
