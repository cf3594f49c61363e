/**
 * The task fault (taskFaultRate, off unless asked for): a share of task
 * starts fail, refused as busy (B4 cmdStatus 7 with 2010100012, B3 400, a
 * START_TASK heard and not started) or with the battery failing partway (the
 * task ends in error, the robot goes to charge). Seeded dice: a run repeats.
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import { DEMO_TOKEN, demoFleet, startSimulator, type RunningSimulator, type SimMap } from "../../src/simulator";
import { FaultInjector, type TaskFault } from "../../src/simulator/faults/faults";
import type { Timing } from "../../src/simulator/world/timing";
import { failureOf } from "../support/failures";

const KITCHEN = "GS-S-000102";
const FLOOR_1 = demoFleet().robots[0]!.maps[0] as SimMap;
const AREA = FLOOR_1.partitions.find((partition) => partition.name === "Kitchen")!;
const TASK_MS = 600_000;

/** The first seed from 1 whose first task fault is of this kind. */
function seedWhoseFirstFaultIs(kind: TaskFault["kind"]): number {
  for (let seed = 1; ; seed++) if (new FaultInjector({ taskFaultRate: 1 }, seed).taskFault()?.kind === kind) return seed;
}

describe("simulator: task faults", function () {
  describe("the dice", () => {
    it("at rate 0 no start fails, at 1 every one does, each way about half the time, the battery failing 30-70 % into the task", () => {
      const none = new FaultInjector({ taskFaultRate: 0 }, 5);
      assert.ok(Array.from({ length: 50 }, () => none.taskFault()).every((fault) => fault === undefined));
      const all = new FaultInjector({ taskFaultRate: 1 }, 5);
      const faults = Array.from({ length: 200 }, () => all.taskFault()!);
      assert.ok(faults.every((fault) => fault !== undefined));
      const busy = faults.filter((fault) => fault.kind === "busy").length;
      assert.ok(busy > 70 && busy < 130, `busy ${busy} of 200`);
      for (const fault of faults)
        if (fault.kind === "battery") assert.ok(fault.atShare >= 0.3 && fault.atShare < 0.7, String(fault.atShare));
    });

    it("repeats under a seed, and does not shift the other dice", () => {
      const run = (seed: number) => {
        const injector = new FaultInjector({ taskFaultRate: 0.5 }, seed);
        return Array.from({ length: 30 }, () => JSON.stringify(injector.taskFault() ?? null));
      };
      assert.deepEqual(run(9), run(9));
      assert.notDeepEqual(run(9), run(10));
      const withTasks = new FaultInjector({ failRate: 0.5, ignoreRate: 0.5, taskFaultRate: 0.5 }, 3);
      const without = new FaultInjector({ failRate: 0.5, ignoreRate: 0.5 }, 3);
      for (let i = 0; i < 20; i++) {
        withTasks.taskFault();
        assert.deepEqual(withTasks.roll(), without.roll());
        assert.equal(withTasks.ignores(), without.ignores());
      }
    });
  });

  describe("through the API", () => {
    let clock = 1_900_000_000_000;
    let simulator: RunningSimulator | undefined;
    let client: RobotClient | undefined;

    async function start(seed: number, taskFaultRate = 1, timing: Partial<Timing> = {}) {
      simulator = await startSimulator({
        quiet: true,
        rateLimit: false,
        now: () => clock,
        seed,
        faults: { taskFaultRate },
        timing: { taskDurationMs: TASK_MS, navigationMs: 5000, batteryChargePerMinute: 5, ...timing },
      });
      client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN }, engine: { rateLimit: 0 } });
    }
    afterEach(async () => {
      client?.close();
      await simulator?.close();
    });
    const sendKitchenTask = () =>
      client!.sendTempTask({
        productId: KITCHEN,
        tempTaskCommand: {
          taskName: "Kitchen",
          cleaningMode: "清扫",
          loop: false,
          loopCount: 1,
          mapName: "Floor 1",
          startParam: { mapId: FLOOR_1.id, areaId: String(AREA.id) },
        },
      });
    const reports = async () =>
      (
        await client!.listTaskReports({
          serialNumber: KITCHEN,
          startTimeUtcFloor: new Date(clock - 3600_000).toISOString(),
          startTimeUtcUpper: new Date(clock + 1).toISOString(),
        })
      ).robotTaskReports;

    it("busy: a temporary task is refused as the cloud refuses one for a robot with a task already there, though the robot is idle", async () => {
      await start(seedWhoseFirstFaultIs("busy"));
      const refusal = await failureOf(sendKitchenTask());
      assert.match(refusal.message, /cmdResultCode 2010100012: a temporary task is already there/);
      assert.equal(simulator!.state.robot(KITCHEN)!.taskState, "IDLE");
    });

    it("busy: a START_TASK is accepted, heard and not started: a report of a task that failed to start", async () => {
      await start(seedWhoseFirstFaultIs("busy"));
      await client!.submitCommand({
        serialNumber: KITCHEN,
        remoteTaskCommandType: "START_TASK",
        commandParameter: {
          startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Kitchen", map: "Floor 1", loop: false, loopCount: 1 } },
        },
      });
      assert.equal(simulator!.state.robot(KITCHEN)!.taskState, "IDLE");
      const [report] = await reports();
      assert.equal(report?.taskEndStatus, 3);
    });

    it("battery: the task runs, then its battery falls below 5 %, it ends in error and the robot goes to charge", async () => {
      const seed = seedWhoseFirstFaultIs("battery");
      const { atShare } = new FaultInjector({ taskFaultRate: 1 }, seed).taskFault() as { atShare: number };
      await start(seed);
      const startedAt = clock;
      const answer = (await sendKitchenTask()) as unknown as Record<string, unknown>;
      assert.equal(answer.cmdStatus, 5, "accepted");
      const failsAt = startedAt + Math.ceil(atShare * TASK_MS);
      clock = failsAt - 1000;
      assert.equal((await client!.getRobotStatus({ serialNumber: KITCHEN })).taskState, "RUNNING", "a second before");
      clock = failsAt;
      const failed = await client!.getRobotStatus({ serialNumber: KITCHEN });
      assert.equal(failed.taskState, "IDLE");
      assert.ok((failed.battery as { powerPercentage: number }).powerPercentage < 5);
      assert.equal(simulator!.state.robot(KITCHEN)!.navigation?.position, "charging");
      const [report] = await reports();
      assert.equal(report?.taskEndStatus, 2, "ended in error");
      clock += 5000;
      const docked = await client!.getRobotStatus({ serialNumber: KITCHEN });
      assert.equal((docked.battery as { charging: boolean }).charging, true, "at the charger");
      clock += 10 * 60_000;
      assert.ok(
        ((await client!.getRobotStatus({ serialNumber: KITCHEN })).battery as { powerPercentage: number }).powerPercentage >= 50,
        "charged back",
      );
    });

    it("at rate 0 (the default) a task runs its time", async () => {
      await start(seedWhoseFirstFaultIs("battery"), 0);
      await sendKitchenTask();
      clock += TASK_MS - 1000;
      assert.equal((await client!.getRobotStatus({ serialNumber: KITCHEN })).taskState, "RUNNING");
      clock += 1000;
      const [report] = await reports();
      assert.equal(report?.taskEndStatus, 0);
    });

    it("a task that ran out between two reads ends at the moment it ran out, not at the read after", async () => {
      await start(seedWhoseFirstFaultIs("battery"), 0);
      const startedAt = clock;
      await sendKitchenTask();
      clock += TASK_MS + 60_000;
      const [report] = await reports();
      assert.equal(report?.durationSeconds, TASK_MS / 1000);
      assert.equal(report?.endTime, new Date(startedAt + TASK_MS).toISOString());
    });

    it("a battery that failed between two reads: the report ends and the trip to the charger starts at the failure", async () => {
      const seed = seedWhoseFirstFaultIs("battery");
      const { atShare } = new FaultInjector({ taskFaultRate: 1 }, seed).taskFault() as { atShare: number };
      await start(seed);
      const startedAt = clock;
      await sendKitchenTask();
      const failedAt = startedAt + atShare * TASK_MS;
      // The trip takes navigationMs (5 s): read 4 s late, then just before and at its arrival.
      clock = Math.ceil(failedAt) + 4000;
      const [report] = await reports();
      assert.equal(report?.taskEndStatus, 2, "ended in error");
      assert.equal(report?.durationSeconds, Math.round((atShare * TASK_MS) / 1000));
      clock = Math.floor(failedAt) + 4999;
      assert.equal(
        ((await client!.getRobotStatus({ serialNumber: KITCHEN })).battery as { charging: boolean }).charging,
        false,
        "still on its way",
      );
      clock = Math.ceil(failedAt) + 5000;
      assert.equal(
        ((await client!.getRobotStatus({ serialNumber: KITCHEN })).battery as { charging: boolean }).charging,
        true,
        "at the charger",
      );
    });
  });
});
