/**
 * What a receiver of the cloud's pushes decides for each body, apart from
 * HTTP: is the appId right, is the body a push, has it been delivered before
 * (the sender guarantees nothing and may send one twice), is its level high
 * enough, and which of the robots' alarms are raised and not yet recovered.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isRobotApiError } from "./errors";
import { appIdOf, readPush, type Push } from "./pushes";

/** Deliveries remembered for spotting a second one, and open alarms tracked, at most. */
export const DEFAULT_PUSH_MEMORY = 10_000;
/** H0 (event notification) and H1 (statistics point) are not alarms: they are sent on but not counted as open. */
const FIRST_ALARM_RANK = 2;

export interface PushReceiverOptions {
  appId: string;
  /** Incidents below this level (0-7) are answered and dropped; undefined sends all. */
  minLevelRank?: number;
  memory?: number;
}

export type PushReceipt =
  | { status: 401; error: string }
  | { status: 400; error: string; field: string }
  /** Answered 200; `push` is what to send on, absent for a repeated delivery or a level below the minimum. */
  | { status: 200; push?: Push; repeated?: boolean; belowMinimum?: boolean; openAlarmsOfRobot?: number };

/** A set of the last `capacity` keys, oldest forgotten first. */
class RecentKeys {
  private readonly keys = new Set<string>();
  constructor(private readonly capacity: number) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** Adds the key (or makes it the newest); returns the key forgotten to make room, if any. */
  add(key: string): string | undefined {
    // Stryker disable next-line all: no caller adds a key it holds (deliveries are added when new, alarms after delete), so this only keeps the order true for one that would
    this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size <= this.capacity) return undefined;
    const oldest = this.keys.values().next().value!;
    this.keys.delete(oldest);
    return oldest;
  }

  /** True when the key was there. */
  delete(key: string): boolean {
    return this.keys.delete(key);
  }

  get size(): number {
    return this.keys.size;
  }
}

/** Alarms raised and not recovered, as keys "serial number, incident id", and their count per robot. */
class OpenAlarms {
  private readonly alarms: RecentKeys;
  private readonly perRobot = new Map<string, number>();
  constructor(capacity: number) {
    this.alarms = new RecentKeys(capacity);
  }

  get size(): number {
    return this.alarms.size;
  }

  ofRobot(serialNumber: string): number {
    return this.perRobot.get(serialNumber) ?? 0;
  }

  raise(serialNumber: string, incidentId: string): void {
    const key = `${serialNumber}\u0000${incidentId}`;
    if (this.alarms.delete(key)) this.count(serialNumber, -1);
    this.count(serialNumber, +1);
    const forgotten = this.alarms.add(key);
    if (forgotten !== undefined) this.count(forgotten.slice(0, forgotten.indexOf("\u0000")), -1);
  }

  recover(serialNumber: string, incidentId: string): void {
    if (this.alarms.delete(`${serialNumber}\u0000${incidentId}`)) this.count(serialNumber, -1);
  }

  private count(serialNumber: string, by: number): void {
    const count = (this.perRobot.get(serialNumber) ?? 0) + by;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a count of 0 kept reads as none (ofRobot's ?? 0); deleting it only frees memory
    if (count > 0) this.perRobot.set(serialNumber, count);
    else this.perRobot.delete(serialNumber);
  }
}

const digest = (text: string) => createHash("sha256").update(text).digest();

export class PushReceiver {
  private readonly appIdDigest: Buffer;
  private readonly delivered: RecentKeys;
  private readonly openAlarms: OpenAlarms;

  constructor(private readonly options: PushReceiverOptions) {
    this.appIdDigest = digest(options.appId);
    const memory = options.memory ?? DEFAULT_PUSH_MEMORY;
    this.delivered = new RecentKeys(memory);
    this.openAlarms = new OpenAlarms(memory);
  }

  /** Alarms sent on (H2 and above, or of an unreadable level; at least the minimum level) raised and not yet recovered, since the receiver started. */
  get openAlarmCount(): number {
    return this.openAlarms.size;
  }

  receive(body: unknown): PushReceipt {
    const appId = appIdOf(body);
    // Compared as digests of equal length in constant time: the answer's timing tells nothing of the right appId.
    if (appId === undefined || this.options.appId === "" || !timingSafeEqual(digest(appId), this.appIdDigest)) {
      return { status: 401, error: appId === undefined ? "appId is missing" : "appId is not this receiver's" };
    }
    let push: Push;
    try {
      push = readPush(body);
    } catch (error) {
      if (!isRobotApiError(error)) throw error;
      // Stryker disable next-line StringLiteral,LogicalOperator: readPush's refusals always name a field; "body" is the fallback for a change that would not
      return { status: 400, error: error.message, field: error.field ?? "body" };
    }
    const key = deliveryKey(push);
    if (key !== undefined) {
      if (this.delivered.has(key)) return { status: 200, repeated: true };
      this.delivered.add(key);
    }
    if (push.kind === "taskReport") return { status: 200, push };

    const { event } = push;
    const rank = event.level?.rank;
    // Below the minimum is neither sent nor counted: the open alarms are those the flow is told of.
    if (rank !== undefined && this.options.minLevelRank !== undefined && rank < this.options.minLevelRank) {
      return { status: 200, belowMinimum: true };
    }
    if (rank === undefined || rank >= FIRST_ALARM_RANK) {
      if (event.raised) this.openAlarms.raise(event.serialNumber, String(event.incidentId));
      else this.openAlarms.recover(event.serialNumber, String(event.incidentId));
    }
    return { status: 200, push, openAlarmsOfRobot: this.openAlarms.ofRobot(event.serialNumber) };
  }
}

/** What makes two deliveries the same push; undefined when a push names nothing to tell them apart. */
function deliveryKey(push: Push): string | undefined {
  const { event } = push;
  if (push.kind === "incident") return `incident\u0000${event.serialNumber}\u0000${String(push.event.incidentId)}\u0000${push.event.raised ? 1 : 0}`;
  const id = event.id ?? event.taskId;
  return typeof id === "string" || typeof id === "number" ? `report\u0000${event.serialNumber}\u0000${String(id)}` : undefined;
}
