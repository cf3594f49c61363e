/**
 * The cleaning-plan example in real Node-RED against the simulator: it
 * deploys with no error, its plan is read, and its report page answers over
 * HTTP: the HTML page for a day, the CSV, and a 400 naming the field for a
 * day that is no day.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { DateTime } from "luxon";
import robotPlan from "../../src/nodes/robot-plan";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { PACKAGE_ROOT } from "../support/child-node";
import { HttpNodeServer } from "../support/http-node";
import { collectMessages, coreNodes, helper, loadFlow, useNodeRed, type FlowNode } from "../support/node-red";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- Node-RED's core nodes are plain CommonJS modules
const CORE = ["network/21-httpin.js", "function/10-switch.js", "common/21-debug.js"].map((file) => require(`@node-red/nodes/core/${file}`) as never);
const EXAMPLE = path.join(PACKAGE_ROOT, "examples", "cleaning-plan.json");

describe("example cleaning-plan: a day's plan and its report page", function () {
  this.timeout(60_000);
  const http = new HttpNodeServer();
  let simulator: RunningSimulator;
  before(async () => {
    await http.start();
    simulator = await startSimulator({ quiet: true, rateLimit: false });
  });
  after(async () => {
    await simulator.close();
    await http.stop();
  });
  useNodeRed();

  it("deploys without error and serves the report page, its CSV, and a 400 for a bad day", async () => {
    const example = (JSON.parse(fs.readFileSync(EXAMPLE, "utf8")) as FlowNode[]).map((node) =>
      node.type === "robot-config" ? { ...node, baseUrl: simulator.url } : node,
    );
    const errors: unknown[] = [];
    await loadFlow([http.serving(robotPlan), ...coreNodes("inject", "comment", "change"), ...CORE], example, { "robot-cloud-simulator": { token: DEMO_TOKEN } });
    const settled = collectMessages("plan-settled");
    const plan = helper.getNode("plan-node");
    assert.ok(plan, "the plan node deployed");
    // The test helper spies on node.error and emits each call as "call:error", which Node's types do not name.
    (plan as unknown as NodeJS.EventEmitter).on("call:error", (call: { args: unknown[] }) => errors.push(call.args[0]));

    // The plan is in force from its deploy: the next Tuesday (the runtime's zone, the example's) is planned, yesterday is not.
    const today = DateTime.now().startOf("day");
    const tuesday = today.plus({ days: ((2 - today.weekday + 7) % 7) + 7 });
    const [from, to] = [tuesday.toISODate(), tuesday.plus({ days: 1 }).toISODate()];
    const page = await fetch(`${http.url}/cleaning-plan/report?from=${from}&to=${to}`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    const html = await page.text();
    assert.equal(html.match(/<section class="day"/g)?.length, 2, "a page per day");
    assert.ok(html.includes("<h1>Riverside Office Park</h1>"));
    assert.ok(html.includes(">Lobby<") && html.includes(">Meeting rooms<"), "the plan's items are planned on a Tuesday");

    const csv = await fetch(`${http.url}/cleaning-plan/report.csv?from=${from}`);
    assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/);
    const lines = (await csv.text()).trimEnd().split("\n");
    // Tuesday: Lobby 06:00-20:00 every 2 h (8), Corridor 07:30-19:30 every 4 h (4), Kitchen (1), Canteen 11:00-17:00 every 3 h (3), Meeting rooms (1).
    assert.equal(lines.length, 1 + 17);
    const yesterday = await fetch(`${http.url}/cleaning-plan/report.csv?from=${today.minus({ days: 1 }).toISODate()}`);
    assert.equal((await yesterday.text()).trimEnd().split("\n").length, 1, "a day before the plan existed: the header only, nothing planned");

    const refused = await fetch(`${http.url}/cleaning-plan/report?from=1.12.2026`);
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /payload\.report\.from/);
    assert.deepEqual(errors.filter((error) => !/payload\.report\.from/.test(String(error))), []);
    assert.equal(settled.length, 0);
  });
});
