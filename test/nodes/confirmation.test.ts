/**
 * "Send when: the robot shows it" through real Node-RED against the simulator:
 * robot-command and robot-site-task send their message once the robot's
 * status shows the command's effect, with msg.confirmation; a robot that does
 * not show it in time is one NOT_CONFIRMED error carrying its last status, and
 * the command is never sent again; fifty commands waiting at once stay within
 * the account's rate, their status reads batched.
 */
import assert from "node:assert/strict";
import robotCommand from "../../src/nodes/robot-command/robot-command";
import robotSiteTask from "../../src/nodes/robot-site-task/robot-site-task";
import { DEMO_TOKEN, demoFleet, startSimulator, type RunningSimulator, type Timing } from "../../src/simulator";
import type { Faults } from "../../src/simulator/faults/faults";
import { collectMessages, flowWith, helper, loadFlow, outcomeOf, outputsAndCatch, useNodeRed, waitFor, type FlowNode } from "../support/node-red";

const KITCHEN = "GS-S-000102";
const FLOOR_1 = demoFleet().robots[1]!.maps[0]!;

function commandNode(settings: Record<string, unknown> = {}): FlowNode {
  return {
    id: "command",
    type: "robot-command",
    robot: "config",
    serialNumber: KITCHEN,
    serialNumberType: "str",
    command: "",
    sendWhen: "shown",
    confirmTimeout: 20,
    wires: [["out"]],
    ...settings,
  };
}

const startTask = (name: string) => ({ command: "START_TASK", cleaningMode: "__middle_cleaning", taskName: name, map: "Floor 1", loop: false, loopCount: 1 });

