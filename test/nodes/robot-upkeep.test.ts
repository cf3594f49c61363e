/**
 * robot-upkeep in real Node-RED against a fleet on loopback whose statuses the
 * test sets (test/support/fleet-stub.ts, the recorded v1 device and battery
 * fields): each notice at its limit and one each side, once per crossing and
 * cleared once; a counter reset by the cloud read as a part as new, not as
 * negative wear; the open notices kept through a redeploy; bad messages and
 * settings refused naming the field, with nothing read.
 */
import assert from "node:assert/strict";
import { accountKeyOf, forgetAccountMemory } from "../../src/api/account/account-memory";
import { upkeepLimitsOfAccount } from "../../src/nodes/shared/upkeep-table";
import robotUpkeep from "../../src/nodes/robot-upkeep";
import type { UpkeepRobot } from "../../src/api/upkeep/table";
import { FleetStub, stubSerial } from "../support/fleet-stub";
import { TEST_TOKEN, collectMessages, flowWith, helper, loadFlow, recordStatuses, useNodeRed, waitFor, type FlowNode } from "../support/node-red";

const LOBBY = stubSerial(1);
const HALL = stubSerial(2);

interface Notice {
  kind: string;
  state: string;
  serialNumber: string;
  part?: string;
  value: number | string;
  limit: number | string;
  name: string;
  text: string;
}

