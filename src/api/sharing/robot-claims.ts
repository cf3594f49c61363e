/**
 * Robots claimed by jobs across the Node-RED instances sharing an account: a
 * key per robot holding the job's id, set only when free (SET NX PX) and
 * renewed while the job runs, so two instances never send one robot two
 * jobs, and a claim of an instance that died lapses by itself. The job's id,
 * not the instance's, is the owner: a redeploy keeps the job and its claim.
 */
import type { OccurrenceClaims, ReportClaims, RobotClaims } from "../account/shared-account";
import type { SettledOccurrence } from "../plans/occurrence";
import type { RedisLink } from "./redis-link";

const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0`;

/** Sets `key` to `owner` for `forMs` when free (SET NX PX): true when it is now `owner`'s, or already was. */
async function claimKey(link: RedisLink, key: string, owner: string, forMs: number): Promise<boolean> {
  if ((await link.client.set(key, owner, "PX", Math.ceil(forMs), "NX")) === "OK") return true;
  return (await link.client.get(key)) === owner;
}

export class RedisRobotClaims implements RobotClaims {
  constructor(private readonly link: RedisLink) {}

  private keyOf(serialNumber: string): string {
    return this.link.key("job-claim", serialNumber);
  }

  async claim(serialNumber: string, jobId: string, forMs: number): Promise<boolean> {
    await this.link.joined;
    // The job's own claim (followed again after a redeploy) is its own still.
    return claimKey(this.link, this.keyOf(serialNumber), jobId, forMs);
  }

  async renew(serialNumber: string, jobId: string, forMs: number): Promise<boolean> {
    return (await this.link.client.eval(RENEW, 1, this.keyOf(serialNumber), jobId, String(Math.ceil(forMs)))) === 1;
  }

  release(serialNumber: string, jobId: string): void {
    this.link.releaseIfHeld(this.keyOf(serialNumber), jobId);
  }
}

/**
 * Occurrences of cleaning plans, claimed by the first process to ask (SET NX
 * PX): the other processes running the same plan neither start nor record
 * it. A claim is never released: it lapses after the occurrence's time.
 *
 * What a process settles is kept for the account too (a hash by occurrence
 * id, and its planned times in a sorted set to read a span and prune by), so
 * every process's plan report lists it with its true state.
 */
export class RedisOccurrenceClaims implements OccurrenceClaims {
  private readonly settledKey: string;
  private readonly plannedAtKey: string;

  constructor(private readonly link: RedisLink) {
    this.settledKey = link.key("occurrences", "settled");
    this.plannedAtKey = link.key("occurrences", "settled", "planned-at");
  }

  private claimKeyOf(occurrenceId: string): string {
    return this.link.key("occurrence", occurrenceId);
  }

  async claim(occurrenceId: string, forMs: number): Promise<boolean> {
    await this.link.joined;
    // Asked again after an answer that came too late: the claim that answer made is this instance's.
    return claimKey(this.link, this.claimKeyOf(occurrenceId), this.link.instanceId, forMs);
  }

  async claimed(occurrenceIds: readonly string[]): Promise<Set<string>> {
    if (occurrenceIds.length === 0) return new Set();
    const holders = await this.link.client.mget(occurrenceIds.map((id) => this.claimKeyOf(id)));
    return new Set(occurrenceIds.filter((_, index) => holders[index] !== null));
  }

  async settle(occurrence: SettledOccurrence, keptBefore: number): Promise<void> {
    // As claims do: just after a start the link is still connecting, and a command sent then fails at once.
    await this.link.joined;
    const old = await this.link.client.zrangebyscore(this.plannedAtKey, "-inf", `(${keptBefore}`);
    const write = this.link.client
      .multi()
      .hset(this.settledKey, occurrence.occurrenceId, JSON.stringify(occurrence))
      .zadd(this.plannedAtKey, Date.parse(occurrence.plannedAt), occurrence.occurrenceId);
    if (old.length > 0) write.hdel(this.settledKey, ...old).zremrangebyscore(this.plannedAtKey, "-inf", `(${keptBefore}`);
    await write.exec();
  }

  async settledBetween(fromMs: number, toMs: number): Promise<SettledOccurrence[]> {
    await this.link.joined;
    const ids = await this.link.client.zrangebyscore(this.plannedAtKey, fromMs, `(${toMs}`);
    if (ids.length === 0) return [];
    const values = await this.link.client.hmget(this.settledKey, ...ids);
    return values.flatMap((value) => {
      try {
        const occurrence = value === null ? undefined : (JSON.parse(value) as Partial<SettledOccurrence>);
        return typeof occurrence?.occurrenceId === "string" && typeof occurrence.plannedAt === "string"
          ? [occurrence as SettledOccurrence]
          : [];
      } catch {
        // Not an occurrence this package wrote: left out.
        return [];
      }
    });
  }
}

/**
 * Task reports a robot-reports node sent on, claimed by the first of its
 * copies to take each in (SET NX PX, for the node's Keep period): a report
 * swept by one instance and pushed to another is sent once.
 */
export class RedisReportClaims implements ReportClaims {
  constructor(private readonly link: RedisLink) {}

  async claim(nodeId: string, reportKey: string, forMs: number): Promise<boolean> {
    await this.link.joined;
    return claimKey(this.link, this.link.key("report-sent", nodeId, reportKey), this.link.instanceId, forMs);
  }
}
