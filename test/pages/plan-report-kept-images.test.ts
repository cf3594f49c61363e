/**
 * The proof-of-service page printed an hour after its task, as issue 45 asks:
 * robot-plan through real Node-RED against the simulator, whose clock is then
 * put an hour on (the report's own link answers 403), and the page the node
 * answers opened and printed in headless Chromium: the coverage image is
 * drawn and in the PDF; a report whose image was refused says so in words.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import robotJob from "../../src/nodes/robot-job";
import robotPlan from "../../src/nodes/robot-plan";
import { startSimulator, type RunningSimulator } from "../../src/simulator";
import { launchChromium } from "../support/editor";
import { useJobFleet } from "../support/job-flow";
import { helper, waitFor } from "../support/node-red";
import { oneOccurrenceRun } from "../support/plan-report-run";

/** Image objects in a PDF: the drawn coverage image is one. */
const imagesInPdf = (pdf: Buffer) => pdf.toString("latin1").match(/\/Subtype\s*\/Image/g)?.length ?? 0;

describe("plan report page in Chromium: coverage images kept with the record", function () {
  this.timeout(120_000);
  const fleet = useJobFleet();
  let simulator: RunningSimulator | undefined;
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => browser?.close());
  afterEach(async () => {
    helper.settings({});
    await simulator?.close();
  });

  it("printed to PDF an hour after its task, shows the coverage image", async () => {
    let hoursAhead = 0;
    simulator = await startSimulator({
      quiet: true,
      rateLimit: false,
      timing: { taskDurationMs: 1500 },
      now: () => Date.now() + hoursAhead * 3600_000,
    });
    const { link, kept, page } = await oneOccurrenceRun(simulator.url, [fleet.http.serving(robotJob), robotPlan]);
    await waitFor(() => kept() !== undefined, 20_000, "the image fetched when the report was kept");
    hoursAhead = 1;
    assert.equal((await fetch(link)).status, 403, "the report's own link has expired");
    const tab = await browser.newPage();
    await tab.setContent(await page(), { waitUntil: "load" });
    const widths = await tab.locator("figure img").evaluateAll((images) => images.map((image) => (image as HTMLImageElement).naturalWidth));
    assert.equal(widths.length, 1);
    assert.ok(widths[0]! > 0, `the image drawn: ${widths[0]} px wide`);
    assert.equal(imagesInPdf(await tab.pdf({ format: "A4", printBackground: true })), 1, "the image in the PDF");
  });

  it("printed to PDF, a report whose image was refused says why, with no image box", async () => {
    simulator = await startSimulator({ quiet: true, rateLimit: false, timing: { taskDurationMs: 1500 }, downloadUrlLifetimeMs: 1 });
    const { kept, page } = await oneOccurrenceRun(simulator.url, [fleet.http.serving(robotJob), robotPlan]);
    await waitFor(() => kept() !== undefined, 20_000, "the refusal kept");
    const tab = await browser.newPage();
    await tab.setContent(await page(), { waitUntil: "load" });
    assert.equal(await tab.locator("figure img").count(), 0);
    assert.match((await tab.locator("figure .no-image").textContent())!, /^Coverage image no longer available: its link answered HTTP 403/);
    assert.equal(imagesInPdf(await tab.pdf({ format: "A4", printBackground: true })), 0);
  });
});