describe("robot-upkeep: the upkeep table, and a notice once per crossing", function () {
  this.timeout(30_000);
  let stub: FleetStub;
  beforeEach(async () => {
    stub = await new FleetStub(2).start();
    stub.update(LOBBY, (status) => {
      status.device = { filter: { lifeSpan: 300, usedLife: 100 }, cleanWaterTank: { level: 60 }, recoveryWaterTank: { level: 20 } };
      Object.assign(status.battery, { soh: "HEALTHY", cycleTimes: 212, temperature1: 30, temperature2: 31 });
    });
  });
  afterEach(async () => {
    await stub.server.stop();
    forgetAccountMemory();
  });
  useNodeRed();

  function flow(settings: Record<string, unknown> = {}): FlowNode[] {
    return flowWith(stub.url, [
      {
        id: "upkeep",
        type: "robot-upkeep",
        robot: "config",
        serialNumbers: "",
        every: 0,
        partDue: 10,
        cleanWaterBelow: 15,
        recoveryWaterAbove: 85,
        batteryHotAbove: 55,
        ...settings,
        wires: [["table"], ["notices"]],
      },
      { id: "table", type: "helper" },
      { id: "notices", type: "helper" },
      { id: "catch-errors", type: "catch", scope: ["upkeep"], uncaught: false, wires: [["caught"]] },
      { id: "caught", type: "helper" },
    ]);
  }

  let tables: Record<string, unknown>[];
  let notices: Record<string, unknown>[];
  let caught: Record<string, unknown>[];
  async function deploy(settings: Record<string, unknown> = {}) {
    await loadFlow([robotUpkeep], flow(settings));
    listen();
  }
  async function redeploy(settings: Record<string, unknown>) {
    await helper.setFlows(flow(settings), "full", { config: { token: TEST_TOKEN } });
    listen();
  }
  function listen() {
    tables = collectMessages("table");
    notices = collectMessages("notices");
    caught = collectMessages("caught");
  }

  /**
   * Asks for a read and waits for its table; a second read after it is the fence that makes "no notice" true:
   * the first read's notices left in the same send as its table, before the second message came in.
   */
  async function read(msg: Record<string, unknown> = { payload: "now" }): Promise<{ table: UpkeepRobot[]; notices: Notice[] }> {
    const noticesBefore = notices.length;
    const tablesBefore = tables.length;
    helper.getNode("upkeep").receive(msg);
    await waitFor(() => tables.length === tablesBefore + 1, 5000, "the table");
    const table = tables[tablesBefore]!.payload as UpkeepRobot[];
    helper.getNode("upkeep").receive({ payload: "fence" });
    await waitFor(() => tables.length === tablesBefore + 2, 5000, "the fence's table");
    return { table, notices: notices.slice(noticesBefore).map((msg) => msg.payload as Notice) };
  }

  const setFilterUsed = (usedLife: number) => stub.update(LOBBY, (status) => (status.device!.filter = { lifeSpan: 300, usedLife }));
  const brief = (each: Notice) => `${each.kind}/${each.state}/${String(each.value)}`;

  it("reads each robot's parts, tanks and battery from its status into the table, and leaves out a robot whose status has none", async () => {
    await deploy();
    const { table, notices: none } = await read();
    assert.deepEqual(none, []);
    assert.deepEqual(table.map((robot) => robot.serialNumber), [LOBBY], "the hall robot's status carries no upkeep facts");
    const [lobby] = table;
    assert.equal(lobby!.name, "Robot 1");
    assert.deepEqual(
      lobby!.parts.map(({ part, usedLife, lifeSpan, threshold }) => ({ part, usedLife, lifeSpan, threshold })),
      [{ part: "filter", usedLife: 100, lifeSpan: 300, threshold: 0.1 }],
    );
    assert.equal(lobby!.parts[0]!.remaining, 0.6667);
    assert.equal(lobby!.parts[0]!.forecast.basis, "too little history", "one reading and no cleaning: no wear to learn from");
    assert.deepEqual(lobby!.tanks, { cleanWater: 60, recoveryWater: 20 });
    assert.deepEqual(lobby!.battery, { health: "HEALTHY", cycles: 212, hottestCell: 31 });
    assert.deepEqual(caught, []);
  });

  it("a part: no notice at 10.3 % left, one at 10 % (its threshold), none again at 9.7 %, and one clear when the cloud resets its counter, read as a new part", async () => {
    await deploy();
    setFilterUsed(269);
    assert.deepEqual((await read()).notices, [], "10.3 % left is over the threshold");
    setFilterUsed(270);
    const raised = (await read()).notices;
    assert.deepEqual(raised.map(brief), ["partDue/raised/0.1"], "at the threshold the part is due");
    assert.equal(raised[0]!.part, "filter");
    assert.equal(raised[0]!.limit, 0.1);
    assert.equal(raised[0]!.text, "Filter of Robot 1: 10 % left, due at 10 %");
    setFilterUsed(271);
    assert.deepEqual((await read()).notices, [], "still due: the same crossing");
    // A service engineer replaced it and the cloud reset its counter: all of it left, not negative wear.
    setFilterUsed(0);
    const { table, notices: cleared } = await read();
    assert.deepEqual(cleared.map(brief), ["partDue/cleared/1"]);
    assert.equal(table[0]!.parts[0]!.remaining, 1);
    assert.equal(table[0]!.parts[0]!.wearPerCleaningHour, undefined, "no wear learned across the reset, and none negative");
  });

  it("a replacement recorded while the cloud's counter lags: the part is new in the table and its notice clears; the cloud's later reset changes nothing", async () => {
    await deploy();
    setFilterUsed(290);
    assert.deepEqual((await read()).notices.map(brief), ["partDue/raised/0.0333"]);
    const replaced = await read({ payload: { replaced: { serialNumber: LOBBY, part: "filter" } } });
    assert.deepEqual(replaced.notices.map(brief), ["partDue/cleared/1"], "the counter still says 290 h used");
    const [filter] = replaced.table[0]!.parts;
    assert.equal(filter!.remaining, 1);
    assert.equal(filter!.usedLife, 290, "the cloud's counter as it stands");
    assert.ok(Date.parse(filter!.replacedAt!) <= Date.now() && Date.parse(filter!.replacedAt!) > Date.now() - 60_000, filter!.replacedAt);
    setFilterUsed(296);
    assert.equal((await read()).table[0]!.parts[0]!.remaining, 0.98, "6 h on the new part");
    setFilterUsed(3);
    const reset = await read();
    assert.deepEqual(reset.notices, []);
    assert.equal(reset.table[0]!.parts[0]!.remaining, 0.99, "the cloud's reset: the counter is the new part's own");
  });

  it("the part's threshold is the node's setting", async () => {
    await deploy({ partDue: 40 });
    setFilterUsed(179);
    assert.deepEqual((await read()).notices, [], "40.3 % left");
    setFilterUsed(180);
    assert.deepEqual((await read()).notices.map((each) => `${each.kind}/${each.state}/${String(each.limit)}`), ["partDue/raised/0.4"]);
  });

  it("a part at 70 of 100 h with a 30 % threshold is due today in the table as in its notice (no float error between them), 69 h neither", async () => {
    await deploy({ partDue: 30 });
    const setUsed = (usedLife: number) => stub.update(LOBBY, (status) => (status.device!.filter = { lifeSpan: 100, usedLife }));
    setUsed(69);
    const over = await read();
    assert.deepEqual(over.notices, [], "31 % left");
    assert.equal(over.table[0]!.parts[0]!.forecast.dueDay, undefined, "31 % left and no wear learned: no due day");
    for (const usedLife of [70, 71]) {
      setUsed(usedLife);
      const { table, notices: raised } = await read();
      const [filter] = table[0]!.parts;
      assert.equal(filter!.remaining, (100 - usedLife) / 100);
      assert.ok(filter!.forecast.dueAt !== undefined && Date.parse(filter!.forecast.dueAt) <= Date.parse(table[0]!.readAt), `${usedLife} h: due today`);
      assert.deepEqual(raised.map(brief), usedLife === 70 ? ["partDue/raised/0.3"] : [], `${usedLife} h`);
    }
  });

  it("tanks: clean water under 15 % and recovery water over 85 % each raise once, one either side of the limit, and clear", async () => {
    await deploy();
    const tanks = (clean: number, recovery: number) =>
      stub.update(LOBBY, (status) => Object.assign(status.device!, { cleanWaterTank: { level: clean }, recoveryWaterTank: { level: recovery } }));
    tanks(16, 84);
    assert.deepEqual((await read()).notices, []);
    tanks(15, 85);
    assert.deepEqual((await read()).notices, [], "at the limits");
    tanks(14, 86);
    const raised = (await read()).notices;
    assert.deepEqual(raised.map(brief), ["cleanWaterLow/raised/14", "recoveryWaterHigh/raised/86"]);
    assert.equal(raised[0]!.text, "Clean water of Robot 1 at 14 %, under 15 %: fill the tank");
    tanks(10, 95);
    assert.deepEqual((await read()).notices, []);
    tanks(15, 85);
    assert.deepEqual((await read()).notices.map(brief), ["cleanWaterLow/cleared/15", "recoveryWaterHigh/cleared/85"]);
  });

  it("battery: a health other than HEALTHY, and a cell over 55 °C (one either side), raise once and clear", async () => {
    await deploy();
    const battery = (soh: string, hottest: number) => stub.update(LOBBY, (status) => Object.assign(status.battery, { soh, temperature2: hottest }));
    battery("HEALTHY", 55);
    assert.deepEqual((await read()).notices, [], "at the limit");
    battery("HEALTHY", 56);
    const hot = (await read()).notices;
    assert.deepEqual(hot.map(brief), ["batteryHot/raised/56"]);
    assert.equal(hot[0]!.text, "Battery of Robot 1: hottest cell 56 °C, over 55 °C");
    // No other word is recorded: any other than HEALTHY leaves normal.
    battery("DEGRADED", 54);
    const changed = (await read()).notices;
    assert.deepEqual(changed.map(brief), ["batteryHealth/raised/DEGRADED", "batteryHot/cleared/54"]);
    assert.equal(changed[0]!.text, "Battery of Robot 1: health DEGRADED, not HEALTHY");
    battery("HEALTHY", 54);
    assert.deepEqual((await read()).notices.map(brief), ["batteryHealth/cleared/HEALTHY"]);
  });

  it("a cell's limit is the node's setting", async () => {
    await deploy({ batteryHotAbove: 40 });
    stub.update(LOBBY, (status) => Object.assign(status.battery, { temperature2: 41 }));
    assert.deepEqual((await read()).notices.map((each) => `${each.kind}/${each.state}/${String(each.limit)}`), ["batteryHot/raised/40"]);
  });

  it("shows under the node what is open after the last read", async () => {
    await deploy();
    const statuses = recordStatuses("upkeep");
    await read();
    assert.equal(statuses.at(-1)?.fill, "green");
    assert.match(statuses.at(-1)?.text ?? "", /^1 robots in order \d\d:\d\d$/);
    setFilterUsed(295);
    stub.update(LOBBY, (status) => (status.device!.cleanWaterTank = { level: 5 }));
    await read();
    assert.equal(statuses.at(-1)?.fill, "yellow");
    assert.match(statuses.at(-1)?.text ?? "", /^1 parts due, 1 tanks, 0 batteries \d\d:\d\d$/);
  });

  it("keeps its open notices through a redeploy: a part still under is not raised again, and its clear still comes", async () => {
    await deploy();
    setFilterUsed(290);
    assert.deepEqual((await read()).notices.map(brief), ["partDue/raised/0.0333"]);
    await helper.setFlows(flow({ name: "redeployed" }), "full", { config: { token: TEST_TOKEN } });
    listen();
    assert.deepEqual((await read()).notices, [], "the same crossing after the redeploy");
    setFilterUsed(0);
    assert.deepEqual((await read()).notices.map(brief), ["partDue/cleared/1"]);
  });

  it("reads the robots a message names, and refuses one the account does not have, naming msg.serialNumbers, with nothing read", async () => {
    await deploy({ serialNumbers: HALL });
    assert.deepEqual((await read()).table, [], "the node's robot has no upkeep facts");
    assert.deepEqual((await read({ payload: "now", serialNumbers: [LOBBY] })).table.map((robot) => robot.serialNumber), [LOBBY]);
    stub.clearRequests();
    helper.getNode("upkeep").receive({ payload: "now", serialNumbers: "GS-S-999999" });
    await waitFor(() => caught.length === 1, 5000, "the refusal");
    const error = caught[0]!.error as { message: string; code?: string };
    assert.match(error.message, /msg\.serialNumbers/);
    assert.match(error.message, /GS-S-999999/);
    assert.equal(stub.batchRequests().length, 0, "no status read");
  });

  it("refuses a replacement naming a part no robot has, or no robot, naming the field, with nothing read", async () => {
    await deploy();
    stub.clearRequests();
    const refused = [
      { payload: { replaced: { serialNumber: LOBBY, part: "wheel" } }, field: /payload\.replaced\.part/ },
      { payload: { replaced: { part: "filter" } }, field: /payload\.replaced\.serialNumber/ },
      { payload: { replaced: "filter" }, field: /payload\.replaced\b/ },
      // A good replacement in a message that asks for something bad is not recorded either.
      { payload: { replaced: { serialNumber: LOBBY, part: "filter" }, workOrder: { format: "pdf" } }, field: /payload\.workOrder\.format/ },
    ];
    for (const [index, each] of refused.entries()) {
      helper.getNode("upkeep").receive({ payload: each.payload });
      await waitFor(() => caught.length === index + 1, 5000, `refusal ${index}`);
      assert.match((caught[index]!.error as { message: string }).message, each.field);
    }
    assert.equal(tables.length, 0);
    assert.equal(stub.batchRequests().length, 0, "no status read");
    assert.equal((await read()).table[0]!.parts[0]!.replacedAt, undefined, "no replacement recorded");
  });

  it("answers a work order of what needs a person as CSV, in the node's limits, and refuses an unknown format with nothing read", async () => {
    await deploy({ cleanWaterBelow: 30 });
    setFilterUsed(280);
    stub.update(LOBBY, (status) => (status.device!.cleanWaterTank = { level: 25 }));
    const tablesBefore = tables.length;
    helper.getNode("upkeep").receive({ payload: { workOrder: { format: "csv" } } });
    await waitFor(() => tables.length === tablesBefore + 1, 5000, "the work order");
    const lines = String(tables[tablesBefore]!.payload).trim().split(/\r?\n/);
    assert.match(lines[0]!, /^kind,serial_number,robot,item,/);
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(",").slice(0, 4).join(",")),
      [`part,${LOBBY},Robot 1,filter`, `tank,${LOBBY},Robot 1,cleanWater`],
      "clean water at 25 % is under the node's 30 %",
    );
    stub.clearRequests();
    helper.getNode("upkeep").receive({ payload: { workOrder: { format: "pdf" } } });
    await waitFor(() => caught.length === 1, 5000, "the refusal");
    assert.match((caught[0]!.error as { message: string }).message, /payload\.workOrder\.format/);
    assert.equal(stub.batchRequests().length, 0, "no status read");
  });

  it("reads by itself when deployed with Every set (the table with topic upkeep), a notice once over that read and a message's, and a timed read that fails reaches a Catch node", async () => {
    setFilterUsed(295);
    await deploy({ every: 1 });
    await waitFor(() => tables.length === 1, 10_000, "the timed read at deploy");
    assert.equal(tables[0]!.topic, "upkeep");
    assert.deepEqual((tables[0]!.payload as UpkeepRobot[]).map((robot) => robot.serialNumber), [LOBBY]);
    await read();
    assert.deepEqual(
      notices.map((msg) => `${String(msg.topic)} ${(msg.payload as Notice).kind}`),
      [`${LOBBY} partDue`],
      "once, whatever the number of reads",
    );
    stub.failure = { status: 500, body: { code: 13, message: "internal" } };
    await redeploy({ every: 1 });
    await waitFor(() => caught.length > 0, 10_000, "the failed read at the Catch node");
    assert.equal(caught[0]!.topic, "upkeep");
    assert.match((caught[0]!.error as { message: string }).message, /500|internal/i);
  });

  it("Every: 0 reads only on a message, 0.5 (a read each 30 s, a context write each) is refused naming every, 1 reads by itself", async () => {
    await deploy({ every: 0 });
    await read();
    assert.equal(stub.batchRequests().length, 2, "the message's read and its fence, no timed read");
    await redeploy({ every: 0.5 });
    helper.getNode("upkeep").receive({ payload: "now" });
    await waitFor(() => caught.length === 1, 5000, "the refusal");
    assert.match((caught[0]!.error as { message: string }).message, /every/);
    assert.equal(stub.batchRequests().length, 2, "nothing read");
    await redeploy({ every: 1 });
    await waitFor(() => tables.length === 1, 10_000, "the timed read at deploy");
    assert.equal(stub.batchRequests().length, 3);
  });

  it("two nodes on one account: the same limits, no warning; other ones, a warning naming the node whose limits the account takes (the first id)", async () => {
    const two = (partDueOfB: number) =>
      flowWith(stub.url, [
        { id: "upkeep-b", type: "robot-upkeep", robot: "config", every: 0, partDue: partDueOfB, wires: [[], []] },
        { id: "upkeep-a", type: "robot-upkeep", robot: "config", every: 0, partDue: 20, wires: [[], []] },
      ]);
    // The test helper's spy on every node's warn (Node-RED's prototype): the warnings of both nodes.
    const warned = () =>
      (helper.getNode("upkeep-a") as unknown as { warn: { args: unknown[][] } }).warn.args.map((args) => String(args[0])).filter((text) => text.startsWith("robot-upkeep nodes"));
    await loadFlow([robotUpkeep], two(20));
    const accountKey = accountKeyOf(stub.url, TEST_TOKEN);
    assert.deepEqual(warned(), []);
    assert.equal(upkeepLimitsOfAccount(accountKey).partDue, 0.2);
    await helper.setFlows(two(30), "full", { config: { token: TEST_TOKEN } });
    assert.deepEqual(warned(), [
      "robot-upkeep nodes upkeep-b read this account with other limits: the console and Home Assistant use those of node upkeep-a (of several, the first by id)",
    ]);
    assert.equal(upkeepLimitsOfAccount(accountKey).partDue, 0.2, "upkeep-a's, though upkeep-b started first");
  });

  it("a setting out of its bounds: shown under the node and every message refused naming it", async () => {
    await loadFlow([robotUpkeep], flow({ cleanWaterBelow: 150 }));
    listen();
    helper.getNode("upkeep").receive({ payload: "now" });
    await waitFor(() => caught.length === 1, 5000, "the refusal");
    assert.match((caught[0]!.error as { message: string }).message, /cleanWaterBelow/);
    assert.equal(stub.batchRequests().length, 0);
  });
});
