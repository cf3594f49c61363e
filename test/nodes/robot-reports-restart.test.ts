/**
 * robot-reports across a restart of Node-RED: a full runtime in a process of
 * its own (node-red-cluster.ts) with the localfilesystem context store in a
 * temporary directory, stopped and started again on the same store. The
 * second runtime sends nothing the first one sent, swept or pushed.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DAY_MS } from "../../src/api/reports/book";
import { startInstance, type Instance } from "../support/node-red-cluster";
import { LOBBY, pushedEvent, reportAt } from "../support/report-fixtures";
import { ReportsStub } from "../support/reports-stub";

const TOKEN = "restart-token-31";

describe("robot-reports: a restart with the localfilesystem context store sends nothing again", function () {
  this.timeout(90_000);
  let stub: ReportsStub;
  let store: string;
  const running: Instance[] = [];
  before(async () => {
    stub = await new ReportsStub().start();
    store = fs.mkdtempSync(path.join(os.tmpdir(), "robot-reports-store-"));
  });
  after(async () => {
    for (const instance of running) await instance.stop();
    await stub.stop();
    fs.rmSync(store, { recursive: true, force: true });
  });

  const start = async (name: string) => {
    const instance = await startInstance({
      name,
      flows: [
        { id: "tab", type: "tab", label: "reports" },
        { id: "config", type: "robot-config", z: "tab", baseUrl: stub.url, timeout: 5, maxRetries: 1, authMode: "token" },
        { id: "reports", type: "robot-reports", z: "tab", robot: "config", serialNumbers: "", every: 15, since: 7, keep: 90, timeZone: "UTC", wires: [[], []] },
      ],
      credentials: { config: { token: TOKEN } },
      settings: { contextStorage: { default: { module: "localfilesystem", config: { dir: store } } } },
      watch: ["reports"],
    });
    running.push(instance);
    return instance;
  };
  const reportsSent = (instance: Instance) => instance.sent.filter((sent) => sent.port === 0).map((sent) => (sent.payload as { reportKey: string }).reportKey);

  it("remembers every report sent before the restart, and sends only what is new after it", async () => {
    const now = Date.now();
    stub.addRobot(LOBBY, "Lobby scrubber");
    for (const day of [3, 2, 1]) stub.file(reportAt(`before-${day}`, LOBBY, now - day * DAY_MS));
    const first = await start("A");
    await first.waitFor((instance) => reportsSent(instance).length === 3, 20_000, "the first sweep's three reports");
    const pushed = reportAt("pushed", LOBBY, now - 3600_000);
    stub.file(pushed);
    await first.inject("reports", { payload: pushedEvent(pushed) });
    await first.waitFor((instance) => reportsSent(instance).length === 4, 5_000, "the pushed report");
    await first.stop();

    const late = reportAt("after-restart", LOBBY, now - 1800_000);
    stub.file(late);
    const sweepsBefore = stub.reportRequests().length;
    const second = await start("B");
    await second.waitFor(() => stub.reportRequests().length > sweepsBefore, 20_000, "the sweep after the restart");
    await second.inject("reports", { payload: pushedEvent(pushed) });
    await second.waitFor((instance) => reportsSent(instance).length >= 1, 5_000, "the one new report");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(reportsSent(second), [`${LOBBY}/after-restart`], "only the report filed after the restart");
    const window = stub.reportRequests().at(-1)!;
    assert.ok(Date.parse(window.floor!) > now - 2 * DAY_MS, "the sweep went on from where the first runtime's ended, not Since days back");
  });
});
