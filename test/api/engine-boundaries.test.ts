/**
 * The request engine's policies at their edges, written against the survivors of a StrykerJS run over src/api/engine
 * (`npm run mutate -- --mutate "src/api/engine/**\/*.ts"`), on the fake clock: a pause exactly as long as maxRetryWait
 * and a second each side, a call backing off when a pause too long starts, the backoff's random half at its top, a
 * call withdrawn while it backs off, the words of a refusal without an operation, a tracker without changed(), which
 * failures count as not sent, the pause's start and end told once each; the call classes' turns, and the abort groups.
 *
 * Survivors accepted as equivalent (no call's outcome, order or time changes; the engine is being reworked for speed,
 * so these stay as they are):
 * - engine.ts with rateLimit 0 (no pacing): the window's length and its slots (`windowCalls > 0` replaced by true or
 *   `>= 0`, the slot -1 by +1, `new Array(windowCalls)` by `new Array()`): pump() never reads them while windowCalls is 0.
 * - engine.ts wake timer bookkeeping (wakeAfter's `wakeAt <= at`, its `now - ms`, clearWake's guard, the wake during a
 *   pause asked for at `pausedUntil + now`): the pause arms the earliest wake itself, so a wake kept or replaced fires
 *   no call sooner or later. And `allowedAt === Infinity` replaced by false: on the fake clock a wake at Infinity never
 *   fires, as no wake does (on the real clock it would wake every millisecond; not seen without one).
 * - engine.ts start(): the slot's arrival time set whether or not it is still Infinity, and with slot -1: a slot is
 *   Infinity from its start until its one arrival, and starts[-1] is never read.
 * - engine.ts spare controllers (not kept, or one more than the connections): a fresh AbortController serves as well.
 * - engine.ts close() and pump() after close (`if (closed) return` replaced by false): nothing is left to drop or start.
 * - engine.ts failed(): a plain Error going on past its first test (it has no kind and is not rate limited, so it is
 *   settled as it was); the check for a call already settled by a pause listener (settle() ends a call once anyway).
 * - engine.ts backOff()'s timer: `state !== "backoff"` and the pause too long checked again (settle() clears the timer,
 *   and pause() already failed the calls backing off when the pause was too long).
 * - engine.ts pause(): `until > pausedUntilMs` replaced by `>=`: a pause of the same end keeps the later cause, whose
 *   kind a call held by it then names; sharedPauseCause()'s seconds and words (`ms * 1000`, ""): a call held by a shared
 *   pause is told by pauseTooLong(), which counts the seconds itself and names only the cause's kind and codes.
 * - engine.ts settle(): a call settled twice (`case "settled"`, its state not set, its signal's group or the live set
 *   not left, and requeue() not leaving the live set): a promise settles once, and every path that could reach it again
 *   finds it settled or gone. `job.queue?.remove` as `job.queue.remove`: a queued call always has its queue.
 * - engine.ts run(): `options.tracker && job.state === "queued"` replaced by true before changed(): one more call of
 *   changed() with the same counts.
 * - abort-groups.ts: the group not forgotten when its signal aborts, and `{ once: true }` dropped: an abort event
 *   fires once, and the engine refuses a signal already aborted before it groups anything.
 * - call-classes.ts add(): a class whose queue is not empty raised to the virtual time as well: its pass is never
 *   below it then, since take() sets the virtual time to the pass of the class served.
 */
import assert from "node:assert/strict";
import { AbortGroups } from "../../src/api/engine/abort-groups";
import { ClassQueues } from "../../src/api/engine/call-classes";
import { REAL_CLOCK } from "../../src/api/engine/clock";
import { RequestEngine } from "../../src/api/engine/engine";
import { LinkedQueue } from "../../src/api/engine/linked-queue";
import { RobotApiError, isRobotApiError } from "../../src/api/errors";
import type { CallClass, CallTracker, EngineSettings } from "../../src/api/settings/call-settings";
import { FakeClock, drained } from "../support/fake-clock";

const rateLimited = (retryAfterSeconds: number) =>
  new RobotApiError({ kind: "http", status: 429, retryAfterSeconds, message: "HTTP 429: too many requests" });
const connectFailed = () => new RobotApiError({ kind: "network", connectFailed: true, message: "connect ECONNREFUSED" });

