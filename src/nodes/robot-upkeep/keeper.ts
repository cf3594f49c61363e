/**
 * The state behind a robot-upkeep node and what it does with it: the open
 * notices (kept per account and node in the package's memory), the account's
 * upkeep history of its robots (api/upkeep/history.ts), both copied to the
 * node's context; the reads of the robots' statuses into the account's
 * statuses (which feed the history), the upkeep table built from it, and the
 * reads on a timer. The node (upkeep-node.ts) turns messages into calls of this
 * and its results into messages.
 */
import type { Node } from "node-red";
import { keptForAccount } from "../../api/account/account-memory";
import type { RobotClient } from "../../api/client";
import type { UpkeepLimits } from "../../api/upkeep/attention";
import type { ReportedPart, WearPart } from "../../api/upkeep/facts";
import { reportsOfAccount } from "../../api/reports/report-store";
import { sweepFleet } from "../../api/reports/sweep";
import { DAY_MS, HISTORY_DAYS, MAX_UPKEEP_ROBOTS, upkeepHistoryOf, type PlainUpkeepHistory, type UpkeepHistory } from "../../api/upkeep/history";
import type { UpkeepRobot } from "../../api/upkeep/table";
import { upkeepTableOfAccount } from "../../api/upkeep/table-builder";
import { fleetStatusesOf } from "../../api/watching/fleet-statuses";
import { ContextMirror } from "../shared/context-mirror";
import { NoticeBook, type UpkeepNotice } from "./notices";

export interface UpkeepSettings {
  /** The robots read when a message names none; empty: every robot of the account. */
  serialNumbers: string[];
  /** Between timed reads; 0: none. */
  everyMs: number;
  /** Now, in epoch ms: the plans' clock (shared/plan-clock.ts), as the forecast reads the plans' hours. */
  now: () => number;
  /** Share of a part's life left at or under which it is due, 0-1. */
  partDue: number;
  limits: UpkeepLimits;
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
  private readonly history: UpkeepHistory;
  /**
   * The robots whose history the context keeps: the node's own, those its copy held, and every robot it read or
   * recorded a replacement of, least recently read first, at most as many as the history keeps. Only grown: a
   * message naming one robot must not drop the others' history from the copy a restart reads. Kept per account
   * and node, as the notices are: a redeploy reads no copy.
   */
  private readonly robots: Set<string>;
  /** Where each robot's sweep of its task reports ended (ms), per account and node as the robots are. */
  private readonly sweptUntil: Map<string, number>;
  private readonly mirror: ContextMirror;
  /** Resolves once the node's context was read into the state: nothing is read or sent before. */
  readonly ready: Promise<void>;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly lifetime = new AbortController();

  constructor(
    node: Node,
    private readonly client: RobotClient,
    private readonly settings: UpkeepSettings,
  ) {
    // Per account and node: another robot-upkeep node of the account, with other limits, sends its own notices.
    this.notices = keptForAccount(client.accountKey, `robot-upkeep/${node.id}`, () => new NoticeBook());
    this.history = upkeepHistoryOf(client.accountKey);
    this.robots = keptForAccount(client.accountKey, `robot-upkeep/${node.id}/robots`, () => new Set<string>());
    this.sweptUntil = keptForAccount(client.accountKey, `robot-upkeep/${node.id}/sweptUntil`, () => new Map<string, number>());
    this.keep(settings.serialNumbers);
    this.mirror = new ContextMirror(node, CONTEXT_KEY, () => ({ notices: this.notices.snapshot(), history: this.history.toPlain(this.robots) }));
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
    const at = this.settings.now();
    // Kept as the account's last statuses, which hand each one's upkeep facts to the history.
    fleetStatusesOf(this.client.accountKey).record(statuses, at);
    await this.sweepReports(names, options);
    const table = upkeepTableOfAccount(this.client.accountKey, names, { now: at, threshold: this.settings.partDue });
    this.keep(names);
    const notices = this.notices.crossings(table, this.settings.limits);
    this.mirror.changed();
    return { table, notices };
  }

  /**
   * The robots' task reports since the last read (the first time: the history's 90 days) into the account's
   * reports, which hand each one's cleaning time to the history once: the node alone learns a robot's wear per
   * cleaning hour, whoever started its tasks. A robot whose reports cannot be read now is asked from its last
   * sweep's end at the next read; its table row is made all the same.
   */
  private async sweepReports(serialNumbers: readonly string[], options: { signal: AbortSignal }): Promise<void> {
    if (serialNumbers.length === 0) return;
    const reports = reportsOfAccount(this.client.accountKey);
    const historyMs = HISTORY_DAYS * DAY_MS;
    await sweepFleet(this.client, {
      serialNumbers,
      nowMs: Date.now(),
      sinceMs: historyMs,
      keepMs: historyMs,
      sweptUntil: this.sweptUntil,
      seen: (report) => reports.get(report.reportKey, report.serialNumber) !== undefined,
      found: (report) => reports.keep(report),
      options,
    });
  }

  /** A person replaced the robot's part now: its wear starts again from here, whatever the cloud's counter says until it is reset. */
  async replaced(serialNumber: string, part: WearPart | ReportedPart): Promise<void> {
    await this.ready;
    this.history.replaced(serialNumber, part, this.settings.now());
    this.keep([serialNumber]);
    this.mirror.changed();
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
    const { notices, history } = stored as { notices?: unknown; history?: unknown };
    this.notices.restore(notices);
    this.history.restore(history);
    const robots = (history as Partial<PlainUpkeepHistory> | undefined)?.robots;
    if (typeof robots === "object" && robots !== null) this.keep(Object.keys(robots));
  }

  private keep(serialNumbers: Iterable<string>): void {
    for (const serialNumber of serialNumbers) {
      this.robots.delete(serialNumber);
      this.robots.add(serialNumber);
    }
    for (const serialNumber of this.robots) {
      if (this.robots.size <= MAX_UPKEEP_ROBOTS) break;
      this.robots.delete(serialNumber);
    }
  }
}
