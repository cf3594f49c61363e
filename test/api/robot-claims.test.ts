/**
 * A job's Redis claim of its robot apart from Node-RED and Redis: claimRobot's answer (the robot is the job's, another
 * instance's job has it, the claim failed, or no answer within CLAIM_ANSWER_MS on a fake clock) and renewClaimWhenDue's
 * 15 s (exactly, one ms before, one after), extending the claim or taking it again once it lapsed.
 */
import assert from "node:assert/strict";
import type { RobotClaims } from "../../src/api/account/shared-account";
import type { JobRecord } from "../../src/api/jobs/job-book";
import { CLAIM_ANSWER_MS, CLAIM_MS, claimRobot, renewClaimWhenDue } from "../../src/api/jobs/robot-claims";
import { FakeClock, drained } from "../support/fake-clock";

const ROBOT = "GS-S-000101";
const RENEW_EVERY_MS = 15_000;

type Call = [operation: "claim" | "renew" | "release", ...args: unknown[]];

/** Claims answered as the test says (a value, a rejection, or a promise that never settles), each call written down. */
function fakeClaims(answers: { claim?: () => Promise<boolean>; renew?: () => Promise<boolean> }): RobotClaims & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    claim: (...args) => (calls.push(["claim", ...args]), answers.claim?.() ?? Promise.resolve(true)),
    renew: (...args) => (calls.push(["renew", ...args]), answers.renew?.() ?? Promise.resolve(true)),
    release: (...args) => void calls.push(["release", ...args]),
  };
}

const never = () => new Promise<boolean>(() => undefined);

describe("a job's claim of its robot", () => {
  it("answers undefined when the robot is the job's, asking for the robot, the job and CLAIM_MS", async () => {
    const claims = fakeClaims({ claim: () => Promise.resolve(true) });
    const clock = new FakeClock();
    assert.equal(await claimRobot(claims, ROBOT, "job-1", clock), undefined);
    assert.deepEqual(claims.calls, [["claim", ROBOT, "job-1", CLAIM_MS]]);
    assert.equal(CLAIM_MS, 60_000);
    assert.equal(clock.pending, 0, "the answer's bound is cleared once answered");
  });

  it("says another instance's job has the robot when Redis answers false", async () => {
    assert.equal(
      await claimRobot(fakeClaims({ claim: () => Promise.resolve(false) }), ROBOT, "job-1", new FakeClock()),
      "claimed by another instance's job",
    );
  });

  it("says the claim failed, with Redis's words, when it throws", async () => {
    const failing = (reason: unknown) =>
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a client may reject with a text: its words are shown as they are
      claimRobot(fakeClaims({ claim: () => Promise.reject(reason) }), ROBOT, "job-1", new FakeClock());
    assert.equal(
      await failing(new Error("READONLY You can't write against a read only replica")),
      "the claim failed: READONLY You can't write against a read only replica",
    );
    assert.equal(await failing("connection lost"), "the claim failed: connection lost");
  });

  it(`counts a claim not answered within ${CLAIM_ANSWER_MS} ms as not made: one ms before it still waits`, async () => {
    const clock = new FakeClock();
    let answer: unknown = "none yet";
    void claimRobot(fakeClaims({ claim: never }), ROBOT, "job-1", clock).then((value) => (answer = value));
    await clock.advance(CLAIM_ANSWER_MS - 1);
    assert.equal(answer, "none yet");
    await clock.advance(1);
    assert.equal(answer, "the claim was not answered");
    assert.equal(CLAIM_ANSWER_MS, 5_000);
  });

  it("takes an answer that comes one ms before the bound", async () => {
    const clock = new FakeClock();
    let answerNow: (value: boolean) => void = () => undefined;
    const pending = claimRobot(
      fakeClaims({ claim: () => new Promise<boolean>((resolve) => (answerNow = resolve)) }),
      ROBOT,
      "job-1",
      clock,
    );
    await clock.advance(CLAIM_ANSWER_MS - 1);
    answerNow(true);
    assert.equal(await pending, undefined);
  });
});

