/**
 * The cleaning-reports example in real Node-RED, without Dashboard 2 (its
 * chart tab left out, as a user without it does): a task report passed in
 * through its link (as incident-alerts passes pushes on) is appended once as
 * a CSV line by the core file node, and today's table per floor follows.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import robotReports from "../../src/nodes/robot-reports";
import { TEST_TOKEN, collectMessages, coreNodes, helper, loadFlow, useNodeRed, waitFor, type FlowNode } from "../support/node-red";
import { LOBBY, pushedEvent, reportAt } from "../support/report-fixtures";
import { ReportsStub } from "../support/reports-stub";
import { PACKAGE_ROOT } from "../support/child-node";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- Node-RED's core nodes are plain CommonJS modules
const CORE = ["function/10-switch.js", "common/60-link.js", "common/21-debug.js", "storage/10-file.js"].map((file) => require(`@node-red/nodes/core/${file}`) as never);
const EXAMPLE = path.join(PACKAGE_ROOT, "examples", "cleaning-reports.json");
const CHART_TAB = "reports-ui-tab";

describe("example cleaning-reports: each report a CSV line, and today's table per floor", function () {
  this.timeout(30_000);
  let stub: ReportsStub;
  let dir: string;
  beforeEach(async () => {
    stub = await new ReportsStub().start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "cleaning-reports-"));
  });
  afterEach(async () => {
    await stub.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    forgetAccountMemory();
  });
  useNodeRed();

  /** The example without Dashboard 2, its CSV file at `csv`, a robot-config on the stub; resolves when deployed. */
  async function deployExample(csv: string): Promise<void> {
      const example = JSON.parse(fs.readFileSync(EXAMPLE, "utf8")) as FlowNode[];
      const nodes = example
        // Without Dashboard 2: its tab and config nodes go; the pushes come through the link here, not over HTTP.
        .filter((node) => node.z !== CHART_TAB && !String(node.type).startsWith("ui-") && node.id !== CHART_TAB && node.type !== "robot-events" && node.type !== "robot-config" && node.type !== "comment")
        .map((node) => {
          if (node.type === "tab") return { ...node, env: [{ name: "REPORTS_CSV", value: csv, type: "str" }] };
          if (node.id === "reports-table-or-update") return { ...node, wires: [[...(node.wires as string[][])[0]!, "table-seen"], (node.wires as string[][])[1]!] };
          if (node.type === "robot-reports") return { ...node, robot: "config" };
          if (node.type === "inject") return { ...node, once: false, repeat: "" };
          return node;
        });
      const tab = nodes.find((node) => node.type === "tab")!;
      const flow: FlowNode[] = [
        ...nodes,
        { id: "config", type: "robot-config", z: tab.id, baseUrl: stub.url, timeout: 5, maxRetries: 1, authMode: "token" },
        { id: "table-seen", type: "helper", z: tab.id },
      ];
      await loadFlow([robotReports, ...CORE, ...coreNodes("inject", "function", "change")], flow, { config: { token: TEST_TOKEN } });
  }

  it("appends a report passed in twice as one line, and answers today's figures per floor", async () => {
    const csv = path.join(dir, "cleaning-reports.csv");
    await deployExample(csv);
    const tables = collectMessages("table-seen");
    await waitFor(() => stub.server.requests.length >= 1, 5000, "the first sweep");
    const report: Record<string, unknown> = { ...reportAt("today-1", LOBBY, Date.now() - 60_000, 30), taskEndStatus: 1 };
    helper.getNode("reports-pushed-in").receive({ payload: pushedEvent(report) });
    helper.getNode("reports-pushed-in").receive({ payload: pushedEvent(report) });
    await waitFor(() => fs.existsSync(csv) && tables.length >= 1, 5000, "the CSV line and the table");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = fs.readFileSync(csv, "utf8").trim().split("\n");
    assert.equal(lines.length, 2, "the header and one line for a report passed in twice");
    assert.equal(
      lines[0],
      "start (UTC),end (UTC),robot,report id,task,outcome,cleaning mode,planned area (m²),cleaned area (m²),coverage (0-1),duration (h),efficiency (m²/h),cloud efficiency (m²/h),water (L),battery used (%),maps",
    );
    assert.match(lines[1]!, new RegExp(`^${new Date(Date.parse(String(report.startTime))).toISOString()},.*,${LOBBY},today-1,Nightly,stoppedByHand,scrub,100,90,0\\.9,0\\.01,`));
    assert.match(lines[1]!, /,Floor 1$/);
    assert.equal(lines[0].split(",").length, lines[1]!.split(",").length, "as many columns as the header names");
    assert.equal(tables.length, 1);
    const [floor] = tables[0]!.payload as Array<Record<string, unknown>>;
    assert.equal(floor!.mapName, "Floor 1");
    assert.equal(floor!.stoppedByHand, 1);
    assert.equal(floor!.areaCleaned, 90);
  });

  it("writes one header for reports that come in a burst (the first sweep's) to a new file", async () => {
    const csv = path.join(dir, "cleaning-reports.csv");
    await deployExample(csv);
    await waitFor(() => stub.server.requests.length >= 1, 5000, "the first sweep");
    const ids = ["burst-1", "burst-2", "burst-3"];
    for (const id of ids) {
      helper.getNode("reports-pushed-in").receive({ payload: pushedEvent({ ...reportAt(id, LOBBY, Date.now() - 60_000, 30), taskEndStatus: 1 }) });
    }
    await waitFor(() => fs.existsSync(csv) && ids.every((id) => fs.readFileSync(csv, "utf8").includes(id)), 5000, "the three lines");
    const lines = fs.readFileSync(csv, "utf8").trim().split("\n");
    assert.equal(lines.filter((line) => line.startsWith("start (UTC),")).length, 1, lines.join("\n"));
    assert.equal(lines.length, 4, lines.join("\n"));
  });

  it("appends to a file an earlier run wrote without a second header, and names a cleaning mode that is no kind", async () => {
    const csv = path.join(dir, "cleaning-reports.csv");
    fs.writeFileSync(csv, "start (UTC),end (UTC),robot\nearlier line\n");
    await deployExample(csv);
    const report: Record<string, unknown> = { ...reportAt("today-2", LOBBY, Date.now() - 60_000, 30), taskEndStatus: 1, cleaningMode: "__middle_cleaning" };
    helper.getNode("reports-pushed-in").receive({ payload: pushedEvent(report) });
    await waitFor(() => fs.readFileSync(csv, "utf8").includes("today-2"), 5000, "the CSV line");
    const lines = fs.readFileSync(csv, "utf8").trim().split("\n");
    assert.equal(lines.length, 3, lines.join("\n"));
    assert.equal(lines[1], "earlier line");
    assert.match(lines[2]!, new RegExp(`,${LOBBY},today-2,Nightly,stoppedByHand,__middle_cleaning,`));
  });
});
