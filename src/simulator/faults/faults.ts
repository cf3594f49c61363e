/**
 * Fault injection: added latency, failed answers, dropped connections,
 * malformed bodies, ignored commands and lost or repeated pushes, drawn from
 * seedable random sources so a test run always sees the same sequence.
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
  /** Share (0..1) of accepted commands a robot never carries out (so waiting for its effect ends NOT_CONFIRMED). */
  ignoreRate: number;
  /** Share (0..1) of pushes (incidents, task reports) delivered twice, as a sender with no delivery guarantee may. */
  pushDuplicateRate: number;
  /** Share (0..1) of pushes never delivered (counted as dropped). */
  pushDropRate: number;
  /** Share (0..1) of task starts that fail, half each way (TaskFault): the robot busy, or its battery failing partway. */
  taskFaultRate: number;
}

/**
 * How a task start fails (taskFaultRate): `busy`, the robot refuses it as
 * busy with another task; `battery`, it starts and its battery fails after
 * `atShare` (0.3-0.7) of the task's time.
 */
export type TaskFault = { kind: "busy" } | { kind: "battery"; atShare: number };

export const NO_FAULTS: Readonly<Faults> = {
  latencyMs: 0,
  failRate: 0,
  dropRate: 0,
  malformedRate: 0,
  ignoreRate: 0,
  pushDuplicateRate: 0,
  pushDropRate: 0,
  taskFaultRate: 0,
};

export const MAX_LATENCY_MS = 60_000;
const RATE = "must be a number from 0 to 1";
const rate = z.number({ error: RATE }).min(0, RATE).max(1, RATE);
const LATENCY = `must be a whole number of milliseconds from 0 to ${MAX_LATENCY_MS}`;
const WHOLE = "must be a whole number";

/**
 * What PUT /_sim/faults, the command line and the options accept: any subset,
 * plus a new seed for the random sources. One schema for all three, so a value
 * one of them refuses, the others refuse too, in the same words.
 */
export const FaultsUpdate = z.strictObject({
  latencyMs: z.number({ error: LATENCY }).int(LATENCY).min(0, LATENCY).max(MAX_LATENCY_MS, LATENCY).optional(),
  failRate: rate.optional(),
  dropRate: rate.optional(),
  malformedRate: rate.optional(),
  ignoreRate: rate.optional(),
  pushDuplicateRate: rate.optional(),
  pushDropRate: rate.optional(),
  taskFaultRate: rate.optional(),
  seed: z.number({ error: WHOLE }).int(WHOLE).optional(),
});
export type FaultsUpdate = z.input<typeof FaultsUpdate>;

/** The command-line flag of each field of FaultsUpdate. */
export const FAULT_FLAGS: Readonly<Record<keyof FaultsUpdate, string>> = {
  latencyMs: "latency",
  failRate: "fail-rate",
  dropRate: "drop-rate",
  malformedRate: "malformed-rate",
  ignoreRate: "ignore-rate",
  pushDuplicateRate: "push-duplicate-rate",
  pushDropRate: "push-drop-rate",
  taskFaultRate: "task-fault-rate",
  seed: "seed",
};

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

/** What happens to one push: never delivered, or delivered twice. */
export interface PushRoll {
  drop: boolean;
  duplicate: boolean;
}

/** The ignore and push dice are seeded apart from the fault dice, so changing one rate does not shift another's sequence. */
const IGNORE_SEED_OFFSET = 7919;
const PUSH_SEED_OFFSET = 104_729;
const TASK_SEED_OFFSET = 1_299_709;

export class FaultInjector {
  private settings: Faults;
  private random: () => number;
  private ignoreDice: () => number;
  private pushDice: () => number;
  private taskDice: () => number;

  constructor(initial: Partial<Faults> = {}, seed = 1) {
    this.settings = { ...NO_FAULTS };
    this.random = seededRandom(seed);
    this.ignoreDice = seededRandom(seed + IGNORE_SEED_OFFSET);
    this.pushDice = seededRandom(seed + PUSH_SEED_OFFSET);
    this.taskDice = seededRandom(seed + TASK_SEED_OFFSET);
    this.update(initial);
  }

  get current(): Faults {
    return { ...this.settings };
  }

  /** Applies a validated update; throws a ZodError naming the field when it is not valid. */
  update(update: unknown): Faults {
    const { seed, ...changes } = FaultsUpdate.parse(update);
    if (seed !== undefined) {
      this.random = seededRandom(seed);
      this.ignoreDice = seededRandom(seed + IGNORE_SEED_OFFSET);
      this.pushDice = seededRandom(seed + PUSH_SEED_OFFSET);
      this.taskDice = seededRandom(seed + TASK_SEED_OFFSET);
    }
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

  /** Whether a robot ignores the command it was just given (ignoreRate). */
  ignores(): boolean {
    return this.settings.ignoreRate > 0 && this.ignoreDice() < this.settings.ignoreRate;
  }

  /** How a task start fails, if it does (taskFaultRate): three draws per start while the rate is above 0, so the sequence does not depend on the outcome. */
  taskFault(): TaskFault | undefined {
    if (!(this.settings.taskFaultRate > 0)) return undefined;
    const fails = this.taskDice() < this.settings.taskFaultRate;
    const busy = this.taskDice() < 0.5;
    const atShare = 0.3 + 0.4 * this.taskDice();
    if (!fails) return undefined;
    return busy ? { kind: "busy" } : { kind: "battery", atShare };
  }

  /** One draw of each push die per push, always both, so the sequence does not depend on the rates. */
  pushRoll(): PushRoll {
    const drop = this.pushDice() < this.settings.pushDropRate;
    const duplicate = this.pushDice() < this.settings.pushDuplicateRate;
    return { drop, duplicate };
  }
}
