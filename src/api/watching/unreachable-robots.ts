/**
 * Robots the cloud refuses a status read for, per account: the one policy of
 * what a batch status call does when the cloud refuses it whole because of one
 * robot (docs/cloud-api.md, "Fleet calls"). Such a batch is halved until the
 * robot at fault is alone; the others are read in the same call. The robot
 * at fault is remembered with the cloud's reason, left out of the batches and
 * asked again alone with backoff; while it rests, every batch call naming it
 * reports it as unreachable (its last status, offline, with the reason), not
 * as a missing status. A robot that answers again is cleared at once.
 * RobotClient.batchGetStatuses is its one user; robot-config writes its
 * events to the log. No Node-RED here.
 */
import { keptForAccount } from "../account/account-memory";
import { API_CODES, PLATFORM_CODES, RobotApiError } from "../errors";
import { fleetStatusesOf } from "./fleet-statuses";

/** The first wait before a robot at fault is asked again; each refusal after doubles it, up to UNREACHABLE_MAX_BACKOFF_MS. */
export const UNREACHABLE_FIRST_BACKOFF_MS = 30_000;
export const UNREACHABLE_MAX_BACKOFF_MS = 600_000;

/** Batches whose last call timed out, kept at most per account. */
const MAX_TIMED_OUT_BATCHES = 100;

/**
 * The cloud's codes that refuse a whole batch for one robot in it: 7 a robot
 * not of the account (or not this app's), 230003 one that cannot be reached,
 * 110003 one not bound to this app. Anything else (401, the rate limit, 5xx,
 * the network) is the account's or the cloud's, and fails the call as it is.
 */
const ROBOT_REFUSAL_CODES: ReadonlySet<number> = new Set([
  API_CODES.PERMISSION_DENIED,
  PLATFORM_CODES.ROBOT_UNREACHABLE.code,
  PLATFORM_CODES.ROBOT_NOT_BOUND.code,
]);

/** The cloud's reason for refusing the robot, as a status and a flow read it. */
export interface UnreachableReason {
  /** msg.error.code of the refusal: "ROBOT_UNREACHABLE", "PERMISSION_DENIED", "TIMEOUT", ... */
  code: string;
  /** The cloud's numeric code, when it gave one. */
  apiCode?: number;
  message: string;
}

export interface UnreachableRobot {
  serialNumber: string;
  reason: UnreachableReason;
  /** When it was first refused (ms since the epoch). */
  since: number;
  /** 1 at the first refusal, one more at each refusal when asked again. */
  step: number;
  /** When it is asked again: until then it is left out of every batch. */
  askAgainAt: number;
}

/** What robot-config writes to the log: a robot refused (once per backoff step), or answering again. */
export type UnreachableEvent = { kind: "refused"; robot: UnreachableRobot } | { kind: "answered"; robot: UnreachableRobot };

/** The field a status carries while its robot is unreachable (what the package adds; the cloud never sends it). */
export interface UnreachableMark extends UnreachableReason {
  /** ISO 8601 times. */
  since: string;
  askAgainAt: string;
}

/** The wait after the `step`th refusal: 30 s, 60 s, 2 min, 4 min, 8 min, then 10 min. */
export function backoffAfter(step: number): number {
  return Math.min(UNREACHABLE_FIRST_BACKOFF_MS * 2 ** (step - 1), UNREACHABLE_MAX_BACKOFF_MS);
}

/** Whether the cloud refused the call because of a robot named in it (see ROBOT_REFUSAL_CODES). */
export function isRobotRefusal(error: unknown): error is RobotApiError {
  return error instanceof RobotApiError && error.apiCode !== undefined && ROBOT_REFUSAL_CODES.has(error.apiCode);
}

export class UnreachableRobots {
  private readonly robots = new Map<string, UnreachableRobot & { error: RobotApiError }>();
  /** Batches (their names joined) whose last call timed out: a second timeout in a row is split like a refusal. */
  private readonly timedOut = new Set<string>();
  private readonly listeners = new Set<(event: UnreachableEvent) => void>();
  /** Robots at fault a call is asking again right now: the other calls leave them out meanwhile. */
  private readonly asking = new Set<string>();

