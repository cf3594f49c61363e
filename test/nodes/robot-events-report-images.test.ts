/**
 * A task report pushed to robot-events (with an account) brings its coverage
 * image into the account's store at once, through real Node-RED's HTTP server
 * for flows: the image is fetched once from its pre-signed link (a recording
 * object store on loopback), without the token, however often the push is
 * delivered.
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { reportsOfAccount } from "../../src/api/reports/report-store";
import robotEvents from "../../src/nodes/robot-events/robot-events";
import { HttpNodeServer } from "../support/http-node";
import { collectMessages, flowWith, helper, loadFlow, useNodeRed, waitFor } from "../support/node-red";
import { rawRequest } from "../support/raw-http";
import { useRecordingServer } from "../support/recording-server";
import { APP_ID, PATH, SERIAL, reportPush } from "../support/robot-events";

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("coverage")]);

describe("robot-events: a pushed task report's coverage image kept with it", function () {
  this.timeout(30_000);
  const http = new HttpNodeServer();
  before(() => http.start());
  after(() => http.stop());
  useNodeRed();
  afterEach(forgetAccountMemory);
  const objectStore = useRecordingServer();

  it("fetches the image once, without the token, and keeps its bytes with the report", async () => {
    objectStore.server.respondWith(() => ({ status: 200, body: PNG, headers: { "Content-Type": "image/png" } }));
    const flow = flowWith("http://127.0.0.1:9", [
      { id: "events", type: "robot-events", robot: "config", path: PATH, minLevel: "", wires: [[], ["reports"], []] },
      { id: "reports", type: "helper" },
    ]);
    await loadFlow([http.serving(robotEvents)], flow, { config: { token: "images-token" }, events: { appId: APP_ID } });
    const reports = collectMessages("reports");
    const body = reportPush({ taskReportPngUri: `${objectStore.server.url}/objects/report-1.png?expires=1&signature=abc` });
    for (let delivery = 0; delivery < 2; delivery++) assert.equal((await rawRequest(http.url, "POST", PATH, { body })).status, 200);
    await waitFor(() => reports.length === 1, 3000, "the report sent on");
    const accountKey = (helper.getNode("config") as unknown as { robot: { client: { accountKey: string } } }).robot.client.accountKey;
    const kept = () => reportsOfAccount(accountKey).imageOf(`${SERIAL}/report-1`, SERIAL);
    await waitFor(() => kept() !== undefined, 5000, "the image kept");
    assert.deepEqual(kept(), { data: PNG, contentType: "image/png" });
    assert.equal(objectStore.server.requests.length, 1, "delivered twice, fetched once");
    assert.equal(objectStore.server.requests[0]!.headers.authorization, undefined, "no token to the object store");
  });
});
