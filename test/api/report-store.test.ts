/**
 * The account's task reports apart from Node-RED: one per identity, two robots' reports with one id kept apart, a task's
 * report found by its start (leaving out those kept before), and robot-job's lookup: kept, else listed as a sweep.
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { readReport } from "../../src/api/reports/reading";
import type { RobotClient } from "../../src/api/client";
import { AccountReports, CLOCK_SKEW_MS, REPORTS_KEPT_PER_ROBOT, reportsOfAccount } from "../../src/api/reports/report-store";
import { listedReportOfStart, reportOfStart } from "../../src/api/jobs/task-report";

const START_MS = Date.parse("2026-11-20T08:00:00Z");
const report = (serialNumber: string, id: string, startMs = START_MS, extra: Record<string, unknown> = {}) =>
  readReport(
    { id, startTime: new Date(startMs).toISOString(), endTime: new Date(startMs + 600_000).toISOString(), ...extra },
    serialNumber,
  )!;

/** The start's report as reportOfStart chooses it with no clock offset known (the blind window). */
function reportSince(kept: AccountReports, serialNumber: string, sinceMs: number, keptBefore?: ReadonlySet<string>) {
  return reportOfStart(kept, { serialNumber, sinceMs, ...(keptBefore ? { keptBefore } : {}) });
}

describe("the account's task reports", () => {
  afterEach(forgetAccountMemory);

  it("keeps one report per identity: the same report again (pushed, then swept) is the one kept first", () => {
    const reports = new AccountReports();
    const pushed = report("R1", "5", START_MS, { taskEndStatus: 2 });
    assert.equal(reports.keep(pushed), pushed);
    const swept = readReport({ id: 5, startTime: new Date(START_MS).toISOString(), taskEndStatus: 2 }, "R1")!;
    assert.equal(reports.keep(swept), pushed, "the swept reading of the same report");
    assert.equal(reportSince(reports, "R1", START_MS), pushed);
  });

  it("keeps two robots' reports with one id apart", () => {
    const reports = new AccountReports();
    const first = reports.keep(report("R1", "7"));
    const second = reports.keep(report("R2", "7"));
    assert.notEqual(first, second);
    assert.equal(reportSince(reports, "R1", START_MS), first);
    assert.equal(reportSince(reports, "R2", START_MS), second);
    assert.equal(reports.get(second.reportKey, "R2"), second);
  });

  it("finds the report of a task started at or after a time (a minute of clock skew allowed), the one that ended last", () => {
    const reports = new AccountReports();
    reports.keep(report("R1", "old", START_MS - 61_000));
    assert.equal(reportSince(reports, "R1", START_MS), undefined, "started 61 s before");
    const skewed = reports.keep(report("R1", "skewed", START_MS - 60_000));
    assert.equal(reportSince(reports, "R1", START_MS), skewed, "started 60 s before");
    const later = reports.keep(report("R1", "later", START_MS + 1000));
    assert.equal(reportSince(reports, "R1", START_MS), later);
    assert.equal(reportSince(reports, "R2", START_MS), undefined);
  });

  it("keeps the newest few per robot, and is the same object for every node of an account", () => {
    const reports = new AccountReports();
    for (let index = 0; index <= REPORTS_KEPT_PER_ROBOT; index++) reports.keep(report("R1", `r-${index}`, START_MS + index * 1000));
    assert.equal(reports.get("R1/r-0", "R1"), undefined, "the oldest forgotten");
    assert.ok(reports.get("R1/r-1", "R1"));
    assert.equal(reportsOfAccount("a"), reportsOfAccount("a"));
    assert.notEqual(reportsOfAccount("a"), reportsOfAccount("b"));
  });

  it("leaves out the reports kept before (their identities, as keysOf gave them), the others found as ever", () => {
    const reports = new AccountReports();
    reports.keep(report("R1", "earlier", START_MS));
    const before = reports.keysOf("R1");
    assert.deepEqual([...before], ["R1/earlier"]);
    assert.deepEqual([...reports.keysOf("R2")], []);
    assert.equal(reportSince(reports, "R1", START_MS, before), undefined);
    const after = reports.keep(report("R1", "after", START_MS));
    assert.equal(reportSince(reports, "R1", START_MS, before), after);
    assert.equal(reportSince(reports, "R1", START_MS, new Set(["R1/after"])), reports.get("R1/earlier", "R1"));
  });
});

describe("a start's task report: kept, else listed (listedReportOfStart)", () => {
  const NOW = Date.now();
  function listing(answer: Record<string, unknown>[]) {
    const calls: Record<string, unknown>[] = [];
    const client = {
      listTaskReports(params: Record<string, unknown>, options: { callClass?: string }) {
        calls.push({ ...params, callClass: options.callClass });
        return Promise.resolve({ robotTaskReports: answer });
      },
    } as unknown as RobotClient;
    return { client, calls };
  }
  const listed = (id: string, startMs: number) => ({
    id,
    startTime: new Date(startMs).toISOString(),
    endTime: new Date(startMs + 1000).toISOString(),
  });

  it("takes a report the account keeps without a call", async () => {
    const kept = new AccountReports();
    const known = kept.keep(report("R1", "pushed", NOW));
    const { client, calls } = listing([]);
    assert.equal(await listedReportOfStart(client, kept, { serialNumber: "R1", sinceMs: NOW }, {}), known);
    assert.equal(calls.length, 0);
  });

  it("lists the robot's reports in the window from the start (clock skew each side) as a sweep, keeps them, and answers the newest", async () => {
    const kept = new AccountReports();
    const { client, calls } = listing([listed("new", NOW + 500), listed("older", NOW - CLOCK_SKEW_MS - 1)]);
    const before = Date.now();
    const found = await listedReportOfStart(client, kept, { serialNumber: "R1", sinceMs: NOW }, {});
    assert.equal(found?.id, "new");
    assert.ok(kept.get("R1/new", "R1"), "kept for the account");
    assert.equal(kept.get("R1/older", "R1"), undefined, "before the window: not this task's");
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.serialNumber, "R1");
    assert.equal(calls[0]!.callClass, "sweep");
    assert.equal(calls[0]!.startTimeUtcFloor, NOW - CLOCK_SKEW_MS);
    const upper = calls[0]!.startTimeUtcUpper as number;
    assert.ok(upper >= before + CLOCK_SKEW_MS && upper <= Date.now() + CLOCK_SKEW_MS, String(upper));
  });

  it("answers none when the only reports listed are those kept before", async () => {
    const kept = new AccountReports();
    kept.keep(report("R1", "earlier", NOW));
    const { client } = listing([listed("earlier", NOW)]);
    assert.equal(
      await listedReportOfStart(client, kept, { serialNumber: "R1", sinceMs: NOW, keptBefore: kept.keysOf("R1") }, {}),
      undefined,
    );
  });
});
