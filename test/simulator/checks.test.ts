/**
 * The checks the real cloud makes, made by the simulator: bearer token and
 * token grant, the robot's account (both error styles), unknown robots, bad
 * bodies (naming the field), content type, body size, and the per-token rate
 * limit (both styles, Retry-After, the client's retry getting through).
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import { ENDPOINTS, pathFor } from "../../src/api/cloud/endpoints";
import { OPEN_ACCESS_GRANT_TYPE } from "../../src/api/cloud/schemas";
import { DEMO_CLIENT, DEMO_TOKEN, WAREHOUSE_TOKEN, demoFleet, startSimulator, type RunningSimulator } from "../../src/simulator";
import { failureOf } from "../support/failures";
import { rawRequest } from "../support/raw-http";

const FLOOR_1 = demoFleet().robots[0]!.maps[0]!;

const STATUS_PATH = (serialNumber: string) => pathFor(ENDPOINTS.getRobotStatus, { serialNumber });
const COMMAND_PATH = (serialNumber: string) => pathFor(ENDPOINTS.submitCommand, { serialNumber });

describe("simulator: checks like the real cloud", function () {
  describe("authentication and the token grant", () => {
    let simulator: RunningSimulator;
    let clock = 1_800_000_000_000;
    const lines: string[] = [];

    before(async () => {
      simulator = await startSimulator({ rateLimit: false, now: () => clock, log: (line) => lines.push(line) });
    });
    after(() => simulator.close());

    it("answers 401 code 16 to a request without a bearer token, and the robot is untouched", async () => {
      const answer = await rawRequest(simulator.url, "POST", COMMAND_PATH("GS-S-000101"), {
        body: JSON.stringify({ serialNumber: "GS-S-000101", remoteTaskCommandType: "STOP_TASK" }),
      });
      assert.equal(answer.status, 401);
      assert.equal((answer.json as { code: number }).code, 16);
      assert.match((answer.json as { message: string }).message, /bearer/i);
      assert.equal(simulator.state.commands("GS-S-000101").length, 0);

      const envelopeEndpoint = await rawRequest(simulator.url, "POST", ENDPOINTS.listMaps.path, { body: '{"robotSn":"GS-S-000101"}' });
      assert.equal(envelopeEndpoint.status, 401, "401 on the envelope endpoints too");
    });

    it("answers 401 to an unknown token; the client reports it without showing the token", async () => {
      const token = "not-a-token-7e1f";
      const client = new RobotClient({ baseUrl: simulator.url, auth: { token } });
      const error = await failureOf(client.getRobotStatus({ serialNumber: "GS-S-000101" }));
      assert.equal(error.status, 401);
      assert.equal(error.apiCode, 16);
      assert.equal(error.code, "UNAUTHENTICATED");
      assert.ok(!error.message.includes(token));
      assert.ok(!lines.join("\n").includes(token), "the log never shows a token");
    });

    it("grants a token for the client credentials: bearer, absolute expiry in epoch ms, usable for the demo account", async () => {
      const answer = await rawRequest(simulator.url, "POST", ENDPOINTS.grantToken.path, {
        body: JSON.stringify({
          grant_type: OPEN_ACCESS_GRANT_TYPE,
          client_id: DEMO_CLIENT.clientId,
          client_secret: DEMO_CLIENT.clientSecret,
          open_access_key: DEMO_CLIENT.accessKeySecret,
        }),
      });
      assert.equal(answer.status, 200, answer.text);
      const grant = answer.json as { token_type: string; access_token: string; expires_in: number; refresh_token: string };
      assert.equal(grant.token_type, "bearer");
      assert.equal(grant.expires_in, clock + 24 * 60 * 60 * 1000);
      assert.ok(grant.access_token.length >= 20);
      assert.equal(typeof grant.refresh_token, "string");

      const status = await rawRequest(simulator.url, "GET", STATUS_PATH("GS-S-000201"), { token: grant.access_token });
      assert.equal(status.status, 200);

      clock += 24 * 60 * 60 * 1000;
      const expired = await rawRequest(simulator.url, "GET", STATUS_PATH("GS-S-000201"), { token: grant.access_token });
      assert.equal(expired.status, 401, "an expired token answers 401");
      assert.ok(!lines.join("\n").includes(grant.access_token), "the log never shows a granted token");
    });

    it("lets the RobotClient run on client credentials alone", async () => {
      const client = new RobotClient({ baseUrl: simulator.url, auth: { ...DEMO_CLIENT } });
      const maps = await client.listMaps({ robotSn: "GS-S-000101" });
      assert.deepEqual(
        maps.map((map) => map.mapName),
        ["Floor 1", "Floor 2"],
      );
    });

    it('answers 400 "Invalid open access key" when the AccessKeyID is sent instead of the secret', async () => {
      const client = new RobotClient({
        baseUrl: simulator.url,
        auth: { clientId: DEMO_CLIENT.clientId, clientSecret: DEMO_CLIENT.clientSecret, accessKeySecret: DEMO_CLIENT.accessKeyId },
      });
      const error = await failureOf(client.getRobotStatus({ serialNumber: "GS-S-000101" }));
      assert.equal(error.status, 400);
      assert.equal(error.operation, "grantToken");
      assert.match(error.message, /Invalid open access key/);
    });

    it("answers 401 to a wrong client secret and 400 naming the field to a wrong grant type", async () => {
      const wrongSecret = await rawRequest(simulator.url, "POST", ENDPOINTS.grantToken.path, {
        body: JSON.stringify({
          grant_type: OPEN_ACCESS_GRANT_TYPE,
          client_id: DEMO_CLIENT.clientId,
          client_secret: "guess",
          open_access_key: DEMO_CLIENT.accessKeySecret,
        }),
      });
      assert.equal(wrongSecret.status, 401);
      const wrongGrant = await rawRequest(simulator.url, "POST", ENDPOINTS.grantToken.path, {
        body: JSON.stringify({
          grant_type: "client_credentials",
          client_id: DEMO_CLIENT.clientId,
          client_secret: DEMO_CLIENT.clientSecret,
          open_access_key: DEMO_CLIENT.accessKeySecret,
        }),
      });
      assert.equal(wrongGrant.status, 400);
      assert.match((wrongGrant.json as { message: string }).message, /^grant_type: /);
    });
  });

  describe("the robot's account and unknown robots", () => {
    let simulator: RunningSimulator;
    let warehouse: RobotClient;

    before(async () => {
      simulator = await startSimulator({ quiet: true, rateLimit: false });
      warehouse = new RobotClient({ baseUrl: simulator.url, auth: { token: WAREHOUSE_TOKEN }, retry: { maxRetries: 0 } });
    });
    after(() => simulator.close());

    it("lets the warehouse token use its own robot", async () => {
      const status = await warehouse.getRobotStatus({ serialNumber: "GS-S-000201" });
      assert.equal(status.serialNumber, "GS-S-000201");
    });

    it("answers PERMISSION_DENIED in the envelope on C1 ({} data) and C2 ([] data)", async () => {
      const subareas = await rawRequest(simulator.url, "POST", ENDPOINTS.getSubareas.path, {
        token: WAREHOUSE_TOKEN,
        body: JSON.stringify({ mapId: FLOOR_1.id, robotSn: "GS-S-000101" }),
      });
      assert.equal(subareas.status, 200);
      assert.deepEqual({ ...(subareas.json as object), msg: "" }, { code: 7, msg: "", data: {} });
      const maps = await rawRequest(simulator.url, "POST", ENDPOINTS.listMaps.path, {
        token: WAREHOUSE_TOKEN,
        body: JSON.stringify({ robotSn: "GS-S-000101" }),
      });
      assert.deepEqual({ ...(maps.json as object), msg: "" }, { code: 7, msg: "", data: [] });

      const error = await failureOf(warehouse.listMaps({ robotSn: "GS-S-000102" }));
      assert.equal(error.kind, "envelope");
      assert.equal(error.code, "PERMISSION_DENIED");
    });

    it("answers HTTP 403 code 7 elsewhere, and nothing happens to the robot", async () => {
      const error = await failureOf(
        warehouse.submitCommand({ serialNumber: "GS-S-000101", remoteControlCommandType: "REMOTE_CONTROL_START" }),
      );
      assert.equal(error.status, 403);
      assert.equal(error.apiCode, 7);
      assert.equal(simulator.state.robot("GS-S-000101")!.remoteControl, false);
      assert.equal(simulator.state.commands("GS-S-000101").length, 0);
      for (const call of [
        warehouse.getRobotStatus({ serialNumber: "GS-S-000102" }),
        warehouse.getSiteInfo({ serialNumber: "GS-S-000101" }),
      ]) {
        assert.equal((await failureOf(call)).status, 403);
      }
    });

    it("answers 404 code 5 for a robot that does not exist (code 5 in the envelope on C2)", async () => {
      const client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN }, retry: { maxRetries: 0 } });
      const status = await failureOf(client.getRobotStatus({ serialNumber: "GS-S-999999" }));
      assert.equal(status.status, 404);
      assert.equal(status.code, "NOT_FOUND");
      const maps = await failureOf(client.listMaps({ robotSn: "GS-S-999999" }));
      assert.equal(maps.kind, "envelope");
      assert.equal(maps.apiCode, 5);
    });
  });

  describe("request bodies", () => {
    let simulator: RunningSimulator;

    before(async () => {
      simulator = await startSimulator({ quiet: true, rateLimit: false, maxBodyBytes: 4096 });
    });
    after(() => simulator.close());

    it("answers 400 code 3 naming the field on the command endpoint, and stores nothing", async () => {
      const answer = await rawRequest(simulator.url, "POST", COMMAND_PATH("GS-S-000101"), {
        token: DEMO_TOKEN,
        body: JSON.stringify({
          serialNumber: "GS-S-000101",
          remoteTaskCommandType: "START_TASK",
          commandParameter: { startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "x", loop: false, loopCount: 1 } } },
        }),
      });
      assert.equal(answer.status, 400);
      assert.equal((answer.json as { code: number }).code, 3);
      assert.match((answer.json as { message: string }).message, /commandParameter\.startTaskParameter\.task\.map/);
      assert.equal(simulator.state.commands("GS-S-000101").length, 0);
    });

    it("answers code 3 in the envelope on C1, naming the field", async () => {
      const answer = await rawRequest(simulator.url, "POST", ENDPOINTS.getSubareas.path, {
        token: DEMO_TOKEN,
        body: JSON.stringify({ robotSn: "GS-S-000101" }),
      });
      assert.equal(answer.status, 200);
      const body = answer.json as { code: number; msg: string; data: unknown };
      assert.equal(body.code, 3);
      assert.match(body.msg, /^mapId: /);
      assert.deepEqual(body.data, {});
    });

    it("refuses a body whose serial number differs from the path", async () => {
      const answer = await rawRequest(simulator.url, "POST", COMMAND_PATH("GS-S-000102"), {
        token: DEMO_TOKEN,
        body: JSON.stringify({ serialNumber: "GS-S-000101", remoteTaskCommandType: "PAUSE_TASK" }),
      });
      assert.equal(answer.status, 400);
      assert.match((answer.json as { message: string }).message, /^serialNumber: must equal the serial number in the path/);
    });

    it("refuses numbers where B4 wants strings on the wire (TYPE_STRING), as the real cloud does", async () => {
      const answer = await rawRequest(simulator.url, "POST", ENDPOINTS.sendTempTask.path, {
        token: DEMO_TOKEN,
        body: JSON.stringify({
          productId: "GS-S-000101",
          tempTaskCommand: {
            taskName: "t",
            cleaningMode: "清扫",
            loop: "false",
            loopCount: "1",
            mapName: "Floor 1",
            startParam: { mapId: FLOOR_1.id, areaId: 1 },
          },
        }),
      });
      assert.equal(answer.status, 400);
      assert.match(
        (answer.json as { message: string }).message,
        /^tempTaskCommand\.startParam\.areaId: invalid value 1 for type TYPE_STRING/,
      );
      assert.equal(simulator.state.robot("GS-S-000101")!.taskState, "IDLE");
    });

    it("answers 400 to a body that is not JSON", async () => {
      const answer = await rawRequest(simulator.url, "POST", ENDPOINTS.listMaps.path, { token: DEMO_TOKEN, body: "{robotSn:" });
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.json, { code: 3, msg: "Request body is not valid JSON.", data: {} });
    });

    it("answers 415 to a POST without Content-Type application/json, on both endpoint styles", async () => {
      for (const path of [COMMAND_PATH("GS-S-000101"), ENDPOINTS.listMaps.path]) {
        const missing = await rawRequest(simulator.url, "POST", path, {
          token: DEMO_TOKEN,
          body: '{"robotSn":"GS-S-000101"}',
          headers: { "Content-Type": null },
        });
        assert.equal(missing.status, 415, path);
        const text = await rawRequest(simulator.url, "POST", path, {
          token: DEMO_TOKEN,
          body: '{"robotSn":"GS-S-000101"}',
          headers: { "Content-Type": "text/plain" },
        });
        assert.equal(text.status, 415, path);
      }
      const withCharset = await rawRequest(simulator.url, "POST", ENDPOINTS.listMaps.path, {
        token: DEMO_TOKEN,
        body: '{"robotSn":"GS-S-000101"}',
        headers: { "Content-Type": "application/json; charset=utf-8" },
      });
      assert.equal(withCharset.status, 200);
    });

    it("answers 413 to a body over the size limit", async () => {
      const answer = await rawRequest(simulator.url, "POST", ENDPOINTS.listMaps.path, {
        token: DEMO_TOKEN,
        body: JSON.stringify({ robotSn: "GS-S-000101", padding: "x".repeat(5000) }),
      });
      assert.equal(answer.status, 413);
    });
  });

  describe("the per-token rate limit", () => {
    let simulator: RunningSimulator;
    let clock = 1_800_000_000_000;
    const lines: string[] = [];
    /** Moves the clock past the window whenever a request is refused, so a retry gets through. */
    let advanceOnRefusal = false;

    before(async () => {
      simulator = await startSimulator({
        rateLimit: { requests: 2, windowMs: 10_000 },
        now: () => clock,
        log: (line) => {
          lines.push(line);
          if (advanceOnRefusal && / (429|200 code 8) /.test(line)) clock += 10_000;
        },
      });
    });
    beforeEach(() => {
      clock += 10_000;
      lines.length = 0;
      advanceOnRefusal = false;
    });
    after(() => simulator.close());

    it("answers HTTP 429 with Retry-After past the limit, per token", async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await rawRequest(simulator.url, "GET", STATUS_PATH("GS-S-000101"), { token: DEMO_TOKEN })).status);
      assert.deepEqual(statuses, [200, 200, 429]);
      clock += 4_000;
      const refused = await rawRequest(simulator.url, "GET", STATUS_PATH("GS-S-000101"), { token: DEMO_TOKEN });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers["retry-after"], "6");
      assert.deepEqual(refused.json, { code: 8, message: "Rate limit exceeded: slow down and retry later.", details: [] });

      const otherToken = await rawRequest(simulator.url, "GET", STATUS_PATH("GS-S-000201"), { token: WAREHOUSE_TOKEN });
      assert.equal(otherToken.status, 200, "another token has its own budget");
      clock += 6_000;
      assert.equal((await rawRequest(simulator.url, "GET", STATUS_PATH("GS-S-000101"), { token: DEMO_TOKEN })).status, 200);
    });

    it("answers RESOURCE_EXHAUSTED in the envelope on C1 and C2, which the client reports as rate limited", async () => {
      const client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN }, retry: { maxRetries: 0 } });
      await client.listMaps({ robotSn: "GS-S-000101" });
      await client.listMaps({ robotSn: "GS-S-000101" });
      const error = await failureOf(client.listMaps({ robotSn: "GS-S-000101" }));
      assert.equal(error.kind, "envelope");
      assert.equal(error.code, "RESOURCE_EXHAUSTED");
      assert.ok(error.isRateLimited);
      assert.equal(error.retryAfterSeconds, 10);
      const answer = await rawRequest(simulator.url, "POST", ENDPOINTS.getSubareas.path, {
        token: DEMO_TOKEN,
        body: JSON.stringify({ mapId: FLOOR_1.id, robotSn: "GS-S-000101" }),
      });
      assert.deepEqual({ ...(answer.json as object), msg: "" }, { code: 8, msg: "", data: {} });
    });

    it("lets the client's retry through once the window has passed, with one command stored", async () => {
      const client = new RobotClient({ baseUrl: simulator.url, auth: { token: DEMO_TOKEN }, retry: { maxRetries: 2, maxDelayMs: 5 } });
      await client.getRobotStatus({ serialNumber: "GS-S-000102" });
      await client.getRobotStatus({ serialNumber: "GS-S-000102" });
      advanceOnRefusal = true;
      const command = await client.submitCommand({ serialNumber: "GS-S-000102", remoteControlCommandType: "REMOTE_CONTROL_START" });
      assert.equal(command.state, "WAITING");
      assert.equal(lines.filter((line) => line.startsWith("POST ") && / 429 /.test(line)).length, 1, lines.join("\n"));
      assert.equal(simulator.state.commands("GS-S-000102").length, 1);
    });
  });
});
