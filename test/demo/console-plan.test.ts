/**
 * Today's cleaning plan on the operator console, in headless Chromium against
 * the running demo (`npm start`, whose cleaning-plan tab runs the example's
 * plan on the demo's floors): the timeline lists every occurrence the plan
 * has today, per floor, those past (before the demo started: not run) and
 * those to come (upcoming); "run the lobby now" shows the lobby's occurrence
 * under way with its robot, then done once the robot ends its task. Open at
 * 1280 px; at 800 px a line of counts that keeps the alarms and the map in
 * the first screen. Screenshots go to the temp folder (shots-console-plan).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { occurrencesBetween } from "../../src/api/plans/calendar";
import { readPlan, readTimezone } from "../../src/api/plans/plan";
import { startDemo, root, type RunningDemo } from "../support/demo-process";
import { launchChromium } from "../support/editor";

const shots = path.join(os.tmpdir(), "shots-console-plan");
const PLAN = ".robot-console .rc-plan";
const LOBBY_ROBOT = "GS-S-000101";

interface Chip {
  id: string;
  state: string;
  text: string;
  floor: string;
}

function chipsOf(page: Page): Promise<Chip[]> {
  return page.$$eval(`${PLAN} .rc-plan-floor li`, (items) =>
    items.map((item) => ({
      id: item.getAttribute("data-occurrence-id")!,
      state: item.getAttribute("data-state")!,
      text: (item.textContent ?? "").trim(),
      floor: (item.closest(".rc-plan-floor")!.querySelector("b")!.textContent ?? "").trim(),
    })),
  );
}

/** The example's plan, and its occurrences today in the runtime's zone (the node's timezone is empty: the runtime's). */
function examplePlan() {
  const flow = JSON.parse(fs.readFileSync(path.join(root, "examples", "cleaning-plan.json"), "utf8")) as Array<Record<string, unknown>>;
  const node = flow.find((each) => each.type === "robot-plan")!;
  return { items: readPlan(node.plan), timezone: readTimezone(node.timezone) };
}

async function stateShown(page: Page, id: string, state: string, timeout = 60_000): Promise<Chip> {
  await page.waitForSelector(`${PLAN} li[data-occurrence-id="${id}"][data-state="${state}"]`, { timeout }).catch(async (error: unknown) => {
    throw new Error(`${id} is not ${state}: ${JSON.stringify((await chipsOf(page)).filter((chip) => chip.id === id))}`, { cause: error });
  });
  return (await chipsOf(page)).find((chip) => chip.id === id)!;
}

