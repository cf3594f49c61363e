/**
 * The operator console (the fleet-dashboard example on Node-RED Dashboard 2,
 * in the README's demo with SIMULATOR_ROBOTS=200) in headless Chromium, 200
 * simulated robots, nearly all on one floor, half of them
 * cleaning and moving: how long each update takes to be applied in the
 * browser (from the message's arrival to the console's DOM patched and laid
 * out, as the console announces it with its "robot-console-updated" event;
 * the page's first draw apart),
 * and the page's memory (JS heap after GC, DOM nodes) sampled over
 * BENCH_CONSOLE_MINUTES (default 10). Figures are printed, never asserted.
 *
 *   npm run bench -- console
 *   node dist/test/bench/console.js
 */
import { RobotClient } from "../../src/api/client";
import { DEMO_TOKEN } from "../../src/simulator";
import { startDemo } from "../support/demo-process";
import { launchChromium } from "../support/editor";

export const CONSOLE_ROBOTS = 200;
export const CONSOLE_UPDATE_GOAL_MS = 100;
const MINUTES = Number(process.env.BENCH_CONSOLE_MINUTES ?? 10);
const SAMPLE_EVERY_MS = 30_000;

function percentile(sorted: readonly number[], share: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
}

export async function printConsoleCost(progress: (line: string) => void = console.log): Promise<void> {
  // The README's demo with its simulator grown to a fleet: the console as a user runs it, every example deployed beside it.
  const demo = await startDemo({ SIMULATOR_ROBOTS: String(CONSOLE_ROBOTS) });
  const browser = await launchChromium();
  try {
    // Half the fleet cleans, so robots move and change between updates.
    // The demo's flows use the same token's rate (200 robots watched and swept): this client waits its turn, a few calls a second, retried for a minute when refused.
    const client = new RobotClient({
      baseUrl: demo.urls.simulator,
      auth: { token: DEMO_TOKEN },
      engine: { rateLimit: 5 },
      retry: { maxRetries: 60 },
    });
    const serialNumbers = (await client.listAllRobots()).map((robot) => robot.serialNumber);
    const floor = "Floor 1";
    await Promise.all(
      serialNumbers
        .filter((_serial, index) => index % 2 === 0)
        .map((serialNumber) =>
          client
            .submitCommand({
              serialNumber,
              remoteTaskCommandType: "START_TASK",
              commandParameter: {
                startTaskParameter: {
                  cleaningMode: "__middle_cleaning",
                  task: { name: `All of ${floor}`, map: floor, loop: true, loopCount: 100 },
                },
              },
            })
            .catch(() => undefined),
        ),
    );
    client.close();
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Performance.enable");
    await page.addInitScript(() => {
      const updates: Array<{ ms: number; at: number }> = [];
      (window as unknown as { consoleUpdates: typeof updates }).consoleUpdates = updates;
      window.addEventListener("robot-console-updated", (event) =>
        updates.push({ ms: (event as CustomEvent<number>).detail, at: performance.now() }),
      );
    });
    await page.goto(`${demo.urls.editor}/dashboard/fleet`);
    await page.waitForSelector(".robot-console .rc-map-inner svg [data-serial-number]", { timeout: 120_000 });
    const robotsOnMap = await page.locator(".robot-console .rc-map-inner svg [data-serial-number]").count();
    progress(`console: ${robotsOnMap} robots on the floor drawn, sampling for ${MINUTES} min`);

    const samples: Array<{ minute: number; heapMb: number; nodes: number; inPage: number; byKind: Record<string, number> }> = [];
    const started = Date.now();
    /** When the bench's own GC held the page (page time): an update that overlaps one is counted apart. */
    const gcWindows: Array<[number, number]> = [];
    const sample = async () => {
      const from = await page.evaluate(() => performance.now());
      await cdp.send("HeapProfiler.collectGarbage");
      gcWindows.push([from, await page.evaluate(() => performance.now())]);
      const { metrics } = await cdp.send("Performance.getMetrics");
      const value = (name: string) => metrics.find((metric) => metric.name === name)?.value ?? NaN;
      // Nodes counts every DOM node Chromium holds, detached ones not yet collected too; inPage those in the document.
      // By tag and class too, so that a growing count says what grows.
      const { inPage, byKind } = await page.evaluate(() => {
        const elements = [...document.getElementsByTagName("*")];
        const counts: Record<string, number> = {};
        for (const element of elements) {
          const kind = `${element.tagName.toLowerCase()}${element.classList[0] ? `.${element.classList[0]}` : ""}`;
          counts[kind] = (counts[kind] ?? 0) + 1;
        }
        return { inPage: elements.length, byKind: counts };
      });
      samples.push({
        minute: (Date.now() - started) / 60_000,
        heapMb: value("JSHeapUsedSize") / 1e6,
        nodes: value("Nodes"),
        inPage,
        byKind,
      });
    };
    await sample();
    while (Date.now() - started < MINUTES * 60_000) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(SAMPLE_EVERY_MS, MINUTES * 60_000 - (Date.now() - started))));
      await sample();
    }
    // The first is the page's first draw (every row, picker and marker built from nothing): a page load, counted apart from the updates after it.
    const [firstDraw, ...updates] = await page.evaluate(
      () => (window as unknown as { consoleUpdates: Array<{ ms: number; at: number }> }).consoleUpdates,
    );
    const heldByGc = (update: { ms: number; at: number }) => gcWindows.some(([from, to]) => update.at - update.ms < to && update.at > from);
    const times = updates.map((update) => update.ms).sort((a, b) => a - b);
    const over = updates.filter((update) => update.ms >= CONSOLE_UPDATE_GOAL_MS);
    const first = samples[0]!;
    const last = samples.at(-1)!;
    const peak = Math.max(...samples.map((entry) => entry.heapMb));
    const grown = Object.keys({ ...first.byKind, ...last.byKind })
      .map((kind) => ({ kind, change: (last.byKind[kind] ?? 0) - (first.byKind[kind] ?? 0) }))
      .filter((entry) => entry.change !== 0)
      .sort((a, b) => Math.abs(b.change) - Math.abs(a.change))
      .slice(0, 8);
    console.log(`
Operator console in headless Chromium: ${CONSOLE_ROBOTS} robots, ${robotsOnMap} drawn on one floor, half of them cleaning
  first draw            ${firstDraw?.ms.toFixed(1)} ms (the page's load: not an update)
  updates applied       ${times.length} in ${MINUTES} min
  time to apply         median ${percentile(times, 0.5).toFixed(1)} ms, p95 ${percentile(times, 0.95).toFixed(1)} ms, max ${(times.at(-1) ?? NaN).toFixed(1)} ms; ${over.length} at or over ${CONSOLE_UPDATE_GOAL_MS} ms, ${over.filter(heldByGc).length} of them while the bench's own GC (every 30 s) held the page  (goal: each under ${CONSOLE_UPDATE_GOAL_MS} ms)
  JS heap after GC      ${first.heapMb.toFixed(1)} MB at start, ${last.heapMb.toFixed(1)} MB after ${last.minute.toFixed(1)} min, peak ${peak.toFixed(1)} MB  (goal: flat)
  DOM nodes             ${first.nodes} at start, ${last.nodes} at the end (in the document: ${first.inPage}, then ${last.inPage})
  elements that changed ${grown.map((entry) => `${entry.kind} ${entry.change > 0 ? "+" : ""}${entry.change}`).join(", ") || "none"}
  samples (min: MB)     ${samples.map((entry) => `${entry.minute.toFixed(1)}: ${entry.heapMb.toFixed(1)}`).join(", ")}`);
  } finally {
    await browser.close();
    await demo.stop();
  }
}

if (require.main === module) {
  printConsoleCost().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
