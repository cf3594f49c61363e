/**
 * Navigation read from what real statuses carry (docs/cloud-api.md, "What a
 * status shows of a navigation"): navStatus, mapPosition and the navigation
 * points' grid cells, in statuses shaped exactly like the recorded v1 and
 * S-line answers; the confirmation rules of the navigation commands at their
 * boundaries, and a goto job's start and end.
 */
import assert from "node:assert/strict";
import { runningJobEnd } from "../../src/api/jobs/job-book";
import { robotFactsOf, type JobWork } from "../../src/api/jobs/dispatch";
import { startedRule } from "../../src/api/jobs/job-start";
import { commandConfirmationRule } from "../../src/api/watching/confirmation";
import { FleetStatuses } from "../../src/api/watching/fleet-statuses";
import { NAVIGATION_SHOWN_MS, NavigationFollower, SentNavigations } from "../../src/api/watching/navigation";
import { refusalOf } from "../../src/api/watching/robot-actions";
import { readStatus } from "../../src/api/watching/status-reader";
import { shapeProblems } from "../support/recorded-shapes";
import { recordedMapVersion, recordedSLineStatus, recordedV1Status, type RecordedStatusFacts } from "../support/recorded-statuses";

const KITCHEN_DOOR = { name: "Kitchen door", x: 100, y: 100 };
const CHARGER = { name: "charging", x: 20, y: 30 };
const POINTS = [CHARGER, KITCHEN_DOOR];
const RADIUS = 10;

const navigate = (position: string) => ({
  serialNumber: "GS-S-000101",
  remoteNavigationCommandType: "CROSS_NAVIGATE",
  commandParameter: { startNavigationParameter: { map: "Floor 1", position } },
});

const lean = (facts: RecordedStatusFacts) => readStatus(recordedSLineStatus(facts, POINTS));
const v1 = (facts: RecordedStatusFacts) => readStatus(recordedV1Status(facts));

/** What a rule says of each status in turn (a rule is made for one wait and remembers). */
function confirmations(body: Record<string, unknown>, states: ReturnType<typeof readStatus>[]): (string | undefined)[] {
  const rule = commandConfirmationRule(body, RADIUS)!;
  return states.map((state) => rule.confirmedBy(state));
}

