/** A seeded random generator for generated test data, so a failure can be replayed with its seed. */
export type Rng = () => number;

/** mulberry32: tiny and deterministic. */
export function seeded(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
export const between = (rng: Rng, low: number, high: number): number => low + Math.floor(rng() * (high - low + 1));
