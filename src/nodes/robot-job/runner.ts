/**
 * robot-job's runtime: for one node, its jobs of the account (kept in the
 * account's memory, so a redeploy's new node follows them on). Every poll of
 * the account's confirmation poller brings the robots' statuses; a waiting
 * job is given the robot the dispatch policy chooses, its start is sent
 * through the account's queue and confirmed on the robot, a refusal sets the
 * robot aside for the job, and a started job is followed to its end. Each job
 * ends once, through `sink.ended`.
 */
import type { RobotClient } from "../../api/client";
import { confirmationPollerOf } from "../../api/watching/confirmation-poller";
import { NavigationFollower } from "../../api/watching/navigation";
import { RobotApiError, invalidInput } from "../../api/errors";
import { chooseRobot, robotFactsOf } from "../../api/jobs/dispatch";
import { jobResult, outcomeOfReport, runningJobEnd, type AccountJobs, type JobOutcome, type JobRecord } from "../../api/jobs/job-book";
import { startRequestFor, startedRule } from "../../api/jobs/job-start";
import { stopBody } from "../../api/jobs/start-requests";
import type { AccountAlarms } from "../../api/pushes/open-alarms";
import type { AccountReports } from "../../api/reports/report-store";
import { readReport } from "../../api/reports/reading";
import type { RobotOperationName } from "../../api/cloud/endpoints";
import { clientModule } from "../shared/api";
import { JobError, type JobEnd, type JobSink } from "./job-end";
import type { Translate } from "../shared/i18n";

/** A robot's claim in Redis lasts this long, and is renewed well before. */
const CLAIM_MS = 60_000;
const RENEW_CLAIM_EVERY_MS = 15_000;
/** The account's robot list is read again after this long, for jobs that may use every robot. */
const FLEET_LIST_MS = 60_000;
/** How long past waitUpTo a job waits for its robots to be read at all before it ends. */
const UNREAD_GRACE_MS = 30_000;

export class JobRunner {
  private stopObserving: (() => void) | undefined;
  private readonly lifetime = new AbortController();
  private closed = false;
  /** Jobs this runner evaluated at least once (so waitUpTo 0 fails after one look, not before). */
  private readonly looked = new Set<string>();
  private readonly waitingSent = new Set<string>();
  /** Jobs whose start or end this runner is carrying out (a promise under way). */
  private readonly busy = new Set<string>();
  private readonly claimRenewed = new Map<string, number>();
  /** A start command on its way: a cancel sends its stop only after it, so the stop cannot overtake it in the queue. */
  private readonly startSends = new Map<string, Promise<void>>();
  /** Goto jobs' navigations, by job id, while their robot is tried or runs. */
  private readonly navigations = new Map<string, NavigationFollower>();
  private fleet: { serialNumbers: string[]; at: number } | undefined;
  private listing: Promise<void> | undefined;

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

