/**
 * The same reports read as the same instants whatever the machine's time
 * zone: real Node-RED in a child process per zone (TZ must be set before
 * Node starts), with robot-events, robot-reports and robot-job on a fleet
 * stub, every time sent without a zone (test/support/cloud-time-child.ts).
 * A time without a zone is UTC (docs/cloud-api.md, "Times"): read as local
 * time, Europe/Berlin would put each report an hour early and Asia/Shanghai
 * eight, robot-job would miss the polled report of its own task, and the
 * early report's KPI day would be the day before.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { CHILD_NODE_OPTIONS } from "../support/child-node";
import type { CloudTimeFindings } from "../support/cloud-time-child";

const CHILD = path.join(__dirname, "..", "support", `cloud-time-child${path.extname(__filename)}`);
/** Each zone's offset in January, as getTimezoneOffset gives it (minutes behind UTC): the child ran in it. */
const ZONES = { UTC: 0, "Europe/Berlin": -60, "Asia/Shanghai": -480 } as const;

function runIn(zone: string): Promise<CloudTimeFindings> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...CHILD_NODE_OPTIONS, CHILD], { env: { ...process.env, TZ: zone }, timeout: 90_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`the child in ${zone} failed: ${stderr || error.message}`));
      resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as CloudTimeFindings);
    });
  });
}

/** What a time sent without a zone means: that time in UTC. */
const utc = (sent: string) => new Date(`${sent}Z`).toISOString();

describe("cloud times: the same instant in every time zone, through robot-events, robot-reports and robot-job", function () {
  this.timeout(120_000);
  const findings = new Map<string, CloudTimeFindings>();
  before(async () => {
    const runs = await Promise.all(Object.keys(ZONES).map(async (zone) => [zone, await runIn(zone)] as const));
    for (const [zone, found] of runs) findings.set(zone, found);
  });

  for (const [zone, offset] of Object.entries(ZONES)) {
    it(`in ${zone}: every node reads each zone-less time as UTC, robot-job finds its polled report, and the KPI day is the UTC day`, () => {
      const found = findings.get(zone)!;
      assert.equal(found.zone, zone);
      assert.equal(found.offsetMinutes, offset, "the child ran in the zone");
      const { sent } = found;
      assert.deepEqual(found.robotEvents, { pushed: utc(sent.pushed), early: utc(sent.early) }, "robot-events");
      assert.deepEqual(found.robotReports, { pushed: utc(sent.pushed), early: utc(sent.early), polled: utc(sent.polled) }, "robot-reports");
      assert.deepEqual(
        found.robotJob,
        { polled: { outcome: "completed", startTimeIso: utc(sent.polled) }, pushed: { outcome: "completed", startTimeIso: utc(sent.pushed) } },
        "robot-job",
      );
      assert.equal(found.earlyDay, sent.early.slice(0, 10), "the early report's day (robot-reports in UTC)");
    });
  }
});
