/**
 * The account's rate and pause, shared by every instance through Redis. The
 * rate is N places ("slots", N = the rate limit per second): a call takes a
 * free slot, holds it while it is on the wire, and the slot frees one second
 * after the call ended. So calls through one slot reach the cloud at least a
 * second apart and no one-second window sees more than N, whatever the number
 * of instances and however the network delays each call. Each slot is
 * rate-limiter-flexible's Redis limiter (1 point); its in-memory insurance
 * limiter takes over while Redis is away, on this instance's share of the
 * slots (N divided by the instances last counted).
 */
import type {
  RateLimiterMemory as MemoryLimiter,
  RateLimiterRedis as RedisLimiter,
  RateLimiterRes as LimiterAnswer,
} from "rate-limiter-flexible";
import type { AccountGate, GateAnswer, Permit } from "../account/shared-account";
import { MAX_RECONNECT_DELAY_MS, type RedisLink } from "./redis-link";

/** Asking again sooner than this after every slot was taken only costs Redis calls. */
const MIN_RETRY_MS = 5;
/** How much later than this one another instance may find Redis back: its reconnect delay and the connection's set-up. */
const RECONNECT_SPREAD_MS = MAX_RECONNECT_DELAY_MS + 500;

export interface SharedRateOptions {
  /** Calls per second for the whole account; 0 shares only the pause. */
  rateLimit: number;
  /** Longest a call can be on the wire (the account's timeout): a slot held longer frees by itself (a crash). */
  callTimeoutMs: number;
}

export class SharedRate implements AccountGate {
  private readonly slots: number;
  /** Seconds a slot stays taken after its call ended: 1, or longer for a rate under 1/s. */
  private readonly slotSeconds: number;
  private readonly holdSeconds: number;
  private readonly limiter: RedisLimiter | undefined;
  private readonly insurance: MemoryLimiter | undefined;
  private readonly isAnswer: (value: unknown) => value is LimiterAnswer;
  private nextSlot = 0;
  /** Whether the last call's place came from Redis (shared) or the insurance limiter (alone), and since when. */
  private mode: "shared" | "alone" | undefined;
  private modeSinceMs = 0;
  private settling = false;
  /** Calls of this instance holding a place, and when the last one ended. */
  private onTheWire = 0;
  private lastEndedMs = 0;

  constructor(
    private readonly link: RedisLink,
    options: SharedRateOptions,
  ) {
    const { rateLimit } = options;
    this.slots = rateLimit >= 1 ? Math.floor(rateLimit) : 1;
    this.slotSeconds = rateLimit >= 1 ? 1 : Math.ceil(1 / rateLimit);
    this.holdSeconds = Math.ceil(options.callTimeoutMs / 1000) + 5;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for a shared account
    const flexible = require("rate-limiter-flexible") as typeof import("rate-limiter-flexible");
    this.isAnswer = (value): value is LimiterAnswer => value instanceof flexible.RateLimiterRes;
    if (rateLimit <= 0) return;
    const insurance = new flexible.RateLimiterMemory({ points: 1, duration: this.slotSeconds, keyPrefix: link.key("rate") });
    this.insurance = insurance;
    this.limiter = new flexible.RateLimiterRedis({
      storeClient: link.client,
      keyPrefix: link.key("rate"),
      points: 1,
      duration: this.slotSeconds,
      rejectIfRedisNotReady: true,
      insuranceLimiter: insurance,
    });
  }

  async ask(): Promise<GateAnswer> {
    await this.link.joined;
    const pausedForMs = await this.pausedForMs();
    if (pausedForMs > 0) return { pausedForMs };
    if (!this.limiter) return { permit: { release: () => undefined } };
    const settling = this.settlingMs();
    if (settling > 0) return { retryInMs: settling };
    // While Redis is away every instance works on its own share of the slots (the insurance limiter's).
    const usable = this.link.ready ? this.slots : Math.max(1, Math.floor(this.slots / this.link.instances));
    let soonestMs = Infinity;
    for (let tried = 0; tried < usable; tried++) {
      const slot = (this.nextSlot + tried) % usable;
      try {
        await this.limiter.consume(`slot${slot}`, 1, { customDuration: this.holdSeconds });
        // Redis went (or came back) while the slot was asked for: a Redis command cut off by the crash falls back
        // to the insurance limiter, which grants the place at once. The change's quiet period holds for it too.
        const changed = this.settlingMs();
        if (changed > 0) {
          this.permitOf(`slot${slot}`).release();
          return { retryInMs: changed };
        }
        this.nextSlot = slot + 1;
        return { permit: this.permitOf(`slot${slot}`) };
      } catch (refusal) {
        if (!this.isAnswer(refusal)) throw refusal;
        soonestMs = Math.min(soonestMs, refusal.msBeforeNext);
      }
    }
    return { retryInMs: Math.max(MIN_RETRY_MS, Math.min(soonestMs, 1000)) };
  }

  /**
   * Redis lost or back: neither side knows the calls the other let through
   * (Redis restarted empty; this instance's share never saw the others'), so
   * no call starts until this instance's calls of the old way have ended and
   * a slot period has passed since the change and since the last of them.
   * Coming back, the period also covers the other instances, which
   * reconnect up to RECONNECT_SPREAD_MS later and go on alone until then.
   */
  private settlingMs(): number {
    const mode = this.link.ready ? "shared" : "alone";
    const now = Date.now();
    if (this.mode === undefined) this.mode = mode;
    if (mode !== this.mode) {
      this.mode = mode;
      this.modeSinceMs = now;
      this.settling = true;
    }
    if (!this.settling) return 0;
    if (this.onTheWire > 0) return MIN_RETRY_MS * 10;
    const periodMs = this.slotSeconds * 1000 + (mode === "shared" ? RECONNECT_SPREAD_MS : 0);
    const remaining = Math.max(this.modeSinceMs, this.lastEndedMs) + periodMs - now;
    if (remaining <= 0) this.settling = false;
    return Math.max(0, remaining);
  }

  pause(ms: number): void {
    if (!this.link.ready) return;
    // Every instance reads it before its next call; a pause already longer is not shortened by much (a race of two 429s).
    void this.link.client.set(this.link.key("pause"), String(Date.now() + ms), "PX", Math.ceil(ms)).catch(() => undefined);
  }

  private async pausedForMs(): Promise<number> {
    if (!this.link.ready) return 0;
    try {
      const remaining = await this.link.client.pttl(this.link.key("pause"));
      return remaining > 0 ? remaining : 0;
    } catch {
      return 0;
    }
  }

  /**
   * The slot frees `slotSeconds` after its call ended: counted from when the
   * call surely reached the cloud. Set in Redis and in the insurance limiter
   * alike (the library's set does not fall back by itself), so a slot taken
   * on either side frees on time whichever is reachable now.
   */
  private permitOf(slot: string): Permit {
    let released = false;
    this.onTheWire++;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.onTheWire--;
        this.lastEndedMs = Date.now();
        void this.insurance!.set(slot, 1, this.slotSeconds);
        void this.limiter!.set(slot, 1, this.slotSeconds).catch(() => undefined);
      },
    };
  }
}
