/**
 * The jobs' policies at their edges, written against the survivors of a StrykerJS run over src/api/jobs
 * (`npm run mutate -- --mutate "src/api/jobs/**\/*.ts"`): the battery exactly at the minimum and one each side, the
 * alarm rank that blocks (H3, H4, H5), which task states are busy, the nearest robot and its ties, the state table
 * move by move, a job's end and what the account's jobs take back, a job's start request, and the name check against
 * the account's robots with its kept reads. robot-job's own bounds (waitUpTo, the Redis claim, the offline limit)
 * are tested through Node-RED in test/nodes/robot-job-bounds.test.ts.
 *
 * Survivors accepted as equivalent (no test can tell them apart from the code as written):
 * - dispatch.ts isBusy(): `taskState !== undefined` replaced by true: the set of busy states does not hold undefined.
 * - dispatch.ts chooseRobot(): the distances compared when `near` is undefined (both are Infinity), `da < db` as
 *   `da <= db` (they differ there), and the serial numbers' comparator answering 1 or 0 when a is not before b, or
 *   `<=` for `<` (no two candidates share one: V8's sort asks only whether the answer is negative).
 * - job-start.ts startedRule(): a navigation not seen yet answered as its (absent) `shown`: undefined either way.
 * - dispatch.ts robotFactsOf(): its record() taking any value for an object: what is not an object has no progress,
 *   name or map either (JSON gives no array with such properties). listsTask()'s `?? []` as a list holding a string.
 * - job-book.ts outcomeOfReport(): `typeof outcome === "string"` replaced by true: a number or object names no outcome.
 *   add() and remove() holding or releasing a robot of no serial number: nothing asks for the holder of undefined.
 * - work-targets.ts: a robot on the map keeping an undefined mapId (read as no id either way), and `?? []` as a list
 *   holding a string (it names no map).
 * - job-book.ts, work-targets.ts: the names the account's memory keeps them under, replaced by "".
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import type { RobotClient } from "../../src/api/client";
import { areaTaskBody, navigateBody, startTaskBody } from "../../src/api/cloud/command-bodies";
import { isRobotApiError } from "../../src/api/errors";
import { chooseRobot, listsTask, robotFactsOf, type DispatchInput, type JobWork, type RobotFacts } from "../../src/api/jobs/dispatch";
import { AccountJobs, jobResult, jobsOfAccount, outcomeOfReport, runningJobEnd, type JobRecord } from "../../src/api/jobs/job-book";
import { startRequestFor, startedRule } from "../../src/api/jobs/job-start";
import {
  ENDED,
  IllegalTransition,
  JOB_PHASES,
  JOB_TRANSITIONS,
  nextPhase,
  type JobEvent,
  type JobState,
} from "../../src/api/jobs/job-states";
import { areaIdOf, cleaningModeFor, mapNameFor, stopBody } from "../../src/api/jobs/start-requests";
import { missingTarget } from "../../src/api/jobs/work-targets";
import { NavigationFollower } from "../../src/api/watching/navigation";
import type { WatchedState } from "../../src/api/watching/watcher-state";

const TASK: JobWork = { kind: "task", task: "Kitchen", map: "Floor 1" };
const GOTO: JobWork = { kind: "goto", point: "Kitchen door", map: "Floor 1" };
const AREA: JobWork = { kind: "area", area: "Lobby", map: "Floor 1" };

/** A robot idle on Floor 1 (map-1), online, at 80 %; `change` makes it differ. */
const facts = (serialNumber: string, change: Partial<RobotFacts> = {}): RobotFacts => ({
  serialNumber,
  online: true,
  taskState: "IDLE",
  battery: 80,
  emergencyStop: false,
  localizationState: "NORMAL",
  mapId: "map-1",
  mapName: "Floor 1",
  position: { x: 0, y: 0 },
  cleanModes: ["__middle_cleaning"],
  ...change,
});

