/**
 * robot-upkeep across a restart of Node-RED: a full runtime in a process of
 * its own (node-red-cluster.ts) with the localfilesystem context store in a
 * temporary directory, stopped and started again on the same store, against
 * the simulator. The second runtime raises nothing the first one raised, and
 * still knows the replacement the first one recorded while the cloud's
 * counter lags.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import type { UpkeepRobot } from "../../src/api/upkeep/table";
import { startInstance, type Instance } from "../support/node-red-cluster";

const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";

describe("robot-upkeep: a restart with the localfilesystem context store raises nothing again", function () {
  this.timeout(90_000);
  let simulator: RunningSimulator;
  let store: string;
  const running: Instance[] = [];
  before(async () => {
    simulator = await startSimulator({ port: 0, quiet: true, rateLimit: false });
    store = fs.mkdtempSync(path.join(os.tmpdir(), "robot-upkeep-store-"));
  });
  after(async () => {
    for (const instance of running) await instance.stop();
    await simulator.close();
    fs.rmSync(store, { recursive: true, force: true });
  });

  const start = async (name: string, dir = store) => {
    const instance = await startInstance({
      name,
      flows: [
        { id: "tab", type: "tab", label: "upkeep" },
        { id: "config", type: "robot-config", z: "tab", baseUrl: simulator.url, timeout: 5, maxRetries: 1, authMode: "token" },
        { id: "upkeep", type: "robot-upkeep", z: "tab", robot: "config", serialNumbers: `${LOBBY} ${KITCHEN}`, every: 0, wires: [[], []] },
      ],
      credentials: { config: { token: DEMO_TOKEN } },
      settings: { contextStorage: { default: { module: "localfilesystem", config: { dir } } } },
      watch: ["upkeep"],
    });
    running.push(instance);
    return instance;
  };
  const tables = (instance: Instance) => instance.sent.filter((sent) => sent.port === 0).map((sent) => sent.payload as UpkeepRobot[]);
  const notices = (instance: Instance) =>
    instance.sent
      .filter((sent) => sent.port === 1)
      .map((sent) => {
        const notice = sent.payload as { serialNumber: string; kind: string; state: string };
        return `${notice.serialNumber} ${notice.kind} ${notice.state}`;
      });
  const read = async (instance: Instance, msg: Record<string, unknown> = { payload: "read" }) => {
    const before = tables(instance).length;
    await instance.inject("upkeep", msg);
    await instance.waitFor((each) => tables(each).length > before, 15_000, "the table");
    return tables(instance).at(-1)!;
  };

  it("keeps the open notices and the replacement recorded before the restart", async () => {
    simulator.changeWear(LOBBY, { parts: { softSqueegee: { usedLife: 240 } } });
    const first = await start("A");
    await read(first);
    // The squeegee is replaced; the cloud's counter still says 240 h.
    await read(first, { payload: { replaced: { serialNumber: LOBBY, part: "softSqueegee" } } });
    await read(first);
    assert.deepEqual(notices(first), [`${LOBBY} partDue raised`, `${KITCHEN} cleanWaterLow raised`, `${LOBBY} partDue cleared`]);
    await first.stop();

    const second = await start("B");
    const table = await read(second);
    await read(second);
    assert.deepEqual(notices(second), [], "the kitchen's low water was told before the restart; the squeegee is the new one");
    const squeegee = table.find((robot) => robot.serialNumber === LOBBY)!.parts.find((part) => part.part === "softSqueegee")!;
    assert.equal(squeegee.remaining, 1, "the replacement recorded before the restart, the counter still at 240 h");
    assert.equal(squeegee.usedLife, 240);
    assert.ok(squeegee.replacedAt);
  });

  it("keeps every robot's history it read, not only those of the last message: a read of one robot alone, then a restart", async () => {
    const dir = fs.mkdtempSync(path.join(store, "one-robot-"));
    simulator.changeWear(LOBBY, { parts: { softSqueegee: { usedLife: 240 } } });
    const first = await start("C", dir);
    await read(first);
    await read(first, { payload: { replaced: { serialNumber: LOBBY, part: "softSqueegee" } } });
    await read(first, { payload: "read", serialNumbers: [KITCHEN] });
    await first.stop();

    const second = await start("D", dir);
    const squeegee = (await read(second)).find((robot) => robot.serialNumber === LOBBY)!.parts.find((part) => part.part === "softSqueegee")!;
    assert.equal(squeegee.remaining, 1, "the lobby's replacement, recorded before the kitchen was read alone");
    assert.ok(squeegee.replacedAt);
  });
});
