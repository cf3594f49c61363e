/**
 * robot-job's runtime: for one node, its jobs of the account (kept in the
 * account's memory, so a redeploy's new node follows them on). A job moves
 * through the states of job-states.ts (waiting, claiming, starting, running,
 * ending), every move through `transition`, which checks the table. Every
 * poll of the account's confirmation poller brings the robots' statuses: a
 * waiting job is given the robot the dispatch policy chooses, the robot is
 * claimed (in Redis when shared), its start is sent through the account's
 * queue and confirmed on the robot, a refusal sets the robot aside for the
 * job, and a started job is followed to its end. Every wait has a bound:
 * waitUpTo for a robot (a refused claim included), the claim's answer, the
 * confirmation time, the offline limit while running. Each job ends once,
 * through `finish`.
 */
import { robotDirectoryOf, robotNameOf } from "../../../api/account/robot-directory";
import type { RobotClient } from "../../../api/client";
import { confirmationPollerOf } from "../../../api/watching/confirmation-poller";
import { fleetStatusesOf } from "../../../api/watching/fleet-statuses";
import { MoveWatch, NavigationFollower, isNavigating } from "../../../api/watching/navigation";
import { RobotApiError, invalidInput } from "../../../api/errors";
import { JOB_REASONS, chooseRobot, claimRefusedReason, refusedReason, robotFactsOf, type RobotFacts } from "../../../api/jobs/dispatch";
import { keepStartFacts, outcomeOfReport, runningJobEnd, startFactsOfJob, type AccountJobs, type JobRecord } from "../../../api/jobs/job-book";
import { ENDED, announceTransition, nextPhase, type JobEvent, type JobState } from "../../../api/jobs/job-states";
import { startRequestFor, startedRule } from "../../../api/jobs/job-start";
import { stopBody } from "../../../api/jobs/start-requests";
import { missingTarget } from "../../../api/jobs/work-targets";
import { claimRobot, renewClaimWhenDue } from "../../../api/jobs/robot-claims";
import { boundPassed, noteSighting } from "../../../api/jobs/sightings";
import { severityOf, type AccountAlarms } from "../../../api/pushes/open-alarms";
import type { AccountReports } from "../../../api/reports/report-store";
import type { ReadReport } from "../../../api/reports/reading";
import { factsBeforeStart, listedReportOfStart, reportOfStart, type StartFacts } from "../../../api/jobs/task-report";
import type { RobotOperationName } from "../../../api/cloud/endpoints";
import { clientModule } from "../api";
import { jobEndOf, jobReasonWords, noRobot, robotReasonWords, type JobFinish, type JobSink } from "./job-end";
import { JOB_OFFLINE_LIMIT } from "../../robot-job/table";
import type { Translate } from "../i18n";

/** How long past waitUpTo a job waits for its robots to be read at all before it ends. */
const UNREAD_GRACE_MS = 30_000;

/** What a job under way needs that is no plain JSON (a job record is written to context as it is): none of it outlives this runner. */
interface LiveJob {
  /** The start command on its way; true once answered as accepted (it may have reached the robot), false when refused. A cancel waits for it, so its stop cannot overtake the start. */
  startSend?: Promise<boolean>;
  /** A goto job's navigation, followed from its start to its end (a redeploy's runner makes a new one). */
  navigation?: NavigationFollower;
  moves?: MoveWatch;
  /** The wait for the robot to show the start: aborted when the task's report settles the start first. */
  confirming?: AbortController;
}

export class JobRunner {
  private stopObserving: (() => void) | undefined;
  private readonly lifetime = new AbortController();
  private closed = false;
  private readonly live = new Map<string, LiveJob>();

  constructor(
    private readonly nodeId: string,
    private readonly client: RobotClient,
    private readonly book: AccountJobs,
    private readonly alarms: AccountAlarms,
    private readonly reports: AccountReports,
    private readonly sink: JobSink,
    /** robot-job's catalogue in the runtime's language: why a job found no robot. */
    private readonly t: Translate,
  ) {}