function input(robots: RobotFacts[], settings: Partial<DispatchInput> = {}): DispatchInput {
  return {
    work: TASK,
    minBattery: 30,
    candidates: robots.map((robot) => robot.serialNumber),
    facts: new Map(robots.map((robot) => [robot.serialNumber, robot])),
    readNow: new Set(robots.map((robot) => robot.serialNumber)),
    heldByOther: () => false,
    alarmOf: () => undefined,
    setAside: {},
    ...settings,
  };
}
const reasonOf = (robot: RobotFacts, settings: Partial<DispatchInput> = {}) => {
  const choice = chooseRobot(input([robot], settings));
  return choice.chosen === robot.serialNumber ? "eligible" : choice.reasons[robot.serialNumber];
};

describe("jobs at their edges: which robot may take a job", () => {
  const batteries: [number | undefined, string][] = [
    [29, "battery 29 %"],
    [29.6, "battery 30 %"],
    [30, "eligible"],
    [31, "eligible"],
    [undefined, "battery unknown %"],
  ];
  for (const [battery, reason] of batteries) {
    it(`takes a robot at ${String(battery)} % against a minimum of 30 % as ${reason}`, () => {
      assert.equal(reasonOf(facts("R1", { battery })), reason);
    });
  }

  const alarms: [number, string][] = [
    [3, "eligible"],
    [4, "alarm H4 Brush"],
    [5, "alarm H5 Brush"],
  ];
  for (const [rank, reason] of alarms) {
    it(`takes a robot with an open alarm at H${rank} as ${reason}`, () => {
      assert.equal(reasonOf(facts("R1"), { alarmOf: () => ({ rank, name: "Brush" }) }), reason);
    });
  }

  const states: [string, string][] = [
    ["RUNNING", "busy"],
    ["PAUSED", "busy"],
    ["OTHER", "busy"],
    ["IDLE", "eligible"],
  ];
  for (const [taskState, reason] of states) {
    it(`takes a robot whose task state is ${taskState} as ${reason}`, () => {
      assert.equal(reasonOf(facts("R1", { taskState })), reason);
    });
  }

  it("words an alarm that names neither name nor code by its level alone", () => {
    assert.equal(reasonOf(facts("R1"), { alarmOf: () => ({ rank: 5 }) }), "alarm H5");
  });

  it("takes a robot on the job's map by its id as well as its name", () => {
    assert.equal(reasonOf(facts("R1", { mapName: "Etage 1" }), { work: { ...TASK, map: "map-1" } }), "eligible");
  });

  it("does not ask a goto or area job's robot for a task it lists", () => {
    const listing = facts("R1", { executableTasks: [{ name: "Lobby", mapName: "Floor 1" }] });
    assert.equal(reasonOf(listing, { work: GOTO }), "eligible");
    assert.equal(reasonOf(listing, { work: AREA }), "eligible");
    assert.equal(reasonOf(listing), "task not executable there");
  });

  const listed: [string, { name: string; mapId?: string; mapName?: string }[], boolean][] = [
    ["without a map", [{ name: "Kitchen" }], true],
    ["on the map by id", [{ name: "Kitchen", mapId: "Floor 1" }], true],
    ["on the map by name", [{ name: "Kitchen", mapName: "Floor 1" }], true],
    ["on another map", [{ name: "Kitchen", mapId: "map-2", mapName: "Floor 2" }], false],
    ["on another map named only", [{ name: "Kitchen", mapName: "Floor 2" }], false],
    ["on another map by id only", [{ name: "Kitchen", mapId: "map-2" }], false],
    ["another task on the map", [{ name: "Lobby", mapName: "Floor 1" }], false],
  ];
  for (const [what, executableTasks, lists] of listed) {
    it(`${lists ? "finds" : "does not find"} the task Kitchen on Floor 1 in a list with it ${what}`, () => {
      assert.equal(listsTask(facts("R1", { executableTasks }), "Kitchen", "Floor 1"), lists);
    });
  }

  it("finds no task in a status that lists none", () => {
    assert.equal(listsTask(facts("R1"), "Kitchen", "Floor 1"), false);
  });

  it("gives no robot when none is eligible", () => {
    assert.deepEqual(chooseRobot(input([facts("R1", { online: false })])), { reasons: { R1: "offline" } });
  });

  it("sends the robot nearest a pixel point, by both coordinates", () => {
    const robots = [facts("FAR", { position: { x: 100, y: -100 } }), facts("NEAR", { position: { x: 100, y: 100 } })];
    assert.equal(chooseRobot(input(robots, { near: { x: 100, y: 90 } })).chosen, "NEAR");
  });

  it("takes a pixel point at x or y 0, and a robot standing there, as placed: the one there is the nearest", () => {
    for (const point of [
      { x: 0, y: 7 },
      { x: 7, y: 0 },
      { x: 0, y: 0 },
    ]) {
      const robots = [
        facts("A-AWAY", { position: { x: point.x + 3, y: point.y + 3 }, battery: 90 }),
        facts("B-THERE", { position: point, battery: 40 }),
      ];
      assert.equal(chooseRobot(input(robots, { near: point })).chosen, "B-THERE", JSON.stringify(point));
    }
  });

  it("puts a robot the status does not place after one it places, and one without a position likewise", () => {
    const points = [{ name: "Kitchen door", grid: { x: 10, y: 10 } }] as RobotFacts["navigationPoints"];
    const placed = facts("Z-PLACED", { position: { x: 500, y: 500 }, navigationPoints: points, battery: 40 });
    const unplaced = facts("A-UNPLACED", { position: { x: 10, y: 10 }, battery: 90 });
    const nowhere = facts("B-NOWHERE", { position: undefined, navigationPoints: points, battery: 95 });
    assert.equal(chooseRobot(input([unplaced, nowhere, placed], { near: "Kitchen door" })).chosen, "Z-PLACED");
  });

  it("sends of two robots as near the one with the higher battery, and without a point the highest battery", () => {
    const robots = [facts("A", { position: { x: 10, y: 0 }, battery: 50 }), facts("B", { position: { x: 0, y: 10 }, battery: 90 })];
    assert.equal(chooseRobot(input(robots, { near: { x: 0, y: 0 } })).chosen, "B");
    assert.equal(chooseRobot(input(robots)).chosen, "B");
    assert.equal(chooseRobot(input([facts("B", { battery: 60 }), facts("A", { battery: 60 })])).chosen, "A", "then the serial number");
  });
});

