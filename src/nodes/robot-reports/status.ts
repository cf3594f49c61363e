/** The status under a robot-reports node: what it is doing, how many reports it sent, when it last swept. */
import type { Node, NodeStatus } from "node-red";
import { RobotApiError } from "../../api/errors";
import type { SweepSummary } from "../../api/reports/sweep";
import type { Translate } from "../shared/i18n";
import { StatusDrawer } from "../shared/node-status-view";
import { shorten } from "../shared/status-text";

/** "14:05" in the runtime's time zone. */
function clock(date: Date): string {
  return date.toTimeString().slice(0, 5);
}

/** What the status says: the reports being read at start, a sweep under way, or the last sweep's outcome. */
export class ReportsStatus {
  /** Reports sent on since the node started. */
  sent = 0;
  /** Robots whose reports the last sweep was refused as not bound to this app (110003). */
  notBound = 0;
  private last: { text: string; fill: "green" | "yellow" | "red" } | undefined;
  private doing: "reading" | "sweeping" | undefined;
  /** Another Node-RED instance sweeps for this node: the reports its shared book holds. */
  private standing: number | undefined;
  private readonly drawer: StatusDrawer;

  constructor(
    node: Node,
    private readonly t: Translate,
  ) {
    this.drawer = new StatusDrawer(node, () => this.current());
  }

  reading(): void {
    this.doing = "reading";
    this.drawer.draw();
  }

  /** Another instance sweeps for this node (a shared account); `reports` its shared book holds. */
  standingBy(reports: number): void {
    this.standing = reports;
    this.doing = undefined;
    this.drawer.draw();
  }

  sweeping(): void {
    this.standing = undefined;
    this.doing = "sweeping";
    this.drawer.draw();
  }

  swept(summary: SweepSummary): void {
    const time = clock(new Date());
    if (summary.failures.length > 0) {
      this.last = { fill: "yellow", text: this.t("status.partly", { failed: summary.failures.length, robots: summary.robots, time }) };
    } else {
      this.last = { fill: "green", text: this.t("status.swept", { robots: summary.robots, time }) };
    }
    this.draw();
  }

  failed(error: unknown): void {
    if (error instanceof RobotApiError && error.kind === "aborted") return;
    this.last = { fill: "red", text: this.t("status.sweepFailed", { code: error instanceof RobotApiError ? error.code : "ERROR" }) };
    this.draw();
  }

  /** The last sweep's outcome, and the count of reports sent. */
  draw(): void {
    this.doing = undefined;
    this.drawer.draw();
  }

  close(): void {
    this.drawer.close();
  }

  private current(): NodeStatus {
    if (this.doing === "reading") return { fill: "blue", shape: "ring", text: this.t("status.reading") };
    if (this.doing === "sweeping") return { fill: "blue", shape: "dot", text: this.t("status.sweeping", { sent: this.sent }) };
    if (this.standing !== undefined) return { fill: "grey", shape: "ring", text: shorten(this.t("status.standingBy", { reports: this.standing }), 64) };
    const sent = this.t("status.sent", { count: this.sent });
    const unbound = this.notBound > 0 ? `, ${this.t("status.notBound", { count: this.notBound })}` : "";
    const text = `${sent}${unbound}${this.last ? `, ${this.last.text}` : ""}`;
    // A robot not bound for reports is the account's to fix: yellow, like a sweep that failed for some.
    const fill = this.notBound > 0 && this.last?.fill === "green" ? "yellow" : (this.last?.fill ?? "green");
    return { fill, shape: fill === "green" ? "dot" : "ring", text: shorten(text, 64) };
  }
}