  /** Starts following this node's jobs (those of an earlier deploy too): each goes on from the state it was left in. */
  start(): void {
    for (const job of this.book.ofNode(this.nodeId)) {
      this.guarded(job, () => {
        // A claim or start whose command was never sent goes back to waiting; one that may have been sent is confirmed first.
        if (job.phase === "claiming" || (job.phase === "starting" && job.sentAt === undefined)) this.transition(job, "unsent");
        else if (job.phase === "starting") return this.confirmStart(job);
        else if (job.phase === "ending" && job.ending === "report") return this.endWithReport(job);
        // The stop of a cancel was under way when the node closed: whether it reached the robot is not known.
        else if (job.phase === "ending") this.finish(job, { outcome: "cancelled", stopFailure: "the node closed before the stop was answered" });
      });
    }
    this.stopObserving = confirmationPollerOf(this.client).observe(
      () => this.robotsToRead(),
      (statuses) => this.onStatuses(statuses),
    );
    this.sink.changed();
  }

  add(job: JobRecord): void {
    this.book.add(job);
    this.sink.changed();
  }

  get counts(): { waiting: number; running: number } {
    const jobs = this.book.ofNode(this.nodeId);
    return { waiting: jobs.filter((job) => job.phase === "waiting").length, running: jobs.filter((job) => job.phase !== "waiting").length };
  }

  /** Stops the job's robot (if it has one) and ends it as cancelled. */
  async cancel(jobId: string): Promise<void> {
    const job = this.book.jobs.get(jobId);
    if (!job || job.nodeId !== this.nodeId) throw invalidInput("payload.cancel", `no job "${jobId}" of this node is under way`);
    // Its robot has ended the work already: the end (with the report) is on its way.
    if (job.phase === "ending") return;
    const startSend = this.live.get(jobId)?.startSend;
    let robot = job.phase === "running" || (job.phase === "starting" && job.sentAt !== undefined) ? job.serialNumber : undefined;
    this.transition(job, "cancel");
    // A robot that refused the start meanwhile is not this job's: its work (maybe another's) is not stopped.
    if (robot !== undefined && startSend && !(await startSend)) robot = undefined;
    let stopFailure: string | undefined;
    if (robot === undefined) this.letGoOfRobot(job);
    else {
      try {
        await this.send("submitCommand", stopBody(robot, job.work));
      } catch (error) {
        stopFailure = error instanceof Error ? error.message : String(error);
      }
    }
    this.finish(job, { outcome: "cancelled", ...(stopFailure ? { stopFailure } : {}) });
  }

  /** The node closes: this runner lets go of its jobs, which stay in the account's memory, and stops no robot. */
  close(): void {
    this.closed = true;
    this.stopObserving?.();
    this.lifetime.abort();
  }

  /**
   * The one place a job changes state: the table (job-states.ts) says where
   * `event` takes it, and refuses (throws) a move it does not allow. What a
   * state keeps is set up on entering it and dropped on leaving it.
   */
  private transition(job: JobRecord, event: JobEvent): JobState {
    const from = job.phase;
    const to = nextPhase(from, event, job.jobId);
    if (from === "waiting") delete job.waitingSent;
    if (to === "waiting") this.letGoOfRobot(job);
    if (to === "running") {
      job.onlineSeenAt = Date.now();
      if (job.work.kind === "goto") job.navigationSeenAt = Date.now();
    }
    if (to === "ending") job.ending = event === "cancel" ? "cancel" : "report";
    if (to !== ENDED) job.phase = to;
    announceTransition({ jobId: job.jobId, from, event, to });
    this.sink.changed();
    return to;
  }

  /**
   * Runs a step of a job's life: a fault in it (a move the table refuses is a
   * bug of this file) goes to the node as an error, loudly, and leaves the
   * other jobs and the account's poll going.
   */
  private guarded(job: JobRecord, step: () => void | Promise<void>): void {
    const fault = (error: unknown) => this.sink.fault(job, error instanceof Error ? error : new Error(String(error)));
    try {
      void step()?.catch(fault);
    } catch (error) {
      fault(error);
    }
  }