describe("jobs at their edges: the facts read from a status", () => {
  it("reads the progress of the executing task, else the current one; none from what is not an object", () => {
    const base = { serialNumber: "R1", online: true };
    assert.equal(robotFactsOf({ ...base, currentTask: { progress: 0.4 } }).progress, 0.4);
    assert.equal(robotFactsOf({ ...base, executingTask: { progress: 0.7 }, currentTask: { progress: 0.4 } }).progress, 0.7);
    for (const executingTask of [null, [0.5], "0.5"]) assert.equal(robotFactsOf({ ...base, executingTask }).progress, undefined);
  });

  it("lists executable tasks through the status reader: by name, leaving out blank and non-text names, and keeping no navStatus not given", () => {
    const read = robotFactsOf({
      serialNumber: "R1",
      executableTasks: [
        { name: "Kitchen", map: { id: 7, name: "Floor 1" } },
        { name: 5 },
        { name: "" },
        { name: "Hall", map: { id: "", name: "" } },
        null,
      ],
    });
    assert.deepEqual(read.executableTasks, [{ name: "Kitchen", mapId: "7", mapName: "Floor 1" }, { name: "Hall" }]);
    assert.equal("navStatus" in read, false);
  });
});

describe("jobs at their edges: the state table", () => {
  const EVENTS: JobEvent[] = ["chosen", "claimed", "claimRefused", "shown", "setAside", "unsent", "robotDone", "cancel", "end"];
  const EXPECTED: Record<string, Partial<Record<JobEvent, JobState>>> = {
    waiting: { chosen: "claiming", cancel: "ending", end: "ended" },
    claiming: { claimed: "starting", claimRefused: "waiting", unsent: "waiting", cancel: "ending" },
    starting: { shown: "running", setAside: "waiting", unsent: "waiting", cancel: "ending" },
    running: { robotDone: "ending", cancel: "ending", end: "ended" },
    ending: { end: "ended" },
  };

  it("is the table the runner follows, ending in 'ended'", () => {
    assert.equal(ENDED, "ended");
    assert.deepEqual(JOB_TRANSITIONS, EXPECTED);
  });

  for (const phase of [...JOB_PHASES, ENDED] as JobState[]) {
    it(`moves a job in ${phase} only as the table says, and refuses every other event by name`, () => {
      for (const event of EVENTS) {
        const next = phase === ENDED ? undefined : EXPECTED[phase]![event];
        if (next !== undefined) assert.equal(nextPhase(phase, event, "j-1"), next, `${phase} ${event}`);
        else
          assert.throws(
            () => nextPhase(phase, event, "j-1"),
            (error: unknown) =>
              error instanceof IllegalTransition &&
              error.name === "IllegalTransition" &&
              error.message === `job j-1: no transition "${event}" from ${phase}` &&
              error.from === phase &&
              error.event === event,
          );
      }
    });
  }
});

