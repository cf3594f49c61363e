/**
 * npm start -- --shared: the demo with a second Node-RED that shares the
 * robot account with the first through the redis-server the demo starts.
 * Both editors serve the same flows; each watching node polls in one of the
 * two and stands by in the other; the cleaning-reports CSV in the folder both
 * run in gets each report once; Ctrl-C ends the second instance and Redis.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { statusesOf } from "../support/comms";
import { startDemo, type RunningDemo } from "../support/demo-process";
import { launchChromium } from "../support/editor";
import { readCsv, sweptInOne } from "../support/demo-csv";
import { sleep } from "../support/until";

const WATCHING_NODES = ["fleetwatch-status", "fleetdash-watch"];

describe("demo: npm start -- --shared (two Node-RED instances, one account, Redis)", function () {
  this.timeout(120_000);
  let demo: RunningDemo;
  let stopped = false;

  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-shared-demo-"));
  before(async () => {
    demo = await startDemo({ DEMO_DIR: folder }, ["--shared"]);
  });
  after(async () => {
    if (demo && !stopped) await demo.stop();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it("prints both editors and the Redis it shares the account through; both serve the same flows, the second with what must run once off", async () => {
    assert.match(demo.output(), /shares the robot account\s+with the first through Redis at redis:\/\/127\.0\.0\.1:\d+/);
    type Node = { id: string; type: string; label?: string; disabled?: boolean; d?: boolean };
    const flowsOf = async (url: string) =>
      (await (await fetch(`${url}/flows`, { headers: { Accept: "application/json" } })).json()) as Node[];
    const [first, second] = [await flowsOf(demo.urls.editor), await flowsOf(demo.urls.second!)];
    const ids = (flows: Node[]) => flows.map((node) => node.id).sort();
    assert.deepEqual(ids(second), ids(first));
    // What would act twice (an MQTT message, a Home Assistant command, a CSV line) runs in the first only.
    const off = (flows: Node[]) => [
      ...flows.filter((node) => node.type === "tab" && node.disabled).map((node) => `tab ${node.label}`),
      ...flows.filter((node) => (node.type === "file" || node.type === "function") && node.d).map((node) => `${node.type} ${node.id}`),
    ];
    assert.deepEqual(off(first), []);
    assert.deepEqual(off(second).sort(), [
      "file reports-csv-file",
      "function reports-csv-line",
      "tab home-assistant",
      "tab iot-spill-sensor-cleaning",
    ]);
  });

  it("each watching node watches in one instance and stands by in the other", async () => {
    // A standby takes the watch only after finding it free twice: give the first poll time to land.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const [first, second] = await Promise.all([statusesOf(demo.urls.editor), statusesOf(demo.urls.second!)]);
    for (const node of WATCHING_NODES) {
      const texts = [first.get(node) ?? "", second.get(node) ?? ""];
      const standing = texts.filter((text) => text.startsWith("standing by"));
      assert.equal(standing.length, 1, `${node}: ${JSON.stringify(texts)}`);
      assert.match(
        texts.find((text) => !text.startsWith("standing by"))!,
        /robots?, \d+ online/,
        `${node} polls in the other: ${JSON.stringify(texts)}`,
      );
    }
  });

  it("the instance standing by shows the fleet on its console too, from the watching instance's reads", async () => {
    const browser = await launchChromium();
    try {
      const rowsOn = async (url: string) => {
        const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
        await page.goto(`${url}/dashboard/fleet`);
        await page.waitForFunction(() => document.querySelectorAll(".robot-console .rc-robots tbody tr").length >= 3, undefined, {
          timeout: 30_000,
        });
        const rows = await page.$$eval(".robot-console .rc-robots tbody tr", (trs) =>
          trs.map((tr) => tr.getAttribute("data-serial-number")).sort(),
        );
        await page.close();
        return rows;
      };
      const [first, second] = [await rowsOn(demo.urls.editor), await rowsOn(demo.urls.second!)];
      assert.deepEqual(second, first);
      // Its watching node stands by: what its console shows came through Redis, not from a poll of its own.
      const statuses = await statusesOf(demo.urls.second!);
      assert.match([statuses.get("fleetdash-watch") ?? "", statuses.get("fleetwatch-status") ?? ""].join(" "), /standing by/);
    } finally {
      await browser.close();
    }
  });

  it("one instance sweeps the seeded reports while the other stands by, and the cleaning-reports CSV they share a folder for has each once", async () => {
    await sweptInOne([demo.urls.editor, demo.urls.second!]);
    // The swept reports pass through the CSV's function and file nodes after the status says so.
    await sleep(1000);
    const written = readCsv(path.join(folder, "cleaning-reports.csv"));
    assert.equal(written.headers, 1);
    // Three robots, one or two seeded reports each.
    assert.equal(written.reports.length, 4, JSON.stringify(written.reports));
    assert.equal(new Set(written.reports).size, 4, JSON.stringify(written.reports));
  });

  it("Ctrl-C stops both instances and Redis", async () => {
    const redisPort = Number(/through Redis at redis:\/\/127\.0\.0\.1:(\d+)/.exec(demo.output())![1]);
    stopped = true;
    assert.equal(await demo.stop(), 0, demo.output());
    await assert.rejects(fetch(`${demo.urls.second!}/flows`), "the second editor is gone");
    const redisAnswers = await new Promise<boolean>((resolve) => {
      const socket = net.connect(redisPort, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    assert.equal(redisAnswers, false, "the demo's redis-server is gone");
  });
});
