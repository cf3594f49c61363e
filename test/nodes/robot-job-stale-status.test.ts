/**
 * A dispatch never rests on a status older than the watch's one interval
 * (issue 44: robot-job dispatched from a status 70 s old while every status
 * read failed). Through real Node-RED against the job fleet stub: a first job
 * leaves both robots' statuses kept, then every call fails; a second job
 * chooses no robot from the kept statuses and sends nothing, ends NO_ROBOT
 * saying the robots were not read; once the reads come back, a job starts.
 */
import assert from "node:assert/strict";
import robotJob from "../../src/nodes/robot-job";
import { stubSerial } from "../support/fleet-stub";
import { jobNode, useJobFleet } from "../support/job-flow";
import { collectMessages, flowWith, helper, loadFlow, outputsAndCatch, waitFor } from "../support/node-red";

const [R1, R2] = [1, 2].map(stubSerial) as [string, string];
type Caught = { error: { code: string; cause?: { robots: Record<string, string> } } };

describe("robot-job: no dispatch from a kept status the poll did not read", function () {
  this.timeout(30_000);
  const fleet = useJobFleet();

  it("with every status read failing, a job sends no start on the statuses kept before and ends NO_ROBOT naming why", async () => {
    const stub = await fleet.newStub(2);
    await loadFlow([fleet.http.serving(robotJob)], flowWith(stub.url, [jobNode({ waitUpTo: 1 }), ...outputsAndCatch("job"), { id: "progress", type: "helper" }]));
    const ends = collectMessages("out");
    const caught = collectMessages("caught") as unknown as Caught[];
    const send = (payload: unknown) => helper.getNode("job").receive({ payload });
    stub.runReads = 1;
    send({ task: "Kitchen", map: "Floor 1" });
    await waitFor(() => ends.length === 1, 10_000, "the first job's end");
    const starts = () => stub.startCommands(R1).length + stub.startCommands(R2).length;
    const startsBefore = starts();

    stub.failure = { status: 500, body: { code: 13, message: "internal error" } };
    send({ task: "Kitchen", map: "Floor 1" });
    await waitFor(() => caught.length === 1, 15_000, "the second job's end");
    assert.equal(caught[0]!.error.code, "NO_ROBOT");
    assert.deepEqual(caught[0]!.error.cause!.robots, { [R1]: "not read in the last poll", [R2]: "not read in the last poll" });
    assert.equal(starts(), startsBefore, "no start sent on a kept status");

    stub.failure = undefined;
    send({ task: "Kitchen", map: "Floor 1" });
    await waitFor(() => ends.length === 2, 10_000, "the third job's end, with reads back");
  });
});
