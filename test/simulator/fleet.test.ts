/**
 * The simulator's fleet endpoints (field notes): the account's robots, paged;
 * both batch statuses (the S-line one reading its GET body), an unknown or
 * foreign robot failing a batch with 403; task reports, seeded and appended
 * when a task ends; and the usual checks (token, rate limit) on these routes.
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import { ENDPOINTS } from "../../src/api/cloud/endpoints";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { DEMO_TOKEN, OFF_SITE_ROBOT, WAREHOUSE_TOKEN, startSimulator } from "../../src/simulator";
import { officeMaps } from "../../src/simulator/maps/maps";
import { rawRequest } from "../support/raw-http";
import { failureOf } from "../support/failures";
import { useClientOnSimulator } from "../support/client-on-server";

const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";
const ALL = [LOBBY, KITCHEN, OFF_SITE_ROBOT];

describe("simulator: fleet endpoints", function () {
  const demo = useClientOnSimulator();
  let warehouse: RobotClient;

  before(() => {
    warehouse = new RobotClient({ baseUrl: demo.simulator.url, auth: { token: WAREHOUSE_TOKEN }, retry: { maxRetries: 0 } });
  });
  after(() => {
    warehouse.close();
  });

  describe("robots of the account", () => {
    it("lists the account's robots with the fields of the field notes, total as an int64 string", async () => {
      const page = await demo.client.listRobots({});
      assert.deepEqual(
        page.robots.map((robot) => robot.serialNumber),
        ALL,
      );
      assert.equal(page.total, "3");
      assert.deepEqual(page.robots[0], {
        serialNumber: LOBBY,
        displayName: "Lobby scrubber",
        modelFamilyCode: "S",
        modelTypeCode: "S-line S50",
        softwareVersion: "3.8.2",
        online: true,
      });
    });

    it("pages: page 2 of size 2 is the third robot, a page past the end is empty", async () => {
      assert.deepEqual(
        (await demo.client.listRobots({ page: 2, pageSize: 2 })).robots.map((robot) => robot.serialNumber),
        [OFF_SITE_ROBOT],
      );
      assert.deepEqual((await demo.client.listRobots({ page: 9, pageSize: 2 })).robots, []);
    });

    it("listAllRobots pages through the simulator (size 1: four requests)", async () => {
      const robots = await demo.client.listAllRobots({ pageSize: 1 });
      assert.deepEqual(
        robots.map((robot) => robot.serialNumber),
        ALL,
      );
    });

    it("another account sees only its own robots", async () => {
      assert.deepEqual(
        (await warehouse.listAllRobots()).map((robot) => robot.serialNumber),
        [OFF_SITE_ROBOT],
      );
    });

    it("a bad page in the query is code 3 naming it, and so is a page given twice", async () => {
      const zero = await rawRequest(demo.simulator.url, "GET", "/v1alpha1/robots?page=0", { token: DEMO_TOKEN });
      assert.equal(zero.status, 400);
      assert.match((zero.json as { message: string }).message, /^page: /);
      const twice = await rawRequest(demo.simulator.url, "GET", "/v1alpha1/robots?page=1&page=2", { token: DEMO_TOKEN });
      assert.equal(twice.status, 400);
      assert.match((twice.json as { message: string }).message, /^page: given more than once/);
    });
  });

  describe("batch status", () => {
    it("v1 answers robotStatuses in the order asked, with the richer v1 fields and int64 strings", async () => {
      const { robotStatuses } = await demo.client.batchGetRobotStatus({ names: [OFF_SITE_ROBOT, LOBBY] });
      assert.deepEqual(
        robotStatuses.map((status) => status.name),
        [`robots/${OFF_SITE_ROBOT}`, `robots/${LOBBY}`],
      );
      const lobby = robotStatuses[1]!;
      assert.equal(lobby.serialNumber, LOBBY);
      assert.equal(lobby.online, true);
      assert.equal(lobby.navStatus, "NAVI_IDLE");
      assert.match(String(lobby.latestReportTime), /^\d{13}$/);
      assert.equal(typeof lobby.latestReportTime, "string");
      assert.equal((lobby.battery as { soc: number }).soc, 96);
      // The tasks of the map it is on: all of Floor 1, and each of its areas.
      const tasks = lobby.executableTasks as { name: string; map: { name: string } }[];
      assert.deepEqual(
        tasks.map((task) => task.name),
        ["All of Floor 1", ...officeMaps()[0]!.partitions.map((partition) => partition.name)],
      );
      assert.ok(tasks.every((task) => task.map.name === "Floor 1"));
      assert.ok(Array.isArray(lobby.workModes));
    });

    it("the S-line batch reads its names from the GET body and answers robotStatus with B1's status", async () => {
      const answer = await rawRequest(demo.simulator.url, "GET", ENDPOINTS.batchGetSRobotStatus.path, {
        token: DEMO_TOKEN,
        body: { names: [KITCHEN, LOBBY] },
      });
      assert.equal(answer.status, 200, answer.text);
      const statuses = (answer.json as { robotStatus: Record<string, unknown>[] }).robotStatus;
      // latestReportTime is the moment of the answer, which differs between the two reads.
      const untimed = ({ latestReportTime, ...status }: Record<string, unknown>) => (
        assert.match(String(latestReportTime), /^\d{13}$/),
        status
      );
      assert.deepEqual(statuses.map(untimed), [demo.simulator.state.status(KITCHEN)!, demo.simulator.state.status(LOBBY)!].map(untimed));
    });

    it("the S-line batch without a body, or without Content-Type, is refused like any body", async () => {
      const empty = await rawRequest(demo.simulator.url, "GET", ENDPOINTS.batchGetSRobotStatus.path, {
        token: DEMO_TOKEN,
        headers: { "Content-Type": "application/json" },
      });
      assert.equal(empty.status, 400);
      const noType = await rawRequest(demo.simulator.url, "GET", ENDPOINTS.batchGetSRobotStatus.path, {
        token: DEMO_TOKEN,
        body: JSON.stringify({ names: [LOBBY] }),
        headers: { "Content-Type": "text/plain" },
      });
      assert.equal(noType.status, 415);
    });

    it("the batches show a change made by a command", async () => {
      await demo.client.submitCommand({
        serialNumber: KITCHEN,
        remoteTaskCommandType: "START_TASK",
        commandParameter: {
          startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Kitchen", map: "Floor 1", loop: false, loopCount: 1 } },
        },
      });
      const [v1] = await demo.client.batchGetStatuses([KITCHEN], { line: "v1" });
      const [sLine] = await demo.client.batchGetStatuses([KITCHEN], { line: "s" });
      assert.equal(v1!.taskState, "RUNNING");
      assert.equal((v1!.executingTask as { name: string }).name, "Kitchen");
      assert.equal(sLine!.taskState, "RUNNING");
    });

    it("a robot of another account fails the whole batch with 403 code 7, naming it, on both lines", async () => {
      for (const call of [
        warehouse.batchGetRobotStatus({ names: [OFF_SITE_ROBOT, LOBBY] }),
        warehouse.batchGetSRobotStatus({ names: [OFF_SITE_ROBOT, LOBBY] }),
      ]) {
        const error = await failureOf(call);
        assert.equal(error.status, 403);
        assert.equal(error.apiCode, 7);
        assert.match(error.message, new RegExp(LOBBY));
        assert.doesNotMatch(error.message, new RegExp(OFF_SITE_ROBOT));
      }
    });

    it("batchGetStatuses splits that batch: the account's robot read, the other account's reported unreachable with the 403", async () => {
      for (const line of ["v1", "s"] as const) {
        forgetAccountMemory();
        const statuses = await warehouse.batchGetStatuses([OFF_SITE_ROBOT, LOBBY], { line });
        assert.equal(statuses.find((status) => status.serialNumber === OFF_SITE_ROBOT)?.online, true, line);
        const refused = statuses.find((status) => status.serialNumber === LOBBY)!;
        assert.equal(refused.online, false, line);
        assert.equal((refused.unreachable as { code: string }).code, "PERMISSION_DENIED", line);
      }
    });

    it("an unknown robot is refused the same way: 403, not 404 (the cloud does not say which robots exist)", async () => {
      const error = await failureOf(demo.client.batchGetRobotStatus({ names: [LOBBY, "GS-S-999999", "GS-X-1"] }));
      assert.equal(error.status, 403);
      assert.match(error.message, /GS-S-999999, GS-X-1/);
    });

    it("a comma-joined list is one unknown name: 403, as the field notes report", async () => {
      const answer = await rawRequest(demo.simulator.url, "GET", `${ENDPOINTS.batchGetRobotStatus.path}?names=${LOBBY},${KITCHEN}`, {
        token: DEMO_TOKEN,
      });
      assert.equal(answer.status, 403);
      assert.equal((answer.json as { code: number }).code, 7);
    });

    it("the repeated form of the same names answers both robots", async () => {
      const answer = await rawRequest(demo.simulator.url, "GET", `${ENDPOINTS.batchGetRobotStatus.path}?names=${LOBBY}&names=${KITCHEN}`, {
        token: DEMO_TOKEN,
      });
      assert.equal(answer.status, 200);
      assert.equal((answer.json as { robotStatuses: unknown[] }).robotStatuses.length, 2);
    });

    it("twelve names are refused (code 3): the simulator checks with the table's own schema", async () => {
      const names = Array.from({ length: 12 }, (_, index) => `names=SN-${index}`).join("&");
      const answer = await rawRequest(demo.simulator.url, "GET", `${ENDPOINTS.batchGetRobotStatus.path}?${names}`, { token: DEMO_TOKEN });
      assert.equal(answer.status, 400);
      assert.match((answer.json as { message: string }).message, /^names: /);
    });
  });

  describe("task reports", () => {
    it("seeds one or two reports per robot with the fields of the field notes, newest first", async () => {
      const counts = [];
      for (const serialNumber of ALL) {
        const { robotTaskReports, total } = await demo.client.listTaskReports({ serialNumber });
        counts.push(robotTaskReports.length);
        assert.equal(total, String(robotTaskReports.length));
        for (const report of robotTaskReports) {
          assert.equal(report.robotSerialNumber, serialNumber);
          for (const field of [
            "id",
            "displayName",
            "operator",
            "completionPercentage",
            "durationSeconds",
            "plannedCleaningAreaSquareMeter",
            "actualCleaningAreaSquareMeter",
            "efficiencySquareMeterPerHour",
            "waterConsumptionLiter",
            "startBatteryPercentage",
            "endBatteryPercentage",
            "consumablesResidualPercentage",
            "cleaningMode",
            "taskEndStatus",
            "subTasks",
            "startTime",
            "endTime",
          ]) {
            assert.ok(field in report, `${serialNumber}: ${field}`);
          }
        }
        const ends = robotTaskReports.map((report) => Date.parse(report.endTime!));
        assert.deepEqual(
          ends,
          [...ends].sort((a, b) => b - a),
          "newest first",
        );
      }
      assert.deepEqual(counts, [1, 2, 1]);
    });

    it("the seeded reports are the same after a reset (stable ids)", async () => {
      const before = await demo.client.listTaskReports({ serialNumber: KITCHEN });
      demo.simulator.reset();
      const after = await demo.client.listTaskReports({ serialNumber: KITCHEN });
      assert.deepEqual(
        after.robotTaskReports.map((report) => report.id),
        before.robotTaskReports.map((report) => report.id),
      );
    });

    it("a task that ends appends a report at the top, naming the task and its map", async () => {
      await demo.client.submitCommand({
        serialNumber: LOBBY,
        remoteTaskCommandType: "START_TASK",
        commandParameter: {
          startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Lobby now", map: "Floor 2", loop: false, loopCount: 1 } },
        },
      });
      await demo.client.submitCommand({ serialNumber: LOBBY, remoteTaskCommandType: "STOP_TASK" });
      const { robotTaskReports, total } = await demo.client.listTaskReports({ serialNumber: LOBBY });
      assert.equal(total, "2");
      const newest = robotTaskReports[0]!;
      assert.equal(newest.displayName, "Lobby now");
      assert.equal(newest.cleaningMode, "__middle_cleaning");
      assert.equal((newest.subTasks as { mapName: string }[])[0]!.mapName, "Floor 2");
      assert.ok(Number(newest.completionPercentage) >= 0 && Number(newest.completionPercentage) <= 1);
      // A STOP_TASK on an idle robot files nothing.
      await demo.client.submitCommand({ serialNumber: LOBBY, remoteTaskCommandType: "STOP_TASK" });
      assert.equal((await demo.client.listTaskReports({ serialNumber: LOBBY })).total, "2");
    });

    it("pages the reports: page 2 of size 1 is the older one", async () => {
      const first = await demo.client.listTaskReports({ serialNumber: KITCHEN, page: 1, pageSize: 1 });
      const second = await demo.client.listTaskReports({ serialNumber: KITCHEN, page: 2, pageSize: 1 });
      assert.equal(first.robotTaskReports.length, 1);
      assert.equal(second.robotTaskReports.length, 1);
      assert.notEqual(first.robotTaskReports[0]!.id, second.robotTaskReports[0]!.id);
      assert.deepEqual((await demo.client.listTaskReports({ serialNumber: KITCHEN, page: 3, pageSize: 1 })).robotTaskReports, []);
    });

    it("reports of another account's robot are 403, of an unknown robot 404", async () => {
      assert.equal((await failureOf(warehouse.listTaskReports({ serialNumber: LOBBY }))).status, 403);
      assert.equal((await failureOf(demo.client.listTaskReports({ serialNumber: "GS-S-999999" }))).status, 404);
    });
  });

  describe("the cloud's checks apply to the new routes", () => {
    it("no token: 401 on every fleet route", async () => {
      for (const path of [
        "/v1alpha1/robots",
        `${ENDPOINTS.batchGetRobotStatus.path}?names=${LOBBY}`,
        `/openapi/v2alpha1/robots/${LOBBY}/taskReports`,
        `/v1alpha1/robots/${LOBBY}/commands/0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b`,
      ]) {
        assert.equal((await rawRequest(demo.simulator.url, "GET", path)).status, 401, path);
      }
      const sLine = await rawRequest(demo.simulator.url, "GET", ENDPOINTS.batchGetSRobotStatus.path, { body: { names: [LOBBY] } });
      assert.equal(sLine.status, 401);
    });

    it("the rate limit counts them: the third request in a window of two is 429 with Retry-After", async () => {
      const limited = await startSimulator({ quiet: true, rateLimit: { requests: 2, windowMs: 60_000 } });
      try {
        const statuses: number[] = [];
        for (const path of [
          "/v1alpha1/robots",
          `${ENDPOINTS.batchGetRobotStatus.path}?names=${LOBBY}`,
          `/openapi/v2alpha1/robots/${LOBBY}/taskReports`,
        ]) {
          const answer = await rawRequest(limited.url, "GET", path, { token: DEMO_TOKEN });
          statuses.push(answer.status);
          if (answer.status === 429) assert.ok(answer.headers["retry-after"]);
        }
        assert.deepEqual(statuses, [200, 200, 429]);
      } finally {
        await limited.close();
      }
    });

    it("injected failures reach them too", async () => {
      demo.simulator.setFaults({ failRate: 1 });
      try {
        const answer = await rawRequest(demo.simulator.url, "GET", "/v1alpha1/robots", { token: DEMO_TOKEN });
        assert.equal(answer.status, 500);
      } finally {
        demo.simulator.setFaults({ failRate: 0 });
      }
    });

    it("a POST to a fleet route is 405 with Allow: GET", async () => {
      const answer = await rawRequest(demo.simulator.url, "POST", "/v1alpha1/robots", { token: DEMO_TOKEN, body: {} });
      assert.equal(answer.status, 405);
      assert.equal(answer.headers.allow, "GET");
    });
  });
});
