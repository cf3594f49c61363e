/**
 * The fleet-dashboard example on Node-RED Dashboard 2, in headless Chromium
 * against the running demo: every simulated robot in the table, each marker on
 * the rendered map within 2 pixels of where its mapPosition puts it, a robot
 * sent somewhere moving on the map without a page reload, "to charger"
 * ending with the robot at its charger and a notification saying so, and an
 * incident the simulator pushes ringing its robot on the map and in the table.
 */
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { RobotClient } from "../../src/api/client";
import { root, startDemo, type RunningDemo } from "../support/demo-process";
import { launchChromium } from "../support/editor";

type Status = Record<string, unknown> & {
  displayName: string;
  localizationInfo: { map: { id: string }; mapPosition?: { x: number; y: number } };
  navigationPoints: { naviPoints: Array<{ naviPointName: string; navPointGridX: number; navPointGridY: number }> };
  battery: { charging: boolean };
};

const screenshot = (name: string) => path.join(process.env.UPDATE_SCREENSHOTS ? path.join(root, "docs/images") : os.tmpdir(), name);

/** Where each robot marker's body is drawn on the page, and where its position says it should be. */
function markersOnPage(
  page: Page,
): Promise<Array<{ serial: string; drawn: { x: number; y: number }; svg: { left: number; top: number; scale: number; height: number } }>> {
  return page.evaluate(() => {
    const svg = document.querySelector<SVGSVGElement>(".robot-fleet-live-map svg")!;
    const box = svg.getBoundingClientRect();
    const [, , width] = svg.getAttribute("viewBox")!.split(" ").map(Number);
    // The floor plan's own height: the legend below it makes the viewBox taller.
    const height = Number(svg.getAttribute("data-map-height"));
    return [...svg.querySelectorAll<SVGGElement>("[data-serial-number]")].map((marker) => {
      // A robot set beside another on one spot marks its true spot with a dot (robot-spot); others' body is on it.
      const body = (marker.querySelector(".robot-spot") ?? marker.querySelector(".robot-body"))!.getBoundingClientRect();
      return {
        serial: marker.getAttribute("data-serial-number")!,
        drawn: { x: body.left + body.width / 2, y: body.top + body.height / 2 },
        svg: { left: box.left, top: box.top, scale: box.width / width!, height: height },
      };
    });
  });
}

