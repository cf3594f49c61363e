/**
 * The simulator's task reports over time, on a test clock: every way a task
 * ends files one report (pushed and listed with one id), the time window and
 * paging of the task reports endpoint, coverage images without the token,
 * what a running task shows (executableTasks, executingTask progress), robots
 * that refuse tasks as real ones do, and the control API's task end and past
 * reports.
 */
import assert from "node:assert/strict";
import type { CommandRequest } from "../../src/api/cloud/schemas";
import {
  COVERAGE_COLOUR,
  DEMO_TOKEN,
  LOW_BATTERY_PERCENT,
  TASK_END_STATUS,
  TEMP_TASK_REJECTED,
  TEMP_TASK_ROBOT_BUSY,
  TEMP_TASK_ROBOT_NOT_READY,
} from "../../src/simulator";
import { officeMaps } from "../../src/simulator/maps/maps";
import { failureOf } from "../support/failures";
import { decodePng } from "../support/png";
import { START_MS, bodiesOf, control, usePushReceiver, waitFor } from "../support/push-receiver";
import { rawRequest } from "../support/raw-http";

const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";
const [FLOOR_1, FLOOR_2] = officeMaps() as [ReturnType<typeof officeMaps>[number], ReturnType<typeof officeMaps>[number]];
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

function startTask(serialNumber: string, name = "Lobby round"): CommandRequest {
  return {
    serialNumber,
    remoteTaskCommandType: "START_TASK",
    commandParameter: {
      startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name, map: "Floor 1", loop: false, loopCount: 1 } },
    },
  };
}

function tempTask(serialNumber: string, areaId: string) {
  return {
    productId: serialNumber,
    tempTaskCommand: {
      taskName: "Spill",
      cleaningMode: "清扫",
      loop: "false" as const,
      loopCount: "1",
      mapName: FLOOR_1.name,
      startParam: { mapId: FLOOR_1.id, areaId },
    },
  };
}

type Report = Record<string, unknown> & { id: string; taskEndStatus: number; startTime: string; taskReportPngUri: string };

