/**
 * Home Assistant's clean_area on one robot: the chosen segments (areas of the
 * robot's map) cleaned one after another, each an area job started as
 * robot-job starts one (jobs.ts), the next once the bridge's polls show the
 * one before ended. Any other command for the robot through the bridge (a
 * fan speed aside) ends the rest; so does a start refused, a robot with a
 * problem at an area's end, or the node's close.
 */
import type { RobotClient } from "../../api/client";
import { areaEndResult, areaJobOf, type ChosenArea } from "../../api/mqtt/segments";
import { problemsOf, type RobotView } from "../../api/mqtt/robot-view";
import { outcomeOfReport } from "../../api/jobs/job-book";
import { alarmsOfAccount } from "../../api/pushes/open-alarms";
import { reportsOfAccount } from "../../api/reports/report-store";
import { listedReportOfStart } from "../../api/jobs/task-report";
import { isTaskUnderWay } from "../../api/watching/status-reader";
import { startJob, type BridgeResult } from "./jobs";

interface Run {
  /** The fan speed chosen with set_fan_speed when the run began: every area cleans with it. */
  chosenMode: string | undefined;
  /** When the area under way was sent: its task's report is of a task started since. */
  sentAt: number;
  /** Until a poll read after this shows the robot done, its area is under way. */
  startedAt: number;
  seenUnderWay: boolean;
  /** Settles the wait for the area's end: with the poll's view, or with nothing (cancelled, or the node closed). */
  ended?: (view?: RobotView) => void;
  cancelled: boolean;
}

export class SegmentRuns {
  private readonly runs = new Map<string, Run>();

  constructor(
    private readonly client: RobotClient,
    private readonly signal: AbortSignal,
    private readonly answer: (serialNumber: string, result: BridgeResult) => void,
    /** Carries out a background start as a command under way for the robot (the bridge then refuses another start meanwhile). */
    private readonly underWay: (serialNumber: string, start: () => Promise<BridgeResult>) => Promise<BridgeResult>,
    private readonly confirmTimeoutMs?: number,
  ) {}

  /** Starts the first area and resolves with its start's result; the others follow in the background. */
  async start(serialNumber: string, areas: readonly ChosenArea[], chosenMode: string | undefined): Promise<BridgeResult> {
    this.cancel(serialNumber);
    const run: Run = { chosenMode, sentAt: 0, startedAt: 0, seenUnderWay: false, cancelled: false };
    this.runs.set(serialNumber, run);
    const first = await this.startArea(serialNumber, areas, 0, run);
    // A command that came during the first start (a stop) ended the run: nothing follows it.
    if (first.ok && !run.cancelled) void this.follow(serialNumber, areas, run);
    else this.forget(serialNumber, run);
    return first;
  }

  /** The rest of the robot's areas are not started (another command for it came). */
  cancel(serialNumber: string): void {
    const run = this.runs.get(serialNumber);
    if (!run) return;
    run.cancelled = true;
    this.runs.delete(serialNumber);
    run.ended?.();
  }

  /** A poll's view of a robot; `polledFrom`: when that poll's read began. */
  seen(view: RobotView, polledFrom: number): void {
    const run = this.runs.get(view.serialNumber);
    if (!run?.ended || run.startedAt === 0) return;
    const underWay = isTaskUnderWay(view.state.taskState);
    if (underWay) run.seenUnderWay = true;
    // A read begun before the start could show the robot idle still.
    else if (run.seenUnderWay || polledFrom > run.startedAt) run.ended(view);
  }

  private async startArea(serialNumber: string, areas: readonly ChosenArea[], index: number, run: Run): Promise<BridgeResult> {
    const area = areas[index]!;
    run.sentAt = Date.now();
    const started = await startJob(this.client, serialNumber, areaJobOf(area, run.chosenMode), this.signal, this.confirmTimeoutMs);
    run.startedAt = Date.now();
    run.seenUnderWay = false;
    const which = areas.length > 1 ? ` (${index + 1} of ${areas.length})` : "";
    return { command: "clean_segments", ok: started.ok, reason: started.ok ? `${area.name}${which} started: ${started.reason}` : `${area.name}${which}: ${started.reason}` };
  }

  private async follow(serialNumber: string, areas: readonly ChosenArea[], run: Run): Promise<void> {
    for (let index = 0; ; index++) {
      const end = await this.endOf(run);
      if (!end || run.cancelled || this.signal.aborted) return;
      const problems = problemsOf(end.state, alarmsOfAccount(this.client.accountKey).highestOf(serialNumber));
      const last = index === areas.length - 1;
      if (last || problems.length > 0) {
        const outcome = outcomeOfReport(await this.reportOf(serialNumber, run));
        if (run.cancelled || this.signal.aborted) return;
        this.answer(serialNumber, { command: "clean_segments", ...areaEndResult(areas[index]!.name, outcome, problems, areas.length - index - 1) });
        this.forget(serialNumber, run);
        return;
      }
      const next = await this.underWay(serialNumber, () => this.startArea(serialNumber, areas, index + 1, run));
      if (run.cancelled || this.signal.aborted) return;
      this.answer(serialNumber, next);
      if (!next.ok) {
        this.forget(serialNumber, run);
        return;
      }
    }
  }

  /** The report of the area's task (pushed, swept or listed now, as robot-job's); undefined when none can be read. */
  private reportOf(serialNumber: string, run: Run): Promise<Record<string, unknown> | undefined> {
    return listedReportOfStart(this.client, reportsOfAccount(this.client.accountKey), { serialNumber, sinceMs: run.sentAt }, { signal: this.signal }).catch(
      () => undefined,
    );
  }

  /** The view that shows the run's area ended, or nothing once the run is cancelled or the node closes; no listener outlives the wait. */
  private endOf(run: Run): Promise<RobotView | undefined> {
    if (this.signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const closed = () => settle();
      const settle = (view?: RobotView) => {
        this.signal.removeEventListener("abort", closed);
        run.ended = undefined;
        resolve(view);
      };
      this.signal.addEventListener("abort", closed, { once: true });
      run.ended = settle;
    });
  }

  private forget(serialNumber: string, run: Run): void {
    if (this.runs.get(serialNumber) === run) this.runs.delete(serialNumber);
  }
}
