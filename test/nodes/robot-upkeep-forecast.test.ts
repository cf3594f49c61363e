/**
 * The done-when for the forecast, through real Node-RED against the
 * simulator, which wears its robots with cleaning time: 30 simulated days in
 * Europe/Berlin (this process's calendar moved, test/support/shifted-date.ts;
 * the plan on a fake clock moved with it). The Lobby scrubber cleans 2 h
 * every morning for robot-plan, the Kitchen scrubber 2 h on two days of
 * three, sent to robot-job on demand; robot-upkeep reads them after each
 * morning. Then its due day of each robot's soft squeegee is held to the day
 * the simulator's own truth (GET /_sim/robots/<serial>/wear) gives at the
 * robot's hours: within one day on the plan, within three on demand.
 */
import assert from "node:assert/strict";
import { DateTime } from "luxon";
import { startSimulator, DEMO_TOKEN, type RunningSimulator } from "../../src/simulator";
import type { UpkeepRobot } from "../../src/api/upkeep/table";
import robotJob from "../../src/nodes/robot-job";
import robotPlan from "../../src/nodes/robot-plan";
import robotUpkeep from "../../src/nodes/robot-upkeep";
import { runTaskOn } from "../support/client-on-server";
import { FakeClock } from "../support/fake-clock";
import { useJobFleet } from "../support/job-flow";
import { collectMessages, flowWith, helper, loadFlow, waitFor, type FlowNode } from "../support/node-red";
import { restoreDate, shiftDateTo } from "../support/shifted-date";

const BERLIN = "Europe/Berlin";
const PLANNED = "GS-S-000101";
const ON_DEMAND = "GS-S-000102";
const HOUR_MS = 3_600_000;
const TASK_HOURS = 2;
const DAYS = 30;
/** The on-demand robot cleans on two days of three. */
const cleansOnDemand = (day: number) => day % 3 !== 2;
/** Day `day` of June 2026 from the 1st, at `time`, in Berlin. */
const june = (day: number, time: string) => DateTime.fromISO(`2026-06-01T${time}`, { zone: BERLIN }).plus({ days: day }).toMillis();

