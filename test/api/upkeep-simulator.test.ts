/**
 * The upkeep forecast against the simulator's own wear (its truth, GET /_sim/robots/<serial>/wear), read over
 * HTTP as the account reads it: v1 batch statuses into the account's statuses and listed task reports into its
 * report store, which feed the upkeep history. A scrubber cleans 5.5 h a day on a test clock; after ten days the
 * table names the day its squeegee reaches the threshold, within one day of the day it does in the simulator for
 * a robot on a plan and within three for one cleaned on demand (the done-when, at the api level: the
 * Node-RED end-to-end test is robot-upkeep's).
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { readPlan } from "../../src/api/plans/plan";
import { plansOfAccount } from "../../src/api/plans/plan-book";
import { readReport } from "../../src/api/reports/reading";
import { reportsOfAccount } from "../../src/api/reports/report-store";
import { upkeepHistoryOf } from "../../src/api/upkeep/history";
import { upkeepTableOfAccount } from "../../src/api/upkeep/table-builder";
import { fleetStatusesOf } from "../../src/api/watching/fleet-statuses";
import { DEMO_TOKEN, type WearTruth } from "../../src/simulator";
import { rawRequest } from "../support/raw-http";
import { useSimulator } from "../support/simulator";

const KITCHEN = "GS-S-000102";
const ACCOUNT = "upkeep-simulator-test";
const START_MS = Date.parse("2026-01-05T00:00:00Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const THRESHOLD = 0.2;
const HOURS_A_DAY = 5.5;

type Json = Record<string, unknown>;

describe("upkeep forecast against the simulator's wear", function () {
  // The clock only moves on: each test starts at the midnight after the one before ended (the simulator's
  // reset keeps each robot's last elapsed time, so a clock set back would wear nothing).
  let clock = START_MS;
  let from = START_MS;
  const sim = useSimulator({ now: () => clock }, true);
  beforeEach(() => {
    from = Math.ceil((clock + 1) / DAY) * DAY;
  });
  afterEach(() => forgetAccountMemory());

  const ok = async (method: string, target: string, body?: unknown): Promise<Json> => {
    const answer = await rawRequest(sim.simulator.url, method, target, { token: DEMO_TOKEN, body });
    assert.equal(answer.status, 200, `${method} ${target}: ${JSON.stringify(answer.json)}`);
    return answer.json as Json;
  };
  /** The robot's v1 status, kept as the account keeps every status it reads. */
  const readStatus = async () => {
    const { robotStatuses } = (await ok("GET", `/v1alpha1/robots/-/status:batchGet?names=${KITCHEN}`)) as { robotStatuses: Json[] };
    fleetStatusesOf(ACCOUNT).record(robotStatuses, clock);
  };
  const command = (body: Json) => ok("POST", `/v1alpha1/robots/${KITCHEN}/commands`, { serialNumber: KITCHEN, ...body });
  /** A day: a status at 06:00, a scrubbing task from 07:00 for 5.5 h, its report kept, a status after it; the squeegee's share left then. */
  async function cleanDay(day: number): Promise<number> {
    clock = from + day * DAY + 6 * HOUR;
    await readStatus();
    clock += HOUR;
    const task = { name: "Round", map: "Floor 1", loop: false, loopCount: 1 };
    await command({
      remoteTaskCommandType: "START_TASK",
      commandParameter: { startTaskParameter: { cleaningMode: "__middle_cleaning", task } },
    });
    clock += HOURS_A_DAY * HOUR;
    await command({ remoteTaskCommandType: "STOP_TASK" });
    const window = `startTimeUtcFloor=${new Date(clock - DAY).toISOString()}&startTimeUtcUpper=${new Date(clock + 1).toISOString()}`;
    const listed = (await ok("GET", `/openapi/v2alpha1/robots/${KITCHEN}/taskReports?${window}&page=1&pageSize=10`)) as {
      robotTaskReports: Json[];
    };
    for (const report of listed.robotTaskReports) reportsOfAccount(ACCOUNT).keep(readReport(report, KITCHEN)!);
    clock += 30 * 60_000;
    await readStatus();
    return squeegeeOfTruth().then((part) => part.remaining);
  }
  const squeegeeOfTruth = async () =>
    ((await ok("GET", `/_sim/robots/${KITCHEN}/wear`)) as unknown as WearTruth).parts.find((part) => part.part === "softSqueegee")!;

  /** Ten days of cleaning, the table's forecast then, and the day (from the start) the squeegee reaches the threshold in the simulator. */
  async function forecastAndTruth(
    onPlan: boolean,
  ): Promise<{ forecastDay: number; crossedDay: number; basis: string; hoursPerDay?: number }> {
    upkeepHistoryOf(ACCOUNT);
    // 250 h of life, 100 used: 20 % left after 100 more cleaning hours, during the 19th day of cleaning (day 18).
    await ok("PATCH", `/_sim/robots/${KITCHEN}/wear`, { parts: { softSqueegee: { usedLife: 100 } } });
    if (onPlan) {
      const plans = plansOfAccount(ACCOUNT);
      plans.setPlan(
        "plan",
        { items: readPlan([{ name: "Kitchen", days: "daily", at: "07:00", map: "Floor 1", task: "Round" }]), timezone: "UTC" },
        from,
      );
      const plannedAt = new Date(from - DAY + 7 * HOUR).toISOString();
      const work = { kind: "task" as const, task: "Round", map: "Floor 1" };
      plans.settle("plan", {
        occurrenceId: "Kitchen@ran",
        item: "Kitchen",
        plannedAt,
        status: "done",
        job: {
          jobId: "j",
          serialNumber: KITCHEN,
          work,
          outcome: "stoppedByHand",
          endedAt: plannedAt,
          durationSeconds: HOURS_A_DAY * 3600,
          attempts: [],
        },
      });
    }
    for (let day = 0; day < 10; day++) await cleanDay(day);
    clock = from + 9 * DAY + 23 * HOUR;
    const [row] = upkeepTableOfAccount(ACCOUNT, [KITCHEN], { now: clock, threshold: THRESHOLD, zone: "UTC" });
    const squeegee = row!.parts.find((part) => part.part === "softSqueegee")!;
    assert.equal(squeegee.usedLife, 100 + 10 * HOURS_A_DAY);
    assert.ok(squeegee.forecast.dueDay, `a due day: ${JSON.stringify(squeegee)}`);
    let crossedDay = 10;
    while ((await cleanDay(crossedDay)) > THRESHOLD) crossedDay++;
    return {
      forecastDay: (Date.parse(squeegee.forecast.dueDay) - from) / DAY,
      crossedDay,
      basis: squeegee.forecast.basis,
      ...(squeegee.forecast.hoursPerDay !== undefined ? { hoursPerDay: squeegee.forecast.hoursPerDay } : {}),
    };
  }

  it("names the day within one day of the simulator's for a robot on a plan", async function () {
    const { forecastDay, crossedDay, basis, hoursPerDay } = await forecastAndTruth(true);
    assert.equal(basis, "plan");
    assert.equal(hoursPerDay, HOURS_A_DAY);
    assert.equal(crossedDay, 18);
    assert.ok(Math.abs(forecastDay - crossedDay) <= 1, `forecast day ${forecastDay}, the simulator's ${crossedDay}`);
  });

  it("names the day within three days of the simulator's for a robot cleaned on demand", async function () {
    const { forecastDay, crossedDay, basis } = await forecastAndTruth(false);
    assert.equal(basis, "recent");
    assert.equal(crossedDay, 18);
    assert.ok(Math.abs(forecastDay - crossedDay) <= 3, `forecast day ${forecastDay}, the simulator's ${crossedDay}`);
  });
});
