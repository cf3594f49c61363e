/**
 * Where a robot is going, through real Node-RED against the simulator, whose
 * statuses (as the recorded real ones) never say that a navigation runs or
 * where it goes (navStatus is NAVI_IDLE throughout): after robot-command sends
 * a robot to its charger, the console's model says "to charger" and Home
 * Assistant's vacuum "returning" until the robot is there, then "charging" and
 * "docked".
 */
import { useSimulator } from "../support/simulator";
import assert from "node:assert/strict";
import robotCommand from "../../src/nodes/robot-command/robot-command";
import robotMaps from "../../src/nodes/robot-maps/robot-maps";
import robotMqtt from "../../src/nodes/robot-mqtt";
import type { FleetView } from "../../src/nodes/robot-maps/fleet-view";
import { DEMO_TOKEN } from "../../src/simulator";
import { collectMessages, flowWith, helper, loadFlow, nextMessage, useNodeRed, waitFor, type FlowNode } from "../support/node-red";
import { robotCommandNode, robotMapsNode } from "../support/fixtures";

const KITCHEN = "GS-S-000102";
const STATE_TOPIC = `robot-fleet/${KITCHEN}/state`;

describe("where a robot is going: shown from the navigation the package sent", function () {
  this.timeout(60_000);
  const cloud = useSimulator({ timing: { navigationMs: 6000 } }, true);
  useNodeRed();

  async function rowOf(serialNumber: string): Promise<FleetView["robots"][number]> {
    const answer = nextMessage("view-out");
    helper.getNode("view").receive({ payload: "tick" });
    return ((await answer).payload as FleetView).robots.find((robot) => robot.serialNumber === serialNumber)!;
  }

  it("the console says 'to charger' and the vacuum 'returning' while it drives, then 'charging' and 'docked'", async () => {
    const nodes: FlowNode[] = [
      { ...robotCommandNode("cmd", { command: "", serialNumber: "", sendWhen: "shown", confirmTimeout: "30" }), wires: [["cmd-out"]] },
      robotMapsNode("view", { operation: "fleetView", serialNumber: "", mapId: "", wires: [["view-out"]] }),
      { id: "bridge", type: "robot-mqtt", robot: "config", interval: 5, serialNumbers: KITCHEN, prefix: "homeassistant", base: "robot-fleet", startTasks: "", wires: [["mqtt-out"]] },
      ...["cmd-out", "view-out", "mqtt-out"].map((id) => ({ id, type: "helper" })),
    ];
    await loadFlow([robotCommand, robotMaps, robotMqtt], flowWith(cloud.simulator.url, nodes), { config: { token: DEMO_TOKEN } });
    const published = collectMessages("mqtt-out");
    const vacuumStates = () => published.filter((msg) => msg.topic === STATE_TOPIC).map((msg) => (JSON.parse(msg.payload as string) as { state: string }).state);
    await waitFor(() => vacuumStates().length > 0, 15_000, "the vacuum's first state");
    assert.equal(vacuumStates().at(-1), "idle");
    assert.deepEqual([(await rowOf(KITCHEN)).state, (await rowOf(KITCHEN)).stateText], ["idle", "idle"]);

    const ended = collectMessages("cmd-out");
    helper.getNode("cmd").receive({ serialNumber: KITCHEN, payload: { action: "toCharger" } });
    await waitFor(() => cloud.simulator.state.robot(KITCHEN)!.navigation !== undefined, 10_000, "the robot on its way");
    assert.equal(cloud.simulator.state.status(KITCHEN)!.navStatus ?? "NAVI_IDLE", "NAVI_IDLE", "no status says it navigates");
    // The package notes where it sent the robot once the cloud's answer is in: a moment after the simulator moved it.
    let driving = await rowOf(KITCHEN);
    for (const deadline = Date.now() + 3000; driving.state !== "navigating" && Date.now() < deadline; ) driving = await rowOf(KITCHEN);
    assert.equal(cloud.simulator.state.robot(KITCHEN)!.navigation !== undefined, true, "still on its way");
    assert.deepEqual([driving.state, driving.stateText], ["navigating", "to charger"]);
    await waitFor(() => vacuumStates().includes("returning"), 10_000, "the vacuum returning");

    await waitFor(() => ended.length > 0, 30_000, "the command confirmed on arrival");
    assert.match(String((ended[0]!.confirmation as { state?: string } | undefined)?.state), /ARRIVED at charging|charging/);
    const docked = await rowOf(KITCHEN);
    assert.deepEqual([docked.state, docked.stateText], ["charging", "charging"]);
    await waitFor(() => vacuumStates().at(-1) === "docked", 15_000, "the vacuum docked");
  });
});
