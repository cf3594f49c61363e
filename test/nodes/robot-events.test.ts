/**
 * robot-events through Node-RED's real HTTP server for flows: a sender POSTs
 * over loopback as the cloud's push service would, and the test watches what
 * the flow gets (helper nodes on its outputs), the answers, the status and
 * the log. The other shapes the cloud sends: robot-events-shapes.test.ts.
 */
import assert from "node:assert/strict";
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import robotEvents from "../../src/nodes/robot-events/robot-events";
import { routesOf, type HttpApp } from "../../src/nodes/robot-events/push-route";
import { HttpNodeServer } from "../support/http-node";
import { TAB, collectMessages, helper, recordStatuses, runtimeEvents, useNodeRed, waitFor } from "../support/node-red";
import { rawRequest } from "../support/raw-http";
import { APP_ID, PATH, SERIAL, eventsFlow, incidentPush, reportPush } from "../support/robot-events";

describe("robot-events: pushes received on Node-RED's HTTP server for flows", function () {
  this.timeout(20_000);
  const http = new HttpNodeServer();
  before(() => http.start());
  after(() => http.stop());
  useNodeRed();

  /** `appId` null deploys the node with no app id at all. */
  async function deploy(settings: Record<string, unknown> = {}, appId: string | null = APP_ID) {
    await helper.load(http.serving(robotEvents) as never, eventsFlow(settings), appId === null ? {} : { events: { appId } });
    return { incidents: collectMessages("incidents"), reports: collectMessages("reports") };
  }
  /** Every line Node-RED logged in this test, as JSON (node id, type and message). */
  const loggedLines = () => (helper.log().args as unknown[][]).map((args) => JSON.stringify(args[0]));
  const post = (body: unknown, options: { path?: string; method?: string; headers?: Record<string, string | null> } = {}) =>
    rawRequest(http.url, options.method ?? "POST", options.path ?? PATH, { body, headers: options.headers });

  it("answers 200 to an incident and sends it on output 1: raised, its level read, its times as ISO strings beside the milliseconds", async () => {
    const { incidents, reports } = await deploy();
    const answer = await post(incidentPush());
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.json, { ok: true });
    await waitFor(() => incidents.length === 1, 2000, "the incident");
    const msg = incidents[0]!;
    assert.equal(msg.topic, SERIAL);
    assert.equal(msg.openAlarms, 1);
    const payload = msg.payload as Record<string, unknown>;
    assert.equal(payload.serialNumber, SERIAL);
    assert.equal(payload.modelTypeCode, "S1");
    assert.equal(payload.incidentName, "Emergency stop pressed");
    assert.equal(payload.raised, true);
    assert.deepEqual(payload.level, { code: "H4", rank: 4, meaning: "task affected, user can resolve" });
    assert.equal(payload.startTime, 1_764_000_000_000, "the milliseconds as sent");
    assert.equal(payload.startTimeIso, "2025-11-24T16:00:00.000Z");
    assert.equal(payload.endTimeIso, undefined, "no end while raised");
    assert.equal(payload.appId, undefined, "the appId stays out of the message");
    assert.equal(reports.length, 0);
  });

  it("a recovery carries raised false, its end time, and the robot's open alarms back to 0", async () => {
    const { incidents } = await deploy();
    await post(incidentPush());
    await post(incidentPush({ incidentStatus: 0, endTime: 1_764_000_090_000 }));
    await waitFor(() => incidents.length === 2, 2000, "both incidents");
    const recovered = incidents[1]!;
    assert.equal((recovered.payload as { raised: boolean }).raised, false);
    assert.equal((recovered.payload as { endTimeIso: string }).endTimeIso, "2025-11-24T16:01:30.000Z");
    assert.equal(recovered.openAlarms, 0);
  });

  it("sends a task report on output 2 with its outcome and cleaning kind, for every taskEndStatus", async () => {
    const { incidents, reports } = await deploy();
    const statuses: Array<[unknown, string]> = [[-1, "unknown"], [0, "normal"], [1, "stoppedByHand"], [2, "error"], [3, "failedToStart"], [7, "unknown"], ["2", "error"], [null, "unknown"]];
    for (const [index, [taskEndStatus]] of statuses.entries()) {
      assert.equal((await post(reportPush({ id: `report-${index}`, taskEndStatus }))).status, 200);
    }
    await waitFor(() => reports.length === statuses.length, 2000, "every report");
    assert.deepEqual(reports.map((msg) => (msg.payload as { outcome: string }).outcome), statuses.map(([, outcome]) => outcome));
    const first = reports[0]!.payload as Record<string, unknown>;
    assert.equal(reports[0]!.topic, SERIAL);
    assert.equal(first.cleaningKind, "scrub");
    assert.equal(first.actualCleaningAreaSquareMeter, 118.5);
    assert.equal(first.startTimeIso, "2025-11-24T16:00:00.000Z");
    assert.equal(first.endTimeIso, "2025-11-24T16:20:00.000Z");
    assert.equal(incidents.length, 0);
  });

  it("a mode name that says no kind (an intensity) gives no cleaningKind", async () => {
    const { reports } = await deploy();
    await post(reportPush({ cleaningMode: "中度清洁" }));
    await waitFor(() => reports.length === 1, 2000, "the report");
    assert.equal((reports[0]!.payload as Record<string, unknown>).cleaningKind, undefined);
    assert.equal((reports[0]!.payload as Record<string, unknown>).cleaningMode, "中度清洁");
  });

  it("tolerates unknown top-level fields and unknown fields inside, keeping both", async () => {
    const { incidents } = await deploy();
    const answer = await post(incidentPush({ newInnerField: "kept" }, { pushTime: 1_764_000_000_500, version: "2", subscription: { id: 9 } }));
    assert.equal(answer.status, 200);
    await waitFor(() => incidents.length === 1, 2000, "the incident");
    assert.equal((incidents[0]!.payload as Record<string, unknown>).newInnerField, "kept");
    assert.deepEqual(incidents[0]!.push, { pushTime: 1_764_000_000_500, version: "2", subscription: { id: 9 } }, "the top-level ones beside, in msg.push");
  });

  it("answers 401 to a missing or wrong appId and sends nothing", async () => {
    const { incidents, reports } = await deploy();
    const wrong = await post({ ...incidentPush(), appId: "someone-else" });
    const missing = await post(reportPush().payload === undefined ? {} : { payload: (reportPush() as { payload: unknown }).payload });
    assert.equal(wrong.status, 401);
    assert.equal(missing.status, 401);
    assert.match(wrong.text, /appId/);
    assert.doesNotMatch(wrong.text, new RegExp(APP_ID), "the right appId is never told");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(incidents.length + reports.length, 0);
  });

  it("with no app id set, refuses every push with 401 and says so under the node", async () => {
    const { incidents } = await deploy({}, null);
    const statuses = recordStatuses("events");
    assert.ok(loggedLines().some((line) => line.includes("no app id set: every push is refused (401)")), loggedLines().join("\n"));
    assert.equal((await post({ ...incidentPush(), appId: "" })).status, 401);
    assert.equal((await post(incidentPush())).status, 401);
    assert.equal(incidents.length, 0);
    // The refusals are counted without hiding why: the status stays red and names the missing app id.
    await waitFor(() => statuses.at(-1)?.text === "/robot-events: no app id set: every push is refused (401) (2 refused)", 2000, "the red status with the count");
    assert.equal(statuses.at(-1)?.fill, "red");
  });

  it("answers 400 only to a body that is not JSON or names no robot, and sends nothing for it", async () => {
    const { incidents, reports } = await deploy();
    const notJson = await post("{ not json", { headers: { "Content-Type": "application/json" } });
    assert.equal(notJson.status, 400);
    assert.match(notJson.text, /not JSON/);
    const empty = await post("");
    assert.equal(empty.status, 400);
    const noRobot = await post({ appId: APP_ID, payload: { content: { incidentId: "x", incidentStatus: 1 } } });
    assert.equal(noRobot.status, 400);
    assert.match(noRobot.text, /payload\.serialNumber: is missing, and so is productId/);
    const array = await post([incidentPush()]);
    assert.equal(array.status, 401, "a list has no appId");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(incidents.length + reports.length, 0);
  });

  it("answers 400 to a body nested deeper than Node-RED can copy for a second wire, and sends nothing", async () => {
    const { incidents } = await deploy();
    // Written as text: JSON.stringify itself cannot go 200,000 levels deep.
    const deep = (levels: number) => JSON.stringify(incidentPush({ incidentId: `deep-${levels}`, nested: "NESTED" })).replace('"NESTED"', "[".repeat(levels) + "]".repeat(levels));
    const refused = await post(deep(200_000));
    assert.equal(refused.status, 400);
    assert.match(refused.text, /body: is nested deeper than 64 levels/);
    assert.equal((await post(deep(50))).status, 200, "a body of ordinary depth is taken");
    await waitFor(() => incidents.length === 1, 2000, "the ordinary incident");
    assert.equal((incidents[0]!.payload as { incidentId: string }).incidentId, "deep-50");
  });

  it("answers 413 to a body over 1 MiB, declared or not, and stays up for the next push", async () => {
    const { incidents } = await deploy();
    const big = incidentPush({ padding: "x".repeat(1024 * 1024) });
    assert.equal((await post(big)).status, 413);
    // Sent chunked, with no Content-Length to refuse it by.
    assert.equal((await post(big, { headers: { "Content-Length": null, "Transfer-Encoding": "chunked" } })).status, 413);
    assert.equal((await post(incidentPush())).status, 200);
    await waitFor(() => incidents.length === 1, 2000, "the incident after the large bodies");
  });

  it("answers 405 to anything but POST, naming POST in Allow", async () => {
    await deploy();
    for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
      const answer = await post(method === "GET" ? undefined : incidentPush(), { method });
      assert.equal(answer.status, 405, method);
      assert.equal(answer.headers.allow, "POST");
    }
  });

  it("sends the same incident (id and status) and the same report once, however often delivered", async () => {
    const { incidents, reports } = await deploy();
    for (let i = 0; i < 3; i++) {
      assert.equal((await post(incidentPush())).status, 200);
      assert.equal((await post(reportPush())).status, 200);
    }
    assert.equal((await post(incidentPush({ incidentStatus: 0, endTime: 1_764_000_090_000 }))).status, 200);
    assert.equal((await post(incidentPush({ incidentStatus: 0, endTime: 1_764_000_090_000 }))).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.deepEqual(incidents.map((msg) => (msg.payload as { raised: boolean }).raised), [true, false]);
    assert.equal(reports.length, 1);
  });

  it("with Incidents from H4, drops H0-H3 (still answered 200) and sends H4-H7 and unreadable levels", async () => {
    const { incidents } = await deploy({ minLevel: "H4" });
    const levels = ["H0", "H1", "H2", "H3", "H4", "H5", "H6", "H7", 6, "h5", "severe"];
    for (const [index, incidentLevel] of levels.entries()) {
      assert.equal((await post(incidentPush({ incidentId: `inc-${index}`, incidentLevel }))).status, 200);
    }
    await waitFor(() => incidents.length === 7, 2000, "the incidents at H4 and above");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(
      incidents.map((msg) => (msg.payload as { incidentLevel: unknown }).incidentLevel),
      ["H4", "H5", "H6", "H7", 6, "h5", "severe"],
    );
    assert.deepEqual(incidents.map((msg) => (msg.payload as { level?: { rank: number } }).level?.rank), [4, 5, 6, 7, 6, 5, undefined]);
  });

  it("shows its path and the alarms raised and not recovered under the node; H0/H1 are not alarms", async () => {
    await deploy();
    const statuses = recordStatuses("events");
    await post(incidentPush({ incidentId: "a" }));
    await post(incidentPush({ incidentId: "b", incidentLevel: "H6" }));
    await post(incidentPush({ incidentId: "c", incidentLevel: "H0" }));
    await waitFor(() => statuses.at(-1)?.text === "/robot-events: 2 alarms open", 2000, "2 alarms open");
    assert.equal(statuses.at(-1)?.fill, "yellow");
    await post(incidentPush({ incidentId: "a", incidentStatus: 0, endTime: 1_764_000_090_000 }));
    await post(incidentPush({ incidentId: "b", incidentStatus: 0, endTime: 1_764_000_090_000 }));
    await waitFor(() => statuses.at(-1)?.text === "/robot-events: no alarm open", 2000, "no alarm open");
    assert.equal(statuses.at(-1)?.fill, "green");
    await post({ ...incidentPush(), appId: "wrong" });
    await waitFor(() => statuses.at(-1)?.text === "/robot-events: no alarm open, 1 refused", 2000, "the refusal counted");
  });

  it("logs a refused push once, without the appId sent", async () => {
    await deploy();
    const events = helper.getNode("events");
    const warnings: string[] = [];
    const warn = events.warn.bind(events);
    events.warn = (text: unknown) => {
      warnings.push(String(text));
      warn(text);
    };
    await post({ ...incidentPush(), appId: "guess-1" });
    await post({ ...incidentPush(), appId: "guess-2" });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /push refused \(401\): appId is not this receiver's/);
    assert.doesNotMatch(warnings[0]!, /guess/);
  });

  it("applies httpNodeMiddleware and httpNodeCors like an http in node", async () => {
    helper.settings({
      httpNodeMiddleware: (req: IncomingMessage, res: ServerResponse, next: () => void) => {
        if (req.headers["x-gateway"] !== "ok") {
          res.statusCode = 403;
          res.end();
          return;
        }
        next();
      },
      httpNodeCors: { origin: "https://ops.example" },
    });
    try {
      const { incidents } = await deploy();
      assert.equal((await post(incidentPush())).status, 403, "the middleware refused it");
      const passed = await post(incidentPush(), { headers: { "X-Gateway": "ok", Origin: "https://ops.example" } });
      assert.equal(passed.status, 200);
      assert.equal(passed.headers["access-control-allow-origin"], "https://ops.example");
      await waitFor(() => incidents.length === 1, 2000, "the incident through the middleware");
    } finally {
      helper.settings({ httpNodeMiddleware: undefined, httpNodeCors: undefined });
    }
  });

  it("100 redeploys leave one route, which still answers", async () => {
    await deploy();
    const app = http.httpNode as HttpApp;
    assert.equal(routesOf(app, PATH), 1);
    for (let i = 0; i < 100; i++) {
      await helper.setFlows(eventsFlow({ name: `generation ${i}` }), i % 2 === 0 ? "full" : "nodes", { events: { appId: APP_ID } });
    }
    assert.equal(routesOf(app, PATH), 1);
    const incidents = collectMessages("incidents");
    assert.equal((await post(incidentPush())).status, 200);
    await waitFor(() => incidents.length === 1, 2000, "the incident after 100 redeploys");
  });

  it("a push still being read when its node closes is answered 503 and not sent on", async () => {
    const { incidents } = await deploy();
    const body = Buffer.from(JSON.stringify(incidentPush()));
    // The body is sent in two parts, the node redeployed in between.
    const answer = new Promise<number>((resolve, reject) => {
      const request = httpRequest(new URL(PATH, http.url), { method: "POST", headers: { "content-type": "application/json", "content-length": body.length } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on("error", reject);
      request.write(body.subarray(0, 20));
      setTimeout(() => {
        void helper.setFlows(eventsFlow({ name: "next" }), "full", { events: { appId: APP_ID } }).then(() => request.end(body.subarray(20)));
      }, 100);
    });
    assert.equal(await answer, 503, "the sender is told to send again");
    assert.equal(incidents.length, 0);
  });

  it("a path changed by a redeploy answers there and no longer at the old one", async () => {
    await deploy();
    await helper.setFlows(eventsFlow({ path: "/site-a/pushes" }), "full", { events: { appId: APP_ID } });
    const incidents = collectMessages("incidents");
    assert.equal((await post(incidentPush(), { path: "/site-a/pushes" })).status, 200);
    assert.equal((await post(incidentPush({ incidentId: "other" }))).status, 404);
    await waitFor(() => incidents.length === 1, 2000, "the incident at the new path");
  });

  for (const { settings, shown, field } of [
    { settings: { minLevel: "H8" }, shown: 'minLevel "H8" is not one of H0-H7', field: "minLevel" },
    { settings: { path: "robot-events" }, shown: 'path "robot-events" must start with /', field: "path" },
  ]) {
    it(`refuses ${JSON.stringify(settings)} under the node and in the log naming ${field}, and clears that status when it closes`, async () => {
      const statuses: unknown[] = [];
      const onStatus = (event: { id: string; status: unknown }) => event.id === "events" && statuses.push(event.status);
      runtimeEvents.on("node-status", onStatus);
      try {
        await deploy(settings);
        const first = statuses[0] as { fill: string; shape: string; text: string };
        assert.deepEqual([first.fill, first.shape], ["red", "ring"]);
        assert.ok(first.text.startsWith(shown), first.text);
        const logged = loggedLines();
        assert.ok(logged.some((line) => /"id":"events"/.test(line) && line.includes(shown.replace(/"/g, '\\"'))), logged.join("\n"));
        // As the editor's "Stop flows": Node-RED clears the status of a removed node itself, not of a stopped one.
        await helper.clearFlows();
        assert.deepEqual(statuses.at(-1), {}, "no refusal left under the stopped node");
      } finally {
        runtimeEvents.off("node-status", onStatus);
      }
    });
  }

  it("takes Incidents from H7, the highest level, and shows its counts", async () => {
    await deploy({ minLevel: "H7" });
    const statuses = recordStatuses("events");
    assert.equal((await post(incidentPush({ incidentLevel: "H7" }))).status, 200);
    await waitFor(() => statuses.at(-1)?.text === "/robot-events: 1 alarm open", 2000, "1 alarm open");
  });

  it("two nodes on one path: the second says so under it and in the log, and the first keeps receiving", async () => {
    const flow = [
      ...eventsFlow(),
      { id: "second", type: "robot-events", z: TAB, path: "/Robot-Events", minLevel: "", wires: [["incidents"], ["reports"]] },
    ];
    // What the editor is sent (Node-RED's "node-status" runtime event), from the node's first status on.
    const statuses: unknown[] = [];
    const onStatus = (event: { id: string; status: unknown }) => event.id === "second" && statuses.push(event.status);
    runtimeEvents.on("node-status", onStatus);
    try {
      await helper.load(http.serving(robotEvents) as never, flow, { events: { appId: APP_ID }, second: { appId: "other" } });
    } finally {
      runtimeEvents.off("node-status", onStatus);
    }
    const incidents = collectMessages("incidents");
    assert.deepEqual(statuses[0], { fill: "red", shape: "ring", text: "path /Robot-Events is taken by node events: give this node another path" });
    const logged = loggedLines();
    assert.ok(logged.some((line) => /"id":"second"/.test(line) && /path \/Robot-Events is taken by node events/.test(line)), logged.join("\n"));
    assert.equal(routesOf(http.httpNode as HttpApp, "/Robot-Events"), 0, "the second added no route");
    assert.equal((await post(incidentPush())).status, 200);
    await waitFor(() => incidents.length === 1, 2000, "the first node's incident");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(incidents.length, 1, "sent once, by the first node");
  });
});
