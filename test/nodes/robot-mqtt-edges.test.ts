/**
 * The MQTT bridge's commands at the edges a study of one-line mutants found
 * untested, without Node-RED or a broker (a recording stand-in for the node,
 * as robot-mqtt-standby.test.ts), against the simulator: the fan speed chosen
 * with set_fan_speed is the one start and clean_segments clean with; the last chosen
 * area's end says why when it did not end done (its report's outcome), and
 * nothing when it did; a send_command job names its own map, and one the robot
 * cannot start there (a task or an area on another floor) is refused at once
 * with nothing sent, a goto is sent on its own map, never on the robot's.
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { RobotClient } from "../../src/api/client";
import { MqttBridge } from "../../src/nodes/robot-mqtt/bridge";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { ROOTS, recordingNode, type Sent } from "../support/mqtt-fixtures";
import { waitFor } from "../support/node-red";

const SERIAL = "GS-S-000101";
const topic = (suffix: string) => `${ROOTS.base}/${SERIAL}/${suffix}`;
type Result = { command: string; ok: boolean; reason: string };

describe("robot-mqtt: the chosen fan speed, the last area's end, a job's own map", function () {
  this.timeout(60_000);
  let simulator: RunningSimulator;
  let client: RobotClient;
  let bridge: MqttBridge;
  let sent: Sent[];
  before(async () => {
    // Tasks last until the test ends them (the control API), with the task report's end status it gives.
    simulator = await startSimulator({ rateLimit: false, log: () => undefined, timing: { taskDurationMs: 600_000 } });
  });
  after(() => simulator.close());
  beforeEach(async () => {
    simulator.reset();
    sent = [];
    client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN } });
    bridge = new MqttBridge(
      recordingNode(sent),
      client,
      { roots: ROOTS, intervalMs: 1000, serialNumbers: [SERIAL], startTasks: new Map(), origin: { name: "test" }, acceptance: { mode: "all" } },
      (key) => key,
    );
    await bridge.start();
  });
  afterEach(async () => {
    await bridge.close(false);
    client.close();
    forgetAccountMemory();
  });

  const results = () => sent.filter((message) => message.topic === topic("result")).map((message) => JSON.parse(message.payload) as Result);
  /** Publishes as Home Assistant does and resolves with the next result. */
  async function resultOf(suffix: string, payload: string): Promise<Result> {
    const before = results().length;
    bridge.receive({ topic: topic(suffix), payload });
    await waitFor(() => results().length > before, 30_000, `the result of ${suffix} ${payload}`);
    return results()[before]!;
  }
  async function segmentOf(name: string): Promise<string> {
    const segments = () => {
      const states = sent.filter((message) => message.topic === topic("state") && message.payload !== "");
      return (JSON.parse(states.at(-1)?.payload ?? "{}") as { segments?: Record<string, string> }).segments;
    };
    await waitFor(() => segments() !== undefined, 20_000, "the robot's segments in its state");
    return Object.entries(segments()!).find(([, area]) => area === name)![0];
  }
  const commandsSent = () => simulator.state.commands(SERIAL).length;

  // The robot's first mode (what a start without a choice takes) and another: only the second tells a choice kept from one ignored.
  for (const chosen of [undefined, "__heavy_cleaning"]) {
    it(`clean_segments cleans with ${chosen ?? "the robot's first mode when no fan speed was chosen"}${chosen ? ", the fan speed chosen" : ""}`, async () => {
      const kitchen = await segmentOf("Kitchen");
      if (chosen) assert.equal((await resultOf("set_fan_speed", chosen)).ok, true);
      const started = await resultOf("clean_segments", JSON.stringify([kitchen]));
      assert.equal(started.ok, true, started.reason);
      assert.equal(simulator.state.robot(SERIAL)!.currentTask?.cleaningMode, chosen ?? "__middle_cleaning");
    });
  }

  it("start runs its task with the fan speed chosen, not the robot's first mode", async () => {
    await segmentOf("Kitchen");
    assert.equal((await resultOf("set_fan_speed", "__heavy_cleaning")).ok, true);
    const started = await resultOf("command", "start");
    assert.equal(started.ok, true, started.reason);
    assert.equal(simulator.state.robot(SERIAL)!.currentTask?.cleaningMode, "__heavy_cleaning");
  });

  // taskEndStatus 0 normal, 1 stopped by hand, 2 error (docs/cloud-api.md): the last area's end says which, once.
  for (const [taskEndStatus, expected] of [
    [0, { ok: true, reason: "Kitchen ended" }],
    [1, { ok: false, reason: "Kitchen ended: stopped by hand" }],
    [2, { ok: false, reason: "Kitchen ended: the task ended with an error" }],
  ] as const) {
    it(`the last chosen area ended with taskEndStatus ${taskEndStatus}: "${expected.reason}"`, async () => {
      const kitchen = await segmentOf("Kitchen");
      assert.equal((await resultOf("clean_segments", JSON.stringify([kitchen]))).ok, true);
      const before = results().length;
      simulator.endTask(SERIAL, taskEndStatus);
      await waitFor(() => results().length > before, 30_000, "the area's end");
      assert.deepEqual(results().slice(before), [{ command: "clean_segments", ...expected }]);
    });
  }

  // The robot stands on Floor 1; Floor 2 has the Canteen (an area, a task and a navigation point).
  for (const [job, words] of [
    [{ task: "Canteen", map: "Floor 2" }, "a task"],
    [{ area: "Canteen", map: "Floor 2" }, "an area"],
  ] as const) {
    it(`refuses ${words} on another map than the robot's at once, naming both, and sends nothing`, async () => {
      await segmentOf("Kitchen");
      const before = commandsSent();
      const result = await resultOf("send_command", JSON.stringify(job));
      assert.deepEqual(result, {
        command: "job",
        ok: false,
        reason: `robot ${SERIAL} is on map Floor 1, not Floor 2: a task or an area starts on the map the robot is on (send it to Floor 2 first with go_to)`,
      });
      assert.equal(commandsSent(), before, "nothing sent");
    });
  }

  type SentCommand = { commandParameter?: { startTaskParameter?: { task?: { name?: string; map?: string } }; startNavigationParameter?: { map?: string; position?: string } } };
  for (const [job, shown] of [
    [{ task: "Kitchen", map: "Floor 1" }, (command: SentCommand) => [command.commandParameter?.startTaskParameter?.task?.name, command.commandParameter?.startTaskParameter?.task?.map]],
    [{ goto: "Canteen", map: "Floor 2" }, (command: SentCommand) => [command.commandParameter?.startNavigationParameter?.position, command.commandParameter?.startNavigationParameter?.map]],
  ] as const) {
    it(`sends ${JSON.stringify(job)} on the map the job names`, async () => {
      await segmentOf("Kitchen");
      bridge.receive({ topic: topic("send_command"), payload: JSON.stringify(job) });
      await waitFor(() => commandsSent() > 0, 20_000, "the start sent");
      assert.deepEqual(shown(simulator.state.commands(SERIAL).at(-1) as SentCommand), [Object.values(job)[0], job.map]);
    });
  }
});
