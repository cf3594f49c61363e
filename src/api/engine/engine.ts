/**
 * The request engine of one account. Every call a client makes goes through
 * it: at most `connections` on the wire, starts paced to `rateLimit` per
 * second, at most `queueLimit` waiting, stop commands ahead of everything and
 * every other class of calls keeping its share of the rate (call-classes.ts), one
 * pause for the whole account when the cloud says "slow down", and retries only
 * where a call cannot have taken effect. It knows nothing of HTTP: a call is an
 * attempt function it may run more than once, and the clock is injected so the
 * policy can be tested without sockets or waiting.
 */
import { AbortGroups } from "./abort-groups";
import { isSharedCallClass, type CallClass } from "../settings/call-settings";
import { ClassQueues } from "./call-classes";
import type { AccountGate, Permit } from "../account/shared-account";
import { REAL_CLOCK, type EngineClock } from "./clock";
import {
  DEFAULT_ENGINE_SETTINGS,
  type EngineSettings,
  ATTEMPT_TIMED_OUT,
  ResendRequest,
  type Attempt,
  type EngineCallOptions,
} from "../settings/call-settings";
import { RobotApiError, abortedError } from "../errors";
import type { QueueLinks } from "./linked-queue";

/**
 * Requests leave the client a moment before they reach the server, and not
 * always in the same order: the pacing window is kept this much longer than
 * a second so the server never counts one call too many in its own window.
 */
const PACING_MARGIN_MS = 25;

interface Job extends QueueLinks<Job> {
  readonly attempt: Attempt<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly options: EngineCallOptions;
  readonly callClass: CallClass;
  retries: number;
  sent: boolean;
  /** Where the job is now. */
  state: "queued" | "backoff" | "sending" | "settled";
  controller: AbortController | undefined;
  /** The backoff before a retry. */
  timer: unknown;
  /** The running attempt's time limit. */
  attemptTimer: unknown;
}

export class RequestEngine {
  readonly settings: EngineSettings;
  private readonly clock: EngineClock;
  private readonly queues = new ClassQueues<Job>();
  private backingOff = 0;
  private inFlight = 0;
  /** When each of the last `windowCalls` calls ended (Infinity while on the wire), a ring; `startsHead` is the oldest once full. */
  private readonly starts: number[];
  private startsHead = 0;
  private startsFilled = 0;
  private readonly windowCalls: number;
  private readonly windowMs: number;
  private pausedUntilMs = 0;
  private pauseCause: RobotApiError | undefined;
  private wakeTimer: unknown;
  private wakeAt = Infinity;
  private closed = false;
  /** Jobs by the caller's signal: an abort drops every call of it still under way. */
  private readonly aborts = new AbortGroups<Job>((jobs) => {
    for (const job of jobs) this.settle(job, abortedError(job.options.operation));
    this.pump();
  });
  private readonly pauseListeners = new Set<() => void>();
  /** Jobs backing off or on the wire, found only through this set when the engine closes. */
  private readonly live = new Set<Job>();
  /** Controllers of answered attempts, ready for the next (see spare). */
  private readonly spareControllers: AbortController[] = [];
  /** A shared account's place for the next call, once the gate granted it; asked for one at a time. */
  private permit: Permit | undefined;
  private askingGate = false;

  /** `gate`: the account is shared with other processes, which pace and pause with this one. */
  constructor(
    settings: Partial<EngineSettings> = {},
    clock: EngineClock = REAL_CLOCK,
    private readonly gate?: AccountGate,
  ) {
    this.settings = { ...DEFAULT_ENGINE_SETTINGS, ...settings };
    this.clock = clock;
    const { rateLimit } = this.settings;
    // Below 1/s the window grows instead: one call per 1/rate seconds.
    this.windowCalls = rateLimit > 0 ? Math.max(1, Math.floor(rateLimit)) : 0;
    this.windowMs = rateLimit > 0 ? Math.max(1000, 1000 / rateLimit) + PACING_MARGIN_MS : 0;
    this.starts = new Array<number>(this.windowCalls).fill(0);
  }

  /** Calls waiting (queued or backing off). */
  get waiting(): number {
    return this.queues.length + this.backingOff;
  }

  get sending(): number {
    return this.inFlight;
  }

  /** Milliseconds until the account may send again after a rate-limit answer; 0 when it is not paused. */
  pausedForMs(): number {
    return Math.max(0, this.pausedUntilMs - this.clock.now());
  }

