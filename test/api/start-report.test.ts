/**
 * Which report is a start's (task-report.ts reportOfStart) at its boundaries: a task that ended before the start was
 * sent, by the robot's clock corrected by its offset, is never the start's; the offset is its freshest status's
 * (fleet-statuses.ts), believed within CLOCK_SKEW_MS; of two that fit, the one whose names agree with the job's; and a
 * job record keeps its start's facts through its context (job-book.ts), so a restart chooses alike.
 */
import assert from "node:assert/strict";
import { AccountJobs, keepStartFacts, newJob, startFactsOfJob } from "../../src/api/jobs/job-book";
import { factsBeforeStart, reportOfStart, type StartFacts } from "../../src/api/jobs/task-report";
import { readReport } from "../../src/api/reports/reading";
import { AccountReports, CLOCK_SKEW_MS } from "../../src/api/reports/report-store";
import { FleetStatuses } from "../../src/api/watching/fleet-statuses";

const SENT_MS = Date.parse("2026-12-07T00:48:36Z");
const iso = (ms: number) => new Date(ms).toISOString();

/** R1's report of a task of 5 s ending at `endMs` (the robot's clock), with the fields given. */
function filed(kept: AccountReports, id: string, endMs: number, fields: Record<string, unknown> = {}) {
  return kept.keep(readReport({ id, startTime: iso(endMs - 5000), endTime: iso(endMs), ...fields }, "R1")!);
}
const chosenId = (kept: AccountReports, facts: Partial<StartFacts>) =>
  reportOfStart(kept, { serialNumber: "R1", sinceMs: SENT_MS, ...facts })?.id;

describe("a start's report: never one of a task that ended before the send (reportOfStart)", () => {
  for (const [label, offsetMs] of [
    ["the robot's clock right", 0],
    ["the robot's clock 30 s ahead", 30_000],
    ["the robot's clock 30 s behind", -30_000],
  ] as const) {
    it(`${label}: a task that ended 1 ms before the send is another's, one that ended at the send or 1 ms after fits`, () => {
      const sendOnRobot = SENT_MS + offsetMs;
      const before = new AccountReports();
      filed(before, "ended-before", sendOnRobot - 1);
      assert.equal(chosenId(before, { clockOffsetMs: offsetMs }), undefined);
      const at = new AccountReports();
      filed(at, "ended-at", sendOnRobot);
      assert.equal(chosenId(at, { clockOffsetMs: offsetMs }), "ended-at");
      const after = new AccountReports();
      filed(after, "ended-after", sendOnRobot + 1);
      assert.equal(chosenId(after, { clockOffsetMs: offsetMs }), "ended-after");
    });
  }

  it("with no offset known, the blind window: a task that ended 50 s before the send still fits (the case the offset closes)", () => {
    const kept = new AccountReports();
    filed(kept, "earlier", SENT_MS - 50_000);
    assert.equal(chosenId(kept, {}), "earlier");
    assert.equal(chosenId(kept, { clockOffsetMs: 0 }), undefined);
  });

  it("of two that fit, the one whose task name, map and area agree with the job's, though the other ended later", () => {
    const kept = new AccountReports();
    const floor1 = [{ mapId: "map-1", mapName: "Floor 1", actualCleaningAreaSquareMeter: 10 }];
    filed(kept, "own", SENT_MS + 60_000, { displayName: "Kitchen", subTasks: floor1, areaNameList: "Kitchen, Hall" });
    filed(kept, "other-name", SENT_MS + 90_000, { displayName: "Quick clean", subTasks: floor1 });
    const names = { task: "Kitchen", map: "Floor 1" };
    assert.equal(chosenId(kept, { clockOffsetMs: 0, names }), "own");
    assert.equal(chosenId(kept, { clockOffsetMs: 0 }), "other-name", "with no names, the one that ended last");
    filed(kept, "other-map", SENT_MS + 100_000, {
      displayName: "Kitchen",
      subTasks: [{ ...floor1[0], mapId: "map-2", mapName: "Floor 2" }],
    });
    assert.equal(chosenId(kept, { clockOffsetMs: 0, names }), "own", "the same task name on another map");
    filed(kept, "other-area", SENT_MS + 110_000, { displayName: "Kitchen", subTasks: floor1, areaNameList: "Lobby" });
    assert.equal(chosenId(kept, { clockOffsetMs: 0, names: { ...names, area: "Kitchen" } }), "own", "another area");
    filed(kept, "names-nothing", SENT_MS + 120_000);
    assert.equal(chosenId(kept, { clockOffsetMs: 0, names }), "names-nothing", "a report that names none of them agrees");
  });

  it("takes one that names other work where none agrees (the job still ends with its robot's report)", () => {
    const kept = new AccountReports();
    filed(kept, "renamed", SENT_MS + 60_000, { displayName: "Kitchen (edited)" });
    assert.equal(chosenId(kept, { clockOffsetMs: 0, names: { task: "Kitchen" } }), "renamed");
  });
});

