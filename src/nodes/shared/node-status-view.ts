/**
 * The status under a robot node: what its own messages are doing (queued,
 * requesting, paused by the cloud, waiting for the robot), how the last one
 * ended, and how many ended without output; redrawn cheaply during a burst.
 */
import type { Node, NodeStatus } from "node-red";
import type { RobotClient } from "../../api/client";
import { REAL_CLOCK, type EngineClock } from "../../api/engine/clock";
import type { RequestEngine } from "../../api/engine/engine";
import type { CallTracker } from "../../api/settings/call-settings";
import type { RobotApiError } from "../../api/errors";
import { configProblemStatus } from "./config-node";
import type { Translate } from "./i18n";
import type { NoOutput } from "./no-output";
import { shorten } from "./status-text";

/** While messages are pending, the status is redrawn at most this often (a burst is thousands of changes). */
const STATUS_INTERVAL_MS = 250;

/** Which status is the same as another: what Node-RED draws of it. */
function keyOf(status: NodeStatus): string {
  return JSON.stringify([status.fill, status.shape, status.text]);
}

export interface StatusDrawerOptions {
  /** While the status changes fast, it is drawn at most this often (0: every change is drawn at once). */
  intervalMs?: number;
  /** After each draw: in how many ms to draw again though nothing said it changed (a countdown), or undefined. */
  again?: () => number | undefined;
  clock?: EngineClock;
  /** false: a status equal to the one shown is drawn again too (robot-events: each push redraws its counts). */
  skipUnchanged?: boolean;
}

/**
 * Draws the status under a node from a function that computes it: a status
 * equal to the one shown is not drawn again, changes that come fast are drawn
 * at most once per interval (the last of them), and close clears the status
 * and the timer. What a node's status says is its own; how it is drawn is this.
 */
export class StatusDrawer {
  private shown: string | undefined;
  private timer: unknown;
  private lastDrawn = -Infinity;
  private closed = false;
  private readonly intervalMs: number;
  private readonly clock: EngineClock;

  constructor(
    private readonly node: Pick<Node, "status">,
    private readonly current: () => NodeStatus,
    private readonly options: StatusDrawerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 0;
    this.clock = options.clock ?? REAL_CLOCK;
  }

  /** Something changed: drawn now when the last draw is an interval old, else once when it is. */
  changed(): void {
    if (this.closed) return;
    const wait = this.lastDrawn + this.intervalMs - this.clock.now();
    if (wait <= 0) {
      this.draw();
      return;
    }
    this.timer ??= this.clock.setTimeout(() => {
      this.timer = undefined;
      this.draw();
    }, wait);
  }

  /** Drawn now, whatever the interval; still not when it is the status shown. */
  draw(): void {
    if (this.closed) return;
    this.stopTimer();
    this.lastDrawn = this.clock.now();
    this.put(this.current());
    const again = this.options.again?.();
    if (again !== undefined) {
      this.timer = this.clock.setTimeout(() => {
        this.timer = undefined;
        this.draw();
      }, again);
    }
  }

  /** Drawn now even when it is the status shown: a fresh sign that something happened again. */
  redraw(): void {
    this.shown = undefined;
    this.draw();
  }

  /** A status of the moment instead of the computed one (an error): drawn now; the next change draws the computed one again. */
  show(status: NodeStatus): void {
    if (this.closed) return;
    this.stopTimer();
    this.put(status);
  }

  /** Stops drawing and clears the status. */
  close(): void {
    this.closed = true;
    this.stopTimer();
    this.node.status({});
  }

  private put(status: NodeStatus): void {
    const key = keyOf(status);
    if (key === this.shown && this.options.skipUnchanged !== false) return;
    this.shown = key;
    this.node.status(status);
  }

