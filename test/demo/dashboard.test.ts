/**
 * The fleet-dashboard example, the operator console on Node-RED Dashboard 2,
 * in headless Chromium against the running demo (`npm start`): what an
 * operator sees and does in a shift. Every robot in the table and on the
 * map at 800 px wide with no sideways scroll; two robots at one point both
 * visible and clickable; no two labels overlapping on any floor; a click on a
 * navigation point sending the selected robot there; a button answering
 * *sent* at once and then the outcome, or the reason a robot cannot; an
 * alarm listed until its robot recovers, acknowledged, and kept across a
 * redeploy; and, in a demo run in zh-CN, no English word of the package's own.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { RobotClient } from "../../src/api/client";
import { root, startDemo, type RunningDemo } from "../support/demo-process";
import { launchChromium } from "../support/editor";

/** A status as the cloud sends it: no name (the robot list has it) and no navigation object (mapPosition shows one). */
type Status = Record<string, unknown> & {
  localizationInfo: { map: { id: string; name: string }; mapPosition?: { x: number; y: number } };
  navigationPoints?: { naviPoints: Array<{ naviPointName: string; navPointGridX: number; navPointGridY: number }> };
  battery: { charging: boolean };
  taskState?: string;
};

/** Whether the status puts the robot within a few cells of the named navigation point (the package's arrival radius is 10). */
function standsAt(status: Status, point: string): boolean {
  const position = status.localizationInfo.mapPosition;
  const target = status.navigationPoints?.naviPoints.find((candidate) => candidate.naviPointName === point);
  return (
    position !== undefined && target !== undefined && Math.hypot(position.x - target.navPointGridX, position.y - target.navPointGridY) <= 10
  );
}

/** Where a screenshot goes: the README's into docs/images when UPDATE_SCREENSHOTS is set, the others to look at into the temp folder. */
const screenshot = (name: string) => path.join(process.env.UPDATE_SCREENSHOTS ? path.join(root, "docs/images") : os.tmpdir(), name);
const lookAt = (name: string) => path.join(os.tmpdir(), name);

const CONSOLE = ".robot-console";
const MAP = `${CONSOLE} .rc-map-inner svg`;
const row = (serial: string) => `${CONSOLE} .rc-robots tr[data-serial-number="${serial}"]`;

/** The robots' markers on the drawn floor: where each one's body (or its true spot, when set beside another) is on the page. */
function markersOnPage(page: Page): Promise<Array<{ serial: string; body: { x: number; y: number }; spot: { x: number; y: number } }>> {
  return page.evaluate((selector) => {
    const svg = document.querySelector<SVGSVGElement>(selector)!;
    const centre = (element: Element) => {
      const box = element.getBoundingClientRect();
      return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
    };
    return [...svg.querySelectorAll<SVGGElement>("[data-serial-number]")].map((marker) => ({
      serial: marker.getAttribute("data-serial-number")!,
      body: centre(marker.querySelector(".robot-body")!),
      spot: centre(marker.querySelector(".robot-spot") ?? marker.querySelector(".robot-body")!),
    }));
  }, MAP);
}

/** The newest notice about a robot, as the console shows it. */
function noticeOf(page: Page, name: string): Promise<string> {
  return page.evaluate(
    ({ console, name }) =>
      [...document.querySelectorAll(`${console} .rc-notice`)]
        .map((notice) => notice.textContent ?? "")
        .find((text) => text.includes(name)) ?? "",
    { console: CONSOLE, name },
  );
}

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** A full deploy of the flows as they are: every node closed and made again, as the editor's Deploy does. */
async function redeploy(editor: string): Promise<void> {
  const current = (await (await fetch(`${editor}/flows`, { headers: { "Node-RED-API-Version": "v2" } })).json()) as {
    rev: string;
    flows: unknown[];
  };
  const answer = await fetch(`${editor}/flows`, {
    method: "POST",
    headers: { "content-type": "application/json", "Node-RED-API-Version": "v2", "Node-RED-Deployment-Type": "full" },
    body: JSON.stringify({ flows: current.flows, rev: current.rev }),
  });
  assert.equal(answer.status, 200, await answer.text());
}

