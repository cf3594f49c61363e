/**
 * The request engine's policy on a fake clock, with attempts the test settles
 * by hand: no sockets and no waiting, so counts, order and fake-time windows
 * are exact.
 */
import assert from "node:assert/strict";
import { ATTEMPT_TIMED_OUT, RequestEngine, ResendRequest, type CallTracker, type EngineClock, type EngineSettings } from "../../src/api/engine";
import { RobotApiError } from "../../src/api/errors";

/** A clock whose time moves only when the test says so. */
class FakeClock implements EngineClock {
  time = 0;
  private timers = new Map<number, { at: number; callback: () => void }>();
  private nextId = 1;

  now = (): number => this.time;
  setTimeout = (callback: () => void, ms: number): unknown => {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + ms, callback });
    return id;
  };
  clearTimeout = (handle: unknown): void => {
    this.timers.delete(handle as number);
  };

  get pending(): number {
    return this.timers.size;
  }

  /** Moves time forward, firing due timers in order (and those they set, when due). */
  async advance(ms: number): Promise<void> {
    // Attempts settled by the test are handled at the time they were settled, not after the jump.
    await flush();
    const end = this.time + ms;
    for (;;) {
      const due = [...this.timers].filter(([, timer]) => timer.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].callback();
      await flush();
    }
    this.time = end;
    await flush();
  }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