const job = (change: Partial<JobRecord> = {}): JobRecord => ({
  jobId: "j-1",
  nodeId: "n-1",
  work: TASK,
  settings: { minBattery: 30, waitUpToMs: 60_000, tries: 2, confirmTimeoutMs: 30_000 },
  phase: "running",
  createdAt: 1,
  attempts: [],
  setAside: {},
  ...change,
});

describe("jobs at their edges: a job's end", () => {
  const outcomes: [unknown, string][] = [
    ["normal", "completed"],
    ["stoppedByHand", "stoppedByHand"],
    ["error", "error"],
    ["failedToStart", "failedToStart"],
    ["unknown", "unknown"],
    ["exploded", "unknown"],
    [3, "unknown"],
  ];
  for (const [outcome, read] of outcomes) {
    it("reads no report as an unknown outcome", () => {
      assert.equal(outcomeOfReport(undefined), "unknown");
    });

    it(`reads a report's outcome ${JSON.stringify(outcome)} as ${read}`, () => {
      assert.equal(outcomeOfReport({ outcome }), read);
    });
  }

  it("gives a job's end its robot once chosen, the work's name, its start and its duration to a tenth of a second", () => {
    const started = job({
      serialNumber: "R1",
      robotName: "Lobby scrubber",
      startedAt: "2026-11-26T12:00:00.000Z",
      settings: { ...job().settings, name: "Night" },
      attempts: [{ serialNumber: "R1", result: "started" }],
    });
    const result = jobResult(started, "completed", new Date(Date.parse("2026-11-26T12:00:01.249Z")));
    assert.deepEqual(result, {
      jobId: "j-1",
      serialNumber: "R1",
      robotName: "Lobby scrubber",
      work: { ...TASK, name: "Night" },
      outcome: "completed",
      startedAt: "2026-11-26T12:00:00.000Z",
      endedAt: "2026-11-26T12:00:01.249Z",
      durationSeconds: 1.2,
      attempts: [{ serialNumber: "R1", result: "started" }],
    });
    assert.notEqual(result.attempts[0], started.attempts[0], "the attempts are copies");
  });

  it("leaves out of a waiting job's end the robot it no longer has, and what it never had", () => {
    const result = jobResult(job({ phase: "waiting", serialNumber: "R1", robotName: "Lobby scrubber" }), "unknown", new Date(0));
    assert.deepEqual(result, { jobId: "j-1", work: TASK, outcome: "unknown", endedAt: "1970-01-01T00:00:00.000Z", attempts: [] });
    const noName = jobResult(job({ serialNumber: "R1" }), "unknown", new Date(0));
    assert.equal("robotName" in noName, false);
    assert.equal("serialNumber" in jobResult(job(), "unknown", new Date(0)), false, "a running job without a robot names none");
    assert.deepEqual(jobResult(job(), "completed", new Date(0), { id: "r-1" }).report, { id: "r-1" });
  });

  it("keeps a goto job running while no navigation follows it", () => {
    assert.deepEqual(runningJobEnd({ work: GOTO }, facts("R1"), undefined), { ended: false });
  });
});

