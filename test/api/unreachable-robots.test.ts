/**
 * One robot never blinds the others (issue 44): batchGetStatuses against a
 * recording stub on loopback that refuses any batch naming robot X whole, as
 * the cloud does (403 code 7 for a robot not of the account, 230003 for one
 * that cannot be reached). The batch is split until X is alone, the others are
 * read in the same call, X is reported with the cloud's reason, left out and
 * asked again alone with backoff (on a fake clock: at the step, not 1 ms
 * before), and cleared when it answers. An account-level failure still fails
 * the call with no split.
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { FleetStatuses, fleetStatusesOf } from "../../src/api/watching/fleet-statuses";
import {
  UNREACHABLE_FIRST_BACKOFF_MS,
  UNREACHABLE_MAX_BACKOFF_MS,
  backoffAfter,
  unreachableRobotsOf,
  type UnreachableEvent,
} from "../../src/api/watching/unreachable-robots";
import { useClientOnRecordingServer } from "../support/client-on-server";
import { failureOf } from "../support/failures";
import { FakeClock } from "../support/fake-clock";
import type { RecordedRequest, ScriptedReply } from "../support/recording-server";

const TOKEN = "tok-unreachable-7c1e";

const serials = (count: number): string[] => Array.from({ length: count }, (_, index) => `SN-${String(index + 1).padStart(3, "0")}`);
const namesOf = (request: RecordedRequest): string[] => new URL(request.path, "http://h").searchParams.getAll("names");
const serialOf = (status: Record<string, unknown>) => status.serialNumber as string;

const REFUSALS: Record<string, (robot: string) => ScriptedReply> = {
  "403 code 7": (robot) => ({
    status: 403,
    body: { code: 7, message: `The caller has no permission on robot ${robot} (or no such robot exists).` },
  }),
  "230003": () => ({ status: 200, body: { code: 230003, message: "device offline" } }),
};

/** Extra calls to find the robot at fault in a batch of 11, by its place (first, sixth, last): halving at the middle, the left half asked first. */
const EXTRA_CALLS: Record<number, number> = { 0: 8, 5: 4, 10: 3 };

