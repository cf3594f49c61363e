/**
 * Fault injection: added latency, failed answers, dropped connections and
 * malformed bodies, drawn from a seedable random source so a test run always
 * sees the same sequence.
 */
import { z } from "zod";

export interface Faults {
  /** Added to every answer, in milliseconds. */
  latencyMs: number;
  /** Share (0..1) of requests answered with HTTP 500, or code 13 on the envelope endpoints, before anything happens. */
  failRate: number;
  /** Share (0..1) of requests whose connection is closed with no answer, after the request took effect. */
  dropRate: number;
  /** Share (0..1) of answers whose body is cut short (not JSON), after the request took effect. */
  malformedRate: number;
}

export const NO_FAULTS: Readonly<Faults> = { latencyMs: 0, failRate: 0, dropRate: 0, malformedRate: 0 };

const rate = z.number({ error: "must be a number from 0 to 1" }).min(0, "must be 0 or more").max(1, "must be 1 or less");

/** What PUT /_sim/faults and the options accept: any subset, plus a new seed for the random source. */
export const FaultsUpdate = z.strictObject({
  latencyMs: z
    .number({ error: "must be a number of milliseconds" })
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .max(60_000, "must be at most 60000")
    .optional(),
  failRate: rate.optional(),
  dropRate: rate.optional(),
  malformedRate: rate.optional(),
  seed: z.number({ error: "must be a number" }).int("must be a whole number").optional(),
});
export type FaultsUpdate = z.input<typeof FaultsUpdate>;

/** A small xorshift generator: uniform enough for fault rates, and repeatable from its seed. */
export function seededRandom(seed: number): () => number {
  // Zero is a fixed point of xorshift, so it is mapped to another constant.
  let state = seed >>> 0 || 0x9e3779b9;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x1_0000_0000;
  };
}

export interface FaultRoll {
  fail: boolean;
  drop: boolean;
  malformed: boolean;
}

export class FaultInjector {
  private settings: Faults;
  private random: () => number;

  constructor(initial: Partial<Faults> = {}, seed = 1) {
    this.settings = { ...NO_FAULTS };
    this.random = seededRandom(seed);
    this.update(initial);
  }

  get current(): Faults {
    return { ...this.settings };
  }

  /** Applies a validated update; throws a ZodError naming the field when it is not valid. */
  update(update: unknown): Faults {
    const { seed, ...changes } = FaultsUpdate.parse(update);
    if (seed !== undefined) this.random = seededRandom(seed);
    this.settings = { ...this.settings, ...changes };
    return this.current;
  }

  /** One draw per kind and request, always all three, so the sequence does not depend on the rates. */
  roll(): FaultRoll {
    const fail = this.random() < this.settings.failRate;
    const drop = this.random() < this.settings.dropRate;
    const malformed = this.random() < this.settings.malformedRate;
    return { fail, drop, malformed };
  }
}