  /** The job no longer has a robot: its hold and its claim are let go, and what it kept of the robot. */
  private letGoOfRobot(job: JobRecord): void {
    if (job.serialNumber !== undefined) {
      this.book.release(job.serialNumber, job.jobId);
      this.client.sharing?.robotClaims?.release(job.serialNumber, job.jobId);
    }
    for (const key of ["serialNumber", "robotName", "sentAt", "start", "taskName", "claimRenewedAt", "onlineSeenAt", "navigationSeenAt"] as const) delete job[key];
    this.live.delete(job.jobId);
  }

  private robotsToRead(): Set<string> {
    const robots = new Set<string>();
    for (const job of this.book.ofNode(this.nodeId)) {
      if (job.phase !== "waiting" && job.serialNumber !== undefined) robots.add(job.serialNumber);
      else {
        const candidates = this.candidatesOf(job);
        for (const serialNumber of candidates ?? []) robots.add(serialNumber);
        // Only a job whose robots this poll reads is judged by it (waitUpTo 0 fails after one look, not before).
        if (candidates && job.phase === "waiting") job.looked = true;
      }
    }
    return robots;
  }

  /** The robots a job may use: its own list, else the account's as the robot directory has it (undefined before its first read). */
  private candidatesOf(job: JobRecord): string[] | undefined {
    if (job.settings.robots) return job.settings.robots;
    const directory = robotDirectoryOf(this.client.accountKey);
    return directory.readTime === 0 ? undefined : directory.entries().map((entry) => entry.serialNumber);
  }

  private onStatuses(statuses: Record<string, unknown>[]): void {
    if (this.closed) return;
    const now = Date.now();
    const kept = fleetStatusesOf(this.client.accountKey);
    const readAt = new Map<string, number>();
    for (const status of statuses) {
      const facts = robotFactsOf(status);
      if (facts.serialNumber === "") continue;
      this.book.facts.set(facts.serialNumber, facts);
      // A status another process read within the poll's interval is not kept here: it counts as read now.
      readAt.set(facts.serialNumber, kept.readTimeOf(status) ?? now);
    }
    const readNow = new Set(readAt.keys());
    for (const job of this.book.ofNode(this.nodeId)) {
      this.guarded(job, () => {
        if (job.phase === "waiting") this.dispatch(job, now, readNow);
        else if (job.phase === "starting" && job.work.kind !== "goto" && job.sentAt !== undefined) {
          // A report of the task kept since its start was sent (pushed, or swept) settles the start.
          const report = reportOfStart(this.reports, startFactsOfJob(job));
          if (report) this.settleStartByReport(job, report);
        }
        else if (job.phase === "running") this.follow(job, readAt, now);
        const claims = this.client.sharing?.robotClaims;
        if (claims && this.current(job) && job.phase !== "waiting") renewClaimWhenDue(claims, job, now);
      });
    }
  }

  private dispatch(job: JobRecord, now: number, readNow: ReadonlySet<string>): void {
    const candidates = this.candidatesOf(job);
    const deadline = job.createdAt + job.settings.waitUpToMs;
    if (job.missingTarget) {
      this.finish(job, invalidInput(job.missingTarget.field, job.missingTarget.problem));
      return;
    }
    if (!candidates || !job.looked) {
      // The account's robots could not be listed (or read) at all: the job still ends, a little after its time.
      if (now >= deadline + UNREAD_GRACE_MS) this.finish(job, noRobot(this.t, this.t("errors.unread"), {}));
      return;
    }
    this.checkTarget(job, candidates);
    // Past its time a job tries no robot whose claim was refused again: Redis down or another instance's job counts as no robot free.
    const pastDeadline = now >= deadline;
    const choice = chooseRobot({
      work: job.work,
      near: job.settings.near,
      minBattery: job.settings.minBattery,
      candidates,
      facts: this.book.facts,
      readNow,
      heldByOther: (serialNumber) => {
        const holder = this.book.holderOf(serialNumber);
        return holder !== undefined && holder !== job.jobId;
      },
      alarmOf: (serialNumber) => {
        const alarm = this.alarms.highestOf(serialNumber);
        return alarm ? { rank: severityOf(alarm), code: alarm.code, name: alarm.name } : undefined;
      },
      setAside: pastDeadline ? { ...job.claimRefusals, ...job.setAside } : job.setAside,
    });
    if (choice.chosen !== undefined && this.book.hold(choice.chosen, job.jobId)) {
      job.serialNumber = choice.chosen;
      job.robotName = robotNameOf(this.client.accountKey, choice.chosen);
      this.transition(job, "chosen");
      this.guarded(job, () => this.claimAndStart(job, choice.chosen!));
      return;
    }
    if (pastDeadline) {
      this.finish(job, noRobot(this.t, this.t("errors.noneWithin", { seconds: job.settings.waitUpToMs / 1000 }), choice.reasons));
      return;
    }
    if (!job.waitingSent) {
      job.waitingSent = true;
      this.sink.progress(job, { event: "waiting", reasons: choice.reasons, text: this.t("progress.waiting", { reasons: robotReasonWords(this.t, choice.reasons) }) });
    }
  }

