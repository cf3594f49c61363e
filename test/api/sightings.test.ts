/**
 * A running job's bound on silence (sightings.ts): a status counts as a
 * sighting only when it was read after the last one, so an old status that
 * says online, read again from the account's memory, keeps no job alive; the
 * bound is over at the limit, not a millisecond before.
 */
import assert from "node:assert/strict";
import { newJob, type JobRecord } from "../../src/api/jobs/job-book";
import { boundPassed, noteSighting } from "../../src/api/jobs/sightings";
import type { RobotFacts } from "../../src/api/jobs/dispatch";

const LIMIT = 60_000;
const facts = (online: boolean) => ({ serialNumber: "R1", online }) as RobotFacts;
function job(kind: "task" | "goto"): JobRecord {
  const work = kind === "goto" ? { kind, point: "Door", map: "Floor 1" } : { kind, task: "Lobby", map: "Floor 1" };
  return newJob("node", { jobId: "j", work, settings: {} as JobRecord["settings"] });
}

describe("a running job's sightings", () => {
  it("starts a job kept from before the fields existed at now, and counts a status read after the last sighting only", () => {
    const running = job("task");
    noteSighting(running, undefined, 1_000);
    assert.equal(running.onlineSeenAt, 1_000);
    noteSighting(running, { facts: facts(true), readAt: 1_000, navigating: () => false }, 5_000);
    assert.equal(running.onlineSeenAt, 1_000, "read at the last sighting: no new one");
    noteSighting(running, { facts: facts(true), readAt: 1_001, navigating: () => false }, 5_000);
    assert.equal(running.onlineSeenAt, 1_001);
    noteSighting(running, { facts: facts(true), readAt: 900, navigating: () => false }, 6_000);
    assert.equal(running.onlineSeenAt, 1_001, "an older read never moves it back");
    noteSighting(running, { facts: facts(false), readAt: 2_000, navigating: () => false }, 6_000);
    assert.equal(running.onlineSeenAt, 1_001, "offline is no sighting");
    assert.equal(running.navigationSeenAt, undefined, "a task job has no navigation bound");
  });

  it("is over at the limit since the last sighting, not a millisecond before", () => {
    const running = job("task");
    noteSighting(running, undefined, 0);
    assert.equal(boundPassed(running, LIMIT - 1, LIMIT), undefined);
    assert.equal(boundPassed(running, LIMIT, LIMIT), "offline");
    assert.equal(boundPassed(running, LIMIT + 1, LIMIT), "offline");
  });

  it("for a goto job, counts the navigation shown apart: online and standing still runs out as 'navigation'", () => {
    const going = job("goto");
    noteSighting(going, undefined, 0);
    let asked = 0;
    const standing = { facts: facts(true), readAt: 10, navigating: () => (asked++, false) };
    noteSighting(going, standing, 10);
    assert.deepEqual([going.onlineSeenAt, going.navigationSeenAt, asked], [10, 0, 1]);
    noteSighting(going, { ...standing, readAt: 0 }, 20);
    assert.equal(asked, 1, "a status read no later than the navigation last shown: the robot's movement is not asked");
    noteSighting(going, { facts: facts(true), readAt: 30, navigating: () => true }, 30);
    assert.equal(going.navigationSeenAt, 30);
    assert.equal(boundPassed(going, 30 + LIMIT - 1, LIMIT), undefined);
    going.onlineSeenAt = 30 + LIMIT;
    assert.equal(boundPassed(going, 30 + LIMIT, LIMIT), "navigation");
  });
});