describe("api: a batch refused whole because of one robot", function () {
  const stub = useClientOnRecordingServer({ auth: { token: TOKEN }, engine: { rateLimit: 0 }, retry: { maxRetries: 0 } });
  let refusedRobots = new Set<string>();
  let refusal: (robot: string) => ScriptedReply = REFUSALS["230003"]!;

  /** Answers a v1 batch with a status per name, or refuses it whole when it names a robot of `refusedRobots`. */
  function cloud(request: RecordedRequest): ScriptedReply {
    const names = namesOf(request);
    const atFault = names.find((name) => refusedRobots.has(name));
    if (atFault) return refusal(atFault);
    return {
      body: {
        robotStatuses: names.map((serialNumber) => ({ name: `robots/${serialNumber}`, serialNumber, online: true, battery: { soc: 80 } })),
      },
    };
  }

  beforeEach(() => {
    forgetAccountMemory();
    refusedRobots = new Set();
    refusal = REFUSALS["230003"]!;
    stub.server.respondWith(cloud);
  });

  for (const [label, reply] of Object.entries(REFUSALS)) {
    for (const place of [0, 5, 10]) {
      it(`${label}, robot ${place + 1} of 11: the other 10 read in the same call, the robot reported with the reason, a halving's extra calls`, async function () {
        refusal = reply;
        const robots = serials(11);
        const x = robots[place]!;
        refusedRobots.add(x);
        const statuses = await stub.client.batchGetStatuses(robots, { line: "v1" });
        assert.deepEqual(statuses.map(serialOf).sort(), robots);
        const shown = statuses.find((status) => serialOf(status) === x)!;
        assert.equal(shown.online, false);
        const mark = shown.unreachable as { code: string; message: string; askAgainAt: string };
        assert.equal(mark.code, label === "230003" ? "ROBOT_UNREACHABLE" : "PERMISSION_DENIED");
        assert.match(mark.message, label === "230003" ? /device offline/ : new RegExp(x));
        for (const status of statuses.filter((one) => serialOf(one) !== x)) assert.equal(status.online, true, serialOf(status));
        // Halving 11: one call a level where the first half answers (the robot is in the other), two where it holds the robot.
        assert.equal(stub.server.requests.length - 1, EXTRA_CALLS[place], "extra calls");
        const asked = stub.server.requests.map((request) => namesOf(request).join());
        assert.equal(new Set(asked).size, asked.length, "no batch asked twice");

        // The next call, within the backoff: one batch without the robot, which is reported as before.
        stub.server.requests.length = 0;
        const again = await stub.client.batchGetStatuses(robots, { line: "v1" });
        assert.deepEqual(stub.server.requests.map(namesOf), [robots.filter((robot) => robot !== x)]);
        assert.deepEqual((again.find((status) => serialOf(status) === x)!.unreachable as { code: string }).code, mark.code);
      });
    }
  }

  it("two robots at fault in one batch are both found; the others read", async function () {
    const robots = serials(11);
    refusedRobots = new Set([robots[1]!, robots[8]!]);
    const statuses = await stub.client.batchGetStatuses(robots, { line: "v1" });
    const unreachable = statuses
      .filter((status) => status.unreachable !== undefined)
      .map(serialOf)
      .sort();
    assert.deepEqual(unreachable, [robots[1], robots[8]]);
    assert.equal(statuses.filter((status) => status.online === true).length, 9);
  });

  it("the robot at fault keeps its last status, shown offline; the fleet's kept statuses show it so, and drop the mark once it answers", async function () {
    const robots = serials(3);
    refusedRobots.add(robots[1]!);
    const clock = new FakeClock(Date.now());
    unreachableRobotsOf(stub.client.accountKey, clock.now);
    fleetStatusesOf(stub.client.accountKey).record([
      { name: `robots/${robots[1]}`, serialNumber: robots[1], online: true, battery: { soc: 55 } },
    ]);
    const statuses = await stub.client.batchGetStatuses(robots, { line: "v1" });
    const shown = statuses.find((status) => serialOf(status) === robots[1])!;
    assert.deepEqual([shown.online, (shown.battery as { soc: number }).soc], [false, 55]);
    const kept = fleetStatusesOf(stub.client.accountKey);
    kept.record(statuses);
    assert.ok(kept.get(robots[1]!)!.status.unreachable, "kept as unreachable");
    refusedRobots.clear();
    await clock.advance(UNREACHABLE_FIRST_BACKOFF_MS);
    kept.record(await stub.client.batchGetStatuses(robots, { line: "v1" }));
    assert.equal(kept.get(robots[1]!)!.status.unreachable, undefined);
    assert.equal(kept.get(robots[1]!)!.status.online, true);
  });

  it("an S-line read marked unreachable, then a v1 read of the robot: the merged status carries no mark", function () {
    const kept = new FleetStatuses();
    kept.record([{ serialNumber: "SN-001", online: false, unreachable: { code: "ROBOT_UNREACHABLE" } }], 1000);
    kept.record([{ name: "robots/SN-001", serialNumber: "SN-001", online: true }], 2000);
    assert.deepEqual([kept.get("SN-001")!.status.online, "unreachable" in kept.get("SN-001")!.status], [true, false]);
    kept.record([{ serialNumber: "SN-001", online: false, unreachable: { code: "ROBOT_UNREACHABLE" } }], 3000);
    assert.ok("unreachable" in kept.get("SN-001")!.status, "a newer mark is kept");
  });

  it("is asked again alone at its backoff step, not 1 ms before; a refusal doubles the step; an answer clears it at once", async function () {
    const clock = new FakeClock(Date.parse("2026-12-07T03:00:00Z"));
    const unreachable = unreachableRobotsOf(stub.client.accountKey, clock.now);
    const events: UnreachableEvent[] = [];
    unreachable.onEvent((event) => events.push(event));
    const robots = serials(5);
    const x = robots[2]!;
    refusedRobots.add(x);
    const askedAlone = () => stub.server.requests.filter((request) => namesOf(request).join() === x).length;
    const read = () => stub.client.batchGetStatuses(robots, { line: "v1" });

    await read();
    assert.deepEqual(
      events.map((event) => [event.kind, event.robot.step]),
      [["refused", 1]],
    );
    stub.server.requests.length = 0;
    await clock.advance(UNREACHABLE_FIRST_BACKOFF_MS - 1);
    await read();
    assert.equal(askedAlone(), 0, "1 ms before the step: left out");
    assert.ok(!stub.server.requests.some((request) => namesOf(request).includes(x)));
    await clock.advance(1);
    stub.server.requests.length = 0;
    // Two reads at the step (a watch and a job's poll): one of them asks it.
    await Promise.all([read(), read()]);
    assert.equal(askedAlone(), 1, "at the step: asked alone, once");
    assert.equal(stub.server.requests.length, 3, "and the others in their own batch, by each read");
    assert.deepEqual(
      events.map((event) => [event.kind, event.robot.step]),
      [
        ["refused", 1],
        ["refused", 2],
      ],
    );
    assert.equal(unreachable.get(x)!.askAgainAt, clock.now() + 2 * UNREACHABLE_FIRST_BACKOFF_MS);

    // Several polls within the step: no call for it, no event.
    stub.server.requests.length = 0;
    for (let poll = 0; poll < 3; poll++) await read();
    assert.equal(askedAlone(), 0);
    assert.equal(events.length, 2);

    refusedRobots.clear();
    await clock.advance(2 * UNREACHABLE_FIRST_BACKOFF_MS);
    const statuses = await read();
    assert.equal(statuses.find((status) => serialOf(status) === x)!.online, true);
    assert.deepEqual(events.at(-1)!.kind, "answered");
    assert.equal(unreachable.get(x), undefined);
    stub.server.requests.length = 0;
    await read();
    assert.deepEqual(stub.server.requests.map(namesOf), [robots], "back in its batch");
  });

  it("a robot due when the cloud fails for the account is asked again at the next read, not left resting", async function () {
    const clock = new FakeClock(Date.parse("2026-12-07T03:00:00Z"));
    const unreachable = unreachableRobotsOf(stub.client.accountKey, clock.now);
    const robots = serials(3);
    refusedRobots.add(robots[0]!);
    await stub.client.batchGetStatuses(robots, { line: "v1" });
    await clock.advance(UNREACHABLE_FIRST_BACKOFF_MS);
    stub.server.respondWith(() => ({ status: 500, body: { code: 13, message: "internal" } }));
    await failureOf(stub.client.batchGetStatuses(robots, { line: "v1" }));
    assert.equal(unreachable.get(robots[0]!)!.step, 1, "no step for the cloud's failure");
    stub.server.respondWith(cloud);
    refusedRobots.clear();
    stub.server.requests.length = 0;
    await stub.client.batchGetStatuses(robots, { line: "v1" });
    assert.ok(
      stub.server.requests.some((request) => namesOf(request).join() === robots[0]),
      "asked alone",
    );
    assert.equal(unreachable.get(robots[0]!), undefined, "and cleared");
  });

  it("the backoff doubles from 30 s and stops at 10 min", function () {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map(backoffAfter), [30_000, 60_000, 120_000, 240_000, 480_000, 600_000, 600_000]);
    assert.equal(UNREACHABLE_MAX_BACKOFF_MS, 600_000);
  });

  it("a read of that one robot ends in the cloud's refusal, then, while it rests, in the same refusal without a call", async function () {
    refusedRobots.add("SN-001");
    const first = await failureOf(stub.client.batchGetStatuses(["SN-001"], { line: "v1" }));
    assert.equal(first.code, "ROBOT_UNREACHABLE");
    assert.match(first.message, /device offline/);
    assert.equal(stub.server.requests.length, 1);
    const resting = await failureOf(stub.client.batchGetStatuses(["SN-001"], { line: "v1" }));
    assert.equal(resting.code, "ROBOT_UNREACHABLE");
    assert.match(resting.message, /device offline.*SN-001: not asked again before \d{4}-/);
    assert.equal(stub.server.requests.length, 1, "no call while it rests");
  });

  for (const [label, reply] of [
    ["HTTP 500 (code 13)", { status: 500, body: { code: 13, message: "internal" } }],
    ["the rate limit 100026 past its retries", { status: 200, body: { code: 100026, message: "request too frequent" } }],
    ["HTTP 401", { status: 401, body: { code: 16, message: "token expired" } }],
  ] as const) {
    it(`${label} is the account's or the cloud's: the call fails as it is, with no split`, async function () {
      stub.server.respondWith(() => reply);
      const error = await failureOf(stub.client.batchGetStatuses(serials(11), { line: "v1" }));
      assert.notEqual(error.kind, "invalid_input");
      assert.equal(stub.server.requests.filter((request) => namesOf(request).length < 11).length, 0, "no half asked");
      assert.deepEqual(unreachableRobotsOf(stub.client.accountKey).all(), []);
    });
  }
});

