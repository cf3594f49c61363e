/**
 * The simulator over time, through its HTTP API with a clock the test moves:
 * a command takes effect after the delay, navigation takes its time and
 * charges at "charging", batteries drain and charge, tasks finish and file a
 * report, a share of commands is ignored, robots change through PATCH
 * /_sim/robots/<serial> (offline robots do not act), and the fleet grows.
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import type { Faults } from "../../src/simulator/faults/faults";
import type { Timing } from "../../src/simulator/world/timing";
import { rawRequest } from "../support/raw-http";

const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";
const START_TASK = {
  remoteTaskCommandType: "START_TASK",
  commandParameter: {
    startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Lobby", map: "Floor 1", loop: false, loopCount: 1 } },
  },
} as const;
const navigate = (position: string) =>
  ({
    remoteNavigationCommandType: "CROSS_NAVIGATE",
    commandParameter: { startNavigationParameter: { map: "Floor 1", position } },
  }) as const;

describe("simulator: robots over time", function () {
  let clock = 1_900_000_000_000;
  let simulator: RunningSimulator;
  let client: RobotClient;

  async function start(timing: Partial<Timing>, extra: { robots?: number; faults?: Partial<Faults> } = {}) {
    simulator = await startSimulator({ quiet: true, rateLimit: false, now: () => clock, timing, ...extra });
    client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN }, engine: { rateLimit: 0 } });
  }
  afterEach(async () => {
    client?.close();
    await simulator?.close();
  });

  const status = async (serialNumber: string) =>
    client.getRobotStatus({ serialNumber }) as Promise<
      Record<string, unknown> & {
        battery: { powerPercentage: number; charging: boolean };
      }
    >;
  /** Where the robot's navigation stands: the simulator's own record, as no status carries it (recorded statuses show navStatus and mapPosition). */
  const navigationOf = (serialNumber: string) => simulator.state.robot(serialNumber)!.navigation;

  it("carries out an accepted command only after the command delay", async () => {
    await start({ commandDelayMs: 2000 });
    const resource = await client.submitCommand({ serialNumber: KITCHEN, ...START_TASK });
    assert.equal(resource.state, "WAITING");
    clock += 1999;
    assert.equal((await status(KITCHEN)).taskState, "IDLE", "not yet");
    clock += 1;
    assert.equal((await status(KITCHEN)).taskState, "RUNNING");
    assert.equal(simulator.state.robot(KITCHEN)!.currentTask?.name, "Lobby");
  });

  it("navigates for navigationMs, then arrives and charges at the charging point", async () => {
    await start({ commandDelayMs: 1000, navigationMs: 5000, batteryChargePerMinute: 6, batteryDrainPerMinute: 0 });
    await client.submitCommand({ serialNumber: KITCHEN, ...navigate("charging") });
    clock += 1000;
    const moving = await status(KITCHEN);
    assert.deepEqual(navigationOf(KITCHEN), { state: "NAVIGATING", mapName: "Floor 1", position: "charging" });
    assert.equal(moving.battery.charging, false);
    clock += 5000;
    const arrived = await status(KITCHEN);
    assert.deepEqual(navigationOf(KITCHEN), { state: "ARRIVED", mapName: "Floor 1", position: "charging" });
    assert.equal(arrived.battery.charging, true);
    assert.deepEqual((arrived.localizationInfo as { mapPosition: unknown }).mapPosition, {
      x: 64,
      y: 120,
      angle: 0,
      worldX: 3.2,
      worldY: 6,
    });
    const before = arrived.battery.powerPercentage;
    clock += 5 * 60_000;
    assert.equal((await status(KITCHEN)).battery.powerPercentage, before + 30, "6 % a minute for 5 minutes");
  });

  it("keeps a paused navigation's remaining time", async () => {
    await start({ commandDelayMs: 0, navigationMs: 10_000 });
    await client.submitCommand({ serialNumber: KITCHEN, ...navigate("Lobby entrance") });
    clock += 4000;
    await client.submitCommand({
      serialNumber: KITCHEN,
      remoteNavigationCommandType: "PAUSE_NAVIGATE",
      commandParameter: navigate("Lobby entrance").commandParameter,
    });
    clock += 60_000;
    assert.equal(navigationOf(KITCHEN)?.state, "PAUSED", "a paused robot does not arrive");
    await client.submitCommand({
      serialNumber: KITCHEN,
      remoteNavigationCommandType: "RESUME_NAVIGATE",
      commandParameter: navigate("Lobby entrance").commandParameter,
    });
    clock += 5999;
    assert.equal(navigationOf(KITCHEN)?.state, "NAVIGATING");
    clock += 1;
    assert.equal(navigationOf(KITCHEN)?.state, "ARRIVED", "4 s before the pause and 6 s after it");
  });

  it("drains the battery while cleaning, finishes a task after taskDurationMs and files its report", async () => {
    await start({ commandDelayMs: 0, taskDurationMs: 120_000, batteryDrainPerMinute: 1.5 });
    const reportsBefore = (await client.listTaskReports({ serialNumber: KITCHEN })).robotTaskReports.length;
    await client.submitCommand({ serialNumber: KITCHEN, ...START_TASK });
    clock += 60_000;
    const halfway = await status(KITCHEN);
    assert.equal(halfway.taskState, "RUNNING");
    assert.equal(halfway.battery.powerPercentage, 63, "64 % less 1.5 % in a minute, as a whole number");
    await client.submitCommand({ serialNumber: KITCHEN, remoteTaskCommandType: "PAUSE_TASK" });
    clock += 10 * 60_000;
    assert.equal((await status(KITCHEN)).taskState, "PAUSED", "paused time does not count");
    await client.submitCommand({ serialNumber: KITCHEN, remoteTaskCommandType: "RESUME_TASK" });
    clock += 60_000;
    const done = await status(KITCHEN);
    assert.equal(done.taskState, "IDLE");
    assert.equal(done.battery.powerPercentage, 61);
    const reports = (await client.listTaskReports({ serialNumber: KITCHEN })).robotTaskReports;
    assert.equal(reports.length, reportsBefore + 1);
    assert.equal(reports[0]!.displayName, "Lobby");
    assert.equal(reports[0]!.completionPercentage, 1);
  });

  it("stops a task when the battery runs out", async () => {
    await start({ commandDelayMs: 0, batteryDrainPerMinute: 10 });
    simulator.updateRobot(KITCHEN, { batteryPercentage: 15 });
    await client.submitCommand({ serialNumber: KITCHEN, ...START_TASK });
    clock += 2 * 60_000;
    const empty = await status(KITCHEN);
    assert.equal(empty.taskState, "IDLE");
    assert.equal(empty.battery.powerPercentage, 0);
  });

  it("ignores every command at ignoreRate 1 and none at 0, while accepting them all", async () => {
    await start({ commandDelayMs: 0 }, { faults: { ignoreRate: 1 } });
    assert.equal((await client.submitCommand({ serialNumber: KITCHEN, ...START_TASK })).state, "WAITING");
    clock += 60_000;
    assert.equal((await status(KITCHEN)).taskState, "IDLE");
    await simulator.close();
    client.close();
    await start({ commandDelayMs: 0 }, { faults: { ignoreRate: 0 } });
    await client.submitCommand({ serialNumber: KITCHEN, ...START_TASK });
    assert.equal((await status(KITCHEN)).taskState, "RUNNING");
  });

  it("switches ignoreRate while it runs through PUT /_sim/faults, as the command line's --ignore-rate", async () => {
    await start({ commandDelayMs: 0 });
    const ignoring = await rawRequest(simulator.url, "PUT", "/_sim/faults", {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ignoreRate: 1 }),
    });
    assert.equal(ignoring.status, 200, ignoring.text);
    assert.equal((JSON.parse(ignoring.text) as Faults).ignoreRate, 1);
    assert.equal((await client.submitCommand({ serialNumber: KITCHEN, ...START_TASK })).state, "WAITING");
    clock += 60_000;
    assert.equal((await status(KITCHEN)).taskState, "IDLE", "the accepted command was ignored");
    const carrying = await rawRequest(simulator.url, "PUT", "/_sim/faults", {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ignoreRate: 0 }),
    });
    assert.equal(carrying.status, 200, carrying.text);
    await client.submitCommand({ serialNumber: KITCHEN, ...START_TASK });
    assert.equal((await status(KITCHEN)).taskState, "RUNNING");
    const refused = await rawRequest(simulator.url, "PUT", "/_sim/faults", {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ignoreRate: 2 }),
    });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /ignoreRate: must be a number from 0 to 1/);
  });

  it("changes a robot through PATCH /_sim/robots/<serial>, naming a bad field, and an offline robot does not act", async () => {
    await start({ commandDelayMs: 1000 });
    const patched = await rawRequest(simulator.url, "PATCH", `/_sim/robots/${LOBBY}`, {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ online: false, batteryPercentage: 15, emergencyStop: true, localizationState: "LOST" }),
    });
    assert.equal(patched.status, 200, patched.text);
    const shown = patched.json as {
      online: boolean;
      battery: { powerPercentage: number };
      emergencyStop: { enabled: boolean };
      localizationInfo: { localizationState: string };
    };
    assert.equal(shown.online, false);
    assert.equal(shown.battery.powerPercentage, 15);
    assert.equal(shown.emergencyStop.enabled, true);
    assert.equal(shown.localizationInfo.localizationState, "LOST");
    const batch = await client.batchGetStatuses([LOBBY, KITCHEN], { line: "v1" });
    assert.deepEqual(
      batch.map((robot) => [robot.serialNumber, robot.online]),
      [
        [LOBBY, false],
        [KITCHEN, true],
      ],
    );

    await client.submitCommand({ serialNumber: LOBBY, ...START_TASK });
    clock += 5000;
    assert.equal((await status(LOBBY)).taskState, "IDLE", "offline: the command was accepted but not carried out");

    const bad = await rawRequest(simulator.url, "PATCH", `/_sim/robots/${LOBBY}`, {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ batteryPercentage: 140 }),
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /batteryPercentage/);
    const unknown = await rawRequest(simulator.url, "PATCH", `/_sim/robots/${LOBBY}`, {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ speed: 3 }),
    });
    assert.equal(unknown.status, 400);
    assert.match(unknown.text, /speed/);
    const missing = await rawRequest(simulator.url, "PATCH", "/_sim/robots/GS-NOPE", {
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    assert.equal(missing.status, 404);
    assert.throws(() => simulator.updateRobot(LOBBY, { taskState: "DANCING" } as never), /taskState/);
  });

  it("grows the fleet to 200 robots: all listed, page by page, and all in batch statuses", async () => {
    await start({}, { robots: 200 });
    const robots = await client.listAllRobots({ pageSize: 50 });
    assert.equal(robots.length, 200);
    assert.deepEqual(
      robots.slice(0, 3).map((robot) => robot.serialNumber),
      [LOBBY, KITCHEN, "GS-S-000201"],
    );
    assert.equal(robots[3]!.serialNumber, "GS-S-100004");
    const statuses = await client.batchGetStatuses(
      robots.map((robot) => robot.serialNumber),
      { line: "s" },
    );
    assert.equal(statuses.length, 200);
    assert.ok(statuses.every((robot) => robot.online === true));
  });
});
