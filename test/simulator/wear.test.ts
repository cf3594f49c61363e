/**
 * The simulated robots wear (issue 46), read over HTTP as a client reads
 * them (statuses through upkeepFactsOf, task reports) on a test clock: parts
 * by cleaning time and mode, tanks while scrubbing, battery cycles by charge,
 * a seeded spread of wear, the demo's upkeep, 30 simulated days against the
 * simulator's own truth, and the control requests that replace, reset, refill
 * and set, each at its bounds.
 */
import assert from "node:assert/strict";
import { upkeepFactsOf, reportedResidualsOf, type UpkeepFacts, type WearPart } from "../../src/api/upkeep/facts";
import { DEMO_TOKEN, startSimulator, type WearTruth } from "../../src/simulator";
import { rawRequest } from "../support/raw-http";
import { useSimulator } from "../support/simulator";

const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";
const WAREHOUSE = "GS-S-000201";
/** 2026-01-05T00:00:00Z. */
const START_MS = Date.parse("2026-01-05T00:00:00Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type Json = Record<string, unknown>;

describe("simulator: robots wear with cleaning time", function () {
  let clock = START_MS;
  beforeEach(() => {
    clock = START_MS;
  });
  const sim = useSimulator({ now: () => clock, timing: { batteryChargePerMinute: 5 } });

  const call = async (method: string, target: string, body?: unknown): Promise<{ status: number; json: Json }> => {
    const answer = await rawRequest(sim.simulator.url, method, target, { token: DEMO_TOKEN, body });
    return { status: answer.status, json: answer.json as Json };
  };
  const ok = async (method: string, target: string, body?: unknown): Promise<Json> => {
    const { status, json } = await call(method, target, body);
    assert.equal(status, 200, `${method} ${target}: ${JSON.stringify(json)}`);
    return json;
  };
  /** The robot's upkeep as a client reads it from B1. */
  const facts = async (serialNumber: string): Promise<UpkeepFacts> =>
    upkeepFactsOf(await ok("GET", `/openapi/v2alpha1/s/robots/${serialNumber}/status`))!;
  /** The same from the v1 batch. */
  const v1Facts = async (serialNumber: string): Promise<UpkeepFacts> => {
    const { robotStatuses } = (await ok("GET", `/v1alpha1/robots/-/status:batchGet?names=${serialNumber}`)) as { robotStatuses: Json[] };
    return upkeepFactsOf(robotStatuses[0])!;
  };
  const used = (upkeep: UpkeepFacts): Partial<Record<WearPart, number>> =>
    Object.fromEntries(upkeep.parts.map((part) => [part.part, part.usedLife]));
  const truth = async (serialNumber: string, query = ""): Promise<WearTruth> =>
    (await ok("GET", `/_sim/robots/${serialNumber}/wear${query}`)) as unknown as WearTruth;
  const start = (serialNumber: string, cleaningMode: string) =>
    ok("POST", `/v1alpha1/robots/${serialNumber}/commands`, {
      serialNumber,
      remoteTaskCommandType: "START_TASK",
      commandParameter: {
        startTaskParameter: {
          cleaningMode,
          task: { name: "Round", map: serialNumber === WAREHOUSE ? "Warehouse" : "Floor 1", loop: false, loopCount: 1 },
        },
      },
    });
  const command = (serialNumber: string, type: string) =>
    ok("POST", `/v1alpha1/robots/${serialNumber}/commands`, { serialNumber, remoteTaskCommandType: type });
  /** A task that runs `hours` by the clock, then is stopped; its report, newest first. */
  async function clean(serialNumber: string, cleaningMode: string, hours: number): Promise<Json> {
    await start(serialNumber, cleaningMode);
    clock += hours * HOUR;
    await command(serialNumber, "STOP_TASK");
    const floor = new Date(clock - 30 * DAY).toISOString();
    const listed = (await ok(
      "GET",
      `/openapi/v2alpha1/robots/${serialNumber}/taskReports?startTimeUtcFloor=${floor}&startTimeUtcUpper=${new Date(clock + 1).toISOString()}&page=1&pageSize=1`,
    )) as { robotTaskReports: Json[] };
    return listed.robotTaskReports[0]!;
  }
  const wear = (serialNumber: string, body: unknown) => call("PATCH", `/_sim/robots/${serialNumber}/wear`, body);

  it("starts each robot at its own wear, the same on every start; the demo shows a part nearly due and a tank that needs a person", async function () {
    const [lobby, kitchen, warehouse] = [await facts(LOBBY), await facts(KITCHEN), await facts(WAREHOUSE)];
    const squeegee = lobby.parts.find((part) => part.part === "softSqueegee")!;
    assert.equal(squeegee.usedLife, 222.5);
    assert.ok(squeegee.remaining > 0.1 && squeegee.remaining < 0.12, `11 % left, ${squeegee.remaining}`);
    assert.equal(kitchen.tanks.cleanWater, 12, "under the 15 % a person refills at");
    const filter = warehouse.parts.find((part) => part.part === "filter")!;
    assert.ok(
      filter.remaining <= 0.1 && filter.remaining > 0.07,
      `a part due from the start: the sweeper's filter at 8 % left, ${filter.remaining}`,
    );
    assert.notDeepEqual(used(lobby), used(kitchen), "two scrubbers, two wears");
    assert.deepEqual(
      warehouse.parts.map((part) => part.part),
      ["rollingBrush", "rollingDustPush", "filter"],
      "a sweeper has its own parts",
    );
    assert.deepEqual(warehouse.tanks, {}, "and no tanks");
    assert.deepEqual(lobby.battery.health, "HEALTHY");
    assert.ok(lobby.battery.cycles! > 0 && lobby.battery.hottestCell! > 20);
    assert.deepEqual(await v1Facts(LOBBY), lobby, "the v1 status carries the same");
    sim.simulator.reset();
    assert.deepEqual(await facts(KITCHEN), kitchen, "seeded: the same after a reset");
  });

  it("a grown fleet shows a spread of wear", async function () {
    const grown = await startSimulator({ quiet: true, rateLimit: false, robots: 20 });
    try {
      const filters = grown.state.serialNumbers().map((serialNumber) => grown.state.robot(serialNumber)!.wear.parts.filter!.usedLife);
      assert.ok(new Set(filters).size >= 15, `20 robots, ${new Set(filters).size} filter counters`);
      assert.ok(Math.max(...filters) - Math.min(...filters) > 100, "from little to much worn");
    } finally {
      await grown.close();
    }
  });

  it("scrubbing wears the scrubber brush and squeegee by the hours it ran, draws clean water and fills the recovery tank; the report's residuals follow", async function () {
    await wear(KITCHEN, { cleanWater: 100, recoveryWater: 0 });
    const before = used(await facts(KITCHEN));
    const report = await clean(KITCHEN, "__middle_cleaning", 2);
    const after = await facts(KITCHEN);
    assert.deepEqual(used(after), {
      ...before,
      scrubberBrush: Math.round((before.scrubberBrush! + 2) * 10) / 10,
      softSqueegee: Math.round((before.softSqueegee! + 2) * 10) / 10,
    });
    assert.deepEqual(after.tanks, { cleanWater: 50, recoveryWater: 44 });
    const percentLeft = (part: WearPart) => Math.round(after.parts.find((wearing) => wearing.part === part)!.remaining * 100) / 100;
    assert.deepEqual(reportedResidualsOf(report), [
      { part: "brush", remaining: percentLeft("scrubberBrush") },
      { part: "filter", remaining: percentLeft("filter") },
      { part: "suctionBlade", remaining: percentLeft("softSqueegee") },
    ]);
  });

  it("sweeping wears the rolling brush and filter and no water; a sweeper wears its dust push in any mode; paused time wears nothing", async function () {
    const before = used(await facts(LOBBY));
    const tanks = (await facts(LOBBY)).tanks;
    await clean(LOBBY, "清扫", 1.5);
    const after = await facts(LOBBY);
    assert.deepEqual(used(after), {
      ...before,
      rollingBrush: Math.round((before.rollingBrush! + 1.5) * 10) / 10,
      filter: Math.round((before.filter! + 1.5) * 10) / 10,
    });
    assert.deepEqual(after.tanks, tanks);

    const sweeper = used(await facts(WAREHOUSE));
    await start(WAREHOUSE, "__middle_cleaning");
    clock += HOUR;
    await command(WAREHOUSE, "PAUSE_TASK");
    clock += 5 * HOUR;
    await command(WAREHOUSE, "STOP_TASK");
    const plusOne = (value: number) => Math.round((value + 1) * 10) / 10;
    assert.deepEqual(used(await facts(WAREHOUSE)), {
      rollingBrush: plusOne(sweeper.rollingBrush!),
      rollingDustPush: plusOne(sweeper.rollingDustPush!),
      filter: plusOne(sweeper.filter!),
    });
  });

  it("a tank is held to 0-100 and a counter goes on past its life span", async function () {
    await wear(KITCHEN, { cleanWater: 10, recoveryWater: 95, parts: { softSqueegee: { usedLife: 249 } } });
    await clean(KITCHEN, "__heavy_cleaning", 1);
    const after = await facts(KITCHEN);
    assert.deepEqual(after.tanks, { cleanWater: 0, recoveryWater: 100 });
    const squeegee = after.parts.find((part) => part.part === "softSqueegee")!;
    assert.deepEqual([squeegee.usedLife, squeegee.remaining], [250, 0]);
    await clean(KITCHEN, "__heavy_cleaning", 1);
    assert.equal((await truth(KITCHEN)).parts.find((part) => part.part === "softSqueegee")!.usedLife, 251);
  });

  it("counts a battery cycle for every 100 % charged at the charger, not before", async function () {
    sim.simulator.updateRobot(KITCHEN, { batteryPercentage: 0, charging: true });
    const cycles = (await facts(KITCHEN)).battery.cycles!;
    clock += 19.9 * 60_000;
    assert.equal((await facts(KITCHEN)).battery.cycles, cycles, "99.5 % charged: no cycle yet");
    clock += 0.1 * 60_000;
    assert.equal((await facts(KITCHEN)).battery.cycles, cycles + 1, "100 % charged: one cycle");
  });

  it("30 simulated days of 5.5 hours' scrubbing bring the squeegee to its share on the day the truth said", async function () {
    await wear(KITCHEN, { parts: { softSqueegee: { usedLife: 100 } } });
    const said = (await truth(KITCHEN, "?share=0.2&hoursPerDay=5.5")).parts.find((part) => part.part === "softSqueegee")!;
    // 250 h life, 100 used: 200 is 20 % left, 100 hours away.
    assert.equal(said.cleaningHoursToShare, 100);
    assert.equal(said.reachesShareAt, new Date(START_MS + (100 / 5.5) * DAY).toISOString());
    let crossedOn: number | undefined;
    for (let day = 0; day < 30; day++) {
      clock = START_MS + day * DAY + 7 * HOUR;
      await clean(KITCHEN, "__middle_cleaning", 5.5);
      const left = (await facts(KITCHEN)).parts.find((part) => part.part === "softSqueegee")!.remaining;
      if (crossedOn === undefined && left <= 0.2) crossedOn = day;
    }
    assert.equal(crossedOn, Math.floor(100 / 5.5), "the day the truth said (day 18 of cleaning)");
    assert.equal((await truth(KITCHEN)).parts.find((part) => part.part === "softSqueegee")!.usedLife, 100 + 30 * 5.5);
  });

  it("replaces a part, resets a counter, refills and empties tanks, sets battery health: shown in the statuses", async function () {
    const replaced = await wear(LOBBY, {
      replace: ["softSqueegee"],
      parts: { filter: { usedLife: 0 } },
      cleanWater: 100,
      recoveryWater: 0,
    });
    assert.equal(replaced.status, 200, JSON.stringify(replaced.json));
    const lobby = await facts(LOBBY);
    assert.equal(used(lobby).softSqueegee, 0);
    assert.equal(used(lobby).filter, 0);
    assert.deepEqual(lobby.tanks, { cleanWater: 100, recoveryWater: 0 });
    const known = await truth(LOBBY);
    assert.equal(
      known.parts.find((part) => part.part === "softSqueegee")!.replacedAt,
      new Date(START_MS).toISOString(),
      "a replacement is kept",
    );
    assert.equal(known.parts.find((part) => part.part === "filter")!.replacedAt, undefined, "a counter reset is no replacement");

    await wear(LOBBY, { battery: { soh: "POOR", cycleTimes: 900, temperatures: [61, 30] } });
    assert.deepEqual((await v1Facts(LOBBY)).battery, { health: "POOR", cycles: 900, hottestCell: 61 });
    const status = await ok("GET", `/openapi/v2alpha1/s/robots/${LOBBY}/status`);
    const battery = status.battery as Json;
    assert.equal(battery.soh, "POOR", "soh stays a word");
    assert.deepEqual([battery.temperature1, battery.temperature2, battery.temperature3], [61, 30, undefined], "one field per cell given");
  });

  it("refuses a bad change naming the field, at each bound, and changes nothing then", async function () {
    const before = await truth(LOBBY);
    const refusals: [unknown, string, string][] = [
      [{ cleanWater: 100.1 }, LOBBY, "cleanWater"],
      [{ recoveryWater: -0.1 }, LOBBY, "recoveryWater"],
      [{ replace: ["wheel"] }, LOBBY, "replace"],
      [{ replace: [] }, LOBBY, "replace"],
      [{ parts: { filter: { usedLife: -0.1 } } }, LOBBY, "parts.filter.usedLife"],
      [{ parts: { filter: { lifeSpan: 0 } } }, LOBBY, "parts.filter.lifeSpan"],
      [{ battery: { soh: " " } }, LOBBY, "battery.soh"],
      [{ battery: { temperatures: [1, 2, 3, 4, 5, 6, 7, 8] } }, LOBBY, "battery.temperatures"],
      [{ battery: { cycleTimes: 1.5 } }, LOBBY, "battery.cycleTimes"],
      [{ level: 3 }, LOBBY, "level"],
      // What the model lacks, refused whole: the filter's change in the same request is not made.
      [{ parts: { scrubberBrush: { usedLife: 0 }, filter: { usedLife: 0 } } }, WAREHOUSE, "parts.scrubberBrush"],
      [{ replace: ["filter", "softSqueegee"] }, WAREHOUSE, "replace"],
      [{ cleanWater: 100 }, WAREHOUSE, "cleanWater"],
    ];
    const warehouseBefore = await truth(WAREHOUSE);
    for (const [body, serialNumber, field] of refusals) {
      const { status, json } = await wear(serialNumber, body);
      assert.equal(status, 400, JSON.stringify(body));
      assert.match(String(json.message), new RegExp(`^${field.replaceAll(".", "\\.")}\\b`), JSON.stringify(body));
    }
    assert.deepEqual(await truth(LOBBY), before, "nothing changed");
    assert.deepEqual(await truth(WAREHOUSE), warehouseBefore, "nothing changed on the sweeper");
    for (const body of [
      { cleanWater: 100 },
      { recoveryWater: 0 },
      { parts: { filter: { usedLife: 0 } } },
      { battery: { temperatures: [1, 2, 3, 4, 5, 6, 7] } },
    ])
      assert.equal((await wear(LOBBY, body)).status, 200, `the bound itself: ${JSON.stringify(body)}`);
  });

  it("answers the truth's query at its bounds, 404 for an unknown robot and 405 for another method", async function () {
    assert.equal((await truth(LOBBY, "?share=0&hoursPerDay=24")).hoursPerDay, 24);
    assert.equal((await truth(LOBBY, "?share=1")).share, 1);
    for (const [query, field] of [
      ["?share=1.01", "share"],
      ["?share=-0.01", "share"],
      ["?hoursPerDay=0", "hoursPerDay"],
      ["?hoursPerDay=24.1", "hoursPerDay"],
      ["?days=3", "days"],
    ]) {
      const { status, json } = await call("GET", `/_sim/robots/${LOBBY}/wear${query}`);
      assert.equal(status, 400, query);
      assert.match(String(json.message), new RegExp(`^${field}\\b`), query);
    }
    assert.equal((await call("GET", "/_sim/robots/GS-S-999999/wear")).status, 404);
    const wrong = await rawRequest(sim.simulator.url, "POST", `/_sim/robots/${LOBBY}/wear`, { body: {} });
    assert.deepEqual([wrong.status, wrong.headers.allow], [405, "GET, PATCH"]);
  });
});