describe("renewing a job's claim", () => {
  const CLAIMED_AT = 1_000_000;
  const job = (change: Partial<JobRecord> = {}): JobRecord => ({
    jobId: "job-1",
    nodeId: "node-1",
    work: { kind: "task", task: "Kitchen", map: "Floor 1" },
    settings: { minBattery: 30, waitUpToMs: 60_000, tries: 2, confirmTimeoutMs: 30_000 },
    phase: "running",
    createdAt: CLAIMED_AT,
    attempts: [],
    setAside: {},
    serialNumber: ROBOT,
    claimRenewedAt: CLAIMED_AT,
    ...change,
  });

  it(`renews every ${RENEW_EVERY_MS / 1000} s: not one ms before, at it exactly and one ms after`, async () => {
    const claims = fakeClaims({});
    const early = job();
    renewClaimWhenDue(claims, early, CLAIMED_AT + RENEW_EVERY_MS - 1);
    assert.equal(early.claimRenewedAt, CLAIMED_AT);
    await drained();
    assert.deepEqual(claims.calls, []);
    for (const after of [RENEW_EVERY_MS, RENEW_EVERY_MS + 1]) {
      const due = job();
      renewClaimWhenDue(claims, due, CLAIMED_AT + after);
      assert.equal(due.claimRenewedAt, CLAIMED_AT + after, "the next renewal counts from now");
    }
    await drained();
    assert.deepEqual(claims.calls, [
      ["renew", ROBOT, "job-1", CLAIM_MS],
      ["renew", ROBOT, "job-1", CLAIM_MS],
    ]);
  });

  it("extends a claim the job holds, and takes the robot again once its claim lapsed", async () => {
    const kept = fakeClaims({ renew: () => Promise.resolve(true) });
    renewClaimWhenDue(kept, job(), CLAIMED_AT + RENEW_EVERY_MS);
    await drained();
    assert.deepEqual(
      kept.calls.map(([operation]) => operation),
      ["renew"],
    );
    const lapsed = fakeClaims({ renew: () => Promise.resolve(false) });
    renewClaimWhenDue(lapsed, job(), CLAIMED_AT + RENEW_EVERY_MS);
    await drained();
    assert.deepEqual(lapsed.calls, [
      ["renew", ROBOT, "job-1", CLAIM_MS],
      ["claim", ROBOT, "job-1", CLAIM_MS],
    ]);
  });

  it("leaves a job with no robot or no claim yet alone", async () => {
    const claims = fakeClaims({});
    renewClaimWhenDue(claims, job({ serialNumber: undefined }), CLAIMED_AT + RENEW_EVERY_MS);
    const unclaimed = job({ claimRenewedAt: undefined });
    renewClaimWhenDue(claims, unclaimed, CLAIMED_AT + RENEW_EVERY_MS);
    await drained();
    assert.deepEqual(claims.calls, []);
    assert.equal(unclaimed.claimRenewedAt, undefined);
  });

  it("swallows Redis failing while renewing or claiming again: no unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", record);
    try {
      renewClaimWhenDue(fakeClaims({ renew: () => Promise.reject(new Error("renew down")) }), job(), CLAIMED_AT + RENEW_EVERY_MS);
      const claimFails = fakeClaims({ renew: () => Promise.resolve(false), claim: () => Promise.reject(new Error("claim down")) });
      renewClaimWhenDue(claimFails, job(), CLAIMED_AT + RENEW_EVERY_MS);
      await drained();
      await drained();
      assert.deepEqual(
        claimFails.calls.map(([operation]) => operation),
        ["renew", "claim"],
      );
    } finally {
      process.off("unhandledRejection", record);
    }
    assert.deepEqual(unhandled, []);
  });
});
