/**
 * robot-maps' fleetView through real Node-RED against the simulator: with
 * nothing kept it reads every robot's v1 status once (tasks, progress) and
 * one S-line status per floor for its navigation points; with the account's
 * last statuses kept it asks for no status at all; msg.statuses wins; the
 * account's open alarms and held jobs show, and a part's forecast from the
 * account's upkeep history; a bad msg.statuses is an error
 * naming it with nothing sent. The Chinese model: test/nodes/fleet-view-zh.test.ts.
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { jobsOfAccount, type JobRecord } from "../../src/api/jobs/job-book";
import { alarmsOfAccount } from "../../src/api/pushes/open-alarms";
import { readPush, type IncidentEvent } from "../../src/api/pushes/pushes";
import { fleetStatusesOf } from "../../src/api/watching/fleet-statuses";
import { upkeepHistoryOf } from "../../src/api/upkeep/history";
import { upkeepTableOfAccount } from "../../src/api/upkeep/table-builder";
import { readStatus } from "../../src/api/watching/status-reader";
import type { FleetView } from "../../src/nodes/robot-maps/fleet-view";
import robotMaps from "../../src/nodes/robot-maps/robot-maps";
import robotUpkeep from "../../src/nodes/robot-upkeep";
import type { UpkeepRobot } from "../../src/api/upkeep/table";
import { DEMO_TOKEN, demoFleet } from "../../src/simulator";
import { runTaskOn, useClientOnSimulator } from "../support/client-on-server";
import { collectMessages, flowWith, helper, loadFlow, outcomeOf, outputsAndCatch, recordStatuses, useNodeRed } from "../support/node-red";
import { until } from "../support/until";
import { robotMapsNode } from "../support/fixtures";
import { DAY_MS, workDays } from "../support/upkeep-days";
import { shapeProblems } from "../support/recorded-shapes";

const LOBBY = "GS-S-000101";
const WAREHOUSE = "GS-S-000201";
const FLEET = demoFleet().robots;
/** The floors robots stand on, and every floor their map lists name (Floor 2 has no robot on it). */
const FLOOR_NAMES = [...new Set(FLEET.map((robot) => robot.maps.find((map) => map.id === robot.localization.mapId)!.name))].sort();
const ALL_FLOOR_NAMES = [...new Set(FLEET.flatMap((robot) => robot.maps.map((map) => map.name)))].sort();

