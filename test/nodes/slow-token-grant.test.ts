/**
 * A token grant slower than the robot-config's timeout, as a user meets it: a
 * robot-config with client credentials, Timeout 1 s, Retries 1, and a token
 * endpoint that answers after 1.5 s. Every message into one, two or three
 * command nodes sharing the config ends in exactly one catchable TIMEOUT (no
 * output, no second error), their grant is asked for once (a timeout is not
 * sent again, by the same rule as any call: the robot list read as the config
 * starts has its own), and no command reaches the cloud.
 * With a timeout long enough for the grant, every waiter gets its answer.
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
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

  // Each test starts the account anew: its robot list is read (with a grant of its own) as the config starts.
  afterEach(forgetAccountMemory);

  async function sendThrough(nodeCount: number, timeoutSeconds: number) {
    const ids = Array.from({ length: nodeCount }, (_, index) => `command-${index + 1}`);
    const flow = flowWith(stub.server.url, [...ids.map((id) => robotCommandNode(id)), ...outputsAndCatch(...ids)], {
      authMode: "clientCredentials",
      timeout: timeoutSeconds,
      maxRetries: 1,
    });
    await loadFlow([robotCommand], flow, CREDENTIALS);
    // The account's robot list is read as the config starts, with a grant of its own: its end is waited for (the
    // time out, or the late answer), so the grants counted below are the messages' alone.
    const grantsOf = () => stub.server.requests.filter((request) => request.path === GRANT_PATH).length;
    await waitFor(() => grantsOf() === 1, 5000, "the robot list's grant");
    await new Promise((resolve) => setTimeout(resolve, Math.max(timeoutSeconds * 1000, GRANT_DELAY_MS) + 200));
    const grantsBefore = grantsOf();
    const outputs = collectMessages("out");
    const caught = collectMessages("caught");
    const statuses = ids.map((id) => recordStatuses(id));
    ids.forEach((id, index) => helper.getNode(id).receive({ payload: "go", topic: `message-${index + 1}` }));
    await waitFor(() => outputs.length + caught.length >= nodeCount, 10_000, `${nodeCount} messages to end`);
    // Long enough for a second end of any message to show, and for the late grant answer to arrive.
    await new Promise((resolve) => setTimeout(resolve, GRANT_DELAY_MS));
    const commands = stub.server.requests.filter((request) => request.path !== GRANT_PATH && !request.path.startsWith("/v1alpha1/robots?"));
    return { outputs, caught, statuses, grantsAfter: grantsOf() - grantsBefore, grants: grantsOf(), commands };
  }

  for (const nodeCount of [1, 2, 3]) {
    it(`${nodeCount} node${nodeCount > 1 ? "s" : ""}: each message ends in one TIMEOUT at the Catch node; the grant is asked once; no command is sent`, async () => {
      const { outputs, caught, statuses, grantsAfter, commands } = await sendThrough(nodeCount, 1);
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
      assert.equal(grantsAfter, 1, "the messages' grant, which timed out, is not asked again (a timeout is not retried)");
      assert.deepEqual(commands, [], "no command reached the cloud");
    });
  }

  it("3 nodes with a timeout long enough for the grant: one grant, three commands answered with its token", async () => {
    const { outputs, caught, grants, commands } = await sendThrough(3, 3);
    assert.equal(caught.length, 0);
    assert.equal(outputs.length, 3);
    assert.equal(grants, 1, "the robot list's grant, taken by every message after it");
    assert.deepEqual(
      commands.map((request) => request.headers.authorization),
      ["Bearer granted-late", "Bearer granted-late", "Bearer granted-late"],
    );
  });
});
