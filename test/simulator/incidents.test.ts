/**
 * Incident pushes, received by a recording server on loopback: raised by a
 * robot's own state (emergency stop, battery below 5 %, lost, offline)
 * whatever changed it (a PATCH, updateRobot, time), recovered with the same
 * incidentId when that clears, and raised and recovered by hand through
 * /_sim/robots/<serial>/incidents.
 */
import assert from "node:assert/strict";
import {
  CRITICAL_BATTERY_PERCENT,
  DEMO_TOKEN,
  MANUAL_INCIDENT,
  ROBOT_INCIDENTS,
  startSimulator,
  type IncidentContent,
  type PushBody,
} from "../../src/simulator";
import { RobotClient } from "../../src/api/client";
import { RecordingServer } from "../support/recording-server";
import { APP_ID, START_MS, control, received, usePushReceiver } from "../support/push-receiver";

const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";

const contentOf = (body: PushBody) => body.payload.content as IncidentContent;
/** The raise and the recovery among `bodies`: deliveries go out side by side, so they may arrive in either order. */
const raiseAndRecovery = (bodies: PushBody[]) => {
  const contents = bodies.map(contentOf);
  return [contents.find((content) => content.incidentStatus === 1), contents.find((content) => content.incidentStatus === 0)] as const;
};

