/**
 * robot-plan's runtime: looks at its plan's calendar at each occurrence's
 * time (and at least once a minute), claims each occurrence once per account
 * (in the account's memory, and in Redis when shared) before anything is
 * made of it, and makes it a robot-job job (robot-job's runner, jobId = the
 * occurrence's id) or records it skipped or missed. The job's end settles
 * it. What ran is kept in the account's memory and the node's context, so a
 * redeploy or a restart neither repeats an occurrence nor forgets one: those
 * past their time on the way back run late within lateBy, older ones are missed.
 */
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow } from "node-red";
import type { RobotClient } from "../../api/client";
import { RobotApiError, invalidInput } from "../../api/errors";
import { jobsOfAccount, newJob, type JobRecord } from "../../api/jobs/job-book";
import { alarmsOfAccount } from "../../api/pushes/open-alarms";
import { reportsOfAccount } from "../../api/reports/report-store";
import { readNumberSetting } from "../../api/settings/input-rules";
import { localMinuteOf, occurrencesBetween } from "../../api/plans/calendar";
import { dayOfOccurrence, occurrenceIdOf, type PlanItem, type PlannedOccurrence, type SettledOccurrence, type SettledStatus } from "../../api/plans/occurrence";
import { readSkipDates, readTimezone } from "../../api/plans/plan";
import { isCalendarDate } from "../../api/cloud/cloud-time";
import { plansOfAccount, SETTLED_KEPT_DAYS, type NodePlanState } from "../../api/plans/plan-book";
import { DateTime } from "luxon";
import { configProblemStatus, lookUpConfig } from "../shared/config-node";
import { ContextMirror } from "../shared/context-mirror";
import { StatusDrawer } from "../shared/node-status-view";
import { SHARED_CATALOGUE, translator } from "../shared/i18n";
import { isPlainObject, readMessage } from "../shared/plain-data";
import { refuseMessages, takeMessages, type Outgoing } from "../shared/robot-input";
import { rewordInvalidInput } from "../shared/refusal-words";
import { refuseRobotsNotOfAccount } from "../../api/account/robot-directory";
import { readJobRequest, readNodeDefaults, type NodeDefaults } from "../shared/jobs/job-input";
import { JobError, jobReasonWords, type JobEnd, type JobSink } from "../shared/jobs/job-end";
import { JobRunner } from "../shared/jobs/runner";
import { CLAIM_ANSWER_MS } from "../../api/jobs/robot-claims";
import { settledWithin } from "../../api/engine/clock";
import { planClockOf } from "../shared/plan-clock";
import { planReportAnswer } from "./report-answer";
import { deployedSettingsHash, jobPayloadOf, readPlanForJobs, reportParties, type PlanSettings, type RobotPlanProperties } from "./plan-settings";
import { planStatus } from "./status";
import { PLAN_LATE_BY, PLAN_LOOK_BACK_AT_MOST, PLAN_REQUESTS, PLAN_UPCOMING_HOURS } from "./table";

/** The context keys of the node's plan book part and of its jobs (robot-job's records). */
export const PLAN_CONTEXT_KEY = "robot-plan.plan";
export const PLAN_JOBS_CONTEXT_KEY = "robot-plan.jobs";

/** The calendar is looked at least this often, and at each occurrence's time. */
const LOOK_EVERY_MS = 60_000;
const MINUTE_MS = 60_000;
/** After downtime, the calendar is looked back at most this far (older occurrences are not recorded). */
const LOOK_BACK_MS = 31 * 86_400_000;
/** An occurrence's claim in Redis outlives any lateBy (a day) and its job's wait. */
const SHARED_CLAIM_MS = 3 * 86_400_000;