/** An attempt that fails with each error given in turn, then answers "ok"; `calls` counts its tries. */
function scripted(...errors: Error[]) {
  const attempt = Object.assign(
    () => {
      attempt.calls++;
      const error = errors.shift();
      return error ? Promise.reject(error) : Promise.resolve("ok");
    },
    { calls: 0 },
  );
  return attempt;
}

/** An attempt the test ends by hand; tried again, it answers "ok". */
function held() {
  let end: { resolve(value: unknown): void; reject(error: Error): void } | undefined;
  const attempt = () =>
    end
      ? Promise.resolve("ok")
      : new Promise<unknown>((resolve, reject) => {
          end = { resolve, reject };
        });
  return {
    attempt,
    resolve: (value: unknown = "ok") => end!.resolve(value),
    reject: (error: Error) => end!.reject(error),
  };
}

/** Where a call's promise stands, without waiting for it. */
function outcome(promise: Promise<unknown>) {
  const state: { settled: boolean; value?: unknown; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

function engineOn(settings: Partial<EngineSettings> = {}) {
  const clock = new FakeClock(1_000_000);
  const engine = new RequestEngine({ rateLimit: 0, connections: 1, maxRetryWaitMs: 5000, ...settings }, clock);
  return { clock, engine };
}

describe("the engine at its edges: the account's pause against maxRetryWait", () => {
  const WAITS: [number, boolean][] = [
    [4, true],
    [5, true],
    [6, false],
  ];
  for (const [seconds, waits] of WAITS) {
    it(`${waits ? "holds" : "fails at once"} a waiting call when the cloud asks for ${seconds} s against a maxRetryWait of 5 s`, async () => {
      const { clock, engine } = engineOn();
      const first = held();
      const firstCall = outcome(engine.run(first.attempt, { operation: "first" }));
      const second = outcome(engine.run(scripted(), { operation: "listRobots" }));
      first.reject(rateLimited(seconds));
      await drained();
      assert.equal(second.settled, !waits);
      if (!waits) {
        assert.ok(isRobotApiError(second.error) && second.error.status === 429);
        assert.equal(
          second.error.message,
          `listRobots: not sent: the cloud asked this account to wait ${seconds} s, longer than maxRetryWait (5 s)`,
        );
        return;
      }
      await clock.advance(seconds * 1000 - 1);
      assert.equal(second.settled, false, "still paused a millisecond before the end");
      await clock.advance(1);
      assert.deepEqual([firstCall.value, second.value], ["ok", "ok"], "both sent when the pause ends");
    });
  }

  it("words a call held by a long pause as a call when it names no operation", async () => {
    const { engine } = engineOn();
    await assert.rejects(engine.run(scripted(rateLimited(120))), RobotApiError);
    await assert.rejects(engine.run(scripted()), {
      message: "call: not sent: the cloud asked this account to wait 120 s, longer than maxRetryWait (5 s)",
    });
  });

  it("fails a call backing off as soon as a pause too long starts, not when its backoff ends", async () => {
    const { engine } = engineOn({ connections: 2 });
    const backingOff = outcome(engine.run(scripted(connectFailed()), { operation: "getStatus" }));
    const limited = held();
    const limitedCall = outcome(engine.run(limited.attempt));
    await drained();
    assert.equal(backingOff.settled, false, "its connection failed: it waits to retry");
    limited.reject(rateLimited(120));
    await drained();
    assert.ok(limitedCall.settled);
    assert.ok(backingOff.settled, "failed without the clock moving");
    assert.match((backingOff.error as Error).message, /^getStatus: not sent: the cloud asked this account to wait 120 s/);
  });

  it("tells the pause's listeners once when it starts and once when it ends, even with nothing left waiting", async () => {
    const { clock, engine } = engineOn({ maxRetries: 0 });
    let told = 0;
    engine.onPauseChange(() => told++);
    await assert.rejects(engine.run(scripted(rateLimited(2))), RobotApiError);
    assert.equal(told, 1);
    await clock.advance(2000);
    assert.equal(told, 2);
    assert.equal(engine.pausedForMs(), 0);
  });

  it("tells the pause's listeners nothing when calls only wait for the rate's window", async () => {
    const { clock, engine } = engineOn({ rateLimit: 1, connections: 4 });
    let told = 0;
    engine.onPauseChange(() => told++);
    const calls = [engine.run(scripted()), engine.run(scripted()), engine.run(scripted())];
    await clock.advance(5000);
    assert.deepEqual(await Promise.all(calls), ["ok", "ok", "ok"]);
    assert.equal(told, 0);
  });

  it("ends a pause on time when a window's wake comes first and nothing is left waiting", async () => {
    const { clock, engine } = engineOn({ rateLimit: 2, connections: 4, maxRetries: 0 });
    let told = 0;
    engine.onPauseChange(() => told++);
    const limited = held();
    const answered = outcome(engine.run(scripted()));
    const limitedCall = outcome(engine.run(limited.attempt));
    const controller = new AbortController();
    const waiting = outcome(engine.run(scripted(), { signal: controller.signal }));
    await drained();
    assert.ok(answered.settled && !waiting.settled, "the third call waits for the window");
    limited.reject(rateLimited(5));
    controller.abort();
    await drained();
    assert.ok(limitedCall.settled && waiting.settled);
    assert.equal(told, 1);
    await clock.advance(5000);
    assert.equal(told, 2, "the pause ended");
  });
});

describe("the engine at its edges: retries", () => {
  it("retries a failed connection after its full backoff when the random half is at its top", async () => {
    const { clock, engine } = engineOn({ baseDelayMs: 500 });
    const random = Math.random;
    Math.random = () => 0.999_999;
    try {
      const attempt = scripted(connectFailed());
      const call = outcome(engine.run(attempt));
      await drained();
      await clock.advance(499);
      assert.equal(attempt.calls, 1, "250 ms fixed and up to 250 ms random: not before 500 ms");
      await clock.advance(1);
      assert.equal(attempt.calls, 2);
      assert.equal(call.value, "ok");
    } finally {
      Math.random = random;
    }
  });

  it("withdraws a call while it backs off, as one not sent", async () => {
    const { engine } = engineOn();
    let withdraw: (() => boolean) | undefined;
    const attempt = scripted(connectFailed());
    const call = engine.run(attempt, { operation: "getStatus", onQueued: (taken) => (withdraw = taken) });
    await drained();
    assert.equal(withdraw!(), true);
    await assert.rejects(call, { kind: "aborted", message: "getStatus: withdrawn before it was sent" });
    assert.equal(attempt.calls, 1);
  });

  const notRetried: [string, RobotApiError][] = [
    [
      "an HTTP error that says its connection failed",
      new RobotApiError({ kind: "http", status: 500, connectFailed: true, message: "500" }),
    ],
    [
      "a timeout of a read that says its connection was reset",
      new RobotApiError({ kind: "timeout", connectionReset: true, message: "timed out" }),
    ],
  ];
  for (const [what, error] of notRetried) {
    it(`does not retry ${what}: only a network error is known not to have been sent`, async () => {
      const { engine } = engineOn();
      const attempt = scripted(error);
      await assert.rejects(engine.run(attempt, { read: true }), error);
      assert.equal(attempt.calls, 1);
    });
  }

  it("keeps a tracker without changed() counting through a queue, a retry and a backoff", async () => {
    const { clock, engine } = engineOn({ connections: 1 });
    const tracker: CallTracker = { waiting: 0, sending: 0 };
    const first = held();
    const calls = [engine.run(first.attempt, { tracker }), engine.run(scripted(rateLimited(1), connectFailed()), { tracker })];
    await drained();
    assert.deepEqual([tracker.waiting, tracker.sending], [1, 1]);
    first.resolve();
    await clock.advance(5000);
    assert.deepEqual(await Promise.all(calls), ["ok", "ok"]);
    assert.deepEqual([tracker.waiting, tracker.sending], [0, 0]);
  });

  it("words a full queue with the operation, or as a call", async () => {
    const { engine } = engineOn({ queueLimit: 1 });
    const first = held();
    const calls = [engine.run(first.attempt), engine.run(scripted())];
    await assert.rejects(engine.run(scripted(), { operation: "listRobots" }), {
      kind: "queue_full",
      message: "listRobots: not sent: 1 calls are already waiting for this account (queueLimit)",
    });
    await assert.rejects(engine.run(scripted()), { message: "call: not sent: 1 calls are already waiting for this account (queueLimit)" });
    first.resolve();
    await Promise.all(calls);
  });
});

describe("the engine at its edges: the call classes' turns", () => {
  type Item = { callClass: CallClass; name: string; prev: Item | undefined; next: Item | undefined; queue: LinkedQueue<Item> | undefined };
  const item = (callClass: CallClass, name: string): Item => ({ callClass, name, prev: undefined, next: undefined, queue: undefined });
  /** Takes `count` calls in turn, giving their names. */
  const takeIn = (queues: ClassQueues<Item>, count: number) =>
    Array.from({ length: count }, () => {
      const next = queues.next()!;
      queues.take(next);
      return next.name;
    });

  it("counts the calls of every class", () => {
    const queues = new ClassQueues<Item>();
    for (const callClass of ["stop", "status", "other", "sweep", "sweep"] as const) queues.add(item(callClass, callClass));
    assert.equal(queues.length, 5);
  });

  it("starts the first class in the list when all are owed the same", () => {
    const queues = new ClassQueues<Item>();
    for (const callClass of ["sweep", "other", "status"] as const) queues.add(item(callClass, callClass));
    assert.equal(queues.next()?.name, "status");
  });

  it("puts a stop command that goes back to wait ahead of the other stop commands", () => {
    const queues = new ClassQueues<Item>();
    const first = item("stop", "stop-1");
    queues.add(first);
    queues.add(item("stop", "stop-2"));
    queues.take(queues.next()!);
    queues.add(first, true);
    assert.equal(queues.next()?.name, "stop-1");
  });

  it("gives a class back the start of a call that goes back to wait: the turns are those without it", () => {
    const fill = (queues: ClassQueues<Item>) => {
      for (let index = 0; index < 10; index++) {
        queues.add(item("status", `status-${index}`));
        queues.add(item("other", `other-${index}`));
      }
    };
    const plain = new ClassQueues<Item>();
    fill(plain);
    const withReturn = new ClassQueues<Item>();
    fill(withReturn);
    const [returned] = takeIn(withReturn, 1);
    const back = item("status", returned!);
    withReturn.add(back, true);
    assert.deepEqual(takeIn(withReturn, 9), takeIn(plain, 9));
  });

  it("saves no credit for a class while it has nothing waiting", () => {
    const queues = new ClassQueues<Item>();
    for (let index = 0; index < 30; index++) queues.add(item("other", `other-${index}`));
    takeIn(queues, 20);
    for (let index = 0; index < 10; index++) queues.add(item("sweep", `sweep-${index}`));
    const next = takeIn(queues, 7);
    assert.equal(
      next.filter((name) => name.startsWith("sweep")).length,
      1,
      `sweep takes its tenth of the turns, not all of them: ${next.join(" ")}`,
    );
  });

  it("gives a class that waits only now and then no more than its share", () => {
    const queues = new ClassQueues<Item>();
    for (let index = 0; index < 30; index++) queues.add(item("other", `other-${index}`));
    takeIn(queues, 20);
    const taken: string[] = [];
    for (let index = 0; index < 3; index++) {
      queues.add(item("sweep", `sweep-${index}`));
      taken.push(...takeIn(queues, 3));
    }
    // A tenth of the turns: after its start, sweep-1 waits for six others'.
    assert.deepEqual(taken, ["sweep-0", "other-20", "other-21", "other-22", "other-23", "other-24", "other-25", "sweep-1", "other-26"]);
  });
});

describe("the engine at its edges: abort groups and the real clock", () => {
  it("leaves out of an abort the items deleted from its group", () => {
    const aborted: string[][] = [];
    const groups = new AbortGroups<string>((items) => aborted.push(items));
    const controller = new AbortController();
    groups.add(controller.signal, "a");
    groups.add(controller.signal, "b");
    groups.delete(controller.signal, "a");
    controller.abort();
    assert.deepEqual(aborted, [["b"]]);
  });

  it("cancels a real timer", async () => {
    let fired = false;
    const timer = REAL_CLOCK.setTimeout(() => (fired = true), 1);
    REAL_CLOCK.clearTimeout(timer);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(fired, false);
  });
});