describe("robot-maps: fleetView against the simulator", function () {
  this.timeout(30_000);
  const requests: string[] = [];
  const cloud = useClientOnSimulator({ quiet: false, log: (line) => requests.push(line) });
  beforeEach(() => (requests.length = 0));
  afterEach(() => forgetAccountMemory());
  useNodeRed();

  async function load() {
    await loadFlow([robotMaps], flowWith(cloud.simulator.url, [robotMapsNode("maps", { operation: "fleetView", serialNumber: "", mapId: "" }), ...outputsAndCatch("maps")]), {
      config: { token: DEMO_TOKEN },
    });
  }
  const accountKey = () => (helper.getNode("config") as unknown as { robot: { client: { accountKey: string } } }).robot.client.accountKey;
  const statusCalls = () => requests.filter((line) => /status/.test(line.split(" ")[1] ?? ""));

  async function view(msg: Record<string, unknown> = { payload: "tick", topic: "console" }): Promise<FleetView & { topic?: unknown }> {
    const { output, caught } = await outcomeOf("maps", msg);
    assert.equal(caught, undefined, JSON.stringify(caught?.error));
    assert.ok(output);
    return Object.assign(output.payload as FleetView, { topic: output.topic });
  }

  it("with nothing kept reads every robot's v1 status once, and one S-line status per floor for its points", async () => {
    await load();
    const statuses = recordStatuses("maps");
    await runTaskOn(cloud.simulator, LOBBY, "All of Floor 1", "Floor 1");
    requests.length = 0;

    const model = await view();
    assert.equal(model.topic, "console", "msg.topic stays as it came");
    assert.deepEqual(
      model.floors.map((floor) => floor.mapName),
      ALL_FLOOR_NAMES,
    );
    assert.ok(ALL_FLOOR_NAMES.length > FLOOR_NAMES.length, "a floor with no robot on it is listed too");
    assert.deepEqual(
      model.robots.map((robot) => robot.serialNumber).sort(),
      FLEET.map((robot) => robot.serialNumber).sort(),
    );
    assert.equal(model.floors.reduce((sum, floor) => sum + floor.robots, 0), FLEET.length);
    for (const floor of model.floors) {
      for (const robot of model.robots.filter((each) => each.mapId === floor.mapId)) assert.match(floor.svg, new RegExp(`data-serial-number="${robot.serialNumber}"`));
      const map = FLEET.flatMap((robot) => robot.maps).find((each) => each.id === floor.mapId)!;
      // Each floor's areas, by the names an area job takes, drawn at its foot; with or without robots.
      assert.deepEqual(floor.areas, map.partitions.map((partition) => partition.name));
      for (const area of floor.areas) assert.match(floor.svg, new RegExp(`<g class="area" data-area="${area}"`));
      if (floor.robots === 0) continue;
      assert.match(floor.svg, /<g class="navigation-point" data-name="[^"]+"/, `${floor.mapName} shows its navigation points`);
    }
    const empty = model.floors.find((floor) => !FLOOR_NAMES.includes(floor.mapName))!;
    assert.deepEqual([empty.robots, empty.alarms], [0, 0]);
    assert.match(empty.svg, /<image href="data:image\/png;base64,/, "drawn with its image");
    const lobby = model.robots.find((robot) => robot.serialNumber === LOBBY)!;
    assert.equal(lobby.state, "cleaning");
    assert.equal(lobby.stateText, "cleaning All of Floor 1");
    assert.equal(lobby.task?.name, "All of Floor 1");
    assert.ok(typeof lobby.task?.progress === "number" && lobby.task.progress >= 0 && lobby.task.progress <= 1, JSON.stringify(lobby.task));
    assert.match(lobby.task.text, /^\d+ % · (\d+ min left|under a minute left)$/);
    assert.deepEqual(
      lobby.actions.map((action) => action.action),
      ["toCharger", "pause", "stop"],
    );
    const warehouse = model.robots.find((robot) => robot.serialNumber === WAREHOUSE)!;
    assert.deepEqual(
      warehouse.actions.map((action) => action.label),
      ["start task", "go to point", "to charger"],
    );
    assert.ok(warehouse.tasks.includes("All of Warehouse"), JSON.stringify(warehouse.tasks));
    const warehouseMap = FLEET.find((robot) => robot.serialNumber === WAREHOUSE)!.maps[0]!;
    assert.deepEqual(warehouse.points, warehouseMap.navigationPoints.map((point) => point.name));
    assert.equal(typeof warehouse.battery, "number");

    const calls = statusCalls();
    assert.equal(calls.filter((line) => line.includes("status:batchGet")).length, 1, calls.join("\n"));
    assert.equal(calls.filter((line) => /\/s\/robots\/[^/]+\/status/.test(line)).length, FLOOR_NAMES.length, calls.join("\n"));
    assert.match(String(statuses.at(-1)?.text), new RegExp(`^${ALL_FLOOR_NAMES.length} floors, ${FLEET.length} robots$`));
  });

  it("draws from the account's last statuses without a status call, and from msg.statuses when given", async () => {
    await load();
    const read = await cloud.client.batchGetStatuses([LOBBY, WAREHOUSE], { line: "s" });
    fleetStatusesOf(accountKey()).record(read, Date.parse("2026-11-26T08:00:00Z"));
    requests.length = 0;
    const model = await view();
    assert.deepEqual(
      model.robots.map((robot) => [robot.serialNumber, robot.updatedAt]),
      [
        [LOBBY, "2026-11-26T08:00:00.000Z"],
        [WAREHOUSE, "2026-11-26T08:00:00.000Z"],
      ],
    );
    assert.deepEqual(statusCalls(), [], "the S-line statuses carry their points: no status call");

    const given = await view({ statuses: [read[1]] });
    assert.deepEqual(
      given.robots.map((robot) => robot.serialNumber),
      [WAREHOUSE],
    );
    assert.deepEqual(
      given.floors.map((floor) => floor.mapName),
      ["Warehouse"],
    );
  });

  it("shows a part's forecast from the account's upkeep history: a filter worn 5 h a day for 10 days, due within the 14 days", async () => {
    await load();
    const history = upkeepHistoryOf(accountKey());
    const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    // 10 days of 5 h at 1 h of the filter's 201 an hour: from 100 to 150 used (25 % left), 2.5 % a day from 10 %.
    const used = workDays(history, { serialNumber: WAREHOUSE, lifeSpan: 201, usedLife: 100, from: midnight - 10 * DAY_MS, days: 10, hoursPerDay: 5 });
    const [read] = (await cloud.client.batchGetStatuses([WAREHOUSE], { line: "v1" })) as Record<string, unknown>[];
    const model = await view({ statuses: [{ ...read, device: { filter: { lifeSpan: 201, usedLife: used } } }], topic: "console" });
    const forecast = upkeepTableOfAccount(accountKey(), [WAREHOUSE])[0]!.parts.find((part) => part.part === "filter")!.forecast;
    assert.ok(forecast.dueDay! <= model.upkeep.dueBy, `${forecast.dueDay} by ${model.upkeep.dueBy}`);
    assert.deepEqual(
      model.upkeep.parts.map((part) => [part.serialNumber, part.part, part.remaining, part.dueDay, part.basisText]),
      [[WAREHOUSE, "filter", 25, forecast.dueDay, `at its recent 5 h a day · ${forecast.historyDays} days of history`]],
    );
  });

  it("shows a part due on the day robot-upkeep says, at its Part due (20 %), not at the default 10 %", async () => {
    await loadFlow(
      [robotMaps, robotUpkeep],
      flowWith(cloud.simulator.url, [
        robotMapsNode("maps", { operation: "fleetView", serialNumber: "", mapId: "" }),
        ...outputsAndCatch("maps"),
        { id: "upkeep", type: "robot-upkeep", robot: "config", serialNumbers: LOBBY, every: 0, partDue: 20, wires: [["tables"], []] },
        { id: "tables", type: "helper" },
      ]),
      { config: { token: DEMO_TOKEN } },
    );
    const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    // 10 days of 5 h at 1 h of the filter's 201 an hour: 25 % left, 2.5 % a day: 20 % in 2 days, 10 % in 6.
    const used = workDays(upkeepHistoryOf(accountKey()), { serialNumber: LOBBY, lifeSpan: 201, usedLife: 100, from: midnight - 10 * DAY_MS, days: 10, hoursPerDay: 5 });
    cloud.simulator.changeWear(LOBBY, { parts: { filter: { usedLife: used, lifeSpan: 201 } } });
    const tables = collectMessages("tables");
    helper.getNode("upkeep").receive({ payload: "read" });
    await until("robot-upkeep's table", () => tables.length === 1);
    const filter = (tables[0]!.payload as UpkeepRobot[])[0]!.parts.find((part) => part.part === "filter")!;
    assert.equal(filter.threshold, 0.2);
    assert.ok(filter.forecast.dueDay, "a forecast from 10 days of history");
    const model = await view();
    const row = model.upkeep.parts.find((part) => part.serialNumber === LOBBY && part.part === "filter");
    assert.deepEqual([row?.remaining, row?.dueDay], [25, filter.forecast.dueDay]);
  });

  it("shows the account's open alarms on their robots and floors, and cancelling the job that holds a robot", async () => {
    await load();
    const alarms = alarmsOfAccount(accountKey());
    const pushed = readPush({
      appId: "a",
      payload: { serialNumber: WAREHOUSE, content: { incidentId: "i-9", incidentStatus: 1, incidentLevel: "H6", incidentName: "Brush motor fault", startTime: 1764000000000 } },
    }) as { event: IncidentEvent };
    alarms.record(pushed.event);
    jobsOfAccount(accountKey()).add({
      jobId: "job-1",
      nodeId: "elsewhere",
      work: { kind: "goto", point: "charging", map: "Floor 1" },
      settings: { minBattery: 0, waitUpToMs: 0, tries: 1, confirmTimeoutMs: 1000 },
      phase: "running",
      createdAt: Date.now(),
      serialNumber: LOBBY,
      attempts: [],
      setAside: {},
    } satisfies JobRecord);
    const model = await view();
    const [alarm] = model.alarms.open;
    assert.equal(model.alarms.open.length, 1);
    assert.equal(alarm!.robotName, "Warehouse sweeper");
    assert.equal(alarm!.levelText, "fault");
    assert.equal(alarm!.since, new Date(1764000000000).toISOString());
    const warehouseFloor = model.floors.find((floor) => floor.mapName === "Warehouse")!;
    assert.equal(alarm!.floorId, warehouseFloor.mapId);
    assert.deepEqual(
      model.floors.map((floor) => [floor.mapName, floor.alarms]),
      ALL_FLOOR_NAMES.map((name) => [name, name === "Warehouse" ? 1 : 0]),
    );
    assert.match(warehouseFloor.svg, new RegExp(`data-serial-number="${WAREHOUSE}"[^>]*>.*?alarm-ring`));
    const lobby = model.robots.find((robot) => robot.serialNumber === LOBBY)!;
    assert.deepEqual(lobby.job, { jobId: "job-1", text: "to charger" });
    assert.equal(lobby.actions.at(-1)?.action, "cancelJob");
    assert.deepEqual(model.robots.find((robot) => robot.serialNumber === WAREHOUSE)!.alarm, { level: "H6", text: "H6 Brush motor fault" });
  });

  it("draws a robot from a status shaped exactly like the recorded v1 answer, whose map has no version: the version from the S-line status", async () => {
    await load();
    const [v1] = await cloud.client.batchGetStatuses([WAREHOUSE], { line: "v1" });
    assert.deepEqual(shapeProblems("v1Status", v1, "the simulator's v1 status"), []);
    assert.equal(readStatus(v1!).mapVersion, undefined, "the recorded v1 status names its map without a version");
    requests.length = 0;
    const model = await view({ statuses: [v1], topic: "console" });
    const [floor] = model.floors;
    assert.equal(floor?.mapName, "Warehouse");
    assert.match(floor.svg, new RegExp(`data-serial-number="${WAREHOUSE}"`));
    assert.match(floor.svg, /<image href="data:image\/png;base64,/);
    // Before the image, the robot's S-line status: its points and its map's version (the map call wants one).
    const calls = requests.map((line) => line.split(" ").slice(0, 2).join(" "));
    const leanCall = calls.indexOf(`GET /openapi/v2alpha1/s/robots/${WAREHOUSE}/status`);
    assert.ok(leanCall >= 0 && leanCall < calls.indexOf(`GET /openapi/v2alpha1/robots/${WAREHOUSE}/map`), requests.join("\n"));
  });

  it("draws a kept v1 read under an older S-line read of the same map with no status call: the kept version", async () => {
    await load();
    const [lean] = await cloud.client.batchGetStatuses([WAREHOUSE], { line: "s" });
    const [v1] = await cloud.client.batchGetStatuses([WAREHOUSE], { line: "v1" });
    fleetStatusesOf(accountKey()).record([lean!], 1000);
    fleetStatusesOf(accountKey()).record([v1!], 2000);
    requests.length = 0;
    const model = await view();
    assert.match(model.floors[0]!.svg, new RegExp(`data-serial-number="${WAREHOUSE}"`));
    assert.deepEqual(statusCalls(), [], "the version kept from the S-line read: no status call");
  });

  it("ends in one catchable error, nothing sent, when a floor's image cannot be had", async () => {
    await load();
    const [lobby] = await cloud.client.batchGetStatuses([LOBBY], { line: "s" });
    const elsewhere = structuredClone(lobby!) as { localizationInfo: { map: { id: string } } };
    elsewhere.localizationInfo.map.id = "no-such-map";
    const { output, caught } = await outcomeOf("maps", { statuses: [elsewhere], topic: "console" });
    assert.equal(output, undefined);
    assert.ok(caught, "one error at the Catch node");
    assert.equal(caught.topic, "console");
    assert.match((caught.error as { message: string }).message, /no-such-map|not found|404/i);
  });

  it("refuses a msg.statuses that is not a list of statuses, naming it, with nothing sent or asked", async () => {
    await load();
    requests.length = 0;
    for (const statuses of ["all", [1, 2], { serialNumber: LOBBY }]) {
      const { output, caught } = await outcomeOf("maps", { statuses });
      assert.equal(output, undefined);
      const error = caught?.error as { code: string; message: string };
      assert.equal(error.code, "INVALID_INPUT");
      assert.match(error.message, /msg\.statuses: must be an array of robot statuses/);
    }
    assert.deepEqual(requests, []);
  });
});
