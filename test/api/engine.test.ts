/**
 * RequestEngine's policy, followed on a fake clock with attempts the test ends
 * by hand: no sockets, so counts, order and (fake) times are exact. Every
 * attempt records when it started and ended and the signal it was given.
 */
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { RequestEngine } from "../../src/api/engine/engine";
import {
  ATTEMPT_TIMED_OUT,
  ResendRequest,
  type Attempt,
  type CallTracker,
  type EngineCallOptions,
  type EngineSettings,
} from "../../src/api/settings/call-settings";
import { RobotApiError, abortedError } from "../../src/api/errors";
import { FakeClock, drained } from "../support/fake-clock";
import { between, pick, seeded, type Rng } from "../support/seeded";

// ------------------------------------------------------------------ attempts the test controls

interface Started {
  readonly label: string;
  /** Place in the order of all starts. */
  readonly index: number;
  readonly at: number;
  readonly signal: AbortSignal;
  /** Fake time the attempt's promise settled; undefined while it runs. */
  endedAt: number | undefined;
  resolve(value?: unknown): void;
  reject(error: Error): void;
}

class Attempts {
  readonly started: Started[] = [];
  running = 0;
  mostRunning = 0;

  constructor(private readonly clock: FakeClock) {}

  /**
   * An attempt that runs until the test ends it. With `rejectOnAbort` it behaves like an HTTP
   * request: an abort of its signal rejects it at once (a timeout error for ATTEMPT_TIMED_OUT).
   */
  manual(label: string, options: { rejectOnAbort?: boolean; thenEach?: (attempt: Started) => void } = {}): Attempt<unknown> {
    return (signal) =>
      new Promise<unknown>((resolve, reject) => {
        let ended = false;
        const end = () => {
          if (ended) return false;
          ended = true;
          record.endedAt = this.clock.now();
          this.running--;
          // As an HTTP exchange does: the engine hands an answered attempt's signal to the next attempt.
          signal.removeEventListener("abort", onAbort);
          return true;
        };
        const onAbort = () =>
          record.reject(
            signal.reason === ATTEMPT_TIMED_OUT
              ? new RobotApiError({ kind: "timeout", operation: label, message: `${label}: timed out` })
              : abortedError(label),
          );
        const record: Started = {
          label,
          index: this.started.length,
          at: this.clock.now(),
          signal,
          endedAt: undefined,
          resolve: (value = label) => {
            if (end()) resolve(value);
          },
          reject: (error: Error) => {
            if (end()) reject(error);
          },
        };
        this.started.push(record);
        this.running++;
        this.mostRunning = Math.max(this.mostRunning, this.running);
        if (options.rejectOnAbort) signal.addEventListener("abort", onAbort);
        options.thenEach?.(record);
      });
  }

  /** An attempt that answers `value` as soon as it starts (a server that answers at once). */
  instant(label: string, value: unknown = label): Attempt<unknown> {
    return this.manual(label, { thenEach: (attempt) => attempt.resolve(value) });
  }

  get labels(): string[] {
    return this.started.map((attempt) => attempt.label);
  }

  /** The latest start of `label`. */
  of(label: string): Started {
    const found = this.started.findLast((attempt) => attempt.label === label);
    assert.ok(found, `${label} never started`);
    return found;
  }

  count(label: string): number {
    return this.started.filter((attempt) => attempt.label === label).length;
  }
}

// ------------------------------------------------------------------ how calls end

interface Outcome {
  settled: boolean;
  value?: unknown;
  error?: unknown;
}

function outcome(promise: Promise<unknown>): Outcome {
  const result: Outcome = { settled: false };
  promise.then(
    (value) => Object.assign(result, { settled: true, value }),
    (error: unknown) => Object.assign(result, { settled: true, error }),
  );
  return result;
}

/** The RobotApiError a call ended with (fails the test when it has not failed, or with something else). */
function failure(call: Outcome, what = "the call"): RobotApiError {
  assert.ok(call.settled, `${what} has not ended`);
  assert.ok(
    call.error instanceof RobotApiError,
    `${what} ended with ${call.error instanceof Error ? call.error.message : JSON.stringify(call.value)}`,
  );
  return call.error;
}

// ------------------------------------------------------------------ trackers (one per node)

interface Tracker extends CallTracker {
  changes: number;
}

function tracker(): Tracker {
  const tracked: Tracker = {
    waiting: 0,
    sending: 0,
    changes: 0,
    changed: () => {
      tracked.changes++;
      assert.ok(tracked.waiting >= 0 && tracked.sending >= 0, `tracker went negative: ${JSON.stringify(tracked)}`);
    },
  };
  return tracked;
}

const counts = (t: CallTracker) => ({ waiting: t.waiting, sending: t.sending });

// ------------------------------------------------------------------ errors an attempt may end with

const rateLimited = (retryAfterSeconds?: number, apiCode?: number) =>
  new RobotApiError({ kind: "http", status: 429, apiCode, retryAfterSeconds, message: "HTTP 429: too many requests" });
const connectFailed = () => new RobotApiError({ kind: "network", message: "connect ECONNREFUSED", connectFailed: true });
const connectionReset = () => new RobotApiError({ kind: "network", message: "socket hang up", connectionReset: true });
const serverError = () => new RobotApiError({ kind: "http", status: 500, message: "HTTP 500" });
const resend = () => new ResendRequest(new RobotApiError({ kind: "http", status: 401, message: "HTTP 401" }));

// ------------------------------------------------------------------ set-up

function setUp(settings: Partial<EngineSettings> = {}) {
  const clock = new FakeClock();
  const engine = new RequestEngine({ rateLimit: 0, baseDelayMs: 100, maxDelayMs: 1000, ...settings }, clock);
  const attempts = new Attempts(clock);
  /** Runs a call whose attempt the test ends by hand (or `attempt`), named `label`. */
  const call = (label: string, options: EngineCallOptions = {}, attempt: Attempt<unknown> = attempts.manual(label)) =>
    outcome(engine.run(attempt, { operation: label, ...options }));
  return { clock, engine, attempts, call };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Starts in any half-open window [start, start + windowMs) beginning at a start: the most found. */
function mostStartsInAnyWindow(starts: readonly number[], windowMs: number): { most: number; from: number } {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  let from = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && sorted[j]! < sorted[i]! + windowMs) j++;
    if (j - i > most) {
      most = j - i;
      from = sorted[i]!;
    }
  }
  return { most, from };
}

