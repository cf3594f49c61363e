/**
 * The account's one token, shared through Redis: the first instance that
 * needs one asks the cloud under a lock, the others wait for it and use it.
 * It is stored encrypted (AES-256-GCM with a key derived from the client
 * secret, which every instance of the account holds and Redis never sees),
 * beside a hash of the token so a 401 can drop exactly the token it refused.
 * Whenever Redis cannot answer, the instance asks the cloud itself.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import type { HeldToken, SharedTokenStore } from "../account/auth";
import type { RedisLink } from "./redis-link";

/** A grant that takes longer than this frees the lock for another instance. */
const LOCK_MS = 30_000;
const WAIT_STEP_MS = 100;
/** Stored for this long when the token has no known expiry (it is then renewed at a 401). */
const NO_EXPIRY_KEEP_MS = 7 * 24 * 3600_000;
const HASH_LENGTH = 64;

/** Deletes the token only if it is still the one refused (another instance may have renewed it already). */
const DROP_IF_SAME = `local v = redis.call('get', KEYS[1])
if v and string.sub(v, 1, ${HASH_LENGTH}) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0`;
/** Frees the lock only if this instance still holds it. */

/** A grant that failed under the lock: passed through as the cloud's answer, not taken for a Redis failure. */
class GrantFailed extends Error {
  constructor(override readonly cause: unknown) {
    super("the token grant failed");
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

export class SharedToken implements SharedTokenStore {
  private readonly key: Buffer;
  private readonly tokenKey: string;
  private readonly lockKey: string;

  constructor(
    private readonly link: RedisLink,
    clientSecret: string,
  ) {
    this.key = Buffer.from(hkdfSync("sha256", clientSecret, link.accountKey, "robot-fleet shared token", 32));
    this.tokenKey = link.key("token");
    this.lockKey = link.key("token-lock");
  }

  async tokenOr(grant: () => Promise<HeldToken>, now: number): Promise<HeldToken> {
    await this.link.joined;
    if (!this.link.ready) return grant();
    try {
      for (const giveUpAt = Date.now() + LOCK_MS; Date.now() < giveUpAt;) {
        const held = await this.load(now);
        if (held) return held;
        if ((await this.link.client.set(this.lockKey, this.link.instanceId, "PX", LOCK_MS, "NX")) === "OK")
          return await this.grantUnderLock(grant, now);
        // Another instance is asking the cloud: its token is used when it comes.
        await sleep(WAIT_STEP_MS);
      }
    } catch (error) {
      // The cloud's own refusal is the caller's to see; only a Redis failure makes this instance ask for itself.
      if (error instanceof GrantFailed) throw error.cause;
    }
    return grant();
  }

  drop(token: string): void {
    if (!this.link.ready) return;
    void this.link.client.eval(DROP_IF_SAME, 1, this.tokenKey, hashOf(token)).catch(() => undefined);
  }

  private async grantUnderLock(grant: () => Promise<HeldToken>, now: number): Promise<HeldToken> {
    try {
      // Another instance may have stored one between our read and our lock.
      const stored = await this.load(now);
      if (stored) return stored;
      const held = await grant().catch((error: unknown) => {
        throw new GrantFailed(error);
      });
      const keepMs = Number.isFinite(held.renewAt) ? Math.max(1000, held.renewAt - Date.now()) : NO_EXPIRY_KEEP_MS;
      await this.link.client.set(this.tokenKey, this.seal(held), "PX", Math.ceil(keepMs));
      return held;
    } finally {
      this.link.releaseIfHeld(this.lockKey, this.link.instanceId);
    }
  }

  /** The stored token when it is there, readable with this client secret, and not due for renewal. */
  private async load(now: number): Promise<HeldToken | undefined> {
    const value = await this.link.client.get(this.tokenKey);
    if (!value) return undefined;
    const held = this.open(value);
    return held && held.renewAt > now ? held : undefined;
  }

  private seal(held: HeldToken): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const plain = JSON.stringify({ token: held.token, renewAt: Number.isFinite(held.renewAt) ? held.renewAt : null });
    const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return `${hashOf(held.token)}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64")}`;
  }

  /** undefined for anything not sealed with this key (another secret, or a value tampered with). */
  private open(value: string): HeldToken | undefined {
    try {
      const bytes = Buffer.from(value.slice(HASH_LENGTH + 1), "base64");
      const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      const plain = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
      const { token, renewAt } = JSON.parse(plain) as { token: string; renewAt: number | null };
      return { token, renewAt: renewAt ?? Number.POSITIVE_INFINITY };
    } catch {
      return undefined;
    }
  }
}