describe("simulator: incident pushes", function () {
  const push = usePushReceiver();

  const patch = async (serialNumber: string, changes: Record<string, unknown>) => {
    const answer = await control(push.simulator.url, "PATCH", `robots/${serialNumber}`, changes);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
  };
  const open = async (serialNumber: string) => {
    const answer = await control(push.simulator.url, "GET", `robots/${serialNumber}/incidents`);
    assert.equal(answer.status, 200);
    return answer.json.incidents as IncidentContent[];
  };

  describe("raised by the robot's state", () => {
    it("raises H4 when the emergency stop is pressed during a task, with the task's fields, and recovers it with the same id", async () => {
      await push.client.submitCommand({
        serialNumber: LOBBY,
        remoteTaskCommandType: "START_TASK",
        commandParameter: {
          startTaskParameter: {
            cleaningMode: "__middle_cleaning",
            task: { name: "Lobby round", map: "Floor 2", loop: false, loopCount: 1 },
          },
        },
      });
      const task = push.simulator.state.robot(LOBBY)!.currentTask!;
      push.clock += 1000;
      await patch(LOBBY, { emergencyStop: true });
      const [raised] = await received(push.receiver, 1);
      assert.equal(raised!.appId, APP_ID);
      assert.equal(typeof raised!.pushTime, "number");
      assert.deepEqual([raised!.payload.serialNumber, raised!.payload.modelTypeCode], [LOBBY, push.simulator.state.robot(LOBBY)!.model]);
      const content = contentOf(raised!);
      const kind = ROBOT_INCIDENTS.emergencyStop;
      assert.deepEqual(
        { ...content, incidentId: typeof content.incidentId },
        {
          incidentCode: kind.incidentCode,
          incidentName: kind.incidentName,
          incidentLevel: "H4",
          incidentId: "string",
          incidentStatus: 1,
          startTime: START_MS + 1000,
          endTime: 0,
          taskId: task.id,
          subTaskId: task.id,
          taskInstanceId: task.id,
          taskName: "Lobby round",
          mapId: task.mapId,
          mapName: "Floor 2",
          navInstanceId: "",
          navName: "",
        },
      );
      assert.deepEqual(await open(LOBBY), [content]);

      push.clock += 4000;
      push.simulator.updateRobot(LOBBY, { emergencyStop: false });
      const [, recovered] = await received(push.receiver, 2);
      assert.deepEqual(contentOf(recovered!), { ...content, incidentStatus: 0, endTime: START_MS + 5000 });
      assert.deepEqual(await open(LOBBY), []);
      assert.equal(push.receiver.requests.length, 2, "one push each way");
    });

    it("raises H5 when a robot goes offline and recovers it when it is back", async () => {
      await patch(KITCHEN, { online: false });
      await patch(KITCHEN, { online: false });
      push.clock += 60_000;
      await patch(KITCHEN, { online: true });
      const [raised, recovered] = raiseAndRecovery(await received(push.receiver, 2));
      assert.deepEqual([raised!.incidentLevel, raised!.incidentCode], ["H5", ROBOT_INCIDENTS.offline.incidentCode]);
      assert.deepEqual([recovered!.incidentId, recovered!.endTime - recovered!.startTime], [raised!.incidentId, 60_000]);
      assert.equal(raised!.taskId, "", "no task under way");
      assert.equal(push.receiver.requests.length, 2, "going offline twice raises once");
    });

    it(`raises H4 when the battery falls below ${CRITICAL_BATTERY_PERCENT} %, once, and recovers it above`, async () => {
      push.simulator.updateRobot(KITCHEN, { batteryPercentage: CRITICAL_BATTERY_PERCENT });
      push.simulator.updateRobot(KITCHEN, { batteryPercentage: CRITICAL_BATTERY_PERCENT - 1 });
      push.simulator.updateRobot(KITCHEN, { batteryPercentage: 1 });
      await patch(KITCHEN, { batteryPercentage: 30 });
      const [raised, recovered] = raiseAndRecovery(await received(push.receiver, 2));
      assert.deepEqual([raised!.incidentLevel, raised!.incidentCode], ["H4", ROBOT_INCIDENTS.batteryCritical.incidentCode]);
      assert.equal(recovered!.incidentId, raised!.incidentId);
      assert.equal(push.receiver.requests.length, 2);
    });

    it("raises H4 when a robot is lost, several at once each with its own id", async () => {
      await patch(LOBBY, { localizationState: "LOST", emergencyStop: true });
      const contents = (await received(push.receiver, 2)).map(contentOf);
      assert.deepEqual(
        contents.map((content) => content.incidentCode).sort(),
        [ROBOT_INCIDENTS.emergencyStop.incidentCode, ROBOT_INCIDENTS.localizationLost.incidentCode].sort(),
      );
      assert.notEqual(contents[0]!.incidentId, contents[1]!.incidentId);
      // Looked at again (this GET brings time up to now): still two, none raised twice.
      const byCode = (list: IncidentContent[]) => list.toSorted((a, b) => a.incidentCode - b.incidentCode);
      assert.deepEqual(byCode(await open(LOBBY)), byCode(contents));
      assert.equal(push.receiver.requests.length, 2);
    });

    it("notices a battery that time drains below the line, with nobody polling", async () => {
      const receiver = await new RecordingServer().start();
      let clock = START_MS;
      const timed = await startSimulator({
        quiet: true,
        rateLimit: false,
        now: () => clock,
        timing: { batteryDrainPerMinute: 1 },
        push: { url: receiver.url, appId: APP_ID },
      });
      const client = new RobotClient({ baseUrl: timed.url, auth: { token: DEMO_TOKEN }, retry: { maxRetries: 0 } });
      try {
        timed.updateRobot(KITCHEN, { batteryPercentage: 6 });
        await client.submitCommand({
          serialNumber: KITCHEN,
          remoteTaskCommandType: "START_TASK",
          commandParameter: {
            startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Kitchen", map: "Floor 1", loop: false, loopCount: 1 } },
          },
        });
        // 1 % a minute: 100 s later 4.3 % is left, shown as 4 %, and the task still runs.
        clock += 100_000;
        const [raised] = (await received(receiver, 1)).map(contentOf);
        assert.deepEqual(
          [raised!.incidentCode, raised!.taskName, raised!.startTime],
          [ROBOT_INCIDENTS.batteryCritical.incidentCode, "Kitchen", clock],
        );
      } finally {
        client.close();
        await timed.close();
        await receiver.stop();
      }
    });

    it("forgets open incidents on reset, and keeps the push target", async () => {
      push.simulator.updateRobot(LOBBY, { emergencyStop: true });
      await received(push.receiver, 1);
      push.simulator.reset();
      assert.deepEqual(await open(LOBBY), []);
      assert.equal(push.simulator.pushes.appId, APP_ID);
      push.simulator.updateRobot(LOBBY, { emergencyStop: true });
      const [first, second] = (await received(push.receiver, 2)).map(contentOf);
      assert.equal(second!.incidentStatus, 1, "no recovery of a forgotten incident");
      assert.notEqual(second!.incidentId, first!.incidentId);
    });
  });

  describe("raised by hand", () => {
    const incidents = (body: unknown, serialNumber = KITCHEN) =>
      control(push.simulator.url, "POST", `robots/${serialNumber}/incidents`, body);

    it("raises with POST (201, the pushed body) and recovers by incidentId and by incidentCode", async () => {
      const raised = await incidents({ incidentLevel: "H6", incidentCode: 2001, incidentName: "Water tank empty" });
      assert.equal(raised.status, 201);
      assert.equal(raised.json.pushed, true);
      const [pushed] = await received(push.receiver, 1);
      assert.deepEqual(raised.json.body, pushed);
      const id = raised.json.incidentId as string;
      assert.equal(contentOf(pushed!).incidentId, id);
      assert.deepEqual(
        [contentOf(pushed!).incidentLevel, contentOf(pushed!).incidentName, contentOf(pushed!).incidentStatus],
        ["H6", "Water tank empty", 1],
      );

      const named = await incidents({ incidentLevel: "H0", incidentId: "my-own-id" });
      assert.equal(named.json.incidentId, "my-own-id");
      assert.equal(contentOf(named.json.body as PushBody).incidentCode, MANUAL_INCIDENT.incidentCode);
      assert.equal((await incidents({ incidentLevel: "H0", incidentId: "my-own-id" })).status, 409);
      assert.deepEqual(
        (await open(KITCHEN)).map((content) => content.incidentId),
        [id, "my-own-id"],
      );

      push.clock += 30_000;
      const byId = await incidents({ raised: false, incidentId: id });
      assert.equal(byId.status, 200);
      const recovered = contentOf(byId.json.body as PushBody);
      assert.deepEqual(
        [recovered.incidentStatus, recovered.incidentId, recovered.endTime, recovered.incidentCode],
        [0, id, START_MS + 30_000, 2001],
      );
      const byCode = await incidents({ raised: false, incidentCode: MANUAL_INCIDENT.incidentCode });
      assert.equal(contentOf(byCode.json.body as PushBody).incidentId, "my-own-id");
      assert.deepEqual(await open(KITCHEN), []);
      const bodies = await received(push.receiver, 4);
      assert.deepEqual(bodies.map((body) => contentOf(body).incidentStatus).sort(), [0, 0, 1, 1]);

      const again = await incidents({ raised: false, incidentId: id });
      assert.equal(again.status, 404);
      assert.match(String(again.json.message), /^incidentId: no open incident/);
      const noCode = await incidents({ raised: false, incidentCode: 2001 });
      assert.equal(noCode.status, 404);
      assert.match(String(noCode.json.message), /^incidentCode: no open incident 2001/);
    });

    it("answers pushed false, with the payload, when there is no push target", async () => {
      push.simulator.setPush(undefined);
      const raised = await incidents({ incidentLevel: "H2" });
      assert.equal(raised.status, 201);
      assert.equal(raised.json.pushed, false);
      const payload = (raised.json.body as { payload: { serialNumber: string; content: IncidentContent } }).payload;
      assert.equal(payload.serialNumber, KITCHEN);
      assert.equal(payload.content.incidentId, raised.json.incidentId);
      assert.equal((await open(KITCHEN)).length, 1, "it is open all the same");
    });

    it("refuses a bad body naming the field, an unknown robot with 404, and other methods with 405", async () => {
      for (const [body, message] of [
        [{}, /^incidentLevel: is needed to raise an incident/],
        [{ incidentLevel: "H8" }, /^incidentLevel: must be one of "H0"/],
        [{ incidentLevel: 4 }, /^incidentLevel: must be one of/],
        [{ incidentLevel: "H1", incidentCode: 1.5 }, /^incidentCode: must be a whole number/],
        [{ incidentLevel: "H1", incidentName: "" }, /^incidentName: must be a non-empty string/],
        [{ incidentLevel: "H1", raised: "yes" }, /^raised: must be true or false/],
        [{ raised: false }, /^incidentId: or incidentCode is needed to recover an incident/],
        [{ incidentLevel: "H1", colour: "red" }, /^colour: is not a field/],
      ] as const) {
        const refused = await incidents(body);
        assert.equal(refused.status, 400, JSON.stringify(body));
        assert.match(String(refused.json.message), message, JSON.stringify(body));
      }
      assert.equal((await incidents("{not json")).status, 400);
      const unknown = await incidents({ incidentLevel: "H1" }, "GS-S-999999");
      assert.equal(unknown.status, 404);
      assert.match(String(unknown.json.message), /GS-S-999999/);
      assert.equal((await control(push.simulator.url, "GET", "robots/GS-S-999999/incidents")).status, 404);
      assert.equal((await control(push.simulator.url, "DELETE", `robots/${KITCHEN}/incidents`)).status, 405);
      assert.deepEqual(await open(KITCHEN), []);
      assert.equal(push.receiver.requests.length, 0);
    });
  });
});