  /** Starts following this node's jobs (those of an earlier deploy too). */
  start(): void {
    for (const job of this.book.ofNode(this.nodeId)) {
      // A start whose command was never sent goes back to waiting; one that may have been sent is confirmed first.
      if (job.phase === "starting" && job.sentAt === undefined) this.backToWaiting(job);
      else if (job.phase === "starting") void this.confirmStart(job);
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
    let robot = job.phase === "waiting" || (job.phase === "starting" && job.sentAt === undefined) ? undefined : job.serialNumber;
    this.busy.add(jobId);
    let stopFailure: string | undefined;
    if (robot !== undefined) {
      await this.startSends.get(jobId);
      // A robot that refused the start meanwhile is not this job's: its work (maybe another's) is not stopped.
      if (job.phase === "waiting" || job.serialNumber !== robot) robot = undefined;
    }
    if (robot !== undefined) {
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

  private robotsToRead(): Set<string> {
    const robots = new Set<string>();
    for (const job of this.book.ofNode(this.nodeId)) {
      if (job.phase !== "waiting" && job.serialNumber !== undefined) robots.add(job.serialNumber);
      else {
        const candidates = this.candidatesOf(job);
        for (const serialNumber of candidates ?? []) robots.add(serialNumber);
        // Only a job whose robots this poll reads is judged by it (waitUpTo 0 fails after one look, not before).
        if (candidates) this.looked.add(job.jobId);
      }
    }
    return robots;
  }

  /** The robots a job may use, or undefined while the account's list is being read. */
  private candidatesOf(job: JobRecord): string[] | undefined {
    if (job.settings.robots) return job.settings.robots;
    if (!this.fleet || Date.now() - this.fleet.at > FLEET_LIST_MS) this.listFleet();
    return this.fleet?.serialNumbers;
  }

  private listFleet(): void {
    this.listing ??= this.client
      .listAllRobots({ signal: this.lifetime.signal })
      .then((robots) => {
        this.fleet = { serialNumbers: robots.map((robot) => robot.serialNumber), at: Date.now() };
      })
      .catch(() => undefined)
      .finally(() => {
        this.listing = undefined;
      });
  }

  private onStatuses(statuses: Record<string, unknown>[]): void {
    if (this.closed) return;
    for (const status of statuses) {
      const facts = robotFactsOf(status);
      if (facts.serialNumber !== "") this.book.facts.set(facts.serialNumber, facts);
    }
    const now = Date.now();
    for (const job of this.book.ofNode(this.nodeId)) {
      if (this.busy.has(job.jobId)) continue;
      if (job.phase === "waiting") this.dispatch(job, now);
      else if (job.phase === "running") this.follow(job);
      if (job.phase !== "waiting") this.renewClaim(job, now);
    }
  }

  private dispatch(job: JobRecord, now: number): void {
    const candidates = this.candidatesOf(job);
    if (!candidates || !this.looked.has(job.jobId)) {
      // The account's robots could not be listed (or read) at all: the job still ends, a little after its time.
      if (now >= job.createdAt + job.settings.waitUpToMs + UNREAD_GRACE_MS) this.finish(job, new JobError("NO_ROBOT", this.t("errors.unread"), { robots: {} }));
      return;
    }
    const choice = chooseRobot({
      work: job.work,
      near: job.settings.near,
      minBattery: job.settings.minBattery,
      candidates,
      facts: this.book.facts,
      heldByOther: (serialNumber) => {
        const holder = this.book.holderOf(serialNumber);
        return holder !== undefined && holder !== job.jobId;
      },
      alarmOf: (serialNumber) => {
        const alarm = this.alarms.highestOf(serialNumber);
        return alarm ? { rank: alarm.level?.rank ?? 7, code: alarm.code, name: alarm.name } : undefined;
      },
      setAside: job.setAside,
    });
    if (choice.chosen !== undefined && this.book.hold(choice.chosen, job.jobId)) {
      this.waitingSent.delete(job.jobId);
      void this.startOn(job, choice.chosen);
      return;
    }
    if (now >= job.createdAt + job.settings.waitUpToMs) {
      this.finish(job, new JobError("NO_ROBOT", this.t("errors.noneWithin", { seconds: job.settings.waitUpToMs / 1000 }), { robots: choice.reasons }));
      return;
    }
    if (!this.waitingSent.has(job.jobId)) {
      this.waitingSent.add(job.jobId);
      this.sink.progress(job, { event: "waiting", reasons: choice.reasons });
    }
  }

  /** Claims the robot (in Redis when shared), sends the start and confirms it; a refusal sets the robot aside. */
  private async startOn(job: JobRecord, serialNumber: string): Promise<void> {
    const facts = this.book.facts.get(serialNumber)!;
    job.phase = "starting";
    job.serialNumber = serialNumber;
    job.robotName = facts.displayName;
    this.busy.add(job.jobId);
    this.sink.changed();
    let handled: () => void = () => undefined;
    try {
      const claims = this.client.sharing?.robotClaims;
      if (claims && !(await claims.claim(serialNumber, job.jobId, CLAIM_MS).catch(() => false))) {
        // Another instance's job has it: not a refusal, the robot may come free for this job later.
        if (this.current(job)) this.backToWaiting(job);
        return;
      }
      this.claimRenewed.set(job.jobId, Date.now());
      const { operation, body, taskName } = await startRequestFor(this.client, job.work, facts, job.settings, { signal: this.lifetime.signal });
      if (!this.current(job)) return;
      this.sink.progress(job, { event: "assigned", serialNumber, robotName: job.robotName });
      job.taskName = taskName;
      job.sentAt = Date.now();
      this.sink.changed();
      // Settles once the answer is handled (a refusal set aside): a cancel waits for that, not for the bare answer.
      this.startSends.set(job.jobId, new Promise<void>((resolve) => (handled = resolve)));
      await this.send(operation, body);
    } catch (error) {
      if (!this.current(job)) return;
      if (job.sentAt === undefined && error instanceof RobotApiError && error.kind === "aborted") return;
      this.setAside(job, `refused: ${error instanceof Error ? error.message : String(error)}`);
      return;
    } finally {
      this.startSends.delete(job.jobId);
      handled();
    }
    if (this.current(job)) await this.confirmStart(job);
  }

  private send(operation: RobotOperationName, body: Record<string, unknown>): Promise<unknown> {
    return this.client.send(clientModule().prepareCall(operation, body as never), { signal: this.lifetime.signal });
  }

  /** Waits for the robot to show the start (what is left of the confirmation time since it was sent). */
  private async confirmStart(job: JobRecord): Promise<void> {
    const serialNumber = job.serialNumber!;
    this.busy.add(job.jobId);
    const started = startedRule(job.work, serialNumber, job.taskName, this.navigationOf(job));
    const timeoutMs = Math.max(1, job.settings.confirmTimeoutMs - (Date.now() - (job.sentAt ?? Date.now())));
    try {
      await confirmationPollerOf(this.client).waitFor(serialNumber, started, { timeoutMs, signal: this.lifetime.signal, operation: "robot-job" });
    } catch (error) {
      if (!this.current(job) || (error instanceof RobotApiError && error.kind === "aborted")) return;
      this.setAside(job, "not confirmed");
      return;
    }
    if (!this.current(job)) return;
    job.phase = "running";
    job.startedAt = new Date().toISOString();
    job.attempts.push({ serialNumber, result: "started" });
    this.busy.delete(job.jobId);
    this.sink.progress(job, { event: "started", serialNumber, robotName: job.robotName });
    this.sink.changed();
    this.follow(job);
  }

  /** The robot refused or did not show the start: set aside for this job, which tries the next or ends. */
  private setAside(job: JobRecord, reason: string): void {
    const serialNumber = job.serialNumber!;
    job.setAside[serialNumber] = reason;
    job.attempts.push({ serialNumber, result: reason });
    this.backToWaiting(job);
    if (job.attempts.length >= job.settings.tries) {
      this.finish(job, new JobError("NO_ROBOT", this.t("errors.noneStarted", { tries: job.settings.tries }), { robots: { ...job.setAside } }));
      return;
    }
    this.sink.progress(job, { event: "retrying", serialNumber, refusal: reason });
  }

  private backToWaiting(job: JobRecord): void {
    if (job.serialNumber !== undefined) {
      this.book.release(job.serialNumber, job.jobId);
      this.client.sharing?.robotClaims?.release(job.serialNumber, job.jobId);
    }
    job.phase = "waiting";
    this.navigations.delete(job.jobId);
    delete job.serialNumber;
    delete job.robotName;
    delete job.sentAt;
    delete job.taskName;
    this.busy.delete(job.jobId);
    this.sink.changed();
  }

  /**
   * The follower of a goto job's navigation, from its start to its end (a job
   * record is plain JSON: the follower lives here); a job running after a
   * redeploy gets a new one.
   */
  private navigationOf(job: JobRecord): NavigationFollower | undefined {
    if (job.work.kind !== "goto") return undefined;
    let navigation = this.navigations.get(job.jobId);
    if (!navigation) this.navigations.set(job.jobId, (navigation = new NavigationFollower(job.work.point, this.client.arrivalRadius)));
    return navigation;
  }

  /** A status of a started job's robot: progress, or its end. */
  private follow(job: JobRecord): void {
    const facts = this.book.facts.get(job.serialNumber!);
    if (!facts) return;
    const end = runningJobEnd(job, facts, this.navigationOf(job));
    if (!end.ended) {
      if (facts.progress !== undefined && facts.progress !== job.progress) {
        job.progress = facts.progress;
        this.sink.progress(job, { event: "progress", serialNumber: job.serialNumber, progress: facts.progress });
        this.sink.changed();
      }
      return;
    }
    if (end.outcome !== undefined) {
      this.finish(job, { outcome: end.outcome });
      return;
    }
    this.busy.add(job.jobId);
    void this.reportOf(job).then((report) => {
      if (this.current(job)) this.finish(job, { outcome: outcomeOfReport(report), ...(report ? { report } : {}) });
    });
  }

  /** The task's report: one the account has (pushed to robot-events, swept by robot-reports), else one listed now and kept there. */
  private async reportOf(job: JobRecord): Promise<Record<string, unknown> | undefined> {
    const serialNumber = job.serialNumber!;
    const since = Date.parse(job.startedAt!);
    const known = this.reports.newestSince(serialNumber, since);
    if (known) return known;
    try {
      const answer = (await this.client.call("listTaskReports", { serialNumber, page: 1, pageSize: 10 }, { signal: this.lifetime.signal })) as { robotTaskReports: Record<string, unknown>[] };
      for (const listed of answer.robotTaskReports) this.reports.keep(readReport(listed, serialNumber)!);
      return this.reports.newestSince(serialNumber, since);
    } catch {
      return undefined;
    }
  }

  private renewClaim(job: JobRecord, now: number): void {
    const claims = this.client.sharing?.robotClaims;
    if (!claims || job.serialNumber === undefined || now - (this.claimRenewed.get(job.jobId) ?? 0) < RENEW_CLAIM_EVERY_MS) return;
    this.claimRenewed.set(job.jobId, now);
    const serialNumber = job.serialNumber;
    // Extended while it is the job's; taken again if it lapsed (Redis was away).
    void claims
      .renew(serialNumber, job.jobId, CLAIM_MS)
      .then((kept) => kept || claims.claim(serialNumber, job.jobId, CLAIM_MS))
      .catch(() => undefined);
  }

  /** Whether the job is still this runner's to act on (not ended, node not closed). */
  private current(job: JobRecord): boolean {
    return !this.closed && this.book.jobs.get(job.jobId) === job;
  }

  /** The job's one end. */
  private finish(job: JobRecord, end: { outcome: JobOutcome; report?: Record<string, unknown>; stopFailure?: string } | JobError): void {
    if (!this.current(job)) return;
    this.book.remove(job);
    if (job.serialNumber !== undefined) this.client.sharing?.robotClaims?.release(job.serialNumber, job.jobId);
    for (const set of [this.looked, this.waitingSent, this.busy]) set.delete(job.jobId);
    this.claimRenewed.delete(job.jobId);
    this.navigations.delete(job.jobId);
    const ended: JobEnd =
      end instanceof JobError
        ? end
        : { ...jobResult(job, end.outcome, new Date(), end.report), ...(end.stopFailure ? { stopFailure: end.stopFailure } : {}) };
    this.sink.ended(job, ended);
    this.sink.changed();
  }
}
