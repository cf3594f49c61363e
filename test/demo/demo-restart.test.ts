/**
 * The demo keeps the shift across a restart: its context store is a
 * localfilesystem store in the lasting folder, so an alarm open before
 * Ctrl-C is still listed on the fleet page after `npm start` again, though
 * the simulator (a new process) has forgotten it.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startDemo } from "../support/demo-process";
import { launchChromium } from "../support/editor";

describe("demo: a restart keeps the shift", function () {
  this.timeout(180_000);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-demo-restart-"));
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  it("lists an alarm raised before Ctrl-C on the fleet page after the next start", async () => {
    const first = await startDemo({ DEMO_DIR: folder });
    try {
      const raised = await fetch(`${first.urls.simulator}/_sim/robots/GS-S-000102/incidents`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ incidentLevel: "H5", incidentName: "Lidar blocked" }),
      });
      assert.equal(raised.status, 201);
      // The push reaches robot-events at once; give it a moment to be recorded before Ctrl-C.
      await new Promise((resolve) => setTimeout(resolve, 2000));
    } finally {
      assert.equal(await first.stop(), 0, first.output().slice(-2000));
    }
    assert.ok(fs.existsSync(path.join(folder, "context")), "the context store writes into the lasting folder");

    const second = await startDemo({ DEMO_DIR: folder });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${second.urls.editor}/fleet`);
      await page.waitForFunction(
        () => /Kitchen scrubber.*Lidar blocked/.test(document.getElementById("alarms")?.textContent ?? ""),
        undefined,
        { timeout: 30_000 },
      );
    } finally {
      await browser.close();
      assert.equal(await second.stop(), 0);
    }
  });
});