  constructor(
    private readonly accountKey: string,
    private readonly now: () => number = Date.now,
  ) {}

  get(serialNumber: string): UnreachableRobot | undefined {
    const known = this.robots.get(serialNumber);
    return known && { serialNumber, reason: known.reason, since: known.since, step: known.step, askAgainAt: known.askAgainAt };
  }

  all(): UnreachableRobot[] {
    return [...this.robots.keys()].map((serialNumber) => this.get(serialNumber)!);
  }

  /** A robot at fault whose time to be asked again has not come, or that another call is asking: it is left out of batches. */
  isResting(serialNumber: string): boolean {
    const known = this.robots.get(serialNumber);
    return known !== undefined && (this.now() < known.askAgainAt || this.asking.has(serialNumber));
  }

  /** The robots at fault among these whose time to be asked again has come, each taken by the caller to ask alone until release(). */
  takeDue(serialNumbers: readonly string[]): string[] {
    const due = serialNumbers.filter((serialNumber) => this.robots.has(serialNumber) && !this.isResting(serialNumber));
    for (const serialNumber of due) this.asking.add(serialNumber);
    return due;
  }

  /** The call that took these robots is over (answered, refused, or failed for the account): others may ask them again when due. */
  release(serialNumbers: readonly string[]): void {
    for (const serialNumber of serialNumbers) this.asking.delete(serialNumber);
  }

  /**
   * Whether a batch refused whole with `error` is split: always for a robot's
   * refusal, and for a timeout only when the same batch timed out at its last
   * call too (one timeout may be the cloud being slow for everyone).
   */
  splitsOn(error: unknown, names: readonly string[]): boolean {
    if (isRobotRefusal(error)) return true;
    if (!(error instanceof RobotApiError) || error.kind !== "timeout") return false;
    const key = names.join("\n");
    if (this.timedOut.delete(key)) return true;
    // Batches change as robots come and go: the oldest timeouts are forgotten rather than kept for ever.
    if (this.timedOut.size >= MAX_TIMED_OUT_BATCHES) this.timedOut.delete(this.timedOut.values().next().value!);
    this.timedOut.add(key);
    return false;
  }

  /** The robot was refused (alone): remembered with the reason, a step further when it was due, unchanged while it rests. */
  refused(serialNumber: string, error: RobotApiError): void {
    const known = this.robots.get(serialNumber);
    // Two calls finding the same robot at once count one step.
    if (known && this.now() < known.askAgainAt) return;
    const step = (known?.step ?? 0) + 1;
    const robot = {
      serialNumber,
      reason: { code: error.code, ...(error.apiCode === undefined ? {} : { apiCode: error.apiCode }), message: error.message },
      since: known?.since ?? this.now(),
      step,
      askAgainAt: this.now() + backoffAfter(step),
      error,
    };
    this.robots.set(serialNumber, robot);
    this.tell({ kind: "refused", robot: this.get(serialNumber)! });
  }

  /** A batch of these robots was answered: each robot at fault among them is cleared, and the batch's timeout forgotten. */
  answered(names: readonly string[]): void {
    this.timedOut.delete(names.join("\n"));
    for (const serialNumber of names) {
      const robot = this.get(serialNumber);
      if (!robot) continue;
      this.robots.delete(serialNumber);
      this.tell({ kind: "answered", robot });
    }
  }

  /**
   * The status a batch call reports for a robot at fault: its last status
   * read (if any) offline, with `unreachable` saying why and until when.
   */
  statusOf(serialNumber: string, line: "v1" | "s"): Record<string, unknown> {
    const robot = this.get(serialNumber)!;
    const unreachable: UnreachableMark = {
      ...robot.reason,
      since: new Date(robot.since).toISOString(),
      askAgainAt: new Date(robot.askAgainAt).toISOString(),
    };
    const last = fleetStatusesOf(this.accountKey).get(serialNumber)?.status;
    return { ...last, ...(line === "v1" ? { name: `robots/${serialNumber}` } : {}), serialNumber, online: false, unreachable };
  }

