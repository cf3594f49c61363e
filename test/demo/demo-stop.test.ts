/**
 * Ctrl-C stops the demo while consoles are open: two Chromium tabs hold the
 * dashboard's websockets, and the process still exits within 5 s, says so,
 * and leaves every port it opened free.
 */
import assert from "node:assert/strict";
import net from "node:net";
import type { Browser } from "playwright-core";
import { startDemo, type RunningDemo } from "../support/demo-process";
import { launchChromium } from "../support/editor";

/** Whether something can listen on the port again (nobody holds it). */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

describe("demo: Ctrl-C with console tabs open", function () {
  this.timeout(120_000);
  let demo: RunningDemo | undefined;
  let browser: Browser | undefined;

  after(async () => {
    await browser?.close();
    if (demo && demo.child.exitCode === null) demo.child.kill("SIGKILL");
  });

  it("exits within 5 s, says so, and frees the editor's, the simulator's and the broker's ports", async () => {
    demo = await startDemo();
    browser = await launchChromium();
    for (let tab = 0; tab < 2; tab++) {
      const page = await browser.newPage();
      await page.goto(`${demo.urls.editor}/dashboard/fleet`);
      await page.waitForSelector(".robot-console .rc-robots tbody tr", { timeout: 60_000 });
    }
    const ports = [demo.urls.editor, demo.urls.simulator, demo.urls.mqtt].map((url) => Number(new URL(url).port));
    const pressed = Date.now();
    const code = await demo.stop();
    const tookMs = Date.now() - pressed;
    assert.equal(code, 0, demo.output().slice(-2000));
    assert.ok(tookMs < 5000, `exited ${tookMs} ms after Ctrl-C`);
    assert.match(demo.output(), /Stopped in \d+\.\d s: every port is free\./);
    for (const port of ports) assert.equal(await isFree(port), true, `port ${port} is free`);
    console.log(`      exited ${tookMs} ms after Ctrl-C with two console tabs open`);
  });
});
