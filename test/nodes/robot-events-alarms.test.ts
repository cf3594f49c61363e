/**
 * The account's alarms until they are dealt with, through robot-events'
 * input in real Node-RED: listed with the shift's log, acknowledged by name,
 * kept across a full redeploy (the package's memory) and across a restart
 * with the localfilesystem context store (its own Node-RED process), also
 * when the store answers late (listed once it answers) or never (listed
 * without them after the bound, logged); every
 * incident from H2 counts, also one below the node's Incidents from, and the
 * count under the node, msg.openAlarms and the list agree at each boundary;
 * bad requests end in one error naming the field and change nothing.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import robotEvents, { RESTORE_WAIT_MS } from "../../src/nodes/robot-events/robot-events";
import { HttpNodeServer } from "../support/http-node";
import { TAB, collectMessages, flowWith, helper, loadFlow, recordStatuses, useNodeRed, waitFor, type FlowNode } from "../support/node-red";
import { startInstance } from "../support/node-red-cluster";
import { rawRequest } from "../support/raw-http";
import { APP_ID, PATH, SERIAL, incidentPush } from "../support/robot-events";

const OTHER_SERIAL = "GS-S-000102";

type Alarm = { serialNumber: string; incidentId: string; name?: string; acknowledged?: { by: string; at: string }; recoveredAt?: string };
type AlarmsAnswer = { topic: string; pushType: string; payload: { open: Alarm[]; shift: Alarm[] } };

/** An incident raised (or recovered) now, so that it is within the shift. */
const incident = (incidentId: string, raised: boolean, level = "H6", name = "Brush motor stalled") =>
  incidentPush({ incidentId, incidentStatus: raised ? 1 : 0, incidentLevel: level, incidentName: name, startTime: Date.now() - 60_000, endTime: raised ? 0 : Date.now() });

const eventsNode = (settings: Record<string, unknown> = {}): FlowNode => ({
  id: "events",
  type: "robot-events",
  robot: "config",
  path: PATH,
  minLevel: "",
  ...settings,
  wires: [["incidents"], [], []],
});
const around = (settings: Record<string, unknown> = {}): FlowNode[] => [
  eventsNode(settings),
  { id: "incidents", type: "helper" },
  { id: "catch-errors", type: "catch", scope: ["events"], uncaught: false, wires: [["caught"]] },
  { id: "caught", type: "helper" },
];

/** Node-RED's HTTP server for flows on loopback, a fresh Node-RED for each test, the package's memory forgotten after it. */
function useEventsRig(): HttpNodeServer {
  const http = new HttpNodeServer();
  before(() => http.start());
  after(() => http.stop());
  useNodeRed();
  afterEach(forgetAccountMemory);
  return http;
}

