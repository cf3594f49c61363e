/**
 * A token grant slower than the robot-config's timeout, as a user meets it: a
 * robot-config with client credentials, Timeout 1 s, Retries 1, and a token
 * endpoint that answers after 1.5 s. Every message into one, two or three
 * command nodes sharing the config ends in exactly one catchable TIMEOUT (no
 * output, no second error), the grant is asked for once (a timeout is not
 * sent again, by the same rule as any call), and no command reaches the cloud.
 * With a timeout long enough for the grant, every waiter gets its answer.
 */
import assert from "node:assert/strict";
import robotCommand from "../../src/nodes/robot-command/robot-command";
import { collectMessages, flowWith, helper, loadFlow, outputsAndCatch, recordStatuses, useRecordingServerAndNodeRed, waitFor } from "../support/node-red";
import { robotCommandNode } from "../support/fixtures";

const GRANT_PATH = "/gas/api/v1alpha1/oauth/token";
const GRANT_DELAY_MS = 1500;
const CREDENTIALS = { config: { clientId: "client-slow", clientSecret: "secret-slow", accessKeySecret: "access-key-slow" } };

describe("a token grant slower than the timeout (client credentials, real Node-RED)", function () {
  this.timeout(30_000);
  const stub = useRecordingServerAndNodeRed((request) =>
    request.path === GRANT_PATH
      ? { body: { token_type: "bearer", access_token: "granted-late", expires_in: 86_400 }, delayMs: GRANT_DELAY_MS }
      : { body: { name: "cmd-1", state: "WAITING", serialNumber: "GS-S-000101", remoteTaskCommandType: "START_TASK" } },
  );

  async function sendThrough(nodeCount: number, timeoutSeconds: number) {
    const ids = Array.from({ length: nodeCount }, (_, index) => `command-${index + 1}`);
    const flow = flowWith(stub.server.url, [...ids.map((id) => robotCommandNode(id)), ...outputsAndCatch(...ids)], {
      authMode: "clientCredentials",
      timeout: timeoutSeconds,
      maxRetries: 1,
    });
    await loadFlow([robotCommand], flow, CREDENTIALS);
    const outputs = collectMessages("out");
    const caught = collectMessages("caught");
    const statuses = ids.map((id) => recordStatuses(id));
    ids.forEach((id, index) => helper.getNode(id).receive({ payload: "go", topic: `message-${index + 1}` }));
    await waitFor(() => outputs.length + caught.length >= nodeCount, 10_000, `${nodeCount} messages to end`);
    // Long enough for a second end of any message to show, and for the late grant answer to arrive.
    await new Promise((resolve) => setTimeout(resolve, GRANT_DELAY_MS));
    return { outputs, caught, statuses, grants: stub.server.requests.filter((request) => request.path === GRANT_PATH) };
  }

  for (const nodeCount of [1, 2, 3]) {
    it(`${nodeCount} node${nodeCount > 1 ? "s" : ""}: each message ends in one TIMEOUT at the Catch node; the grant is asked once; no command is sent`, async () => {
      const { outputs, caught, statuses, grants } = await sendThrough(nodeCount, 1);
      assert.equal(outputs.length, 0);
      assert.equal(caught.length, nodeCount, "exactly one error per message");
      assert.deepEqual(caught.map((msg) => msg.topic).sort(), Array.from({ length: nodeCount }, (_, index) => `message-${index + 1}`));
      for (const msg of caught) {
        const error = msg.error as { code: string; message: string };
        assert.equal(error.code, "TIMEOUT");
        assert.match(error.message, /within 1 s/);
        assert.ok(!error.message.includes("secret-slow") && !error.message.includes("granted-late"));
      }
      for (const list of statuses) assert.deepEqual(list.at(-1), { fill: "red", shape: "ring", text: "TIMEOUT" });
      assert.equal(grants.length, 1, "a grant that timed out is not asked again (a timeout is not retried)");
      assert.equal(stub.server.requests.length, 1, "no command reached the cloud");
    });
  }

  it("3 nodes with a timeout long enough for the grant: one grant, three commands answered with its token", async () => {
    const { outputs, caught, grants } = await sendThrough(3, 3);
    assert.equal(caught.length, 0);
    assert.equal(outputs.length, 3);
    assert.equal(grants.length, 1);
    const commands = stub.server.requests.filter((request) => request.path !== GRANT_PATH);
    assert.deepEqual(
      commands.map((request) => request.headers.authorization),
      ["Bearer granted-late", "Bearer granted-late", "Bearer granted-late"],
    );
  });
});