  private stopTimer(): void {
    if (this.timer === undefined) return;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}

type Outcome = { fill: "green" | "red"; text: string } | undefined;

/** Keeps the status under a node true to its own messages, cheaply during a burst. */
export class NodeStatusView {
  /** Messages accepted and not yet ended. */
  pending = 0;
  /** Messages whose call is answered and that wait for the robot to show its effect. */
  confirming = 0;
  /** Of those, messages whose answer said the robot received the command and has not started it (cmdStatus 6). */
  deliveredNotStarted = 0;
  /** Messages that ended with no output since the node was last idle, by reason. */
  readonly dropped = new Map<NoOutput["reason"], number>();
  readonly tracker: CallTracker;
  private outcome: Outcome;
  private configProblem: RobotApiError | undefined;
  /** What the status drawn last says, as "busy:...", "idle...", "done:..." or "config". */
  private drawnKey = "";
  private readonly drawer: StatusDrawer;
  private stopWatchingPause: (() => void) | undefined;

  constructor(
    private readonly node: Node,
    /** The engine whose pause this node's waiting messages are held by, once a config is known. */
    private readonly engineOf: () => RequestEngine | undefined,
    readonly t: Translate,
  ) {
    this.tracker = { waiting: 0, sending: 0, changed: () => this.changed() };
    this.drawer = new StatusDrawer(node, () => this.currentStatus(), {
      intervalMs: STATUS_INTERVAL_MS,
      // The pause's seconds count down while this node's messages wait for it.
      again: () => (this.drawnKey.startsWith("busy:paused") ? 1000 : undefined),
    });
  }

  watchPause(client: RobotClient): void {
    if (this.stopWatchingPause) return;
    this.stopWatchingPause = client.engine.onPauseChange(() => this.changed());
  }

  showConfigProblem(problem: RobotApiError): void {
    this.configProblem = problem;
    // Shown again on every refused message, as a fresh sign that the message went nowhere.
    this.drawer.redraw();
  }

  finished(outcome: Outcome): void {
    if (outcome) this.outcome = outcome;
    this.configProblem = undefined;
    this.changed();
  }

  /** Something changed: drawn now when the node went idle or just got busy, else at most every STATUS_INTERVAL_MS. */
  changed(): void {
    if (this.pending === 0 || !this.drawnKey.startsWith("busy:")) this.drawer.draw();
    else this.drawer.changed();
  }

  close(): void {
    this.stopWatchingPause?.();
    this.drawer.close();
  }

  private currentStatus(): NodeStatus {
    const [key, status] = this.current();
    this.drawnKey = key;
    return status;
  }

  /** "waiting for robot", or "delivered, not started yet" when every waiting message's answer said so. */
  private waitingText(): string {
    const several = this.confirming > 1;
    if (this.deliveredNotStarted === this.confirming) {
      return several ? this.t("status.deliveredNotStartedCount", { count: this.confirming }) : this.t("status.deliveredNotStarted");
    }
    return several ? this.t("status.waitingForRobots", { count: this.confirming }) : this.t("status.waitingForRobot");
  }

  private current(): [string, NodeStatus] {
    if (this.configProblem) return ["config", configProblemStatus(this.configProblem, this.t)];
    if (this.pending > 0) {
      const pausedMs = this.engineOf()?.pausedForMs() ?? 0;
      if (pausedMs > 0 && this.tracker.waiting > 0) {
        const text = this.t("status.paused", { seconds: Math.ceil(pausedMs / 1000) });
        return [`busy:paused:${text}`, { fill: "yellow", shape: "ring", text }];
      }
      if (this.tracker.waiting > 0) {
        const text = this.t("status.queued", { count: this.tracker.waiting });
        return [`busy:${text}`, { fill: "blue", shape: "ring", text }];
      }
      if (this.tracker.sending === 0 && this.confirming > 0) {
        const text = this.waitingText();
        return [`busy:${text}`, { fill: "blue", shape: "ring", text }];
      }
      return ["busy:requesting", { fill: "blue", shape: "dot", text: this.t("status.requesting") }];
    }
    const dropped = [...this.dropped].map(([reason, count]) => this.t(`status.${reason}`, { count })).join(", ");
    if (!this.outcome) {
      if (!dropped) return ["idle", {}];
      return [`idle:${dropped}`, { fill: "grey", shape: "ring", text: dropped }];
    }
    // The result is shortened, the count of dropped messages is kept whole.
    const text = dropped ? `${shorten(this.outcome.text, 20)} (${dropped})` : shorten(this.outcome.text);
    return [`done:${this.outcome.fill}:${text}`, { fill: this.outcome.fill, shape: this.outcome.fill === "green" ? "dot" : "ring", text }];
  }
}
