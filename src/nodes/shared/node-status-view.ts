/**
 * The status under a robot node: what its own messages are doing (queued,
 * requesting, paused by the cloud, waiting for the robot), how the last one
 * ended, and how many ended without output; redrawn cheaply during a burst.
 */
import type { Node, NodeStatus } from "node-red";
import type { RobotClient } from "../../api/client";
import type { RequestEngine } from "../../api/engine/engine";
import type { CallTracker } from "../../api/settings/call-settings";
import type { RobotApiError } from "../../api/errors";
import { configProblemStatus } from "./config-node";
import type { Translate } from "./i18n";
import type { NoOutput } from "./no-output";
import { shorten } from "./status-text";

/** While messages are pending, the status is redrawn at most this often (a burst is thousands of changes). */
const STATUS_INTERVAL_MS = 250;

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
  private shown = "";
  private timer: NodeJS.Timeout | undefined;
  private stopWatchingPause: (() => void) | undefined;

  constructor(
    private readonly node: Node,
    /** The engine whose pause this node's waiting messages are held by, once a config is known. */
    private readonly engineOf: () => RequestEngine | undefined,
    readonly t: Translate,
  ) {
    this.tracker = { waiting: 0, sending: 0, changed: () => this.changed() };
  }

  watchPause(client: RobotClient): void {
    if (this.stopWatchingPause) return;
    this.stopWatchingPause = client.engine.onPauseChange(() => this.changed());
  }

  showConfigProblem(problem: RobotApiError): void {
    this.configProblem = problem;
    // Shown again on every refused message, as a fresh sign that the message went nowhere.
    this.shown = "";
    this.draw();
  }

  finished(outcome: Outcome): void {
    if (outcome) this.outcome = outcome;
    this.configProblem = undefined;
    this.changed();
  }

  /** Something changed: draw now when the node went idle or just got busy, else at most every STATUS_INTERVAL_MS. */
  changed(): void {
    const busyShown = this.shown.startsWith("busy:");
    if (this.pending === 0 || !busyShown) {
      this.draw();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.draw();
    }, STATUS_INTERVAL_MS);
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stopWatchingPause?.();
    this.node.status({});
  }

  private draw(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const [key, status] = this.current();
    if (key === this.shown) return;
    this.shown = key;
    this.node.status(status);
    if (key.startsWith("busy:paused")) {
      // The pause's seconds count down while this node's messages wait for it.
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.draw();
      }, 1000);
    }
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