describe("api: a batch that times out", function () {
  const stub = useClientOnRecordingServer({ auth: { token: TOKEN }, engine: { rateLimit: 0 }, retry: { maxRetries: 0 }, timeoutMs: 400 });
  let slowRobots = new Set<string>();

  beforeEach(() => {
    forgetAccountMemory();
    stub.server.respondWith((request) => {
      const names = namesOf(request);
      const statuses = names.map((serialNumber) => ({ name: `robots/${serialNumber}`, serialNumber, online: true }));
      return { body: { robotStatuses: statuses }, ...(names.some((name) => slowRobots.has(name)) ? { delayMs: 1500 } : {}) };
    });
  });

  it("once fails the call (the cloud may be slow for everyone); the same batch timing out again is split and the robot found", async function () {
    const robots = serials(6);
    slowRobots = new Set([robots[4]!]);
    assert.equal((await failureOf(stub.client.batchGetStatuses(robots, { line: "v1" }))).code, "TIMEOUT");
    assert.deepEqual(unreachableRobotsOf(stub.client.accountKey).all(), []);
    const statuses = await stub.client.batchGetStatuses(robots, { line: "v1" });
    assert.deepEqual(statuses.filter((status) => status.unreachable !== undefined).map(serialOf), [robots[4]]);
    assert.equal((statuses.find((status) => serialOf(status) === robots[4])!.unreachable as { code: string }).code, "TIMEOUT");
    assert.equal(statuses.filter((status) => status.online === true).length, 5);
  });

  it("every half timing out is the cloud, not a robot: the call fails and no robot is marked", async function () {
    const robots = serials(6);
    slowRobots = new Set(robots);
    await failureOf(stub.client.batchGetStatuses(robots, { line: "v1" }));
    assert.equal((await failureOf(stub.client.batchGetStatuses(robots, { line: "v1" }))).code, "TIMEOUT");
    assert.deepEqual(unreachableRobotsOf(stub.client.accountKey).all(), []);
  });
});