describe("demo: the fleet dashboard on Node-RED Dashboard 2 (headless Chromium)", function () {
  this.timeout(120_000);
  let demo: RunningDemo;
  let browser: Browser;
  let page: Page;
  let robots: RobotClient;

  const status = (serialNumber: string) => robots.getRobotStatus({ serialNumber }) as Promise<Status>;

  before(async () => {
    demo = await startDemo();
    robots = new RobotClient({ baseUrl: demo.urls.simulator, auth: { token: "demo-token" } });
    assert.match(demo.output(), /Fleet dashboard\s+http:\/\/\S+\/dashboard/);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.setDefaultTimeout(30_000);
    await page.goto(`${demo.urls.editor}/dashboard/fleet`);
    await page.waitForSelector(".robot-fleet-live-map svg [data-serial-number]");
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
  });

  after(async () => {
    robots?.close();
    await browser?.close();
    if (demo) assert.equal(await demo.stop(), 0);
  });

  it("lists every simulated robot in the table", async () => {
    const listed = (await robots.listAllRobots()).map((robot) => String(robot.displayName)).sort();
    await page.waitForFunction((count) => document.querySelectorAll("tbody tr").length === count, listed.length);
    const names = await page.$$eval("tbody tr td:first-child", (cells) => cells.map((cell) => (cell.textContent ?? "").trim()).sort());
    assert.deepEqual(names, listed);
    await page.screenshot({ path: screenshot("fleet-dashboard.png"), fullPage: true });
  });

  it("draws each robot of the floor within 2 pixels of where its mapPosition puts it", async () => {
    const markers = await markersOnPage(page);
    assert.ok(markers.length >= 2, `${markers.length} markers`);
    for (const marker of markers) {
      const position = (await status(marker.serial)).localizationInfo.mapPosition!;
      const expected = {
        x: marker.svg.left + position.x * marker.svg.scale,
        y: marker.svg.top + (marker.svg.height - position.y) * marker.svg.scale,
      };
      assert.ok(
        Math.abs(marker.drawn.x - expected.x) <= 2 && Math.abs(marker.drawn.y - expected.y) <= 2,
        `${marker.serial}: drawn at ${JSON.stringify(marker.drawn)}, position at ${JSON.stringify(expected)}`,
      );
    }
  });

  it("moves a robot sent somewhere on the map between two updates, without reloading the page", async () => {
    const serial = "GS-S-000102";
    const before = (await markersOnPage(page)).find((marker) => marker.serial === serial)!;
    await robots.submitCommand({
      serialNumber: serial,
      remoteNavigationCommandType: "CROSS_NAVIGATE",
      commandParameter: { startNavigationParameter: { map: "Floor 1", position: "Lobby entrance" } },
    });
    await page.waitForFunction(
      ({ serial, x, y }) => {
        const body = document.querySelector(`.robot-fleet-live-map [data-serial-number="${serial}"] .robot-body`)?.getBoundingClientRect();
        return body !== undefined && Math.hypot(body.left + body.width / 2 - x, body.top + body.height / 2 - y) > 10;
      },
      { serial, ...before.drawn },
      { timeout: 40_000 },
    );
    assert.equal(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument), true, "updated in place");
  });

  it("rings a robot with an alarm raised (pushed by the simulator) on the map, names it in the table, notifies, and clears it on recovery", async () => {
    const serial = "GS-S-000102";
    const { displayName } = await status(serial);
    const response = await fetch(`${demo.urls.simulator}/_sim/robots/${serial}/incidents`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ incidentLevel: "H6", incidentName: "Brush motor fault" }),
    });
    assert.equal(response.status, 201);
    const { incidentId } = (await response.json()) as { incidentId: string };
    const ring = `.robot-fleet-live-map [data-serial-number="${serial}"].robot-alarm .alarm-ring`;
    await page.waitForSelector(ring, { timeout: 20_000 });
    await page
      .locator("tbody tr", { hasText: displayName })
      .locator("td", { hasText: "H6 Brush motor fault" })
      .waitFor({ timeout: 20_000 });
    await page
      .locator(".v-snackbar", { hasText: `${displayName}: H6 Brush motor fault` })
      .first()
      .waitFor({ timeout: 20_000 });
    assert.equal(await page.locator(".robot-fleet-live-map .alarm-ring").count(), 1, "only that robot is ringed");
    await page.screenshot({ path: screenshot("fleet-dashboard-alarm.png"), fullPage: true });

    const recovered = await fetch(`${demo.urls.simulator}/_sim/robots/${serial}/incidents`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ incidentLevel: "H6", incidentId, raised: false }),
    });
    assert.equal(recovered.status, 200);
    await page.waitForSelector(ring, { state: "detached", timeout: 20_000 });
    await page
      .locator(".v-snackbar", { hasText: `${displayName}: no alarm left` })
      .first()
      .waitFor({ timeout: 20_000 });
    assert.equal(await page.locator("tbody tr", { hasText: displayName }).locator("td", { hasText: "Brush motor fault" }).count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument), true, "updated in place");
  });

  it("sends a robot to its charger from the table: confirmed at the charger, with a notification", async () => {
    const serial = "GS-S-000201";
    const { displayName } = await status(serial);
    await page.locator("tbody tr", { hasText: displayName }).locator("button", { hasText: "to charger" }).click();
    const notification = page.locator(".v-snackbar", { hasText: `${displayName}: is at its charger` });
    await notification.first().waitFor({ timeout: 60_000 });
    const now = await status(serial);
    const charger = now.navigationPoints.naviPoints.find((point) => point.naviPointName === "charging")!;
    const position = now.localizationInfo.mapPosition!;
    assert.ok(
      now.battery.charging || (position.x === charger.navPointGridX && position.y === charger.navPointGridY),
      JSON.stringify({ position, charger }),
    );
    await page.screenshot({ path: path.join(os.tmpdir(), "fleet-dashboard-charger.png"), fullPage: true });
  });
});
