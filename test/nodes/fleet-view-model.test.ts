/**
 * fleetView's decisions without Node-RED: a robot's state in words and
 * colour, its task's progress and time left, the actions its state allows
 * (and cancelling its job), what its pickers offer, the floors with their
 * counts and pictures, the open alarms with where they are, and the words.
 */
import assert from "node:assert/strict";
import type { NodeAPI } from "node-red";
import { DateTime } from "luxon";
import type { OpenAlarm } from "../../src/api/pushes/open-alarms";
import type { KeptStatus } from "../../src/api/watching/fleet-statuses";
import { translator } from "../../src/nodes/shared/i18n";
import { STATE_COLOURS } from "../../src/nodes/robot-maps/fleet-map";
import { readStatus } from "../../src/api/watching/status-reader";
import { VIEW_WORDS, fleetView, heldJobs, type FleetViewInput, type HeldJob } from "../../src/nodes/robot-maps/fleet-view";
import type { JobRecord } from "../../src/api/jobs/job-book";
import { dayFormatter } from "../../src/api/reports/kpi";
import { dayAfter } from "../../src/api/upkeep/attention";
import type { UpkeepRobot } from "../../src/api/upkeep/table";

/** The English catalogue, as a runtime without catalogues falls back to. */
const t = translator({ _: (key: string) => key } as unknown as NodeAPI, "robot-maps");

const LOBBY_FLOOR = "map-lobby";
const CAR_PARK = "map-car-park";
const AT = Date.parse("2026-11-26T08:00:00Z");

/** The robots' names as the robot list gives them (no status carries one). */
const NAMES = new Map<string, string>();

function status(serialNumber: string, name: string, extra: Record<string, unknown> = {}, mapId = LOBBY_FLOOR): Record<string, unknown> {
  NAMES.set(serialNumber, name);
  return {
    name: `robots/${serialNumber}`,
    serialNumber,
    online: true,
    taskState: "IDLE",
    battery: { charging: false, soc: 64 },
    emergencyStop: { enabled: false },
    localizationInfo: {
      localizationState: "NORMAL",
      map: { id: mapId, name: mapId === LOBBY_FLOOR ? "Lobby floor" : "Car park", version: 2 },
      mapPosition: { x: 40, y: 30, angle: 0 },
    },
    executableTasks: [
      { id: "1", name: `All of ${mapId === LOBBY_FLOOR ? "Lobby floor" : "Car park"}`, map: { id: mapId } },
      { id: "2", name: "Elsewhere", map: { id: "another-map" } },
    ],
    ...extra,
  };
}

const kept = (...statuses: Record<string, unknown>[]): KeptStatus[] => statuses.map((each) => ({ status: each, at: AT }));
const picture = (mapId: string) => ({ mapId, mapName: mapId, width: 200, height: 100, imageUrl: "data:image/png;base64,AAAA", mapVersion: "2" });
const navigationStatus = (mapId: string, points: string[]) => ({
  ...status("GS-S-000199", "Anchor", {}, mapId),
  navigationPoints: { naviPoints: points.map((name, index) => ({ naviPointName: name, navPointGridX: 10 + index * 30, navPointGridY: 20 })) },
});

function input(statuses: KeptStatus[], extra: Partial<FleetViewInput> = {}): FleetViewInput {
  return {
    statuses,
    pictures: new Map([
      [LOBBY_FLOOR, picture(LOBBY_FLOOR)],
      [CAR_PARK, picture(CAR_PARK)],
    ]),
    alarms: [],
    jobs: new Map(),
    now: new Date(AT + 5000),
    nameOf: (serialNumber) => NAMES.get(serialNumber) ?? serialNumber,
    ...extra,
  };
}

function alarm(serialNumber: string, incidentId: string, level: number, extra: Partial<OpenAlarm> = {}): OpenAlarm {
  return { serialNumber, incidentId, level: { code: `H${level}`, rank: level }, name: `Fault ${incidentId}`, raisedAt: "2026-11-26T07:30:00.000Z", ...extra };
}

const robotOf = (view: ReturnType<typeof fleetView>, serialNumber: string) => view.robots.find((robot) => robot.serialNumber === serialNumber)!;

