/**
 * The simulator held to the real cloud's recorded answer shapes
 * (test/fixtures/recorded-shapes.json): every answer read over HTTP through
 * its real endpoints, in every state a simulated robot can be in, and every
 * push it sends to a receiver on loopback, carries only recorded fields, of
 * their recorded types, and every recorded field that is not optional. The
 * package once showed serial numbers instead of names on a real account
 * because the simulator put displayName into statuses and the client read it
 * there: the client agreed with the simulator, not with the cloud.
 */
import assert from "node:assert/strict";
import { DEMO_TOKEN, type PushBody } from "../../src/simulator";
import { rawRequest, type RawAnswer } from "../support/raw-http";
import { received, usePushReceiver } from "../support/push-receiver";
import { recordedKind, shapeProblems, type RecordedKindName } from "../support/recorded-shapes";

const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";
const WAREHOUSE = "GS-S-000201";
const ROBOTS = [LOBBY, KITCHEN, WAREHOUSE];
/** A navigation that takes a minute, so a test can read a robot on its way. */
const NAVIGATION_MS = 60_000;

type Json = Record<string, unknown>;

const startTask = (serialNumber: string, name: string) => ({
  serialNumber,
  remoteTaskCommandType: "START_TASK",
  commandParameter: {
    startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name, map: "Floor 1", loop: false, loopCount: 1 } },
  },
});
const navigation = (serialNumber: string, type: string, position = "Lobby entrance") => ({
  serialNumber,
  remoteNavigationCommandType: type,
  commandParameter: { startNavigationParameter: { map: "Floor 1", position } },
});

