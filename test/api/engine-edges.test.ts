/**
 * RequestEngine at the edges mutation testing found untested (fake clock): a
 * Retry-After of exactly maxRetryWait, an attempt's signal after the attempt
 * before it was aborted, and a call made after close().
 */
import assert from "node:assert/strict";
import { RequestEngine } from "../../src/api/engine/engine";
import type { Attempt, EngineSettings } from "../../src/api/settings/call-settings";
import { RobotApiError, isRobotApiError } from "../../src/api/errors";
import { FakeClock, drained } from "../support/fake-clock";

function setUp(settings: Partial<EngineSettings> = {}) {
  const clock = new FakeClock();
  const engine = new RequestEngine({ rateLimit: 0, baseDelayMs: 100, maxDelayMs: 1000, ...settings }, clock);
  return { clock, engine };
}

/** How a call ended, once it has. */
function outcomeOf(call: Promise<unknown>): { value?: unknown; error?: unknown; settled: boolean } {
  const outcome: { value?: unknown; error?: unknown; settled: boolean } = { settled: false };
  call.then(
    (value) => Object.assign(outcome, { value, settled: true }),
    (error: unknown) => Object.assign(outcome, { error, settled: true }),
  );
  return outcome;
}

const rateLimited = (retryAfterSeconds: number) => new RobotApiError({ kind: "http", status: 429, retryAfterSeconds, message: "HTTP 429" });

describe("api: RequestEngine at its edges (fake clock)", function () {
  it("a Retry-After of exactly maxRetryWait is waited out and the call retried; one second more fails at once", async function () {
    for (const [retryAfterSeconds, waited] of [
      [2, true],
      [3, false],
    ] as const) {
      const { clock, engine } = setUp({ maxRetryWaitMs: 2000 });
      let attempts = 0;
      const attempt: Attempt<string> = () =>
        ++attempts === 1 ? Promise.reject(rateLimited(retryAfterSeconds)) : Promise.resolve("answered");
      const outcome = outcomeOf(engine.run(attempt, { operation: "op" }));
      await clock.advance(retryAfterSeconds * 1000);
      if (waited) {
        assert.deepEqual([attempts, outcome.value], [2, "answered"], `Retry-After ${retryAfterSeconds} s`);
      } else {
        assert.equal(attempts, 1, `Retry-After ${retryAfterSeconds} s`);
        assert.ok(isRobotApiError(outcome.error) && outcome.error.status === 429, String(outcome.error));
      }
    }
  });

  it("an attempt gets a signal that is not aborted, even after the attempt before it ran past its time limit", async function () {
    const { clock, engine } = setUp({ timeoutMs: 100, connections: 1 });
    const signals: AbortSignal[] = [];
    let finishFirst: (value: string) => void = () => undefined;
    // The first ignores its abort and answers late, as an exchange racing its timeout may.
    const first = outcomeOf(engine.run((signal) => new Promise<string>((resolve) => ((finishFirst = resolve), signals.push(signal)))));
    await clock.advance(100);
    assert.equal(signals[0]!.aborted, true, "the time limit aborted the first attempt's signal");
    finishFirst("late");
    await drained();
    assert.equal(first.value, "late");
    const second = outcomeOf(engine.run((signal) => (signals.push(signal), Promise.resolve(signal.aborted ? "started aborted" : "fresh"))));
    await drained();
    assert.equal(second.value, "fresh");
  });

  it("a call made after close() is refused as aborted, saying the robot-config was closed", async function () {
    const { engine } = setUp();
    engine.close();
    let ran = false;
    const outcome = outcomeOf(engine.run(() => ((ran = true), Promise.resolve("x")), { operation: "getRobotStatus" }));
    await drained();
    assert.equal(ran, false);
    assert.ok(isRobotApiError(outcome.error), String(outcome.error));
    assert.equal(outcome.error.kind, "aborted");
    assert.match(outcome.error.message, /^getRobotStatus: .*the robot-config was closed/);
  });
});
