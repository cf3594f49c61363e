/**
 * robot-config and the shared input handler, through real Node-RED. A small
 * probe node (defined here) reads a robot's status through handleRobotInput,
 * so these tests do not depend on any one robot node.
 */
import assert from "node:assert/strict";
import type { Node, NodeAPI, NodeDef } from "node-red";
import type { RobotStatus } from "../../src/api/cloud/schemas";
import * as settings from "../../src/api/settings/input-rules";
import { handleRobotInput } from "../../src/nodes/shared/robot-input";
import type { RobotConfigNode } from "../../src/nodes/shared/types";
import { TEST_TOKEN, flowWith, helper, loadFlow, nextMessage, outputsAndCatch, recordStatuses, waitFor, useRecordingServerAndNodeRed } from "../support/node-red";

interface ProbeDef extends NodeDef {
  robot: string;
}

function probeModule(RED: NodeAPI): void {
  RED.nodes.registerType("robot-probe", function (this: Node, config: ProbeDef) {
    RED.nodes.createNode(this, config);
    handleRobotInput<RobotStatus>(RED, this, config.robot, {
      reads: [],
      run: ({ client, options }) => client.getRobotStatus({ serialNumber: "SN-1" }, options),
      statusText: (status) => status.taskState ?? "ok",
    });
  });
}

const probe = (extra: Record<string, unknown> = {}) => ({ id: "probe", type: "robot-probe", robot: "config", wires: [["out"]], ...extra });
const STATUS = { serialNumber: "SN-1", taskState: "IDLE", battery: { powerPercentage: 80 } };