export function setUpRobotPlan(RED: NodeAPI, node: Node, config: RobotPlanProperties): void {
  const { client, problem } = lookUpConfig(RED, config.robot);
  // A timer works without messages: a node that cannot work says so at deploy too.
  if (problem) return refuseMessages(node, configProblemStatus(problem, translator(RED, SHARED_CATALOGUE)), problem, { atDeploy: true, eachMessage: true });
  const clock = planClockOf((RED.settings as unknown as Record<string, unknown>).robotPlanClock);
  const defaults = readNodeDefaults({});
  let settings: PlanSettings;
  try {
    settings = {
      timezone: readTimezone(config.timezone),
      lateByMinutes: readNumberSetting(config.lateBy, "lateBy", PLAN_LATE_BY),
      skipDates: readSkipDates(config.skipDates),
      items: readPlanForJobs(config.plan ?? [], "plan", defaults),
      deployed: deployedSettingsHash(config),
      parties: reportParties(config, node),
    };
  } catch (error) {
    // A node whose settings cannot be read runs nothing: its status, its log at deploy and every message say which.
    const refusal = error instanceof RobotApiError ? error : invalidInput("", error instanceof Error ? error.message : String(error));
    return refuseMessages(node, { fill: "red", shape: "ring", text: `${refusal.code}: ${refusal.field ?? ""}` }, refusal, { atDeploy: true, eachMessage: true });
  }
  runPlan(RED, node, client, clock, defaults, settings);
}

