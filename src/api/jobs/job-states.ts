/**
 * A job's life as one table: its states, the events that move it, and which
 * move each event makes from each state. robot-job's runner applies every
 * move through `nextPhase` (its `transition`), so a move the table does not
 * allow is refused there, loudly, instead of leaving a job in a state nothing
 * follows. Pure: no calls, no Node-RED.
 *
 *   waiting  --chosen-->        claiming   a robot is eligible and held for the job in this process
 *   claiming --claimed-->       starting   the robot is the job's in Redis too (or the account is not shared)
 *   claiming --claimRefused-->  waiting    another instance's job has it, or Redis did not answer
 *   starting --shown-->         running    the robot shows the work under way
 *   starting --setAside-->      waiting    the robot refused, or did not show the start in time
 *   claiming, starting --unsent--> waiting after a redeploy: the start was never sent, the job looks again
 *   running  --robotDone-->     ending     the robot shows the task over: its report is looked up
 *   any but ending --cancel-->  ending     the robot is stopped (when it has one), then the job ends
 *   waiting, running, ending --end--> ended   the job's one end (NO_ROBOT, INVALID_INPUT, an outcome)
 */

export const JOB_PHASES = ["waiting", "claiming", "starting", "running", "ending"] as const;
export type JobPhase = (typeof JOB_PHASES)[number];

export type JobEvent = "chosen" | "claimed" | "claimRefused" | "shown" | "setAside" | "unsent" | "robotDone" | "cancel" | "end";

/** The state after an end: the job is out of the account's jobs, and nothing moves it again. */
export const ENDED = "ended";
export type JobState = JobPhase | typeof ENDED;

export const JOB_TRANSITIONS: Readonly<Record<JobPhase, Readonly<Partial<Record<JobEvent, JobState>>>>> = {
  waiting: { chosen: "claiming", cancel: "ending", end: ENDED },
  claiming: { claimed: "starting", claimRefused: "waiting", unsent: "waiting", cancel: "ending" },
  starting: { shown: "running", setAside: "waiting", unsent: "waiting", cancel: "ending" },
  running: { robotDone: "ending", cancel: "ending", end: ENDED },
  ending: { end: ENDED },
};

export class IllegalTransition extends Error {
  override readonly name = "IllegalTransition";
  constructor(
    readonly from: JobState,
    readonly event: JobEvent,
    jobId: string,
  ) {
    super(`job ${jobId}: no transition "${event}" from ${from}`);
  }
}

/** The state `event` moves a job in `phase` to; an event the table does not allow there throws IllegalTransition. */
export function nextPhase(phase: JobState, event: JobEvent, jobId: string): JobState {
  const next = phase === ENDED ? undefined : JOB_TRANSITIONS[phase][event];
  if (next === undefined) throw new IllegalTransition(phase, event, jobId);
  return next;
}

/** One move of a job, as a watcher of the table sees it. */
export interface JobTransition {
  jobId: string;
  from: JobState;
  event: JobEvent;
  to: JobState;
}

const transitionListeners = new Set<(move: JobTransition) => void>();

/** Calls `listener` with every move of every job in this process (tests check the table is walked); answers the way to stop. */
export function onJobTransition(listener: (move: JobTransition) => void): () => void {
  transitionListeners.add(listener);
  return () => transitionListeners.delete(listener);
}

/** Tells the watchers of the table a move that was made (the runner, after nextPhase allowed it). */
export function announceTransition(move: JobTransition): void {
  for (const listener of transitionListeners) listener(move);
}
