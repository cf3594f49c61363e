/** The dispatch policy apart from Node-RED: which robot a job gets, and why each other robot does not. */
import assert from "node:assert/strict";
import { chooseRobot, robotFactsOf, type DispatchInput, type JobWork } from "../../src/api/jobs/dispatch";
import { AccountJobs, jobResult, runningJobEnd, type JobRecord } from "../../src/api/jobs/job-book";
import { NavigationFollower } from "../../src/api/watching/navigation";

/** A B1-shaped status on Floor 1, idle, at (x, y); `change` makes it differ. */
function status(serialNumber: string, x: number, y: number, change: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    serialNumber,
    displayName: `robot ${serialNumber}`,
    online: true,
    taskState: "IDLE",
    battery: { powerPercentage: 80, charging: false },
    emergencyStop: { enabled: false },
    localizationInfo: { localizationState: "NORMAL", map: { id: "map-1", name: "Floor 1" }, mapPosition: { x, y, angle: 0 } },
    navigationPoints: { naviPoints: [{ naviPointName: "Kitchen door", navPointGridX: 600, navPointGridY: 300 }] },
    cleanModes: [{ name: "__middle_cleaning" }],
    ...change,
  };
}

const TASK: JobWork = { kind: "task", task: "Kitchen", map: "Floor 1" };

function input(statuses: Record<string, unknown>[], settings: Partial<DispatchInput> = {}): DispatchInput {
  const facts = new Map(statuses.map((each) => [each.serialNumber as string, robotFactsOf(each)]));
  return {
    work: TASK,
    minBattery: 30,
    candidates: [...facts.keys()],
    facts,
    readNow: new Set(facts.keys()),
    heldByOther: () => false,
    alarmOf: () => undefined,
    setAside: {},
    ...settings,
  };
}

