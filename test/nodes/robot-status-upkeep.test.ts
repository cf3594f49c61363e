/**
 * robot-status's outputs carry the upkeep facts (issue 46) through real
 * Node-RED against the simulator, which wears its robots: msg.upkeep beside
 * each status read (status, fleetStatus one per robot or all, watch mode),
 * read by the one reader (src/api/upkeep/facts.ts), as the simulator's own
 * truth changes; and none where a status carries none (a fleet stub's
 * statuses have no device or battery health), not even one the input or a
 * copy brought.
 */
import assert from "node:assert/strict";
import type { NodeMessage } from "node-red";
import robotStatus from "../../src/nodes/robot-status/robot-status";
import type { UpkeepFacts } from "../../src/api/upkeep/facts";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { FleetStub, stubSerial } from "../support/fleet-stub";
import { robotStatusNode } from "../support/fixtures";
import { collectMessages, flowWith, loadFlow, outcomeOf, outputsAndCatch, useNodeRed, waitFor, helper } from "../support/node-red";

const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";
const WAREHOUSE = "GS-S-000201";

type Message = NodeMessage & Record<string, unknown>;

const upkeepOf = (msg: Message | undefined) => (msg as { upkeep?: UpkeepFacts } | undefined)?.upkeep;
const partLeft = (upkeep: UpkeepFacts | undefined, part: string) => upkeep?.parts.find((wearing) => wearing.part === part)?.remaining;

describe("robot-status: the upkeep facts on its outputs", function () {
  describe("against the simulator", function () {
    let simulator: RunningSimulator;
    before(async () => {
      simulator = await startSimulator({ rateLimit: false, quiet: true });
    });
    after(async () => {
      await simulator.close();
    });
    beforeEach(() => simulator.reset());
    useNodeRed();

    async function load(settings: Record<string, unknown> = {}) {
      await loadFlow([robotStatus], flowWith(simulator.url, [robotStatusNode("fleet-node", settings), { id: "offline", type: "helper" }, ...outputsAndCatch("fleet-node")]), {
        config: { token: DEMO_TOKEN },
      });
    }

    it("status: msg.upkeep holds the robot's parts, tanks and battery health as the simulator wears them, the payload the cloud's status", async () => {
      await load({ serialNumber: LOBBY });
      const first = upkeepOf((await outcomeOf("fleet-node", { payload: "go", upkeep: "from upstream" })).output);
      assert.equal(first?.parts.find((part) => part.part === "softSqueegee")?.usedLife, 222.5);
      assert.ok(partLeft(first, "softSqueegee")! > 0.1, "11 % left");
      assert.equal(first?.battery.health, "HEALTHY");
      assert.deepEqual(Object.keys(first.tanks), ["cleanWater", "recoveryWater"]);

      simulator.changeWear(LOBBY, { parts: { softSqueegee: { usedLife: 225 } }, cleanWater: 14, battery: { soh: "POOR" } });
      const worn = await outcomeOf("fleet-node", { payload: "go" });
      assert.equal(partLeft(upkeepOf(worn.output), "softSqueegee"), 0.1, "at the 10 % bound, read live");
      assert.equal(upkeepOf(worn.output)?.tanks.cleanWater, 14);
      assert.equal(upkeepOf(worn.output)?.battery.health, "POOR");
      assert.equal(((worn.output?.payload as { device: Record<string, { usedLife: number }> }).device.softSqueegee!).usedLife, 225, "the payload stays the cloud's");

      simulator.changeWear(LOBBY, { replace: ["softSqueegee"] });
      assert.equal(partLeft(upkeepOf((await outcomeOf("fleet-node", { payload: "go" })).output), "softSqueegee"), 1, "a new part");
    });

    it("fleetStatus one per robot: each message the facts of its own robot, the sweeper's without tanks or scrubbing parts", async () => {
      simulator.changeWear(KITCHEN, { cleanWater: 3 });
      await load({ operation: "fleetStatus" });
      const out = collectMessages("out");
      helper.getNode("fleet-node").receive({ payload: "go" });
      await waitFor(() => out.length === 3, 5000, "three messages");
      const byRobot = new Map(out.map((msg) => [msg.topic, upkeepOf(msg)]));
      assert.equal(byRobot.get(KITCHEN)?.tanks.cleanWater, 3);
      assert.deepEqual(byRobot.get(WAREHOUSE)?.tanks, {}, "no tanks, none copied from another robot's message");
      assert.deepEqual(
        byRobot.get(WAREHOUSE)?.parts.map((part) => part.part),
        ["rollingBrush", "rollingDustPush", "filter"],
      );
      assert.notEqual(byRobot.get(LOBBY), byRobot.get(KITCHEN), "each message its own facts");
    });

    for (const line of ["v1", "s"]) {
      it(`fleetStatus with all in one message (the ${line} batch): msg.upkeep by serial number`, async () => {
        simulator.changeWear(WAREHOUSE, { parts: { filter: { usedLife: 201 } } });
        await load({ operation: "fleetStatus", fleetOutput: "all", line });
        const upkeep = (await outcomeOf("fleet-node", { payload: [LOBBY, WAREHOUSE] })).output as Message & { upkeep?: Record<string, UpkeepFacts> };
        assert.deepEqual(Object.keys(upkeep.upkeep!), [LOBBY, WAREHOUSE]);
        assert.equal(partLeft(upkeep.upkeep![WAREHOUSE], "filter"), 0, "the filter at its life span");
      });
    }

    it("watch mode: every robot's first report carries its facts", async () => {
      await load({ watch: true, interval: 5, operation: "fleetStatus" });
      const out = collectMessages("out");
      await waitFor(() => out.length === 3, 5000, "every robot once");
      assert.ok(
        out.every((msg) => upkeepOf(msg)!.parts.length >= 3 && upkeepOf(msg)!.battery.cycles! > 0),
        "parts and battery cycles on each",
      );
      assert.equal(upkeepOf(out.find((msg) => msg.topic === KITCHEN))?.tanks.cleanWater, 12, "the demo's Kitchen tank that needs a person");
    });
  });

  describe("statuses that carry no upkeep", function () {
    let stub: FleetStub;
    before(async () => {
      stub = await new FleetStub(2).start();
    });
    after(async () => {
      await stub.server.stop();
    });
    useNodeRed();

    it("no msg.upkeep, not even one the input brought, for one robot or all", async () => {
      await loadFlow([robotStatus], flowWith(stub.url, [robotStatusNode("fleet-node", { serialNumber: stubSerial(1), fleetOutput: "all" }), { id: "offline", type: "helper" }, ...outputsAndCatch("fleet-node")]), {
        config: { token: DEMO_TOKEN },
      });
      const one = await outcomeOf("fleet-node", { payload: "go", upkeep: { parts: [] } });
      assert.equal((one.output?.payload as { serialNumber: string }).serialNumber, stubSerial(1));
      assert.equal("upkeep" in one.output!, false);
      const all = await outcomeOf("fleet-node", { operation: "fleetStatus", payload: [stubSerial(1), stubSerial(2)], upkeep: "stale" });
      assert.equal((all.output?.payload as unknown[]).length, 2);
      assert.equal("upkeep" in all.output!, false);
    });
  });
});
