/**
 * Stopping the demo frees every port within 5 s and says how long it took:
 * Ctrl-C while consoles are open (two Chromium tabs hold the dashboard's
 * websockets), and SIGINT or SIGTERM to the npm process alone, as a service
 * manager or a container's stop sends it (npm passes it on to the demo).
 */
import assert from "node:assert/strict";
import net from "node:net";
import type { Browser } from "playwright-core";
import { startDemo, stopFigureMs, type RunningDemo } from "../support/demo-process";
import { launchChromium } from "../support/editor";

/** Whether something can listen on the port again (nobody holds it). */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

/** Stops the demo with `signal` to its process (npm's when it runs through npm) and checks what it promises; the ms from the signal to the exit. */
async function expectStopped(demo: RunningDemo, signal: NodeJS.Signals): Promise<number> {
  const ports = [demo.urls.editor, demo.urls.simulator, demo.urls.mqtt].map((url) => Number(new URL(url).port));
  const sent = Date.now();
  // A bound of its own, so that a demo that never stops fails here with its output rather than at the test's timeout.
  let bound: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    demo.stop(signal),
    new Promise<never>((_, reject) => {
      bound = setTimeout(() => reject(new Error(`still running 10 s after ${signal}:\n${demo.output().slice(-2000)}`)), 10_000);
    }),
  ]).finally(() => clearTimeout(bound));
  const tookMs = Date.now() - sent;
  assert.equal(code, 0, demo.output().slice(-2000));
  assert.ok(tookMs < 5000, `exited ${tookMs} ms after ${signal}`);
  for (const port of ports) assert.equal(await isFree(port), true, `port ${port} is free`);
  // The figure is the stop's own time: some, and no more than from the signal to the exit.
  const figure = stopFigureMs(demo.output());
  assert.ok(
    figure !== undefined && figure > 0 && figure <= tookMs,
    `"Stopped in ${figure} ms" against ${tookMs} ms from ${signal} to the exit`,
  );
  assert.match(demo.output(), /Stopped in \d+ ms: every port is free\./);
  return tookMs;
}

describe("demo: stopping", function () {
  this.timeout(180_000);
  let demo: RunningDemo | undefined;
  let browser: Browser | undefined;

  afterEach(async () => {
    await browser?.close();
    browser = undefined;
    demo?.kill();
    demo = undefined;
  });

  it("exits within 5 s on Ctrl-C with two console tabs open, says so, and frees the editor's, the simulator's and the broker's ports", async () => {
    demo = await startDemo();
    browser = await launchChromium();
    for (let tab = 0; tab < 2; tab++) {
      const page = await browser.newPage();
      await page.goto(`${demo.urls.editor}/dashboard/fleet`);
      await page.waitForSelector(".robot-console .rc-robots tbody tr", { timeout: 60_000 });
    }
    const tookMs = await expectStopped(demo, "SIGINT");
    console.log(`      exited ${tookMs} ms after Ctrl-C with two console tabs open`);
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal} to npm start's process alone, as a service manager sends it, stops the demo within 5 s and frees every port`, async () => {
      demo = await startDemo({}, [], true);
      const tookMs = await expectStopped(demo, signal);
      console.log(
        `      npm and the demo exited ${tookMs} ms after ${signal} to npm (${stopFigureMs(demo.output())} ms by the demo's count)`,
      );
    });
  }
});
