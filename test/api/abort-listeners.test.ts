/**
 * The engine hands the abort signal of an answered call to the next call
 * (engine.ts, spare), which is safe only while the HTTP exchange removes the
 * abort listener it adds when it ends. An axios upgrade that stopped doing so
 * would pile listeners on the reused signals; this shows it on a real client
 * against the simulator on loopback.
 */
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { RobotClient } from "../../src/api/client";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";

describe("api: abort signals reused from call to call", function () {
  let simulator: RunningSimulator;
  before(async () => {
    simulator = await startSimulator({ rateLimit: false, quiet: true });
  });
  after(() => simulator?.close());

  it("carry no listener after 300 answered calls, 16 at a time", async () => {
    const client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN }, engine: { connections: 16, rateLimit: 0 } });
    try {
      const [serialNumber] = (await client.listAllRobots()).map((robot) => robot.serialNumber);
      for (let round = 0; round < 3; round++) {
        await Promise.all(Array.from({ length: 100 }, () => client.getRobotStatus({ serialNumber: serialNumber! })));
      }
      const spares = (client.engine as unknown as { spareControllers: AbortController[] }).spareControllers;
      assert.ok(spares.length > 0, "answered calls leave their controllers for the next");
      assert.deepEqual(
        spares.map((controller) => getEventListeners(controller.signal, "abort").length),
        spares.map(() => 0),
      );
    } finally {
      client.close();
    }
  });
});
