/**
 * One process's link to the Redis that the Node-RED instances sharing an
 * account meet in: the connection (ioredis, loaded only here, only when a
 * robot-config has a Redis URL), the account's keys, whether Redis can be
 * reached now, and how many instances share the account (each announces
 * itself every few seconds). Losing Redis and getting it back are each logged
 * once per outage.
 */
import { randomUUID } from "node:crypto";
import type { Redis, RedisOptions } from "ioredis";
import { accountKeyOf } from "../account/account-memory";

/** How often an instance says it is there, and after how long without a word it no longer counts. */
const PRESENCE_EVERY_MS = 5000;
const PRESENCE_LAPSE_MS = 3 * PRESENCE_EVERY_MS;
/** The longest wait between reconnect attempts: instances find Redis back within about this of each other. */
export const MAX_RECONNECT_DELAY_MS = 1000;

export interface RedisLinkOptions {
  /** redis:// or rediss:// URL, without a password (that is a credential). */
  url: string;
  password?: string;
  /** Every key starts with it (default "robot-fleet"): two deployments may share a Redis. */
  prefix: string;
  /** The account as the cloud knows it: base URL and client id, or the token (hashed; see accountKeyOf). */
  account: { baseUrl: string; identity: string };
  log(level: "warn" | "info", text: string): void;
}

/** The URL with any password taken out, for log lines. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    parsed.username = "";
    return parsed.toString();
  } catch {
    return "the Redis URL";
  }
}

const RELEASE_IF_HELD = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0`;

export class RedisLink {
  readonly client: Redis;
  /** This process's name among the instances (random per deploy of the robot-config). */
  readonly instanceId = randomUUID();
  readonly accountKey: string;
  private connected = false;
  private everConnected = false;
  private outageLogged = false;
  private knownInstances = 1;
  private closing = false;
  private readonly presenceTimer: NodeJS.Timeout;
  /**
   * Settles with the first connection attempt, ready or failed: until then
   * nothing is decided alone (an instance that just started would otherwise
   * take the whole rate and ask for its own token while Redis answers in ms).
   */
  readonly joined: Promise<void>;
  private joinedNow: () => void = () => undefined;

  constructor(private readonly options: RedisLinkOptions) {
    this.accountKey = accountKeyOf(options.account.baseUrl, options.account.identity);
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for a shared account
    const { Redis: RedisClient } = require("ioredis") as typeof import("ioredis");
    const settings: RedisOptions = {
      // Commands fail at once while Redis is away, so the insurance limits apply instead of a growing queue.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(200 * times, MAX_RECONNECT_DELAY_MS),
      ...(options.password ? { password: options.password } : {}),
    };
    this.joined = new Promise<void>((resolve) => {
      this.joinedNow = resolve;
      setTimeout(resolve, settings.connectTimeout! + 500).unref();
    });
    this.client = new RedisClient(options.url, settings);
    this.client.on("ready", () => this.readyChanged(true));
    this.client.on("close", () => this.readyChanged(false));
    // Connection errors come again at each reconnect; the outage is logged once by readyChanged.
    this.client.on("error", () => this.joinedNow());
    this.presenceTimer = setInterval(() => void this.announce(), PRESENCE_EVERY_MS);
    this.presenceTimer.unref();
  }

  /**
   * Deletes `key` only while it still holds `owner` (a claim, lease or lock
   * that lapsed and was taken by another is theirs now); never throws.
   */
  releaseIfHeld(key: string, owner: string): void {
    void this.client.eval(RELEASE_IF_HELD, 1, key, owner).catch(() => undefined);
  }

  /** The account's key for `parts`, e.g. key("rate", "slot3"). */
  key(...parts: string[]): string {
    return [this.options.prefix, this.accountKey, ...parts].join(":");
  }

  get ready(): boolean {
    return this.connected;
  }

  /** Instances sharing the account at the last count (1 before the first, and while Redis is away: the last seen). */
  get instances(): number {
    return this.knownInstances;
  }

  close(): void {
    this.closing = true;
    clearInterval(this.presenceTimer);
    const presence = this.key("instances");
    // Leaves the count at once rather than after it lapses; then the connection ends.
    void this.client
      .zrem(presence, this.instanceId)
      .catch(() => undefined)
      .finally(() => this.client.disconnect());
  }

  private readyChanged(ready: boolean): void {
    this.joinedNow();
    if (ready === this.connected || this.closing) return;
    this.connected = ready;
    if (ready) {
      if (this.outageLogged) this.options.log("info", `Redis at ${shownUrl(this.options.url)} is back: the account is shared again`);
      this.outageLogged = false;
      this.everConnected = true;
      void this.announce();
    } else if (!this.outageLogged) {
      this.outageLogged = true;
      const share = this.everConnected ? `its share of the rate (1/${this.knownInstances})` : "its share of the rate";
      this.options.log(
        "warn",
        `Redis at ${shownUrl(this.options.url)} cannot be reached: this instance goes on alone on ${share} until it is back`,
      );
    }
  }

  /** Says this instance is here and counts the others seen lately. */
  private async announce(): Promise<void> {
    if (!this.connected) return;
    const presence = this.key("instances");
    const now = Date.now();
    try {
      const results = await this.client
        .multi()
        .zadd(presence, now, this.instanceId)
        .zremrangebyscore(presence, "-inf", now - PRESENCE_LAPSE_MS)
        .zcard(presence)
        .pexpire(presence, PRESENCE_LAPSE_MS * 4)
        .exec();
      const count = Number(results?.[2]?.[1]);
      if (Number.isInteger(count) && count > 0) this.knownInstances = count;
    } catch {
      // Counted again at the next announcement.
    }
  }
}
