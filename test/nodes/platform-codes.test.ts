/**
 * The open platform's own codes as a flow meets them, through real Node-RED
 * against a recording server on loopback (docs/cloud-api.md, "Errors"):
 * 100026 is the rate limit, slowed down and retried like HTTP 429 (its
 * neighbour 100025 is not); 230003 names the robot that cannot be reached,
 * under HTTP 200 and under an HTTP error alike, and is not retried.
 */
import assert from "node:assert/strict";
import robotStatus from "../../src/nodes/robot-status/robot-status";
import { robotStatusNode, SERIAL } from "../support/fixtures";
import type { RecordedRequest, ScriptedReply } from "../support/recording-server";
import { flowWith, loadFlow, outcomeOf, outputsAndCatch, useRecordingServerAndNodeRed } from "../support/node-red";

const isStatusRead = (request: RecordedRequest) => request.path.endsWith(`/s/robots/${SERIAL}/status`);
const STATUS = { serialNumber: SERIAL, online: true, taskState: "IDLE", battery: { powerPercentage: 80, charging: false } };

describe("platform codes through robot-status", function () {
  this.timeout(20_000);
  const stub = useRecordingServerAndNodeRed();
  const deploy = () => loadFlow([robotStatus], flowWith(stub.server.url, [robotStatusNode("robot-node", { line: "s" }), ...outputsAndCatch("robot-node"), { id: "offline", type: "helper" }]));
  /** The status endpoint answers `first` once, then the status; anything else (the robot list) an empty answer. */
  const answerFirst = (first: ScriptedReply) => {
    let statusReads = 0;
    stub.server.respondWith((request) => (isStatusRead(request) && statusReads++ === 0 ? first : isStatusRead(request) ? { body: STATUS } : { body: {} }));
  };
  const statusReads = () => stub.server.requests.filter(isStatusRead).length;
  const errorOf = (caught: Record<string, unknown> | undefined) => caught?.error as { code: string; message: string } | undefined;

  it("100026 is the rate limit: the call waits and is sent again, and the status comes out", async () => {
    answerFirst({ status: 200, body: { code: 100026, message: "request too frequent" }, headers: { "retry-after": "0.2" } });
    await deploy();
    const { output, caught } = await outcomeOf("robot-node", { payload: "" });
    assert.equal(caught, undefined, JSON.stringify(errorOf(caught)));
    assert.equal((output!.payload as { serialNumber: string }).serialNumber, SERIAL);
    assert.equal(statusReads(), 2, "sent again after the rate limit");
  });

  it("100025 is no rate limit: one request, an error with its number", async () => {
    answerFirst({ status: 200, body: { code: 100025, message: "something else" } });
    await deploy();
    const { caught } = await outcomeOf("robot-node", { payload: "" });
    assert.equal(errorOf(caught)?.code, "CODE_100025");
    assert.equal(statusReads(), 1, "not sent again");
  });

  for (const [label, status] of [
    ["under HTTP 200", 200],
    ["under HTTP 502", 502],
  ] as const) {
    it(`230003 ${label}: ROBOT_UNREACHABLE, the meaning named, not sent again`, async () => {
      answerFirst({ status, body: { code: 230003, message: "device offline" } });
      await deploy();
      const { caught } = await outcomeOf("robot-node", { payload: "" });
      const error = errorOf(caught);
      assert.ok(error, "an error at the Catch node");
      assert.equal(error.code, "ROBOT_UNREACHABLE");
      assert.match(error.message, /ROBOT_UNREACHABLE \(230003: the robot cannot be reached\): device offline/);
      assert.equal(statusReads(), 1, "not sent again");
    });
  }
});
