/** Which actions a robot's state allows, and the words for those it does not: the console's buttons and NOT_CONFIRMED's reason. */
import assert from "node:assert/strict";
import {
  allowedActions,
  commandOf,
  commandRefusal,
  refusalOf,
  refusalText,
  toChargerStopsTaskFirst,
  type RobotAction,
} from "../../src/api/watching/robot-actions";
import type { StatusReading } from "../../src/api/watching/status-reader";

const robot = (state: Partial<StatusReading>): StatusReading => ({
  serialNumber: "R1",
  online: true,
  taskState: "IDLE",
  emergencyStop: false,
  localizationState: "NORMAL",
  ...state,
});

describe("robot actions", () => {
  const table: Array<[string, Partial<StatusReading>, RobotAction[]]> = [
    ["idle", {}, ["startTask", "goTo", "toCharger"]],
    ["idle on its charger", { charging: true }, ["startTask", "goTo"]],
    // To its charger from a task: the task is stopped first (toChargerStopsTaskFirst).
    ["cleaning", { taskState: "RUNNING", taskName: "Lobby clean" }, ["toCharger", "pause", "stop"]],
    ["task paused", { taskState: "PAUSED", taskName: "Lobby clean" }, ["toCharger", "resume", "stop"]],
    // No status tells a paused navigation from a driving one: both pause and resume are offered.
    ["navigating (navStatus not NAVI_IDLE)", { navStatus: "NAVI_RUNNING" }, ["pause", "resume", "stop"]],
    ["navStatus NAVI_IDLE", { navStatus: "NAVI_IDLE" }, ["startTask", "goTo", "toCharger"]],
    ["lost", { localizationState: "LOST" }, []],
    ["offline", { online: false, taskState: "RUNNING" }, []],
    ["emergency stop", { emergencyStop: true }, []],
    ["remote control", { remoteControl: true }, []],
  ];
  for (const [name, state, allowed] of table) {
    it(`${name}: allows ${allowed.join(", ") || "nothing"}`, () => assert.deepEqual(allowedActions(robot(state)), allowed));
  }

  it("says why, in words that name what the robot is busy with and what to do", () => {
    const words = (action: RobotAction, state: Partial<StatusReading>) => refusalText(refusalOf(action, robot(state))!);
    assert.equal(words("goTo", { taskState: "RUNNING", taskName: "Lobby clean" }), "is cleaning Lobby clean: pause or stop it first");
    assert.equal(words("toCharger", { navStatus: "NAVI_RUNNING" }), "is driving: pause or stop it first");
    assert.equal(words("startTask", { taskState: "PAUSED", taskName: "Lobby clean" }), "has Lobby clean paused: resume or stop it first");
    assert.equal(words("goTo", { navStatus: "NAVI_RUNNING" }), "is driving: pause or stop it first");
    assert.equal(words("pause", {}), "is not cleaning or driving: nothing to pause");
    assert.equal(words("pause", { taskState: "PAUSED" }), "is paused already");
    assert.equal(words("resume", {}), "has nothing paused to resume");
    assert.equal(words("stop", {}), "is idle: nothing to stop");
    assert.equal(words("toCharger", { charging: true }), "is already charging");
    assert.equal(words("startTask", { online: false }), "is offline");
    assert.equal(
      words("pause", { taskState: "RUNNING", emergencyStop: true }),
      "has its emergency stop pressed: release it on the robot first",
    );
    assert.equal(words("startTask", { localizationState: "LOST" }), "is lost (not localized): relocalize it first");
  });

  it("stops a task first on the way to the charger: running or paused, not idle, driving or offline", () => {
    const cases: Array<[Partial<StatusReading>, boolean]> = [
      [{ taskState: "RUNNING" }, true],
      [{ taskState: "PAUSED" }, true],
      [{ taskState: "IDLE" }, false],
      [{ taskState: "OTHER" }, false],
      [{ navStatus: "NAVI_RUNNING" }, false],
    ];
    for (const [state, stops] of cases) assert.equal(toChargerStopsTaskFirst(robot(state)), stops, JSON.stringify(state));
  });

  it("turns pause, resume and stop into the task's or the navigation's command, as the robot is doing", () => {
    assert.deepEqual(
      (["pause", "resume", "stop"] as const).map((action) => commandOf(action, robot({ navStatus: "NAVI_RUNNING" }))),
      ["PAUSE_NAVIGATE", "RESUME_NAVIGATE", "STOP_NAVIGATE"],
    );
    assert.deepEqual(
      (["pause", "resume", "stop", "startTask", "toCharger"] as const).map((action) => commandOf(action, robot({ taskState: "RUNNING" }))),
      ["PAUSE_TASK", "RESUME_TASK", "STOP_TASK", "START_TASK", "CROSS_NAVIGATE"],
    );
    assert.deepEqual(commandRefusal("PAUSE_TASK", robot({})), { code: "nothingToPause" });
    assert.equal(commandRefusal("REMOTE_CONTROL_MOVE", robot({})), undefined, "no action stands for a single step");
  });
});