describe("api: RequestEngine policy (fake clock, attempts ended by hand)", function () {
  describe("connections", function () {
    it("never runs more than `connections` attempts; the (N+1)th starts the moment one ends, in call order", async function () {
      const { engine, attempts, call } = setUp({ connections: 4 });
      const rng = seeded(9);
      const node = tracker();
      const calls = range(40).map((i) => call(`c${i}`, { tracker: node }));
      await drained();
      assert.deepEqual(attempts.labels, ["c0", "c1", "c2", "c3"]);
      assert.deepEqual({ sending: engine.sending, waiting: engine.waiting }, { sending: 4, waiting: 36 });
      assert.deepEqual(counts(node), { waiting: 36, sending: 4 });
      for (let ended = 1; ended <= 40; ended++) {
        const runningNow = attempts.started.filter((attempt) => attempt.endedAt === undefined);
        const victim = pick(rng, runningNow);
        if (rng() < 0.5) victim.resolve();
        else victim.reject(serverError());
        await drained();
        const expectedRunning = Math.min(4, 40 - ended);
        assert.equal(attempts.running, expectedRunning, `after ${ended} ended`);
        assert.equal(engine.sending, expectedRunning);
        assert.equal(engine.waiting, Math.max(0, 40 - ended - 4));
        assert.deepEqual(counts(node), { waiting: engine.waiting, sending: engine.sending });
        // The next call in order took the freed connection, at once.
        assert.equal(attempts.started.length, Math.min(40, 4 + ended));
      }
      assert.equal(attempts.mostRunning, 4);
      assert.deepEqual(
        attempts.labels,
        range(40).map((i) => `c${i}`),
      );
      assert.ok(calls.every((c) => c.settled));
      assert.equal(calls.filter((c) => c.error !== undefined).length + calls.filter((c) => c.value !== undefined).length, 40);
    });

    it("an attempt that throws instead of returning a promise ends its call and frees its connection", async function () {
      const { attempts, call } = setUp({ connections: 1 });
      const thrown = new Error("bad attempt");
      const broken = call("broken", {}, () => {
        throw thrown;
      });
      const next = call("next");
      await drained();
      assert.equal(broken.error, thrown);
      assert.deepEqual(attempts.labels, ["next"]);
      attempts.of("next").resolve("ok");
      await drained();
      assert.equal(next.value, "ok");
    });
  });

  describe("pacing", function () {
    it("rateLimit 20: 200 instant calls never start more than 20 in any 1000 ms window, and all are done by 10.5 s", async function () {
      const { clock, attempts, call } = setUp({ rateLimit: 20, connections: 16 });
      const calls = range(200).map((i) => call(`c${i}`, {}, attempts.instant(`c${i}`)));
      await clock.advance(10_500);
      assert.equal(attempts.started.length, 200);
      assert.ok(
        calls.every((c) => c.settled && c.error === undefined),
        "every call answered by 10.5 s of fake time",
      );
      const starts = attempts.started.map((attempt) => attempt.at);
      for (const from of starts) {
        const inWindow = starts.filter((at) => at >= from && at < from + 1000).length;
        assert.ok(inWindow <= 20, `${inWindow} starts in [${from}, ${from + 1000}) ms`);
      }
      assert.equal(starts.filter((at) => at === 0).length, 20, "the first 20 go at once");
      assert.ok(Math.max(...starts) <= 10_500, `the last call started at ${Math.max(...starts)} ms`);
    });

    it("rateLimit 10 with attempts of 0-400 ms: any 11 calls are more than a second apart even where the server sees them", async function () {
      const { clock, attempts, call } = setUp({ rateLimit: 10, connections: 8 });
      const rng = seeded(20);
      const durations = range(120).map(() => between(rng, 0, 400));
      const calls = range(120).map((i) =>
        call(
          `c${i}`,
          {},
          attempts.manual(`c${i}`, { thenEach: (attempt) => void clock.setTimeout(() => attempt.resolve(), durations[i]!) }),
        ),
      );
      await clock.advance(30_000);
      assert.ok(calls.every((c) => c.settled && c.error === undefined));
      const started = attempts.started;
      assert.equal(started.length, 120);
      // A request reaches the server somewhere between its start and its end: the 11th call after
      // one must start a second after that one ended, or the server could count 11 in one second.
      for (let k = 0; k + 10 < started.length; k++) {
        const first = started[k]!;
        const eleventh = started[k + 10]!;
        assert.ok(
          eleventh.at >= first.endedAt! + 1000,
          `${eleventh.label} started at ${eleventh.at} ms, ${first.label} ended at ${first.endedAt} ms`,
        );
      }
      const { most, from } = mostStartsInAnyWindow(
        started.map((attempt) => attempt.at),
        1000,
      );
      assert.ok(most <= 10, `${most} starts in the second from ${from} ms`);
    });

    it("rateLimit 0: no pacing, 200 instant calls all start at time 0 and no timer is set", async function () {
      const { clock, attempts, call } = setUp({ rateLimit: 0, connections: 16 });
      const calls = range(200).map((i) => call(`c${i}`, {}, attempts.instant(`c${i}`)));
      await drained();
      assert.equal(attempts.started.length, 200);
      assert.ok(attempts.started.every((attempt) => attempt.at === 0));
      assert.ok(calls.every((c) => c.settled && c.error === undefined));
      assert.equal(clock.pending, 0);
    });

    it("rateLimit 0.5: one start per 2 s, and no slower", async function () {
      const { clock, attempts, call } = setUp({ rateLimit: 0.5, connections: 4 });
      const calls = range(4).map((i) => call(`c${i}`, {}, attempts.instant(`c${i}`)));
      await clock.advance(1999);
      assert.deepEqual(attempts.labels, ["c0"]);
      await clock.advance(6500 - 1999);
      assert.ok(
        calls.every((c) => c.settled),
        "4 calls at 0.5/s are done by 6.5 s",
      );
      const starts = attempts.started.map((attempt) => attempt.at);
      for (let i = 1; i < starts.length; i++) assert.ok(starts[i]! - starts[i - 1]! >= 2000, `starts at ${starts.join(", ")} ms`);
      assert.equal(mostStartsInAnyWindow(starts, 2000).most, 1);
    });

    it("rateLimit 2.5: never 3 starts in one second", async function () {
      const { clock, attempts, call } = setUp({ rateLimit: 2.5, connections: 4 });
      range(20).map((i) => call(`c${i}`, {}, attempts.instant(`c${i}`)));
      await clock.advance(15_000);
      assert.equal(attempts.started.length, 20);
      const { most, from } = mostStartsInAnyWindow(
        attempts.started.map((attempt) => attempt.at),
        1000,
      );
      assert.ok(most <= 2, `${most} starts in the second from ${from} ms`);
    });
  });

  describe("queueLimit", function () {
    it("a call beyond queueLimit rejects at once with QUEUE_FULL; its attempt, onQueued and onSend never run", async function () {
      const { engine, attempts, call } = setUp({ connections: 2, queueLimit: 3 });
      const node = tracker();
      const hooks: string[] = [];
      const options = (label: string): EngineCallOptions => ({
        tracker: node,
        onQueued: () => hooks.push(`queued ${label}`),
        onSend: () => hooks.push(`sent ${label}`),
      });
      const calls = range(7).map((i) => call(`c${i}`, options(`c${i}`)));
      await drained();
      for (const i of [5, 6]) {
        const error = failure(calls[i]!, `c${i}`);
        assert.equal(error.code, "QUEUE_FULL");
        assert.equal(error.kind, "queue_full");
        assert.equal(error.operation, `c${i}`);
        assert.match(error.message, /queueLimit/);
      }
      assert.ok(
        calls.slice(0, 5).every((c) => !c.settled),
        "the first two run, three wait",
      );
      assert.deepEqual(attempts.labels, ["c0", "c1"]);
      assert.ok(!hooks.some((hook) => hook.endsWith("c5") || hook.endsWith("c6")), hooks.join(", "));
      assert.deepEqual(counts(node), { waiting: 3, sending: 2 });
      assert.equal(engine.waiting, 3);
      // One leaves the queue: one more may wait.
      attempts.of("c0").resolve();
      await drained();
      const accepted = call("c7", { tracker: node });
      const refused = call("c8", { tracker: node });
      await drained();
      assert.equal(accepted.settled, false);
      assert.equal(failure(refused).code, "QUEUE_FULL");
      assert.equal(attempts.count("c8"), 0);
    });

    it("calls backing off count as waiting; a call that can start at once is not held against the limit", async function () {
      const { attempts, call } = setUp({ connections: 2, queueLimit: 1, maxRetries: 3 });
      call("a");
      call("b");
      const c = call("c");
      await drained();
      assert.deepEqual(attempts.labels, ["a", "b"], "a and b start though queueLimit is 1");
      assert.equal(c.settled, false);
      attempts.of("a").reject(connectFailed());
      await drained();
      // a backs off; c took its connection.
      assert.deepEqual(attempts.labels, ["a", "b", "c"]);
      const d = call("d");
      await drained();
      assert.equal(failure(d).code, "QUEUE_FULL", "a, backing off, fills the queue");
    });

    it("urgent calls are exempt: accepted with the queue full, and they go first", async function () {
      const { attempts, call } = setUp({ connections: 1, queueLimit: 2 });
      range(3).map((i) => call(`n${i}`));
      const stops = range(3).map((i) => call(`stop${i}`, { urgent: true }));
      const refused = call("n3");
      await drained();
      assert.ok(stops.every((stop) => !stop.settled));
      assert.equal(failure(refused).code, "QUEUE_FULL");
      for (let i = 0; i < 5; i++) {
        attempts.started.at(-1)!.resolve();
        await drained();
      }
      assert.deepEqual(attempts.labels, ["n0", "stop0", "stop1", "stop2", "n1", "n2"]);
    });
  });

  describe("urgent calls", function () {
    it("an urgent call made after 500 queued calls is the next to start", async function () {
      const { attempts, call } = setUp({ connections: 2 });
      range(502).map((i) => call(`read${i}`));
      const stop = call("stop", { urgent: true });
      await drained();
      assert.deepEqual(attempts.labels, ["read0", "read1"]);
      attempts.of("read1").resolve();
      await drained();
      assert.deepEqual(attempts.labels, ["read0", "read1", "stop"]);
      attempts.of("read0").resolve();
      await drained();
      assert.deepEqual(attempts.labels, ["read0", "read1", "stop", "read2"], "then the queue, in order");
      attempts.of("stop").resolve("stopped");
      await drained();
      assert.equal(stop.value, "stopped");
    });

    it("urgent calls keep their own order, and take the first start the pacing allows", async function () {
      const { clock, attempts, call } = setUp({ connections: 10, rateLimit: 2 });
      range(6).map((i) => call(`n${i}`, {}, attempts.instant(`n${i}`)));
      await clock.advance(500);
      assert.deepEqual(attempts.labels, ["n0", "n1"]);
      call("stop1", { urgent: true }, attempts.instant("stop1"));
      call("stop2", { urgent: true }, attempts.instant("stop2"));
      await clock.advance(2000);
      assert.deepEqual(attempts.labels.slice(0, 5), ["n0", "n1", "stop1", "stop2", "n2"]);
    });
  });

  describe("a rate-limit answer pauses the account", function () {
    it("429 with Retry-After 2: nothing starts for 2 s, the refused call is first after, pausedForMs counts down", async function () {
      const { clock, engine, attempts, call } = setUp({ connections: 3 });
      const a = call("a");
      call("b");
      call("c");
      call("d");
      call("e");
      await clock.advance(100);
      attempts.of("a").reject(rateLimited(2));
      await drained();
      assert.equal(engine.pausedForMs(), 2000);
      assert.equal(a.settled, false, "the refused call waits to be sent again");
      // Connections free up during the pause: still nothing starts, an urgent call neither.
      attempts.of("b").resolve();
      call("stop", { urgent: true });
      await clock.advance(1000);
      assert.equal(engine.pausedForMs(), 1000);
      attempts.of("c").resolve();
      await clock.advance(999);
      assert.equal(engine.pausedForMs(), 1);
      assert.deepEqual(attempts.labels, ["a", "b", "c"], "nothing starts during the pause");
      await clock.advance(1);
      assert.equal(engine.pausedForMs(), 0);
      // The urgent call goes ahead of every waiting call; of those, the refused one is first.
      assert.deepEqual(attempts.labels.slice(3), ["stop", "a", "d"]);
      assert.ok(attempts.started.slice(3).every((attempt) => attempt.at === 2100));
      attempts.of("a").resolve("second try");
      await drained();
      assert.equal(a.value, "second try");
    });

    it("the refused call is the first to start after the pause", async function () {
      const { clock, attempts, call } = setUp({ connections: 1 });
      call("a");
      range(5).map((i) => call(`q${i}`));
      await drained();
      attempts.of("a").reject(rateLimited(2));
      await clock.advance(2000);
      assert.deepEqual(attempts.labels, ["a", "a"]);
    });

    it("pause listeners hear the start and the end, also when nothing waits at the end", async function () {
      const { clock, engine, attempts, call } = setUp({ connections: 1, maxRetries: 0 });
      const heard: Array<{ at: number; pausedForMs: number }> = [];
      engine.onPauseChange(() => heard.push({ at: clock.now(), pausedForMs: engine.pausedForMs() }));
      const a = call("a");
      await clock.advance(300);
      attempts.of("a").reject(rateLimited(2));
      await drained();
      // maxRetries 0: the call fails, and nothing is left waiting.
      assert.equal(failure(a).status, 429);
      assert.equal(engine.waiting + engine.sending, 0);
      assert.deepEqual(heard, [{ at: 300, pausedForMs: 2000 }]);
      await clock.advance(5000);
      assert.deepEqual(heard, [
        { at: 300, pausedForMs: 2000 },
        { at: 2300, pausedForMs: 0 },
      ]);
      assert.equal(clock.pending, 0, "no timer left once the pause ended");
    });

    it("a second 429 during the pause extends it without another start; an unsubscribed listener hears nothing", async function () {
      const { clock, engine, attempts, call } = setUp({ connections: 2 });
      const heard: number[] = [];
      const gone: number[] = [];
      engine.onPauseChange(() => heard.push(clock.now()));
      const unsubscribe = engine.onPauseChange(() => gone.push(clock.now()));
      unsubscribe();
      call("a");
      call("b");
      await drained();
      attempts.of("a").reject(rateLimited(2));
      await clock.advance(1000);
      attempts.of("b").reject(rateLimited(3));
      await drained();
      assert.equal(engine.pausedForMs(), 3000);
      await clock.advance(2999);
      assert.deepEqual(attempts.labels, ["a", "b"], "held until 4 s");
      await clock.advance(1);
      assert.deepEqual(attempts.labels.slice(2).sort(), ["a", "b"]);
      assert.deepEqual(heard, [0, 4000]);
      assert.deepEqual(gone, []);
    });

    it("envelope code 8 pauses too; without Retry-After the pause is the backoff", async function () {
      const { clock, engine, attempts, call } = setUp({ connections: 2, baseDelayMs: 400 });
      call("a");
      call("b");
      await drained();
      attempts.of("a").reject(new RobotApiError({ kind: "envelope", apiCode: 8, message: "RESOURCE_EXHAUSTED" }));
      await drained();
      const paused = engine.pausedForMs();
      assert.ok(paused >= 200 && paused <= 400, `paused for ${paused} ms (backoff of 400 ms, half of it random)`);
      attempts.of("b").resolve();
      await clock.advanceTo(Math.floor(paused) - 1);
      assert.equal(attempts.started.length, 2);
      await clock.advanceTo(Math.ceil(paused));
      assert.deepEqual(attempts.labels, ["a", "b", "a"]);
    });

    it("maxRetries counts per call: refused maxRetries+1 times, the call rejects with the 429; other calls keep their own count", async function () {
      const { clock, attempts, call } = setUp({ connections: 2, maxRetries: 2 });
      const a = call("a");
      const b = call("b");
      // a and b are both refused twice: a shared count would fail one of them.
      for (let round = 0; round < 2; round++) {
        await drained();
        for (const label of ["a", "b"]) attempts.of(label).reject(rateLimited(1));
        await clock.advance(1000);
      }
      assert.equal(attempts.count("a"), 3);
      assert.equal(attempts.count("b"), 3);
      attempts.of("b").resolve("third time");
      const third = rateLimited(1);
      attempts.of("a").reject(third);
      await clock.advance(5000);
      assert.equal(b.value, "third time");
      assert.equal(failure(a), third, "the last 429 itself");
      assert.equal(attempts.count("a"), 3, "never a fourth time");
    });
  });

  describe("a Retry-After longer than maxRetryWait", function () {
    it("fails the refused call and every queued one at once; a call made during the pause too; after it, calls go again", async function () {
      const { clock, engine, attempts, call } = setUp({ connections: 1, maxRetryWaitMs: 60_000 });
      const node = tracker();
      const heard: number[] = [];
      engine.onPauseChange(() => heard.push(clock.now()));
      const refused = call("a", { tracker: node });
      const queued = range(3).map((i) => call(`q${i}`, { tracker: node }));
      const stop = call("stop", { urgent: true, tracker: node });
      await clock.advance(250);
      const hour = rateLimited(3600, 8);
      attempts.of("a").reject(hour);
      await drained();
      assert.equal(failure(refused), hour);
      assert.equal(failure(refused).retryAfterSeconds, 3600);
      for (const [i, each] of [...queued, stop].entries()) {
        const error = failure(each, `queued call ${i}`);
        assert.equal(error.retryAfterSeconds, 3600);
        assert.equal(error.status, 429);
        assert.equal(error.apiCode, 8);
        assert.equal(error.code, "RESOURCE_EXHAUSTED");
        assert.match(error.message, /maxRetryWait/);
      }
      assert.deepEqual(counts(node), { waiting: 0, sending: 0 });
      assert.equal(engine.waiting, 0);
      assert.deepEqual(heard, [250]);

      await clock.advance(10_400);
      const during = call("during");
      const urgentDuring = call("urgent-during", { urgent: true });
      await drained();
      for (const each of [during, urgentDuring]) {
        const seconds = failure(each).retryAfterSeconds!;
        assert.ok(seconds >= 3589 && seconds <= 3590, `retryAfterSeconds ${seconds}, about 3590 s remained`);
      }
      assert.deepEqual(attempts.labels, ["a"], "nothing was sent");

      // Once no more than maxRetryWait remains, a call waits out the rest instead of failing.
      await clock.advanceTo(250 + 3_600_000 - 30_000);
      const near = call("near");
      await clock.advance(29_999);
      assert.equal(near.settled, false);
      assert.deepEqual(attempts.labels, ["a"]);
      await clock.advance(1);
      assert.deepEqual(attempts.labels, ["a", "near"]);
      assert.deepEqual(heard, [250, 3_600_250]);
      const after = call("after");
      await drained();
      attempts.of("near").resolve();
      await drained();
      assert.deepEqual(attempts.labels, ["a", "near", "after"], "calls go again");
      assert.equal(after.settled, false);
    });

    it("a call backing off when such a pause starts fails too, instead of waiting the hour out", async function () {
      const { clock, engine, attempts, call } = setUp({ connections: 2, maxRetryWaitMs: 60_000, maxRetries: 3 });
      const backingOff = call("x");
      call("y");
      await drained();
      attempts.of("x").reject(connectFailed());
      await drained();
      attempts.of("y").reject(rateLimited(3600));
      // x's backoff (at most 100 ms) ends well inside the hour.
      await clock.advance(1000);
      assert.ok(backingOff.settled, `x still waits (engine.waiting ${engine.waiting}): it would be held for the rest of the hour`);
      assert.equal(failure(backingOff).status, 429);
      assert.ok(failure(backingOff).retryAfterSeconds! >= 3598);
      assert.equal(attempts.count("x"), 1);
    });

    it("a call on the wire when such a pause starts, then answered with a resend or a short Retry-After, fails at once", async function () {
      const { engine, attempts, call } = setUp({ connections: 3, maxRetryWaitMs: 60_000, maxRetries: 3 });
      call("a");
      const renewed = call("b");
      const shortWait = call("c");
      await drained();
      attempts.of("a").reject(rateLimited(3600));
      await drained();
      attempts.of("b").reject(resend());
      attempts.of("c").reject(rateLimited(2));
      await drained();
      assert.ok(renewed.settled && shortWait.settled, `still held for the hour: engine.waiting ${engine.waiting}`);
      assert.ok(failure(renewed).retryAfterSeconds! >= 3599);
      assert.ok(failure(shortWait).retryAfterSeconds! >= 2);
    });
  });

  describe("retries after network errors", function () {
    it("a failed connect is sent again after a backoff (base/2 to base, doubling), counted in maxRetries", async function () {
      const { clock, attempts, call } = setUp({ connections: 1, maxRetries: 2, baseDelayMs: 100, maxDelayMs: 1000 });
      const node = tracker();
      const c = call("c", { tracker: node });
      await drained();
      attempts.of("c").reject(connectFailed());
      await clock.advance(49);
      assert.equal(attempts.count("c"), 1, "not before half the first backoff");
      assert.deepEqual(counts(node), { waiting: 1, sending: 0 });
      await clock.advance(51);
      assert.equal(attempts.count("c"), 2, "by the first backoff");
      const secondFailed = clock.now();
      attempts.of("c").reject(connectFailed());
      await clock.advance(99);
      assert.equal(attempts.count("c"), 2, "the second backoff is at least 100 ms");
      await clock.advance(101);
      assert.equal(attempts.count("c"), 3);
      const backoff = attempts.of("c").at - secondFailed;
      assert.ok(backoff >= 100 && backoff <= 200, `second backoff ${backoff} ms`);
      const last = connectFailed();
      attempts.of("c").reject(last);
      await clock.advance(5000);
      assert.equal(failure(c), last, "maxRetries 2: three attempts, then the error");
      assert.equal(attempts.count("c"), 3);
      assert.deepEqual(counts(node), { waiting: 0, sending: 0 });
    });

    it("a reset is sent again only for a read; a command (read false or unset) rejects at once", async function () {
      const { clock, attempts, call } = setUp({ connections: 4, maxRetries: 3 });
      const read = call("read", { read: true });
      const command = call("command", { read: false });
      const unset = call("unset");
      await drained();
      const resets = { command: connectionReset(), unset: connectionReset() };
      attempts.of("read").reject(connectionReset());
      attempts.of("command").reject(resets.command);
      attempts.of("unset").reject(resets.unset);
      await drained();
      assert.equal(failure(command), resets.command);
      assert.equal(failure(unset), resets.unset);
      await clock.advance(100);
      assert.equal(attempts.count("read"), 2);
      attempts.of("read").resolve("status");
      await clock.advance(10_000);
      assert.equal(read.value, "status");
      assert.equal(attempts.count("command"), 1);
      assert.equal(attempts.count("unset"), 1);
    });

    it("any other error (HTTP 500, a timeout, another network error, a plain Error) is never retried, even for a read", async function () {
      const { clock, attempts, call } = setUp({ connections: 4, maxRetries: 3 });
      const errors: Record<string, Error> = {
        http500: serverError(),
        timeout: new RobotApiError({ kind: "timeout", message: "no answer" }),
        network: new RobotApiError({ kind: "network", message: "EPROTO" }),
        plain: new TypeError("oops"),
      };
      const calls = Object.keys(errors).map((label) => call(label, { read: true }));
      await drained();
      for (const [label, error] of Object.entries(errors)) attempts.of(label).reject(error);
      await clock.advance(10_000);
      Object.values(errors).forEach((error, i) => assert.equal(calls[i]!.error, error));
      assert.equal(attempts.started.length, 4);
    });

    it("429 answers and failed connects share one maxRetries count", async function () {
      const { clock, attempts, call } = setUp({ connections: 1, maxRetries: 2 });
      const c = call("c");
      await drained();
      attempts.of("c").reject(rateLimited(1));
      await clock.advance(1000);
      attempts.of("c").reject(connectFailed());
      await clock.advance(200);
      assert.equal(attempts.count("c"), 3);
      const last = connectFailed();
      attempts.of("c").reject(last);
      await clock.advance(10_000);
      assert.equal(attempts.count("c"), 3);
      assert.equal(failure(c), last);
    });
  });

  describe("ResendRequest", function () {
    it("sends again at once, ahead of the queue, without using up a retry; onSend is called once", async function () {
      const { clock, attempts, call } = setUp({ connections: 1, maxRetries: 1 });
      const sent: string[] = [];
      const a = call("a", { onSend: () => sent.push("a") });
      call("b");
      await clock.advance(100);
      for (let i = 0; i < 3; i++) {
        attempts.of("a").reject(resend());
        await drained();
      }
      assert.deepEqual(attempts.labels, ["a", "a", "a", "a"], "resent at once, before b");
      assert.ok(attempts.started.slice(1).every((attempt) => attempt.at === 100));
      // The one retry is still there for a 429.
      attempts.of("a").reject(rateLimited(1));
      await clock.advance(1000);
      assert.equal(attempts.count("a"), 5);
      attempts.of("a").resolve("ok");
      await drained();
      assert.equal(a.value, "ok");
      assert.deepEqual(sent, ["a"]);
    });
  });

  describe("timeout", function () {
    it("an attempt that never settles is aborted after timeoutMs with ATTEMPT_TIMED_OUT; its own rejection is the error", async function () {
      const { clock, engine, attempts, call } = setUp({ timeoutMs: 500, maxRetries: 3 });
      const c = call("slow", { read: true });
      await clock.advance(499);
      const { signal } = attempts.of("slow");
      assert.equal(signal.aborted, false);
      await clock.advance(1);
      assert.equal(signal.aborted, true);
      assert.equal(signal.reason, ATTEMPT_TIMED_OUT);
      assert.equal(c.settled, false, "the attempt's own rejection decides");
      assert.equal(engine.sending, 1);
      const timedOut = new RobotApiError({ kind: "timeout", message: "no answer within 0.5 s" });
      attempts.of("slow").reject(timedOut);
      await clock.advance(10_000);
      assert.equal(failure(c), timedOut);
      assert.equal(attempts.count("slow"), 1, "a timeout is not retried");
      assert.equal(engine.sending, 0);
    });

    it("every attempt has its own limit, and an attempt that ended leaves no timer", async function () {
      const { clock, attempts, call } = setUp({ timeoutMs: 500, maxRetries: 3, baseDelayMs: 100 });
      call("c");
      await clock.advance(300);
      attempts.of("c").reject(connectFailed());
      await clock.advance(100);
      const retry = attempts.of("c");
      assert.ok(retry.at >= 350 && retry.at <= 400);
      await clock.advanceTo(retry.at + 499);
      assert.equal(retry.signal.aborted, false, "counted from its own start");
      await clock.advance(1);
      assert.equal(retry.signal.reason, ATTEMPT_TIMED_OUT);
      retry.reject(new RobotApiError({ kind: "timeout", message: "late" }));
      await drained();
      assert.equal(clock.pending, 0);

      const quick = call("quick");
      await drained();
      attempts.of("quick").resolve();
      await drained();
      assert.equal(quick.settled, true);
      assert.equal(clock.pending, 0, "the limit of an answered attempt is cleared");
    });
  });

  describe("abort through options.signal", function () {
    it("while queued: the call rejects at once, leaves the queue, never starts; the tracker returns to 0", async function () {
      const { engine, attempts, call } = setUp({ connections: 1 });
      const node = tracker();
      const controller = new AbortController();
      call("a", { tracker: node });
      const b = call("b", { tracker: node, signal: controller.signal });
      call("c", { tracker: node });
      await drained();
      assert.deepEqual(counts(node), { waiting: 2, sending: 1 });
      controller.abort();
      await drained();
      assert.equal(failure(b).kind, "aborted");
      assert.deepEqual(counts(node), { waiting: 1, sending: 1 });
      assert.equal(engine.waiting, 1);
      attempts.of("a").resolve();
      await drained();
      attempts.of("c").resolve();
      await drained();
      assert.deepEqual(attempts.labels, ["a", "c"]);
      assert.deepEqual(counts(node), { waiting: 0, sending: 0 });
    });

    it("a signal aborted before the call rejects it at once, attempt never called", async function () {
      const { engine, attempts, call } = setUp();
      const node = tracker();
      const c = call("c", { signal: AbortSignal.abort(), tracker: node });
      await drained();
      assert.equal(failure(c).kind, "aborted");
      assert.equal(attempts.started.length, 0);
      assert.deepEqual(counts(node), { waiting: 0, sending: 0 });
      assert.equal(engine.waiting, 0);
    });

    it("while backing off: the call rejects at once and is never sent again; its timer is cleared", async function () {
      const { clock, engine, attempts, call } = setUp({ connections: 1, maxRetries: 3 });
      const node = tracker();
      const controller = new AbortController();
      const c = call("c", { tracker: node, signal: controller.signal });
      await drained();
      attempts.of("c").reject(connectFailed());
      await drained();
      assert.deepEqual(counts(node), { waiting: 1, sending: 0 });
      controller.abort();
      await drained();
      assert.equal(failure(c).kind, "aborted");
      assert.deepEqual(counts(node), { waiting: 0, sending: 0 });
      assert.equal(engine.waiting, 0);
      assert.equal(clock.pending, 0);
      await clock.advance(10_000);
      assert.equal(attempts.count("c"), 1);
    });

    it("while running: the attempt's signal is aborted, the connection is free at once, the late answer is ignored", async function () {
      const { clock, engine, attempts, call } = setUp({ connections: 1 });
      const node = tracker();
      const controller = new AbortController();
      const a = call("a", { tracker: node, signal: controller.signal });
      const b = call("b", { tracker: node });
      await drained();
      const running = attempts.of("a");
      controller.abort();
      await drained();
      assert.equal(running.signal.aborted, true);
      assert.equal(failure(a).kind, "aborted");
      assert.deepEqual(attempts.labels, ["a", "b"], "b took the connection");
      assert.deepEqual(counts(node), { waiting: 0, sending: 1 });
      running.resolve("late");
      await drained();
      assert.equal(a.value, undefined, "the late answer is ignored");
      assert.equal(engine.sending, 1, "counted once");
      assert.deepEqual(counts(node), { waiting: 0, sending: 1 });
      attempts.of("b").resolve();
      await drained();
      assert.equal(b.settled, true);
      assert.deepEqual(counts(node), { waiting: 0, sending: 0 });
      assert.equal(engine.sending, 0);
      assert.equal(clock.pending, 0, "the aborted attempt's limit was cleared");
    });

    it("one signal shared by 10,000 queued calls: one abort listener, all reject, no MaxListenersExceededWarning", async function () {
      const { engine, attempts, call } = setUp({ connections: 2 });
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
      process.on("warning", onWarning);
      try {
        const controller = new AbortController();
        const node = tracker();
        const calls = range(10_000).map((i) => call(`c${i}`, { signal: controller.signal, tracker: node }));
        await drained();
        assert.equal(getEventListeners(controller.signal, "abort").length, 1, "one listener for all 10,000 calls");
        assert.deepEqual(counts(node), { waiting: 9998, sending: 2 });
        controller.abort();
        await drained();
        assert.ok(calls.every((c) => c.error instanceof RobotApiError && c.error.kind === "aborted"));
        assert.equal(attempts.started.length, 2, "no queued call started");
        assert.ok(attempts.started.every((attempt) => attempt.signal.aborted));
        assert.deepEqual(counts(node), { waiting: 0, sending: 0 });
        assert.equal(engine.waiting + engine.sending, 0);
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(warnings, []);
      } finally {
        process.off("warning", onWarning);
      }
    });
  });

  describe("withdraw (from onQueued)", function () {
    it("withdraws a call while it is queued; returns false once the call was sent", async function () {
      const { attempts, call } = setUp({ connections: 1 });
      const node = tracker();
      const withdraws = new Map<string, () => boolean>();
      const sent: string[] = [];
      const options = (label: string): EngineCallOptions => ({
        tracker: node,
        onQueued: (withdraw) => withdraws.set(label, withdraw),
        onSend: () => sent.push(label),
      });
      const calls = Object.fromEntries(["a", "b", "c"].map((label) => [label, call(label, options(label))]));
      await drained();
      assert.deepEqual(sent, ["a"]);
      assert.equal(withdraws.get("a")!(), false, "a was sent");
      assert.equal(withdraws.get("b")!(), true, "b still waited");
      assert.equal(withdraws.get("b")!(), false, "b is already gone");
      await drained();
      assert.equal(failure(calls.b!).kind, "aborted");
      assert.deepEqual(counts(node), { waiting: 1, sending: 1 });
      attempts.of("a").resolve("A");
      await drained();
      assert.deepEqual(sent, ["a", "c"]);
      assert.equal(withdraws.get("c")!(), false, "c was sent");
      attempts.of("c").resolve("C");
      await drained();
      assert.equal(calls.a!.value, "A");
      assert.equal(calls.c!.value, "C");
      assert.equal(withdraws.get("a")!(), false, "a has ended");
      assert.deepEqual(attempts.labels, ["a", "c"]);
      assert.deepEqual(counts(node), { waiting: 0, sending: 0 });
    });
  });

  describe("trackers", function () {
    it("waiting and sending are exact through queue, wire, pause, backoff, resend, abort, withdraw and failure; changed() each time", async function () {
      const { clock, engine, attempts, call } = setUp({ connections: 1, maxRetries: 3 });
      const A = tracker();
      const B = tracker();
      const C = tracker();
      const all = [A, B, C];
      let lastChanges = new Map(all.map((t) => [t, 0]));
      const expect = (step: string, a: [number, number], b: [number, number], c: [number, number] = [0, 0]) => {
        assert.deepEqual(
          all.map((t) => [t.waiting, t.sending]),
          [a, b, c],
          step,
        );
        assert.equal(engine.waiting, A.waiting + B.waiting + C.waiting, `${step}: engine.waiting`);
        assert.equal(engine.sending, A.sending + B.sending + C.sending, `${step}: engine.sending`);
        assert.equal(engine.sending, attempts.running, `${step}: attempts running`);
      };
      /** The trackers whose counts moved were told. */
      const told = (step: string, ...which: Tracker[]) => {
        for (const t of which) assert.ok(t.changes > lastChanges.get(t)!, `${step}: changed() not called`);
        lastChanges = new Map(all.map((t) => [t, t.changes]));
      };

      const a = call("a", { tracker: A });
      await drained();
      expect("a starts", [0, 1], [0, 0]);
      told("a starts", A);
      const b = call("b", { tracker: B });
      await drained();
      expect("b queued", [0, 1], [1, 0]);
      told("b queued", B);
      attempts.of("a").reject(rateLimited(1));
      await drained();
      expect("a refused, paused", [1, 0], [1, 0]);
      told("a refused", A);
      await clock.advance(1000);
      expect("pause over, a again", [0, 1], [1, 0]);
      told("a again", A);
      attempts.of("a").reject(connectFailed());
      await drained();
      expect("a backs off, b sent", [1, 0], [0, 1]);
      told("a backs off, b sent", A, B);
      attempts.of("b").reject(resend());
      await drained();
      expect("b resent", [1, 0], [0, 1]);
      told("b resent", B);
      // a's second retry: a backoff of 100-200 ms.
      await clock.advance(200);
      expect("a's backoff over, queued behind b", [1, 0], [0, 1]);
      attempts.of("b").resolve();
      await drained();
      expect("b answered, a sent", [0, 1], [0, 0]);
      told("b answered, a sent", A, B);
      attempts.of("a").resolve();
      await drained();
      expect("a answered", [0, 0], [0, 0]);
      told("a answered", A);
      assert.ok(a.settled && b.settled);

      const controller = new AbortController();
      const withdraws: Array<() => boolean> = [];
      call("c1", { tracker: C });
      const c2 = call("c2", { tracker: C, signal: controller.signal });
      call("c3", { tracker: C, onQueued: (withdraw) => withdraws.push(withdraw) });
      call("c4", { tracker: C, read: true });
      await drained();
      expect("C: one sent, three queued", [0, 0], [0, 0], [3, 1]);
      told("C", C);
      controller.abort();
      await drained();
      expect("c2 aborted", [0, 0], [0, 0], [2, 1]);
      told("c2 aborted", C);
      assert.equal(failure(c2).kind, "aborted");
      assert.equal(withdraws[0]!(), true);
      expect("c3 withdrawn", [0, 0], [0, 0], [1, 1]);
      told("c3 withdrawn", C);
      attempts.of("c1").reject(serverError());
      await drained();
      expect("c1 failed, c4 sent", [0, 0], [0, 0], [0, 1]);
      told("c1 failed", C);
      attempts.of("c4").reject(connectionReset());
      await drained();
      expect("c4 reset, backs off", [0, 0], [0, 0], [1, 0]);
      told("c4 reset", C);
      await clock.advance(100);
      expect("c4 sent again", [0, 0], [0, 0], [0, 1]);
      attempts.of("c4").resolve();
      await drained();
      expect("all done", [0, 0], [0, 0], [0, 0]);
      told("all done", C);
    });

    it("stay exact under a seeded storm of calls, answers, aborts, withdrawals, pauses and timeouts", async function () {
      this.timeout(20_000);
      for (const seed of [1, 2, 3, 4, 5]) await storm(seed);
    });
  });

  describe("classes of calls: each keeps its share of the rate", function () {
    const classOf = (label: string) => label.replace(/\d+$/, "");
    const tally = (labels: readonly string[]) => {
      const counts: Record<string, number> = {};
      for (const label of labels) counts[classOf(label)] = (counts[classOf(label)] ?? 0) + 1;
      return counts;
    };

    it("a status read made every 2 s during a burst of 300 commands starts within a second; the burst takes the rest", async function () {
      const { clock, attempts, call } = setUp({ rateLimit: 20, connections: 16 });
      const burst = range(300).map((i) => call(`command${i}`, {}, attempts.instant(`command${i}`)));
      const reads: { madeAt: number; label: string }[] = [];
      for (let at = 1000; at <= 15_000; at += 2000) {
        await clock.advanceTo(at);
        const label = `status${reads.length}`;
        reads.push({ madeAt: at, label });
        call(label, { callClass: "status" }, attempts.instant(label));
      }
      await clock.advanceTo(17_000);
      for (const read of reads) {
        const waited = attempts.of(read.label).at - read.madeAt;
        assert.ok(waited <= 1025, `${read.label}, made at ${read.madeAt} ms, waited ${waited} ms behind the burst`);
      }
      // Without classes the reads would wait behind the whole burst (15 s at 20/s).
      assert.ok(
        burst.every((command) => command.settled && command.error === undefined),
        "the burst was served too, within 17 s",
      );
      assert.equal(attempts.started.length, 300 + reads.length);
    });

    it("with every class waiting, starts go 30 % status, 60 % other, 10 % sweep, in any 20 in a row", async function () {
      const { attempts, call } = setUp({ connections: 1 });
      for (const name of ["sweep", "other", "status"])
        for (const i of range(400))
          call(`${name}${i}`, { callClass: name as "status" | "other" | "sweep" }, attempts.instant(`${name}${i}`));
      await drained();
      const labels = attempts.labels.slice(0, 400);
      assert.deepEqual(tally(labels.slice(0, 200)), { status: 60, other: 120, sweep: 20 });
      for (let from = 0; from + 20 <= labels.length; from++) {
        const window = tally(labels.slice(from, from + 20));
        assert.ok(
          (window.status ?? 0) >= 5 && (window.other ?? 0) >= 11 && (window.sweep ?? 0) >= 1,
          `starts ${from}-${from + 19}: ${JSON.stringify(window)}`,
        );
      }
    });

    it("stop commands still go first, ahead of status reads and of every other class", async function () {
      const { attempts, call } = setUp({ connections: 1 });
      call("first");
      for (const i of range(5)) call(`status${i}`, { callClass: "status" });
      for (const i of range(5)) call(`sweep${i}`, { callClass: "sweep" });
      // urgent wins over a class the caller chose.
      call("stop", { urgent: true, callClass: "sweep" });
      await drained();
      attempts.of("first").resolve();
      await drained();
      assert.deepEqual(attempts.labels, ["first", "stop"]);
    });

    it("a class alone takes the whole rate, and one that was idle saves no credit for later", async function () {
      const { attempts, call } = setUp({ connections: 1 });
      const held = call("held");
      for (const i of range(100)) call(`other${i}`, {}, attempts.instant(`other${i}`));
      // Held on the wire until the others queued: then 100 other calls run alone.
      attempts.of("held").resolve();
      await drained();
      assert.ok(held.settled);
      assert.equal(attempts.started.length, 101, "the other calls alone took every start");
      // Now the status class comes, after a long idle time, beside 100 more other calls: its share, not 100 starts in a row.
      const before = attempts.started.length;
      const holdAgain = call("held2");
      await drained();
      for (const i of range(100)) call(`late${i}`, {}, attempts.instant(`late${i}`));
      for (const i of range(100)) call(`status${i}`, { callClass: "status" }, attempts.instant(`status${i}`));
      attempts.of("held2").resolve();
      await drained();
      assert.ok(holdAgain.settled);
      const next30 = tally(attempts.labels.slice(before + 1, before + 31));
      // 0.3 / (0.3 + 0.6) of 30 starts is 10.
      assert.ok(next30.status! >= 9 && next30.status! <= 11, `the next 30 starts: ${JSON.stringify(next30)}`);
    });

    it("a call going back to wait (a 429) keeps its class and its place at the head of it", async function () {
      const { clock, attempts, call } = setUp({ connections: 1 });
      const read = call("status0", { callClass: "status" });
      for (const i of range(3)) call(`other${i}`);
      await drained();
      attempts.of("status0").reject(rateLimited(1));
      await clock.advance(1000);
      assert.deepEqual(attempts.labels, ["status0", "status0"], "the refused read is sent again first");
      attempts.of("status0").resolve("fresh");
      await drained();
      assert.equal(read.value, "fresh");
    });
  });

  describe("close()", function () {
    it("rejects every queued, backing-off and running call with kind aborted, leaves no timer, refuses later calls", async function () {
      const { clock, engine, attempts, call } = setUp({ connections: 3, maxRetries: 3, rateLimit: 5 });
      const node = tracker();
      const running = call("running", { tracker: node });
      const backingOff = call("backing-off", { tracker: node });
      const refused = call("refused", { tracker: node });
      const queued = call("queued", { tracker: node });
      const urgent = call("urgent", { tracker: node, urgent: true });
      await drained();
      attempts.of("refused").reject(rateLimited(5));
      await drained();
      attempts.of("backing-off").reject(connectFailed());
      await drained();
      assert.deepEqual(counts(node), { waiting: 4, sending: 1 });
      assert.ok(clock.pending >= 3, "an attempt limit, a backoff and the pause's wake-up are pending");
      engine.close();
      await drained();
      for (const [label, each] of Object.entries({ running, backingOff, refused, queued, urgent })) {
        const error = failure(each, label);
        assert.equal(error.kind, "aborted", label);
        assert.match(error.message, /closed/);
      }
      assert.equal(attempts.of("running").signal.aborted, true);
      assert.equal(clock.pending, 0, "no timer left");
      assert.deepEqual(counts(node), { waiting: 0, sending: 0 });
      assert.equal(engine.waiting + engine.sending, 0);
      // The aborted attempt's late answer changes nothing.
      attempts.of("running").resolve("late");
      await drained();
      assert.equal(running.value, undefined);
      const later = call("later", { tracker: node });
      const laterUrgent = call("later-urgent", { urgent: true });
      await drained();
      assert.equal(failure(later).kind, "aborted");
      assert.equal(failure(laterUrgent).kind, "aborted");
      assert.deepEqual(counts(node), { waiting: 0, sending: 0 });
      engine.close();
      await clock.advance(60_000);
      assert.deepEqual(attempts.labels, ["running", "backing-off", "refused"], "nothing started after close");
      assert.equal(clock.pending, 0);
    });
  });
});