describe("a start's facts: the robot's clock offset from its freshest status (factsBeforeStart)", () => {
  const v1 = (robotMs: number) => ({ name: "robots/R1", serialNumber: "R1", latestReportTime: String(robotMs) });
  const lean = (robotMs: number) => ({ serialNumber: "R1", latestReportTime: String(robotMs) });

  it("takes the robot time less the read time of the freshest read that carries one, of either shape", () => {
    const statuses = new FleetStatuses();
    assert.equal(statuses.clockOffsetOf("R1"), undefined, "never read");
    statuses.record([{ name: "robots/R1", serialNumber: "R1" }], SENT_MS - 2000);
    assert.equal(statuses.clockOffsetOf("R1"), undefined, "a status without the robot's time");
    statuses.record([lean(SENT_MS - 1000 + 7000)], SENT_MS - 1000);
    assert.equal(statuses.clockOffsetOf("R1"), 7000);
    statuses.record([v1(SENT_MS - 500 - 3000)], SENT_MS - 500);
    assert.equal(statuses.clockOffsetOf("R1"), -3000, "the v1 read is the fresher");
  });

  it(`believes an offset up to ${CLOCK_SKEW_MS / 1000} s either way, and past that leaves it unknown (the blind window)`, () => {
    const offsetOf = (offsetMs: number) => {
      const statuses = new FleetStatuses();
      const readAt = Date.now();
      statuses.record([v1(readAt + offsetMs)], readAt);
      return factsBeforeStart(new AccountReports(), statuses, "R1").clockOffsetMs;
    };
    assert.equal(offsetOf(CLOCK_SKEW_MS), CLOCK_SKEW_MS);
    assert.equal(offsetOf(-CLOCK_SKEW_MS), -CLOCK_SKEW_MS);
    assert.equal(offsetOf(CLOCK_SKEW_MS + 1), undefined);
    assert.equal(offsetOf(-CLOCK_SKEW_MS - 1), undefined);
  });

  it("a job keeps its start's facts in its record: read back from its context after a restart, the same facts (kept before, offset, names)", () => {
    const kept = new AccountReports();
    filed(kept, "kept-before", SENT_MS + 10_000);
    const statuses = new FleetStatuses();
    const readAt = Date.now();
    statuses.record([v1(readAt + 20_000)], readAt);
    const job = newJob("node-1", { jobId: "j1", work: { kind: "task", task: "Kitchen", map: "Floor 1" }, settings: {} as never });
    job.serialNumber = "R1";
    job.taskName = "Kitchen";
    keepStartFacts(job, factsBeforeStart(kept, statuses, "R1"));
    const book = new AccountJobs();
    book.add(job);
    const restarted = new AccountJobs();
    assert.equal(restarted.restore("node-1", JSON.parse(JSON.stringify(book.toPlain("node-1")))), 1);
    const facts = startFactsOfJob(restarted.jobs.get("j1")!);
    assert.deepEqual([...facts.keptBefore!], ["R1/kept-before"]);
    assert.equal(facts.clockOffsetMs, 20_000);
    assert.equal(facts.sinceMs, job.sentAt);
    assert.deepEqual(facts.names, { task: "Kitchen", map: "Floor 1" });
  });
});
