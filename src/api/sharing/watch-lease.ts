/**
 * Who watches for one watching node when its flows run in several instances:
 * a lease in Redis (the holder's id with an expiry), renewed by the holder
 * every quarter interval, and the states its last poll knew (as JSON: a
 * watcher's last states, robot-reports' book). An instance
 * standing by takes the lease once it has found it free twice in a row, a
 * third of an interval apart: a holder that died frees it within 0.6
 * interval, so another polls within two; a live holder whose lease vanished
 * (Redis restarted empty) writes it back within a quarter interval, before
 * anyone may take it. While Redis cannot be reached nobody changes role: the
 * holder goes on polling, the others go on standing by.
 *
 * The holder also publishes every status it read into the account's one hash
 * (serial number → {at, status}, kept three intervals past the last poll, a
 * minute at least), with the time of that publication beside it; an instance
 * standing by reads the hash whenever that time changed, so its console shows
 * the fleet without a call to the cloud.
 */
import type { WatchLease } from "../account/shared-account";
import type { WatchedState } from "../watching/watcher-state";
import { statusShapeOf, type KeptStatus } from "../watching/fleet-statuses";
import { serialNumberOf } from "../watching/status-reader";
import type { RedisLink } from "./redis-link";

/** Renews the lease if this instance holds it, or writes it back if it vanished; 1 when it holds it after. */
const RENEW = `local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] or not holder then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;
/** The last states are kept this long after the last poll (a flow stopped for a day starts afresh). */
const STATES_KEEP_MS = 24 * 3600_000;

export class RedisWatchLease<State = WatchedState[]> implements WatchLease<State> {
  readonly checkEveryMs: number;
  private readonly ttlMs: number;
  private readonly leaseKey: string;
  private readonly statesKey: string;
  private holding = false;
  private seenFree = false;
  private renewTimer: NodeJS.Timeout | undefined;
  private readonly fleetKey: string;
  private readonly fleetStampKey: string;
  private readonly fleetKeepMs: number;
  /** The publication last mirrored (its stamp), so an unchanged hash is not read again. */
  private mirroredStamp: string | undefined;

  constructor(
    private readonly link: RedisLink,
    nodeId: string,
    intervalMs: number,
  ) {
    this.checkEveryMs = Math.max(500, Math.round(intervalMs / 3));
    this.ttlMs = Math.max(1500, Math.round(intervalMs * 0.6));
    this.leaseKey = link.key("watch", nodeId, "lease");
    this.statesKey = link.key("watch", nodeId, "states");
    this.fleetKey = link.key("fleet-statuses");
    this.fleetStampKey = link.key("fleet-statuses", "stamp");
    this.fleetKeepMs = Math.max(60_000, 3 * intervalMs);
  }

  async claim(): Promise<boolean> {
    await this.link.joined;
    if (this.holding || !this.link.ready) return this.holding;
    try {
      if ((await this.link.client.exists(this.leaseKey)) === 1) {
        this.seenFree = false;
        return false;
      }
      if (!this.seenFree) {
        this.seenFree = true;
        return false;
      }
      const taken = await this.link.client.set(this.leaseKey, this.link.instanceId, "PX", this.ttlMs, "NX");
      this.seenFree = false;
      if (taken === "OK") this.hold();
      return this.holding;
    } catch {
      return this.holding;
    }
  }

  async loadStates(): Promise<State | undefined> {
    try {
      const text = await this.link.client.get(this.statesKey);
      return text ? (JSON.parse(text) as State) : undefined;
    } catch {
      return undefined;
    }
  }

  async saveStates(states: State): Promise<void> {
    if (!this.link.ready) return;
    await this.link.client.set(this.statesKey, JSON.stringify(states), "PX", STATES_KEEP_MS);
  }

  async publishStatuses(statuses: readonly Record<string, unknown>[], at: number): Promise<void> {
    if (!this.link.ready) return;
    const fields = statuses.flatMap((status) => {
      const serialNumber = serialNumberOf(status);
      // One field per robot and shape: a v1 watcher and an S-line watcher of one account do not overwrite each other's reads.
      return serialNumber === undefined ? [] : [`${serialNumber}/${statusShapeOf(status)}`, JSON.stringify({ at, status })];
    });
    if (fields.length === 0) return;
    await this.link.client
      .multi()
      .hset(this.fleetKey, ...fields)
      .pexpire(this.fleetKey, this.fleetKeepMs)
      .set(this.fleetStampKey, `${this.link.instanceId} ${at}`, "PX", this.fleetKeepMs)
      .exec();
  }

  async mirroredStatuses(): Promise<KeptStatus[] | undefined> {
    if (!this.link.ready) return undefined;
    const stamp = await this.link.client.get(this.fleetStampKey);
    if (stamp === null || stamp === this.mirroredStamp) return undefined;
    const values = await this.link.client.hgetall(this.fleetKey);
    this.mirroredStamp = stamp;
    return Object.values(values).flatMap((value) => {
      try {
        const { at, status } = JSON.parse(value) as Partial<KeptStatus>;
        return typeof at === "number" && typeof status === "object" && status !== null ? [{ at, status }] : [];
      } catch {
        // Not a status this package wrote: left out.
        return [];
      }
    });
  }

  release(): void {
    this.stopRenewing();
    if (!this.holding) return;
    this.holding = false;
    this.link.releaseIfHeld(this.leaseKey, this.link.instanceId);
  }

  private hold(): void {
    this.holding = true;
    this.renewTimer = setInterval(() => void this.renew(), Math.max(250, Math.round(this.checkEveryMs * 0.75)));
    this.renewTimer.unref();
  }

  private async renew(): Promise<void> {
    if (!this.link.ready) return;
    try {
      const kept = await this.link.client.eval(RENEW, 1, this.leaseKey, this.link.instanceId, String(this.ttlMs));
      if (kept !== 1) {
        // Another instance holds it now: this one stands by from its next turn.
        this.holding = false;
        this.stopRenewing();
      }
    } catch {
      // Redis went away mid-call: the next renewal tries again.
    }
  }

  private stopRenewing(): void {
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
  }
}