describe("api: navigation from real statuses", function () {
  it("the test statuses have exactly the recorded v1 and S-line shapes", function () {
    assert.deepEqual(shapeProblems("v1Status", recordedV1Status({ position: { x: 1, y: 2 } }), "v1"), []);
    assert.deepEqual(shapeProblems("sLineStatus", recordedSLineStatus({ position: { x: 1, y: 2 } }, POINTS), "S-line"), []);
  });

  it("reads navStatus from both shapes, the S-line status' navigation points with their grid cells and its map version, and no navigation object", function () {
    const fromV1 = v1({ position: { x: 5, y: 6 }, navStatus: "NAVI_IDLE" });
    assert.equal(fromV1.navStatus, "NAVI_IDLE");
    assert.deepEqual(fromV1.position, { x: 5, y: 6, angle: 0 });
    assert.equal(fromV1.navigationPoints, undefined, "the v1 status lists no points");
    assert.equal(fromV1.mapVersion, undefined, "the v1 status' map has no version");
    const fromLean = lean({ position: { x: 5, y: 6 } });
    assert.deepEqual(fromLean.navigationPoints, [
      { name: "charging", grid: { x: 20, y: 30 } },
      { name: "Kitchen door", grid: { x: 100, y: 100 } },
    ]);
    assert.equal(fromLean.mapVersion, recordedMapVersion("e3b0c442-98fc-1c14-9afb-f4c8996fb924"));
    assert.equal("navigation" in fromLean || "navigation" in fromV1, false);
    // A point without its grid cell is still a point (a picker lists it), placed nowhere.
    const unplaced = readStatus({ navigationPoints: { naviPoints: [{ naviPointName: "Desk" }, { naviPointName: "" }, "x"] } });
    assert.deepEqual(unplaced.navigationPoints, [{ name: "Desk" }]);
  });

  describe("CROSS_NAVIGATE is confirmed on arrival within the radius of the point's grid cell", function () {
    const cases: Array<[string, number, string | undefined]> = [
      ["exactly at the radius", KITCHEN_DOOR.x + RADIUS, "ARRIVED at Kitchen door"],
      ["one cell inside", KITCHEN_DOOR.x + RADIUS - 1, "ARRIVED at Kitchen door"],
      ["one cell outside", KITCHEN_DOOR.x + RADIUS + 1, undefined],
    ];
    for (const [what, x, confirmed] of cases) {
      it(`${what} (${x - KITCHEN_DOOR.x} cells): ${confirmed ?? "not yet"}`, function () {
        assert.deepEqual(confirmations(navigate("Kitchen door"), [lean({ position: { x, y: KITCHEN_DOOR.y } })]), [confirmed]);
      });
    }
    it("the radius is the account's: 0 wants the very cell", function () {
      const rule = commandConfirmationRule(navigate("Kitchen door"), 0)!;
      assert.equal(rule.confirmedBy(lean({ position: { x: 101, y: 100 } })), undefined);
      assert.equal(rule.confirmedBy(lean({ position: { x: 100, y: 100 } })), "ARRIVED at Kitchen door");
    });
  });

  describe("where no status places the point: navStatus leaving NAVI_IDLE and coming back", function () {
    const cases: Array<[string, string[], (string | undefined)[]]> = [
      ["idle → other → idle", ["NAVI_IDLE", "NAVI_RUNNING", "NAVI_IDLE"], [undefined, undefined, "ARRIVED at Kitchen door"]],
      [
        "an unpublished value counts as navigating",
        ["NAVI_IDLE", "SOMETHING_NEW", "NAVI_IDLE"],
        [undefined, undefined, "ARRIVED at Kitchen door"],
      ],
      ["idle throughout (what the recordings show): never", ["NAVI_IDLE", "NAVI_IDLE", "NAVI_IDLE"], [undefined, undefined, undefined]],
      ["not back yet", ["NAVI_IDLE", "NAVI_RUNNING", "NAVI_RUNNING"], [undefined, undefined, undefined]],
    ];
    for (const [what, sequence, expected] of cases) {
      it(what, function () {
        // v1 statuses: a position, but no navigation points, so no point's cell.
        const states = sequence.map((navStatus) => v1({ position: { x: 500, y: 500 }, navStatus }));
        assert.deepEqual(confirmations(navigate("Kitchen door"), states), expected);
      });
    }
    it("navStatus back to NAVI_IDLE with the robot shown outside the radius is no arrival", function () {
      const states = ["NAVI_IDLE", "NAVI_RUNNING", "NAVI_IDLE"].map((navStatus) => lean({ position: { x: 300, y: 300 }, navStatus }));
      assert.deepEqual(confirmations(navigate("Kitchen door"), states), [undefined, undefined, undefined]);
    });
  });

  it("the charger: the battery charging is an arrival too, far from the point", function () {
    assert.deepEqual(
      confirmations(navigate("charging"), [lean({ position: { x: 400, y: 400 } }), lean({ position: { x: 400, y: 400 }, charging: true })]),
      [undefined, "charging"],
    );
  });

  it("says what it waits for from what the statuses could show", function () {
    const rule = commandConfirmationRule(navigate("Kitchen door"), RADIUS)!;
    assert.match(rule.expects, /no status read so far placed the point or carried navStatus/);
    rule.confirmedBy(readStatus({ serialNumber: "GS-S-000101", taskState: "IDLE" }));
    assert.match(rule.expects, /no status read so far placed the point or carried navStatus/, "a status with neither");
    rule.confirmedBy(v1({ position: { x: 1, y: 1 } }));
    assert.match(rule.expects, /navStatus leaving NAVI_IDLE and coming back/);
    rule.confirmedBy(lean({ position: { x: 1, y: 1 } }));
    assert.match(rule.expects, /within 10 cells of the point's grid position/);
  });

  it("a robot on its way is not refused for being busy navigating; one that never started is", function () {
    const rule = commandConfirmationRule(navigate("Kitchen door"), RADIUS)!;
    const busyElsewhere = v1({ position: { x: 500, y: 500 }, navStatus: "NAVI_RUNNING" });
    assert.deepEqual(commandConfirmationRule(navigate("Kitchen door"), RADIUS)!.refusal!(busyElsewhere), { code: "busyNavigating" });
    rule.confirmedBy(lean({ position: { x: 300, y: 100 } }));
    rule.confirmedBy(lean({ position: { x: 250, y: 100 } }));
    assert.equal(rule.refusal!(busyElsewhere), undefined, "it came 50 cells closer: under way");
  });

  it("a v1 read's position and an S-line read's points, kept and merged, confirm together", function () {
    const kept = new FleetStatuses();
    kept.record([recordedSLineStatus({ position: { x: 400, y: 400 } }, POINTS)], 1000);
    kept.record([recordedV1Status({ position: { x: 104, y: 97 } })], 2000);
    const merged = kept.get("GS-S-000101")!.status;
    assert.deepEqual(confirmations(navigate("Kitchen door"), [readStatus(merged)]), ["ARRIVED at Kitchen door"]);
    assert.equal(
      readStatus(merged).mapVersion,
      recordedMapVersion("e3b0c442-98fc-1c14-9afb-f4c8996fb924"),
      "the S-line read's map version under the newer v1 read",
    );
  });

  describe("PAUSE_NAVIGATE and STOP_NAVIGATE: standing still in two statuses in a row", function () {
    const body = (command: string) => ({
      serialNumber: "GS-S-000101",
      remoteNavigationCommandType: command,
      commandParameter: { startNavigationParameter: { map: "Floor 1", position: "Kitchen door" } },
    });
    const cases: Array<[string, string, RecordedStatusFacts[], (string | undefined)[]]> = [
      [
        "stopped: idle and still",
        "STOP_NAVIGATE",
        [{ position: { x: 50, y: 50 } }, { position: { x: 50.5, y: 50 } }],
        [undefined, "STOPPED"],
      ],
      [
        "stop: still moving one cell",
        "STOP_NAVIGATE",
        [{ position: { x: 50, y: 50 } }, { position: { x: 51, y: 50 } }],
        [undefined, undefined],
      ],
      [
        "stop: navStatus not idle",
        "STOP_NAVIGATE",
        [
          { position: { x: 50, y: 50 }, navStatus: "NAVI_RUNNING" },
          { position: { x: 50, y: 50 }, navStatus: "NAVI_RUNNING" },
        ],
        [undefined, undefined],
      ],
      [
        "paused: still, navigation not over",
        "PAUSE_NAVIGATE",
        [
          { position: { x: 50, y: 50 }, navStatus: "NAVI_RUNNING" },
          { position: { x: 50, y: 50 }, navStatus: "NAVI_RUNNING" },
        ],
        [undefined, "PAUSED"],
      ],
      [
        "pause: navStatus NAVI_IDLE is an ended navigation",
        "PAUSE_NAVIGATE",
        [{ position: { x: 50, y: 50 } }, { position: { x: 50, y: 50 } }],
        [undefined, undefined],
      ],
    ];
    for (const [what, command, facts, expected] of cases) {
      it(what, function () {
        assert.deepEqual(confirmations(body(command), facts.map(v1)), expected);
      });
    }
  });

  it("a robot is busy navigating while navStatus is other than NAVI_IDLE, an unknown value too; NAVI_IDLE or none is free", function () {
    for (const [navStatus, refusal] of [
      ["NAVI_RUNNING", { code: "busyNavigating" }],
      ["SOMETHING_NEW", { code: "busyNavigating" }],
      ["NAVI_IDLE", undefined],
    ] as const) {
      assert.deepEqual(refusalOf("goTo", v1({ position: { x: 1, y: 1 }, navStatus })), refusal, navStatus);
    }
    assert.equal(
      refusalOf("resume", v1({ position: { x: 1, y: 1 }, navStatus: "NAVI_RUNNING" })),
      undefined,
      "a navigation may be paused: no status says",
    );
  });

  describe("a goto job", function () {
    const work: JobWork = { kind: "goto", point: "Kitchen door", map: "Floor 1" };
    it("has started when the robot came one cell closer than it first stood, not half a cell", function () {
      const started = (second: number) => {
        const rule = startedRule(work, "GS-S-000101", undefined, new NavigationFollower("Kitchen door", RADIUS));
        return [rule.confirmedBy(lean({ position: { x: 200, y: 100 } })), rule.confirmedBy(lean({ position: { x: second, y: 100 } }))];
      };
      assert.deepEqual(started(199), [undefined, "NAVIGATING"]);
      assert.deepEqual(started(199.5), [undefined, undefined]);
    });
    it("ends completed on arrival, with unknown outcome when the navigation ended away from the point", function () {
      const arrival = new NavigationFollower("Kitchen door", RADIUS);
      const facts = (status: Record<string, unknown>) => robotFactsOf(status);
      assert.deepEqual(runningJobEnd({ work }, facts(recordedSLineStatus({ position: { x: 200, y: 100 } }, POINTS)), arrival), {
        ended: false,
      });
      assert.deepEqual(runningJobEnd({ work }, facts(recordedSLineStatus({ position: { x: 110, y: 100 } }, POINTS)), arrival), {
        ended: true,
        outcome: "completed",
      });
      const away = new NavigationFollower("Kitchen door", RADIUS);
      for (const navStatus of ["NAVI_IDLE", "NAVI_RUNNING"])
        runningJobEnd({ work }, facts(recordedSLineStatus({ position: { x: 300, y: 100 }, navStatus }, POINTS)), away);
      assert.deepEqual(runningJobEnd({ work }, facts(recordedSLineStatus({ position: { x: 300, y: 100 } }, POINTS)), away), {
        ended: true,
        outcome: "unknown",
      });
    });
  });

  describe("where the package sent a robot: shown under way until a status shows it end", function () {
    const SENT_AT = Date.parse("2026-11-28T08:00:00Z");
    const sentTo = (position: string) => {
      const navigations = new SentNavigations();
      navigations.noteSent(navigate(position), SENT_AT);
      return navigations;
    };

    it("ends when the robot stands within the arrival radius: at the radius it has arrived, one cell outside it has not", function () {
      const cases: [string, { x: number; y: number }, string | undefined][] = [
        ["far away", { x: 40, y: 100 }, "Kitchen door"],
        ["one cell outside the radius", { x: 100 - RADIUS - 1, y: 100 }, "Kitchen door"],
        ["at the radius", { x: 100 - RADIUS, y: 100 }, undefined],
        ["on the point", { x: 100, y: 100 }, undefined],
      ];
      for (const [label, position, expected] of cases) {
        assert.equal(sentTo("Kitchen door").destinationOf("GS-S-000101", lean({ position }), RADIUS, SENT_AT + 1000), expected, label);
      }
    });

    it("ends when a task runs or pauses, the robot goes offline, or it charges after being sent to the charger; charging elsewhere does not", function () {
      const away = { position: { x: 300, y: 300 } };
      const cases: [string, string, ReturnType<typeof readStatus>, string | undefined][] = [
        ["a task running", "Kitchen door", lean({ ...away, taskState: "RUNNING" }), undefined],
        ["a task paused", "Kitchen door", lean({ ...away, taskState: "PAUSED" }), undefined],
        ["offline", "Kitchen door", { ...lean(away), online: false }, undefined],
        ["charging, sent to the charger", "charging", lean({ ...away, charging: true }), undefined],
        ["charging, sent elsewhere", "Kitchen door", lean({ ...away, charging: true }), "Kitchen door"],
      ];
      for (const [label, point, reading, expected] of cases) {
        assert.equal(sentTo(point).destinationOf("GS-S-000101", reading, RADIUS, SENT_AT + 1000), expected, label);
      }
    });

    it("is shown at most NAVIGATION_SHOWN_MS when no status shows it end, and not again once it ended", function () {
      const status = lean({ position: { x: 300, y: 300 } });
      const navigations = sentTo("Kitchen door");
      assert.equal(navigations.destinationOf("GS-S-000101", status, RADIUS, SENT_AT + NAVIGATION_SHOWN_MS - 1), "Kitchen door");
      assert.equal(navigations.destinationOf("GS-S-000101", status, RADIUS, SENT_AT + NAVIGATION_SHOWN_MS), undefined);
      assert.equal(navigations.destinationOf("GS-S-000101", status, RADIUS, SENT_AT + 1000), undefined, "ended is ended");
    });

    it("a stop or a task sent to the robot ends it; a pause or resume of the navigation does not; another robot's command changes nothing", function () {
      const status = lean({ position: { x: 300, y: 300 } });
      const cases: [string, Record<string, unknown>, string | undefined][] = [
        ["stop", { serialNumber: "GS-S-000101", remoteNavigationCommandType: "STOP_NAVIGATE" }, undefined],
        ["a task", { serialNumber: "GS-S-000101", remoteTaskCommandType: "START_TASK" }, undefined],
        ["pause", { serialNumber: "GS-S-000101", remoteNavigationCommandType: "PAUSE_NAVIGATE" }, "Kitchen door"],
        ["resume", { serialNumber: "GS-S-000101", remoteNavigationCommandType: "RESUME_NAVIGATE" }, "Kitchen door"],
        ["another robot's stop", { serialNumber: "GS-S-000102", remoteNavigationCommandType: "STOP_NAVIGATE" }, "Kitchen door"],
      ];
      for (const [label, body, expected] of cases) {
        const navigations = sentTo("Kitchen door");
        navigations.noteSent(body, SENT_AT + 500);
        assert.equal(navigations.destinationOf("GS-S-000101", status, RADIUS, SENT_AT + 1000), expected, label);
      }
    });

    it("a return begun by stopping the task: to the charger while the task still runs or is paused, until the robot charges or the return is forgotten", function () {
      const away = { position: { x: 300, y: 300 } };
      const begun = () => {
        const navigations = new SentNavigations();
        navigations.noteReturnBegun("GS-S-000101", SENT_AT);
        return navigations;
      };
      const cases: [string, ReturnType<typeof readStatus>, string | undefined][] = [
        ["its task still running", lean({ ...away, taskState: "RUNNING" }), "charging"],
        ["its task still paused", lean({ ...away, taskState: "PAUSED" }), "charging"],
        ["its task stopped", lean({ ...away, taskState: "IDLE" }), "charging"],
        ["charging", lean({ ...away, charging: true }), undefined],
        ["offline", { ...lean(away), online: false }, undefined],
      ];
      for (const [label, reading, expected] of cases) {
        assert.equal(begun().destinationOf("GS-S-000101", reading, RADIUS, SENT_AT + 1000), expected, label);
      }
      const forgotten = begun();
      forgotten.forgetReturn("GS-S-000101");
      assert.equal(forgotten.destinationOf("GS-S-000101", lean(away), RADIUS, SENT_AT + 1000), undefined, "forgotten");
      const sentSince = sentTo("Kitchen door");
      sentSince.forgetReturn("GS-S-000101");
      assert.equal(
        sentSince.destinationOf("GS-S-000101", lean(away), RADIUS, SENT_AT + 1000),
        "Kitchen door",
        "a navigation sent is not a return to forget",
      );
    });
  });
});