describe("dispatch policy", () => {
  it("gives each robot that may not take the job its reason, and the eligible one the job", () => {
    const table: Array<[string, Record<string, unknown>, string]> = [
      ["offline", { online: false }, "offline"],
      ["busy", { taskState: "RUNNING" }, "busy"],
      ["navigating", { navStatus: "NAVI_RUNNING" }, "busy"],
      ["navStatus NAVI_IDLE", { navStatus: "NAVI_IDLE" }, "eligible"],
      ["low", { battery: { powerPercentage: 12, charging: false } }, "battery 12 %"],
      [
        "other map",
        { localizationInfo: { localizationState: "NORMAL", map: { id: "map-2", name: "Floor 2" }, mapPosition: { x: 1, y: 1, angle: 0 } } },
        "other map",
      ],
      ["lost", { localizationInfo: { localizationState: "LOST", map: { id: "map-1", name: "Floor 1" } } }, "lost"],
      ["e-stop", { emergencyStop: { enabled: true } }, "emergency stop"],
      ["no task", { executableTasks: [{ name: "Lobby", map: { id: "map-1", name: "Floor 1" } }] }, "task not executable there"],
    ];
    const statuses = [
      status("FREE", 10, 10),
      ...table.map(([serialNumber, change]) => status(serialNumber, 600, 300, change)),
      status("ALARM", 600, 300),
      status("HELD", 600, 300),
      status("REFUSED", 600, 300),
    ];
    const choice = chooseRobot(
      input(statuses, {
        heldByOther: (serialNumber) => serialNumber === "HELD",
        alarmOf: (serialNumber) => (serialNumber === "ALARM" ? { rank: 6, name: "Brush motor stalled" } : undefined),
        setAside: { REFUSED: "refused: COMMAND_REJECTED" },
      }),
    );
    assert.equal(choice.chosen, "FREE");
    for (const [serialNumber, , reason] of table) assert.equal(choice.reasons[serialNumber], reason, serialNumber);
    assert.equal(choice.reasons.ALARM, "alarm H6 Brush motor stalled");
    assert.equal(choice.reasons.HELD, "held by another job");
    assert.equal(choice.reasons.REFUSED, "refused: COMMAND_REJECTED");
  });

  it("an alarm below H4 does not keep a robot from work; a robot not read yet has no status", () => {
    const choice = chooseRobot({
      ...input([status("A", 1, 1)], { alarmOf: () => ({ rank: 3, code: "W1" }) }),
      candidates: ["A", "UNREAD"],
    });
    assert.equal(choice.chosen, "A");
    assert.equal(choice.reasons.UNREAD, "no status yet");
  });

  it("chooses no robot on a kept status the dispatching poll did not read: its reason says so", () => {
    const robots = [status("KEPT", 1, 1, { battery: { powerPercentage: 99 } }), status("READ", 1, 1, { battery: { powerPercentage: 40 } })];
    const choice = chooseRobot(input(robots, { readNow: new Set(["READ"]) }));
    assert.equal(choice.chosen, "READ");
    assert.equal(choice.reasons.KEPT, "not read in the last poll");
    assert.deepEqual(chooseRobot(input(robots, { readNow: new Set() })), {
      reasons: { KEPT: "not read in the last poll", READ: "not read in the last poll" },
    });
  });

  it("prefers the robot nearest to a named point (pixel distance), then the highest battery, then the serial number", () => {
    const robots = [
      status("FAR", 100, 100),
      status("NEAR", 590, 310),
      status("NEARER-LOW", 600, 299, { battery: { powerPercentage: 31, charging: false } }),
    ];
    assert.equal(chooseRobot(input(robots, { near: "Kitchen door" })).chosen, "NEARER-LOW");
    assert.equal(chooseRobot(input(robots, { near: { x: 110, y: 90 } })).chosen, "FAR");
    assert.equal(
      chooseRobot(input([status("B", 1, 1, { battery: { powerPercentage: 60 } }), status("A", 1, 1, { battery: { powerPercentage: 90 } })]))
        .chosen,
      "A",
    );
    assert.equal(chooseRobot(input([status("B", 1, 1), status("A", 500, 500)])).chosen, "A", "same battery: by serial number");
    const choice = chooseRobot(input(robots, { near: "Kitchen door" }));
    assert.equal(choice.reasons.NEAR, "eligible");
  });

  it("a started task ends when the robot is neither running nor paused; a navigation when it arrived at its point", () => {
    const running = robotFactsOf(status("A", 1, 1, { taskState: "RUNNING" }));
    const idle = robotFactsOf(status("A", 1, 1));
    assert.deepEqual(runningJobEnd({ work: TASK }, running, undefined), { ended: false });
    assert.deepEqual(runningJobEnd({ work: TASK }, idle, undefined), { ended: true });
    const goto: JobWork = { kind: "goto", point: "Kitchen door", map: "Floor 1" };
    const navigation = new NavigationFollower("Kitchen door", 10);
    assert.deepEqual(runningJobEnd({ work: goto }, idle, navigation), { ended: false }, "far from the point");
    assert.deepEqual(runningJobEnd({ work: goto }, robotFactsOf(status("A", 600, 300)), navigation), { ended: true, outcome: "completed" });
  });

  it("holds a robot for one job at a time, and restores a node's jobs with their holds", () => {
    const book = new AccountJobs();
    assert.equal(book.hold("A", "job-1"), true);
    assert.equal(book.hold("A", "job-2"), false);
    book.release("A", "job-2");
    assert.equal(book.holderOf("A"), "job-1");
    const job: JobRecord = {
      jobId: "job-3",
      nodeId: "n",
      work: TASK,
      settings: { minBattery: 30, waitUpToMs: 0, tries: 3, confirmTimeoutMs: 1 },
      phase: "running",
      createdAt: 1,
      serialNumber: "B",
      startedAt: "2026-01-01T00:00:00.000Z",
      attempts: [{ serialNumber: "B", result: "started" }],
      setAside: {},
      onlineSeenAt: 5,
    };
    const other = new AccountJobs();
    const unknownState = { ...job, jobId: "job-4", phase: "paused" };
    assert.equal(
      other.restore("n", JSON.parse(JSON.stringify([job, { junk: true }, unknownState]))),
      1,
      "one job, not junk nor a state the table lacks",
    );
    assert.equal(other.holderOf("B"), "job-3");
    assert.equal(other.jobs.get("job-3")!.onlineSeenAt, undefined, "after a restart the offline count starts again");
    assert.equal(other.restore("n", [job]), 0, "a job already known is not taken twice");
    const result = jobResult(job, "completed", new Date("2026-01-01T00:01:00.000Z"));
    assert.equal(result.durationSeconds, 60);
    assert.equal(result.serialNumber, "B");
  });
});