  /** A read of this one robot while it is at fault: the cloud's refusal again, saying when the robot is asked again. */
  errorOf(serialNumber: string): RobotApiError {
    const { error, askAgainAt } = this.robots.get(serialNumber)!;
    return new RobotApiError({
      kind: error.kind,
      operation: error.operation,
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.apiCode === undefined ? {} : { apiCode: error.apiCode }),
      message: `${error.message} (robot ${serialNumber}: not asked again before ${new Date(askAgainAt).toISOString()})`,
    });
  }

  /** Calls `listener` at each refusal step and each robot answering again; returns what stops it. */
  onEvent(listener: (event: UnreachableEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private tell(event: UnreachableEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** The robots at fault of the account `accountKey`; `now` is the clock of the first use (a test's). */
export function unreachableRobotsOf(accountKey: string, now?: () => number): UnreachableRobots {
  return keptForAccount(accountKey, "unreachable robots", () => new UnreachableRobots(accountKey, now));
}

/** One line of the log for an event, naming the robot and the reason. */
export function unreachableEventText(event: UnreachableEvent): string {
  const { serialNumber, reason, since, step } = event.robot;
  if (event.kind === "answered") return `robot ${serialNumber} answers its status again (refused since ${new Date(since).toISOString()})`;
  return `robot ${serialNumber} is left out of status reads and shown unreachable: ${reason.message}; asked again in ${backoffAfter(step) / 1000} s`;
}

/**
 * One batch of names (none resting): its statuses, splitting a batch the
 * cloud refused whole because of a robot until the robot at fault is alone
 * (reported by statusOf). `ask` sends one batch call.
 */
export async function readBatchFindingFault(
  robots: UnreachableRobots,
  names: readonly string[],
  line: "v1" | "s",
  ask: (names: readonly string[]) => Promise<Record<string, unknown>[]>,
): Promise<Record<string, unknown>[]> {
  const attempt = async (part: readonly string[]): Promise<{ statuses: Record<string, unknown>[] } | { error: unknown }> => {
    try {
      const statuses = await ask(part);
      robots.answered(part);
      return { statuses };
    } catch (error) {
      return { error };
    }
  };
  /** `part` holds a robot at fault (its call, or a call holding it, refused with `failure`). */
  const split = async (part: readonly string[], failure: RobotApiError): Promise<Record<string, unknown>[]> => {
    if (part.length === 1) {
      robots.refused(part[0]!, failure);
      return [robots.statusOf(part[0]!, line)];
    }
    const middle = Math.ceil(part.length / 2);
    const [left, right] = [part.slice(0, middle), part.slice(middle)];
    const leftRead = await attempt(left);
    // The left half answered: the fault is in the right half, which is split without asking it whole.
    if ("statuses" in leftRead) return [...leftRead.statuses, ...(await split(right, failure))];
    const leftError = robotLevel(leftRead.error, failure);
    const rightRead = await attempt(right);
    if ("statuses" in rightRead) return [...(await split(left, leftError)), ...rightRead.statuses];
    // Both halves timing out is the cloud being slow, not one robot: the call fails.
    if (failure.kind === "timeout" && leftError.kind === "timeout" && isTimeout(rightRead.error)) throw failure;
    const rightError = robotLevel(rightRead.error, failure);
    return [...(await split(left, leftError)), ...(await split(right, rightError))];
  };
  const whole = await attempt(names);
  if ("statuses" in whole) return whole.statuses;
  if (!robots.splitsOn(whole.error, names)) throw whole.error;
  return split(names, whole.error as RobotApiError);
}

function isTimeout(error: unknown): boolean {
  return error instanceof RobotApiError && error.kind === "timeout";
}

/** A half's refusal that points at a robot in it (a robot's code, or a timeout while splitting a batch that timed out); anything else fails the call. */
function robotLevel(error: unknown, failure: RobotApiError): RobotApiError {
  if (isRobotRefusal(error) || (failure.kind === "timeout" && isTimeout(error))) return error as RobotApiError;
  throw error;
}