describe("jobs at their edges: the account's jobs", () => {
  it("holds a robot for one job: again for it, not for another, and released only by its holder", () => {
    const jobs = new AccountJobs();
    assert.equal(jobs.hold("R1", "j-1"), true);
    assert.equal(jobs.hold("R1", "j-1"), true);
    assert.equal(jobs.hold("R1", "j-2"), false);
    jobs.release("R1", "j-2");
    assert.equal(jobs.holderOf("R1"), "j-1");
    jobs.release("R1", "j-1");
    assert.equal(jobs.holderOf("R1"), undefined);
  });

  it("holds the robot of a job added past waiting, not of a waiting one, and releases it on removal", () => {
    const jobs = new AccountJobs();
    jobs.add(job({ jobId: "waiting", phase: "waiting", serialNumber: "R1" }));
    assert.equal(jobs.holderOf("R1"), undefined);
    const running = job({ jobId: "running", serialNumber: "R2" });
    jobs.add(running);
    assert.equal(jobs.holderOf("R2"), "running");
    jobs.remove(running);
    assert.equal(jobs.holderOf("R2"), undefined);
    assert.equal(jobs.jobs.has("running"), false);
  });

  const unreadable: [string, unknown][] = [
    ["null", null],
    ["a job id that is no text", { ...job(), jobId: 5 }],
    ["another node's job", { ...job(), nodeId: "n-2" }],
    ["work that is no object", { ...job(), work: "task" }],
    ["settings that are no object", { ...job(), settings: 5 }],
    ["a state the table lacks", { ...job(), phase: "ended" }],
  ];
  for (const [what, entry] of unreadable) {
    it(`takes back nothing of ${what}`, () => {
      const jobs = new AccountJobs();
      assert.equal(jobs.restore("n-1", [entry]), 0);
      assert.equal(jobs.jobs.size, 0);
    });
  }

  it("takes back a job it lacks from a list only, with its hold, empty attempts and set-asides, and its offline count started again", () => {
    const jobs = new AccountJobs();
    assert.equal(jobs.restore("n-1", { jobs: [job()] }), 0);
    const kept = { ...job({ serialNumber: "R1", onlineSeenAt: 5, navigationSeenAt: 6 }), attempts: undefined, setAside: undefined };
    assert.equal(jobs.restore("n-1", [kept, kept]), 1);
    const restored = jobs.jobs.get("j-1")!;
    assert.deepEqual(
      [restored.attempts, restored.setAside, "onlineSeenAt" in restored, "navigationSeenAt" in restored],
      [[], {}, false, false],
    );
    assert.equal(jobs.holderOf("R1"), "j-1");
    const withTries = { ...job({ jobId: "j-2", attempts: [{ serialNumber: "R2", result: "refused" }], setAside: { R2: "refused" } }) };
    jobs.restore("n-1", [withTries]);
    assert.deepEqual([jobs.jobs.get("j-2")!.attempts, jobs.jobs.get("j-2")!.setAside], [withTries.attempts, withTries.setAside]);
  });

  it("lists a node's jobs oldest first, as copies", () => {
    const jobs = new AccountJobs();
    jobs.add(job({ jobId: "late", createdAt: 20 }));
    jobs.add(job({ jobId: "early", createdAt: 10 }));
    jobs.add(job({ jobId: "other-node", nodeId: "n-2", createdAt: 5 }));
    const plain = jobs.toPlain("n-1");
    assert.deepEqual(
      plain.map((each) => each.jobId),
      ["early", "late"],
    );
    assert.notEqual(plain[0], jobs.jobs.get("early"));
  });
});

