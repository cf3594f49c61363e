/**
 * robot-upkeep in real Node-RED against the simulator, whose robots carry
 * the recorded device and battery blocks and which a person's work changes
 * (PATCH /_sim/robots/<serial>/wear): the demo's tank that needs a person is
 * a notice at the first read, and each notice comes when a person's or a
 * robot's change crosses its limit and clears when it is undone.
 */
import assert from "node:assert/strict";
import { DEMO_TOKEN } from "../../src/simulator";
import robotUpkeep from "../../src/nodes/robot-upkeep";
import { collectMessages, flowWith, helper, loadFlow, useNodeRed, waitFor } from "../support/node-red";
import { useSimulator } from "../support/simulator";

const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";

describe("robot-upkeep against the simulator: notices come and clear", function () {
  this.timeout(30_000);
  const cloud = useSimulator({}, true);
  useNodeRed();

  it("the demo's low clean water at once; a squeegee worn to 10 % and its replacement; a full recovery tank emptied; a battery out of normal and back", async () => {
    const { simulator } = cloud;
    await loadFlow(
      [robotUpkeep],
      flowWith(simulator.url, [
        { id: "upkeep", type: "robot-upkeep", robot: "config", serialNumbers: `${LOBBY} ${KITCHEN}`, every: 0, wires: [["table"], ["notices"]] },
        { id: "table", type: "helper" },
        { id: "notices", type: "helper" },
        { id: "catch-errors", type: "catch", scope: ["upkeep"], uncaught: false, wires: [["caught"]] },
        { id: "caught", type: "helper" },
      ]),
      { config: { token: DEMO_TOKEN } },
    );
    const tables = collectMessages("table");
    const notices = collectMessages("notices");
    const caught = collectMessages("caught");
    /** The notices of one read, as "robot kind state"; the read after it is the fence that says no more are coming. */
    const read = async (): Promise<string[]> => {
      const [noticesBefore, tablesBefore] = [notices.length, tables.length];
      for (const round of [1, 2]) {
        helper.getNode("upkeep").receive({ payload: "read" });
        await waitFor(() => tables.length === tablesBefore + round || caught.length > 0, 10_000, "the table");
      }
      assert.deepEqual(caught, []);
      return notices.slice(noticesBefore).map((msg) => {
        const notice = msg.payload as { serialNumber: string; kind: string; state: string; part?: string };
        return [notice.serialNumber, notice.kind, notice.part, notice.state].filter((word) => word !== undefined).join(" ");
      });
    };

    assert.deepEqual(await read(), [`${KITCHEN} cleanWaterLow raised`], "the demo's kitchen scrubber at 12 % clean water");
    const lobby = (tables[0]!.payload as Array<{ serialNumber: string; parts: Array<{ part: string; remaining: number }> }>).find(
      (robot) => robot.serialNumber === LOBBY,
    )!;
    assert.equal(lobby.parts.find((part) => part.part === "softSqueegee")?.remaining, 0.11, "the demo's squeegee, a few hours from due");

    simulator.changeWear(KITCHEN, { cleanWater: 100 });
    assert.deepEqual(await read(), [`${KITCHEN} cleanWaterLow cleared`]);

    simulator.changeWear(LOBBY, { parts: { softSqueegee: { usedLife: 225 } } });
    assert.deepEqual(await read(), [`${LOBBY} partDue softSqueegee raised`], "10 % left");
    simulator.changeWear(LOBBY, { replace: ["softSqueegee"] });
    assert.deepEqual(await read(), [`${LOBBY} partDue softSqueegee cleared`]);

    simulator.changeWear(LOBBY, { recoveryWater: 86 });
    assert.deepEqual(await read(), [`${LOBBY} recoveryWaterHigh raised`]);
    simulator.changeWear(LOBBY, { recoveryWater: 85 });
    assert.deepEqual(await read(), [`${LOBBY} recoveryWaterHigh cleared`]);

    simulator.changeWear(KITCHEN, { battery: { soh: "DEGRADED", temperatures: [30, 56] } });
    assert.deepEqual(await read(), [`${KITCHEN} batteryHealth raised`, `${KITCHEN} batteryHot raised`]);
    simulator.changeWear(KITCHEN, { battery: { soh: "HEALTHY", temperatures: [30, 55] } });
    assert.deepEqual(await read(), [`${KITCHEN} batteryHealth cleared`, `${KITCHEN} batteryHot cleared`]);
  });
});
