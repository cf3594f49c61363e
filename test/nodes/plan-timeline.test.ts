/**
 * The console's timeline of today's plan (robot-maps' fleetView), read from
 * the account's plan and job books as robot-plan leaves them: every
 * occurrence of today in the plan's zone, per floor in the console's floor
 * order, each in its state (upcoming before its time, running once claimed,
 * not run when past and never taken up, the settled ones as settled) with
 * its robot and the reason of a failure; and the states' words in both
 * languages.
 */
import assert from "node:assert/strict";
import type { NodeAPI } from "node-red";
import type { KeptStatus } from "../../src/api/watching/fleet-statuses";
import { occurrencesBetween } from "../../src/api/plans/calendar";
import { readPlan } from "../../src/api/plans/plan";
import { plansOfAccount } from "../../src/api/plans/plan-book";
import { translator } from "../../src/nodes/shared/i18n";
import { fleetView } from "../../src/nodes/robot-maps/fleet-view";
import { TIMELINE_STATES, planTimeline, todaysPlanOf } from "../../src/nodes/robot-maps/plan-timeline";

const t = translator({ _: (key: string) => key } as unknown as NodeAPI, "robot-maps");
const NOW = new Date("2026-12-02T10:00:00Z");
const NAMES: Record<string, string> = { "GS-S-000101": "Lobby scrubber", "GS-S-000102": "Kitchen scrubber" };
const nameOf = (serialNumber: string) => NAMES[serialNumber] ?? serialNumber;

const PLAN = readPlan([
  { name: "Lobby", days: "daily", at: "00:00", every: 240, map: "Floor 1", area: "Lobby" },
  { name: "Canteen", days: "daily", at: "09:00", every: 60, until: "11:00", map: "Floor 2", area: "Canteen" },
]);

let accounts = 0;
function freshAccount(): { key: string; plans: ReturnType<typeof plansOfAccount> } {
  const key = `plan-timeline-test-${++accounts}`;
  const plans = plansOfAccount(key);
  plans.setPlan("plan-node", { items: PLAN, timezone: "UTC" }, Date.parse("2026-12-01T00:00:00Z"));
  return { key, plans };
}

function occurrence(id: string) {
  const day = occurrencesBetween(PLAN, "UTC", Date.parse("2026-12-02T00:00:00Z"), Date.parse("2026-12-03T00:00:00Z"));
  const found = day.find((each) => each.occurrenceId === id);
  assert.ok(found, id);
  return found;
}

describe("robot-maps: today's plan on the console (fleetView's plan)", () => {
  it("lists today's occurrences only (00:00 in, tomorrow's 00:00 out), per floor in the console's order, each in its state", () => {
    const { key, plans } = freshAccount();
    plans.settle("plan-node", { ...pick(occurrence("Lobby@2026-12-02T00:00")), status: "missed" });
    plans.settle("plan-node", {
      ...pick(occurrence("Lobby@2026-12-02T04:00")),
      status: "failed",
      endedAt: "2026-12-02T04:30:00Z",
      job: { code: "NO_ROBOT", message: "no robot could take the job", robots: { "GS-S-000101": "busy", "GS-S-000102": "battery 12 % below 30 %" } },
    });
    plans.settle("plan-node", {
      ...pick(occurrence("Canteen@2026-12-02T09:00")),
      status: "done",
      startedAt: "2026-12-02T09:00:10Z",
      endedAt: "2026-12-02T09:05:00Z",
      job: { jobId: "Canteen@2026-12-02T09:00", serialNumber: "GS-S-000102", work: { kind: "area", area: "Canteen", map: "Floor 2" }, outcome: "stoppedByHand", endedAt: "2026-12-02T09:05:00Z", attempts: [] },
    });
    assert.equal(plans.claim("plan-node", occurrence("Canteen@2026-12-02T10:00"), false), true);

    const plan = todaysPlanOf(key, NOW, nameOf);
    assert.ok(plan);
    const timeline = planTimeline(plan, ["Floor 2", "Floor 1"]);
    assert.equal(timeline.day, "2026-12-02");
    assert.deepEqual(
      timeline.floors.map((floor) => [floor.mapName, floor.occurrences.map((each) => `${each.time} ${each.item} ${each.state}`)]),
      [
        ["Floor 2", ["09:00 Canteen done", "10:00 Canteen running", "11:00 Canteen upcoming"]],
        ["Floor 1", ["00:00 Lobby missed", "04:00 Lobby failed", "08:00 Lobby notRun", "12:00 Lobby upcoming", "16:00 Lobby upcoming", "20:00 Lobby upcoming"]],
      ],
    );
    const failed = timeline.floors[1]!.occurrences[1]!;
    assert.equal(failed.reason, "Lobby scrubber: busy; Kitchen scrubber: battery 12 % below 30 %");
    const done = timeline.floors[0]!.occurrences[0]!;
    assert.deepEqual([done.robotName, done.outcome], ["Kitchen scrubber", "stoppedByHand"]);
    assert.deepEqual(timeline.counts, [
      { state: "upcoming", count: 4 },
      { state: "running", count: 1 },
      { state: "done", count: 1 },
      { state: "failed", count: 1 },
      { state: "missed", count: 1 },
      { state: "notRun", count: 1 },
    ]);
  });

  it("an occurrence is due from its instant (not run, as nobody took it up), upcoming a millisecond before", () => {
    const { key } = freshAccount();
    const at = (iso: string) => planTimeline(todaysPlanOf(key, new Date(iso), nameOf)!, []).floors.find((floor) => floor.mapName === "Floor 2")!.occurrences[0]!;
    assert.equal(at("2026-12-02T09:00:00Z").state, "notRun");
    assert.equal(at("2026-12-02T08:59:59.999Z").state, "upcoming");
  });

  it("lists an occurrence run now (no calendar's) under way from its claim, on its item's floor", () => {
    const { key, plans } = freshAccount();
    const canteen = occurrence("Canteen@2026-12-02T09:00");
    const runNow = { ...canteen, occurrenceId: "Canteen@2026-12-02T09:37", plannedAt: "2026-12-02T09:37:00.000Z" };
    assert.equal(plans.claim("plan-node", runNow, false), true);
    const floor2 = planTimeline(todaysPlanOf(key, NOW, nameOf)!, []).floors.find((floor) => floor.mapName === "Floor 2")!;
    assert.deepEqual(
      floor2.occurrences.map((each) => `${each.time} ${each.state}`),
      ["09:00 notRun", "09:37 running", "10:00 notRun", "11:00 upcoming"],
    );
  });

  it("has no plan where no robot-plan runs on the account, and the states' words (English; Chinese in fleet-view-zh)", () => {
    assert.equal(todaysPlanOf("plan-timeline-no-plan", NOW, nameOf), undefined);
    const view = fleetView({ statuses: [] as KeptStatus[], pictures: new Map(), alarms: [], jobs: new Map(), now: NOW }, t);
    assert.equal(view.plan, undefined);
    assert.equal(view.language, "en-US");
    const words = view.words.planStates as Record<string, string>;
    assert.deepEqual(Object.keys(words), [...TIMELINE_STATES]);
    assert.deepEqual(
      [words.upcoming, words.running, words.done, words.failed, words.notRun],
      ["upcoming", "under way", "done", "failed", "not run"],
    );
  });
});

function pick(planned: { occurrenceId: string; item: string; plannedAt: string }) {
  return { occurrenceId: planned.occurrenceId, item: planned.item, plannedAt: planned.plannedAt };
}