  /**
   * Once the job's robots have each been read: whether any robot of the
   * account has the job's map and its task, area or point. One that none has
   * ends the job at once with INVALID_INPUT naming it; one that cannot be told
   * leaves the job waiting, within its bound.
   */
  private checkTarget(job: JobRecord, candidates: readonly string[]): void {
    if (job.targetChecked) return;
    const kept = fleetStatusesOf(this.client.accountKey);
    const robots: RobotFacts[] = [];
    for (const serialNumber of candidates) {
      // The account's kept status joins both shapes: the v1 read's executable tasks, the S-line read's points.
      const status = kept.get(serialNumber)?.status;
      const facts = status ? robotFactsOf(status) : this.book.facts.get(serialNumber);
      if (!facts) return;
      robots.push(facts);
    }
    job.targetChecked = true;
    this.guarded(job, async () => {
      const missing = await missingTarget(this.client, job.work, robots, { signal: this.lifetime.signal }).catch(() => undefined);
      if (!missing || !this.current(job)) return;
      // A job trying a robot meanwhile ends once it is back to waiting (a robot that has the name does not come back).
      if (job.phase === "waiting") this.finish(job, invalidInput(missing.field, missing.problem));
      else job.missingTarget = missing;
    });
  }

  /** Claims the robot (in Redis when shared), then sends the start and confirms it. */
  private async claimAndStart(job: JobRecord, serialNumber: string): Promise<void> {
    const claims = this.client.sharing?.robotClaims;
    if (claims) {
      const refusal = await claimRobot(claims, serialNumber, job.jobId);
      if (!this.current(job, "claiming")) {
        // Cancelled or ended while Redis answered: a claim it no longer uses is let go at once, not left to lapse. After a
        // redeploy the claim is left alone: it is the job's id's, which the new node's runner claims again.
        if (refusal === undefined && !this.closed && !(this.current(job) && job.serialNumber === serialNumber)) claims.release(serialNumber, job.jobId);
        return;
      }
      if (refusal !== undefined) {
        // Not a refusal of the robot: it may come free for this job later, until the job's time is up.
        job.claimRefusals = { ...job.claimRefusals, [serialNumber]: claimRefusedReason(refusal) };
        this.transition(job, "claimRefused");
        return;
      }
      job.claimRenewedAt = Date.now();
    }
    this.transition(job, "claimed");
    await this.startOn(job, serialNumber);
  }

