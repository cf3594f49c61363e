/**
 * The MQTT bridge's state beyond one deploy, without Node-RED (a recording
 * stand-in for the node, its context a store the test keeps), against the
 * simulator: on an account shared by several instances the one holding the
 * watch publishes and answers, one standing by does neither until it takes
 * over; after a restart (the package's memory gone, the context store kept) a
 * robot published before and gone since is still removed.
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { RobotClient } from "../../src/api/client";
import type { WatchLease } from "../../src/api/account/shared-account";
import { MqttBridge } from "../../src/nodes/robot-mqtt/bridge";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { waitFor } from "../support/node-red";
import { recordingNode, type Sent } from "../support/mqtt-fixtures";

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
    const bridge = new MqttBridge(recordingNode(sent), client, { roots, intervalMs: 5000, serialNumbers: [], startTasks: new Map(), origin: { name: "test" }, acceptance: { mode: "all" } }, (key) => key);
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

  it("removes, after a restart, a robot published before it and gone since: the context store remembers it", async () => {
    const store = new Map<string, unknown>();
    const roots = { prefix: "homeassistant", base: "robot-fleet" };
    const run = async (serialNumbers: string[], until: (sent: Sent[]) => boolean) => {
      const client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN } });
      const sent: Sent[] = [];
      const bridge = new MqttBridge(recordingNode(sent, store), client, { roots, intervalMs: 5000, serialNumbers, startTasks: new Map(), origin: { name: "test" }, acceptance: { mode: "all" } }, (key) => key);
      try {
        await bridge.start();
        await waitFor(() => until(sent), 5000, "the first poll's messages");
      } finally {
        await bridge.close(false);
        client.close();
      }
      return sent;
    };
    const config = (serial: string) => `homeassistant/device/robot_fleet_${serial}/config`;
    await run([], (sent) => sent.some((message) => message.topic === config("GS-S-000201")));
    assert.deepEqual([...(store.get("robotMqttDevices") as string[])].sort(), ["GS-S-000101", "GS-S-000102", "GS-S-000201"]);
    // A restart: the process (and the package's memory) is new, the context store is not.
    forgetAccountMemory();
    const sent = await run(["GS-S-000101"], (messages) => messages.some((message) => message.topic === config("GS-S-000201")));
    assert.deepEqual(sent.filter((message) => message.topic === config("GS-S-000201") || message.topic === config("GS-S-000102")).map((message) => message.payload), ["", ""], "both removed with an empty payload");
    assert.deepEqual(store.get("robotMqttDevices"), ["GS-S-000101"]);
  });
});
