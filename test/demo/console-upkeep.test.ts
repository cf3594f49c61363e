/**
 * The operator console's upkeep view at 200 robots, in headless Chromium
 * against the running demo (`SIMULATOR_ROBOTS=200 npm start`), in English
 * and in Chinese: the Upkeep tab beside the robots lists, as the robots'
 * statuses say at the time, the tanks that need a person (clean water under
 * 15 %, recovery over 85 %), the parts at their 10 % threshold, and the
 * batteries counted normal, each limit set at it and one either side through
 * the simulator's wear; every fixed word in Node-RED's language. The
 * statuses are read from the demo's cloud beside the console, and the two
 * compared until they agree (the robots clean while the page is open).
 * Screenshots: docs/images/console-upkeep.png and -zh.png with
 * UPDATE_SCREENSHOTS, the temp folder (shots-console-upkeep) always.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { RobotClient } from "../../src/api/client";
import { upkeepFactsOf } from "../../src/api/upkeep/facts";
import { DEMO_CLIENT } from "../../src/simulator";
import { startDemo, type RunningDemo } from "../support/demo-process";
import { launchChromium, packageRoot } from "../support/editor";

const SHOTS = path.join(os.tmpdir(), "shots-console-upkeep");
const screenshots = (name: string) => [
  path.join(SHOTS, name),
  ...(process.env.UPDATE_SCREENSHOTS ? [path.join(packageRoot, "docs/images", name)] : []),
];
const CONSOLE = ".robot-console";
const UPKEEP = `${CONSOLE} .rc-upkeep`;

interface Shown {
  tanks: string[];
  overdueParts: string[];
  batteries: string;
}

/** What the cloud's statuses say needs a person now, by the limits, read independently of the package's reading. */
async function fromStatuses(
  client: RobotClient,
  serials: readonly string[],
): Promise<Omit<Shown, "batteries"> & { known: number; normal: number }> {
  const statuses = (await client.batchGetStatuses(serials, { line: "v1" })) as Record<string, unknown>[];
  const tanks: string[] = [];
  const overdueParts: string[] = [];
  let known = 0;
  let normal = 0;
  for (const status of statuses) {
    const serial = String(status.serialNumber);
    const device = (status.device ?? {}) as Record<string, { level?: number; lifeSpan?: number; usedLife?: number }>;
    if ((device.cleanWaterTank?.level ?? 100) < 15) tanks.push(`${serial} cleanWater`);
    if ((device.recoveryWaterTank?.level ?? 0) > 85) tanks.push(`${serial} recoveryWater`);
    for (const [part, counters] of Object.entries(device))
      if (counters.lifeSpan && counters.usedLife !== undefined && 1 - counters.usedLife / counters.lifeSpan <= 0.1)
        overdueParts.push(`${serial} ${part}`);
    const battery = upkeepFactsOf(status)?.battery;
    if (battery?.health === undefined) continue;
    known++;
    if (battery.health === "HEALTHY" && (battery.hottestCell ?? 0) <= 55) normal++;
  }
  return { tanks: tanks.sort(), overdueParts: overdueParts.sort(), known, normal };
}

function shownOf(page: Page): Promise<Shown> {
  return page.$eval(UPKEEP, (section) => ({
    tanks: [...section.querySelectorAll(".rc-upkeep-tanks tbody tr")]
      .map((row) => `${row.getAttribute("data-serial-number")} ${row.getAttribute("data-tank")}`)
      .sort(),
    overdueParts: [...section.querySelectorAll(".rc-upkeep-parts tbody tr.rc-overdue")]
      .map((row) => `${row.getAttribute("data-serial-number")} ${row.getAttribute("data-part")}`)
      .sort(),
    batteries: (section.querySelector(".rc-batteries-normal")?.textContent ?? "").trim(),
  }));
}

/** The console's upkeep tab agrees with the cloud's statuses (within a minute: both change as the robots clean). */
async function agreesWithStatuses(page: Page, client: RobotClient, batteries: (known: number, normal: number) => string): Promise<Shown> {
  const deadline = Date.now() + 60_000;
  const serials = (await client.listAllRobots()).map((robot) => robot.serialNumber);
  for (;;) {
    const expected = await fromStatuses(client, serials);
    const shown = await shownOf(page);
    const wanted: Shown = {
      tanks: expected.tanks,
      overdueParts: expected.overdueParts,
      batteries: batteries(expected.known, expected.normal),
    };
    if (JSON.stringify(shown) === JSON.stringify(wanted)) return shown;
    if (Date.now() > deadline) assert.deepEqual(shown, wanted);
    await page.waitForTimeout(1000);
  }
}

