/**
 * robot-config and the shared input handler, through real Node-RED. A small
 * probe node (defined here) reads a robot's status through handleRobotInput,
 * so these tests do not depend on any one robot node.
 */
import assert from "node:assert/strict";
import type { Node, NodeAPI, NodeDef } from "node-red";
import { handleRobotInput } from "../../src/nodes/robot-input";
import { TEST_TOKEN, flowWith, helper, loadFlow, nextMessage, outputsAndCatch, recordStatuses, waitFor, useRecordingServerAndNodeRed } from "../support/node-red";

interface ProbeDef extends NodeDef {
  robot: string;
}

function probeModule(RED: NodeAPI): void {
  RED.nodes.registerType("robot-probe", function (this: Node, config: ProbeDef) {
    RED.nodes.createNode(this, config);
    handleRobotInput(RED, this, config.robot, {
      run: ({ client, signal }) => client.getRobotStatus({ serialNumber: "SN-1" }, { signal }),
      statusText: (status) => status.taskState ?? "ok",
    });
  });
}

const probe = (extra: Record<string, unknown> = {}) => ({ id: "probe", type: "robot-probe", robot: "config", wires: [["out"]], ...extra });
const STATUS = { serialNumber: "SN-1", taskState: "IDLE", battery: { powerPercentage: 80 } };

describe("robot-config", function () {
  const stub = useRecordingServerAndNodeRed();

  it("sends the access token as a bearer header and emits the parsed answer", async () => {
    stub.server.reply({ body: STATUS });
    await loadFlow([probeModule], flowWith(stub.server.url + "/", [probe(), ...outputsAndCatch("probe")]));
    const output = nextMessage("out");
    helper.getNode("probe").receive({ payload: "go", topic: "kitchen" });
    const msg = await output;
    assert.deepEqual(msg.payload, STATUS);
    assert.equal(msg.topic, "kitchen");
    assert.equal(stub.server.requests.length, 1);
    assert.equal(stub.server.requests[0]!.path, "/openapi/v2alpha1/s/robots/SN-1/status");
    assert.equal(stub.server.requests[0]!.headers.authorization, `Bearer ${TEST_TOKEN}`);
    assert.ok(!JSON.stringify(msg).includes(TEST_TOKEN));
  });

  it("fetches one token with client credentials and shares it between nodes", async () => {
    stub.server.respondWith((request) =>
      request.path === "/gas/api/v1alpha1/oauth/token"
        ? { body: { token_type: "bearer", access_token: "granted-1", expires_in: Date.now() + 86_400_000 } }
        : { body: STATUS },
    );
    const flow = flowWith(stub.server.url, [probe(), probe({ id: "probe2" }), ...outputsAndCatch("probe")], {
      authMode: "clientCredentials",
    });
    await loadFlow([probeModule], flow, {
      config: { clientId: "client-7", clientSecret: "client-secret-7", accessKeySecret: "access-key-secret-7" },
    });
    const outputs: unknown[] = [];
    helper.getNode("out").on("input", (msg: unknown) => outputs.push(msg));
    helper.getNode("probe").receive({ payload: 1 });
    helper.getNode("probe2").receive({ payload: 2 });
    await waitFor(() => outputs.length === 2, 5000, "two outputs");
    const grants = stub.server.requests.filter((r) => r.path === "/gas/api/v1alpha1/oauth/token");
    assert.equal(grants.length, 1);
    assert.deepEqual(grants[0]!.body, {
      grant_type: "urn:gaussian:params:oauth:grant-type:open-access-token",
      client_id: "client-7",
      client_secret: "client-secret-7",
      open_access_key: "access-key-secret-7",
    });
    const calls = stub.server.requests.filter((r) => r.path.endsWith("/status"));
    assert.deepEqual(
      calls.map((r) => r.headers.authorization),
      ["Bearer granted-1", "Bearer granted-1"],
    );
  });

  const misconfigurations: Array<[string, Record<string, unknown>, Record<string, Record<string, string>>, string]> = [
    ["no token", {}, { config: {} }, "token"],
    ["a non-http base URL", { baseUrl: "ftp://robots.example" }, { config: { token: TEST_TOKEN } }, "baseUrl"],
    ["client credentials without a secret", { authMode: "clientCredentials" }, { config: { clientId: "x", accessKeySecret: "y" } }, "clientSecret"],
    ["a negative timeout", { timeout: -1 }, { config: { token: TEST_TOKEN } }, "timeout"],
  ];
  for (const [label, config, credentials, field] of misconfigurations) {
    it(`reports ${label} to a Catch node, naming ${field}, and sends nothing`, async () => {
      const flow = flowWith(stub.server.url, [probe(), ...outputsAndCatch("probe")], config);
      if (config.baseUrl) flow[1]!.baseUrl = config.baseUrl;
      await loadFlow([probeModule], flow, credentials);
      const statuses = recordStatuses("probe");
      const caught = nextMessage("caught");
      helper.getNode("probe").receive({ payload: "go" });
      const msg = await caught;
      const error = msg.error as { message: string; code: string };
      assert.match(error.message, new RegExp(`\\b${field}\\b`));
      assert.equal(error.code, "INVALID_INPUT");
      assert.deepEqual(statuses.at(-1), { fill: "red", shape: "ring", text: `config: ${field}` });
      assert.equal(stub.server.requests.length, 0);
    });
  }

  it("reports a node without a robot-config, naming the robot property", async () => {
    await loadFlow([probeModule], flowWith(stub.server.url, [probe({ robot: "" }), ...outputsAndCatch("probe")]));
    const caught = nextMessage("caught");
    helper.getNode("probe").receive({ payload: "go" });
    const msg = await caught;
    assert.match((msg.error as { message: string }).message, /\brobot\b/);
    assert.equal(stub.server.requests.length, 0);
  });

  it("applies the configured timeout and reports TIMEOUT, then serves the next message", async () => {
    stub.server.reply({ body: STATUS, delayMs: 1500 }, { body: STATUS });
    await loadFlow([probeModule], flowWith(stub.server.url, [probe(), ...outputsAndCatch("probe")], { timeout: 0.2 }));
    const statuses = recordStatuses("probe");
    const caught = nextMessage("caught");
    helper.getNode("probe").receive({ payload: "first" });
    const failure = await caught;
    assert.equal((failure.error as { code: string }).code, "TIMEOUT");
    assert.equal(failure.payload, "first");
    assert.deepEqual(statuses.at(-1), { fill: "red", shape: "ring", text: "TIMEOUT" });
    const output = nextMessage("out");
    helper.getNode("probe").receive({ payload: "second" });
    assert.deepEqual((await output).payload, STATUS);
    assert.deepEqual(statuses.at(-1), { fill: "green", shape: "dot", text: "IDLE" });
  });

  it("aborts in-flight requests and clears the status when the flow stops", async () => {
    stub.server.reply({ body: STATUS, delayMs: 3000 });
    await loadFlow([probeModule], flowWith(stub.server.url, [probe(), ...outputsAndCatch("probe")]));
    const statuses = recordStatuses("probe");
    let outputs = 0;
    helper.getNode("out").on("input", () => outputs++);
    helper.getNode("probe").receive({ payload: "go" });
    await waitFor(() => stub.server.requests.length === 1, 2000, "the request");
    assert.deepEqual(statuses.at(-1), { fill: "blue", shape: "dot", text: "requesting" });
    await helper.unload();
    assert.deepEqual(statuses.at(-1), {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(outputs, 0);
  });
});