describe("demo console: today's cleaning plan as a timeline per floor (headless Chromium)", function () {
  this.timeout(300_000);
  let demo: RunningDemo;
  let browser: Browser;
  let wide: Page;
  let startedAt: number;

  before(async () => {
    fs.mkdirSync(shots, { recursive: true });
    startedAt = Date.now();
    demo = await startDemo();
    browser = await launchChromium();
    wide = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    wide.setDefaultTimeout(30_000);
    await wide.goto(`${demo.urls.editor}/dashboard/fleet`);
    await wide.waitForSelector(`${PLAN}[open] .rc-plan-floor li`);
  });

  after(async () => {
    await browser?.close();
    if (demo) assert.equal(await demo.stop(), 0);
  });

  it("lists each occurrence the plan has today on its floor since the plan exists (the demo's start): past ones not run, the others upcoming", async () => {
    const { items, timezone } = examplePlan();
    const now = Date.now();
    const dayStart = new Date(new Intl.DateTimeFormat("sv-SE", { timeZone: timezone }).format(now) + "T00:00:00");
    // The day in the runtime's zone: the test runs in the demo's own environment.
    const today = occurrencesBetween(items, timezone, dayStart.getTime(), dayStart.getTime() + 86_400_000).filter((each) =>
      each.occurrenceId.includes(`@${new Intl.DateTimeFormat("sv-SE", { timeZone: timezone }).format(now)}T`),
    );
    // What was planned before the plan existed (the demo's fresh start) is not listed; one within two minutes of the start may be either.
    const nearStart = (id: string) => Math.abs(Date.parse(today.find((each) => each.occurrenceId === id)!.plannedAt) - startedAt) < 120_000;
    const chips = (await chipsOf(wide)).filter((chip) => !nearStart(chip.id));
    const listed = today.filter((each) => Date.parse(each.plannedAt) > startedAt && !nearStart(each.occurrenceId));
    const byFloor = (chipList: Array<{ id: string; floor: string }>) => chipList.map((chip) => `${chip.floor} ${chip.id}`).sort();
    assert.deepEqual(byFloor(chips), byFloor(listed.map((each) => ({ id: each.occurrenceId, floor: each.itemSpec.work.map }))));
    assert.ok(chips.length > 0, "the example plans something every day");
    for (const chip of chips) {
      const planned = Date.parse(today.find((each) => each.occurrenceId === chip.id)!.plannedAt);
      // Within a minute of now an occurrence may be either: its look may or may not have come.
      if (Math.abs(planned - now) < 90_000) continue;
      assert.equal(chip.state, planned > now ? "upcoming" : "notRun", JSON.stringify(chip));
      assert.match(
        chip.text,
        new RegExp(`^\\d\\d:\\d\\d ${chip.id.slice(0, chip.id.lastIndexOf("@"))} · ${planned > now ? "upcoming" : "not run"}$`),
      );
    }
    // Floors in the console's order (Floor 1 before Floor 2), each once.
    const floors = await wide.$$eval(`${PLAN} .rc-plan-floor > b`, (headings) => headings.map((heading) => heading.textContent));
    assert.deepEqual(floors, [...new Set((await chipsOf(wide)).map((chip) => chip.floor))].sort());
    await wide.screenshot({ path: path.join(shots, "plan-1280.png") });
  });

  it("shows 'run the lobby now' under way with its robot, then done when its task ends", async () => {
    const answer = await fetch(`${demo.urls.editor}/inject/plan-run-lobby`, { method: "POST" });
    assert.equal(answer.status, 200, await answer.text());
    // The lobby's occurrence of this minute, made a job on the lobby's robot.
    const id = await wide
      .waitForFunction(
        () =>
          [...document.querySelectorAll('.robot-console .rc-plan li[data-state="running"]')]
            .find(
              (chip) =>
                chip.getAttribute("data-occurrence-id")!.startsWith("Lobby@") && (chip.textContent ?? "").includes("Lobby scrubber"),
            )
            ?.getAttribute("data-occurrence-id"),
        undefined,
        { timeout: 60_000 },
      )
      .then((handle) => handle.jsonValue() as Promise<string>)
      .catch(async (error: unknown) => {
        throw new Error(`no lobby occurrence under way: ${JSON.stringify(await chipsOf(wide))}\n${demo.output().slice(-3000)}`, {
          cause: error,
        });
      });
    const shown = (await chipsOf(wide)).find((chip) => chip.id === id)!;
    assert.equal(shown.floor, "Floor 1");
    assert.match(shown.text, /^\d\d:\d\d Lobby · under way · Lobby scrubber$/);
    assert.match((await wide.textContent(`${PLAN} summary`)) ?? "", /under way 1/);
    await wide.screenshot({ path: path.join(shots, "plan-running-1280.png") });

    // Ended by the robot once it cleans (the job's robot is chosen before its task starts).
    await wide.waitForFunction(
      (serial) =>
        /cleaning/.test(
          document.querySelector(`.robot-console .rc-robots tr[data-serial-number="${serial}"] td:nth-child(2)`)?.textContent ?? "",
        ),
      LOBBY_ROBOT,
      { timeout: 60_000 },
    );
    const ended = await fetch(`${demo.urls.simulator}/_sim/robots/${LOBBY_ROBOT}/task/end`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ taskEndStatus: 0 }),
    });
    assert.ok(ended.status < 300, await ended.text());
    const done = await stateShown(wide, id, "done", 120_000);
    assert.match(done.text, /^\d\d:\d\d Lobby · done · Lobby scrubber$/);
  });

  it("at 800 px is a line of counts, closed: the alarms and the top of the map stay in the first screen; opened, it lists the same", async () => {
    const narrow = await browser.newPage({ viewport: { width: 800, height: 1000 } });
    try {
      await narrow.goto(`${demo.urls.editor}/dashboard/fleet`);
      await narrow.waitForSelector(`.robot-console .rc-map-inner svg [data-serial-number]`);
      await narrow.waitForSelector(`${PLAN}:not([open]) summary`);
      assert.match((await narrow.textContent(`${PLAN} summary`)) ?? "", /^Today's plan.*done 1/);
      const inFirstScreen = (selector: string, part: "whole" | "top") =>
        narrow.$eval(
          selector,
          (element, which) => {
            const box = element.getBoundingClientRect();
            return box.top >= 0 && (which === "top" ? box.top + 100 : box.bottom) <= window.innerHeight;
          },
          part,
        );
      assert.ok(await inFirstScreen(".robot-console .rc-alarms", "whole"), "the alarms in the first screen");
      assert.ok(await inFirstScreen(".robot-console .rc-map", "top"), "the map begins in the first screen");
      await narrow.screenshot({ path: path.join(shots, "plan-closed-800.png") });
      await narrow.click(`${PLAN} summary`);
      assert.deepEqual(
        (await chipsOf(narrow)).map((chip) => chip.id),
        (await chipsOf(wide)).map((chip) => chip.id),
      );
      await narrow.screenshot({ path: path.join(shots, "plan-open-800.png") });
    } finally {
      await narrow.close();
    }
  });
});
