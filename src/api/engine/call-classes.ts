/**
 * Classes of calls and the share of the account's rate each keeps
 * (design.md, "Status reads keep their share"). Stop commands go first; the
 * other classes take turns in proportion to their shares while each has
 * calls waiting (stride scheduling), and a class with nothing waiting leaves
 * its share to the others. So a burst of commands never blinds watching, and
 * a report sweep never starves behind either.
 */
import { CALL_CLASS_SHARES, SHARED_CALL_CLASSES, type CallClass, type SharedCallClass } from "../settings/call-settings";
import { LinkedQueue, type QueueLinks } from "./linked-queue";

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
    return (
      this.stop.length + this.again.length + this.lanes.status.queue.length + this.lanes.other.queue.length + this.lanes.sweep.queue.length
    );
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
