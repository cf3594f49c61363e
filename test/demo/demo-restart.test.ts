/**
 * The demo keeps the shift across a restart: its context store is a
 * localfilesystem store in the lasting folder, where Node-RED also runs. An
 * alarm open before Ctrl-C and acknowledged in the console is still listed,
 * with who acknowledged it, after `npm start` again, though the simulator (a
 * new process) has forgotten it; the cleaning-reports CSV in that folder gets
 * each task report once, under one header, however often the demo starts
 * (the simulator seeds the same reports at every start).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { startDemo } from "../support/demo-process";
import { launchChromium } from "../support/editor";
import { readCsv, sweptOnce } from "../support/demo-csv";
import { sleep } from "../support/until";

const CONSOLE = ".robot-console";
const KITCHEN_ALARM = `${CONSOLE} .rc-alarms .rc-alarm[data-serial-number="GS-S-000102"]`;

describe("demo: a restart keeps the shift", function () {
  this.timeout(240_000);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-demo-restart-"));
  const csv = path.join(folder, "cleaning-reports.csv");
  let browser: Browser;
  before(async () => (browser = await launchChromium()));
  after(async () => {
    await browser?.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  let firstReports: string[];

  it("first start: an alarm is raised and acknowledged by name in the console; each seeded report is written once", async () => {
    const first = await startDemo({ DEMO_DIR: folder });
    try {
      const raised = await fetch(`${first.urls.simulator}/_sim/robots/GS-S-000102/incidents`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ incidentLevel: "H5", incidentName: "Lidar blocked" }),
      });
      assert.equal(raised.status, 201);
      assert.ok(first.output().includes(`cleaning reports, each once, in ${csv}`), "the banner says where the CSV is");
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${first.urls.editor}/dashboard/fleet`);
      await page.waitForSelector(`${KITCHEN_ALARM} .rc-ack`, { timeout: 30_000 });
      await page.fill(`${CONSOLE} .rc-operator input`, "Ana");
      await page.click(`${KITCHEN_ALARM} .rc-ack`);
      await page.waitForSelector(`${KITCHEN_ALARM} .rc-acked`, { timeout: 20_000 });
      assert.match((await page.textContent(`${KITCHEN_ALARM} .rc-acked`)) ?? "", /Ana/);
      await page.close();
      await sweptOnce(first.urls.editor);
      // The swept reports pass through the CSV's function and file nodes after the status says so.
      await sleep(1000);
    } finally {
      assert.equal(await first.stop(), 0, first.output().slice(-2000));
    }
    assert.ok(fs.existsSync(path.join(folder, "context")), "the context store writes into the lasting folder");
    assert.ok(fs.existsSync(csv), "the CSV is written in the lasting folder, where Node-RED runs");
    const written = readCsv(csv);
    assert.equal(written.headers, 1);
    // Three robots, one or two seeded reports each.
    assert.equal(written.reports.length, 4, JSON.stringify(written.reports));
    assert.equal(new Set(written.reports).size, written.reports.length, JSON.stringify(written.reports));
    firstReports = written.reports;
  });

  for (const start of ["second", "third"]) {
    it(`${start} start: the alarm is listed as acknowledged by that name; the CSV gets no report again`, async () => {
      assert.ok(firstReports, "the first start ran");
      const demo = await startDemo({ DEMO_DIR: folder });
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        await page.goto(`${demo.urls.editor}/fleet`);
        await page.waitForFunction(
          () => /Kitchen scrubber.*Lidar blocked.*acknowledged by Ana/.test(document.getElementById("alarms")?.textContent ?? ""),
          undefined,
          { timeout: 30_000 },
        );
        await page.goto(`${demo.urls.editor}/dashboard/fleet`);
        await page.waitForSelector(`${KITCHEN_ALARM} .rc-acked`, { timeout: 30_000 });
        assert.match((await page.textContent(`${KITCHEN_ALARM}`)) ?? "", /Lidar blocked/);
        assert.match((await page.textContent(`${KITCHEN_ALARM} .rc-acked`)) ?? "", /Ana/);
        await page.close();
        await sweptOnce(demo.urls.editor);
        await sleep(1000);
      } finally {
        assert.equal(await demo.stop(), 0, demo.output().slice(-2000));
      }
      const written = readCsv(csv);
      assert.equal(written.headers, 1);
      // The reports of the earlier start, in their place, none of them again (a task that ended since may add one).
      assert.deepEqual(written.reports.slice(0, firstReports.length), firstReports);
      assert.equal(new Set(written.reports).size, written.reports.length, JSON.stringify(written.reports));
    });
  }
});