describe("robot-config", function () {
  const stub = useRecordingServerAndNodeRed();

  it("sends the access token as a bearer header and emits the parsed answer", async () => {
    await loadFlow([probeModule], flowWith(stub.server.url + "/", [probe(), ...outputsAndCatch("probe")]));
    // After the config's own first read of the robot list (its robot directory): the probe's call is the next.
    stub.server.reset();
    stub.server.reply({ body: STATUS });
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

  it("the editor's task picker lists the tasks the v1 status offers, each with its map's name", async () => {
    const tasks = [
      { name: "All of Lobby", map: { id: "m1", name: "Lobby" } },
      { name: "Anywhere" },
      { name: "" },
    ];
    stub.server.reply({ body: STATUS }, { body: { robotStatuses: [{ ...STATUS, name: "robots/SN-1", executableTasks: tasks }] } });
    await loadFlow([probeModule], flowWith(stub.server.url, [probe(), ...outputsAndCatch("probe")]));
    const answer = await helper.request().get("/robot-fleet/config/config/robots/SN-1/options");
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual((answer.body as { tasks: unknown }).tasks, [{ taskName: "All of Lobby", mapName: "Lobby" }, { taskName: "Anywhere" }]);
  });

  it("the editor's pickers call a bug in a lookup INTERNAL_ERROR and log it, while a cloud's refusal stays CLOUD_ERROR", async () => {
    stub.server.reply({ status: 404, body: { code: 5, message: "no such robot" } });
    await loadFlow([probeModule], flowWith(stub.server.url, [probe(), ...outputsAndCatch("probe")]));
    const refused = await helper.request().get("/robot-fleet/config/config/robots/SN-1/maps");
    assert.equal(refused.status, 502);
    assert.equal((refused.body as { error: { code: string } }).error.code, "CLOUD_ERROR");
    // A stand-in for a bug in a lookup: the client throws what it never throws.
    const config = helper.getNode("config") as unknown as RobotConfigNode;
    assert.ok("client" in config.robot);
    config.robot.client.listAllRobots = () => Promise.reject(new TypeError("Cannot read properties of undefined (reading 'robots')"));
    const buggy = await helper.request().get("/robot-fleet/config/config/test");
    assert.equal(buggy.status, 500);
    const { code, message } = (buggy.body as { error: { code: string; message: string } }).error;
    assert.equal(code, "INTERNAL_ERROR");
    assert.match(message, /a bug in node-red-contrib-robot-fleet, not a fault of the cloud: TypeError: Cannot read properties/);
    const logged = (helper.log().args as unknown[][]).map((args) => JSON.stringify(args[0]));
    assert.ok(logged.some((line) => line.includes("editor lookup: a bug in node-red-contrib-robot-fleet")), logged.join("\n"));
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

describe("robot-config: the per-account limits (as the dialog and its help describe them)", function () {
  const stub = useRecordingServerAndNodeRed();
  type Settings = typeof settings;
  type SettingName = settings.AccountSettingName;

  /** Every status node `id` showed since its flow was loaded, the one set at deploy included (the helper spies on Node.prototype.status). */
  function statusesSinceLoad(id: string): unknown[] {
    const node = helper.getNode(id);
    const { status } = node as unknown as { status: { getCalls(): Array<{ thisValue: unknown; args: unknown[] }> } };
    return status
      .getCalls()
      .filter((call) => call.thisValue === node)
      .map((call) => call.args[0]);
  }

  const outOfRange: Array<[SettingName, unknown]> = [
    ["timeout", 601],
    ["timeout", 0],
    ["maxRetries", 11],
    ["maxRetries", "1.5"],
    ["connections", 0],
    ["connections", 257],
    ["connections", "2.5"],
    ["rateLimit", -1],
    ["queueLimit", 0],
    ["queueLimit", 10_000_001],
    ["maxRetryWait", -1],
    ["maxRetryWait", "a minute"],
  ];
  for (const [name, value] of outOfRange) {
    it(`shows ${name} = ${JSON.stringify(value)} at deploy and ends each message in INVALID_INPUT naming ${name}`, async () => {
      await loadFlow([probeModule], flowWith(stub.server.url, [probe(), ...outputsAndCatch("probe")], { [name]: value }));
      const problem = settings.accountSettingProblem(name, value);
      assert.ok(problem, "the runtime's table refuses it");
      assert.deepEqual(statusesSinceLoad("probe").at(-1), { fill: "red", shape: "ring", text: `config: ${name}` }, "shown before any message");
      const caught = nextMessage("caught");
      helper.getNode("probe").receive({ payload: "go" });
      const error = (await caught).error as { message: string; code: string };
      assert.equal(error.code, "INVALID_INPUT");
      // Node-RED words msg.error.message as the error's toString(): "<name>: <message>".
      assert.ok(error.message.endsWith(`${name}: ${problem}`), `"${error.message}" says what the runtime's table says`);
      assert.deepEqual(statusesSinceLoad("probe").at(-1), { fill: "red", shape: "ring", text: `config: ${name}` });
      assert.equal(stub.server.requests.length, 0);
    });
  }

  const accepted: Array<[string, (setting: Settings["ACCOUNT_SETTINGS"][SettingName]) => unknown]> = [
    ["empty (the default)", () => ""],
    ["at its lower bound", (setting) => setting.min],
    ["at its upper bound", (setting) => setting.max],
  ];
  for (const [label, valueOf] of accepted) {
    it(`runs with every limit ${label}`, async () => {
      const limits: Record<string, unknown> = {};
      for (const name of settings.ACCOUNT_SETTING_NAMES) limits[name] = valueOf(settings.ACCOUNT_SETTINGS[name]);
      // A 0.1 s timeout would make this test depend on the machine's speed.
      if (label === "at its lower bound") limits.timeout = 5;
      await loadFlow([probeModule], flowWith(stub.server.url, [probe(), ...outputsAndCatch("probe")], limits));
      assert.deepEqual(statusesSinceLoad("probe"), [], `no config problem with ${JSON.stringify(limits)}`);
      stub.server.reset();
      stub.server.reply({ body: STATUS });
      const output = nextMessage("out");
      helper.getNode("probe").receive({ payload: "go" });
      assert.deepEqual((await output).payload, STATUS);
      assert.equal(stub.server.requests.length, 1);
    });
  }

  it("ends a message beyond queueLimit at once in QUEUE_FULL, sending nothing for it", async () => {
    stub.server.respondWith(() => ({ body: STATUS, delayMs: 300 }));
    await loadFlow([probeModule], flowWith(stub.server.url, [probe(), ...outputsAndCatch("probe")], { connections: 1, queueLimit: 1 }));
    const outputs: unknown[] = [];
    helper.getNode("out").on("input", (msg: unknown) => outputs.push((msg as { payload: unknown }).payload));
    const caught = nextMessage("caught");
    for (const payload of ["on the wire", "waiting", "one too many"]) helper.getNode("probe").receive({ payload });
    const refused = await caught;
    assert.equal((refused.error as { code: string }).code, "QUEUE_FULL");
    assert.equal(refused.payload, "one too many");
    await waitFor(() => outputs.length === 2, 5000, "the two accepted messages");
    assert.equal(stub.server.requests.length, 2);
  });

  it("fails at once when the cloud asks for a wait longer than maxRetryWait, with msg.error.cause.retryAfterSeconds", async () => {
    stub.server.respondWith(() => ({ status: 429, body: {}, headers: { "Retry-After": "120" } }));
    await loadFlow([probeModule], flowWith(stub.server.url, [probe(), ...outputsAndCatch("probe")], { maxRetryWait: 60, maxRetries: 3 }));
    let caught = nextMessage("caught");
    helper.getNode("probe").receive({ payload: "refused" });
    let error = (await caught).error as { code: string; cause?: { retryAfterSeconds?: number } };
    assert.equal(error.code, "HTTP_429");
    assert.equal(error.cause?.retryAfterSeconds, 120);
    assert.equal(stub.server.requests.length, 1, "not sent again: the wait is longer than maxRetryWait");

    // The account is paused for longer than maxRetryWait: the next message is not sent either.
    caught = nextMessage("caught");
    helper.getNode("probe").receive({ payload: "during the pause" });
    error = (await caught).error as { code: string; cause?: { retryAfterSeconds?: number } };
    assert.equal(error.code, "HTTP_429");
    assert.ok((error.cause?.retryAfterSeconds ?? 0) > 60, `retryAfterSeconds ${error.cause?.retryAfterSeconds} is the wait still ahead`);
    assert.equal(stub.server.requests.length, 1);
  });
});
