/**
 * The README's start command, end to end: the real demo process with the
 * simulator, the MQTT broker and Node-RED, on free ports. A sensor message
 * published on MQTT and an inject pressed through the admin API must each move
 * a simulated robot.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import mqtt from "mqtt";
import WebSocket from "ws";
import { RobotClient } from "../../src/api/client";
import { DECLARED_NODE_TYPES } from "../support/declared-nodes";
import { root, startDemo, type RunningDemo } from "../support/demo-process";
import { launchChromium } from "../support/editor";

/** Polls the robot's status until it reaches `wanted` or 15 s pass; returns the last state seen. */
async function settledState(robots: RobotClient, serialNumber: string, wanted: string): Promise<string | undefined> {
  let state: string | undefined;
  for (const started = Date.now(); Date.now() - started < 15_000;) {
    state = (await robots.getRobotStatus({ serialNumber })).taskState;
    if (state === wanted) break;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return state;
}

const DEMO_TOKEN = "demo-token";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  assert.equal(response.status, 200, url);
  return response.json();
}

describe("demo (npm start)", function () {
  this.timeout(90_000);
  let demo: RunningDemo;
  let robots: RobotClient;

  /** What the editor's port answered first, polled from the moment the demo process started. */
  let firstAnswer: { nodes: string } | undefined;

  before(async () => {
    const port = await freePort();
    let watching = true;
    const watch = (async () => {
      while (watching && !firstAnswer) {
        try {
          const response = await fetch(`http://127.0.0.1:${port}/nodes`, { headers: { Accept: "application/json" } });
          firstAnswer = { nodes: await response.text() };
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    })();
    demo = await startDemo({ PORT: String(port) });
    watching = false;
    await watch;
    robots = new RobotClient({ baseUrl: demo.urls.simulator, auth: { token: DEMO_TOKEN } });
  });

  it("opens the editor's port only once the palette is loaded, with no error in its log", () => {
    assert.ok(firstAnswer, "the port answered");
    assert.match(firstAnswer.nodes, /"robot-command"/, "the first answer already lists the package's nodes");
    assert.doesNotMatch(demo.output(), /\[error\]/);
    // One robot-config for every example, its comments naming the ports the demo runs on.
    assert.match(demo.output(), new RegExp(`Node-RED editor\\s+http://127\\.0\\.0\\.1:${new URL(demo.urls.editor).port}/`));
  });

  it("deploys one robot-config, and example comments that name the demo's own ports", async () => {
    const flows = (await getJson(`${demo.urls.editor}/flows`)) as Array<{ type: string; id: string; info?: string }>;
    assert.deepEqual(
      flows.filter((node) => node.type === "robot-config").map((node) => node.id),
      ["demo-robot-cloud"],
    );
    const comments = flows
      .filter((node) => node.type === "comment")
      .map((node) => node.info ?? "")
      .join("\n");
    const simulatorPort = new URL(demo.urls.simulator).port;
    assert.ok(!/\b18080\b/.test(comments) || simulatorPort === "18080", "no default simulator port left");
    assert.match(comments, new RegExp(`127\\.0\\.0\\.1:${simulatorPort}\\b`));
    assert.match(comments, new RegExp(`127\\.0\\.0\\.1:${new URL(demo.urls.editor).port}/fleet`));
  });

  after(async () => {
    if (!demo) return;
    assert.equal(await demo.stop(), 0, `the demo stops cleanly on Ctrl-C:\n${demo.output()}`);
  });

  it("runs Node-RED with the package's node types loaded from the installed package", async () => {
    const nodeSets = (await getJson(`${demo.urls.editor}/nodes`)) as Array<{
      module: string;
      types: string[];
      err?: unknown;
      enabled: boolean;
    }>;
    const ours = nodeSets.filter((set) => set.module === "node-red-contrib-robot-fleet");
    assert.deepEqual(ours.flatMap((set) => set.types).sort(), DECLARED_NODE_TYPES);
    for (const set of ours) {
      assert.equal(set.err, undefined);
      assert.equal(set.enabled, true);
    }
  });

  it("deploys every example flow on its own tab and offers the examples for import", async () => {
    const flows = (await getJson(`${demo.urls.editor}/flows`)) as Array<{ type: string; label?: string }>;
    const tabs = flows.filter((node) => node.type === "tab").map((tab) => tab.label);
    assert.ok(tabs.includes("iot-spill-sensor-cleaning"), `tabs: ${tabs.join(", ")}`);
    const types = new Set(flows.map((node) => node.type));
    for (const type of DECLARED_NODE_TYPES) assert.ok(types.has(type), type);
    // What Import > Examples lists for this package: one entry per file in examples/.
    const listed = (await getJson(`${demo.urls.editor}/library/examples/flows/node-red-contrib-robot-fleet`)) as Array<{ fn: string }>;
    const files = fs.readdirSync(path.join(root, "examples")).map((file) => path.basename(file, ".json"));
    assert.deepEqual(listed.map((entry) => entry.fn).sort(), files.sort());
    for (const file of files) assert.ok(tabs.includes(file), `tab for ${file}`);
  });

  it("starts a cleaning run when a spill sensor publishes on MQTT", async () => {
    const serialNumber = "GS-S-000102";
    const before = await robots.getRobotStatus({ serialNumber });
    assert.notEqual(before.taskState, "RUNNING");
    const client = await mqtt.connectAsync(demo.urls.mqtt);
    try {
      // The sensor says where; the job goes to the free robot nearest to it: the kitchen scrubber stands at the kitchen door.
      await client.publishAsync("facility/sensors/kitchen/spill", JSON.stringify({ map: "Floor 1", near: "Kitchen door" }), { qos: 1 });
    } finally {
      await client.endAsync();
    }
    assert.equal(await settledState(robots, serialNumber, "RUNNING"), "RUNNING", demo.output());
  });

  it("shows the simulator's robots in the demo's broker as Home Assistant discovers them (the home-assistant example)", async () => {
    const client = await mqtt.connectAsync(demo.urls.mqtt);
    const configs = new Map<string, Record<string, unknown>>();
    client.on("message", (topic, payload) => {
      if (topic.endsWith("/config") && payload.length > 0)
        configs.set(topic, JSON.parse(payload.toString("utf8")) as Record<string, unknown>);
    });
    try {
      await client.subscribeAsync("homeassistant/device/+/config", { qos: 1 });
      for (let waited = 0; waited < 20_000 && configs.size < 3; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      const names = [...configs.values()].map((config) => (config.device as { name: string }).name).sort();
      assert.deepEqual(names, ["Kitchen scrubber", "Lobby scrubber", "Warehouse sweeper"], demo.output());
    } finally {
      await client.endAsync();
    }
  });

  it("keeps the console to what matters: no line per successful simulator request, a line for a failed one", async () => {
    assert.ok(await robots.getRobotStatus({ serialNumber: "GS-S-000101" }));
    const refused = await fetch(`${demo.urls.simulator}/openapi/v2alpha1/s/robots/GS-S-000101/status`, {
      headers: { Authorization: "Bearer not-a-token" },
    });
    assert.equal(refused.status, 401);
    const failedLine = /GET \/openapi\/v2alpha1\/s\/robots\/GS-S-000101\/status 401 code 16 \d+ms/;
    for (let waited = 0; waited < 2000 && !failedLine.test(demo.output()); waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.match(demo.output(), failedLine);
    assert.doesNotMatch(demo.output(), /^\S+Z (GET|POST|PUT|PATCH) \S+ 2\d\d/m, "no line for a 2xx answer");
  });

  it("starts a cleaning run when the example's inject is pressed through the admin API", async () => {
    // The kitchen scrubber runs the sensor's job: this second spill goes to another free robot.
    const running = async () => {
      const serialNumbers = (await robots.listAllRobots()).map((robot) => robot.serialNumber);
      const statuses = await robots.batchGetStatuses(serialNumbers, { line: "s" });
      return new Set(statuses.filter((status) => status.taskState === "RUNNING").map((status) => String(status.serialNumber)));
    };
    const before = await running();
    const response = await fetch(`${demo.urls.editor}/inject/iot-test-spill`, { method: "POST" });
    assert.equal(response.status, 200);
    let started: string[] = [];
    for (
      const since = Date.now();
      started.length === 0 && Date.now() - since < 20_000;
      await new Promise((resolve) => setTimeout(resolve, 250))
    ) {
      started = [...(await running())].filter((serialNumber) => !before.has(serialNumber));
    }
    assert.equal(started.length, 1, `one more robot cleaning:\n${demo.output()}`);
  });

  it("serves the fleet page at /fleet: every floor with its counts, every robot's state in words, the open alarms, updated in place", async () => {
    assert.equal((await fetch(`${demo.urls.simulator}/_sim/reset`, { method: "POST" })).status, 200);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(20_000);
      const pageErrors: string[] = [];
      page.on("pageerror", (error) => pageErrors.push(error.message));
      const response = await page.goto(`${demo.urls.editor}/fleet`);
      assert.equal(response?.status(), 200, await response?.text());
      await page.waitForSelector("#fleet tr[data-serial-number]");
      const serials = await page.$$eval("#fleet tr[data-serial-number]", (rows) =>
        rows.map((row) => row.getAttribute("data-serial-number")),
      );
      assert.deepEqual(serials.sort(), ["GS-S-000101", "GS-S-000102", "GS-S-000201"]);
      const row = 'tr[data-serial-number="GS-S-000102"]';
      // After the reset, once the watching nodes have read it again.
      await page.waitForFunction((selector) => document.querySelector(`${selector} .state`)?.textContent?.trim() === "idle", row, {
        timeout: 20_000,
      });
      const floors = await page.$$eval("#floors button", (buttons) =>
        buttons.map((button) => (button.textContent ?? "").replace(/\s+/g, " ").trim()),
      );
      assert.deepEqual(
        floors,
        ["Floor 1 2", "Floor 2 0", "Warehouse 1"],
        "every floor the robots' map lists name, with its count of robots (none on Floor 2)",
      );
      // The first floor, drawn by robot-maps' fleet view with both its robots on it.
      await page.waitForFunction(() => document.querySelectorAll("#map svg [data-serial-number]").length === 2);
      // Marks this document: a reload would lose it.
      await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));

      const raised = await fetch(`${demo.urls.simulator}/_sim/robots/GS-S-000102/incidents`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ incidentLevel: "H5", incidentName: "Lidar blocked" }),
      });
      assert.equal(raised.status, 201);
      await page.waitForFunction(
        () => /Kitchen scrubber.*Lidar blocked/.test(document.getElementById("alarms")?.textContent ?? ""),
        undefined,
        { timeout: 20_000 },
      );
      await page.screenshot({
        path: path.join(process.env.UPDATE_SCREENSHOTS ? path.join(root, "docs/images") : os.tmpdir(), "fleet-page.png"),
        fullPage: true,
      });

      await robots.submitCommand({
        serialNumber: "GS-S-000102",
        remoteTaskCommandType: "START_TASK",
        commandParameter: {
          startTaskParameter: {
            cleaningMode: "__middle_cleaning",
            task: { name: "All of Floor 1", map: "Floor 1", loop: false, loopCount: 1 },
          },
        },
      });
      // The page updates itself every 3 s from what the account's watching nodes read; the simulator starts the task after its command delay.
      await page.waitForFunction(
        (selector) => /^cleaning/.test(document.querySelector(`${selector} .state`)?.textContent?.trim() ?? ""),
        row,
        {
          timeout: 40_000,
        },
      );
      await page.waitForFunction(
        () => document.querySelector('#map [data-serial-number="GS-S-000102"]')?.getAttribute("data-state") === "cleaning",
        undefined,
        { timeout: 15_000 },
      );
      const { incidentId } = (await raised.json()) as { incidentId: string };
      await fetch(`${demo.urls.simulator}/_sim/robots/GS-S-000102/incidents`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ incidentId, raised: false }),
      });
      assert.equal(
        await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument),
        true,
        "updated in place, not reloaded",
      );
      assert.deepEqual(pageErrors, []);
    } finally {
      await browser.close();
    }
  });

  describe("every example flow against the simulator", function () {
    /** What pressing each example inject must show in the editor's debug sidebar. */
    const EXPECTED: Record<string, Array<{ debug: string; contains: string }>> = {
      "sitetask-inject-status": [{ debug: "sitetask-debug-status", contains: '"taskState":"IDLE"' }],
      "sitetask-inject-site": [{ debug: "sitetask-debug-site", contains: "Riverside Office Park" }],
      "sitetask-inject-nosite": [{ debug: "sitetask-debug-errors", contains: "The robot is not on a site." }],
      "sitetask-inject-b4": [{ debug: "sitetask-debug-b4", contains: '"cmdStatus":5' }],
      "sitetask-inject-b3": [{ debug: "sitetask-debug-b3", contains: '"taskId":' }],
      "maps-inject-list": [{ debug: "maps-debug-list", contains: '"mapName":"Floor 1"' }],
      "upkeep-read-now": [{ debug: "upkeep-table", contains: '"serialNumber":"GS-S-000101"' }],
      "upkeep-replaced": [{ debug: "upkeep-table", contains: '"replacedAt"' }],
      "maps-inject-first": [{ debug: "maps-debug-areas", contains: '"name":"Lobby"' }],
      "maps-inject-every": [
        { debug: "maps-debug-every", contains: '"name":"Lobby"' },
        { debug: "maps-debug-every", contains: '"name":"Canteen"' },
      ],
      "maps-inject-unknown": [{ debug: "maps-debug-errors", contains: "no-such-map" }],
      "command-inject-start": [{ debug: "command-debug", contains: '"rawCommandType":"start_task"' }],
      "command-inject-pause": [{ debug: "command-debug", contains: '"rawCommandType":"pause_task"' }],
      "command-inject-resume": [{ debug: "command-debug", contains: '"rawCommandType":"resume_task"' }],
      "command-inject-stop": [{ debug: "command-debug", contains: '"rawCommandType":"stop_task"' }],
      "command-inject-charger": [{ debug: "command-debug", contains: '"position":"charging"' }],
      "command-inject-kitchen": [{ debug: "command-debug", contains: '"position":"Kitchen door"' }],
      "command-inject-stop-navigation": [{ debug: "command-debug", contains: '"rawCommandType":"stop_navigate"' }],
      "command-inject-unknown-map": [{ debug: "command-debug-errors", contains: "Floor 9" }],
      "command-inject-remote-start": [{ debug: "command-debug", contains: '"rawCommandType":"remote_control_start"' }],
      "command-inject-move-forward": [{ debug: "command-debug", contains: '"direction":"forward"' }],
      "command-inject-turn-left": [{ debug: "command-debug", contains: '"direction":"left"' }],
      "command-inject-remote-stop": [{ debug: "command-debug", contains: '"rawCommandType":"remote_control_stop"' }],
      // Today's table per floor: the request as read beside the rows (none yet after a reset: the seeded reports are older).
      "reports-today": [{ debug: "reports-table-debug", contains: '"kpi":{"from":"' }],
      // The cleaning plan: the next day's occurrences (the Lobby every two hours), and the Lobby's occurrence now run as a job.
      "plan-upcoming": [{ debug: "plan-answers", contains: '"occurrenceId":"Lobby@' }],
      // Due, then robot-job's progress of the occurrence's job: started, or waiting while the Lobby scrubber
      // finishes the spill sensor's job of an earlier test (test/demo/console-plan.test.ts follows one to done).
      "plan-run-lobby": [
        { debug: "plan-progress", contains: '"event":"due"' },
        { debug: "plan-progress", contains: '"item":"Lobby","event":"' },
      ],
      "iot-test-spill": [
        { debug: "iot-progress-debug", contains: '"event":"assigned"' },
        { debug: "iot-progress-debug", contains: '"event":"started"' },
      ],
    };
    // The console's timers feed its template and charts, not a debug node: test/demo/dashboard.test.ts shows what they do.
    const CONSOLE_TIMERS = new Set(["fleetdash-tick", "fleetdash-area-today", "fleetdash-tasks-today"]);
    const ERROR_DEBUG_NODES = new Set(["sitetask-debug-errors", "maps-debug-errors", "iot-error-debug", "command-debug-errors"]);
    let comms: WebSocket;
    const received: Array<{ id: string; msg: string }> = [];

    before(async () => {
      comms = new WebSocket(`${demo.urls.editor.replace(/^http/, "ws")}/comms`);
      await new Promise((resolve, reject) => {
        comms.once("open", resolve);
        comms.once("error", reject);
      });
      comms.on("message", (data: Buffer) => {
        for (const event of JSON.parse(data.toString()) as Array<{ topic: string; data: { id: string; msg: string } }>) {
          if (event.topic === "debug") received.push({ id: event.data.id, msg: String(event.data.msg) });
        }
      });
      comms.send(JSON.stringify({ subscribe: "debug" }));
    });
    after(() => comms?.close());

    it("has an expectation for every inject in examples/", () => {
      const injects = fs
        .readdirSync(path.join(root, "examples"))
        .flatMap((file) => JSON.parse(fs.readFileSync(path.join(root, "examples", file), "utf8")) as Array<{ id: string; type: string }>)
        .filter((node) => node.type === "inject" && !CONSOLE_TIMERS.has(node.id))
        .map((node) => node.id);
      assert.deepEqual(injects.sort(), Object.keys(EXPECTED).sort());
    });

    for (const [inject, expectations] of Object.entries(EXPECTED)) {
      it(`${inject} shows what it should`, async () => {
        // Each example starts from the seeded fleet (a running task would refuse the next one).
        assert.equal((await fetch(`${demo.urls.simulator}/_sim/reset`, { method: "POST" })).status, 200);
        received.length = 0;
        assert.equal((await fetch(`${demo.urls.editor}/inject/${inject}`, { method: "POST" })).status, 200);
        const met = () => expectations.every((e) => received.some((r) => r.id === e.debug && r.msg.includes(e.contains)));
        for (const started = Date.now(); !met() && Date.now() - started < 15_000;) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.ok(met(), `expected ${JSON.stringify(expectations)}, got ${JSON.stringify(received)}`);
        const expectsError = expectations.some((e) => ERROR_DEBUG_NODES.has(e.debug));
        if (!expectsError) {
          assert.deepEqual(
            received.filter((r) => ERROR_DEBUG_NODES.has(r.id)),
            [],
            "no error reached a Catch node",
          );
        }
      });
    }

    /** Waits up to 15 s for a debug message of `debug` containing every one of `parts`. */
    async function debugShowing(debug: string, parts: string[]): Promise<string | undefined> {
      const find = () => received.find((r) => r.id === debug && parts.every((part) => r.msg.includes(part)))?.msg;
      for (const started = Date.now(); !find() && Date.now() - started < 15_000;) await new Promise((resolve) => setTimeout(resolve, 50));
      return find();
    }

    it("receives an incident raised on the simulator in the incident-alerts flow: H4 and above only", async () => {
      received.length = 0;
      const raise = async (body: Record<string, unknown>) => {
        const response = await fetch(`${demo.urls.simulator}/_sim/robots/GS-S-000101/incidents`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        assert.equal(response.status, body.raised === false ? 200 : 201);
        return (await response.json()) as { incidentId: string; pushed: boolean };
      };
      const minor = await raise({ incidentLevel: "H3", incidentName: "Water tank low" });
      const major = await raise({ incidentLevel: "H5", incidentName: "Lidar blocked" });
      assert.ok(major.pushed && minor.pushed, "the simulator has the demo's push URL");
      const shown = await debugShowing("incidents-debug", [major.incidentId, '"raised":true', '"code":"H5"', "Lidar blocked"]);
      assert.ok(shown, `the H5 incident in the debug sidebar; got ${JSON.stringify(received)}`);
      assert.match(shown, /"startTimeIso":"\d{4}-\d\d-\d\dT/);
      await raise({ incidentLevel: "H5", incidentId: major.incidentId, raised: false });
      assert.ok(await debugShowing("incidents-debug", [major.incidentId, '"raised":false']), "its recovery");
      assert.equal(received.filter((r) => r.msg.includes(minor.incidentId)).length, 0, "the H3 incident is not sent on");
    });

    it("counts a task report the simulator pushes when a task is stopped in today's figures per floor (incident-alerts to cleaning-reports)", async () => {
      assert.equal((await fetch(`${demo.urls.simulator}/_sim/reset`, { method: "POST" })).status, 200);
      received.length = 0;
      const serialNumber = "GS-S-000101";
      await robots.submitCommand({
        serialNumber,
        remoteTaskCommandType: "START_TASK",
        commandParameter: {
          startTaskParameter: {
            cleaningMode: "__middle_cleaning",
            task: { name: "Kitchen spill", map: "Floor 1", loop: false, loopCount: 1 },
          },
        },
      });
      assert.equal(await settledState(robots, serialNumber, "RUNNING"), "RUNNING");
      await robots.submitCommand({ serialNumber, remoteTaskCommandType: "STOP_TASK" });
      const table = await debugShowing("reports-table-debug", ['"mapName":"Floor 1"', '"stoppedByHand":1']);
      assert.ok(table, `today's table per floor in the debug sidebar; got ${JSON.stringify(received)}`);
      assert.match(table, /"tasks":\d+/);
    });
  });
});
