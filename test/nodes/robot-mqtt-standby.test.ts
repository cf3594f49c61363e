/**
 * The MQTT bridge on an account shared by several Node-RED instances: the
 * instance holding the watch publishes and answers commands; one standing by
 * publishes nothing and answers nothing (it has read no robot), until it takes
 * the watch over. Driven with a lease the test holds or withholds, against
 * the simulator, without Node-RED (a recording stand-in for the node).
 */
import assert from "node:assert/strict";
import type { Node } from "node-red";
import { RobotClient } from "../../src/api/client";
import type { WatchLease } from "../../src/api/shared-account";
import { MqttBridge } from "../../src/nodes/robot-mqtt/bridge";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { waitFor } from "../support/node-red";

type Sent = { topic: string; payload: string };

/** What the bridge uses of a node: send, warn, status, context; each send recorded. */
function recordingNode(sent: Sent[]): Node {
  const store = new Map<string, unknown>();
  return {
    id: "bridge",
    send: (messages: [Sent[]]) => sent.push(...messages[0]),
    warn: () => undefined,
    error: () => undefined,
    log: () => undefined,
    status: () => undefined,
    context: () => ({
      get: (key: string, callback: (error: undefined, value: unknown) => void) => callback(undefined, store.get(key)),
      set: (key: string, value: unknown, callback: () => void) => {
        store.set(key, value);
        callback();
      },
    }),
  } as unknown as Node;
}

describe("robot-mqtt on a shared account", function () {
  this.timeout(30_000);
  let simulator: RunningSimulator;
  before(async () => {
    simulator = await startSimulator({ rateLimit: false, log: () => undefined });
  });
  after(async () => {
    await simulator.close();
  });

  it("stands by without publishing or answering, then publishes and answers once it holds the watch", async () => {
    let holds = false;
    const lease: WatchLease = { checkEveryMs: 200, claim: () => Promise.resolve(holds), loadStates: () => Promise.resolve(undefined), saveStates: () => Promise.resolve(), release: () => undefined };
    const client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN } });
    Object.defineProperty(client, "sharing", { value: { watchLease: () => lease, close: () => undefined } });
    const sent: Sent[] = [];
    const roots = { prefix: "homeassistant", base: "robot-fleet" };
    const bridge = new MqttBridge(recordingNode(sent), client, { roots, intervalMs: 5000, serialNumbers: [], startTasks: new Map(), origin: { name: "test" } }, (key) => key);
    try {
      await bridge.start();
      await new Promise((resolve) => setTimeout(resolve, 600));
      bridge.receive({ topic: "robot-fleet/GS-S-000101/command", payload: "start" });
      bridge.receive({ topic: "homeassistant/status", payload: "online" });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(sent.filter((message) => message.topic !== "robot-fleet/availability"), [], "nothing published or answered while standing by");
      assert.equal(simulator.state.commands("GS-S-000101").length, 0);

      holds = true;
      await waitFor(() => sent.some((message) => message.topic === "homeassistant/device/robot_fleet_GS-S-000101/config"), 5000, "discovery once it holds the watch");
      bridge.receive({ topic: "robot-fleet/GS-S-000101/command", payload: "return_to_base" });
      await waitFor(() => sent.some((message) => message.topic === "robot-fleet/GS-S-000101/result"), 10_000, "a result");
      assert.equal((JSON.parse(sent.find((message) => message.topic === "robot-fleet/GS-S-000101/result")!.payload) as { ok: boolean }).ok, true);
    } finally {
      await bridge.close(false);
      client.close();
    }
  });
});
