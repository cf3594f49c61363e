/**
 * How the simulated robots behave over time. All zero (startSimulator's
 * default) keeps every effect instant and every level still, so a test sees
 * exactly what it did; the CLI and the demo use REALISTIC_TIMING.
 */
export interface Timing {
  /** An accepted command (A, B3, B4) takes effect this long after it was accepted. */
  commandDelayMs: number;
  /** A navigation takes this long from its start to arriving; 0: it arrives at once. */
  navigationMs: number;
  /** A task finishes after running this long (paused time not counted); 0: it runs until stopped. */
  taskDurationMs: number;
  /** Battery percent used per minute while cleaning or navigating. */
  batteryDrainPerMinute: number;
  /** Battery percent gained per minute while charging. */
  batteryChargePerMinute: number;
  /**
   * How fast a robot travels its cleaning route while its task runs, in pixels
   * of its map per second (0.05 m each: 10 is 0.5 m/s); 0: it stays where it
   * is. A navigation keeps navigationMs instead, however far it goes.
   */
  speedPixelsPerSecond: number;
}

export const INSTANT_TIMING: Readonly<Timing> = {
  commandDelayMs: 0,
  navigationMs: 0,
  taskDurationMs: 0,
  batteryDrainPerMinute: 0,
  batteryChargePerMinute: 0,
  speedPixelsPerSecond: 0,
};

/** What the CLI and the demo run with: a robot needs a moment to act, and things change within minutes. */
export const REALISTIC_TIMING: Readonly<Timing> = {
  commandDelayMs: 2000,
  navigationMs: 5000,
  taskDurationMs: 120_000,
  batteryDrainPerMinute: 1,
  batteryChargePerMinute: 5,
  speedPixelsPerSecond: 10,
};
