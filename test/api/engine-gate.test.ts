/**
 * RequestEngine with a shared account's gate (what src/api/sharing answers
 * through Redis), on a fake clock with a gate the test answers by hand: each
 * call asks for a place before it starts and holds it until its attempt ends;
 * "retry in", "paused" and a failing gate each delay the queue, never lose it.
 */
import assert from "node:assert/strict";
import { RequestEngine } from "../../src/api/engine/engine";
import type { Attempt } from "../../src/api/settings/call-settings";
import { isRobotApiError } from "../../src/api/errors";
import type { AccountGate, GateAnswer } from "../../src/api/account/shared-account";
import { FakeClock, drained } from "../support/fake-clock";

/** A gate whose every ask waits until the test answers it; it counts the places it gave and got back. */
class HandGate implements AccountGate {
  readonly asks: Array<{ answer(answer: GateAnswer): void; fail(error: Error): void }> = [];
  readonly pauses: number[] = [];
  given = 0;
  released = 0;

  ask(): Promise<GateAnswer> {
    return new Promise((resolve, reject) => this.asks.push({ answer: resolve, fail: reject }));
  }

  pause(ms: number): void {
    this.pauses.push(ms);
  }

  /** Answers the oldest unanswered ask with a place. */
  permitNext(): void {
    this.given++;
    let released = false;
    this.asks.shift()!.answer({
      permit: {
        release: () => {
          if (!released) this.released++;
          released = true;
        },
      },
    });
  }
}

function setUp(maxRetryWaitMs = 60_000) {
  const clock = new FakeClock();
  const gate = new HandGate();
  const engine = new RequestEngine({ rateLimit: 0, connections: 4, maxRetryWaitMs }, clock, gate);
  const started: Array<{ label: string; at: number; end(): void }> = [];
  const outcomes = new Map<string, unknown>();
  const call = (label: string) => {
    const attempt: Attempt<string> = () => new Promise((resolve) => started.push({ label, at: clock.now(), end: () => resolve(label) }));
    engine.run(attempt, { operation: label }).then(
      (value) => outcomes.set(label, value),
      (error: unknown) => outcomes.set(label, error),
    );
  };
  return { clock, gate, engine, started, outcomes, call };
}

describe("api: RequestEngine with a shared account's gate (fake clock, gate answered by hand)", function () {
  it("a call starts only with a place, asked once at a time, and gives it back when its attempt ends", async function () {
    const { gate, started, outcomes, call } = setUp();
    call("a");
    call("b");
    await drained();
    assert.equal(gate.asks.length, 1, "one ask at a time, whatever waits");
    assert.equal(started.length, 0, "nothing starts without a place");
    gate.permitNext();
    await drained();
    assert.deepEqual(
      started.map((s) => s.label),
      ["a"],
    );
    assert.equal(gate.asks.length, 1, "the next call asks for its own place");
    assert.equal(gate.released, 0, "a's place is held while it is on the wire");
    started[0]!.end();
    await drained();
    assert.equal(gate.released, 1);
    assert.equal(outcomes.get("a"), "a");
    gate.permitNext();
    await drained();
    assert.deepEqual(
      started.map((s) => s.label),
      ["a", "b"],
    );
  });

  it("'retry in' holds the queue that long, then asks again", async function () {
    const { clock, gate, started, call } = setUp();
    call("a");
    await drained();
    gate.asks.shift()!.answer({ retryInMs: 300 });
    await clock.advance(299);
    assert.equal(gate.asks.length, 0, "no ask before 300 ms");
    await clock.advance(1);
    assert.equal(gate.asks.length, 1);
    gate.permitNext();
    await drained();
    assert.deepEqual(
      started.map((s) => [s.label, s.at]),
      [["a", 300]],
    );
  });

  it("'paused' by another instance pauses this account too, then the call goes", async function () {
    const { clock, gate, engine, started, call } = setUp();
    let changes = 0;
    engine.onPauseChange(() => changes++);
    call("a");
    await drained();
    gate.asks.shift()!.answer({ pausedForMs: 2000 });
    await drained();
    assert.equal(engine.pausedForMs(), 2000);
    assert.equal(changes, 1, "the pause started");
    assert.deepEqual(gate.pauses, [], "the gate's own pause is not echoed back to it");
    await clock.advance(1999);
    assert.equal(gate.asks.length, 0);
    await clock.advance(1);
    assert.equal(changes, 2, "the pause ended");
    gate.permitNext();
    await drained();
    assert.deepEqual(
      started.map((s) => [s.label, s.at]),
      [["a", 2000]],
    );
  });

  it("a pause another instance saw that is longer than maxRetryWait fails the waiting calls as a 429 would", async function () {
    const { gate, started, outcomes, call } = setUp(1000);
    call("a");
    call("b");
    await drained();
    gate.asks.shift()!.answer({ pausedForMs: 2500 });
    await drained();
    assert.equal(started.length, 0);
    for (const label of ["a", "b"]) {
      const error = outcomes.get(label);
      assert.ok(isRobotApiError(error), String(error));
      assert.deepEqual(
        {
          kind: error.kind,
          status: error.status,
          apiCode: error.apiCode,
          retryAfterSeconds: error.retryAfterSeconds,
          message: error.message,
        },
        {
          kind: "http",
          status: 429,
          apiCode: 8,
          retryAfterSeconds: 3,
          message: `${label}: not sent: the cloud asked this account to wait 3 s, longer than maxRetryWait (1 s)`,
        },
      );
    }
  });

  it("a gate that fails is asked again 100 ms later; the call is not lost", async function () {
    const { clock, gate, started, outcomes, call } = setUp();
    call("a");
    await drained();
    gate.asks.shift()!.fail(new Error("gate broke"));
    await clock.advance(99);
    assert.equal(gate.asks.length, 0);
    await clock.advance(1);
    assert.equal(gate.asks.length, 1);
    gate.permitNext();
    await drained();
    started[0]!.end();
    await drained();
    assert.deepEqual(
      started.map((s) => [s.label, s.at]),
      [["a", 100]],
    );
    assert.equal(outcomes.get("a"), "a");
  });

  it("a place given after close() is given back at once", async function () {
    const { gate, engine, started, outcomes, call } = setUp();
    call("a");
    await drained();
    engine.close();
    await drained();
    const closed = outcomes.get("a");
    assert.equal(isRobotApiError(closed) && closed.kind, "aborted");
    gate.permitNext();
    await drained();
    assert.equal(gate.released, 1);
    assert.equal(started.length, 0);
  });
});
