/**
 * What a receiver of the cloud's pushes decides for each body, apart from
 * HTTP: is the appId right, is the body a push, has it been delivered before
 * (the sender guarantees nothing and may send one twice), and is its level
 * high enough to send on. Which alarms are open is the account's alarms'
 * (open-alarms.ts) to say, from the incidents this passes and holds back.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isRobotApiError } from "../errors";
import { isIdentifiable } from "../reports/reading";
import { alarmKey, appIdOf, incidentIdOf, readPush, type Push } from "./pushes";

/** Deliveries remembered for spotting a second one, at most. */
export const PUSH_MEMORY = 10_000;

export interface PushReceiverOptions {
  appId: string;
  /** Incidents below this level (0-7) are answered and dropped; undefined sends all. */
  minLevelRank?: number;
}

export type PushReceipt =
  | { status: 401; error: string }
  | { status: 400; error: string; field: string }
  /**
   * Answered 200; `push` is what to send on, absent for a repeated delivery or a level below the minimum.
   * `heldBack` is an incident below the minimum: not sent on, but still an alarm of the account.
   */
  | { status: 200; push?: Push; repeated?: boolean; belowMinimum?: boolean; heldBack?: Push };

/** The last `capacity` keys, each with a value, oldest forgotten first. */
class RecentKeys<Value = true> {
  private readonly keys = new Map<string, Value>();
  constructor(private readonly capacity: number) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  get(key: string): Value | undefined {
    return this.keys.get(key);
  }

  /** Adds the key (or makes it the newest); returns the key forgotten to make room, if any. */
  add(key: string, value: Value): string | undefined {
    this.keys.delete(key);
    this.keys.set(key, value);
    if (this.keys.size <= this.capacity) return undefined;
    const oldest = this.keys.keys().next().value!;
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

const digest = (text: string) => createHash("sha256").update(text).digest();

export class PushReceiver {
  private readonly appIdDigest: Buffer;
  /** The messageIds of the deliveries remembered. */
  private readonly messageIds: RecentKeys;
  /** What the deliveries remembered were about (contentKey), each with its messageId ("" for a push that had none). */
  private readonly contents: RecentKeys<string>;

  constructor(private readonly options: PushReceiverOptions) {
    this.appIdDigest = digest(options.appId);
    this.messageIds = new RecentKeys(PUSH_MEMORY);
    this.contents = new RecentKeys(PUSH_MEMORY);
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
    if (this.isRepeat(push)) return { status: 200, repeated: true };
    if (push.kind !== "incident") return { status: 200, push };

    const rank = push.event.level?.rank;
    // Below the minimum is not sent on, but is still an alarm: the caller records what is held back.
    if (rank !== undefined && this.options.minLevelRank !== undefined && rank < this.options.minLevelRank) {
      return { status: 200, belowMinimum: true, heldBack: push };
    }
    return { status: 200, push };
  }

  /**
   * Whether the push was delivered before, and remembers it. A messageId seen
   * before is a repeat. So is the same incident (robot, id, status) or report
   * (robot, id) seen before, unless both deliveries carry messageIds and they
   * differ (then the service says they are two messages): the same push sent in
   * the documented envelope and in the newer one, which alone has messageIds, is one.
   */
  private isRepeat(push: Push): boolean {
    const messageId = messageIdOf(push);
    const content = contentKey(push);
    if (messageId !== undefined && this.messageIds.has(messageId)) return true;
    if (content !== undefined && this.contents.has(content)) {
      const earlier = this.contents.get(content)!;
      if (earlier === "" || messageId === undefined || earlier === messageId) return true;
    }
    if (messageId !== undefined) this.messageIds.add(messageId, true);
    if (content !== undefined) this.contents.add(content, messageId ?? "");
    return false;
  }
}

/** The newer envelope's messageId, as text; undefined when there is none. */
function messageIdOf(push: Push): string | undefined {
  const { messageId } = push.envelope;
  return (typeof messageId === "string" && messageId.trim() !== "") || typeof messageId === "number" ? String(messageId).trim() : undefined;
}

/**
 * What a push is about, the same in every envelope: an incident's alarm key
 * (robot and id) and status, a report's identity (reportIdentity: robot and
 * id, else robot and start). Undefined for an incident that names no id, a
 * report that names neither id nor start, and a scheduling task (its shape is
 * not published).
 */
function contentKey(push: Push): string | undefined {
  if (push.kind === "taskReport") return isIdentifiable(push.event) ? `report\u0000${push.event.reportKey}` : undefined;
  if (push.kind !== "incident") return undefined;
  const incidentId = incidentIdOf(push.event);
  return incidentId === undefined
    ? undefined
    : `incident\u0000${alarmKey(push.event.serialNumber, incidentId)}\u0000${push.event.incidentState}`;
}