  /** Sends the start and confirms it; a refusal sets the robot aside. */
  private async startOn(job: JobRecord, serialNumber: string): Promise<void> {
    const facts = this.book.facts.get(serialNumber)!;
    let answered: (accepted: boolean) => void = () => undefined;
    let accepted = false;
    try {
      const { operation, body, taskName } = await startRequestFor(this.client, job.work, facts, job.settings, { signal: this.lifetime.signal });
      if (!this.current(job, "starting")) return;
      this.sink.progress(job, { event: "assigned", serialNumber, robotName: job.robotName });
      job.taskName = taskName;
      keepStartFacts(job, factsBeforeStart(this.reports, fleetStatusesOf(this.client.accountKey), serialNumber));
      this.sink.changed();
      // Settles once the answer is handled (a refusal set aside): a cancel waits for that, not for the bare answer.
      this.liveOf(job).startSend = new Promise<boolean>((resolve) => (answered = resolve));
      await this.send(operation, body);
      accepted = true;
    } catch (error) {
      if (!this.current(job, "starting")) return;
      if (job.sentAt === undefined && error instanceof RobotApiError && error.kind === "aborted") return;
      this.setAside(job, refusedReason(error instanceof Error ? error.message : String(error)));
      return;
    } finally {
      answered(accepted);
    }
    if (this.current(job, "starting")) await this.confirmStart(job);
  }

  private send(operation: RobotOperationName, body: Record<string, unknown>): Promise<unknown> {
    return this.client.send(clientModule().prepareCall(operation, body as never), { signal: this.lifetime.signal });
  }

  /** Waits for the robot to show the start (what is left of the confirmation time since it was sent). */
  private async confirmStart(job: JobRecord): Promise<void> {
    const serialNumber = job.serialNumber!;
    const started = startedRule(job.work, serialNumber, job.taskName, this.navigationOf(job));
    const timeoutMs = Math.max(1, job.settings.confirmTimeoutMs - (Date.now() - (job.sentAt ?? Date.now())));
    const confirming = (this.liveOf(job).confirming = new AbortController());
    const signal = AbortSignal.any([this.lifetime.signal, confirming.signal]);
    try {
      await confirmationPollerOf(this.client).waitFor(serialNumber, started, { timeoutMs, signal, operation: "robot-job" });
    } catch (error) {
      if (!this.current(job, "starting") || (error instanceof RobotApiError && error.kind === "aborted")) return;
      // No status showed the task: it may have run and ended between two reads, which its report (listed now) tells.
      const report = job.work.kind === "goto" ? undefined : await this.reportOf(startFactsOfJob(job));
      if (!this.current(job, "starting")) return;
      if (report) this.settleStartByReport(job, report);
      else this.setAside(job, JOB_REASONS.notConfirmed);
      return;
    }
    if (!this.current(job, "starting")) return;
    this.markStarted(job);
    this.follow(job, new Map(), Date.now());
  }

  private markStarted(job: JobRecord): void {
    job.startedAt = new Date().toISOString();
    job.attempts.push({ serialNumber: job.serialNumber!, result: "started" });
    this.transition(job, "shown");
    this.sink.progress(job, { event: "started", serialNumber: job.serialNumber!, robotName: job.robotName });
  }

  /**
   * A task's report came before any status showed the task running: one
   * that failed to start sets the robot aside (the job tries the next); any
   * other end is the job's task, over between two reads, and ends the job
   * with it (starting it again would clean twice).
   */
  private settleStartByReport(job: JobRecord, report: Record<string, unknown>): void {
    this.liveOf(job).confirming?.abort();
    if (report.outcome === "failedToStart") return this.setAside(job, JOB_REASONS.notConfirmed);
    this.markStarted(job);
    this.transition(job, "robotDone");
    this.finish(job, { outcome: outcomeOfReport(report), report });
  }

  /** The robot refused or did not show the start: set aside for this job, which tries the next or ends. */
  private setAside(job: JobRecord, reason: string): void {
    const serialNumber = job.serialNumber!;
    job.setAside[serialNumber] = reason;
    job.attempts.push({ serialNumber, result: reason });
    this.transition(job, "setAside");
    if (job.attempts.length >= job.settings.tries) {
      this.finish(job, noRobot(this.t, this.t("errors.noneStarted", { tries: job.settings.tries }), { ...job.setAside }));
      return;
    }
    this.sink.progress(job, {
      event: "retrying",
      serialNumber,
      refusal: reason,
      text: this.t("progress.retrying", { robot: job.robotName ?? serialNumber, refusal: jobReasonWords(this.t, reason) }),
    });
  }

