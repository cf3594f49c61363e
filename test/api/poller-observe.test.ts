/** The confirmation poller's observers (robot-job follows its robots through them), apart from Node-RED. */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import { commandConfirmationRule } from "../../src/api/watching/confirmation";
import { ConfirmationPoller } from "../../src/api/watching/confirmation-poller";
import { FleetStub, stubSerial } from "../support/fleet-stub";

describe("api: observing robots through the confirmation poller", function () {
  this.timeout(10_000);
  let stub: FleetStub;
  let client: RobotClient;
  beforeEach(async () => {
    stub = await new FleetStub(4).start();
    client = new RobotClient({ baseUrl: stub.url, auth: { token: "tok-observe-1" } });
  });
  afterEach(async () => {
    client.close();
    await stub.server.stop();
  });

  it("reads the observed robots in the same batch as the robots waited for, until the observer stops", async () => {
    const poller = new ConfirmationPoller(client, 30);
    const seen: string[][] = [];
    const stop = poller.observe(
      () => [stubSerial(1), stubSerial(2)],
      (statuses) => seen.push(statuses.map((status) => String(status.serialNumber)).sort()),
    );
    const waiting = poller.waitFor(stubSerial(3), commandConfirmationRule({ remoteTaskCommandType: "STOP_TASK" })!, { timeoutMs: 5000 });
    await waiting;
    const batches = stub.batchRequests();
    assert.ok(batches.length >= 1);
    assert.deepEqual([...batches[0]!.names].sort(), [stubSerial(1), stubSerial(2), stubSerial(3)], "one batch for both");
    assert.deepEqual(seen[0], [stubSerial(1), stubSerial(2), stubSerial(3)]);
    stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const reads = stub.batchRequests().length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(stub.batchRequests().length, reads, "no read once nobody observes or waits");
  });

  it("tells its observers of a missed look (no statuses) when a read fails", async () => {
    const poller = new ConfirmationPoller(client, 30);
    stub.failure = { status: 503, body: { code: 14, message: "down" } };
    const looks: number[] = [];
    const stop = poller.observe(
      () => [stubSerial(1)],
      (statuses) => looks.push(statuses.length),
    );
    while (looks.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    stop();
    assert.deepEqual(looks.slice(0, 2), [0, 0]);
  });
});
