/** The account's task reports apart from Node-RED: one per identity, two robots' reports with one id kept apart, a task's report found by its start. */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { readReport } from "../../src/api/reports/reading";
import { AccountReports, REPORTS_KEPT_PER_ROBOT, reportsOfAccount } from "../../src/api/reports/report-store";

const START_MS = Date.parse("2026-11-20T08:00:00Z");
const report = (serialNumber: string, id: string, startMs = START_MS, extra: Record<string, unknown> = {}) =>
  readReport(
    { id, startTime: new Date(startMs).toISOString(), endTime: new Date(startMs + 600_000).toISOString(), ...extra },
    serialNumber,
  )!;

describe("the account's task reports", () => {
  afterEach(forgetAccountMemory);

  it("keeps one report per identity: the same report again (pushed, then swept) is the one kept first", () => {
    const reports = new AccountReports();
    const pushed = report("R1", "5", START_MS, { taskEndStatus: 2 });
    assert.equal(reports.keep(pushed), pushed);
    const swept = readReport({ id: 5, startTime: new Date(START_MS).toISOString(), taskEndStatus: 2 }, "R1")!;
    assert.equal(reports.keep(swept), pushed, "the swept reading of the same report");
    assert.equal(reports.newestSince("R1", START_MS), pushed);
  });

  it("keeps two robots' reports with one id apart", () => {
    const reports = new AccountReports();
    const first = reports.keep(report("R1", "7"));
    const second = reports.keep(report("R2", "7"));
    assert.notEqual(first, second);
    assert.equal(reports.newestSince("R1", START_MS), first);
    assert.equal(reports.newestSince("R2", START_MS), second);
    assert.equal(reports.get(second.reportKey, "R2"), second);
  });

  it("finds the report of a task started at or after a time (a minute of clock skew allowed), the one that ended last", () => {
    const reports = new AccountReports();
    reports.keep(report("R1", "old", START_MS - 61_000));
    assert.equal(reports.newestSince("R1", START_MS), undefined, "started 61 s before");
    const skewed = reports.keep(report("R1", "skewed", START_MS - 60_000));
    assert.equal(reports.newestSince("R1", START_MS), skewed, "started 60 s before");
    const later = reports.keep(report("R1", "later", START_MS + 1000));
    assert.equal(reports.newestSince("R1", START_MS), later);
    assert.equal(reports.newestSince("R2", START_MS), undefined);
  });

  it("keeps the newest few per robot, and is the same object for every node of an account", () => {
    const reports = new AccountReports();
    for (let index = 0; index <= REPORTS_KEPT_PER_ROBOT; index++) reports.keep(report("R1", `r-${index}`, START_MS + index * 1000));
    assert.equal(reports.get("R1/r-0", "R1"), undefined, "the oldest forgotten");
    assert.ok(reports.get("R1/r-1", "R1"));
    assert.equal(reportsOfAccount("a"), reportsOfAccount("a"));
    assert.notEqual(reportsOfAccount("a"), reportsOfAccount("b"));
  });
});
