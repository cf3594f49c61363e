/**
 * The state behind a robot-upkeep node and what it does with it: the open
 * notices (kept per account and node in the package's memory, copied to the
 * node's context), the reads of the robots' statuses, the upkeep table built
 * from them, and the reads on a timer. The node (index.ts) turns messages
 * into calls of this and its results into messages.
 */
import type { Node } from "node-red";
import { keptForAccount } from "../../api/account/account-memory";
import { robotNameOf } from "../../api/account/robot-directory";
import type { RobotClient } from "../../api/client";
import { upkeepFactsOf } from "../../api/upkeep/facts";
import type { UpkeepRobot } from "../../api/upkeep/table";
import { serialNumberOf } from "../../api/watching/status-reader";
import { ContextMirror } from "../shared/context-mirror";
import { NoticeBook, type NoticeLimits, type UpkeepNotice } from "./notices";

export interface UpkeepSettings {
  /** The robots read when a message names none; empty: every robot of the account. */
  serialNumbers: string[];
  /** Between timed reads; 0: none. */
  everyMs: number;
  /** Share of a part's life left under which it is due, 0-1. */
  partDue: number;
  limits: NoticeLimits;
}

/** One read: the table and the notices its crossings bring. */
export interface UpkeepRead {
  table: UpkeepRobot[];
  notices: UpkeepNotice[];
}

/** Where the node's context holds the copy of its state. */
export const CONTEXT_KEY = "robotUpkeep";

export class UpkeepKeeper {
  readonly notices: NoticeBook;
  private readonly mirror: ContextMirror;
  /** Resolves once the node's context was read into the state: nothing is read or sent before. */
  readonly ready: Promise<void>;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly lifetime = new AbortController();
  /** Robots in the last read. */
  robotsRead = 0;

  constructor(
    node: Node,
    private readonly client: RobotClient,
    private readonly settings: UpkeepSettings,
  ) {
    // Per account and node: another robot-upkeep node of the account, with other limits, sends its own notices.
    this.notices = keptForAccount(client.accountKey, `robot-upkeep/${node.id}`, () => new NoticeBook());
    this.mirror = new ContextMirror(node, CONTEXT_KEY, () => ({ notices: this.notices.snapshot() }));
    this.ready = (this.notices.restored ? Promise.resolve() : this.mirror.read().then((stored) => this.restore(stored))).then(() => {
      this.notices.restored = true;
    });
  }

  /** Reads the robots' statuses (these, else the node's, else the account's) and gives the table and its crossings. */
  async read(serialNumbers: readonly string[] = this.settings.serialNumbers): Promise<UpkeepRead> {
    await this.ready;
    const options = { signal: this.lifetime.signal };
    const names = serialNumbers.length > 0 ? serialNumbers : (await this.client.listAllRobots(options)).map((robot) => robot.serialNumber);
    const statuses = names.length === 0 ? [] : await this.client.batchGetStatuses(names, { ...options, line: "v1" });
    const readAt = new Date().toISOString();
    const table = statuses.flatMap((status) => {
      const robot = this.rowOf(status, readAt);
      return robot ? [robot] : [];
    });
    this.robotsRead = table.length;
    const notices = this.notices.crossings(table, this.settings.limits);
    if (notices.length > 0) this.mirror.changed();
    return { table, notices };
  }

  /** Reads every `everyMs` from now (no timer with 0); `onTimer` says what a timed read does. */
  schedule(): void {
    clearTimeout(this.timer);
    if (this.closed || this.settings.everyMs === 0) return;
    this.timer = setTimeout(() => this.onTimer?.(), this.settings.everyMs);
  }

  onTimer: (() => void) | undefined;

  /** Stops reading and waits for the context copy to be written. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.lifetime.abort();
    await this.mirror.flush();
  }

  private restore(stored: unknown): void {
    if (typeof stored !== "object" || stored === null) return;
    this.notices.restore((stored as { notices?: unknown }).notices);
  }

  /** The table's row of one status, or undefined for a robot whose status says nothing of upkeep (unreachable). */
  private rowOf(status: Record<string, unknown>, readAt: string): UpkeepRobot | undefined {
    const serialNumber = serialNumberOf(status);
    const facts = upkeepFactsOf(status);
    if (serialNumber === undefined || !facts) return undefined;
    const name = robotNameOf(this.client.accountKey, serialNumber);
    return {
      serialNumber,
      ...(name !== serialNumber ? { name } : {}),
      readAt,
      parts: facts.parts.map((wear) => ({
        part: wear.part,
        remaining: wear.remaining,
        usedLife: wear.usedLife,
        lifeSpan: wear.lifeSpan,
        threshold: this.settings.partDue,
        forecast: { basis: "too little history", historyDays: 0 },
      })),
      tanks: facts.tanks,
      battery: facts.battery,
    };
  }
}