/** An attempt the test ends by hand; records when each start happened. */
class Attempts {
  readonly started: Array<{ label: string; at: number; signal: AbortSignal; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = [];
  constructor(private readonly clock: FakeClock) {}

  make(label: string) {
    return (signal: AbortSignal) =>
      new Promise<unknown>((resolve, reject) => {
        this.started.push({ label, at: this.clock.now(), signal, resolve, reject });
      });
  }
  get labels(): string[] {
    return this.started.map((attempt) => attempt.label);
  }
}

const rateLimited = (retryAfterSeconds?: number) =>
  new RobotApiError({ kind: "http", status: 429, message: "HTTP 429", retryAfterSeconds });
const connectRefused = () => new RobotApiError({ kind: "network", message: "ECONNREFUSED", connectFailed: true });
const reset = () => new RobotApiError({ kind: "network", message: "ECONNRESET", connectionReset: true });

function setUp(settings: Partial<EngineSettings> = {}) {
  const clock = new FakeClock();
  const engine = new RequestEngine({ rateLimit: 0, baseDelayMs: 100, maxDelayMs: 1000, ...settings }, clock);
  return { clock, engine, attempts: new Attempts(clock) };
}

/** Collects how each call ends, without unhandled rejections. */
function outcome<T>(promise: Promise<T>) {
  const result: { value?: T; error?: RobotApiError; settled: boolean } = { settled: false };
  promise.then(
    (value) => Object.assign(result, { value, settled: true }),
    (error: RobotApiError) => Object.assign(result, { error, settled: true }),
  );
  return result;
}

describe("api: the request engine's policy (fake clock)", function () {
  it("never runs more than `connections` attempts; the next starts when one ends", async function () {
    const { engine, attempts } = setUp({ connections: 3 });
    const calls = Array.from({ length: 10 }, (_, i) => outcome(engine.run(attempts.make(`c${i}`))));
    await flush();
    assert.equal(attempts.started.length, 3);
    assert.equal(engine.sending, 3);
    assert.equal(engine.waiting, 7);
    attempts.started[1]!.resolve("done");
    await flush();
    assert.deepEqual(attempts.labels, ["c0", "c1", "c2", "c3"]);
    assert.equal(calls[1]!.value, "done");
  });

  it("paces starts: at most rateLimit in any window of a second, and no slower than that", async function () {
    const { clock, engine, attempts } = setUp({ connections: 100, rateLimit: 20 });
    for (let i = 0; i < 200; i++) void engine.run(attempts.make(`c${i}`)).catch(() => undefined);
    // Each attempt ends 10 ms after it starts.
    for (let step = 0; step < 1200 && attempts.started.length < 200; step++) {
      for (const attempt of attempts.started) if (clock.now() >= attempt.at + 10) attempt.resolve("ok");
      await clock.advance(10);
    }
    assert.equal(attempts.started.length, 200);
    const starts = attempts.started.map((attempt) => attempt.at);
    for (const from of starts) {
      const inWindow = starts.filter((at) => at >= from && at < from + 1000).length;
      assert.ok(inWindow <= 20, `${inWindow} starts in the second from ${from} ms`);
    }
    // Ten windows of 20, each a second plus the call's 10 ms and the margin.
    assert.ok(starts.at(-1)! < 10 * 1100, `the last call started at ${starts.at(-1)} ms`);
  });

  it("below one call a second, one call per 1/rate seconds", async function () {
    const { clock, engine, attempts } = setUp({ rateLimit: 0.5 });
    for (let i = 0; i < 3; i++) void engine.run(attempts.make(`c${i}`)).catch(() => undefined);
    await flush();
    attempts.started[0]!.resolve("ok");
    await clock.advance(1900);
    assert.equal(attempts.started.length, 1);
    await clock.advance(200);
    assert.equal(attempts.started.length, 2);
  });

  it("queueLimit: calls beyond it fail at once with QUEUE_FULL and are never attempted; stop commands are exempt", async function () {
    const { engine, attempts } = setUp({ connections: 1, queueLimit: 2 });
    const calls = Array.from({ length: 5 }, (_, i) => outcome(engine.run(attempts.make(`c${i}`))));
    const stop = outcome(engine.run(attempts.make("stop"), { urgent: true }));
    await flush();
    assert.deepEqual(
      calls.map((call) => call.error?.code),
      [undefined, undefined, undefined, "QUEUE_FULL", "QUEUE_FULL"],
    );
    assert.equal(stop.settled, false);
    assert.equal(engine.waiting, 3, "two queued and the stop");
    assert.deepEqual(attempts.labels, ["c0"]);
  });

  it("an urgent call goes ahead of 500 waiting ones", async function () {
    const { engine, attempts } = setUp({ connections: 1 });
    for (let i = 0; i < 500; i++) void engine.run(attempts.make(`read${i}`)).catch(() => undefined);
    void engine.run(attempts.make("stop"), { urgent: true });
    await flush();
    attempts.started[0]!.resolve("ok");
    await flush();
    assert.deepEqual(attempts.labels, ["read0", "stop"]);
  });

  it("a rate-limit answer pauses the whole account for its Retry-After; the refused call goes first after it", async function () {
    const { clock, engine, attempts } = setUp({ connections: 2 });
    const pauses: number[] = [];
    engine.onPauseChange(() => pauses.push(clock.now()));
    const first = outcome(engine.run(attempts.make("a")));
    void engine.run(attempts.make("b")).catch(() => undefined);
    void engine.run(attempts.make("c")).catch(() => undefined);
    await flush();
    attempts.started[0]!.reject(rateLimited(2));
    await flush();
    assert.equal(engine.pausedForMs(), 2000);
    attempts.started[1]!.resolve("ok");
    await clock.advance(1999);
    assert.deepEqual(attempts.labels, ["a", "b"], "nothing starts during the pause");
    await clock.advance(1);
    assert.deepEqual(attempts.labels, ["a", "b", "a", "c"], "the refused call first");
    assert.deepEqual(pauses, [0, 2000], "listeners hear the pause start and end");
    attempts.started[2]!.resolve("second try");
    await flush();
    assert.equal(first.value, "second try");
  });

  it("maxRetries counts per call: refused maxRetries+1 times, the call fails with the rate-limit error", async function () {
    const { clock, engine, attempts } = setUp({ maxRetries: 2 });
    const call = outcome(engine.run(attempts.make("a")));
    for (let i = 0; i < 3; i++) {
      await flush();
      attempts.started[i]!.reject(rateLimited(1));
      await clock.advance(1000);
    }
    assert.equal(attempts.started.length, 3);
    assert.equal(call.error?.status, 429);
  });

  it("a Retry-After longer than maxRetryWait fails the refused call and every waiting one at once, with retryAfterSeconds", async function () {
    const { clock, engine, attempts } = setUp({ connections: 1, maxRetryWaitMs: 60_000 });
    const refused = outcome(engine.run(attempts.make("a")));
    const waiting = Array.from({ length: 3 }, (_, i) => outcome(engine.run(attempts.make(`w${i}`))));
    await flush();
    attempts.started[0]!.reject(rateLimited(3600));
    await flush();
    assert.equal(refused.error?.retryAfterSeconds, 3600);
    for (const call of waiting) {
      assert.equal(call.error?.retryAfterSeconds, 3600);
      assert.equal(call.error?.status, 429);
    }
    await clock.advance(1000);
    const later = outcome(engine.run(attempts.make("later")));
    await flush();
    assert.equal(later.error?.retryAfterSeconds, 3599, "a call made during the pause fails at once too");
    assert.equal(attempts.started.length, 1);
    await clock.advance(3_600_000);
    void engine.run(attempts.make("after")).catch(() => undefined);
    await flush();
    assert.deepEqual(attempts.labels, ["a", "after"]);
  });

  it("a failed connect is retried after a backoff; a reset only for reads; other errors never", async function () {
    const { clock, engine, attempts } = setUp({ connections: 4, maxRetries: 3 });
    const tracker: CallTracker = { waiting: 0, sending: 0 };
    const command = outcome(engine.run(attempts.make("connect"), { tracker }));
    const resetCommand = outcome(engine.run(attempts.make("reset-command")));
    const resetRead = outcome(engine.run(attempts.make("reset-read"), { read: true }));
    const serverError = outcome(engine.run(attempts.make("http-500"), { read: true }));
    await flush();
    attempts.started[0]!.reject(connectRefused());
    attempts.started[1]!.reject(reset());
    attempts.started[2]!.reject(reset());
    attempts.started[3]!.reject(new RobotApiError({ kind: "http", status: 500, message: "HTTP 500" }));
    await flush();
    assert.equal(resetCommand.error?.connectionReset, true);
    assert.equal(serverError.error?.status, 500);
    assert.equal(tracker.waiting, 1, "backing off counts as waiting");
    await clock.advance(100);
    assert.deepEqual(attempts.labels.slice(4).sort(), ["connect", "reset-read"]);
    for (const attempt of attempts.started.slice(4)) attempt.resolve("ok");
    await flush();
    assert.equal(command.value, "ok");
    assert.equal(resetRead.value, "ok");
    assert.deepEqual(tracker, { waiting: 0, sending: 0 });
  });

  it("ResendRequest (a fresh token after a 401) sends again at once without using up a retry", async function () {
    const { engine, attempts } = setUp({ maxRetries: 0 });
    const call = outcome(engine.run(attempts.make("a")));
    await flush();
    attempts.started[0]!.reject(new ResendRequest(new RobotApiError({ kind: "http", status: 401, message: "401" })));
    await flush();
    assert.equal(attempts.started.length, 2);
    attempts.started[1]!.resolve("ok");
    await flush();
    assert.equal(call.value, "ok");
  });

  it("an attempt past timeoutMs is aborted with ATTEMPT_TIMED_OUT", async function () {
    const { clock, engine, attempts } = setUp({ timeoutMs: 500 });
    void engine.run(attempts.make("slow")).catch(() => undefined);
    await flush();
    await clock.advance(499);
    assert.equal(attempts.started[0]!.signal.aborted, false);
    await clock.advance(1);
    assert.equal(attempts.started[0]!.signal.reason, ATTEMPT_TIMED_OUT);
  });

  it("one aborted signal ends 10,000 calls, queued or running, with one listener and no warning", async function () {
    const { engine, attempts } = setUp({ connections: 2 });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      const controller = new AbortController();
      const tracker: CallTracker = { waiting: 0, sending: 0 };
      const calls = Array.from({ length: 10_000 }, (_, i) => outcome(engine.run(attempts.make(`c${i}`), { signal: controller.signal, tracker })));
      await flush();
      assert.equal(tracker.waiting, 9998);
      controller.abort();
      await flush();
      assert.ok(calls.every((call) => call.error?.kind === "aborted"));
      assert.equal(attempts.started[0]!.signal.aborted, true, "the running attempt is stopped");
      assert.deepEqual(tracker, { waiting: 0, sending: 0 });
      assert.equal(engine.waiting + engine.sending, 0);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings, []);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("withdraw takes a call out while it waits, and not once it was sent", async function () {
    const { engine, attempts } = setUp({ connections: 1 });
    const withdraws: Array<() => boolean> = [];
    const sent: string[] = [];
    const calls = ["a", "b"].map((label) =>
      outcome(engine.run(attempts.make(label), { onQueued: (withdraw) => withdraws.push(withdraw), onSend: () => sent.push(label) })),
    );
    await flush();
    assert.deepEqual(sent, ["a"]);
    assert.equal(withdraws[0]!(), false, "a was sent");
    assert.equal(withdraws[1]!(), true, "b still waited");
    await flush();
    assert.equal(calls[1]!.error?.kind, "aborted");
    attempts.started[0]!.resolve("ok");
    await flush();
    assert.deepEqual(attempts.labels, ["a"]);
  });

  it("close() ends every call, queued, backing off or running, leaves no timer, and refuses later calls", async function () {
    const { clock, engine, attempts } = setUp({ connections: 2, maxRetries: 3 });
    const calls = Array.from({ length: 4 }, (_, i) => outcome(engine.run(attempts.make(`c${i}`))));
    await flush();
    attempts.started[0]!.reject(connectRefused());
    await flush();
    assert.equal(engine.waiting, 2, "c0 backing off, c3 queued (c2 took c0's connection)");
    assert.equal(engine.sending, 2);
    engine.close();
    await flush();
    assert.ok(calls.every((call) => call.error?.kind === "aborted"));
    assert.equal(clock.pending, 0, "no timer left");
    const later = outcome(engine.run(attempts.make("later")));
    await flush();
    assert.equal(later.error?.kind, "aborted");
  });
});