describe("the fleet-dashboard example decides nothing itself", function () {
  it("has no function node: every decision is the package's nodes', the template only shows and forwards", () => {
    const nodes = JSON.parse(fs.readFileSync(path.join(root, "examples/fleet-dashboard.json"), "utf8")) as Array<{ type: string }>;
    assert.deepEqual(
      nodes.filter((node) => node.type === "function"),
      [],
    );
    assert.equal(nodes.filter((node) => node.type === "ui-template").length, 2, "the console and the heading of today's charts");
  });
});

describe("demo: the operator console on Node-RED Dashboard 2 (headless Chromium)", function () {
  this.timeout(180_000);
  let demo: RunningDemo;
  let browser: Browser;
  let page: Page;
  let robots: RobotClient;

  const status = (serialNumber: string) => robots.getRobotStatus({ serialNumber }) as Promise<Status>;
  /** The robot's name as the robot list gives it. */
  const nameOf = async (serialNumber: string) =>
    (await robots.listAllRobots()).find((robot) => robot.serialNumber === serialNumber)!.displayName!;
  /** Changes a robot in the simulator by hand (PATCH /_sim/robots/<serial>). */
  const changeRobot = async (serialNumber: string, changes: Record<string, unknown>) => {
    const answer = await fetch(`${demo.urls.simulator}/_sim/robots/${serialNumber}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(changes),
    });
    assert.equal(answer.status, 200, await answer.text());
  };

  before(async () => {
    demo = await startDemo();
    robots = new RobotClient({ baseUrl: demo.urls.simulator, auth: { token: "demo-token" } });
    assert.match(demo.output(), /Fleet dashboard\s+http:\/\/\S+\/dashboard/);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 800, height: 1000 } });
    page.setDefaultTimeout(30_000);
    await page.goto(`${demo.urls.editor}/dashboard/fleet`);
    await page.waitForSelector(`${MAP} [data-serial-number]`);
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
  });

  after(async () => {
    robots?.close();
    await browser?.close();
    if (demo) assert.equal(await demo.stop(), 0);
  });

  it("lists every robot with its state in words and its battery as a number, and fits 800 px with no sideways scroll", async () => {
    const listed = await robots.listAllRobots();
    await page.waitForFunction(({ selector, count }) => document.querySelectorAll(selector).length === count, {
      selector: `${CONSOLE} .rc-robots tbody tr`,
      count: listed.length,
    });
    for (const robot of listed) {
      const cells = await page.$$eval(`${row(robot.serialNumber)} td`, (tds) => tds.map((td) => (td.textContent ?? "").trim()));
      assert.ok(cells[0]!.startsWith(String(robot.displayName)), cells[0]);
      assert.match(cells[1]!, /^(idle|cleaning|paused|charging|to charger|to .+|offline|emergency stop)/, `state in words: ${cells[1]}`);
      assert.match(cells[2]!, /^\d+ %$/, `battery as a number: ${cells[2]}`);
    }
    const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: window.innerWidth }));
    assert.ok(widths.scroll <= widths.view, `page ${widths.scroll} px wide in a ${widths.view} px window`);
    await page.screenshot({ path: screenshot("fleet-console-800.png"), fullPage: true });
  });

  it("draws each robot of the floor within 2 pixels of where its mapPosition puts it", async () => {
    const geometry = await page.evaluate((selector) => {
      const svg = document.querySelector<SVGSVGElement>(selector)!;
      const box = svg.getBoundingClientRect();
      return {
        left: box.left,
        top: box.top,
        scale: box.width / Number(svg.getAttribute("viewBox")!.split(" ")[2]),
        height: Number(svg.getAttribute("data-map-height")),
      };
    }, MAP);
    const markers = await markersOnPage(page);
    assert.ok(markers.length >= 2, `${markers.length} markers`);
    for (const marker of markers) {
      const position = (await status(marker.serial)).localizationInfo.mapPosition!;
      const expected = {
        x: geometry.left + position.x * geometry.scale,
        y: geometry.top + (geometry.height - position.y) * geometry.scale,
      };
      assert.ok(
        Math.abs(marker.spot.x - expected.x) <= 2 && Math.abs(marker.spot.y - expected.y) <= 2,
        `${marker.serial}: drawn at ${JSON.stringify(marker.spot)}, position at ${JSON.stringify(expected)}`,
      );
    }
  });

  it("patches the floor's drawing in place: after each update it is the picture it was sent, node for node, the image and still robots kept", async () => {
    const moving = "GS-S-000101";
    const from = (await status(moving)).localizationInfo.mapPosition!;
    const inner = `${CONSOLE} .rc-map-inner`;
    const marker = `${MAP} [data-serial-number="${moving}"]`;
    const checks: Array<{ same: boolean; imageKept: boolean; movedReplaced: boolean; keptRobots: number; robots: number }> = [];
    for (const step of [1, 2, 3]) {
      // Every robot node and the image, tagged, so the next drawing tells which were kept.
      await page.evaluate((selector) => {
        for (const element of document.querySelectorAll(`${selector} [data-serial-number], ${selector} image`))
          (element as Element & { tagged?: boolean }).tagged = true;
      }, inner);
      const transform = await page.getAttribute(marker, "transform");
      await changeRobot(moving, { mapPosition: { x: from.x + 25 * step, y: from.y, angle: 0 } });
      await page.waitForFunction(
        ({ marker, transform }) => document.querySelector(marker)?.getAttribute("transform") !== transform,
        { marker, transform },
        { timeout: 20_000 },
      );
      checks.push(
        await page.evaluate(
          ({ selector, moving }) => {
            const element = document.querySelector<HTMLElement & { drawnMarkup?: string }>(selector)!;
            const drawn = element.querySelector("svg")!.cloneNode(true) as Element;
            for (const marked of drawn.querySelectorAll(".rc-marked")) marked.classList.remove("rc-marked");
            const sent = document.createElement("template");
            sent.innerHTML = element.drawnMarkup!;
            const tagged = (found: (Element & { tagged?: boolean }) | null) => found?.tagged === true;
            const robots = [...element.querySelectorAll("[data-serial-number]")];
            return {
              same: drawn.isEqualNode(sent.content.firstElementChild),
              imageKept: tagged(element.querySelector("image")),
              movedReplaced: !tagged(element.querySelector(`[data-serial-number="${moving}"]`)),
              keptRobots: robots.filter(tagged).length,
              robots: robots.length,
            };
          },
          { selector: inner, moving },
        ),
      );
    }
    await changeRobot(moving, { mapPosition: { x: from.x, y: from.y, angle: 0 } });
    // A patch that missed a change, or kept a robot that moved, shows here; so would one that drew everything anew.
    assert.ok(
      checks.every((check) => check.same && check.imageKept && check.movedReplaced),
      JSON.stringify(checks),
    );
    console.log(
      `      robots kept from one drawing to the next: ${checks.map((check) => `${check.keptRobots} of ${check.robots}`).join(", ")}`,
    );
  });

  it("shows two robots at one point both, each selected by a click on it (its row highlighted)", async () => {
    const pair = ["GS-S-000101", "GS-S-000102"];
    const { localizationInfo } = await status(pair[0]!);
    for (const serialNumber of pair) {
      await robots.submitCommand({
        serialNumber,
        remoteNavigationCommandType: "CROSS_NAVIGATE",
        commandParameter: { startNavigationParameter: { map: localizationInfo.map.name, position: "charging" } },
      });
    }
    await page.waitForFunction(
      ({ selector, pair }) =>
        pair.every(
          (serial) => document.querySelector(`${selector} [data-serial-number="${serial}"]`)?.getAttribute("data-state") === "charging",
        ),
      { selector: MAP, pair },
      { timeout: 120_000 },
    );
    const markers = (await markersOnPage(page)).filter((marker) => pair.includes(marker.serial));
    assert.equal(markers.length, 2);
    assert.ok(
      Math.hypot(markers[0]!.spot.x - markers[1]!.spot.x, markers[0]!.spot.y - markers[1]!.spot.y) < 2,
      "both stand on the charger",
    );
    assert.ok(Math.hypot(markers[0]!.body.x - markers[1]!.body.x, markers[0]!.body.y - markers[1]!.body.y) > 10, "drawn apart");
    for (const marker of markers) {
      const hit = await page.evaluate(
        ({ x, y }) => document.elementFromPoint(x, y)?.closest("[data-serial-number]")?.getAttribute("data-serial-number"),
        marker.body,
      );
      assert.equal(hit, marker.serial, `${marker.serial} is on top where it is drawn`);
      await page.mouse.click(marker.body.x, marker.body.y);
      await page.waitForSelector(`${row(marker.serial)}.rc-selected`);
      assert.equal(await page.locator(`${CONSOLE} .rc-robots tr.rc-selected`).count(), 1);
      // Selected again: unselected, so the next test starts with none.
      await page.mouse.click(marker.body.x, marker.body.y);
      await page.waitForSelector(`${row(marker.serial)}.rc-selected`, { state: "detached" });
    }
    await page.screenshot({ path: lookAt("fleet-console-two-at-charger.png"), fullPage: true });
  });

  it("places no two labels over each other on any floor (boxes of the rendered page)", async () => {
    const floors = await page.$$eval(`${CONSOLE} .rc-floor`, (buttons) => buttons.map((button) => button.getAttribute("data-map-id")!));
    assert.ok(floors.length >= 2, `${floors.length} floors`);
    for (const mapId of floors) {
      await page.click(`${CONSOLE} .rc-floor[data-map-id="${mapId}"]`);
      await page.waitForSelector(`${MAP}[data-map-id="${mapId}"]`);
      const overlaps = await page.evaluate((selector) => {
        const boxes = [...document.querySelectorAll(`${selector} .robots text, ${selector} .navigation-points text`)].map((text) => ({
          text: text.textContent,
          box: text.getBoundingClientRect(),
        }));
        const found: string[] = [];
        boxes.forEach((a, i) =>
          boxes.slice(i + 1).forEach((b) => {
            const width = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
            const height = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
            if (width > 0.5 && height > 0.5) found.push(`${a.text} / ${b.text}`);
          }),
        );
        return { labels: boxes.length, found };
      }, MAP);
      // A floor no robot is on (Floor 2) has no robot's name and no navigation point: its areas only.
      const robotsOnFloor = Number(await page.textContent(`${CONSOLE} .rc-floor[data-map-id="${mapId}"] .rc-count`));
      if (robotsOnFloor === 0) assert.ok((await page.locator(`${MAP} .area`).count()) >= 1, `${mapId}: its areas`);
      else assert.ok(overlaps.labels >= 2, `${mapId}: ${overlaps.labels} labels`);
      assert.deepEqual(overlaps.found, [], `${mapId}: labels over each other`);
    }
  });

  it("sends the selected robot to a navigation point clicked on the map", async () => {
    // On a floor with points to choose from (the warehouse's only other point is where its robot stands).
    const serial = "GS-S-000101";
    const robot = await status(serial);
    await page.click(`${CONSOLE} .rc-floor[data-map-id="${robot.localizationInfo.map.id}"]`);
    await page.click(`${row(serial)} td.rc-name`);
    await page.waitForSelector(`${row(serial)}.rc-selected`);
    // The point farthest from the robot: nothing of the robot's own covers it.
    const here = robot.localizationInfo.mapPosition!;
    const point = robot
      .navigationPoints!.naviPoints.filter((candidate) => candidate.naviPointName !== "charging")
      .sort(
        (a, b) =>
          Math.hypot(b.navPointGridX - here.x, b.navPointGridY - here.y) - Math.hypot(a.navPointGridX - here.x, a.navPointGridY - here.y),
      )[0]!.naviPointName;
    // Its name: a robot standing on the point covers its dot, never its name.
    await page.click(`${MAP} .navigation-point[data-name="${point}"] text`);
    const deadline = Date.now() + 30_000;
    let now = await status(serial);
    while (!standsAt(now, point) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      now = await status(serial);
    }
    assert.ok(standsAt(now, point), JSON.stringify(now.localizationInfo));
    await page.waitForFunction(
      ({ selector, point }) => (document.querySelector(selector)?.textContent ?? "").includes(point),
      { selector: `${row(serial)} td:nth-child(2)`, point },
      { timeout: 20_000 },
    );
    await page.screenshot({ path: lookAt("fleet-console-goto.png"), fullPage: true });
  });

  it("with no robot selected, sends the nearest free robot to the point clicked (a job), and names it", async () => {
    await page.click(`${CONSOLE} .rc-robots tr.rc-selected td.rc-name`);
    await page.waitForSelector(`${CONSOLE} .rc-robots tr.rc-selected`, { state: "detached" });
    const serial = "GS-S-000201";
    const { localizationInfo } = await status(serial);
    const displayName = await nameOf(serial);
    await page.click(`${CONSOLE} .rc-floor[data-map-id="${localizationInfo.map.id}"]`);
    await page.waitForSelector(`${MAP}[data-map-id="${localizationInfo.map.id}"]`);
    await page.click(`${MAP} .navigation-point[data-name="charging"] text`);
    await page.waitForFunction(
      ({ console, name }) => [...document.querySelectorAll(`${console} .rc-notice`)].some((notice) => notice.textContent?.startsWith(name)),
      { console: CONSOLE, name: displayName },
      { timeout: 30_000 },
    );
    const deadline = Date.now() + 30_000;
    let now = await status(serial);
    while (!standsAt(now, "charging") && !now.battery.charging && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      now = await status(serial);
    }
    assert.ok(standsAt(now, "charging") || now.battery.charging, JSON.stringify(now.localizationInfo));
  });

  it("zooms in and back to the whole floor", async () => {
    const scale = () => page.$eval(`${CONSOLE} .rc-map-inner`, (inner) => (inner as HTMLElement).style.transform);
    assert.match(await scale(), /scale\(1\)/);
    await page.click(`${CONSOLE} .rc-zoom button:nth-child(1)`);
    assert.match(await scale(), /scale\(1\.25\)/);
    await page.click(`${CONSOLE} .rc-zoom button:nth-child(3)`);
    assert.match(await scale(), /translate\(0px, 0px\) scale\(1\)/);
  });

  it("offers only what a robot's state allows; a button answers at once, then the outcome, or the reason the robot cannot", async () => {
    const serial = "GS-S-000102";
    const { localizationInfo } = await status(serial);
    const displayName = await nameOf(serial);
    await robots.submitCommand({
      serialNumber: serial,
      remoteTaskCommandType: "START_TASK",
      commandParameter: {
        startTaskParameter: {
          cleaningMode: "__middle_cleaning",
          task: { name: `All of ${localizationInfo.map.name}`, map: localizationInfo.map.name, loop: false, loopCount: 1 },
        },
      },
    });
    await page.waitForSelector(`${row(serial)} [data-action="pause"]`, { timeout: 60_000 });
    assert.equal(
      await page.locator(`${row(serial)} [data-action="toCharger"]`).count(),
      1,
      "'to charger' while it cleans: its task is stopped first",
    );
    const clicked = Date.now();
    await page.click(`${row(serial)} [data-action="pause"]`);
    await page.waitForFunction(
      ({ console, name }) => [...document.querySelectorAll(`${console} .rc-notice`)].some((notice) => notice.textContent?.includes(name)),
      {
        console: CONSOLE,
        name: displayName,
      },
    );
    console.log(`      first answer to the click after ${Date.now() - clicked} ms: ${await noticeOf(page, displayName)}`);
    await page.waitForFunction(
      ({ console, name }) =>
        [...document.querySelectorAll(`${console} .rc-notice.rc-done`)].some((notice) => notice.textContent?.includes(name)),
      { console: CONSOLE, name: displayName },
      { timeout: 60_000 },
    );
    assert.equal((await status(serial)).taskState, "PAUSED");

    // A robot whose emergency stop is pressed just before the click, as the console still shows it well: nothing is sent, and it says why.
    const idle = "GS-S-000201";
    const idleName = await nameOf(idle);
    // Whatever it offers now: a start picker at least, for a robot that is on its floor and well.
    await page.waitForSelector(`${row(idle)} [data-action="startTask"]`, { timeout: 60_000 });
    await changeRobot(idle, { emergencyStop: true });
    // A picker's choices are built when it is focused (or pointed at), as an operator reaches for it.
    await page.focus(`${row(idle)} select[data-action="startTask"]`);
    const task = await page.$eval(
      `${row(idle)} select[data-action="startTask"] option:nth-child(2)`,
      (option) => (option as HTMLOptionElement).value,
    );
    await page.selectOption(`${row(idle)} select[data-action="startTask"]`, task);
    await page.waitForFunction(
      ({ console, name }) =>
        [...document.querySelectorAll(`${console} .rc-notice.rc-failed`)].some(
          (notice) => notice.textContent?.includes(name) && notice.textContent.includes("emergency stop"),
        ),
      { console: CONSOLE, name: idleName },
      { timeout: 20_000 },
    );
    const reason = await noticeOf(page, idleName);
    assert.doesNotMatch(reason, /submitCommand|RobotApiError|NOT_ALLOWED/, reason);
    await page.screenshot({ path: screenshot("fleet-console-buttons.png"), fullPage: true });
    await changeRobot(idle, { emergencyStop: false });
  });

  it("keeps an alarm listed until its robot recovers, acknowledged by name, across a redeploy", async () => {
    const serial = "GS-S-000101";
    const displayName = await nameOf(serial);
    const raised = await post(`${demo.urls.simulator}/_sim/robots/${serial}/incidents`, {
      incidentLevel: "H6",
      incidentName: "Brush motor fault",
    });
    assert.equal(raised.status, 201);
    const { incidentId } = (await raised.json()) as { incidentId: string };
    const alarm = `${CONSOLE} .rc-alarm[data-incident-id="${incidentId}"]`;
    await page.waitForSelector(alarm, { timeout: 20_000 });
    assert.match((await page.textContent(alarm)) ?? "", new RegExp(`${displayName}.*H6.*Brush motor fault`));
    // Long after any notice would be gone, it is still listed.
    await new Promise((resolve) => setTimeout(resolve, 8000));
    assert.equal(await page.locator(alarm).count(), 1);

    await page.fill(`${CONSOLE} .rc-operator input`, "Ana");
    await page.click(`${alarm} .rc-ack`);
    await page.waitForSelector(`${alarm} .rc-acked`);
    assert.match((await page.textContent(`${alarm} .rc-acked`)) ?? "", /Ana/);
    await page.screenshot({ path: screenshot("fleet-console-alarm.png"), fullPage: true });

    // Reports of tasks that ended today, filed before the redeploy: the reports node's first sweep after it finds them.
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000).toISOString();
    for (const [serialNumber, taskEndStatus] of [
      ["GS-S-000101", 0],
      ["GS-S-000102", 1],
      ["GS-S-000201", 0],
    ] as const) {
      const filed = await post(`${demo.urls.simulator}/_sim/robots/${serialNumber}/taskReports`, {
        startTime: twoHoursAgo,
        durationSeconds: 1800,
        taskEndStatus,
      });
      assert.equal(filed.status, 200, await filed.text());
    }
    await redeploy(demo.urls.editor);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    await page.waitForSelector(`${alarm} .rc-acked`, { timeout: 30_000 });
    assert.match((await page.textContent(`${alarm} .rc-acked`)) ?? "", /Ana/, "the acknowledgement outlives the redeploy");

    const recovered = await post(`${demo.urls.simulator}/_sim/robots/${serial}/incidents`, { incidentId, raised: false });
    assert.equal(recovered.status, 200);
    await page.waitForSelector(alarm, { state: "detached", timeout: 20_000 });
    // The shift's log keeps it, with its recovery.
    await page.click(`${CONSOLE} .rc-tabs button:nth-child(2)`);
    await page.waitForFunction(
      (name) =>
        [...document.querySelectorAll(".robot-console .rc-alarms li")].some(
          (item) => item.textContent?.includes(name) && item.textContent.includes("Brush motor fault"),
        ),
      displayName,
    );
    await page.click(`${CONSOLE} .rc-tabs button:nth-child(1)`);
    // Today's work per floor, from those reports (the charts draw on a canvas: looked at, not read).
    await page.screenshot({ path: screenshot("fleet-console-today.png"), fullPage: true });
    assert.equal(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument), true, "updated in place");
  });
});

describe("demo: the operator console in Chinese (npm start -- --lang zh-CN)", function () {
  this.timeout(120_000);
  let demo: RunningDemo;
  let browser: Browser;

  before(async () => {
    demo = await startDemo({}, ["--lang", "zh-CN"]);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    if (demo) assert.equal(await demo.stop(), 0);
  });

  it("shows no English word of the package's own on the console", async () => {
    const page = await browser.newPage({ locale: "zh-CN", viewport: { width: 1000, height: 1000 } });
    await page.goto(`${demo.urls.editor}/dashboard/fleet`);
    await page.waitForSelector(`${MAP} [data-serial-number]`);
    await page.waitForFunction((selector) => document.querySelectorAll(selector).length >= 3, `${CONSOLE} .rc-robots tbody tr`);
    const english = JSON.parse(fs.readFileSync(path.join(root, "nodes/locales/en-US/robot-maps.json"), "utf8")) as {
      "robot-maps": {
        view: { words: Record<string, string>; actions: Record<string, string> };
        fleetMap: { states: Record<string, string> };
      };
    };
    const { view, fleetMap } = english["robot-maps"];
    const ownWords = [...Object.values(view.words), ...Object.values(view.actions), ...Object.values(fleetMap.states)]
      .map((text) => text.replace(/\{\w+\}/g, "").trim())
      .filter((text) => /[A-Za-z]{3,}/.test(text));
    // The page's text without the cloud's own names (robots, maps, tasks, points: "Floor 1", a point named
    // "charging"), as the fleet view gives them, and without any style sheet's or tooltip's text.
    const fleet = (await (await fetch(`${demo.urls.editor}/fleet/view`)).json()) as {
      floors: Array<{ mapName: string }>;
      robots: Array<{ name: string; mapName?: string; tasks: string[]; points: string[] }>;
    };
    const cloudNames = [
      ...fleet.floors.map((floor) => floor.mapName),
      ...fleet.robots.flatMap((robot) => [robot.name, robot.mapName ?? "", ...robot.tasks, ...robot.points]),
    ]
      .filter((name) => name !== "")
      .sort((a, b) => b.length - a.length);
    const text = await page.evaluate(() => {
      const copy = document.querySelector(".robot-console")!.cloneNode(true) as HTMLElement;
      for (const notText of copy.querySelectorAll("style, title")) notText.remove();
      // Each element's text apart, so that names do not run into the words beside them.
      return [...copy.querySelectorAll("*")]
        .flatMap((element) =>
          [...element.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE).map((node) => node.textContent ?? ""),
        )
        .concat(document.querySelector(".robot-console-today")?.textContent ?? "")
        .join(" | ");
    });
    const shown = cloudNames.reduce((rest, name) => rest.split(name).join(" "), text);
    const found = ownWords.filter((text) => new RegExp(`\\b${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`).test(shown));
    assert.deepEqual(found, [], `English words of the package on the zh-CN console:\n${shown}`);
    await page.screenshot({ path: screenshot("fleet-console-zh.png"), fullPage: true });
  });
});