for (const { language, args, tab, words } of [
  {
    language: "en-US",
    args: [] as string[],
    tab: "Upkeep",
    words: {
      batteries: (known: number, normal: number) => `${normal} of ${known} batteries normal`,
      partsDue: /^Parts due by \w{3}, \w{3} \d+$/,
      tanks: "Tanks that need a person now",
    },
  },
  {
    language: "zh-CN",
    args: ["--lang", "zh-CN"],
    tab: "维护",
    words: {
      batteries: (known: number, normal: number) => `${known} 块电池中 ${normal} 块正常`,
      partsDue: /^\d+月\d+日周.? 前到期的部件$/,
      tanks: "现在需要处理的水箱",
    },
  },
]) {
  describe(`demo console at 200 robots: the upkeep view in ${language} (headless Chromium)`, function () {
    this.timeout(300_000);
    let demo: RunningDemo;
    let browser: Browser;
    let client: RobotClient;

    before(async () => {
      fs.mkdirSync(SHOTS, { recursive: true });
      demo = await startDemo({ SIMULATOR_ROBOTS: "200" }, args);
      // Its own token (the simulator limits each token to 20 calls/s): on the demo's, whose 200 robots' reads take the
      // whole rate, its reads were refused for the rate ten times running.
      client = new RobotClient({ baseUrl: demo.urls.simulator, auth: { ...DEMO_CLIENT } });
      browser = await launchChromium();
    });

    after(async () => {
      client?.close();
      await browser?.close();
      if (demo) assert.equal(await demo.stop(), 0);
    });

    it("lists the tanks that need a person and the parts at their threshold as the statuses say, and counts the normal batteries", async () => {
      // At each limit and one either side: filters at 9.5 %, 10 % and 11 % left; recovery water at 86 and 85 %, clean water at 14 and 15 %; a battery not HEALTHY.
      const wear: Record<string, unknown> = {
        "GS-S-100010": { parts: { filter: { usedLife: 181, lifeSpan: 200 } } },
        "GS-S-100011": { parts: { filter: { usedLife: 180, lifeSpan: 200 } } },
        "GS-S-100012": { parts: { filter: { usedLife: 178, lifeSpan: 200 } } },
        "GS-S-100013": { recoveryWater: 86, cleanWater: 14 },
        "GS-S-100014": { recoveryWater: 85, cleanWater: 15 },
        "GS-S-100015": { battery: { soh: "DEGRADED" } },
      };
      for (const [serial, changes] of Object.entries(wear)) {
        const answer = await fetch(`${demo.urls.simulator}/_sim/robots/${serial}/wear`, {
          method: "PATCH",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(changes),
        });
        assert.equal(answer.status, 200, await answer.text());
      }
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.setDefaultTimeout(60_000);
      await page.goto(`${demo.urls.editor}/dashboard/fleet`);
      await page.waitForFunction((selector) => document.querySelectorAll(selector).length === 200, `${CONSOLE} .rc-robots tbody tr`);
      const upkeepTab = page.locator(`${CONSOLE} .rc-upkeep-tab`);
      assert.match((await upkeepTab.textContent())!, new RegExp(`^${tab} \\(\\d+\\)$`));
      await upkeepTab.click();
      await page.waitForSelector(UPKEEP);
      assert.equal(await page.locator(`${CONSOLE} .rc-robots`).count(), 0, "the robots' table gives way to the upkeep view");
      const shown = await agreesWithStatuses(page, client, words.batteries);
      assert.ok(shown.tanks.length > 0, "the demo's fleet has a tank that needs a person (its seeded clean water)");
      for (const line of ["GS-S-100010 filter", "GS-S-100011 filter"])
        assert.ok(shown.overdueParts.includes(line), `${line} in ${shown.overdueParts.join(", ")}`);
      assert.ok(!shown.overdueParts.includes("GS-S-100012 filter"), "11 % left is not due yet");
      for (const line of ["GS-S-100013 recoveryWater", "GS-S-100013 cleanWater"])
        assert.ok(shown.tanks.includes(line), `${line} in ${shown.tanks.join(", ")}`);
      assert.ok(!shown.tanks.some((line) => line.startsWith("GS-S-100014 ")), "85 % and 15 % need no one yet");
      assert.equal(await page.locator(`${UPKEEP} .rc-upkeep-batteries tbody tr`).getAttribute("data-serial-number"), "GS-S-100015");
      const headings = await page.locator(`${UPKEEP} h3`).allTextContents();
      assert.match(headings[0]!, words.partsDue);
      assert.equal(headings[1], words.tanks);
      // The count on the tab is the lines listed (read together: a new picture may come every 2 s).
      const { tabText, lines } = await page.$eval(CONSOLE, (console) => ({
        tabText: console.querySelector(".rc-upkeep-tab")!.textContent,
        lines: console.querySelectorAll(".rc-upkeep tbody tr").length,
      }));
      assert.equal(tabText, `${tab} (${lines})`);
      await page.locator(UPKEEP).scrollIntoViewIfNeeded();
      for (const file of screenshots(language === "en-US" ? "console-upkeep.png" : "console-upkeep-zh.png"))
        await page.screenshot({ path: file, fullPage: true });
      await page.locator(`${CONSOLE} .rc-robots-tab`).click();
      await page.waitForFunction((selector) => document.querySelectorAll(selector).length === 200, `${CONSOLE} .rc-robots tbody tr`);
    });
  });
}
