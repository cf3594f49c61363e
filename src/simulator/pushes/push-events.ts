/**
 * What the simulator pushes, and when (docs/cloud-api.md, Pushed events): a
 * task report each time a task ends, an incident each time one is raised or
 * recovered, to the push target if there is one. While there is, time is kept
 * moving (PUSH_TICK_MS), so what time does is pushed with nobody polling.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { describeIssues } from "../../api/errors";
import type { FaultInjector } from "../faults/faults";
import type { SimRobot } from "../world/fleet";
import { isZodError } from "../server/http-io";
import { IncidentBook, type IncidentContent } from "./incidents";
import { PushSender, type PushState, type PushTarget } from "./pushes";
import { Code, SimError } from "../server/sim-errors";
import { pushedTaskReport } from "../world/task-reports";

/** While a push target is set, time is brought up to now this often (a task ending, a battery running low). */
export const PUSH_TICK_MS = 1000;

const TEXT = "must be a non-empty string";
const text = z.string({ error: TEXT }).refine((value) => value.trim() !== "", TEXT);
/** POST /_sim/robots/<serial>/scheduling-tasks: a scheduled task's run, pushed by hand (the simulator keeps no schedules). */
export const SchedulingTaskRequest = z.strictObject({ scheduleId: text.optional(), taskName: text.optional() });

export interface PushEventsOptions {
  faults: Pick<FaultInjector, "pushRoll">;
  now: () => number;
  log: ((line: string) => void) | undefined;
  logFailuresOnly: boolean;
  /** Brings the fleet up to now (which notices what changed). */
  advance: () => void;
}

export class PushEvents {
  private readonly sender: PushSender;
  private readonly incidents: IncidentBook;
  private tick: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: PushEventsOptions) {
    this.sender = new PushSender({
      roll: () => options.faults.pushRoll(),
      now: options.now,
      log: options.log,
      failuresOnly: options.logFailuresOnly,
    });
    this.incidents = new IncidentBook((label, payload) => this.sender.push(label, payload));
  }

  get state(): PushState {
    return this.sender.state;
  }

  setTarget(target: PushTarget | undefined): PushState {
    return this.changeTarget(() => this.sender.setTarget(target));
  }

  /** PUT /_sim/push's body. */
  update(raw: unknown): PushState {
    return this.changeTarget(() => this.sender.update(raw));
  }

  /** A task report was filed: pushes it with epoch-ms times. */
  taskEnded(robot: SimRobot, report: Record<string, unknown>): void {
    if (!this.sender.active) return;
    this.sender.push(`task report ${robot.serialNumber}`, {
      serialNumber: robot.serialNumber,
      modelTypeCode: robot.model,
      taskReport: pushedTaskReport(report),
    });
  }

  /**
   * POST /_sim/robots/<serial>/scheduling-tasks: pushes a scheduled task's run
   * (messageTypeId 3). Its shape is not published: these fields are the
   * simulator's own, so a receiver can be tried with one.
   */
  schedulingTask(robot: SimRobot, raw: unknown, now: number): { status: number; body: unknown } {
    const parsed = SchedulingTaskRequest.safeParse(raw);
    if (!parsed.success) throw new SimError(Code.INVALID_ARGUMENT, describeIssues(parsed.error).message);
    const run = {
      scheduleId: parsed.data.scheduleId ?? randomUUID(),
      taskName: parsed.data.taskName ?? "Scheduled task",
      startTime: now,
      endTime: 0,
    };
    const payload = { serialNumber: robot.serialNumber, modelTypeCode: robot.model, schedulingTask: run };
    const outcome = this.sender.push(`scheduling task ${robot.serialNumber}`, payload);
    return { status: 201, body: { pushed: outcome.pushed, body: outcome.body ?? { payload } } };
  }

  /** The fleet changed at `now`: raises and recovers the incidents of the robots' conditions. */
  changed(robots: Iterable<SimRobot>, now: number): void {
    this.incidents.notice(robots, now);
  }

  openIncidents(robot: SimRobot): IncidentContent[] {
    return this.incidents.list(robot.serialNumber);
  }

  /** POST /_sim/robots/<serial>/incidents. */
  incident(robot: SimRobot, raw: unknown, now: number): { status: number; body: unknown } {
    return this.incidents.request(robot, raw, now);
  }

  /** A reset: open incidents are forgotten; the target and the counters stay. */
  reset(): void {
    this.incidents.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.tick);
    this.tick = undefined;
    await this.sender.close();
  }

  /** Changes the target (a bad field is a SimError naming it) and keeps time moving while there is one. */
  private changeTarget(change: () => PushState): PushState {
    let state: PushState;
    try {
      state = change();
    } catch (error) {
      if (isZodError(error)) throw new SimError(Code.INVALID_ARGUMENT, describeIssues(error).message);
      throw error;
    }
    if (this.sender.active && !this.tick && !this.closed) {
      this.tick = setInterval(() => {
        try {
          this.options.advance();
        } catch (error) {
          this.options.log?.(`simulator error while time passed: ${String(error)}`);
        }
      }, PUSH_TICK_MS).unref();
    } else if (!this.sender.active && this.tick) {
      clearInterval(this.tick);
      this.tick = undefined;
    }
    return state;
  }
}
