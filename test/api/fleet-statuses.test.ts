/**
 * The account's last statuses (fleetStatusesOf): what FleetStatuses keeps and
 * in which order, and who fills it in one process: a fleet watcher's every
 * poll, the confirmation poller's S-line reads, each robot's last read of
 * each shape merged. Against the simulator, so the statuses are the cloud's shapes.
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { ConfirmationPoller } from "../../src/api/watching/confirmation-poller";
import { FleetStatuses, fleetStatusesOf } from "../../src/api/watching/fleet-statuses";
import { readStatus } from "../../src/api/watching/status-reader";
import { FleetWatcher } from "../../src/api/watching/watcher";
import { useClientOnSimulator } from "../support/client-on-server";

const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";

function status(serialNumber: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { serialNumber, online: true, taskState: "IDLE", ...fields };
}

describe("api: the account's last statuses", function () {
  describe("FleetStatuses", function () {
    it("keeps each robot's newest read, by serial number or v1 name, skips a status without one, and lists them by serial number", function () {
      const kept = new FleetStatuses();
      kept.record([status("B-2"), { name: "robots/A-1", online: false }, { online: true }], 1000);
      assert.equal(kept.size, 2, "the status without a serial number is not kept");
      assert.deepEqual(
        kept.all().map((entry) => [readStatus(entry.status).serialNumber, entry.at]),
        [
          ["A-1", 1000],
          ["B-2", 1000],
        ],
      );
      kept.record([status("B-2", { taskState: "RUNNING" })], 3000);
      kept.record([status("B-2", { taskState: "PAUSED" })], 2000);
      assert.equal(kept.get("B-2")?.status.taskState, "RUNNING", "a read older than the kept one does not replace it");
      assert.equal(kept.get("B-2")?.at, 3000);
      assert.equal(kept.get("C-3"), undefined);
    });

    it("tells when the very status it keeps was read, and nothing for a copy, one replaced by a newer read, or one never kept (a job's sighting is that time)", function () {
      const kept = new FleetStatuses();
      const first = status("A-1");
      kept.record([first], 1000);
      assert.equal(kept.readTimeOf(first), 1000);
      assert.equal(kept.readTimeOf({ ...first }), undefined, "a copy (another process's read of the same robot)");
      const second = status("A-1");
      kept.record([second], 2000);
      assert.equal(kept.readTimeOf(second), 2000);
      assert.equal(kept.readTimeOf(first), undefined, "replaced by a newer read");
      assert.equal(kept.readTimeOf(status("B-2")), undefined);
    });

    it("forgets the robot read longest ago past its capacity", function () {
      const kept = new FleetStatuses(2);
      kept.record([status("A-1")], 1);
      kept.record([status("B-2")], 2);
      kept.record([status("A-1")], 3);
      kept.record([status("C-3")], 4);
      assert.deepEqual(
        kept.all().map((entry) => entry.status.serialNumber),
        ["A-1", "C-3"],
      );
    });

    it("tells its listeners after a record that kept something, not after one that kept nothing, until stopped", function () {
      const kept = new FleetStatuses();
      let told = 0;
      const stop = kept.onChange(() => told++);
      kept.record([status("A-1")], 10);
      kept.record([status("A-1")], 5);
      kept.record([{ online: true }], 20);
      assert.equal(told, 1);
      stop();
      kept.record([status("A-1")], 30);
      assert.equal(told, 1);
    });

    it("records statuses each with its own read time (another instance's), an older one never over a newer", function () {
      const kept = new FleetStatuses();
      kept.record([status("A-1", { taskState: "RUNNING" })], 5000);
      kept.recordKept([
        { status: status("A-1", { taskState: "IDLE" }), at: 4000 },
        { status: status("B-2"), at: 4000 },
        { status: status("C-3"), at: 6000 },
        { status: status("D-4"), at: Number.NaN },
      ]);
      assert.deepEqual(
        kept.all().map((entry) => [entry.status.serialNumber, entry.status.taskState, entry.at]),
        [
          ["A-1", "RUNNING", 5000],
          ["B-2", "IDLE", 4000],
          ["C-3", "IDLE", 6000],
        ],
      );
    });

    it("merges a robot's last v1 and S-line reads: the newer one's facts, the tasks only the v1 read lists, the navigation points only the S-line read carries", function () {
      const kept = new FleetStatuses();
      const v1 = {
        name: "robots/A-1",
        serialNumber: "A-1",
        taskState: "RUNNING",
        executableTasks: [{ name: "All of Lobby" }],
        executingTask: { name: "All of Lobby", progress: 0.4, timeRemaining: 300 },
      };
      kept.record([v1], 1000);
      const points = (...names: string[]) => ({
        naviPoints: names.map((naviPointName) => ({ naviPointName, navPointGridX: 1, navPointGridY: 2 })),
      });
      const pointNames = (at: Record<string, unknown>) => readStatus(at).navigationPoints?.map((point) => point.name);
      kept.record([status("A-1", { taskState: "PAUSED", navigationPoints: points("charging") })], 2000);
      let merged = kept.get("A-1")!;
      assert.equal(merged.at, 2000);
      assert.equal(merged.status.taskState, "PAUSED", "the newer read's state");
      assert.deepEqual(merged.status.executableTasks, v1.executableTasks, "the tasks only the v1 read lists");
      assert.deepEqual(merged.status.executingTask, v1.executingTask, "a paused task keeps its progress");
      assert.deepEqual(pointNames(merged.status), ["charging"]);

      // The task ended: the next S-line read shows none running, and its progress is not carried on.
      kept.record([status("A-1", { taskState: "IDLE", navigationPoints: points("charging", "Lobby") })], 3000);
      merged = kept.get("A-1")!;
      assert.equal(merged.status.executingTask, undefined);
      assert.deepEqual(merged.status.executableTasks, v1.executableTasks);
      // A newer v1 read keeps the navigation points of the last S-line read (a v1 status has none).
      kept.record([{ ...v1, taskState: "IDLE", executingTask: undefined }], 4000);
      assert.deepEqual(pointNames(kept.get("A-1")!.status), ["charging", "Lobby"]);
      // An older read of a shape never replaces that shape's newer one.
      kept.record([status("A-1", { taskState: "RUNNING", navigationPoints: points("Old") })], 2500);
      assert.deepEqual(pointNames(kept.get("A-1")!.status), ["charging", "Lobby"]);
    });

    it("is one object per account in a process", function () {
      forgetAccountMemory();
      assert.equal(fleetStatusesOf("account-a"), fleetStatusesOf("account-a"));
      assert.notEqual(fleetStatusesOf("account-a"), fleetStatusesOf("account-b"));
    });
  });

  describe("filled by the reads", function () {
    const demo = useClientOnSimulator();

    beforeEach(function () {
      forgetAccountMemory();
    });

    it("a fleet watcher's poll keeps every robot it read, at the poll's time, with the running task's progress", async function () {
      await demo.client.submitCommand({
        serialNumber: KITCHEN,
        remoteTaskCommandType: "START_TASK",
        commandParameter: {
          startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Kitchen", map: "Floor 1", loop: false, loopCount: 1 } },
        },
      });
      const watcher = new FleetWatcher(demo.client, { serialNumbers: [], line: "v1", thresholds: { step: 10, low: 20 } });
      const { summary, statuses } = await watcher.poll();
      const kept = fleetStatusesOf(demo.client.accountKey);
      assert.equal(watcher.fleetStatuses, kept, "the account's object unless another is given");
      const listed = (await demo.client.listAllRobots()).map((robot) => robot.serialNumber).sort();
      assert.ok(listed.length > 1);
      assert.deepEqual(
        kept.all().map((entry) => readStatus(entry.status).serialNumber),
        listed,
      );
      assert.ok(kept.all().every((entry) => entry.at === summary.at.getTime()));
      assert.deepEqual(
        kept.get(LOBBY)?.status,
        statuses!.find((read) => read.serialNumber === LOBBY),
      );
      const kitchen = readStatus(kept.get(KITCHEN)!.status);
      assert.equal(kitchen.taskName, "Kitchen");
      assert.ok(
        kitchen.taskProgress !== undefined && kitchen.taskProgress >= 0 && kitchen.taskProgress <= 1,
        `progress ${kitchen.taskProgress}`,
      );
      assert.ok(kitchen.timeRemaining !== undefined && kitchen.timeRemaining > 0, `time remaining ${kitchen.timeRemaining}`);
    });

    it("the confirmation poller's S-line reads fill robots no v1 status is kept of, and add their navigation to the v1 ones", async function () {
      const kept = fleetStatusesOf(demo.client.accountKey);
      const [lobbyV1] = (await demo.client.batchGetStatuses([LOBBY], { line: "v1" })) as Record<string, unknown>[];
      kept.record([lobbyV1!], 1);
      const poller = new ConfirmationPoller(demo.client, 50);
      const seen: string[] = [];
      const stop = poller.observe(
        () => [LOBBY, KITCHEN],
        (statuses) => seen.push(...statuses.map((read) => String(read.serialNumber))),
      );
      try {
        for (let waited = 0; !seen.includes(KITCHEN) && waited < 5000; waited += 20)
          await new Promise((resolve) => setTimeout(resolve, 20));
      } finally {
        stop();
      }
      assert.ok(seen.includes(KITCHEN), "the poller read the robots");
      const lobby = kept.get(LOBBY)!.status;
      assert.deepEqual(lobby.executableTasks, lobbyV1!.executableTasks, "the v1 status's tasks stay");
      assert.ok(
        lobby.navigationPoints !== undefined && lobbyV1!.navigationPoints === undefined,
        "the S-line read's navigation points are added",
      );
      const kitchen = kept.get(KITCHEN);
      assert.ok(kitchen, "the kitchen robot, read only by the poller, is kept");
      assert.equal(kitchen.status.name, undefined, "as the S-line read it");
    });
  });
});
