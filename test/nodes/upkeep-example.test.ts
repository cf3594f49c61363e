/**
 * The upkeep example in real Node-RED against a fleet on loopback: a part
 * worn to its threshold becomes one e-mail message (to the tab's address,
 * the notice as its subject), the table goes to its debug node, and a
 * replacement the cloud's counter shows clears it with a second e-mail; the
 * work order answers over HTTP as a page and as CSV.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import robotUpkeep from "../../src/nodes/robot-upkeep";
import { PACKAGE_ROOT } from "../support/child-node";
import { FleetStub } from "../support/fleet-stub";
import { HttpNodeServer } from "../support/http-node";
import { SERIAL } from "../support/fixtures";
import { TEST_TOKEN, collectMessages, coreNodes, helper, loadFlow, useNodeRed, waitFor, type FlowNode } from "../support/node-red";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- Node-RED's core nodes are plain CommonJS modules
const CORE = ["network/21-httpin.js", "function/10-switch.js", "common/21-debug.js"].map((file) => require(`@node-red/nodes/core/${file}`) as never);
const EXAMPLE = path.join(PACKAGE_ROOT, "examples", "upkeep.json");
/** The robot the example's replacement names: the simulator's first. */
const LOBBY = SERIAL;

describe("example upkeep: a notice becomes an e-mail message, the table a debug line", function () {
  this.timeout(30_000);
  const http = new HttpNodeServer();
  before(() => http.start());
  after(() => http.stop());
  let stub: FleetStub;
  beforeEach(async () => {
    stub = await new FleetStub(0).start();
    stub.statuses.set(LOBBY, {
      serialNumber: LOBBY,
      displayName: "Lobby scrubber",
      online: true,
      taskState: "IDLE",
      battery: { powerPercentage: 85, charging: false },
      emergencyStop: { enabled: false },
      localizationInfo: { localizationState: "NORMAL" },
      device: { filter: { lifeSpan: 200, usedLife: 190 }, cleanWaterTank: { level: 70 } },
    });
  });
  afterEach(async () => {
    await stub.server.stop();
    forgetAccountMemory();
  });
  useNodeRed();

  /** The example on the stub's cloud, its timer off (the test reads by its inject), the e-mails and tables seen by helpers. */
  async function deployExample(): Promise<void> {
    const example = JSON.parse(fs.readFileSync(EXAMPLE, "utf8")) as FlowNode[];
    const nodes = example
      .filter((node) => node.type !== "robot-config" && node.type !== "comment")
      .map((node) => {
        if (node.type === "robot-upkeep") return { ...node, robot: "config", every: 0, wires: [[...(node.wires as string[][])[0]!, "tables-seen"], (node.wires as string[][])[1]!] };
        if (node.id === "upkeep-mail") return { ...node, wires: [[...(node.wires as string[][])[0]!, "mails-seen"]] };
        return node;
      });
    const tab = nodes.find((node) => node.type === "tab")!;
    const flow: FlowNode[] = [
      ...nodes,
      { id: "config", type: "robot-config", z: tab.id, baseUrl: stub.url, timeout: 5, maxRetries: 1, authMode: "token" },
      { id: "tables-seen", type: "helper", z: tab.id },
      { id: "mails-seen", type: "helper", z: tab.id },
    ];
    await loadFlow([http.serving(robotUpkeep), ...CORE, ...coreNodes("inject", "function", "change")], flow, { config: { token: TEST_TOKEN } });
  }

  it("mails a filter at 5 % once, and mails again when the replaced filter's counter is reset", async () => {
    await deployExample();
    const tables = collectMessages("tables-seen");
    const mails = collectMessages("mails-seen");
    helper.getNode("upkeep-read-now").receive({ payload: Date.now() });
    await waitFor(() => mails.length === 1, 5000, "the e-mail");
    assert.equal(mails[0]!.to, "facility-team@example.com");
    assert.equal(mails[0]!.topic, "Upkeep needed: Filter of Lobby scrubber: 5 % left, due at 10 %");
    assert.match(String(mails[0]!.payload), new RegExp(`^Filter of Lobby scrubber: 5 % left, due at 10 %\\n\\nRobot: Lobby scrubber \\(${LOBBY}\\)\\nRead at: \\d{4}-`));
    assert.equal(tables.length, 1);
    assert.deepEqual(
      (tables[0]!.payload as Array<{ serialNumber: string; parts: Array<{ part: string }> }>).map((robot) => [robot.serialNumber, robot.parts.map((part) => part.part)]),
      [[LOBBY, ["filter"]]],
    );

    helper.getNode("upkeep-read-now").receive({ payload: Date.now() });
    await waitFor(() => tables.length === 2, 5000, "the second table");
    stub.update(LOBBY, (status) => (status.device!.filter = { lifeSpan: 200, usedLife: 0 }));
    helper.getNode("upkeep-replaced").receive({ payload: { replaced: { serialNumber: LOBBY, part: "filter" } } });
    await waitFor(() => mails.length === 2, 5000, "the second e-mail");
    assert.equal(mails[1]!.topic, "Upkeep done: Filter of Lobby scrubber: 100 % left, over 10 % again");
    assert.equal(tables.length, 3, "one table per read, and no e-mail for the read that found the filter still under");
  });

  it("answers the work order as a page to print and as CSV", async () => {
    await deployExample();
    const page = await fetch(`${http.url}/upkeep/work-order`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    const html = await page.text();
    assert.match(html, /<h1>Work order<\/h1>/);
    assert.ok(html.includes("Lobby scrubber") && html.includes("Filter"), "the filter at 5 % is on it");
    const csv = await fetch(`${http.url}/upkeep/work-order.csv`);
    assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/);
    const lines = (await csv.text()).trimEnd().split(/\r?\n/);
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(",").slice(0, 4).join(",")),
      [`part,${LOBBY},Lobby scrubber,filter`],
    );
  });
});