describe("jobs at their edges: starting a job", () => {
  it("runs in the job's mode, else the robot's first; names the robot's map where it is the job's, else the job's own (never the robot's other map)", () => {
    assert.equal(cleaningModeFor("__heavy_cleaning", facts("R1")), "__heavy_cleaning");
    assert.equal(cleaningModeFor(undefined, facts("R1")), "__middle_cleaning");
    const byId: JobWork = { ...TASK, map: "map-1" };
    assert.equal(mapNameFor(byId, facts("R1", { mapName: "Etage 1" })), "Etage 1", "the job names the robot's map by id");
    assert.equal(mapNameFor(TASK, facts("R1")), "Floor 1", "by name");
    assert.equal(mapNameFor(TASK, facts("R1", { mapName: undefined, mapId: "Floor 1" })), "Floor 1");
    assert.equal(mapNameFor({ ...TASK, map: "Floor 2" }, facts("R1")), "Floor 2", "another map than the robot's: the job's");
  });

  it("stops a navigation with STOP_NAVIGATE and a task or area with STOP_TASK", () => {
    assert.deepEqual(stopBody("R1", GOTO), { serialNumber: "R1", remoteNavigationCommandType: "STOP_NAVIGATE" });
    assert.deepEqual(stopBody("R1", AREA), { serialNumber: "R1", remoteTaskCommandType: "STOP_TASK" });
  });

  it("finds an area by its id before its name, and none that neither names", () => {
    const partitions = [
      { id: 2, name: "Lobby" },
      { id: 7, name: "2" },
    ];
    assert.equal(areaIdOf("2", partitions), "2");
    assert.equal(areaIdOf("Lobby", partitions), "2");
    assert.equal(areaIdOf("7", partitions), "7");
    assert.equal(areaIdOf("Hall", partitions), undefined);
  });

  /** A stand-in client answering getSubareas with `partitions`, recording the calls. */
  function areasClient(partitions: { id: number; name: string }[]) {
    const calls: [string, unknown][] = [];
    const client = {
      accountKey: `account-${Math.random()}`,
      call(operation: string, params: unknown) {
        calls.push([operation, params]);
        return Promise.resolve({ subareas: { partitions } });
      },
    };
    return { client: client as unknown as RobotClient, calls };
  }

  it("starts a task or a navigation with its body, on the robot's map named as the robot names it", async () => {
    const { client } = areasClient([]);
    const robot = facts("R1", { mapName: "Etage 1" });
    // The job names the robot's map by its id.
    assert.deepEqual(await startRequestFor(client, { ...TASK, map: "map-1" }, robot, {}), {
      operation: "submitCommand",
      body: startTaskBody("R1", "Kitchen", "Etage 1", "__middle_cleaning"),
      taskName: "Kitchen",
    });
    assert.deepEqual(await startRequestFor(client, { ...GOTO, map: "map-1" }, robot, {}), {
      operation: "submitCommand",
      body: navigateBody("R1", "Etage 1", "Kitchen door"),
    });
    assert.deepEqual(
      await startRequestFor(client, { ...GOTO, map: "Floor 2" }, robot, {}),
      {
        operation: "submitCommand",
        body: navigateBody("R1", "Floor 2", "Kitchen door"),
      },
      "a point on another map: sent on its own map",
    );
  });

  it("starts an area found among the robot's map's areas, under the job's name, else the area's", async () => {
    const { client, calls } = areasClient([{ id: 4, name: "Lobby" }]);
    const named = await startRequestFor(client, AREA, facts("R1"), { name: "Night", mode: "__heavy_cleaning" });
    assert.deepEqual(named, {
      operation: "sendTempTask",
      body: areaTaskBody("R1", "Night", "__heavy_cleaning", "Floor 1", "map-1", "4"),
      taskName: "Night",
    });
    assert.deepEqual(calls, [["getSubareas", { mapId: "map-1", robotSn: "R1" }]]);
    assert.equal((await startRequestFor(client, AREA, facts("R1", { mapId: undefined }), {})).taskName, "Lobby");
    assert.deepEqual(calls[1], ["getSubareas", { mapId: "Floor 1", robotSn: "R1" }], "the job's map where the robot names no id");
  });

  it("refuses an area the robot's map lacks, naming payload.area", async () => {
    const { client } = areasClient([{ id: 4, name: "Lobby" }]);
    await assert.rejects(
      startRequestFor(client, { ...AREA, area: "Hall" }, facts("R1"), {}),
      (error: unknown) =>
        isRobotApiError(error) && error.field === "payload.area" && error.message.includes('no area "Hall" on map Floor 1 of robot R1'),
    );
  });

  it("shows a navigation started by the navigation it follows, made for the job's point when none is given", () => {
    const rule = startedRule(GOTO, "R1", undefined);
    assert.match(rule.expects, /^navigation to "Kitchen door" under way/);
    const sight = (navStatus: string): WatchedState => ({ serialNumber: "R1", online: true, navStatus });
    assert.equal(rule.confirmedBy(sight("NAVI_RUNNING")), "NAVIGATING");
    const own = new NavigationFollower("Kitchen door");
    startedRule(GOTO, "R1", undefined, own).confirmedBy(sight("NAVI_RUNNING"));
    assert.equal(own.see(sight("NAVI_IDLE")).phase, "arrived", "the follower given saw the start");
  });

  it("shows a task started by the job's task running, an area by the name it was sent under", () => {
    assert.equal(startedRule(TASK, "R1", "Other name").expects, 'task state RUNNING with task "Kitchen"');
    assert.equal(startedRule(AREA, "R1", "Night").expects, 'task state RUNNING with task "Night"');
  });
});

