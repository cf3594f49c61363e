/**
 * Robots claimed by jobs across the Node-RED instances sharing an account: a
 * key per robot holding the job's id, set only when free (SET NX PX) and
 * renewed while the job runs, so two instances never send one robot two
 * jobs, and a claim of an instance that died lapses by itself. The job's id,
 * not the instance's, is the owner: a redeploy keeps the job and its claim.
 */
import type { OccurrenceClaims, RobotClaims } from "../account/shared-account";
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
 */
export class RedisOccurrenceClaims implements OccurrenceClaims {
  constructor(private readonly link: RedisLink) {}

  async claim(occurrenceId: string, forMs: number): Promise<boolean> {
    await this.link.joined;
    // Asked again after an answer that came too late: the claim that answer made is this instance's.
    return claimKey(this.link, this.link.key("occurrence", occurrenceId), this.link.instanceId, forMs);
  }
}