  /** Called when the account's pause starts or ends (for the status under each node). */
  onPauseChange(listener: () => void): () => void {
    this.pauseListeners.add(listener);
    return () => this.pauseListeners.delete(listener);
  }

  run<T>(attempt: Attempt<T>, options: EngineCallOptions = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const { signal, operation } = options;
      if (this.closed) return reject(abortedError(operation, "the robot-config was closed"));
      if (signal?.aborted) return reject(abortedError(operation));
      if (!options.urgent && this.waiting >= this.settings.queueLimit) {
        return reject(
          new RobotApiError({
            kind: "queue_full",
            operation,
            message: `${operation ?? "call"}: not sent: ${this.settings.queueLimit} calls are already waiting for this account (queueLimit)`,
          }),
        );
      }
      const held = this.pauseTooLong(operation);
      if (held) return reject(held);

      const job: Job = {
        attempt,
        resolve: resolve as (value: unknown) => void,
        reject,
        options,
        // A stop command is one whatever the caller chose; a class the engine does not know (plain JavaScript) is "other".
        callClass: options.urgent ? "stop" : isSharedCallClass(options.callClass) ? options.callClass : "other",
        retries: 0,
        sent: false,
        state: "queued",
        prev: undefined,
        next: undefined,
        queue: undefined,
        controller: undefined,
        timer: undefined,
        attemptTimer: undefined,
      };
      if (signal) this.aborts.add(signal, job);
      if (options.tracker) options.tracker.waiting++;
      this.queues.add(job);
      options.onQueued?.(() => this.withdraw(job));
      this.pump();
      if (options.tracker && job.state === "queued") options.tracker.changed?.();
    });
  }

  /** Drops every call, quietly for the callers that closed with it; later calls are refused. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.clearWake();
    for (const queue of this.queues.all()) {
      while (queue.head) this.settle(queue.head, abortedError(queue.head.options.operation, "the robot-config was closed"));
    }
    // Jobs backing off or on the wire are found through their own state below.
    for (const job of this.live) this.settle(job, abortedError(job.options.operation, "the robot-config was closed"));
    this.permit?.release();
    this.permit = undefined;
  }

  // ------------------------------------------------------------ scheduling

  private pump(): void {
    if (this.closed) return;
    const now = this.clock.now();
    while (this.inFlight < this.settings.connections) {
      const job = this.queues.next();
      if (!job) return;
      if (now < this.pausedUntilMs) return this.wakeAfter(this.pausedUntilMs - now);
      if (this.windowCalls > 0 && this.startsFilled === this.windowCalls) {
        const allowedAt = this.starts[this.startsHead]! + this.windowMs;
        // Infinity: that call is still on the wire; its end calls pump() again.
        if (allowedAt === Infinity) return;
        if (now < allowedAt) return this.wakeAfter(allowedAt - now);
      }
      if (this.gate && !this.permit) return this.askGate();
      this.queues.take(job);
      this.start(job);
    }
  }

  /** Asks the shared account's gate for the next call's place; pump() runs again with the answer. */
  private askGate(): void {
    if (this.askingGate) return;
    this.askingGate = true;
    this.gate!.ask().then(
      (answer) => {
        this.askingGate = false;
        if ("permit" in answer) {
          if (this.closed) return answer.permit.release();
          this.permit = answer.permit;
        } else if ("pausedForMs" in answer) {
          this.pause(answer.pausedForMs, sharedPauseCause(answer.pausedForMs));
        } else {
          return this.wakeAfter(answer.retryInMs);
        }
        this.pump();
      },
      () => {
        // The gate answers Redis trouble itself; anything else is retried shortly rather than stalling the queue.
        this.askingGate = false;
        this.wakeAfter(100);
      },
    );
  }

  private wakeAfter(ms: number): void {
    const at = this.clock.now() + ms;
    if (this.wakeTimer !== undefined && this.wakeAt <= at) return;
    this.clearWake();
    this.wakeAt = at;
    this.wakeTimer = this.clock.setTimeout(
      () => {
        this.wakeTimer = undefined;
        this.wakeAt = Infinity;
        if (this.pauseCause) {
          // The pause ends on time even when nothing waits, so every status under a node can say so.
          const remaining = this.pausedUntilMs - this.clock.now();
          if (remaining <= 0) this.endPause();
          else this.wakeAfter(remaining);
        }
        this.pump();
      },
      Math.max(0, Math.ceil(ms)),
    );
  }

  private clearWake(): void {
    if (this.wakeTimer !== undefined) this.clock.clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    this.wakeAt = Infinity;
  }

  private start(job: Job): void {
    // The call's place in the pacing window is held until its attempt ends: only then is it sure to
    // have reached the server (a new connection or TLS handshake can delay it by hundreds of ms, so
    // counting from the start would let calls sent a window later arrive in the same second).
    const slot = this.windowCalls > 0 ? this.startsHead : -1;
    if (slot >= 0) {
      this.starts[slot] = Infinity;
      this.startsHead = (this.startsHead + 1) % this.windowCalls;
      if (this.startsFilled < this.windowCalls) this.startsFilled++;
    }
    // A shared account's place is held the same way, in every process's count.
    const permit = this.permit;
    this.permit = undefined;
    const arrived = () => {
      if (slot >= 0 && this.starts[slot] === Infinity) this.starts[slot] = this.clock.now();
      permit?.release();
    };
    this.inFlight++;
    job.state = "sending";
    this.live.add(job);
    const { tracker } = job.options;
    if (tracker) {
      tracker.waiting--;
      tracker.sending++;
      tracker.changed?.();
    }
    if (!job.sent) {
      job.sent = true;
      job.options.onSend?.();
    }
    const controller = this.spareControllers.pop() ?? new AbortController();
    job.controller = controller;
    const timer = this.clock.setTimeout(() => controller.abort(ATTEMPT_TIMED_OUT), this.settings.timeoutMs);
    job.attemptTimer = timer;
    let attempt: Promise<unknown>;
    try {
      attempt = job.attempt(controller.signal);
    } catch (error) {
      attempt = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    attempt.then(
      (value) => {
        this.clock.clearTimeout(timer);
        arrived();
        this.spare(controller);
        if (job.state !== "sending") return this.pump();
        this.leaveWire(job);
        this.settle(job, undefined, value);
        this.pump();
      },
      (error: unknown) => {
        this.clock.clearTimeout(timer);
        arrived();
        if (job.state !== "sending") return this.pump();
        this.leaveWire(job);
        this.failed(job, error);
        this.pump();
      },
    );
  }

  /**
   * Keeps the controller of an attempt that answered, unaborted, for the next
   * attempt: a fresh AbortSignal with a listener costs more than the rest of
   * the engine's work per call, and an answered attempt left none on it (the
   * HTTP client removes its own when the exchange ends).
   */
  private spare(controller: AbortController): void {
    if (!controller.signal.aborted && this.spareControllers.length < this.settings.connections) this.spareControllers.push(controller);
  }

  private leaveWire(job: Job): void {
    this.inFlight--;
    job.controller = undefined;
    const { tracker } = job.options;
    if (tracker) tracker.sending--;
  }

  /** An attempt failed: retry it, pause the account, or end the call. */
  private failed(job: Job, error: unknown): void {
    if (!(error instanceof RobotApiError) && !(error instanceof ResendRequest)) return this.settle(job, error);
    if (error instanceof RobotApiError && error.isRateLimited) {
      const waitMs = error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : this.backoffMs(job.retries);
      this.gate?.pause(waitMs);
      this.pause(waitMs, error);
      // A pause listener may have closed the engine, which already ended this call.
      if (job.state === "settled") return;
      if (waitMs > this.settings.maxRetryWaitMs || job.retries >= this.settings.maxRetries) return this.settle(job, error);
    }
    // A call going back to wait would be held by a pause longer than maxRetryWait: it fails now, like those waiting.
    const held = this.pauseTooLong(job.options.operation);
    if (held) return this.settle(job, held);
    if (error instanceof ResendRequest) return this.requeue(job);
    if (error.isRateLimited) {
      job.retries++;
      return this.requeue(job);
    }
    const canRetry = job.retries < this.settings.maxRetries;
    const notSent = error.kind === "network" && error.connectFailed;
    const readReset = error.kind === "network" && error.connectionReset && job.options.read === true;
    if ((notSent || readReset) && canRetry) {
      const delay = this.backoffMs(job.retries);
      job.retries++;
      return this.backOff(job, delay);
    }
    this.settle(job, error);
  }

  /** Back into the queue ahead of every class but the stop commands (it waited its turn once already), counted as waiting again. */
  private requeue(job: Job): void {
    job.state = "queued";
    this.live.delete(job);
    this.queues.add(job, true);
    const { tracker } = job.options;
    if (tracker) {
      tracker.waiting++;
      tracker.changed?.();
    }
  }

  private backOff(job: Job, delayMs: number): void {
    job.state = "backoff";
    this.backingOff++;
    const { tracker } = job.options;
    if (tracker) {
      tracker.waiting++;
      tracker.changed?.();
    }
    job.timer = this.clock.setTimeout(() => {
      job.timer = undefined;
      if (job.state !== "backoff") return;
      const held = this.pauseTooLong(job.options.operation);
      if (held) return this.settle(job, held);
      this.backingOff--;
      if (tracker) tracker.waiting--;
      this.requeue(job);
      this.pump();
    }, delayMs);
  }

  private backoffMs(retries: number): number {
    const { baseDelayMs, maxDelayMs } = this.settings;
    const exponential = Math.min(baseDelayMs * 2 ** retries, maxDelayMs);
    // Half fixed, half random: callers that failed together do not come back together.
    return exponential / 2 + (Math.random() * exponential) / 2;
  }

  // ------------------------------------------------------------ the account's pause

  private pause(waitMs: number, cause: RobotApiError): void {
    const until = this.clock.now() + waitMs;
    const starting = !this.pauseCause;
    if (until > this.pausedUntilMs) {
      this.pausedUntilMs = until;
      this.pauseCause = cause;
    }
    if (waitMs > this.settings.maxRetryWaitMs) {
      // Waiting that long would hold every call: they fail now, each saying how long the cloud asked for.
      for (const queue of this.queues.all()) {
        for (let job = queue.head; job;) {
          const next = job.next;
          this.settle(job, this.pauseTooLong(job.options.operation)!);
          job = next;
        }
      }
      for (const job of this.live) if (job.state === "backoff") this.settle(job, this.pauseTooLong(job.options.operation)!);
    }
    if (starting && this.pauseCause) for (const listener of this.pauseListeners) listener();
    this.wakeAfter(this.pausedUntilMs - this.clock.now());
  }

  private endPause(): void {
    this.pauseCause = undefined;
    for (const listener of this.pauseListeners) listener();
  }

  /** The error for a call that would wait longer than maxRetryWait for the account's pause, if it would. */
  private pauseTooLong(operation: string | undefined): RobotApiError | undefined {
    const cause = this.pauseCause;
    const remainingMs = this.pausedForMs();
    if (!cause || remainingMs <= this.settings.maxRetryWaitMs) return undefined;
    const seconds = Math.ceil(remainingMs / 1000);
    return new RobotApiError({
      kind: cause.kind,
      operation,
      status: cause.status,
      apiCode: cause.apiCode,
      retryAfterSeconds: seconds,
      message:
        `${operation ?? "call"}: not sent: the cloud asked this account to wait ${seconds} s, ` +
        `longer than maxRetryWait (${this.settings.maxRetryWaitMs / 1000} s)`,
    });
  }

  // ------------------------------------------------------------ leaving

  /** Takes a call out while it still waits; true when it did. */
  private withdraw(job: Job): boolean {
    if (job.state !== "queued" && job.state !== "backoff") return false;
    this.settle(job, abortedError(job.options.operation, "withdrawn before it was sent"));
    return true;
  }

  /** Ends a call once, from whatever state it is in; `error` undefined means success with `value`. */
  private settle(job: Job, error: unknown, value?: unknown): void {
    const { tracker, signal } = job.options;
    switch (job.state) {
      case "settled":
        return;
      case "queued":
        job.queue?.remove(job);
        if (tracker) tracker.waiting--;
        break;
      case "backoff":
        this.clock.clearTimeout(job.timer);
        this.backingOff--;
        if (tracker) tracker.waiting--;
        break;
      case "sending":
        // Still on the wire (abort or close): stop it; its late answer is ignored.
        this.clock.clearTimeout(job.attemptTimer);
        if (job.controller) {
          job.controller.abort();
          this.leaveWire(job);
        }
        break;
    }
    job.state = "settled";
    this.live.delete(job);
    if (signal) this.aborts.delete(signal, job);
    tracker?.changed?.();
    if (error === undefined) job.resolve(value);
    else job.reject(error);
  }
}

/** Why calls wait when another process sharing the account was told to slow down (a 429 seen there). */
function sharedPauseCause(ms: number): RobotApiError {
  const seconds = Math.ceil(ms / 1000);
  return new RobotApiError({
    kind: "http",
    status: 429,
    apiCode: 8,
    retryAfterSeconds: seconds,
    message: `the cloud asked this account to wait ${seconds} s (seen by another Node-RED instance sharing it)`,
  });
}
