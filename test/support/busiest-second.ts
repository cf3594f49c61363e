/** The most events (request arrivals, in ms) that fall within any one second: what a per-second rate limit counts. */
export function busiestSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= 1000) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
