/**
 * Classes of calls and the share of the account's rate each keeps
 * (design.md, "Status reads keep their share"). Stop commands go first; the
 * other classes take turns in proportion to their shares while each has
 * calls waiting (stride scheduling), and a class with nothing waiting leaves
 * its share to the others. So a burst of commands never blinds watching, and
 * a report sweep never starves behind either.
 */
import { LinkedQueue, type QueueLinks } from "./linked-queue";

export const CALL_CLASSES = ["stop", "status", "other", "sweep"] as const;
/**
 * - `stop`: commands that stop motion (the endpoint table's `urgent`), ahead of every other call;
 * - `status`: status reads for watching, confirmation and jobs (the default of the status endpoints);
 * - `other`: every other command and read (the default);
 * - `sweep`: report sweeps, reading history nobody waits on.
 */
export type CallClass = (typeof CALL_CLASSES)[number];
/** The classes a caller may choose (a stop command is known by its type, whatever the caller says). */
export type SharedCallClass = Exclude<CallClass, "stop">;
export const SHARED_CALL_CLASSES: readonly SharedCallClass[] = ["status", "other", "sweep"];

/**
 * Each class's share of the starts while every class has calls waiting: at
 * 20 calls/s, 6 status reads (a poll of 60 robots in 11-robot batches each
 * second), 12 commands and reads, 2 report pages.
 */
export const CALL_CLASS_SHARES: Readonly<Record<SharedCallClass, number>> = { status: 0.3, other: 0.6, sweep: 0.1 };

export function isSharedCallClass(value: unknown): value is SharedCallClass {
  return typeof value === "string" && (SHARED_CALL_CLASSES as readonly string[]).includes(value);
}

interface Lane<T extends QueueLinks<T>> {
  readonly queue: LinkedQueue<T>;
  /** Grows by `stride` with each start of the class; the next start goes to the class with the lowest pass. */
  pass: number;
  /** 1 / share: a class with twice the share takes twice the starts. */
  readonly stride: number;
}

/**
 * The waiting calls of an account, one FIFO per class, and which one starts
 * next. A call that goes back to wait (refused for the rate, or its
 * connection failed) is the first to go again after the stop commands, and
 * its class gets back the start it used.
 */
export class ClassQueues<T extends QueueLinks<T> & { readonly callClass: CallClass }> {
  private readonly stop = new LinkedQueue<T>();
  private readonly again = new LinkedQueue<T>();
  private readonly lanes: Record<SharedCallClass, Lane<T>>;
  /** The pass of the last class served: a class that starts waiting again begins there, with no credit saved while idle. */
  private virtualTime = 0;

  constructor(shares: Readonly<Record<SharedCallClass, number>> = CALL_CLASS_SHARES) {
    const lane = (share: number): Lane<T> => ({ queue: new LinkedQueue<T>(), pass: 0, stride: 1 / share });
    this.lanes = { status: lane(shares.status), other: lane(shares.other), sweep: lane(shares.sweep) };
  }

  get length(): number {
    return this.stop.length + this.again.length + this.lanes.status.queue.length + this.lanes.other.queue.length + this.lanes.sweep.queue.length;
  }

  /** Every queue, stop commands first (to drop or fail them all). */
  all(): LinkedQueue<T>[] {
    return [this.stop, this.again, this.lanes.status.queue, this.lanes.other.queue, this.lanes.sweep.queue];
  }

  /** Adds a call at the end of its class's queue, or (`again`: a call that was taken and goes back to wait) ahead of the classes. */
  add(item: T, again = false): void {
    if (item.callClass === "stop") {
      if (again) this.stop.unshift(item);
      else this.stop.push(item);
      return;
    }
    const lane = this.lanes[item.callClass];
    if (again) {
      lane.pass -= lane.stride;
      this.again.unshift(item);
      return;
    }
    if (lane.queue.length === 0) lane.pass = Math.max(lane.pass, this.virtualTime);
    lane.queue.push(item);
  }

  /** The call to start next: a stop command, a call going again, else the head of the class owed the most; it stays queued until taken. */
  next(): T | undefined {
    if (this.stop.head) return this.stop.head;
    if (this.again.head) return this.again.head;
    let best: Lane<T> | undefined;
    for (const name of SHARED_CALL_CLASSES) {
      const lane = this.lanes[name];
      if (lane.queue.head && (!best || lane.pass < best.pass)) best = lane;
    }
    return best?.queue.head;
  }

  /** Takes `item` (what next() gave) out to start it, counting the start against its class. */
  take(item: T): void {
    item.queue!.remove(item);
    if (item.callClass === "stop") return;
    const lane = this.lanes[item.callClass];
    this.virtualTime = lane.pass;
    lane.pass += lane.stride;
  }
}