describe("confirmation: the robot shows it", function () {
  this.timeout(30_000);
  let simulator: RunningSimulator;
  const requests: string[] = [];

  async function startCloud(timing: Partial<Timing> = {}, robots?: number, faults: Partial<Faults> = {}) {
    simulator = await startSimulator({ log: (line) => requests.push(line), timing, faults, ...(robots ? { robots } : {}) });
  }
  afterEach(async () => {
    await simulator?.close();
    requests.length = 0;
  });
  useNodeRed();

  async function load(nodes: FlowNode[], modules = [robotCommand]) {
    await loadFlow(modules, flowWith(simulator.url, [...nodes, ...outputsAndCatch(nodes[0]!.id)]), { config: { token: DEMO_TOKEN } });
  }

  it("START_TASK: sends the command resource once the robot runs the task, with msg.confirmation", async () => {
    await startCloud({ commandDelayMs: 1000 });
    await load([commandNode()]);
    const { output, caught } = await outcomeOf("command", { payload: startTask("Kitchen"), topic: "keep" });
    assert.equal(caught, undefined, JSON.stringify(caught?.error));
    assert.equal((output?.payload as { state: string }).state, "WAITING");
    const confirmation = output?.confirmation as { state: string; seconds: number };
    assert.equal(confirmation.state, "RUNNING");
    assert.ok(confirmation.seconds >= 1, `seconds: ${confirmation.seconds}`);
    assert.equal(output?.topic, "keep");
    assert.ok(requests.some((line) => line.startsWith("GET /openapi/v2alpha1/s/robots/*/status:batchGet 200")), "read with the S-line batch");
  });

  it("CROSS_NAVIGATE to charging: confirmed on arrival, PAUSE_TASK and STOP_TASK by their task states", async () => {
    await startCloud({ commandDelayMs: 500, navigationMs: 1500 });
    await load([commandNode()]);
    const navigated = await outcomeOf("command", { payload: { command: "CROSS_NAVIGATE", map: "Floor 1", position: "charging" } });
    assert.equal((navigated.output?.confirmation as { state: string }).state, "ARRIVED at charging");
    assert.equal((simulator.state.status(KITCHEN)!.battery as { charging: boolean }).charging, true);

    const started = await outcomeOf("command", { payload: startTask("Kitchen") });
    assert.equal((started.output?.confirmation as { state: string }).state, "RUNNING");
    const paused = await outcomeOf("command", { payload: { command: "PAUSE_TASK" } });
    assert.equal((paused.output?.confirmation as { state: string }).state, "PAUSED");
    const stopped = await outcomeOf("command", { payload: { command: "STOP_TASK" } });
    assert.equal((stopped.output?.confirmation as { state: string }).state, "IDLE");
  });

  describe("CROSS_NAVIGATE to another point: confirmed from the robot's mapPosition and the point's grid cell, no navigation object", function () {
    const LOBBY = FLOOR_1.navigationPoints.find((point) => point.name === "Lobby entrance")!;
    /** Grid cells from the robot, as its S-line status places it now, to the Lobby entrance. */
    const cellsToLobby = () => {
      const status = simulator.state.status(KITCHEN)!;
      const { x, y } = (status.localizationInfo as { mapPosition: { x: number; y: number } }).mapPosition;
      return Math.hypot(x - LOBBY.x, y - LOBBY.y);
    };
    const navigate = () => ({ payload: { command: "CROSS_NAVIGATE", map: "Floor 1", position: "Lobby entrance" } });

    it("arrival: within the default 10 cells when the message is sent; the statuses read carry navStatus and no navigation object", async () => {
      await startCloud({ commandDelayMs: 500, navigationMs: 3000 });
      await load([commandNode()]);
      assert.ok(cellsToLobby() > 100, "the kitchen robot starts far from the lobby");
      const { output, caught } = await outcomeOf("command", navigate());
      assert.equal(caught, undefined, JSON.stringify(caught?.error));
      assert.equal((output?.confirmation as { state: string }).state, "ARRIVED at Lobby entrance");
      assert.ok(cellsToLobby() <= 10, `${cellsToLobby()} cells from the point`);
      const served = simulator.state.status(KITCHEN)!;
      assert.equal("navigation" in served, false);
      assert.equal(served.navStatus, "NAVI_IDLE");
    });

    it("robot-config's arrivalRadius decides: 1,000 cells confirms at the first look, far from the point", async () => {
      await startCloud({ commandDelayMs: 0, navigationMs: 20_000 });
      await loadFlow([robotCommand], flowWith(simulator.url, [commandNode(), ...outputsAndCatch("command")], { arrivalRadius: 1000 }), { config: { token: DEMO_TOKEN } });
      const { output, caught } = await outcomeOf("command", navigate());
      assert.equal(caught, undefined, JSON.stringify(caught?.error));
      assert.equal((output?.confirmation as { state: string }).state, "ARRIVED at Lobby entrance");
      assert.ok(cellsToLobby() > 10, `still ${cellsToLobby()} cells away: the wide radius, not the arrival, confirmed it`);
    });
  });

  it("REMOTE_CONTROL_MOVE has nothing to wait for; 'accepted' and msg.sendWhen keep today's behaviour", async () => {
    await startCloud();
    await load([commandNode({ sendWhen: "accepted" })]);
    const accepted = await outcomeOf("command", { payload: { command: "REMOTE_CONTROL_START" } });
    assert.equal(accepted.output?.confirmation, undefined, "sent when accepted: no confirmation");
    const shown = await outcomeOf("command", { payload: { command: "REMOTE_CONTROL_STOP" }, sendWhen: "shown" });
    assert.equal((shown.output?.confirmation as { state: string }).state, "remote control off");
    await outcomeOf("command", { payload: { command: "REMOTE_CONTROL_START" } });
    const move = await outcomeOf("command", { payload: { command: "REMOTE_CONTROL_MOVE", direction: "forward" }, sendWhen: "shown" });
    assert.deepEqual(move.output?.confirmation, { state: "not watched", seconds: 0 });
  });

  it("NOT_CONFIRMED: a robot paused on one task ignores START_TASK of another; one error with the last status, the command sent once", async () => {
    await startCloud();
    await load([commandNode({ sendWhen: "accepted", confirmTimeout: 5 })]);
    await outcomeOf("command", { payload: startTask("Morning round") });
    await outcomeOf("command", { payload: { command: "PAUSE_TASK" } });
    const caughtAll = collectMessages("caught");
    const { output, caught } = await outcomeOf("command", { payload: startTask("Spill"), sendWhen: "shown" });
    assert.equal(output, undefined);
    const error = caught?.error as { code: string; message: string; cause: { refusal: unknown; lastStatus: { taskState: string } } };
    assert.equal(error.code, "NOT_CONFIRMED");
    // The S-line status the wait reads names no task (as the recorded ones): the refusal says "a task".
    assert.match(error.message, /robot GS-S-\d+ has a task paused: resume or stop it first \(waited 5 s for task state RUNNING with task "Spill"\)$/);
    assert.deepEqual(error.cause.refusal, { code: "taskPaused" });
    assert.equal(error.cause.lastStatus.taskState, "PAUSED");
    assert.equal(simulator.state.robot(KITCHEN)!.currentTask?.name, "Morning round", "the paused task is the first one");
    const starts = simulator.state.commands(KITCHEN).filter((command) => command.rawCommandType === "start_task");
    assert.equal(starts.length, 2, "Morning round and Spill, each sent once");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(caughtAll.length, 1, "one error");
  });

  it("NOT_CONFIRMED says why a command did not fit the robot's state: pause on an idle robot, to charger while cleaning", async () => {
    await startCloud({ commandDelayMs: 0 });
    await load([commandNode({ confirmTimeout: 3 })]);
    const paused = await outcomeOf("command", { payload: { command: "PAUSE_TASK" } });
    const pauseError = paused.caught?.error as { message: string; cause: { refusal: unknown } };
    assert.match(pauseError.message, /robot GS-S-\d+ is not cleaning or driving: nothing to pause \(waited 3 s for task state PAUSED\)$/);
    assert.deepEqual(pauseError.cause.refusal, { code: "nothingToPause" });
    await outcomeOf("command", { payload: startTask("Morning round") });
    const charger = await outcomeOf("command", { payload: { command: "CROSS_NAVIGATE", map: "Floor 1", position: "charging" } });
    assert.match((charger.caught?.error as { message: string }).message, /robot GS-S-\d+ is cleaning: pause or stop it first \(waited 3 s for arrival at "charging"/);
  });

  it("NOT_CONFIRMED says why when the last status tells: offline, emergency stop, lost", async () => {
    await startCloud({ commandDelayMs: 0 });
    await load([commandNode({ confirmTimeout: 3 })]);
    const reasons: string[] = [];
    for (const change of [{ online: false }, { online: true, emergencyStop: true }, { emergencyStop: false, localizationState: "LOST" as const }]) {
      simulator.updateRobot(KITCHEN, change);
      const { caught, output } = await outcomeOf("command", { payload: startTask("Spill"), sendWhen: "shown" });
      assert.equal(output, undefined, JSON.stringify(output?.confirmation));
      const error = caught?.error as { code: string; message: string };
      assert.equal(error.code, "NOT_CONFIRMED");
      reasons.push(/robot GS-S-\d+ (.*) \(waited 3 s for [^)]*\)$/.exec(error.message)?.[1] ?? error.message);
    }
    assert.deepEqual(reasons, ["is offline", "has its emergency stop pressed: release it on the robot first", "is lost (not localized): relocalize it first"]);
  });

  it("robot-site-task: a temporary task is confirmed when the robot runs it", async () => {
    await startCloud({ commandDelayMs: 500 });
    const siteTask: FlowNode = { id: "site", type: "robot-site-task", robot: "config", serialNumber: KITCHEN, serialNumberType: "str", operation: "sendTempTask", sendWhen: "shown", wires: [["out"]] };
    await load([siteTask], [robotSiteTask]);
    const body = {
      productId: KITCHEN,
      tempTaskCommand: { taskName: "Spill in the lobby", cleaningMode: "__middle_cleaning", loop: false, loopCount: 1, mapName: FLOOR_1.name, startParam: { mapId: FLOOR_1.id, areaId: "1" } },
    };
    const { output, caught } = await outcomeOf("site", { payload: body });
    assert.equal(caught, undefined, JSON.stringify(caught?.error));
    assert.equal((output?.payload as { cmdStatus: number }).cmdStatus, 5);
    assert.equal((output?.confirmation as { state: string }).state, "RUNNING");
  });

  it("fifty commands waiting at once: each sent once, status reads batched by 11, nothing rate-limited", async () => {
    await startCloud({ commandDelayMs: 0 }, 50, { ignoreRate: 1 });
    await load([commandNode({ confirmTimeout: 4, serialNumberType: "msg", serialNumber: "topic" })]);
    const caught = collectMessages("caught");
    const serials = simulator.state.serialNumbers();
    assert.equal(serials.length, 50);
    for (const serial of serials) helper.getNode("command").receive({ topic: serial, payload: { command: "PAUSE_TASK" } });
    await waitFor(() => caught.length === 50, 25_000, "fifty NOT_CONFIRMED errors");
    assert.ok(caught.every((msg) => (msg.error as { code: string }).code === "NOT_CONFIRMED"));
    const submits = requests.filter((line) => line.startsWith("POST /v1alpha1/robots/"));
    assert.equal(submits.length, 50, "each command sent once");
    assert.deepEqual(requests.filter((line) => / 429/.test(line)), [], "the account's 20 requests/s were never exceeded");
    const reads = requests.filter((line) => line.includes("status:batchGet"));
    assert.ok(reads.length >= 5, `${reads.length} batch reads`);
  });
});