describe("fleetView's model", () => {
  it("says each state in words and its colour: cleaning a task, navigating (navStatus not NAVI_IDLE, an unknown value too), paused, offline", () => {
    const view = fleetView(
      input(
        kept(
          status("GS-S-000101", "Alpha", { taskState: "RUNNING", executingTask: { name: "Lobby", progress: 0.42, timeRemaining: 360 } }),
          status("GS-S-000102", "Bravo", { navStatus: "NAVI_RUNNING" }),
          status("GS-S-000103", "Charlie", { navStatus: "SOMETHING_NEW" }),
          status("GS-S-000104", "Delta", { taskState: "PAUSED", executingTask: { name: "Lobby" } }),
          status("GS-S-000105", "Echo", { online: false }),
        ),
      ),
      t,
    );
    const said = Object.fromEntries(view.robots.map((robot) => [robot.name, [robot.state, robot.stateText, robot.colour]]));
    assert.deepEqual(said, {
      Alpha: ["cleaning", "cleaning Lobby", STATE_COLOURS.cleaning],
      // No status says where a navigation goes.
      Bravo: ["navigating", "navigating", STATE_COLOURS.navigating],
      Charlie: ["navigating", "navigating", STATE_COLOURS.navigating],
      Delta: ["paused", "paused: Lobby", STATE_COLOURS.paused],
      Echo: ["offline", "offline", STATE_COLOURS.offline],
    });
    assert.equal(robotOf(view, "GS-S-000105").online, false);
  });

  it("gives a running task's progress and time left in numbers and words, the battery as a number", () => {
    const view = fleetView(
      input(
        kept(
          status("GS-S-000101", "Alpha", { taskState: "RUNNING", executingTask: { name: "Lobby", progress: "0.42", timeRemaining: 360 } }),
          status("GS-S-000102", "Bravo", { taskState: "RUNNING", executingTask: { name: "Hall", timeRemaining: 20 }, battery: { charging: true } }),
          status("GS-S-000103", "Charlie", { taskState: "RUNNING", executingTask: { name: "Stairs" } }),
          status("GS-S-000104", "Delta", { taskState: "IDLE", executingTask: { name: "Done", progress: 1 } }),
        ),
      ),
      t,
    );
    assert.deepEqual(robotOf(view, "GS-S-000101").task, { name: "Lobby", progress: 0.42, timeRemaining: 360, text: "42 % · 6 min left" });
    assert.deepEqual(robotOf(view, "GS-S-000102").task, { name: "Hall", timeRemaining: 20, text: "under a minute left" });
    assert.deepEqual(robotOf(view, "GS-S-000103").task, { name: "Stairs", text: "Stairs" });
    assert.equal(robotOf(view, "GS-S-000104").task, undefined, "an idle robot runs no task");
    assert.equal(robotOf(view, "GS-S-000101").battery, 64);
    assert.equal(robotOf(view, "GS-S-000102").battery, null);
    assert.equal(robotOf(view, "GS-S-000102").charging, true);
    const outOfRange = readStatus({ executingTask: { progress: 1.7, timeRemaining: -3 } });
    assert.deepEqual([outOfRange.taskProgress, outOfRange.timeRemaining], [1, 0]);
  });

  it("offers only the actions the state allows, and cancelling the job that holds the robot", () => {
    const jobs = new Map<string, HeldJob>([["GS-S-000102", { jobId: "job-7", work: { kind: "task", task: "All of Lobby floor", map: "Lobby floor" } }]]);
    const view = fleetView(
      input(
        kept(
          status("GS-S-000101", "Alpha"),
          status("GS-S-000102", "Bravo", { taskState: "RUNNING", executingTask: { name: "All of Lobby floor" } }),
          status("GS-S-000103", "Charlie", { taskState: "PAUSED" }),
          status("GS-S-000104", "Delta", { online: false }),
          status("GS-S-000105", "Echo", { emergencyStop: { enabled: true } }),
        ),
        { jobs },
      ),
      t,
    );
    const offered = Object.fromEntries(view.robots.map((robot) => [robot.name, robot.actions.map((each) => each.action)]));
    assert.deepEqual(offered, {
      Alpha: ["startTask", "goTo", "toCharger"],
      Bravo: ["toCharger", "pause", "stop", "cancelJob"],
      Charlie: ["toCharger", "resume", "stop"],
      Delta: [],
      Echo: [],
    });
    assert.deepEqual(robotOf(view, "GS-S-000102").actions.at(-1), { action: "cancelJob", label: "cancel job" });
    assert.deepEqual(robotOf(view, "GS-S-000102").job, { jobId: "job-7", text: "task All of Lobby floor" });
    assert.equal(robotOf(view, "GS-S-000101").job, undefined);
  });

  it("names a job by its own name, else its area or point; a waiting job holds no robot", () => {
    const record = (jobId: string, serialNumber: string | undefined, phase: JobRecord["phase"], work: JobRecord["work"], name?: string) =>
      ({ jobId, serialNumber, phase, work, settings: { ...(name ? { name } : {}) } }) as JobRecord;
    const held = heldJobs([
      record("a", "GS-S-000101", "running", { kind: "area", area: "Kitchen", map: "Lobby floor" }),
      record("b", "GS-S-000102", "starting", { kind: "goto", point: "charging", map: "Lobby floor" }),
      record("c", "GS-S-000103", "running", { kind: "goto", point: "Hall", map: "Lobby floor" }, "Morning round"),
      record("d", "GS-S-000104", "waiting", { kind: "goto", point: "Hall", map: "Lobby floor" }),
    ]);
    assert.deepEqual([...held.keys()], ["GS-S-000101", "GS-S-000102", "GS-S-000103"]);
    const view = fleetView(input(kept(status("GS-S-000101", "A"), status("GS-S-000102", "B"), status("GS-S-000103", "C")), { jobs: held }), t);
    assert.deepEqual(
      view.robots.map((robot) => robot.job?.text),
      ["area Kitchen", "to charger", "Morning round"],
    );
  });

  it("lists every floor a robot is on by name, with its robots and open alarms counted, drawn with its robots and points", () => {
    const view = fleetView(
      input(kept(status("GS-S-000101", "Alpha"), status("GS-S-000102", "Bravo", {}, CAR_PARK), status("GS-S-000103", "Charlie", {}, CAR_PARK)), {
        navigation: new Map([[CAR_PARK, navigationStatus(CAR_PARK, ["charging", "Ramp"])]]),
        alarms: [alarm("GS-S-000102", "i1", 6), alarm("GS-S-000102", "i2", 3), alarm("GS-S-000101", "i3", 4)],
      }),
      t,
    );
    assert.deepEqual(
      view.floors.map(({ mapId, mapName, robots, alarms }) => ({ mapId, mapName, robots, alarms })),
      [
        { mapId: CAR_PARK, mapName: "Car park", robots: 2, alarms: 2 },
        { mapId: LOBBY_FLOOR, mapName: "Lobby floor", robots: 1, alarms: 1 },
      ],
    );
    const [carPark, lobby] = view.floors.map((floor) => floor.svg);
    assert.deepEqual([...carPark!.matchAll(/<g class="robot [^"]*" data-serial-number="([^"]+)"/g)].map((match) => match[1]), ["GS-S-000102", "GS-S-000103"]);
    assert.deepEqual([...carPark!.matchAll(/class="navigation-point" data-name="([^"]+)"/g)].map((match) => match[1]), ["charging", "Ramp"]);
    assert.match(carPark!, /data-serial-number="GS-S-000102"[^>]*>.*?alarm-ring/);
    assert.deepEqual([...lobby!.matchAll(/data-serial-number="([^"]+)"/g)].map((match) => match[1]), ["GS-S-000101"]);
    assert.doesNotMatch(lobby!, /navigation-point"/, "the car park's points are not the lobby's");
    assert.deepEqual(robotOf(view, "GS-S-000102").points, ["charging", "Ramp"]);
    assert.deepEqual(robotOf(view, "GS-S-000101").points, []);
  });

  it("offers the tasks of the robot's own map and the points of its own status before the floor's", () => {
    const own = { ...status("GS-S-000101", "Alpha"), navigationPoints: { naviPoints: [{ naviPointName: "Desk", navPointGridX: 1, navPointGridY: 1 }] } };
    const view = fleetView(input(kept(own, status("GS-S-000102", "Bravo"))), t);
    assert.deepEqual(robotOf(view, "GS-S-000101").tasks, ["All of Lobby floor"]);
    assert.deepEqual(robotOf(view, "GS-S-000101").points, ["Desk"]);
    assert.deepEqual(robotOf(view, "GS-S-000102").points, ["Desk"], "a robot without points gets its floor's");
  });

  it("gives each open alarm its robot's name, level in words, since when and its floor, the most severe first; each robot its most severe", () => {
    const view = fleetView(
      input(kept(status("GS-S-000101", "Alpha"), status("GS-S-000102", "Bravo", {}, CAR_PARK)), {
        alarms: [
          alarm("GS-S-000101", "i1", 3),
          alarm("GS-S-000101", "i2", 6, { mapName: "Lobby floor" }),
          alarm("GS-S-000102", "i3", 5, { mapName: "Old map" }),
          { serialNumber: "GS-S-000999", incidentId: "i4", raisedAt: "2026-11-26T07:00:00.000Z", code: "E12" },
        ],
      }),
      t,
    );
    assert.deepEqual(
      view.alarms.open.map(({ incidentId, robotName, levelText, since, mapName, floorId }) => ({ incidentId, robotName, levelText, since, mapName, floorId })),
      [
        // An unreadable level counts as the highest (severityOf).
        { incidentId: "i4", robotName: "GS-S-000999", levelText: "unknown level", since: "2026-11-26T07:00:00.000Z", mapName: undefined, floorId: undefined },
        { incidentId: "i2", robotName: "Alpha", levelText: "fault", since: "2026-11-26T07:30:00.000Z", mapName: "Lobby floor", floorId: LOBBY_FLOOR },
        { incidentId: "i3", robotName: "Bravo", levelText: "hidden danger", since: "2026-11-26T07:30:00.000Z", mapName: "Old map", floorId: undefined },
        { incidentId: "i1", robotName: "Alpha", levelText: "warning", since: "2026-11-26T07:30:00.000Z", mapName: "Lobby floor", floorId: LOBBY_FLOOR },
      ],
    );
    assert.deepEqual(robotOf(view, "GS-S-000101").alarm, { level: "H6", text: "H6 Fault i2" });
    assert.equal(robotOf(view, "GS-S-000101").alarms, 2);
    assert.equal(robotOf(view, "GS-S-000102").alarms, 1);
    assert.deepEqual(view.alarms.shift, []);
  });

  it("sorts robots by name, dates them by their status's read, and has every word", () => {
    const view = fleetView(input([{ status: status("GS-S-000102", "Zulu"), at: AT }, { status: status("GS-S-000101", "Alpha"), at: AT - 60_000 }, { status: { online: true }, at: AT }]), t);
    assert.deepEqual(
      view.robots.map((robot) => [robot.name, robot.updatedAt]),
      [
        ["Alpha", "2026-11-26T07:59:00.000Z"],
        ["Zulu", "2026-11-26T08:00:00.000Z"],
      ],
    );
    assert.equal(view.at, "2026-11-26T08:00:05.000Z");
    for (const key of VIEW_WORDS) assert.match(String(view.words[key]), /^[^.]+$/, `words.${key} is a word, not a key`);
    assert.equal((view.words.actions as Record<string, string>).toCharger, "to charger");
    assert.equal((view.words.states as Record<string, string>).emergencyStop, "emergency stop");
  });

  it("orders alarms of one level newest first, and robots and floors by name in natural order", () => {
    const view = fleetView(
      input(kept(status("GS-S-000111", "Scrubber 11"), status("GS-S-000102", "Scrubber 2"), status("GS-S-000110", "scrubber 10"), status("GS-S-000101", "Scrubber 1", {}, CAR_PARK)), {
        alarms: [alarm("GS-S-000102", "older", 5, { raisedAt: "2026-11-26T07:00:00.000Z" }), alarm("GS-S-000111", "newer", 5, { raisedAt: "2026-11-26T07:01:00.000Z" })],
        places: new Map([
          ["map-floor-10", { mapName: "Floor 10", areas: [] }],
          ["map-floor-9", { mapName: "Floor 9", areas: ["Hall"] }],
        ]),
      }),
      t,
    );
    assert.deepEqual(
      view.alarms.open.map((open) => open.incidentId),
      ["newer", "older"],
    );
    assert.deepEqual(
      view.robots.map((robot) => robot.name),
      ["Scrubber 1", "Scrubber 2", "scrubber 10", "Scrubber 11"],
    );
    assert.deepEqual(
      view.floors.map((floor) => floor.mapName),
      ["Car park", "Floor 9", "Floor 10", "Lobby floor"],
    );
  });

  it("lists a floor no robot is on, with its areas drawn at its foot where its image is known, and no navigation point", () => {
    const view = fleetView(
      input(kept(status("GS-S-000101", "Alpha")), {
        places: new Map([
          [LOBBY_FLOOR, { mapName: "Lobby floor", areas: ["Lobby", "Kitchen & bar"] }],
          [CAR_PARK, { mapName: "Car park", areas: ["Ramp"] }],
          ["map-roof", { mapName: "Roof", areas: [] }],
        ]),
      }),
      t,
    );
    assert.deepEqual(
      view.floors.map(({ mapName, robots, areas }) => ({ mapName, robots, areas })),
      [
        { mapName: "Car park", robots: 0, areas: ["Ramp"] },
        { mapName: "Lobby floor", robots: 1, areas: ["Lobby", "Kitchen & bar"] },
        { mapName: "Roof", robots: 0, areas: [] },
      ],
    );
    const [carPark, lobby, roof] = view.floors;
    assert.match(carPark!.svg, /<g class="area" data-area="Ramp"/);
    assert.doesNotMatch(carPark!.svg, /<g class="navigation-point"|data-serial-number/);
    assert.match(lobby!.svg, /<text class="areas-heading"[^>]*>Areas:<\/text>.*<g class="area" data-area="Lobby".*<g class="area" data-area="Kitchen &amp; bar"/);
    assert.equal(roof!.svg, "", "no image known: listed, not drawn");
  });

  it("marks a robot that needs attention: an open alarm, its emergency stop, offline, or at most 20 % battery and not charging", () => {
    const battery = (soc: number, charging = false) => ({ battery: { charging, soc } });
    const view = fleetView(
      input(
        kept(
          status("GS-S-000101", "Well", battery(21)),
          status("GS-S-000102", "Low", battery(20)),
          status("GS-S-000103", "Charging", battery(5, true)),
          status("GS-S-000104", "Stopped", { emergencyStop: { enabled: true } }),
          status("GS-S-000105", "Away", { online: false }),
          status("GS-S-000106", "Ringing"),
        ),
        { alarms: [alarm("GS-S-000106", "i1", 2)] },
      ),
      t,
    );
    assert.deepEqual(
      view.robots.map((robot) => [robot.name, robot.attention, robot.lowBattery]),
      [
        ["Away", true, false],
        ["Charging", false, false],
        ["Low", true, true],
        ["Ringing", true, false],
        ["Stopped", true, false],
        ["Well", false, false],
      ],
    );
  });

  it("shows a robot named twice once, by its latest status, and reads odd fields as absent", () => {
    const view = fleetView(
      input([
        { status: status("GS-S-000101", "Lobby scrubber", { taskState: "PAUSED" }), at: AT - 1000 },
        { status: status("GS-S-000101", "Lobby scrubber", { executableTasks: "all", executingTask: { progress: "abc" }, taskState: "RUNNING", navigationPoints: 5, battery: "full" }), at: AT },
        { status: status("GS-S-000101", "Lobby scrubber", { online: false }), at: AT - 2000 },
      ]),
      t,
    );
    assert.equal(view.robots.length, 1);
    const [robot] = view.robots;
    assert.equal(robot!.name, "Lobby scrubber", "named by the robot list, whichever status is shown");
    assert.deepEqual([robot!.tasks, robot!.points, robot!.task, robot!.battery, robot!.state], [[], [], undefined, null, "cleaning"]);
    assert.equal(view.floors[0]!.robots, 1);
  });

  describe("the upkeep view", () => {
    const today = dayFormatter(undefined)(AT + 5000);
    const forecastRow = (serialNumber: string, dueInDays: number, remaining = 0.3): UpkeepRobot => ({
      serialNumber,
      readAt: new Date(AT).toISOString(),
      parts: [{ part: "filter", remaining, threshold: 0.1, forecast: { basis: "plan", historyDays: 21, hoursPerDay: 5.5, dueDay: dayAfter(today, dueInDays) } }],
      // The table's tanks are older than the status's: the status's show.
      tanks: { cleanWater: 0 },
      battery: {},
    });
    const device = (cleanWater: number, recoveryWater: number) => ({
      device: { cleanWaterTank: { level: cleanWater }, recoveryWaterTank: { level: recoveryWater }, filter: { lifeSpan: 200, usedLife: 60 } },
    });

    it("lists a part due on the 14th day ahead, not the 15th; one under its threshold first; tanks from the status: clean under 15 %, recovery over 85 %", () => {
      const rows = new Map([
        ["GS-S-000101", forecastRow("GS-S-000101", 14)],
        ["GS-S-000102", forecastRow("GS-S-000102", 15)],
        ["GS-S-000103", forecastRow("GS-S-000103", 13, 0.1)],
      ]);
      const view = fleetView(
        input(
          kept(
            status("GS-S-000101", "Lobby scrubber", device(14, 85)),
            status("GS-S-000102", "Kitchen scrubber", device(15, 86)),
            status("GS-S-000103", "Hall scrubber", device(16, 84)),
          ),
          { upkeepOf: (serialNumber) => rows.get(serialNumber) },
        ),
        t,
      );
      assert.deepEqual(
        view.upkeep.parts.map((part) => [part.robotName, part.partText, part.remaining, part.overdue, part.dueDay]),
        [
          ["Hall scrubber", "Filter", 10, true, dayAfter(today, 13)],
          ["Lobby scrubber", "Filter", 30, false, dayAfter(today, 14)],
        ],
      );
      assert.equal(view.upkeep.parts[0]!.dueText, "under its threshold now");
      assert.equal(view.upkeep.parts[1]!.basisText, "at the planned 5.5 h a day · 21 days of history");
      assert.deepEqual(
        view.upkeep.tanks.map((tank) => [tank.robotName, tank.tank, tank.level, tank.todoText]),
        [
          ["Kitchen scrubber", "recoveryWater", 86, "empty it"],
          ["Lobby scrubber", "cleanWater", 14, "fill it"],
        ],
      );
      assert.equal(view.upkeep.dueBy, dayAfter(today, 14));
      assert.equal(view.upkeep.count, 4);
    });

    for (const zone of ["Pacific/Auckland", "America/Los_Angeles"]) {
      it(`takes today in the robots' zone (${zone}): a part due on the 14th day ahead is listed from its local midnight, not 1 ms before`, () => {
        const midnight = DateTime.fromISO("2026-11-27T00:00", { zone }).toMillis();
        const row: UpkeepRobot = { ...forecastRow("GS-S-000101", 0), zone };
        row.parts[0]!.forecast.dueDay = dayAfter("2026-11-27", 14);
        const listed = (now: number) =>
          fleetView(input(kept(status("GS-S-000101", "Lobby scrubber")), { now: new Date(now), upkeepOf: () => row }), t).upkeep.parts.length;
        assert.equal(listed(midnight), 1, "today + 14");
        assert.equal(listed(midnight - 1), 0, "today + 15");
      });
    }

    it("without a robot-upkeep on the account lists only what the status says now: a part at its 10 % threshold, no due day", () => {
      const view = fleetView(
        input(
          kept(
            status("GS-S-000101", "Lobby scrubber", { device: { filter: { lifeSpan: 100, usedLife: 90 }, rollingBrush: { lifeSpan: 100, usedLife: 89 } } }),
            status("GS-S-000102", "Kitchen scrubber"),
          ),
        ),
        t,
      );
      assert.deepEqual(
        view.upkeep.parts.map((part) => [part.robotName, part.part, part.dueText, part.basisText]),
        [["Lobby scrubber", "filter", "under its threshold now", "too little history to say"]],
      );
    });

    it("counts the batteries whose health is known and normal; lists those not HEALTHY or over 55 °C", () => {
      const battery = (soh: string, hottest: number) => ({ battery: { soc: 64, soh, cycleTimes: "412", temperature1: 30, temperature2: hottest } });
      const view = fleetView(
        input(
          kept(
            status("GS-S-000101", "Lobby scrubber", battery("HEALTHY", 55)),
            status("GS-S-000102", "Kitchen scrubber", battery("HEALTHY", 56)),
            status("GS-S-000103", "Hall scrubber", battery("DEGRADED", 30)),
            status("GS-S-000104", "Car park sweeper"),
          ),
        ),
        t,
      );
      assert.deepEqual(
        view.upkeep.batteries.notices.map((notice) => [notice.robotName, notice.text, notice.cycles]),
        [
          ["Hall scrubber", "health: DEGRADED", 412],
          ["Kitchen scrubber", "health: HEALTHY · hottest cell 56 °C", 412],
        ],
      );
      assert.deepEqual([view.upkeep.batteries.known, view.upkeep.batteries.normal], [3, 1]);
    });
  });
});
