/**
 * Fault injection (latency, failed answers, dropped connections, malformed
 * bodies), the control endpoints that set it and reset the fleet (never
 * faulted themselves), the seeded dice, and the one log line per request.
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import { RobotApiError } from "../../src/api/errors";
import { DEMO_TOKEN, NO_FAULTS, seededRandom, startSimulator, type RunningSimulator } from "../../src/simulator";
import { failureOf } from "../support/failures";

const LOBBY = "GS-S-000101";
const START_TASK = {
  serialNumber: LOBBY,
  remoteTaskCommandType: "START_TASK",
  commandParameter: {
    startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Lobby", map: "Floor 1", loop: false, loopCount: 1 } },
  },
} as const;

async function control(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${base}/_sim/${path}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

describe("simulator: faults, control endpoints and log", function () {
  let simulator: RunningSimulator;
  let client: RobotClient;
  const lines: string[] = [];

  before(async () => {
    simulator = await startSimulator({ rateLimit: false, log: (line) => lines.push(line) });
    client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN }, retry: { maxRetries: 0 }, timeoutMs: 2000 });
  });
  beforeEach(() => {
    simulator.setFaults({ ...NO_FAULTS });
    simulator.reset();
    lines.length = 0;
  });
  after(() => simulator.close());

  it("fails answers with HTTP 500 (code 13 in the envelope on C1/C2) before anything happens", async () => {
    simulator.setFaults({ failRate: 1 });
    const command = await failureOf(client.submitCommand(START_TASK));
    assert.equal(command.status, 500);
    assert.equal(command.code, "INTERNAL");
    const maps = await failureOf(client.listMaps({ robotSn: LOBBY }));
    assert.equal(maps.kind, "envelope");
    assert.equal(maps.apiCode, 13);
    assert.equal(simulator.state.robot(LOBBY)!.taskState, "IDLE", "a failed request has no effect");
    assert.equal(simulator.state.commands(LOBBY).length, 0);
  });

  it("drops the connection after the request took effect", async () => {
    simulator.setFaults({ dropRate: 1 });
    const error = await failureOf(client.submitCommand(START_TASK));
    assert.equal(error.kind, "network");
    assert.equal(simulator.state.robot(LOBBY)!.taskState, "RUNNING", "the answer was lost, not the command");
    assert.equal(simulator.state.commands(LOBBY).length, 1);
    assert.match(lines.at(-1)!, /^POST \/v1alpha1\/robots\/GS-S-000101\/commands dropped \d+ms$/);
  });

  it("cuts answer bodies short so they are not JSON", async () => {
    simulator.setFaults({ malformedRate: 1 });
    const status = await failureOf(client.getRobotStatus({ serialNumber: LOBBY }));
    assert.equal(status.kind, "bad_response");
    const maps = await failureOf(client.listMaps({ robotSn: LOBBY }));
    assert.equal(maps.kind, "bad_response");
    assert.match(lines.at(-1)!, / 200 malformed \d+ms$/);
  });

  it("adds latency to every answer (a client with a shorter timeout gives up)", async () => {
    simulator.setFaults({ latencyMs: 1500 });
    const impatient = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN }, timeoutMs: 50 });
    const error = await failureOf(impatient.getRobotStatus({ serialNumber: LOBBY }));
    assert.equal(error.kind, "timeout");
  });

  it("draws faults from a seeded source: the same seed gives the same sequence", async () => {
    const outcomes = async (seed: number) => {
      simulator.setFaults({ failRate: 0.5, seed });
      const results: string[] = [];
      for (let i = 0; i < 12; i++) {
        results.push(
          await client.getRobotStatus({ serialNumber: LOBBY }).then(
            () => "ok",
            (error: RobotApiError) => error.code,
          ),
        );
      }
      return results;
    };
    const first = await outcomes(42);
    assert.deepEqual(await outcomes(42), first);
    assert.ok(first.includes("ok") && first.includes("INTERNAL"), first.join(","));
    const random = seededRandom(7);
    const draws = Array.from({ length: 1000 }, random);
    assert.ok(draws.every((value) => value >= 0 && value < 1));
    const share = draws.filter((value) => value < 0.5).length / draws.length;
    assert.ok(share > 0.4 && share < 0.6, `share ${share}`);
  });

  it("reads and sets faults through GET/PUT /_sim/faults, and refuses bad values naming the field", async () => {
    assert.deepEqual((await control(simulator.url, "GET", "faults")).json, NO_FAULTS);
    const set = await control(simulator.url, "PUT", "faults", { failRate: 1, latencyMs: 5 });
    assert.equal(set.status, 200);
    assert.deepEqual(set.json, { ...NO_FAULTS, failRate: 1, latencyMs: 5 });
    assert.deepEqual(simulator.faults, set.json);
    assert.equal((await failureOf(client.getRobotStatus({ serialNumber: LOBBY }))).status, 500);

    const bad = await control(simulator.url, "PUT", "faults", { dropRate: 2 });
    assert.equal(bad.status, 400);
    assert.match((bad.json as { message: string }).message, /^dropRate: must be a number from 0 to 1/);
    const unknown = await control(simulator.url, "PUT", "faults", { explode: true });
    assert.equal(unknown.status, 400);
    assert.match((unknown.json as { message: string }).message, /explode/);
    assert.equal(simulator.faults.dropRate, 0, "a refused update changes nothing");
    assert.equal((await control(simulator.url, "DELETE", "faults")).status, 405);
  });

  it("never applies faults to the control endpoints", async () => {
    simulator.setFaults({ failRate: 1, dropRate: 1, malformedRate: 1 });
    const read = await control(simulator.url, "GET", "faults");
    assert.equal(read.status, 200);
    assert.equal((read.json as { dropRate: number }).dropRate, 1);
    const cleared = await control(simulator.url, "PUT", "faults", { failRate: 0, dropRate: 0, malformedRate: 0 });
    assert.deepEqual(cleared.json, NO_FAULTS);
    await client.getRobotStatus({ serialNumber: LOBBY });
  });

  it("reseeds the fleet with POST /_sim/reset", async () => {
    await client.submitCommand(START_TASK);
    assert.equal(simulator.state.robot(LOBBY)!.taskState, "RUNNING");
    const reset = await control(simulator.url, "POST", "reset");
    assert.equal(reset.status, 200);
    assert.deepEqual(reset.json, { reset: true, robots: [LOBBY, "GS-S-000102", "GS-S-000201"] });
    assert.equal((await client.getRobotStatus({ serialNumber: LOBBY })).taskState, "IDLE");
    assert.equal(simulator.state.commands(LOBBY).length, 0);
  });

  it("logs one line per request with method, path, outcome and time, never the token", async () => {
    await client.getRobotStatus({ serialNumber: LOBBY });
    await failureOf(client.listMaps({ robotSn: "GS-S-999999" }));
    await failureOf(new RobotClient({ baseUrl: simulator.url, auth: { token: "secret-token-93ab" } }).listMaps({ robotSn: LOBBY }));
    assert.equal(lines.length, 3, lines.join("\n"));
    assert.match(lines[0]!, /^GET \/openapi\/v2alpha1\/s\/robots\/GS-S-000101\/status 200 \d+ms$/);
    assert.match(lines[1]!, /^POST \/openapi\/v1\/map\/robotMap\/list 200 code 5 \d+ms$/);
    assert.match(lines[2]!, /^POST \/openapi\/v1\/map\/robotMap\/list 401 code 16 \d+ms$/);
    assert.ok(!lines.join("\n").includes("secret-token-93ab"));
    assert.ok(!lines.join("\n").includes(DEMO_TOKEN));
  });

  it("logs nothing when quiet", async () => {
    const quietLines: string[] = [];
    const quiet = await startSimulator({ quiet: true, log: (line) => quietLines.push(line) });
    try {
      await new RobotClient({ baseUrl: quiet.url, auth: { token: DEMO_TOKEN } }).getRobotStatus({ serialNumber: LOBBY });
      assert.deepEqual(quietLines, []);
    } finally {
      await quiet.close();
    }
  });

  it("takes faults as options, and close() ends a request that is still waiting out its latency", async () => {
    const slow = await startSimulator({ quiet: true, faults: { latencyMs: 10_000 } });
    const slowClient = new RobotClient({ baseUrl: slow.url, auth: { token: DEMO_TOKEN }, timeoutMs: 15_000 });
    const pending = failureOf(slowClient.getRobotStatus({ serialNumber: LOBBY }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await slow.close();
    assert.equal((await pending).kind, "network");
  });
});
