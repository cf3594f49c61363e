/**
 * Watching at the API layer: the watched part of each status shape, the diff
 * (a pure function), a fleet watcher on 200 robots of a recording fleet
 * (exactly the changes injected, batches of at most 11, the account's rate),
 * the poll loop's failure streaks, and the confirmation poller shared by every
 * command waiting on one account.
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import { commandConfirmationRule, tempTaskConfirmationRule } from "../../src/api/watching/confirmation";
import { RobotApiError } from "../../src/api/errors";
import { ConfirmationPoller } from "../../src/api/watching/confirmation-poller";
import { fleetStatusesOf } from "../../src/api/watching/fleet-statuses";
import { FleetWatcher, WatchLoop, type RobotUpdate } from "../../src/api/watching/watcher";
import { diffWatchedStates, watchedStateOf, type WatchedState } from "../../src/api/watching/watcher-state";
import { DEMO_TOKEN, startSimulator } from "../../src/simulator";
import { FakeClock, drained } from "../support/fake-clock";
import { FleetStub, stubSerial } from "../support/fleet-stub";
import { failureOf } from "../support/failures";
import { busiestSecond } from "../support/busiest-second";

const THRESHOLDS = { step: 10, low: 20 };

function state(fields: Partial<WatchedState> = {}): WatchedState {
  return {
    serialNumber: "GS-S-000101",
    online: true,
    taskState: "IDLE",
    charging: false,
    battery: 85,
    emergencyStop: false,
    localizationState: "NORMAL",
    ...fields,
  };
}

describe("api: watching robots", function () {
  describe("watchedStateOf", function () {
    it("reads the S-line (B1) shape", function () {
      const read = watchedStateOf({
        serialNumber: "GS-S-000101",
        online: true,
        taskState: "RUNNING",
        battery: { powerPercentage: 64, charging: false },
        emergencyStop: { enabled: true },
        localizationInfo: { localizationState: "LOST" },
        currentTask: { name: "Lobby" },
        navStatus: "NAVI_IDLE",
        remoteControl: { enabled: false },
      });
      assert.deepEqual(read, {
        serialNumber: "GS-S-000101",
        online: true,
        taskState: "RUNNING",
        charging: false,
        battery: 64,
        emergencyStop: true,
        localizationState: "LOST",
        taskName: "Lobby",
        navStatus: "NAVI_IDLE",
        remoteControl: false,
      });
    });

    it("reads the v1 shape: the serial number from name, soc as a string, the executing task", function () {
      const read = watchedStateOf({ name: "robots/GS-X-7", battery: { soc: "42", charging: true }, executingTask: { name: "Hall" } });
      assert.equal(read.serialNumber, "GS-X-7");
      assert.equal(read.battery, 42);
      assert.equal(read.charging, true);
      assert.equal(read.taskName, "Hall");
      assert.equal(read.online, undefined, "a field the status lacks stays undefined");
    });
  });

  describe("diffWatchedStates", function () {
    it("finds nothing when nothing that matters changed (a battery move within its band included)", function () {
      assert.deepEqual(diffWatchedStates(state({ battery: 85 }), state({ battery: 81 }), THRESHOLDS), {});
    });

    it("lists each change with old and new", function () {
      const changes = diffWatchedStates(
        state(),
        state({ online: false, taskState: "RUNNING", taskName: "Lobby", emergencyStop: true }),
        THRESHOLDS,
      );
      assert.deepEqual(changes, {
        online: { old: true, new: false },
        taskState: { old: "IDLE", new: "RUNNING" },
        taskName: { new: "Lobby" },
        emergencyStop: { old: false, new: true },
      });
    });

    it("reports the battery when it crosses a multiple of the step, and batteryLow when it crosses the low mark", function () {
      assert.deepEqual(diffWatchedStates(state({ battery: 31 }), state({ battery: 29 }), THRESHOLDS), { battery: { old: 31, new: 29 } });
      assert.deepEqual(diffWatchedStates(state({ battery: 25 }), state({ battery: 19 }), THRESHOLDS), {
        battery: { old: 25, new: 19 },
        batteryLow: { old: false, new: true },
      });
      assert.deepEqual(
        diffWatchedStates(state({ battery: 21 }), state({ battery: 20 }), THRESHOLDS),
        {
          batteryLow: { old: false, new: true },
        },
        "at the low mark counts as low (and 21 -> 20 stays in the 20-29 band)",
      );
      assert.deepEqual(
        diffWatchedStates(state({ battery: 19 }), state({ battery: 18 }), { step: 25, low: 20 }),
        {},
        "within a 25 % band and still low",
      );
    });

    it("lists every known property with no old value on a robot's first report", function () {
      const changes = diffWatchedStates(undefined, state({ battery: 15 }), THRESHOLDS);
      assert.deepEqual(changes, {
        online: { new: true },
        taskState: { new: "IDLE" },
        charging: { new: false },
        battery: { new: 15 },
        batteryLow: { new: true },
        emergencyStop: { new: false },
        localizationState: { new: "NORMAL" },
      });
    });

    it("with moves, reports the map and a move of 1 pixel or a turn of 5 degrees, and not a smaller jitter; without, never", function () {
      const at = (x: number, y: number, angle: number, mapId = "floor-1") => state({ mapId, position: { x, y, angle } });
      assert.deepEqual(diffWatchedStates(at(100, 50, 90), at(100.5, 50.5, 93), THRESHOLDS, true), {}, "jitter");
      assert.deepEqual(diffWatchedStates(at(100, 50, 90), at(101, 50, 90), THRESHOLDS, true), {
        position: { old: { x: 100, y: 50, angle: 90 }, new: { x: 101, y: 50, angle: 90 } },
      });
      assert.deepEqual(
        Object.keys(diffWatchedStates(at(100, 50, 178), at(100, 50, -177), THRESHOLDS, true)),
        ["position"],
        "a turn across 180 degrees counts by its size",
      );
      assert.deepEqual(Object.keys(diffWatchedStates(at(100, 50, 178), at(100, 50, -179), THRESHOLDS, true)), [], "3 degrees across 180");
      assert.deepEqual(Object.keys(diffWatchedStates(at(100, 50, 0), at(100, 50, 0, "floor-2"), THRESHOLDS, true)), ["map"]);
      assert.deepEqual(
        diffWatchedStates(at(100, 50, 0), state({ mapId: "floor-1" }), THRESHOLDS, true),
        { position: { old: { x: 100, y: 50, angle: 0 } } },
        "lost its position",
      );
      assert.deepEqual(
        diffWatchedStates(at(100, 50, 90), at(300, 50, 0, "floor-2"), THRESHOLDS),
        {},
        "moves are not compared unless asked",
      );
    });

    it("reads the map and the position from a status's localizationInfo, numbers sent as strings too", function () {
      const read = watchedStateOf({
        serialNumber: "GS-S-000101",
        localizationInfo: { map: { id: "floor-1" }, mapPosition: { x: "903", y: 426, angle: -92.7 } },
      });
      assert.equal(read.mapId, "floor-1");
      assert.deepEqual(read.position, { x: 903, y: 426, angle: -92.7 });
      assert.equal(
        watchedStateOf({ serialNumber: "GS-S-000101", localizationInfo: { localizationState: "LOST", map: { id: "floor-1" } } }).position,
        undefined,
      );
    });
  });

  describe("FleetWatcher on 200 robots", function () {
    const ROBOTS = 200;
    let stub: FleetStub;
    let client: RobotClient;

    before(async function () {
      stub = await new FleetStub(ROBOTS).start();
      client = new RobotClient({ baseUrl: stub.url, auth: { token: "tok-watch-1" } });
    });
    after(async function () {
      client.close();
      await stub.server.stop();
    });

    it("reports every robot once, then exactly the changes made, in batches of at most 11 at the account's rate", async function () {
      this.timeout(60_000);
      const watcher = new FleetWatcher(client, { serialNumbers: [], line: "v1", thresholds: THRESHOLDS });

      const first = await watcher.poll();
      assert.equal(first.updates.length, ROBOTS);
      assert.ok(first.updates.every((update) => update.initial && !update.wentOffline));
      assert.deepEqual(first.summary.robots, ROBOTS);
      assert.equal(first.summary.online, ROBOTS);

      stub.clearRequests();
      const quiet = await watcher.poll();
      assert.deepEqual(quiet.updates, [], "nothing changed, nothing reported");
      const batches = stub.batchRequests();
      assert.equal(batches.length, Math.ceil(ROBOTS / 11));
      assert.ok(batches.every((batch) => batch.names.length <= 11));
      assert.equal(new Set(batches.flatMap((batch) => batch.names)).size, ROBOTS, "every robot asked for once");
      assert.equal(
        stub.server.requests.filter((request) => request.path.startsWith("/v1alpha1/robots?")).length,
        3,
        "the robot list: two full pages and the empty one that ends it",
      );
      assert.ok(busiestSecond(stub.server.requests.map((request) => request.at)) <= 20, "within the account's 20 requests/s");

      stub.update(stubSerial(7), (status) => (status.online = false));
      stub.update(stubSerial(50), (status) => (status.battery.powerPercentage = 19));
      stub.update(stubSerial(199), (status) => {
        status.taskState = "RUNNING";
        status.currentTask = { name: "Lobby" };
      });
      stub.update(stubSerial(120), (status) => (status.battery.powerPercentage = 81));
      const changed = await watcher.poll();
      const bySerial = new Map<string, RobotUpdate>(changed.updates.map((update) => [update.serialNumber, update]));
      assert.deepEqual([...bySerial.keys()].sort(), [stubSerial(7), stubSerial(50), stubSerial(199)]);
      assert.deepEqual(bySerial.get(stubSerial(7))!.changes, { online: { old: true, new: false } });
      assert.equal(bySerial.get(stubSerial(7))!.wentOffline, true);
      assert.deepEqual(bySerial.get(stubSerial(50))!.changes, { battery: { old: 85, new: 19 }, batteryLow: { old: false, new: true } });
      assert.deepEqual(bySerial.get(stubSerial(199))!.changes, { taskState: { old: "IDLE", new: "RUNNING" }, taskName: { new: "Lobby" } });
      assert.equal(changed.summary.online, ROBOTS - 1);
    });

    it("asks only for the robots named, and the S-line batch when told so", async function () {
      stub.clearRequests();
      const watcher = new FleetWatcher(client, { serialNumbers: [stubSerial(1), stubSerial(2)], line: "s", thresholds: THRESHOLDS });
      const { updates } = await watcher.poll();
      assert.equal(updates.length, 2);
      assert.deepEqual(
        stub.server.requests.map((request) => request.path),
        ["/openapi/v2alpha1/s/robots/*/status:batchGet"],
      );
      assert.deepEqual(stub.server.requests[0]!.body, { names: [stubSerial(1), stubSerial(2)] });
    });
  });

  describe("FleetWatcher on the simulator grown to 200 robots", function () {
    it("reports exactly the changes made to robots through the simulator, with no rate-limited answer at the account's 20/s", async function () {
      this.timeout(60_000);
      const lines: string[] = [];
      const simulator = await startSimulator({ robots: 200, log: (line) => lines.push(line) });
      const client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN } });
      try {
        const watcher = new FleetWatcher(client, { serialNumbers: [], line: "v1", thresholds: THRESHOLDS });
        assert.equal((await watcher.poll()).updates.length, 200);
        assert.deepEqual((await watcher.poll()).updates, []);
        simulator.updateRobot("GS-S-100050", { online: false });
        simulator.updateRobot("GS-S-000102", { emergencyStop: true, localizationState: "LOST" });
        const { updates } = await watcher.poll();
        assert.deepEqual(
          updates.map((update) => [update.serialNumber, update.changes]),
          [
            ["GS-S-000102", { emergencyStop: { old: false, new: true }, localizationState: { old: "NORMAL", new: "LOST" } }],
            ["GS-S-100050", { online: { old: true, new: false } }],
          ],
        );
        assert.deepEqual(
          lines.filter((line) => / 429/.test(line)),
          [],
          "the simulator's 20 requests/s per token were never exceeded",
        );
      } finally {
        client.close();
        await simulator.close();
      }
    });
  });

  describe("WatchLoop", function () {
    it("polls every interval, reports a failure streak once and its end once", async function () {
      const clock = new FakeClock();
      const outcomes: (Error | "ok")[] = [];
      const fake = {
        poll: () =>
          outcomes.shift() === "ok"
            ? Promise.resolve({ updates: [], summary: { robots: 1, online: 1, at: new Date() } })
            : Promise.reject(new RobotApiError({ kind: "timeout", message: "slow" })),
      };
      outcomes.push("ok", new Error(), new Error(), new Error(), "ok", "ok");
      const seen: string[] = [];
      const loop = new WatchLoop(
        fake as unknown as FleetWatcher,
        5000,
        {
          polled: () => seen.push("polled"),
          failing: (error, streak) => seen.push(`failing ${streak} ${error.code}`),
          failed: (error) => seen.push(`FAILED ${error.code}`),
          recovered: (failures) => seen.push(`recovered after ${failures}`),
        },
        clock,
      );
      loop.start();
      await drained();
      for (let poll = 0; poll < 5; poll++) await clock.advance(5000);
      loop.stop();
      await clock.advance(60_000);
      assert.deepEqual(seen, [
        "polled",
        "failing 1 TIMEOUT",
        "FAILED TIMEOUT",
        "failing 2 TIMEOUT",
        "failing 3 TIMEOUT",
        "recovered after 3",
        "polled",
        "polled",
      ]);
    });
  });

  describe("a bug inside the watcher or the poller", function () {
    it("reports a watcher's failure that is not the client's as INTERNAL_ERROR, not as a network failure", async function () {
      const clock = new FakeClock();
      const fake = { poll: () => Promise.reject(new TypeError("Cannot read properties of undefined (reading 'online')")) };
      const failed: RobotApiError[] = [];
      const loop = new WatchLoop(
        fake as unknown as FleetWatcher,
        5000,
        { polled: () => undefined, failed: (error) => failed.push(error), recovered: () => undefined },
        clock,
      );
      loop.start();
      await drained();
      loop.stop();
      assert.equal(failed.length, 1);
      assert.equal(failed[0]!.code, "INTERNAL_ERROR");
      assert.equal(failed[0]!.kind, "internal");
      assert.match(
        failed[0]!.message,
        /^watch: a bug in node-red-contrib-robot-fleet, not a fault of the cloud: TypeError: Cannot read properties/,
      );
      assert.match(failed[0]!.stack ?? "", /\n\s+at /, "the stack of what was thrown, to find the bug by");
    });

    it("tells a waiter of the confirmation poller once per run of failed reads, the client's failure as it is and a bug as INTERNAL_ERROR", async function () {
      const stub = await new FleetStub(3).start();
      const client = new RobotClient({ baseUrl: stub.url, auth: { token: "tok-confirm-2" }, retry: { maxRetries: 0 } });
      try {
        const clock = new FakeClock();
        const poller = new ConfirmationPoller(client, 2000, clock);
        const told: string[] = [];
        const waiting = failureOf(
          poller.waitFor(stubSerial(1), commandConfirmationRule({ remoteTaskCommandType: "PAUSE_TASK" })!, {
            timeoutMs: 30_000,
            onMissedLook: (failure) => told.push(failure.code),
          }),
        );
        const read = client.batchGetStatuses.bind(client);
        // One poll: the clock brings it on; it has ended when its next one is set beside the waiter's deadline.
        const look = async () => {
          await clock.advance(2000);
          while (clock.pending < 2) await new Promise((resolve) => setTimeout(resolve, 5));
        };
        client.batchGetStatuses = () => Promise.reject(new RobotApiError({ kind: "timeout", message: "slow" }));
        await look();
        await look();
        client.batchGetStatuses = read;
        await look();
        client.batchGetStatuses = () => Promise.reject(new TypeError("a bug"));
        await look();
        await look();
        assert.deepEqual(told, ["TIMEOUT", "INTERNAL_ERROR"], "once per run of failures, none for a good read");
        await clock.advance(30_000);
        assert.equal((await waiting).code, "NOT_CONFIRMED", "the waiter kept waiting until its deadline");
      } finally {
        client.close();
        await stub.server.stop();
      }
    });
  });

  describe("ConfirmationPoller", function () {
    let stub: FleetStub;
    let client: RobotClient;

    beforeEach(async function () {
      stub = await new FleetStub(60).start();
      client = new RobotClient({ baseUrl: stub.url, auth: { token: "tok-confirm-1" } });
    });
    afterEach(async function () {
      client.close();
      await stub.server.stop();
    });

    it("confirms each command of the table when the status shows its effect", async function () {
      const at = { x: 50, y: 50, angle: 0 };
      const cases: [Record<string, unknown>, (status: Parameters<Parameters<FleetStub["update"]>[1]>[0]) => void, string][] = [
        [
          { remoteTaskCommandType: "START_TASK", commandParameter: { startTaskParameter: { task: { name: "Lobby" } } } },
          (s) => Object.assign(s, { taskState: "RUNNING", currentTask: { name: "Lobby" } }),
          "RUNNING",
        ],
        [{ remoteTaskCommandType: "RESUME_TASK" }, (s) => (s.taskState = "RUNNING"), "RUNNING"],
        [{ remoteTaskCommandType: "PAUSE_TASK" }, (s) => (s.taskState = "PAUSED"), "PAUSED"],
        [{ remoteTaskCommandType: "STOP_TASK" }, (s) => (s.taskState = "IDLE"), "IDLE"],
        [
          { remoteNavigationCommandType: "CROSS_NAVIGATE", commandParameter: { startNavigationParameter: { position: "dock-2" } } },
          // Arrival as real statuses show it: the robot's mapPosition on the point's grid cell.
          (s) =>
            Object.assign(s, {
              localizationInfo: { ...s.localizationInfo, mapPosition: at },
              navigationPoints: { naviPoints: [{ naviPointName: "dock-2", navPointGridX: 50, navPointGridY: 52 }] },
            }),
          "ARRIVED at dock-2",
        ],
        [
          { remoteNavigationCommandType: "CROSS_NAVIGATE", commandParameter: { startNavigationParameter: { position: "charging" } } },
          (s) => (s.battery.charging = true),
          "charging",
        ],
        // Paused and stopped: standing still in two statuses in a row, navStatus not NAVI_IDLE / NAVI_IDLE.
        [
          { remoteNavigationCommandType: "PAUSE_NAVIGATE" },
          (s) => Object.assign(s, { localizationInfo: { ...s.localizationInfo, mapPosition: at }, navStatus: "NAVI_RUNNING" }),
          "PAUSED",
        ],
        [
          { remoteNavigationCommandType: "STOP_NAVIGATE" },
          (s) => Object.assign(s, { localizationInfo: { ...s.localizationInfo, mapPosition: at }, navStatus: "NAVI_IDLE" }),
          "STOPPED",
        ],
        [{ remoteControlCommandType: "REMOTE_CONTROL_START" }, (s) => (s.remoteControl = { enabled: true }), "remote control on"],
        [{ remoteControlCommandType: "REMOTE_CONTROL_STOP" }, (s) => (s.remoteControl = { enabled: false }), "remote control off"],
      ];
      const poller = new ConfirmationPoller(client, 30);
      await Promise.all(
        cases.map(async ([body, effect, expected], index) => {
          const serial = stubSerial(index + 1);
          if (expected === "IDLE") stub.update(serial, (s) => (s.taskState = "RUNNING"));
          if (expected === "remote control off") stub.update(serial, (s) => (s.remoteControl = { enabled: true }));
          const rule = commandConfirmationRule(body);
          assert.ok(rule, `a rule for ${JSON.stringify(body)}`);
          const waiting = poller.waitFor(serial, rule, { timeoutMs: 10_000 });
          await new Promise((resolve) => setTimeout(resolve, 80));
          assert.equal(poller.watching > 0, true);
          stub.update(serial, effect);
          const confirmed = await waiting;
          assert.equal(confirmed.state, expected, JSON.stringify(body));
          assert.equal(confirmed.status.serialNumber, serial);
        }),
      );
      assert.equal(commandConfirmationRule({ remoteControlCommandType: "REMOTE_CONTROL_MOVE" }), undefined, "a single step has no rule");
      assert.equal(poller.watching, 0, "nothing left waiting");
    });

    it("reads navStatus from the account's kept v1 read when its S-line reads carry none: left NAVI_IDLE, then back, is an arrival no status places", async function () {
      const serial = stubSerial(1);
      const kept = fleetStatusesOf(client.accountKey);
      const v1Read = (navStatus: string) => kept.record([{ name: `robots/${serial}`, serialNumber: serial, navStatus }]);
      v1Read("NAVI_RUNNING");
      const poller = new ConfirmationPoller(client, 30);
      const rule = commandConfirmationRule({
        remoteNavigationCommandType: "CROSS_NAVIGATE",
        commandParameter: { startNavigationParameter: { position: "dock-9" } },
      })!;
      const waiting = poller.waitFor(serial, rule, { timeoutMs: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(poller.watching, 1, "still navigating: not arrived");
      v1Read("NAVI_IDLE");
      const confirmed = await waiting;
      assert.equal(confirmed.state, "ARRIVED at dock-9");
      assert.equal("navStatus" in confirmed.status, false, "the S-line read itself carries none");
    });

    it("does not take a task already running for the one started", async function () {
      const serial = stubSerial(1);
      stub.update(serial, (s) => Object.assign(s, { taskState: "RUNNING", currentTask: { name: "Other" } }));
      const poller = new ConfirmationPoller(client, 30);
      const failure = await failureOf(
        poller.waitFor(serial, tempTaskConfirmationRule("Lobby"), { timeoutMs: 300, operation: "temporary task" }),
      );
      assert.equal(failure.code, "NOT_CONFIRMED");
      assert.match(
        failure.message,
        /GS-S-100001 is cleaning Other: pause or stop it first \(waited 0.3 s for task state RUNNING with task "Lobby"\)/,
      );
      assert.equal((failure.cause as { lastStatus: { currentTask: { name: string } } }).lastStatus.currentTask.name, "Other");
    });

    it("checks fifty waiting robots with batched reads: each robot at most once per poll, within the rate", async function () {
      this.timeout(30_000);
      const poller = new ConfirmationPoller(client, 200);
      const serials = Array.from({ length: 50 }, (_, index) => stubSerial(index + 1));
      const waits = serials.map((serial) =>
        failureOf(poller.waitFor(serial, commandConfirmationRule({ remoteTaskCommandType: "PAUSE_TASK" })!, { timeoutMs: 2500 })),
      );
      const failures = await Promise.all(waits);
      assert.ok(failures.every((failure) => failure.code === "NOT_CONFIRMED"));
      const batches = stub.batchRequests();
      assert.ok(batches.length >= 5, `at least one full poll (${batches.length} batch calls)`);
      assert.ok(batches.every((batch) => batch.names.length <= 11));
      // Group the calls into polls: a poll's five calls go out together, polls 200 ms apart.
      const polls: string[][] = [];
      for (const batch of batches) {
        const last = polls.at(-1);
        if (last && last.length < 50) last.push(...batch.names);
        else polls.push([...batch.names]);
      }
      for (const names of polls) assert.equal(new Set(names).size, names.length, "no robot read twice in one poll");
      assert.ok(busiestSecond(batches.map((batch) => batch.at)) <= 20, "within the account's 20 requests/s");
    });

    it("ends waiters as aborted when their signal aborts", async function () {
      const poller = new ConfirmationPoller(client, 30);
      const controller = new AbortController();
      const waiting = failureOf(
        poller.waitFor(stubSerial(1), tempTaskConfirmationRule(undefined), { timeoutMs: 10_000, signal: controller.signal }),
      );
      controller.abort();
      assert.equal((await waiting).code, "ABORTED");
      assert.equal(poller.watching, 0);
    });
  });
});