/**
 * A random but replayable mix of everything a flow does to the engine, with the
 * invariants checked after every step: no more than `connections` attempts run,
 * the trackers add up to the engine's counts, every call not ended is counted once,
 * and pacing holds even where the server sees the calls. Then every call ends,
 * and after close() no timer is left.
 */
async function storm(seed: number): Promise<void> {
  const rng: Rng = seeded(seed);
  const settings = { connections: 3, rateLimit: 5, queueLimit: 25, maxRetries: 2, maxRetryWaitMs: 5000, timeoutMs: 2000 };
  const { clock, engine, attempts, call } = setUp({ ...settings, baseDelayMs: 100, maxDelayMs: 400 });
  const trackers = [tracker(), tracker(), tracker()];
  let controllers = [new AbortController(), new AbortController()];
  const calls: Outcome[] = [];
  const withdraws: Array<() => boolean> = [];
  const context = (step: number) => `seed ${seed}, step ${step}`;

  const check = (step: number) => {
    const where = context(step);
    assert.ok(attempts.running <= settings.connections, `${where}: ${attempts.running} attempts running`);
    assert.equal(engine.sending, attempts.running, `${where}: engine.sending`);
    assert.equal(
      engine.waiting,
      trackers.reduce((sum, t) => sum + t.waiting, 0),
      `${where}: waiting`,
    );
    assert.equal(
      engine.sending,
      trackers.reduce((sum, t) => sum + t.sending, 0),
      `${where}: sending`,
    );
    const open = calls.filter((c) => !c.settled).length;
    assert.equal(open, engine.waiting + engine.sending, `${where}: calls not ended`);
  };

  const errorFor = (): Error => {
    const roll = rng();
    if (roll < 0.25) return rateLimited(pick(rng, [0, 1, 2, 10]));
    if (roll < 0.45) return connectFailed();
    if (roll < 0.6) return connectionReset();
    if (roll < 0.75) return resend();
    return serverError();
  };

  for (let step = 0; step < 400; step++) {
    const roll = rng();
    if (roll < 0.35) {
      const label = `s${calls.length}`;
      calls.push(
        call(
          label,
          {
            tracker: pick(rng, trackers),
            signal: rng() < 0.3 ? pick(rng, controllers).signal : undefined,
            urgent: rng() < 0.1,
            read: rng() < 0.5,
            onQueued: (withdraw) => withdraws.push(withdraw),
          },
          attempts.manual(label, { rejectOnAbort: true }),
        ),
      );
    } else if (roll < 0.65) {
      const runningNow = attempts.started.filter((attempt) => attempt.endedAt === undefined);
      if (runningNow.length > 0) {
        const attempt = pick(rng, runningNow);
        if (rng() < 0.5) attempt.resolve();
        else attempt.reject(errorFor());
      }
    } else if (roll < 0.7) {
      const index = Math.floor(rng() * controllers.length);
      controllers[index]!.abort();
      controllers = controllers.map((controller, i) => (i === index ? new AbortController() : controller));
    } else if (roll < 0.75) {
      if (withdraws.length > 0) pick(rng, withdraws)();
    } else {
      await clock.advance(between(rng, 0, 700));
    }
    await drained();
    check(step);
  }
  // Everything still under way ends: answers come, pauses and backoffs run out.
  for (let round = 0; round < 200 && calls.some((c) => !c.settled); round++) {
    for (const attempt of attempts.started) if (attempt.endedAt === undefined) attempt.resolve();
    await clock.advance(500);
    check(400 + round);
  }
  assert.ok(
    calls.every((c) => c.settled),
    `${context(-1)}: calls never ended: ${calls.filter((c) => !c.settled).length}, waiting ${engine.waiting}, paused ${engine.pausedForMs()} ms`,
  );
  for (const t of trackers) assert.deepEqual(counts(t), { waiting: 0, sending: 0 });
  // Pacing, where the server sees it: the 6th start after any attempt comes a second after that one ended.
  const started = attempts.started;
  for (let k = 0; k + settings.rateLimit < started.length; k++) {
    const first = started[k]!;
    const later = started[k + settings.rateLimit]!;
    assert.ok(
      later.at >= first.endedAt! + 1000,
      `${context(-1)}: ${later.label} at ${later.at} ms, ${first.label} ended at ${first.endedAt} ms`,
    );
  }
  engine.close();
  await drained();
  assert.equal(clock.pending, 0, `${context(-1)}: timers left after close()`);
}