describe("robot-upkeep: a part worn over 30 simulated days is due when the simulator says", function () {
  this.timeout(600_000);
  useJobFleet();
  let simulator: RunningSimulator | undefined;
  afterEach(async () => {
    helper.settings({});
    await simulator?.close();
    restoreDate();
  });

  it("within a day of the truth for a robot on a plan, within three for one cleaned on demand", async () => {
    shiftDateTo(june(0, "05:00"));
    const clock = new FakeClock(Date.now());
    helper.settings({ robotPlanClock: clock } as never);
    simulator = await startSimulator({ quiet: true, rateLimit: false, now: () => Date.now(), timing: { taskDurationMs: TASK_HOURS * HOUR_MS } });
    // Squeegees that reach 10 % about two weeks after the 30 days: 225 of their 250 h.
    simulator.changeWear(PLANNED, { parts: { softSqueegee: { usedLife: 135 } } });
    simulator.changeWear(ON_DEMAND, { parts: { softSqueegee: { usedLife: 165 } } });
    const plan = [{ name: "Lobby", days: "daily", at: "06:00", map: "Floor 1", area: "Lobby", robots: [PLANNED] }];
    const nodes: FlowNode[] = [
      { id: "plan", type: "robot-plan", robot: "config", timezone: BERLIN, lateBy: 15, skipDates: [], plan, wires: [["settled"], ["planProgress"], []] },
      { id: "planProgress", type: "helper" },
      { id: "job", type: "robot-job", robot: "config", minBattery: 0, waitUpTo: 30, tries: 3, confirmTimeout: 10, wires: [["jobs"], ["progress"]] },
      { id: "progress", type: "helper" },
      { id: "upkeep", type: "robot-upkeep", robot: "config", serialNumbers: `${PLANNED} ${ON_DEMAND}`, every: 0, wires: [["tables"], []] },
      { id: "settled", type: "helper" },
      { id: "jobs", type: "helper" },
      { id: "tables", type: "helper" },
      { id: "catch-errors", type: "catch", scope: ["plan", "job", "upkeep"], uncaught: false, wires: [["caught"]] },
      { id: "caught", type: "helper" },
    ];
    await loadFlow([robotJob, robotPlan, robotUpkeep], flowWith(simulator.url, nodes), { config: { token: DEMO_TOKEN } });
    const settled = collectMessages("settled");
    const jobs = collectMessages("jobs");
    const tables = collectMessages("tables");
    const progress = collectMessages("progress");
    const planProgress = collectMessages("planProgress");
    const caught = collectMessages("caught");
    const failed = () => (caught.length > 0 ? JSON.stringify(caught[0]!.error) : "");
    const moveTo = async (at: number) => {
      shiftDateTo(at);
      await clock.advanceTo(at);
    };
    const readUpkeep = async (): Promise<UpkeepRobot[]> => {
      const before = tables.length;
      helper.getNode("upkeep").receive({ payload: "read" });
      await waitFor(() => tables.length > before || caught.length > 0, 20_000, "the upkeep table");
      assert.equal(failed(), "");
      return tables[before]!.payload as UpkeepRobot[];
    };
    const startsOf = (events: Record<string, unknown>[]) => events.filter((msg) => (msg.payload as { event: string }).event === "started").length;

    await readUpkeep();
    let onDemandRuns = 0;
    for (let day = 0; day < DAYS; day++) {
      await moveTo(june(day, "06:00"));
      if (cleansOnDemand(day)) {
        helper.getNode("job").receive({ payload: { area: "Kitchen", map: "Floor 1", robots: [ON_DEMAND] } });
        onDemandRuns++;
      }
      // Each job's start confirmed before the clock moves on: the runners then follow the tasks to their ends.
      await waitFor(
        () => (startsOf(planProgress) === day + 1 && startsOf(progress) === onDemandRuns) || caught.length > 0,
        20_000,
        `day ${day}'s starts`,
      );
      assert.equal(failed(), "");
      // A minute past the task's end: the report still ends at the end (the simulator stamps the moment the task ran out).
      await moveTo(june(day, "06:00") + TASK_HOURS * HOUR_MS + 60_000);
      await waitFor(() => (settled.length === day + 1 && jobs.length === onDemandRuns) || caught.length > 0, 30_000, `day ${day}'s ends`);
      assert.equal(failed(), "");
      await readUpkeep();
    }
    const table = await readUpkeep();

    const squeegee = (serialNumber: string) => table.find((robot) => robot.serialNumber === serialNumber)!.parts.find((part) => part.part === "softSqueegee")!;
    const truthDay = (serialNumber: string, hoursPerDay: number) => {
      const truth = simulator!.wear(serialNumber, { share: 0.1, hoursPerDay });
      const at = truth.parts.find((part) => part.part === "softSqueegee")!.reachesShareAt!;
      return DateTime.fromISO(at, { zone: BERLIN }).toISODate()!;
    };
    const daysApart = (a: string, b: string) => Math.abs(DateTime.fromISO(a).diff(DateTime.fromISO(b), "days").days);

    const planned = squeegee(PLANNED);
    assert.equal(planned.forecast.basis, "plan");
    assert.ok(planned.forecast.historyDays >= 28, `history of ${planned.forecast.historyDays} days`);
    const plannedTruth = truthDay(PLANNED, TASK_HOURS);
    assert.ok(daysApart(planned.forecast.dueDay!, plannedTruth) <= 1, `forecast ${planned.forecast.dueDay}, truth ${plannedTruth}`);

    const onDemand = squeegee(ON_DEMAND);
    assert.equal(onDemand.forecast.basis, "recent");
    const onDemandTruth = truthDay(ON_DEMAND, (onDemandRuns * TASK_HOURS) / DAYS);
    assert.ok(daysApart(onDemand.forecast.dueDay!, onDemandTruth) <= 3, `forecast ${onDemand.forecast.dueDay}, truth ${onDemandTruth}`);
  });

  it("gives a due day for a robot whose tasks no node of the flow started: robot-upkeep reads its task reports itself", async () => {
    shiftDateTo(june(0, "05:00"));
    simulator = await startSimulator({ quiet: true, rateLimit: false, now: () => Date.now(), timing: { taskDurationMs: TASK_HOURS * HOUR_MS } });
    simulator.changeWear(PLANNED, { parts: { softSqueegee: { usedLife: 135 } } });
    const nodes: FlowNode[] = [
      { id: "upkeep", type: "robot-upkeep", robot: "config", serialNumbers: PLANNED, every: 0, wires: [["tables"], []] },
      { id: "tables", type: "helper" },
      { id: "catch-errors", type: "catch", scope: ["upkeep"], uncaught: false, wires: [["caught"]] },
      { id: "caught", type: "helper" },
    ];
    await loadFlow([robotUpkeep], flowWith(simulator.url, nodes), { config: { token: DEMO_TOKEN } });
    const tables = collectMessages("tables");
    const caught = collectMessages("caught");
    const readUpkeep = async (): Promise<UpkeepRobot[]> => {
      const before = tables.length;
      helper.getNode("upkeep").receive({ payload: "read" });
      await waitFor(() => tables.length > before || caught.length > 0, 20_000, "the upkeep table");
      assert.deepEqual(caught, []);
      return tables[before]!.payload as UpkeepRobot[];
    };
    const squeegee = (table: UpkeepRobot[]) => table[0]!.parts.find((part) => part.part === "softSqueegee")!;

    await readUpkeep();
    // Two mornings of 2 h, started from the robot's app (here: straight at the cloud): MIN_CLEANING_HOURS is 2.
    for (const day of [0, 1]) {
      shiftDateTo(june(day, "06:00"));
      await runTaskOn(simulator, PLANNED, "All of Floor 1", "Floor 1");
      shiftDateTo(june(day, "06:00") + TASK_HOURS * HOUR_MS);
      await readUpkeep();
    }
    const { forecast, wearPerCleaningHour } = squeegee(await readUpkeep());
    assert.equal(forecast.basis, "recent");
    assert.ok(forecast.dueDay, JSON.stringify(forecast));
    assert.ok(wearPerCleaningHour! > 0, `wear per cleaning hour ${wearPerCleaningHour}`);
  });
});