function runPlan(
  RED: NodeAPI,
  node: Node,
  client: RobotClient,
  clock: ReturnType<typeof planClockOf>,
  defaults: NodeDefaults,
  settings: PlanSettings,
): void {
  const t = translator(RED, "robot-plan");
  const jobWords = translator(RED, "robot-job");
  const { timezone, lateByMinutes } = settings;
  const plans = plansOfAccount(client.accountKey);
  const jobs = jobsOfAccount(client.accountKey);
  const planMirror = new ContextMirror(node, PLAN_CONTEXT_KEY, () => plans.toPlain(node.id));
  const jobMirror = new ContextMirror(node, PLAN_JOBS_CONTEXT_KEY, () => jobs.toPlain(node.id));
  let items = settings.items;
  // The book's state only once the context is read: asked for earlier, the book would make a fresh one and restore() keep it over the stored.
  let state: NodePlanState = { paused: false, skips: [] };
  let runner: JobRunner | undefined;
  let timer: unknown;
  let closed = false;
  const status = new StatusDrawer(node, () => {
    const counts = runner?.counts ?? { waiting: 0, running: 0 };
    const next = occurrencesBetween(items, timezone, clock.now(), clock.now() + 86_400_000)[0];
    return planStatus(
      {
        paused: state.paused,
        ...counts,
        ...(next ? { next: { item: next.item, time: DateTime.fromISO(next.plannedAt, { zone: timezone }).toFormat("HH:mm") } } : {}),
      },
      t,
    );
  });

  const sink: JobSink = {
    ended: (job, end) => settleJob(job, end),
    progress: (job, progress) => sendProgress({ occurrenceId: job.jobId, item: job.settings.name, ...progress }),
    fault: (job, error) => node.error(error, { topic: job.settings.name, occurrenceId: job.jobId }),
    changed: () => {
      jobMirror.changed();
      if (runner) status.changed();
    },
  };

  function sendProgress(payload: Record<string, unknown>): void {
    node.send([null, { topic: payload.item, payload } as NodeMessage, null]);
  }

  function settle(occurrence: Pick<PlannedOccurrence, "occurrenceId" | "item" | "plannedAt">, status: SettledStatus, ended: Partial<SettledOccurrence> = {}): void {
    const settled: SettledOccurrence = { occurrenceId: occurrence.occurrenceId, item: occurrence.item, plannedAt: occurrence.plannedAt, timezone, ...ended, status };
    plans.settle(node.id, settled);
    share(settled);
    planMirror.changed();
    node.send([{ topic: settled.item, payload: structuredClone(settled) }, null, null]);
  }

  /**
   * Keeps a settled occurrence where every instance sharing the account reads
   * it for its report; until Redis takes it, its id is in the node's state
   * (state.unshared) and it is written again at each look.
   */
  function share(settled: SettledOccurrence): void {
    const shared = client.sharing?.occurrenceClaims;
    if (!shared) return;
    const { occurrenceId } = settled;
    if (!state.unshared?.includes(occurrenceId)) state.unshared = [...(state.unshared ?? []), occurrenceId];
    void shared.settle(settled, clock.now() - SETTLED_KEPT_DAYS * 86_400_000).then(
      () => {
        state.unshared = state.unshared?.filter((id) => id !== occurrenceId);
        if (!closed) planMirror.changed();
      },
      () => undefined,
    );
  }

  function settleJob(job: JobRecord, end: JobEnd): void {
    const claimed = plans.claimedOf(job.jobId);
    const occurrence = claimed?.occurrence ?? { occurrenceId: job.jobId, item: job.settings.name ?? job.jobId, plannedAt: new Date(job.createdAt).toISOString() };
    if (end instanceof Error) {
      const robots = end instanceof JobError ? ((end.cause as { robots?: Record<string, string> }).robots ?? {}) : {};
      const code = end instanceof JobError || end instanceof RobotApiError ? end.code : "ERROR";
      settle(occurrence, "failed", { endedAt: new Date().toISOString(), job: { code, message: end.message, robots } });
      return;
    }
    const status: SettledStatus = end.outcome === "cancelled" ? "cancelled" : claimed?.late ? "late" : "done";
    settle(occurrence, status, { ...(end.startedAt ? { startedAt: end.startedAt } : {}), endedAt: end.endedAt, job: end });
  }

  /** The occurrence's job, made and handed to robot-job's runner; `due` on output 2. */
  function startJob(occurrence: PlannedOccurrence, late: boolean): void {
    let request;
    try {
      request = readJobRequest(jobPayloadOf(occurrence.itemSpec, occurrence.occurrenceId), {}, defaults, (jobId) => jobs.jobs.has(jobId), () => false);
    } catch (error) {
      const refusal = error as RobotApiError;
      settle(occurrence, "failed", { endedAt: new Date().toISOString(), job: { code: refusal.code ?? "INVALID_INPUT", message: refusal.message, robots: {} } });
      return;
    }
    if ("cancel" in request) return;
    sendProgress({ event: "due", occurrenceId: occurrence.occurrenceId, item: occurrence.item, plannedAt: occurrence.plannedAt, ...(late ? { late } : {}) });
    // The job's waits run on real time, whatever clock the plan looks at.
    runner!.add(newJob(node.id, request, occurrence.item));
  }

  /** Claims the occurrence for this node across the account (memory, then Redis): false when another has it, undefined when Redis could not say. */
  async function claim(occurrence: PlannedOccurrence, late: boolean): Promise<boolean | undefined> {
    if (!plans.claim(node.id, occurrence, late)) return false;
    const shared = client.sharing?.occurrenceClaims;
    if (!shared) return true;
    try {
      // A hung Redis does not hold the occurrence: it is asked again at the next look (a late answer is recognised then as this instance's).
      const answer = await settledWithin(CLAIM_ANSWER_MS, shared.claim(occurrence.occurrenceId, SHARED_CLAIM_MS));
      if (answer === true) return true;
      plans.unclaim(occurrence.occurrenceId);
      return answer === false ? false : undefined;
    } catch {
      plans.unclaim(occurrence.occurrenceId);
      return undefined;
    }
  }

  function skippedDay(occurrence: PlannedOccurrence): boolean {
    const date = dayOfOccurrence(occurrence.occurrenceId);
    return settings.skipDates.includes(date) || state.skips.includes(date);
  }

  /** Unanswered by Redis: asked again at each look (run late within lateBy, else missed) until Redis answers; the newest PLAN_LOOK_BACK_AT_MOST. */
  function keepUnanswered(occurrence: PlannedOccurrence, unanswered: boolean): void {
    const others = (state.unanswered ?? []).filter((entry) => entry.occurrenceId !== occurrence.occurrenceId);
    if (!unanswered && others.length === (state.unanswered?.length ?? 0)) return;
    state.unanswered = unanswered ? [...others, occurrence].slice(-PLAN_LOOK_BACK_AT_MOST) : others;
    if (!closed) planMirror.changed();
  }

  /** An occurrence at or past its time: skipped, missed, or run (late after its minute). */
  async function due(occurrence: PlannedOccurrence, now: number): Promise<void> {
    if (plans.known(occurrence.occurrenceId)) return keepUnanswered(occurrence, false);
    const minutesLate = Math.floor((now - Date.parse(occurrence.plannedAt)) / MINUTE_MS);
    const skipped = state.paused || skippedDay(occurrence);
    const missed = !skipped && minutesLate > lateByMinutes;
    const late = minutesLate >= 1;
    const claimed = await claim(occurrence, late);
    // Kept in the node's state even when it closed meanwhile: the node that replaces it asks again.
    keepUnanswered(occurrence, claimed === undefined);
    if (closed || !claimed) return;
    if (skipped) settle(occurrence, "skipped");
    else if (missed) settle(occurrence, "missed");
    else startJob(occurrence, late);
  }

  /** Looks at the calendar from where it was last looked at up to now, then waits for the next occurrence (a minute at most). */
  function look(): void {
    if (closed) return;
    clock.clearTimeout(timer);
    const now = clock.now();
    const from = Math.max(state.checkedUpTo ?? now, now - LOOK_BACK_MS);
    const passed = from <= now ? occurrencesBetween(items, timezone, from, now + 1) : [];
    // A long downtime is not settled one message and one Redis call per occurrence (a minutely item: 1,440 a day).
    const unrecorded = passed.length - PLAN_LOOK_BACK_AT_MOST;
    if (unrecorded > 0)
      node.warn(
        `after downtime, ${unrecorded} occurrence${unrecorded === 1 ? "" : "s"} planned from ${passed[0]!.plannedAt} to ${passed[unrecorded - 1]!.plannedAt} are not recorded: the newest ${PLAN_LOOK_BACK_AT_MOST} are (missed, or run late within lateBy)`,
      );
    const found = [...(state.unanswered ?? []), ...(unrecorded > 0 ? passed.slice(unrecorded) : passed)];
    state.checkedUpTo = Math.max(state.checkedUpTo ?? 0, now + 1);
    for (const occurrence of found) void due(occurrence, now).catch((error: unknown) => node.error(error));
    plans.prune(now);
    for (const occurrenceId of state.unshared ?? []) share(plans.settledOf(occurrenceId)!);
    planMirror.changed();
    status.changed();
    const next = occurrencesBetween(items, timezone, now + 1, now + 1 + LOOK_EVERY_MS)[0];
    const wait = next ? Date.parse(next.plannedAt) - now : LOOK_EVERY_MS;
    timer = clock.setTimeout(look, Math.max(1, wait));
  }

  /** Refuses a plan with an item another node of the account names for other work or in another zone. */
  function checkNamesOfAccount(planned: PlanItem[], field: string): void {
    const taken = plans.nameTakenElsewhere(node.id, planned, timezone);
    if (taken)
      throw invalidInput(`${field}[${taken.index}].name`, `"${taken.item}" is an item of another robot-plan node of this account with other work or another time zone; give it another name`);
  }

  /**
   * Refuses a plan with an item whose robots the account does not have (the
   * robot list, read again for one it did not name); at once, with no promise,
   * when the list names them all, so the messages after a plan see it in force.
   */
  function checkRobotsOfAccount(planned: PlanItem[], field: string): void | Promise<void> {
    const checks = planned.map((item, index) => item.robots && refuseRobotsNotOfAccount(client.accountKey, `${field}[${index}].robots`, item.robots, item.name));
    const pending = checks.filter((check) => check instanceof Promise);
    if (pending.length > 0) return Promise.all(pending).then(() => undefined);
  }

  function setPlan(value: unknown): void | Promise<void> {
    const read = readPlanForJobs(value, "payload.plan", defaults);
    checkNamesOfAccount(read, "payload.plan");
    const putInForce = () => {
      if (closed) return;
      items = read;
      state.planByMessage = structuredClone(value);
      state.planByMessageOver = settings.deployed;
      plans.setPlan(node.id, { items, timezone }, clock.now());
      // A plan set during the day does not go back over that day's earlier occurrences.
      state.checkedUpTo = Math.max(state.checkedUpTo ?? 0, clock.now());
      look();
    };
    const checking = checkRobotsOfAccount(read, "payload.plan");
    return checking ? checking.then(putInForce) : putInForce();
  }

  async function runNow(name: unknown): Promise<void> {
    const item = items.find((entry) => entry.name === name);
    if (!item) throw invalidInput("payload.runNow", `no item "${String(name)}" in the plan (items: ${items.map((entry) => entry.name).join(", ") || "none"})`);
    const now = clock.now();
    const minute = localMinuteOf(DateTime.fromMillis(now, { zone: timezone }));
    const occurrenceId = occurrenceIdOf(item.name, minute);
    if (plans.known(occurrenceId)) throw invalidInput("payload.runNow", `"${occurrenceId}" has run already or runs now`);
    // The item's own occurrence of this minute, if it has one: that one runs now (and not again at its time).
    const minuteStart = now - (now % MINUTE_MS);
    const planned = occurrencesBetween([item], timezone, minuteStart - MINUTE_MS, minuteStart + 2 * MINUTE_MS).find((entry) => entry.occurrenceId === occurrenceId);
    const occurrence: PlannedOccurrence = planned ?? { occurrenceId, item: item.name, plannedAt: new Date(now).toISOString(), itemSpec: item };
    // The message ends once the claim is answered: run, or refused saying why, never an answer for nothing done.
    const claimed = await claim(occurrence, false);
    if (claimed === false) throw invalidInput("payload.runNow", `"${occurrenceId}" is claimed by another node or instance sharing the account; it runs there`);
    if (claimed === undefined) throw invalidInput("payload.runNow", `"${occurrenceId}" could not be claimed: the account's Redis did not answer; nothing was started`);
    if (!closed) startJob(occurrence, false);
  }

  function upcoming(request: unknown): Record<string, unknown>[] {
    const hours = readNumberSetting(isPlainObject(request) ? request.hours : undefined, "payload.upcoming.hours", PLAN_UPCOMING_HOURS);
    const now = clock.now();
    return occurrencesBetween(items, timezone, now, now + hours * 3_600_000).map((occurrence) => ({
      occurrenceId: occurrence.occurrenceId,
      item: occurrence.item,
      plannedAt: occurrence.plannedAt,
      state: plans.settledOf(occurrence.occurrenceId)?.status ?? (plans.claimedOf(occurrence.occurrenceId) ? "running" : state.paused ? "paused" : skippedDay(occurrence) ? "skipped" : "planned"),
      work: occurrence.itemSpec.work,
    }));
  }

  /** What a message asks; an answer (upcoming, report) is sent on output 3. */
  async function answer(msg: NodeMessageInFlow): Promise<Outgoing | undefined> {
    const { payload } = readMessage(msg, []);
    const asked = isPlainObject(payload) ? PLAN_REQUESTS.filter((key) => payload[key] !== undefined) : [];
    if (!isPlainObject(payload) || asked.length !== 1)
      throw invalidInput("payload", `give one of ${PLAN_REQUESTS.join(", ")}${asked.length > 1 ? `, not ${asked.join(" and ")}` : ""}`);
    const request = asked[0]!;
    const value = payload[request];
    let answered: Outgoing | undefined;
    switch (request) {
      case "plan": {
        const setting = setPlan(value);
        if (setting) await setting;
        break;
      }
      case "pause":
        if (typeof value !== "boolean") throw invalidInput("payload.pause", "must be true or false");
        state.paused = value;
        break;
      case "skip":
        if (!isCalendarDate(value)) throw invalidInput("payload.skip", `must be a date "YYYY-MM-DD" (got ${JSON.stringify(value)})`);
        if (!state.skips.includes(value)) state.skips = [...state.skips, value].sort();
        break;
      case "runNow":
        await runNow(value);
        break;
      case "upcoming":
        answered = [null, null, { ...msg, payload: { upcoming: upcoming(value) } }];
        break;
      case "report":
        answered = [null, null, { ...msg, payload: await planReportAnswer(value, { client, plans, timezone, nowMs: clock.now(), t, parties: settings.parties, reasonWords: (reason) => jobReasonWords(jobWords, reason) }) }];
        break;
      case "cancel": {
        const occurrenceId = typeof value === "string" ? value : "";
        if (jobs.jobs.get(occurrenceId)?.nodeId !== node.id) throw invalidInput("payload.cancel", `no occurrence "${occurrenceId}" of this node runs now`);
        await runner!.cancel(occurrenceId);
        break;
      }
    }
    planMirror.changed();
    status.changed();
    return answered;
  }

  // The first look waits for the deploy's every node: Node-RED creates them one after another, and what the
  // first look sends after a restart (missed, late) would be dropped on the way to a node not made yet.
  const flowsStarted = new Promise<void>((resolve) => RED.events.once("flows:started", () => resolve()));
  const started = Promise.all([planMirror.read(), jobMirror.read(), flowsStarted]).then(async ([storedPlan, storedJobs]) => {
    // What this node had before a restart (a persistent context store) joins what the process kept.
    plans.restore(node.id, storedPlan);
    jobs.restore(node.id, storedJobs);
    if (closed) return;
    state = plans.stateOf(node.id);
    if (state.planByMessage !== undefined && state.planByMessageOver !== settings.deployed) {
      // Deployed with other settings since the message: the dialog's plan is the newer word.
      node.log("the plan set by message is dropped: the node was deployed with other plan settings since");
      delete state.planByMessage;
      delete state.planByMessageOver;
    } else if (state.planByMessage !== undefined) {
      try {
        items = readPlanForJobs(state.planByMessage, "payload.plan", defaults);
      } catch (error) {
        node.warn(`the plan set by message could not be read again, the node's own is in force: ${(error as Error).message}`);
        delete state.planByMessage;
        delete state.planByMessageOver;
      }
    }
    const field = state.planByMessage !== undefined ? "payload.plan" : "plan";
    checkNamesOfAccount(items, field);
    // Refused whole at deploy, like any bad item: nothing of the plan runs, and its status, log and every message say why.
    await checkRobotsOfAccount(items, field);
    if (closed) return;
    plans.setPlan(node.id, { items, timezone }, clock.now());
    runner = new JobRunner(node.id, client, jobs, alarmsOfAccount(client.accountKey), reportsOfAccount(client.accountKey), sink, jobWords);
    runner.start();
    // Claimed before a restart and never made a job (or its job's end was not kept): made now, as late as it is.
    for (const claimed of plans.claimedBy(node.id)) if (!jobs.jobs.has(claimed.occurrence.occurrenceId)) startJob(claimed.occurrence, claimed.late);
    look();
  });

  started.catch((error: unknown) => {
    // Nothing runs; each message ends with this error (takeMessages).
    rewordInvalidInput(t, error);
    node.status({ fill: "red", shape: "ring", text: error instanceof RobotApiError ? `${error.code}: ${error.field ?? ""}` : t("status.error") });
    node.error(error);
  });

  takeMessages(RED, node, async (msg) => {
    await started;
    // Closed before its context was read: the message is abandoned (takeMessages).
    if (!runner) return undefined;
    return answer(msg);
  });

  node.on("close", (removed: boolean, done: () => void) => {
    closed = true;
    clock.clearTimeout(timer);
    status.close();
    runner?.close();
    if (removed) {
      jobs.letGoOfNode(node.id, client.sharing?.robotClaims);
      plans.forget(node.id);
    }
    planMirror.changed();
    jobMirror.changed();
    void Promise.all([planMirror.flush(), jobMirror.flush()]).then(() => done());
  });
}