describe("jobs at their edges: a name no robot has", () => {
  afterEach(forgetAccountMemory);

  /** A stand-in client: each robot's map list and each map's areas, or an error for a robot or map listed in `failing`. */
  function placesClient(
    maps: Record<string, { mapId: string; mapName: string }[]>,
    areas: Record<string, { id: number; name: string }[]> = {},
    failing: string[] = [],
  ) {
    const calls: string[] = [];
    const client = {
      accountKey: `account-${Math.random()}`,
      call(operation: string, params: { robotSn: string; mapId?: string }) {
        const key = operation === "listMaps" ? params.robotSn : `${params.robotSn}/${params.mapId}`;
        calls.push(`${operation} ${key}`);
        if (failing.includes(key)) return Promise.reject(new Error("HTTP 500"));
        return Promise.resolve(operation === "listMaps" ? (maps[key] ?? []) : { subareas: { partitions: areas[key] ?? [] } });
      },
    };
    return { client: client as unknown as RobotClient, calls };
  }
  const elsewhere = (serialNumber: string, change: Partial<RobotFacts> = {}) =>
    facts(serialNumber, { mapId: "map-9", mapName: "Basement", ...change });

  it("names a map no robot stands on, lists a task on, or has in its map list", async () => {
    const { client } = placesClient({ R1: [{ mapId: "map-8", mapName: "Attic" }] });
    const tasksElsewhere = elsewhere("R1", { executableTasks: [{ name: "Kitchen", mapName: "Basement" }] });
    assert.deepEqual(await missingTarget(client, TASK, [tasksElsewhere]), {
      field: "payload.map",
      problem: 'no robot of the account has a map "Floor 1"',
    });
  });

  it("finds the map in a robot's map list by name or id, or in the tasks its status lists", async () => {
    const byName = placesClient({ R1: [{ mapId: "map-1", mapName: "Floor 1" }] });
    assert.equal(await missingTarget(byName.client, GOTO, [elsewhere("R1")]), undefined);
    const byId = placesClient({ R1: [{ mapId: "Floor 1", mapName: "Etage 1" }] });
    assert.equal(await missingTarget(byId.client, GOTO, [elsewhere("R1")]), undefined);
    const byTask = placesClient({});
    assert.equal(
      await missingTarget(byTask.client, TASK, [elsewhere("R1", { executableTasks: [{ name: "Kitchen", mapId: "Floor 1" }] })]),
      undefined,
    );
    assert.deepEqual(byTask.calls, []);
  });

  it("leaves the question open when a map list cannot be read, and asks again next time", async () => {
    const { client, calls } = placesClient({}, {}, ["R1"]);
    assert.equal(await missingTarget(client, TASK, [elsewhere("R1")]), undefined);
    assert.equal(await missingTarget(client, TASK, [elsewhere("R1")]), undefined);
    assert.deepEqual(calls, ["listMaps R1", "listMaps R1"]);
  });

  it("reads a robot's map list once for ten minutes, then again", async () => {
    const now = Date.now;
    let time = 1_800_000_000_000;
    Date.now = () => time;
    try {
      const { client, calls } = placesClient({ R1: [] });
      await missingTarget(client, TASK, [elsewhere("R1")]);
      time += 10 * 60_000 - 1;
      await missingTarget(client, TASK, [elsewhere("R1")]);
      assert.equal(calls.length, 1, "kept a millisecond short of ten minutes");
      time += 1;
      await missingTarget(client, TASK, [elsewhere("R1")]);
      assert.equal(calls.length, 2, "read again at ten minutes");
    } finally {
      Date.now = now;
    }
  });

  const tasks: [string, RobotFacts[], object | undefined][] = [
    ["a robot that lists it", [facts("R1", { executableTasks: [{ name: "Kitchen" }] })], undefined],
    [
      "one of two robots that list tasks",
      [facts("R1", { executableTasks: [{ name: "Lobby" }] }), facts("R2", { executableTasks: [{ name: "Kitchen" }] })],
      undefined,
    ],
    ["a robot whose status lists no tasks", [facts("R1", { executableTasks: [{ name: "Lobby" }] }), facts("R2")], undefined],
    [
      "robots that list others only",
      [facts("R1", { executableTasks: [{ name: "Lobby" }] })],
      { field: "payload.task", problem: 'no robot of the account has a task "Kitchen" on map "Floor 1"' },
    ],
  ];
  for (const [what, robots, missing] of tasks) {
    it(`${missing ? "names" : "does not name"} the task with ${what}`, async () => {
      assert.deepEqual(await missingTarget(placesClient({}).client, TASK, robots), missing);
    });
  }

  const points = (...names: string[]) => names.map((name) => ({ name })) as RobotFacts["navigationPoints"];
  const gotos: [string, RobotFacts[], object | undefined][] = [
    ["a robot on the map that lists it", [facts("R1", { navigationPoints: points("Kitchen door") })], undefined],
    [
      "one of two robots on the map, among other points",
      [facts("R1", { navigationPoints: points("Hall") }), facts("R2", { navigationPoints: points("Hall", "Kitchen door") })],
      undefined,
    ],
    ["a robot on the map whose status lists no points", [facts("R1", { navigationPoints: points("Hall") }), facts("R2")], undefined],
    ["a robot with the map that stands elsewhere", [facts("R1", { navigationPoints: points("Hall") }), elsewhere("R2")], undefined],
    [
      "robots on the map that list others only",
      [facts("R1", { navigationPoints: points("Hall") })],
      { field: "payload.goto", problem: 'no robot of the account has a navigation point "Kitchen door" on map "Floor 1"' },
    ],
  ];
  for (const [what, robots, missing] of gotos) {
    it(`${missing ? "names" : "does not name"} the navigation point with ${what}`, async () => {
      assert.deepEqual(await missingTarget(placesClient({ R2: [{ mapId: "map-1", mapName: "Floor 1" }] }).client, GOTO, robots), missing);
    });
  }

  it("finds an area among the areas of the map's id, by id or name, asking each robot with the map in turn", async () => {
    const { client, calls } = placesClient(
      { R2: [{ mapId: "map-1b", mapName: "Floor 1" }] },
      { "R1/map-1": [{ id: 3, name: "Hall" }], "R2/map-1b": [{ id: 4, name: "Lobby" }] },
    );
    assert.equal(await missingTarget(client, AREA, [facts("R1"), elsewhere("R2")]), undefined);
    assert.deepEqual(calls, ["listMaps R2", "getSubareas R1/map-1", "getSubareas R2/map-1b"]);
    assert.equal(await missingTarget(client, { ...AREA, area: "3" }, [facts("R1")]), undefined);
    assert.deepEqual(await missingTarget(client, { ...AREA, area: "Attic" }, [facts("R1"), elsewhere("R2")]), {
      field: "payload.area",
      problem: 'no robot of the account has an area "Attic" on map "Floor 1"',
    });
  });

  it("leaves the area open where a robot's map id is not known or its areas cannot be read", async () => {
    const byTaskOnly = elsewhere("R1", { executableTasks: [{ name: "Kitchen", mapName: "Floor 1" }] });
    assert.equal(await missingTarget(placesClient({}).client, AREA, [byTaskOnly]), undefined);
    assert.equal(await missingTarget(placesClient({}, {}, ["R1/map-1"]).client, AREA, [facts("R1")]), undefined);
  });

  it("keeps the account's jobs as one object per account", () => {
    assert.equal(jobsOfAccount("a"), jobsOfAccount("a"));
    assert.notEqual(jobsOfAccount("a"), jobsOfAccount("b"));
  });
});