describe("simulator: answers in the recorded shapes", function () {
  const push = usePushReceiver({ timing: { navigationMs: NAVIGATION_MS, speedPixelsPerSecond: 10 } });

  const call = async (method: string, target: string, body?: unknown): Promise<Json> => {
    const answer: RawAnswer = await rawRequest(push.simulator.url, method, target, { token: DEMO_TOKEN, body });
    assert.equal(answer.status, 200, `${method} ${target}: ${answer.text}`);
    return answer.json as Json;
  };
  const command = (body: Json) => call("POST", `/v1alpha1/robots/${String(body.serialNumber)}/commands`, body);
  const change = (serialNumber: string, changes: Json) => push.simulator.updateRobot(serialNumber, changes);

  /** Every status answer of every robot (v1 batch, S-line batch, B1), by robot; the shape problems of all of them. */
  async function readStatuses(state: string): Promise<{ v1: Map<string, Json>; sLine: Map<string, Json>; problems: string[] }> {
    const problems: string[] = [];
    const v1 = new Map<string, Json>();
    const sLine = new Map<string, Json>();
    const { robotStatuses } = (await call("GET", `/v1alpha1/robots/-/status:batchGet?${ROBOTS.map((sn) => `names=${sn}`).join("&")}`)) as {
      robotStatuses: Json[];
    };
    for (const status of robotStatuses) {
      v1.set(String(status.serialNumber), status);
      problems.push(...shapeProblems("v1Status", status, `${state}, v1 batch, ${String(status.serialNumber)}`));
    }
    const { robotStatus } = (await call("GET", "/openapi/v2alpha1/s/robots/*/status:batchGet", { names: ROBOTS })) as {
      robotStatus: Json[];
    };
    for (const status of robotStatus)
      problems.push(...shapeProblems("sLineStatus", status, `${state}, S-line batch, ${String(status.serialNumber)}`));
    for (const serialNumber of ROBOTS) {
      const status = await call("GET", `/openapi/v2alpha1/s/robots/${serialNumber}/status`);
      sLine.set(serialNumber, status);
      problems.push(...shapeProblems("sLineStatus", status, `${state}, B1, ${serialNumber}`));
    }
    assert.deepEqual([...v1.keys()], ROBOTS, "the v1 batch answers every robot named");
    assert.equal(robotStatus.length, ROBOTS.length, "the S-line batch answers every robot named");
    return { v1, sLine, problems };
  }

  const localization = (status: Json) => status.localizationInfo as { localizationState: string; mapPosition?: { x: number; y: number } };

  /**
   * Each state a simulated robot can be in: how the test brings KITCHEN (or
   * LOBBY) there, and what its answers must show, so the shapes are checked
   * on the state named and not on an idle robot by mistake.
   */
  const STATES: { name: string; arrange: () => Promise<void> | void; shows: (v1: Json, sLine: Json) => void }[] = [
    {
      name: "idle",
      arrange: () => {},
      shows: (v1, sLine) => {
        assert.equal(v1.taskState, "IDLE");
        assert.equal(sLine.taskState, "IDLE");
        assert.equal(v1.executingTask, undefined, "no task under way");
      },
    },
    {
      name: "running a task",
      arrange: async () => {
        await command(startTask(KITCHEN, "Kitchen"));
        push.clock += 30_000;
      },
      shows: (v1, sLine) => {
        assert.equal(v1.taskState, "RUNNING");
        assert.equal((v1.executingTask as Json).name, "Kitchen");
        assert.notEqual(((sLine.currentTask as Json).workMode as Json).name, "", "the running task's mode");
      },
    },
    {
      name: "paused in a task",
      arrange: async () => {
        await command(startTask(KITCHEN, "Kitchen"));
        await command({ serialNumber: KITCHEN, remoteTaskCommandType: "PAUSE_TASK" });
      },
      shows: (v1, sLine) => {
        assert.equal(v1.taskState, "PAUSED");
        assert.equal(sLine.taskState, "PAUSED");
      },
    },
    {
      name: "navigating",
      arrange: async () => {
        await command(navigation(KITCHEN, "CROSS_NAVIGATE"));
        push.clock += NAVIGATION_MS / 2;
      },
      shows: (v1, sLine) => {
        const point = (
          sLine.navigationPoints as { naviPoints: { naviPointName: string; navPointGridX: number; navPointGridY: number }[] }
        ).naviPoints.find((candidate) => candidate.naviPointName === "Lobby entrance")!;
        const on = localization(sLine).mapPosition!;
        assert.notDeepEqual([on.x, on.y], [point.navPointGridX, point.navPointGridY], "still on its way");
        assert.deepEqual(localization(v1).mapPosition, on, "both statuses place it alike");
      },
    },
    {
      name: "arrived",
      arrange: async () => {
        await command(navigation(KITCHEN, "CROSS_NAVIGATE"));
        push.clock += NAVIGATION_MS;
      },
      shows: (_v1, sLine) => {
        const point = (
          sLine.navigationPoints as { naviPoints: { naviPointName: string; navPointGridX: number; navPointGridY: number }[] }
        ).naviPoints.find((candidate) => candidate.naviPointName === "Lobby entrance")!;
        const on = localization(sLine).mapPosition!;
        assert.deepEqual([on.x, on.y], [point.navPointGridX, point.navPointGridY], "arrival shows as mapPosition on the point");
      },
    },
    {
      name: "paused in a navigation",
      arrange: async () => {
        await command(navigation(KITCHEN, "CROSS_NAVIGATE"));
        push.clock += NAVIGATION_MS / 4;
        await command(navigation(KITCHEN, "PAUSE_NAVIGATE"));
      },
      shows: () => assert.equal(push.simulator.state.robot(KITCHEN)!.navigation?.state, "PAUSED"),
    },
    {
      name: "charging",
      arrange: () => void change(KITCHEN, { charging: true }),
      shows: (v1, sLine) => {
        assert.equal((v1.battery as Json).charging, true);
        assert.equal((sLine.battery as Json).charging, true);
      },
    },
    {
      name: "lost",
      arrange: () => void change(KITCHEN, { localizationState: "LOST" }),
      shows: (v1, sLine) => {
        assert.equal(localization(v1).localizationState, "LOST");
        assert.equal(localization(sLine).mapPosition, undefined, "a lost robot cannot be placed");
        assert.equal(localization(v1).mapPosition, undefined);
      },
    },
    {
      name: "offline",
      arrange: () => void change(KITCHEN, { online: false }),
      shows: (v1, sLine) => {
        assert.equal(v1.online, false);
        assert.equal(sLine.online, false);
      },
    },
    {
      name: "stopped by its emergency stop",
      arrange: () => void change(KITCHEN, { emergencyStop: true }),
      shows: (v1, sLine) => {
        assert.equal((v1.emergencyStop as Json).enabled, true);
        assert.equal((sLine.emergencyStop as Json).enabled, true);
      },
    },
    {
      name: "worn past a part's life, a part replaced, tanks at their bounds and the battery's health set by hand",
      arrange: async () => {
        push.simulator.changeWear(KITCHEN, {
          parts: { softSqueegee: { usedLife: 260 } },
          replace: ["filter"],
          cleanWater: 0,
          recoveryWater: 100,
          battery: { soh: "POOR", cycleTimes: 1200, temperatures: [61, 30, 30, 30, 30, 30, 30] },
        });
        await command(startTask(KITCHEN, "Kitchen"));
        push.clock += 3600_000;
      },
      shows: (v1, sLine) => {
        for (const status of [v1, sLine]) {
          const device = status.device as Record<string, { usedLife?: number; level?: number }>;
          assert.deepEqual([device.softSqueegee!.usedLife, device.filter!.usedLife, device.cleanWaterTank!.level], [261, 0, 0]);
          assert.deepEqual([(status.battery as Json).soh, (status.battery as Json).temperature1], ["POOR", 61]);
        }
      },
    },
    {
      name: "under remote control",
      arrange: async () => void (await command({ serialNumber: KITCHEN, remoteControlCommandType: "REMOTE_CONTROL_START" })),
      shows: (_v1, sLine) => assert.equal((sLine.currentTask as Json).manualControlling, true),
    },
  ];

  describe("statuses", () => {
    for (const state of STATES) {
      it(`has the recorded v1 and S-line status shapes while ${state.name}`, async () => {
        await state.arrange();
        const { v1, sLine, problems } = await readStatuses(state.name);
        state.shows(v1.get(KITCHEN)!, sLine.get(KITCHEN)!);
        assert.deepEqual(problems, []);
      });
    }

    it("serves navStatus NAVI_IDLE, the only published value, while a robot navigates", async () => {
      await command(navigation(KITCHEN, "CROSS_NAVIGATE"));
      push.clock += NAVIGATION_MS / 2;
      const { v1, sLine } = await readStatuses("navigating");
      assert.equal(v1.get(KITCHEN)!.navStatus, "NAVI_IDLE");
      assert.equal(sLine.get(KITCHEN)!.navStatus, "NAVI_IDLE");
    });
  });

  it("lists the robots in the recorded robot list shape, the only answer with names, models and software versions", async () => {
    const target = "/v1alpha1/robots?page=1&pageSize=100&relation=cugrup";
    const answer = await rawRequest(push.simulator.url, "GET", target, { token: DEMO_TOKEN });
    assert.equal(answer.status, 200, answer.text);
    const { robots } = answer.json as { robots: Json[] };
    assert.deepEqual(
      robots.map((robot) => robot.serialNumber),
      ROBOTS,
    );
    const problems = robots.flatMap((robot) => shapeProblems("robotListEntry", robot, `robot list, ${String(robot.serialNumber)}`));
    assert.deepEqual(problems, []);
  });

  it("lists task reports in the recorded report shape: seeded ones, a finished task's, a stopped one's and one that failed to start", async () => {
    await command(startTask(KITCHEN, "Kitchen"));
    push.clock += 90_000;
    await command({ serialNumber: KITCHEN, remoteTaskCommandType: "STOP_TASK" });
    change(LOBBY, { emergencyStop: true });
    await command(startTask(LOBBY, "All of Floor 1"));
    const problems: string[] = [];
    let reports = 0;
    for (const serialNumber of ROBOTS) {
      const { robotTaskReports } = (await call("GET", `/openapi/v2alpha1/robots/${serialNumber}/taskReports?page=1&pageSize=50`)) as {
        robotTaskReports: Json[];
      };
      reports += robotTaskReports.length;
      robotTaskReports.forEach((report, index) =>
        problems.push(...shapeProblems("taskReport", report, `${serialNumber}'s report ${index}`)),
      );
    }
    assert.ok(reports >= ROBOTS.length + 2, `the seeded reports and the two just filed (${reports})`);
    assert.deepEqual(problems, []);
  });

  describe("pushes", () => {
    const pushProblems = (bodies: PushBody[]) =>
      bodies.flatMap((body, index) => {
        const kind: RecordedKindName = "taskReport" in body.payload ? "taskReportPush" : "incidentPush";
        return shapeProblems(kind, body, `push ${index} (${kind})`);
      });

    for (const envelope of ["documented", "typed"] as const) {
      it(`pushes task reports and incidents in the recorded shapes (${envelope} envelope)`, async () => {
        push.simulator.setPush({ url: `${push.receiver.url}/robot-events`, appId: "app-7f3c", envelope });
        await command(startTask(KITCHEN, "Kitchen"));
        push.clock += 60_000;
        await command({ serialNumber: KITCHEN, remoteTaskCommandType: "STOP_TASK" });
        change(KITCHEN, { emergencyStop: true });
        change(KITCHEN, { emergencyStop: false });
        change(WAREHOUSE, { localizationState: "LOST" });
        change(WAREHOUSE, { online: false });
        const bodies = await received(push.receiver, 5);
        const kinds = bodies.map((body) => ("taskReport" in body.payload ? "report" : "incident"));
        assert.deepEqual(kinds.filter((kind) => kind === "report").length, 1, kinds.join(", "));
        assert.deepEqual(pushProblems(bodies), []);
      });
    }
  });

  it("answers every command, and its read-back, in the recorded command resource shape", async () => {
    const commands: Json[] = [
      startTask(KITCHEN, "Kitchen"),
      { serialNumber: KITCHEN, remoteTaskCommandType: "PAUSE_TASK" },
      { serialNumber: KITCHEN, remoteTaskCommandType: "RESUME_TASK" },
      { serialNumber: KITCHEN, remoteTaskCommandType: "STOP_TASK" },
      ...["CROSS_NAVIGATE", "PAUSE_NAVIGATE", "RESUME_NAVIGATE", "STOP_NAVIGATE"].map((type) => navigation(KITCHEN, type)),
      { serialNumber: KITCHEN, remoteControlCommandType: "REMOTE_CONTROL_START" },
      {
        serialNumber: KITCHEN,
        remoteControlCommandType: "REMOTE_CONTROL_MOVE",
        commandParameter: { controlMovingParameter: { direction: "FORWARD" } },
      },
      { serialNumber: KITCHEN, remoteControlCommandType: "REMOTE_CONTROL_STOP" },
    ];
    const problems: string[] = [];
    for (const body of commands) {
      const answer = await command(body);
      const type = String(answer.rawCommandType);
      problems.push(...shapeProblems("commandAnswer", answer, `${type} answer`));
      const readBack = await call("GET", `/v1alpha1/${String(answer.name)}`);
      problems.push(...shapeProblems("commandAnswer", readBack, `${type} read back`));
    }
    assert.deepEqual(problems, []);
  });

  /** A temporary task (B4) for the kitchen scrubber in area `areaId` of its first map. */
  const tempTask = (areaId: string) => {
    const floor = push.simulator.state.robot(KITCHEN)!.maps[0]!;
    return {
      productId: KITCHEN,
      tempTaskCommand: {
        taskName: "Spot clean",
        cleaningMode: "清扫",
        loop: "false",
        loopCount: "1",
        mapName: floor.name,
        startParam: { mapId: floor.id, areaId },
      },
    };
  };

  it("answers temporary tasks (B4), accepted and refused, in the recorded shape", async () => {
    const accepted = await call("POST", "/v2alpha1/robotCommand/tempTask:send", tempTask("3"));
    const refused = await call("POST", "/v2alpha1/robotCommand/tempTask:send", tempTask("99"));
    assert.deepEqual([accepted.cmdStatus, refused.cmdStatus], [5, 7]);
    assert.deepEqual(
      [...shapeProblems("tempTaskAnswer", accepted, "accepted"), ...shapeProblems("tempTaskAnswer", refused, "refused")],
      [],
    );
  });

  it("answers task starts that fail (taskFaultRate 1: busy, or the battery failing partway) in the recorded shapes", async () => {
    push.simulator.setFaults({ taskFaultRate: 1 });
    const problems: string[] = [];
    const cmdStatuses = new Set<unknown>();
    for (let start = 0; start < 8; start++) {
      const answer = await call("POST", "/v2alpha1/robotCommand/tempTask:send", tempTask("3"));
      cmdStatuses.add(answer.cmdStatus);
      problems.push(...shapeProblems("tempTaskAnswer", answer, `start ${start}`));
      // Past the battery's failure (30-70 % into the task) and the charge after it.
      push.clock += 2 * 3_600_000;
      problems.push(...(await readStatuses(`after start ${start}`)).problems);
    }
    assert.deepEqual([...cmdStatuses].sort(), [5, 7], "starts refused as busy and starts accepted whose battery failed");
    const { robotTaskReports } = (await call("GET", `/openapi/v2alpha1/robots/${KITCHEN}/taskReports?page=1&pageSize=50`)) as {
      robotTaskReports: Json[];
    };
    assert.ok(
      robotTaskReports.some((report) => report.taskEndStatus === 2),
      "a report of a task ended in error by its battery",
    );
    robotTaskReports.forEach((report, index) => problems.push(...shapeProblems("taskReport", report, `report ${index}`)));
    const bodies = await received(push.receiver, 2);
    assert.ok(
      bodies.some((body) => !("taskReport" in body.payload)),
      "the battery's incident was pushed",
    );
    bodies.forEach((body, index) =>
      problems.push(...shapeProblems("taskReport" in body.payload ? "taskReportPush" : "incidentPush", body, `push ${index}`)),
    );
    assert.deepEqual(problems, []);
  });

  describe("the check itself", () => {
    const status = async () => call("GET", `/openapi/v2alpha1/s/robots/${KITCHEN}/status`);

    it("fails an answer carrying a field no recorded answer has, as the simulator's displayName was", async () => {
      assert.deepEqual(shapeProblems("sLineStatus", { ...(await status()), displayName: "Kitchen scrubber" }, "B1"), [
        "B1: carries displayName, which no recorded sLineStatus has",
      ]);
    });

    it("fails a field of another type than recorded, and a missing required one, naming the path", async () => {
      const answer = await status();
      const localizationInfo = answer.localizationInfo as Json;
      const wrong = { ...answer, localizationInfo: { ...localizationInfo, map: { ...(localizationInfo.map as Json), version: 3 } } };
      delete (wrong as Json).serialNumber;
      assert.deepEqual(shapeProblems("sLineStatus", wrong, "B1"), [
        "B1: lacks serialNumber (recorded as required)",
        "B1: localizationInfo.map.version is number (3), recorded as string",
      ]);
    });

    it("records every kind of answer with the kind of source it comes from", () => {
      for (const kind of [
        "v1Status",
        "sLineStatus",
        "robotListEntry",
        "taskReport",
        "taskReportPush",
        "incidentPush",
        "commandAnswer",
        "tempTaskAnswer",
      ] as const) {
        const recorded = recordedKind(kind);
        assert.ok(recorded.source.length > 20, `${kind} names its source`);
        assert.ok(Object.keys(recorded.fields).length > 3, `${kind} records its fields`);
      }
    });
  });

  describe("a status read refused whole because of one robot", () => {
    const raw = (method: string, target: string, body?: unknown) =>
      rawRequest(push.simulator.url, method, target, { token: DEMO_TOKEN, body });
    const v1Batch = (names: readonly string[]) =>
      raw("GET", `/v1alpha1/robots/-/status:batchGet?${names.map((sn) => `names=${sn}`).join("&")}`);
    const sLineBatch = (names: readonly string[]) => raw("GET", "/openapi/v2alpha1/s/robots/*/status:batchGet", { names });

    it("a robot not of the account: HTTP 403, the error body {code 7, message naming it, details []}, on both lines", async () => {
      for (const answer of [await v1Batch([LOBBY, "GS-X-999"]), await sLineBatch([LOBBY, "GS-X-999"])]) {
        assert.equal(answer.status, 403);
        assert.deepEqual(Object.keys(answer.json as Json).sort(), ["code", "details", "message"]);
        assert.equal((answer.json as Json).code, 7);
        assert.match(String((answer.json as Json).message), /GS-X-999/);
      }
    });

    it("a robot that cannot be reached: the 230003 error body for any batch naming it and its own read (field notes), until reachable again", async () => {
      change(KITCHEN, { reachable: false });
      for (const answer of [
        await v1Batch(ROBOTS),
        await sLineBatch(ROBOTS),
        await raw("GET", `/openapi/v2alpha1/s/robots/${KITCHEN}/status`),
      ]) {
        assert.equal(answer.status, 200);
        assert.deepEqual(answer.json, { code: 230003, message: `Robot ${KITCHEN} cannot be reached.`, details: [] });
      }
      assert.equal((await v1Batch([LOBBY, WAREHOUSE])).status, 200, "a batch without it is answered");
      change(KITCHEN, { reachable: true });
      assert.equal(((await v1Batch(ROBOTS)).json as { robotStatuses: Json[] }).robotStatuses.length, 3);
    });
  });
});