  private liveOf(job: JobRecord): LiveJob {
    let live = this.live.get(job.jobId);
    if (!live) this.live.set(job.jobId, (live = {}));
    return live;
  }

  /** The follower of a goto job's navigation, from its start to its end. */
  private navigationOf(job: JobRecord): NavigationFollower | undefined {
    if (job.work.kind !== "goto") return undefined;
    const live = this.liveOf(job);
    return (live.navigation ??= new NavigationFollower(job.work.point, this.client.arrivalRadius));
  }

  /**
   * A poll while the job runs: its progress, its end, or, when no status has
   * shown its robot online (a goto job: its navigation under way) for the
   * offline limit, its end as unknown (sightings.ts). `readTimes`: when the
   * statuses this poll gave were read, by robot.
   */
  private follow(job: JobRecord, readTimes: ReadonlyMap<string, number>, now: number): void {
    const serialNumber = job.serialNumber!;
    const facts = this.book.facts.get(serialNumber);
    const limitMs = job.settings.offlineLimitMs ?? JOB_OFFLINE_LIMIT.default * 60_000;
    const minutes = limitMs / 60_000;
    const readAt = readTimes.get(serialNumber);
    const navigating = () => isNavigating(facts!) === true || (this.liveOf(job).moves ??= new MoveWatch()).see(facts!) === "moving";
    noteSighting(job, facts && readAt !== undefined ? { facts, readAt, navigating } : undefined, now);
    if (boundPassed(job, now, limitMs) === "offline") {
      this.endUnknown(job, "robot offline", "ends.offlineFor", minutes);
      return;
    }
    if (facts) {
      const end = runningJobEnd(job, facts, this.navigationOf(job));
      if (end.ended) {
        if (end.outcome !== undefined) this.finish(job, { outcome: end.outcome });
        else {
          this.transition(job, "robotDone");
          this.guarded(job, () => this.endWithReport(job));
        }
        return;
      }
      if (facts.progress !== undefined && facts.progress !== job.progress) {
        job.progress = facts.progress;
        this.sink.progress(job, { event: "progress", serialNumber, progress: facts.progress });
        this.sink.changed();
      }
    }
    // A stop by hand shows only as navStatus back to NAVI_IDLE, which the statuses read here may not carry: the robot standing still is all there is.
    if (boundPassed(job, now, limitMs) === "navigation") this.endUnknown(job, "no status showed the navigation", "ends.navigationNotShown", minutes);
  }

  /** A running job no status showed ending for the offline limit: outcome unknown, `reason` in English for flows, `text` in words. */
  private endUnknown(job: JobRecord, what: string, words: string, minutes: number): void {
    this.finish(job, { outcome: "unknown", reason: `${what} for ${minutes} min`, text: this.t(words, { minutes }) });
  }

  private async endWithReport(job: JobRecord): Promise<void> {
    const report = await this.reportOf(startFactsOfJob(job));
    if (this.current(job, "ending")) this.finish(job, { outcome: outcomeOfReport(report), ...(report ? { report } : {}) });
  }

  /** The task's report: kept for the account, else listed now; undefined when listing fails. */
  private reportOf(facts: StartFacts): Promise<ReadReport | undefined> {
    return listedReportOfStart(this.client, this.reports, facts, { signal: this.lifetime.signal }).catch(() => undefined);
  }

  /** Whether the job is still this runner's to act on (not ended, node not closed), in `phase` when given. */
  private current(job: JobRecord, phase?: JobRecord["phase"]): boolean {
    return !this.closed && this.book.jobs.get(job.jobId) === job && (phase === undefined || job.phase === phase);
  }

  /** The job's one end. */
  private finish(job: JobRecord, end: JobFinish): void {
    if (!this.current(job)) return;
    this.transition(job, "end");
    this.book.remove(job);
    if (job.serialNumber !== undefined) this.client.sharing?.robotClaims?.release(job.serialNumber, job.jobId);
    this.live.delete(job.jobId);
    this.sink.ended(job, jobEndOf(job, end, new Date()));
    this.sink.changed();
  }
}