describe("robot-events: the account's alarms listed and acknowledged through its input", function () {
  this.timeout(30_000);
  const http = useEventsRig();

  const credentials = { config: { token: "alarms-token" }, events: { appId: APP_ID } };
  async function deploy(settings: Record<string, unknown> = {}) {
    await loadFlow([http.serving(robotEvents)], flowWith("http://127.0.0.1:9", around(settings)), credentials);
    return { out: collectMessages("incidents") as unknown as AlarmsAnswer[], caught: collectMessages("caught") };
  }
  const push = async (body: unknown) => assert.equal((await rawRequest(http.url, "POST", PATH, { body })).status, 200);
  const ask = (payload: unknown, extra: Record<string, unknown> = {}) => helper.getNode("events").receive({ payload, ...extra });
  const answers = (out: AlarmsAnswer[]) => out.filter((msg) => msg.pushType === "alarms");

  it("lists the open alarms and the shift's log, and an acknowledgement names who and when; a recovery leaves the list but not the log", async () => {
    const { out, caught } = await deploy();
    await push(incident("i-1", true));
    await push(incident("i-2", true, "H4", "Water tank empty"));
    ask("alarms", { topic: "console" });
    await waitFor(() => answers(out).length === 1, 3000, "the list");
    const listed = answers(out)[0]!;
    assert.equal(listed.topic, "alarms");
    assert.deepEqual(
      listed.payload.open.map((alarm) => [alarm.incidentId, alarm.name, alarm.acknowledged]),
      [
        ["i-1", "Brush motor stalled", undefined],
        ["i-2", "Water tank empty", undefined],
      ],
    );
    const before = Date.now();
    ask({ acknowledge: { serialNumber: SERIAL, incidentId: "i-1" }, by: "Ana" });
    await waitFor(() => answers(out).length === 2, 3000, "the answer to the acknowledgement");
    const acknowledged = answers(out)[1]!.payload.open.find((alarm) => alarm.incidentId === "i-1")!.acknowledged!;
    assert.equal(acknowledged.by, "Ana");
    assert.ok(Date.parse(acknowledged.at) >= before - 1000, acknowledged.at);

    await push(incident("i-1", false));
    ask({ alarms: true });
    await waitFor(() => answers(out).length === 3, 3000, "the list after the recovery");
    const after = answers(out)[2]!.payload;
    assert.deepEqual(after.open.map((alarm) => alarm.incidentId), ["i-2"]);
    const logged = after.shift.find((alarm) => alarm.incidentId === "i-1")!;
    assert.equal(logged.acknowledged?.by, "Ana");
    assert.ok(logged.recoveredAt, "the log keeps when it recovered");
    assert.equal(caught.length, 0);
  });

  it("answers the incidents of the days asked, in the zone asked, with how fast each day's were acknowledged and recovered", async () => {
    const { out, caught } = await deploy();
    // Raised 23:30 and 00:30 in Auckland (UTC+13 in December): two local days, one UTC date.
    const raised = (incidentId: string, iso: string) =>
      incidentPush({ incidentId, incidentStatus: 1, incidentLevel: "H5", incidentName: "Stuck", startTime: Date.parse(iso), endTime: 0 });
    const recovered = (incidentId: string, raisedIso: string, endIso: string) =>
      incidentPush({ incidentId, incidentStatus: 0, incidentLevel: "H5", incidentName: "Stuck", startTime: Date.parse(raisedIso), endTime: Date.parse(endIso) });
    await push(raised("late", "2026-12-01T10:30:00Z"));
    await push(raised("early", "2026-12-01T11:30:00Z"));
    await push(recovered("early", "2026-12-01T11:30:00Z", "2026-12-01T11:40:00Z"));
    ask({ acknowledge: { serialNumber: SERIAL, incidentId: "late" }, by: "Ana" });
    const day = (from: string, to?: string) => ({ alarms: { from, ...(to ? { to } : {}), timezone: "Pacific/Auckland" } });
    ask(day("2026-12-01"));
    ask(day("2026-12-02"));
    ask(day("2026-12-01", "2026-12-02"));
    ask(day("2026-11-30"));
    await waitFor(() => answers(out).length === 5, 3000, "the acknowledgement and four lists");
    const [, first, second, both, before] = answers(out).map((msg) => msg.payload as unknown as { incidents: Alarm[]; days: Array<Record<string, unknown>>; timezone: string });
    assert.deepEqual(first!.incidents.map((entry) => entry.incidentId), ["late"], "23:30 on the 1st in Auckland");
    assert.deepEqual(second!.incidents.map((entry) => entry.incidentId), ["early"], "00:30 on the 2nd in Auckland, the 1st in UTC");
    assert.deepEqual(before!.incidents, []);
    assert.equal(both!.timezone, "Pacific/Auckland");
    assert.deepEqual(
      both!.days.map((figures) => [figures.day, figures.raised, figures.acknowledged, figures.recovered, figures.toRecover]),
      [
        ["2026-12-01", 1, 1, 0, null],
        ["2026-12-02", 1, 0, 1, { meanSeconds: 600, longestSeconds: 600 }],
      ],
    );
    assert.equal(caught.length, 0);
    for (const alarms of [{ from: "2026-13-01" }, { from: "2026-12-02", to: "2026-12-01" }, { timezone: "Europe/Berln" }]) ask({ alarms });
    await waitFor(() => caught.length === 3, 3000, "three refusals");
    const messages = caught.map((msg) => (msg.error as { message: string }).message);
    assert.match(messages[0]!, /payload\.alarms\.from: must be a day as "YYYY-MM-DD" \(got "2026-13-01"\)/);
    assert.match(messages[1]!, /payload\.alarms\.to: must not be before from \(2026-12-02\)/);
    assert.match(messages[2]!, /payload\.alarms\.timezone: must be an IANA time zone/);
  });

  it("counts an incident below Incidents from as an alarm of the account, without sending it on", async () => {
    const { out } = await deploy({ minLevel: "H5" });
    await push(incident("low", true, "H3", "Side brush worn"));
    ask("alarms");
    await waitFor(() => answers(out).length === 1, 3000, "the list");
    assert.deepEqual(answers(out)[0]!.payload.open.map((alarm) => alarm.incidentId), ["low"]);
    assert.equal(out.filter((msg) => msg.pushType === "incident").length, 0, "not sent on");
  });

  /**
   * The count under the node, msg.openAlarms and the listed alarms read one
   * tracker: an incident below Incidents from is not sent on but is still an
   * alarm, so all of them say 1; H0 and H1 are events, so all say 0.
   */
  const boundaries: Array<{ minLevel: string; level: string; sentOn: boolean; open: number }> = [
    { minLevel: "H4", level: "H4", sentOn: true, open: 1 },
    { minLevel: "H5", level: "H4", sentOn: false, open: 1 },
    { minLevel: "H4", level: "H3", sentOn: false, open: 1 },
    { minLevel: "", level: "H2", sentOn: true, open: 1 },
    { minLevel: "", level: "H1", sentOn: true, open: 0 },
    { minLevel: "", level: "H0", sentOn: true, open: 0 },
  ];
  for (const { minLevel, level, sentOn, open } of boundaries) {
    it(`with Incidents from ${minLevel || "every level"}, an ${level} incident ${sentOn ? "is sent on" : "is held back"} and the status, msg.openAlarms and the list all count ${open}`, async () => {
      const { out } = await deploy({ minLevel });
      const statuses = recordStatuses("events");
      await push(incident("i-1", true, level));
      ask("alarms");
      await waitFor(() => answers(out).length === 1, 3000, "the list");
      // Past the status's redraw interval (500 ms): the status drawn after the push is the last.
      await new Promise((resolve) => setTimeout(resolve, 700));
      assert.equal(answers(out)[0]!.payload.open.length, open, "listed");
      assert.equal(statuses.at(-1)?.text, `${PATH}: ${open === 1 ? "1 alarm open" : "no alarm open"}`, "under the node");
      const sent = out.filter((msg) => msg.pushType === "incident") as unknown as Array<{ openAlarms: number }>;
      assert.deepEqual(
        sent.map((msg) => msg.openAlarms),
        sentOn ? [open] : [],
        "sent on, with the robot's count",
      );
    });
  }

  it("counts two robots' alarms with one incident id as two, and recovers each on its own", async () => {
    const { out } = await deploy();
    const statuses = recordStatuses("events");
    const ofRobot = (serialNumber: string, raised: boolean) => {
      const body = incident("same-id", raised) as { payload: Record<string, unknown> };
      return { ...body, payload: { ...body.payload, serialNumber } };
    };
    await push(ofRobot(SERIAL, true));
    await push(ofRobot(OTHER_SERIAL, true));
    await waitFor(() => statuses.at(-1)?.text === `${PATH}: 2 alarms open`, 3000, "two alarms under the node");
    ask("alarms");
    await waitFor(() => answers(out).length === 1, 3000, "the list");
    assert.deepEqual(answers(out)[0]!.payload.open.map((alarm) => [alarm.serialNumber, alarm.incidentId]), [
      [SERIAL, "same-id"],
      [OTHER_SERIAL, "same-id"],
    ]);
    const sent = () => out.filter((msg) => msg.pushType === "incident") as unknown as Array<{ topic: string; openAlarms: number }>;
    assert.deepEqual(sent().map((msg) => [msg.topic, msg.openAlarms]), [
      [SERIAL, 1],
      [OTHER_SERIAL, 1],
    ]);
    await push(ofRobot(SERIAL, false));
    await waitFor(() => statuses.at(-1)?.text === `${PATH}: 1 alarm open`, 3000, "one alarm left under the node");
    assert.deepEqual(sent().at(-1)!.openAlarms, 0, "the recovered robot has none");
    ask("alarms");
    await waitFor(() => answers(out).length === 2, 3000, "the list after the recovery");
    assert.deepEqual(answers(out)[1]!.payload.open.map((alarm) => alarm.serialNumber), [OTHER_SERIAL]);
  });

  it("refuses a request it does not understand, an alarm that is not open, and a node with no account, naming the field and changing nothing", async () => {
    const { out, caught } = await deploy();
    await push(incident("i-1", true));
    const refusals: Array<[unknown, RegExp]> = [
      [{ acknowledge: { serialNumber: SERIAL, incidentId: "nope" } }, /payload\.acknowledge\.incidentId: no open alarm nope of robot GS-S-000101/],
      [{ acknowledge: { serialNumber: SERIAL } }, /payload\.acknowledge\.incidentId: must be/],
      [{ acknowledge: "i-1" }, /payload\.acknowledge: must be/],
      [{ acknowledge: { serialNumber: SERIAL, incidentId: "i-1" }, by: "" }, /payload\.by: must be a name/],
      ["please", /payload: must be "alarms"/],
    ];
    for (const [payload] of refusals) ask(payload);
    await waitFor(() => caught.length === refusals.length, 3000, "one error per request");
    const messages = caught.map((msg) => (msg.error as { message: string }).message);
    for (const [, expected] of refusals) assert.equal(messages.filter((message) => expected.test(message)).length, 1, `${String(expected)} in ${messages.join("\n")}`);
    assert.ok(caught.every((msg) => (msg.error as { code: string }).code === "INVALID_INPUT"));
    assert.equal(answers(out).length, 0, "nothing answered");
    ask("alarms");
    await waitFor(() => answers(out).length === 1, 3000, "the list");
    assert.equal(answers(out)[0]!.payload.open[0]!.acknowledged, undefined, "nothing acknowledged");

    await helper.unload();
    await loadFlow([http.serving(robotEvents)], flowWith("http://127.0.0.1:9", around({ robot: "" })), credentials);
    const noAccount = collectMessages("caught");
    ask("alarms");
    await waitFor(() => noAccount.length === 1, 3000, "the error");
    assert.match((noAccount[0]!.error as { message: string }).message, /^.*robot: set this node's Account/);
  });

  it("keeps an acknowledgement across a full redeploy, and the new node writes it to its context", async () => {
    const { out } = await deploy();
    await push(incident("i-1", true));
    ask({ acknowledge: { serialNumber: SERIAL, incidentId: "i-1" }, by: "Ana" });
    await waitFor(() => answers(out).length === 1, 3000, "the acknowledgement");
    const flow = flowWith("http://127.0.0.1:9", around());
    await helper.setFlows(flow.map((node) => (node.id === "events" ? { ...node, name: "renamed" } : node)), "full", credentials);
    const again = collectMessages("incidents") as unknown as AlarmsAnswer[];
    ask("alarms");
    await waitFor(() => answers(again).length === 1, 3000, "the list after the redeploy");
    assert.equal(answers(again)[0]!.payload.open[0]!.acknowledged?.by, "Ana");
    await push(incident("i-2", true));
    await waitFor(() => {
      const stored = helper.getNode("events").context().get("robot-events.alarms") as { open?: Alarm[] } | undefined;
      return stored?.open?.length === 2 && stored.open[0]!.acknowledged?.by === "Ana";
    }, 3000, "the alarms and the acknowledgement in the new node's context");
  });
});

describe("robot-events: the account's alarms across a restart with the localfilesystem context store", function () {
  this.timeout(90_000);
  let store: string;
  before(() => (store = fs.mkdtempSync(path.join(os.tmpdir(), "robot-events-store-"))));
  after(() => fs.rmSync(store, { recursive: true, force: true }));

  const start = (name: string) =>
    startInstance({
      name,
      flows: [
        { id: "tab", type: "tab", label: "alarms" },
        { id: "config", type: "robot-config", z: "tab", baseUrl: "http://127.0.0.1:9", timeout: 5, maxRetries: 1, authMode: "token" },
        { id: "events", type: "robot-events", z: "tab", robot: "config", path: "/alarms-restart", minLevel: "", wires: [[], [], []] },
      ],
      credentials: { config: { token: "restart-alarms" }, events: { appId: APP_ID } },
      settings: { contextStorage: { default: { module: "localfilesystem", config: { dir: store, flushInterval: 1 } } } },
      watch: ["events"],
    });

  it("lists the open alarm with its acknowledgement, and the shift's log, after Node-RED starts again", async () => {
    const first = await start("A");
    const base = first.url.replace(/\/$/, "");
    for (const body of [incident("i-1", true), incident("i-2", true), incident("i-2", false)])
      assert.equal((await rawRequest(base, "POST", "/alarms-restart", { body })).status, 200);
    await first.inject("events", { payload: { acknowledge: { serialNumber: SERIAL, incidentId: "i-1" }, by: "Ana" } });
    await first.waitFor((instance) => instance.sent.some((sent) => (sent.payload as { open?: Alarm[] }).open?.[0]?.acknowledged !== undefined), 5000, "the acknowledgement");
    // Past the store's flush interval, then a clean stop (which flushes too).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await first.stop();

    const second = await start("B");
    try {
      await second.inject("events", { payload: "alarms" });
      await second.waitFor((instance) => instance.sent.length > 0, 10_000, "the list");
      const { open, shift } = second.sent[0]!.payload as { open: Alarm[]; shift: Alarm[] };
      assert.deepEqual(open.map((alarm) => [alarm.incidentId, alarm.acknowledged?.by]), [["i-1", "Ana"]]);
      assert.deepEqual(
        shift.map((alarm) => [alarm.incidentId, alarm.recoveredAt !== undefined]),
        [
          ["i-1", false],
          ["i-2", true],
        ],
      );
    } finally {
      await second.stop();
    }
  });
});

/**
 * A persistent context store whose reads the test holds back: what a slow
 * store (a database over the network) does just after Node-RED starts. It
 * keeps what was written across a restart, as a store on disk does; the test
 * helper's clean of every context at unload is no restart's, so it keeps that too.
 */
class HeldStore {
  private readonly scopes = new Map<string, Map<string, unknown>>();
  private heldReads: Array<() => void> | undefined;

  hold(): void {
    this.heldReads ??= [];
  }
  release(): void {
    const reads = this.heldReads ?? [];
    this.heldReads = undefined;
    for (const read of reads) read();
  }
  value(scope: string, key: string): unknown {
    return this.scopes.get(scope)?.get(key);
  }
  open = () => Promise.resolve();
  close = () => Promise.resolve();
  get = (scope: string, key: string, callback: (error: Error | undefined, value: unknown) => void) => {
    const read = () => callback(undefined, structuredClone(this.value(scope, key)));
    if (this.heldReads) this.heldReads.push(read);
    else read();
  };
  set = (scope: string, key: string, value: unknown, callback: (error?: Error) => void) => {
    if (!this.scopes.has(scope)) this.scopes.set(scope, new Map());
    this.scopes.get(scope)!.set(key, structuredClone(value));
    callback();
  };
  keys = (scope: string, callback: (error: Error | undefined, keys: string[]) => void) => callback(undefined, [...(this.scopes.get(scope)?.keys() ?? [])]);
  delete = (scope: string) => Promise.resolve(void this.scopes.delete(scope));
  clean = () => Promise.resolve();
}

describe("robot-events: the alarms kept in context, asked for just after a restart", function () {
  this.timeout(30_000);
  const http = useEventsRig();
  afterEach(() => helper.settings({}));

  const credentials = { config: { token: "held-alarms" }, events: { appId: APP_ID } };
  /** Loads the flow with `store` as the default context store (the test helper does not open configured stores itself). */
  async function deploy(store: HeldStore) {
    // Node-RED takes a store module given as a function (settings.contextStorage's module); the helper's types name only a module's name.
    helper.settings({ contextStorage: { default: { module: () => store } } } as never);
    const openStores = () => (helper as unknown as { _context: { load(): Promise<void> } })._context.load();
    await loadFlow([openStores, http.serving(robotEvents)], flowWith("http://127.0.0.1:9", around()), credentials);
    return collectMessages("incidents") as unknown as AlarmsAnswer[];
  }
  /** Node-RED stopped and started again: the package's memory gone, the store's content kept. */
  async function restart(store: HeldStore) {
    await helper.unload();
    await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
    forgetAccountMemory();
    await new Promise<void>((resolve) => helper.startServer(() => resolve()));
    return deploy(store);
  }
  const listed = (out: AlarmsAnswer[]) => out.filter((msg) => msg.pushType === "alarms").map((msg) => msg.payload.open.map((alarm) => alarm.incidentId));
  const warnings = () =>
    (helper.log().getCalls() as Array<{ args: Array<{ level?: number; msg?: unknown }> }>).map((call) => call.args[0]).filter((event) => event?.level === 30).map((event) => String(event?.msg));

  async function storeHoldingAnAlarm(): Promise<HeldStore> {
    const store = new HeldStore();
    await deploy(store);
    assert.equal((await rawRequest(http.url, "POST", PATH, { body: incident("kept", true) })).status, 200);
    await waitFor(() => (store.value(`events:${TAB}`, "robot-events.alarms") as { open?: unknown[] } | undefined)?.open?.length === 1, 3000, "the alarm in the store");
    return store;
  }

  it("a list asked at once, while the store has not answered yet, waits for it and lists the kept alarm", async () => {
    const store = await storeHoldingAnAlarm();
    store.hold();
    const out = await restart(store);
    helper.getNode("events").receive({ payload: "alarms" });
    store.release();
    await waitFor(() => listed(out).length === 1, 5000, "the list");
    assert.deepEqual(listed(out), [["kept"]]);
  });

  it(`a store that does not answer within ${RESTORE_WAIT_MS / 1000} s holds the list no longer: listed without the kept alarm, said in the log, and the alarm joins once the store answers`, async () => {
    const store = await storeHoldingAnAlarm();
    store.hold();
    const out = await restart(store);
    helper.getNode("events").receive({ payload: "alarms" });
    await waitFor(() => listed(out).length === 1, RESTORE_WAIT_MS + 5000, "the list past the bound");
    assert.deepEqual(listed(out), [[]]);
    assert.ok(warnings().some((text) => text.includes(`not read back within ${RESTORE_WAIT_MS / 1000} s`)), warnings().join("\n"));
    store.release();
    // The store's answer is taken in within the same turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    helper.getNode("events").receive({ payload: "alarms" });
    await waitFor(() => listed(out).length === 2, 5000, "the list after the store answered");
    assert.deepEqual(listed(out)[1], ["kept"]);
  });
});