describe("simulator: task reports over time", function () {
  const push = usePushReceiver();

  const patch = async (serialNumber: string, changes: Record<string, unknown>) => {
    const answer = await control(push.simulator.url, "PATCH", `robots/${serialNumber}`, changes);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
  };
  const reportsSince = async (serialNumber: string, floorMs: number, more: Record<string, unknown> = {}) =>
    (await push.client.listTaskReports({ serialNumber, startTimeUtcFloor: iso(floorMs), pageSize: 100, ...more })) as unknown as {
      robotTaskReports: Report[];
      total: string;
    };
  const addPast = async (serialNumber: string, body: Record<string, unknown>) => {
    const answer = await control(push.simulator.url, "POST", `robots/${serialNumber}/taskReports`, body);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    return answer.json as Report;
  };

  it("every way a task ends files one report, pushed and listed with the same id", async () => {
    const { client } = push;
    // Stopped by hand.
    await client.submitCommand(startTask(LOBBY));
    push.clock += 10 * MINUTE;
    await client.submitCommand({ serialNumber: LOBBY, remoteTaskCommandType: "STOP_TASK" });
    // Ended while the emergency stop is pressed: an error.
    push.clock += MINUTE;
    await client.submitCommand(startTask(LOBBY));
    push.clock += MINUTE;
    await patch(LOBBY, { emergencyStop: true });
    await patch(LOBBY, { taskState: "IDLE" });
    await patch(LOBBY, { emergencyStop: false });
    // A normal end, through the control API.
    push.clock += MINUTE;
    await client.submitCommand(startTask(LOBBY));
    push.clock += MINUTE;
    const ended = await control(push.simulator.url, "POST", `robots/${LOBBY}/task/end`, { taskEndStatus: TASK_END_STATUS.FINISHED });
    assert.equal(ended.status, 200, JSON.stringify(ended.json));
    assert.equal(ended.json.taskState, "IDLE");
    // Failed to start: battery low, then lost. The command is still accepted (WAITING), as the cloud accepts it.
    push.clock += MINUTE;
    await patch(LOBBY, { batteryPercentage: LOW_BATTERY_PERCENT - 1 });
    assert.equal((await client.submitCommand(startTask(LOBBY))).state, "WAITING");
    assert.equal((await client.getRobotStatus({ serialNumber: LOBBY })).taskState, "IDLE");
    await patch(LOBBY, { batteryPercentage: 80, localizationState: "LOST" });
    push.clock += MINUTE;
    await client.submitCommand(startTask(LOBBY));
    assert.equal((await client.getRobotStatus({ serialNumber: LOBBY })).taskState, "IDLE");

    const { robotTaskReports, total } = await reportsSince(LOBBY, START_MS);
    assert.equal(total, "5");
    const { STOPPED, ERROR, FINISHED, FAILED_TO_START } = TASK_END_STATUS;
    assert.deepEqual(
      robotTaskReports.map((report) => report.taskEndStatus),
      [FAILED_TO_START, FAILED_TO_START, FINISHED, ERROR, STOPPED],
      "newest first",
    );
    const [lost] = robotTaskReports;
    assert.deepEqual(
      [lost!.completionPercentage, lost!.durationSeconds, lost!.actualCleaningAreaSquareMeter],
      [0, 0, 0],
      "a failed start cleaned nothing",
    );
    const stopped = robotTaskReports[4]!;
    assert.equal(stopped.durationSeconds, 600);
    assert.equal(stopped.startTime, iso(START_MS));
    assert.equal(stopped.endTime, iso(START_MS + 10 * MINUTE));
    for (const report of robotTaskReports) {
      assert.deepEqual(
        (report.subTasks as { mapId: string; mapName: string }[]).map((sub) => [sub.mapId, sub.mapName]),
        [[FLOOR_1.id, FLOOR_1.name]],
      );
      assert.match(report.taskReportPngUri, /^http:\/\/127\.0\.0\.1:\d+\/_objects\/reports\//);
    }

    // Incidents are pushed too (the emergency stop, the battery, the lost robot): the task reports among them.
    const reportsPushed = () =>
      bodiesOf(push.receiver).flatMap((body) =>
        (body.payload as { taskReport?: Report }).taskReport ? [(body.payload as { taskReport: Report }).taskReport] : [],
      );
    await waitFor(() => reportsPushed().length >= 5, "five task reports pushed");
    const pushed = reportsPushed();
    assert.equal(pushed.length, 5);
    assert.deepEqual(pushed.map((report) => report.id).sort(), robotTaskReports.map((report) => report.id).sort());
    for (const report of pushed) {
      const listed = robotTaskReports.find((candidate) => candidate.id === report.id)!;
      assert.equal(report.startTime, Date.parse(listed.startTime), "pushed with epoch-ms times");
      assert.equal(new URL(report.taskReportPngUri).pathname, new URL(listed.taskReportPngUri).pathname, "the same image");
    }
  });

  it("a robot that ignores a start (ignoreRate 1) files nothing; one busy with a task keeps it", async () => {
    push.simulator.setFaults({ ignoreRate: 1 });
    assert.equal((await push.client.submitCommand(startTask(KITCHEN))).state, "WAITING");
    assert.equal((await push.client.getRobotStatus({ serialNumber: KITCHEN })).taskState, "IDLE");
    push.simulator.setFaults({ ignoreRate: 0 });
    await push.client.submitCommand(startTask(KITCHEN, "First"));
    await push.client.submitCommand(startTask(KITCHEN, "Second"));
    const status = await push.client.getRobotStatus({ serialNumber: KITCHEN });
    const running = push.simulator.state.robot(KITCHEN)!.currentTask;
    assert.equal(running?.name, "First");
    assert.equal((status.currentTask as { taskInstanceId: string }).taskInstanceId, running?.id, "the status names the first task's run");
    assert.equal((await reportsSince(KITCHEN, START_MS)).total, "0");
    assert.equal(push.receiver.requests.length, 0);
  });

  it("temporary tasks are refused as real robots refuse them: busy, lost, emergency stop, battery low, offline", async () => {
    const { client } = push;
    const refusal = async () => {
      const answer = await rawRequest(push.simulator.url, "POST", "/v2alpha1/robotCommand/tempTask:send", {
        token: DEMO_TOKEN,
        body: tempTask(KITCHEN, "3"),
      });
      assert.equal(answer.status, 200, answer.text);
      return answer.json as { cmdStatus: number; cmdResultCode: string };
    };
    for (const changes of [
      { localizationState: "LOST" },
      { emergencyStop: true },
      { batteryPercentage: LOW_BATTERY_PERCENT - 1 },
      { online: false },
    ]) {
      await patch(KITCHEN, changes);
      const { cmdStatus, cmdResultCode } = await refusal();
      assert.deepEqual([cmdStatus, cmdResultCode], [TEMP_TASK_REJECTED, TEMP_TASK_ROBOT_NOT_READY], JSON.stringify(changes));
      assert.equal((await client.getRobotStatus({ serialNumber: KITCHEN })).taskState, "IDLE");
      push.simulator.reset();
    }
    assert.equal((await client.sendTempTask(tempTask(KITCHEN, "3"))).cmdStatus, 5);
    assert.deepEqual([(await refusal()).cmdStatus, (await refusal()).cmdResultCode], [TEMP_TASK_REJECTED, TEMP_TASK_ROBOT_BUSY]);
    // The site task (B3) says why in its error.
    await patch(LOBBY, { batteryPercentage: 2 });
    const site = await client.getSiteInfo({ serialNumber: LOBBY });
    const error = await failureOf(
      client.createTempSiteTask({
        serialNumber: LOBBY,
        siteId: String(site.siteId),
        siteName: String(site.siteName),
        taskName: "Lobby",
        cleaningMode: "清扫",
        loopCount: 1,
        floors: [{ index: 0, name: "Floor 1", mapId: FLOOR_1.id, area: { id: "1", name: "Lobby" } }],
        tasks: [{ mapId: FLOOR_1.id, subTasks: [{ mapId: FLOOR_1.id, areaId: "1" }] }],
      }),
    );
    assert.equal(error.status, 400);
    assert.match(error.message, /2 % battery, below 5 %/);
  });

  it("lists by the time window of the reports' start, paged, newest first, total as a string; a report keeps its id in every window", async () => {
    const firstDay = START_MS - 10 * DAY;
    const added: Report[] = [];
    for (let day = 0; day < 6; day++) {
      for (let task = 0; task < 5; task++)
        added.push(await addPast(KITCHEN, { startTime: iso(firstDay + day * DAY + (7 + task * 2) * 60 * MINUTE), durationSeconds: 3600 }));
    }
    // Added out of order: it still lists by its start.
    added.push(
      await addPast(KITCHEN, {
        startTime: iso(firstDay + DAY + 6 * 60 * MINUTE),
        taskEndStatus: TASK_END_STATUS.STOPPED,
        id: "late-filed",
      }),
    );
    const window = { startTimeUtcFloor: iso(firstDay + DAY), startTimeUtcUpper: iso(firstDay + 3 * DAY) };
    const pages = [];
    for (let page = 1; page <= 4; page++)
      pages.push(await push.client.listTaskReports({ serialNumber: KITCHEN, pageSize: 4, page, ...window }));
    assert.deepEqual(
      pages.map((answer) => [answer.total, answer.robotTaskReports.length]),
      [
        ["11", 4],
        ["11", 4],
        ["11", 3],
        ["11", 0],
      ],
    );
    const listed = pages.flatMap((answer) => answer.robotTaskReports) as Report[];
    const starts = listed.map((report) => Date.parse(report.startTime));
    assert.deepEqual(
      starts,
      [...starts].sort((a, b) => b - a),
      "newest first",
    );
    assert.ok(
      starts.every((start) => start >= firstDay + DAY && start < firstDay + 3 * DAY),
      "floor included, upper excluded",
    );
    assert.equal(listed.at(-1)!.id, "late-filed");
    assert.equal(new Set(listed.map((report) => report.id)).size, 11);
    // An overlapping window lists day 2 again, with the same ids.
    const overlap = await push.client.listTaskReports({
      serialNumber: KITCHEN,
      pageSize: 100,
      startTimeUtcFloor: iso(firstDay + 2 * DAY),
      startTimeUtcUpper: iso(firstDay + 4 * DAY),
    });
    const dayTwo = (reports: readonly { id?: unknown; startTime?: string }[]) =>
      reports
        .filter((report) => Date.parse(report.startTime!) < firstDay + 3 * DAY && Date.parse(report.startTime!) >= firstDay + 2 * DAY)
        .map((report) => report.id);
    assert.deepEqual(dayTwo(overlap.robotTaskReports), dayTwo(listed));
    assert.equal(dayTwo(listed).length, 5);
    // No window: everything, the seeded reports too.
    assert.equal((await push.client.listTaskReports({ serialNumber: KITCHEN, pageSize: 100 })).total, String(added.length + 2));
  });

  it("a window bound that is no UTC ISO 8601 time is refused naming it, by the client and by the simulator", async () => {
    const error = await failureOf(push.client.listTaskReports({ serialNumber: KITCHEN, startTimeUtcFloor: "yesterday" }));
    assert.equal(error.code, "INVALID_INPUT");
    assert.equal(error.field, "startTimeUtcFloor");
    const answer = await rawRequest(
      push.simulator.url,
      "GET",
      `/openapi/v2alpha1/robots/${KITCHEN}/taskReports?startTimeUtcUpper=2026-11-20`,
      { token: DEMO_TOKEN },
    );
    assert.equal(answer.status, 400);
    assert.match((answer.json as { message: string }).message, /^startTimeUtcUpper: /);
  });

  it("coverage images: the images query and taskReportPngUri give a PNG of the cleaned area, fetched without the token", async () => {
    const { client } = push;
    assert.equal((await client.sendTempTask(tempTask(KITCHEN, "3"))).cmdStatus, 5);
    push.clock += 10 * MINUTE;
    await control(push.simulator.url, "POST", `robots/${KITCHEN}/task/end`, { taskEndStatus: TASK_END_STATUS.STOPPED });
    const [report] = (await reportsSince(KITCHEN, START_MS)).robotTaskReports;
    assert.ok(report);
    // 10 of the 20 minutes one area takes: half of the Kitchen.
    assert.equal(report.completionPercentage, 0.5);
    const { data } = await client.getTaskReportImages({ robotSn: KITCHEN, taskReportId: report.id });
    assert.equal(data.length, 1);
    assert.equal(new URL(data[0]!).pathname, new URL(report.taskReportPngUri).pathname);
    for (const url of [data[0]!, report.taskReportPngUri]) {
      const image = await rawRequest(url, "GET", url);
      assert.equal(image.status, 200);
      assert.equal(image.headers["content-type"], "image/png");
      const png = decodePng(image.bytes);
      assert.deepEqual([png.width, png.height], [FLOOR_1.width, FLOOR_1.height]);
      const kitchen = FLOOR_1.partitions.find((partition) => partition.name === "Kitchen")!.rect;
      const lobby = FLOOR_1.partitions.find((partition) => partition.name === "Lobby")!.rect;
      // Rows of the PNG count from the top; the maps' from the bottom. Cleaned: the Kitchen's lower half; the Lobby not at all.
      const at = (x: number, y: number) => png.pixel(x, FLOOR_1.height - 1 - y).join(",");
      assert.equal(at(kitchen.x + 10, kitchen.y + 10), COVERAGE_COLOUR.join(","));
      assert.notEqual(at(kitchen.x + 10, kitchen.y + kitchen.height - 10), COVERAGE_COLOUR.join(","));
      assert.notEqual(at(lobby.x + 10, lobby.y + 10), COVERAGE_COLOUR.join(","));
    }
    const withToken = await rawRequest(data[0]!, "GET", data[0]!, { token: DEMO_TOKEN });
    assert.equal(withToken.status, 400, "an object store takes one way of authenticating");
    const unknown = await failureOf(client.getTaskReportImages({ robotSn: KITCHEN, taskReportId: "no-such-report" }));
    assert.equal(unknown.status, 404);
  });

  it("executableTasks are those of the map the robot is on; executingTask shows progress, time remaining and mileage as time passes", async () => {
    const { client } = push;
    const v1 = async () => (await client.batchGetStatuses([LOBBY], { line: "v1" }))[0] as Record<string, unknown>;
    const taskNames = (status: Record<string, unknown>) =>
      (status.executableTasks as { name: string; map: { id: string } }[]).map(
        (task) => `${task.map.id === FLOOR_1.id ? 1 : 2}:${task.name}`,
      );
    assert.deepEqual(taskNames(await v1()), ["1:All of Floor 1", "1:Lobby", "1:Corridor", "1:Kitchen"]);
    await client.submitCommand({
      serialNumber: LOBBY,
      remoteNavigationCommandType: "CROSS_NAVIGATE",
      commandParameter: { startNavigationParameter: { map: FLOOR_2.name, position: "Canteen" } },
    });
    assert.deepEqual(taskNames(await v1()), ["2:All of Floor 2", "2:Canteen", "2:Meeting rooms"]);
    assert.equal((await v1()).executingTask, undefined);

    // All of Floor 1: three areas of 20 minutes.
    await client.submitCommand(startTask(LOBBY));
    const progressAfter = async (minutes: number) => {
      push.clock += minutes * MINUTE;
      const { progress, timeRemaining, cleaningMileage } = (await v1()).executingTask as Record<string, number>;
      return [progress, timeRemaining, cleaningMileage];
    };
    assert.deepEqual(await progressAfter(0), [0, 3600, 0]);
    assert.deepEqual(await progressAfter(15), [0.25, 2700, 450]);
    assert.deepEqual(await progressAfter(15), [0.5, 1800, 900]);
    // Past its planned time it shows all done, still running until it ends.
    assert.deepEqual(await progressAfter(60), [1, 0, 1800]);
  });

  it("the control API: a task end needs a task and a taskEndStatus from -1 to 3; a past report names its bad fields", async () => {
    const noTask = await control(push.simulator.url, "POST", `robots/${LOBBY}/task/end`, { taskEndStatus: 1 });
    assert.equal(noTask.status, 400);
    assert.match(String(noTask.json.message), /runs no task/);
    await push.client.submitCommand(startTask(LOBBY));
    const badStatus = await control(push.simulator.url, "POST", `robots/${LOBBY}/task/end`, { taskEndStatus: 7 });
    assert.equal(badStatus.status, 400);
    assert.match(String(badStatus.json.message), /^taskEndStatus: /);
    assert.equal((await control(push.simulator.url, "GET", `robots/${LOBBY}/task/end`)).status, 405);
    assert.equal((await control(push.simulator.url, "POST", "robots/GS-NOPE/task/end", { taskEndStatus: 0 })).status, 404);

    for (const [body, field] of [
      [{ startTime: "last Tuesday" }, "startTime"],
      [{ startTime: iso(START_MS), mapId: "no-map" }, "mapId"],
      [{ startTime: iso(START_MS), areaIds: ["99"] }, "areaIds"],
      [{ startTime: iso(START_MS), taskEndStatus: 4 }, "taskEndStatus"],
      [{ startTime: iso(START_MS), colour: "red" }, ""],
    ] as const) {
      const answer = await control(push.simulator.url, "POST", `robots/${LOBBY}/taskReports`, body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      if (field) assert.match(String(answer.json.message), new RegExp(`^${field}: `));
    }
    await addPast(LOBBY, { startTime: iso(START_MS - DAY), id: "once" });
    const twice = await control(push.simulator.url, "POST", `robots/${LOBBY}/taskReports`, { startTime: iso(START_MS - DAY), id: "once" });
    assert.equal(twice.status, 400);
    assert.match(String(twice.json.message), /^id: /);
    // The same through the library.
    const added = push.simulator.addTaskReport(LOBBY, { startTime: iso(START_MS - 2 * DAY), taskEndStatus: TASK_END_STATUS.ERROR });
    assert.equal(added.taskEndStatus, TASK_END_STATUS.ERROR);
    assert.ok(
      (await reportsSince(LOBBY, START_MS - 2 * DAY, { startTimeUtcUpper: iso(START_MS - 2 * DAY + 1) })).robotTaskReports.some(
        (report) => report.id === added.id,
      ),
    );
    assert.throws(() => push.simulator.addTaskReport(LOBBY, { startTime: "soon" }), /^Error: startTime: /);
    assert.equal(push.simulator.endTask(LOBBY, TASK_END_STATUS.STOPPED).taskState, "IDLE");
    assert.throws(() => push.simulator.endTask(LOBBY, TASK_END_STATUS.STOPPED), /runs no task/);
    // Reports added in the past are not pushed: they stand for what happened before the push target was set.
    assert.equal(bodiesOf(push.receiver).length, 0);
  });
});
