/** How the simulated cloud writes times, ids and measures. */
import { createHash } from "node:crypto";

/** RFC 3339 with nanosecond precision: the clock gives milliseconds, a counter fills the rest so times stay distinct. */
let nanoCounter = 0;
export function nanoTimestamp(epochMs: number): string {
  nanoCounter = (nanoCounter + 1) % 1_000_000;
  return new Date(epochMs).toISOString().replace(/Z$/, `${String(nanoCounter).padStart(6, "0")}Z`);
}

export function milliTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

export function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** A UUID-shaped id that is the same on every run for the same text (seeded reports survive a reset unchanged). */
export function stableId(text: string): string {
  const hex = createHash("sha256").update(text).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
