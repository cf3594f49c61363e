/**
 * One account shared by several instances through a real redis-server, in one
 * process: each RobotClient has its own shareAccount(...) on the same Redis,
 * prefix and account, as separate Node-RED instances would, against a
 * recording cloud on loopback. The shared rate (no one-second window at the
 * server above the account's limit), a 429's pause for every instance, one
 * token grant (sealed in Redis, dropped once for all at a 401), one watcher
 * per watching node with a takeover that sends nothing twice, and an outage
 * of Redis (each instance on its share, logged once each way).
 */
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { RobotClient, type RobotClientOptions } from "../../src/api/client";
import type { AccountSharing } from "../../src/api/account/shared-account";
import { shareAccount } from "../../src/api/sharing";
import { accountKeyOf } from "../../src/api/account/account-memory";
import { FleetWatcher, WatchLoop, type RobotUpdate } from "../../src/api/watching/watcher";
import { REAL_CLOCK } from "../../src/api/engine/clock";
import { ConfirmationPoller } from "../../src/api/watching/confirmation-poller";
import { busiestSecond } from "../support/busiest-second";
import { FleetStub, stubSerial } from "../support/fleet-stub";
import { useRecordingServer, type RecordedRequest } from "../support/recording-server";
import { startRedis, useRedis, type TestRedis } from "../support/redis-server";
import { sleep, until } from "../support/until";

const GRANT_PATH = "/gas/api/v1alpha1/oauth/token";
const STATUS_PATH = /^\/openapi\/v2alpha1\/s\/robots\/([^/]+)\/status$/;
const CREDENTIALS = { clientId: "client-shared-1", clientSecret: "cs-shared-5150", accessKeySecret: "aks-shared-7788" };
const DAY_S = 86_400;
const THRESHOLDS = { step: 10, low: 20 };

/** The serial number a B1 status call asked for (each client's calls have their own). */
function serialOf(request: RecordedRequest): string | undefined {
  const match = STATUS_PATH.exec(request.path);
  return match ? decodeURIComponent(match[1]!) : undefined;
}

const statusOf = (request: RecordedRequest) => ({ serialNumber: serialOf(request) ?? "?", online: true, taskState: "IDLE" });

let prefixes = 0;

describe("api: one account shared through Redis by several instances", function () {
  this.timeout(30_000);
  const context = useRedis();
  const stub = useRecordingServer();
  /** Reads the account's keys as an operator would, beside the instances. */
  let reader: Redis;
  let prefix: string;
  let opened: RobotClient[] = [];
  const shares = new Set<AccountSharing>();

  before(function () {
    reader = new Redis(context.redis.url, { maxRetriesPerRequest: 1 });
  });
  after(function () {
    reader.disconnect();
  });
  beforeEach(function () {
    // Each test its own account space in Redis: nothing a test left (a slot, a token, a lease) reaches the next.
    prefix = `sharing-${process.pid}-${++prefixes}`;
  });
  afterEach(function () {
    for (const client of opened) client.close();
    for (const share of shares) share.close();
    opened = [];
    shares.clear();
  });

  interface InstanceOptions {
    identity: string;
    rateLimit?: number;
    clientSecret?: string;
    log?: (level: string, text: string) => void;
    redisUrl?: string;
    baseUrl?: string;
  }

  /** One instance's share of the account: its own Redis connection, as another Node-RED's robot-config would have. */
  function share(options: InstanceOptions): AccountSharing {
    const made = shareAccount({
      url: options.redisUrl ?? context.redis.url,
      prefix,
      account: { baseUrl: options.baseUrl ?? stub.server.url, identity: options.identity },
      rateLimit: options.rateLimit ?? 20,
      callTimeoutMs: 10_000,
      clientSecret: options.clientSecret,
      log: options.log ?? (() => undefined),
    });
    shares.add(made);
    return made;
  }

  /** A client of one instance: its engine at the account's rate, its share of the account. */
  function instance(auth: RobotClientOptions["auth"], options: InstanceOptions): RobotClient {
    const rateLimit = options.rateLimit ?? 20;
    const client = new RobotClient({
      baseUrl: options.baseUrl ?? stub.server.url,
      auth,
      engine: { rateLimit },
      retry: { baseDelayMs: 50 },
      sharing: share({ ...options, rateLimit }),
    });
    opened.push(client);
    return client;
  }

  /** The account's Redis key for `parts` (what redis-link builds). */
  function keyOf(account: { identity: string; baseUrl?: string }, ...parts: string[]): string {
    return [prefix, accountKeyOf(account.baseUrl ?? stub.server.url, account.identity), ...parts].join(":");
  }

  /** Until `count` instances have announced themselves (each does once connected). */
  async function connected(identity: string, count: number, redis: Redis = reader): Promise<void> {
    await until(`${count} instances connected`, async () => (await redis.zcard(keyOf({ identity }, "instances"))) >= count);
  }

  it("keys: an instance's presence lands under the account's fixed hash of base URL and client id, one per cloud", async function () {
    // sha256("<base URL>\n<client id>"), first 32 hex digits, computed once by hand (also in account-keys.test.ts).
    const expected = {
      "https://openapi.gs-robot.com": "58766c79f85e05db1e55165d17848369",
      "https://staging.openapi.example": "4431d5ecdfb30bd3dd6df529df039221",
    };
    for (const baseUrl of Object.keys(expected)) share({ identity: "client-prod-7", baseUrl });
    for (const [baseUrl, hash] of Object.entries(expected)) {
      await until(`${baseUrl}'s presence`, async () => (await reader.zcard(`${prefix}:${hash}:instances`)) === 1);
    }
    assert.deepEqual(
      (await reader.keys(`${prefix}:*`)).sort(),
      Object.values(expected)
        .map((hash) => `${prefix}:${hash}:instances`)
        .sort(),
    );
  });

  it("rate: three instances at the account's 25/s, 3 x 60 calls at once: no second at the server holds more than 25, each call answered once", async function () {
    const identity = "tok-rate-25";
    stub.server.respondWith((request) => ({ body: statusOf(request), delayMs: 5 + Math.floor(Math.random() * 30) }));
    const clients = ["A", "B", "C"].map(() => instance({ token: identity }, { identity, rateLimit: 25 }));
    await connected(identity, 3);

    const calls = clients.flatMap((client, c) =>
      Array.from({ length: 60 }, (_, n) => {
        const serialNumber = `GS-S-${c}${String(n).padStart(5, "0")}`;
        return client.getRobotStatus({ serialNumber }).then((status) => [serialNumber, status.serialNumber]);
      }),
    );
    const answers = await Promise.all(calls);

    assert.equal(answers.length, 180);
    assert.ok(
      answers.every(([asked, answered]) => asked === answered),
      "each call got its own robot's answer",
    );
    const requests = stub.server.requests;
    assert.equal(requests.length, 180, "every call reached the server once");
    assert.equal(new Set(requests.map(serialOf)).size, 180);
    const busiest = busiestSecond(requests.map((request) => request.at));
    assert.ok(busiest <= 25, `at most 25 calls in any second at the server (${busiest})`);
  });

  it("pause: a 429 with Retry-After 2 seen by one instance holds the others' calls until 2 s after it", async function () {
    const identity = "tok-pause";
    const [a, b, c] = ["A", "B", "C"].map(() => instance({ token: identity }, { identity }));
    await connected(identity, 3);
    let refused = false;
    stub.server.respondWith((request) => {
      if (!refused && serialOf(request) === "GS-S-A00001") {
        refused = true;
        return { status: 429, body: { code: 8, message: "too many requests" }, headers: { "Retry-After": "2" } };
      }
      return { body: statusOf(request) };
    });

    const first = a!.getRobotStatus({ serialNumber: "GS-S-A00001" });
    await until("A's 429 at the server", () => stub.server.requests.length === 1);
    const refusedAt = stub.server.requests[0]!.at;
    // The pause reaches the others through Redis once A has read the 429 (before that nobody can know of it).
    await until("the account's pause in Redis", async () => (await reader.exists(keyOf({ identity }, "pause"))) === 1, 2000);
    const others = [b!.getRobotStatus({ serialNumber: "GS-S-B00001" }), c!.getRobotStatus({ serialNumber: "GS-S-C00001" })];

    const answers = await Promise.all([first, ...others]);
    assert.deepEqual(
      answers.map((status) => status.serialNumber),
      ["GS-S-A00001", "GS-S-B00001", "GS-S-C00001"],
    );
    const bySerial = (serial: string) => stub.server.requests.filter((request) => serialOf(request) === serial);
    assert.equal(bySerial("GS-S-A00001").length, 2, "A's call: the 429, then its retry");
    for (const serial of ["GS-S-B00001", "GS-S-C00001"]) {
      const seen = bySerial(serial);
      assert.equal(seen.length, 1, `${serial} sent once`);
      const afterMs = seen[0]!.at - refusedAt;
      // Redis counts the pause in whole milliseconds: a millisecond of rounding is not a call let through early.
      assert.ok(afterMs >= 1999, `${serial} reached the server ${afterMs.toFixed(0)} ms after the 429, not before 2 s`);
    }
    assert.ok(bySerial("GS-S-A00001")[1]!.at - refusedAt >= 1999, "A's retry waited out the 2 s too");
  });

  it("confirmation: three instances waiting for the same robot read its status once per interval between them, and all see it", async function () {
    const identity = "tok-confirm";
    const serialNumber = "GS-S-CONF-1";
    let running = false;
    stub.server.respondWith(() => ({ body: { robotStatus: [{ serialNumber, online: true, taskState: running ? "RUNNING" : "IDLE" }] } }));
    const clients = ["A", "B", "C"].map(() => instance({ token: identity }, { identity }));
    await connected(identity, 3);
    const intervalMs = 300;
    const pollers = clients.map((client) => new ConfirmationPoller(client, intervalMs));
    const rule = {
      expects: "RUNNING",
      confirmedBy: (state: { taskState?: string }) => (state.taskState === "RUNNING" ? "RUNNING" : undefined),
    };
    const waits = pollers.map((poller) => poller.waitFor(serialNumber, rule, { timeoutMs: 10_000 }));
    await sleep(6 * intervalMs);
    const whileWaiting = stub.server.requests.length;
    running = true;
    const confirmed = await Promise.all(waits);
    assert.deepEqual(
      confirmed.map((each) => each.state),
      ["RUNNING", "RUNNING", "RUNNING"],
    );
    // Alone, each instance would read the robot every interval: about 18 reads in 6 intervals for three (15 seen
    // with the sharing taken out). Shared, about one read per interval between them.
    assert.ok(whileWaiting <= 8, `${whileWaiting} status reads in 6 intervals for three instances waiting`);
    assert.ok(whileWaiting >= 3, `the robot was still read every interval or so (${whileWaiting})`);
  });

  describe("the token", function () {
    let grants: { secret: string; at: number }[];

    /** A cloud granting T-<secret>-<n> after 300 ms, and answering status calls with `robot`. */
    function cloud(robot: (request: RecordedRequest) => { status?: number; body: unknown } = (request) => ({ body: statusOf(request) })) {
      grants = [];
      stub.server.respondWith((request) => {
        if (request.path === GRANT_PATH) {
          const secret = (request.body as { client_secret: string }).client_secret;
          grants.push({ secret, at: request.at });
          return { body: { token_type: "bearer", access_token: `T-${secret}-${grants.length}`, expires_in: DAY_S }, delayMs: 300 };
        }
        return robot(request);
      });
    }
    const robotCalls = () => stub.server.requests.filter((request) => request.path !== GRANT_PATH);

    it("one grant for 30 calls across three instances, every call with that token, sealed in Redis; another client secret cannot read it", async function () {
      cloud();
      const identity = CREDENTIALS.clientId;
      const clients = [0, 1, 2].map(() => instance(CREDENTIALS, { identity, clientSecret: CREDENTIALS.clientSecret, rateLimit: 50 }));
      await connected(identity, 3);

      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, n) => clients[n % 3]!.getRobotStatus({ serialNumber: `GS-S-T${String(n).padStart(5, "0")}` })),
      );
      assert.equal(answers.length, 30);
      assert.equal(grants.length, 1, "exactly one grant at the server");
      const token = `T-${CREDENTIALS.clientSecret}-1`;
      assert.equal(robotCalls().length, 30);
      assert.ok(
        robotCalls().every((request) => request.headers.authorization === `Bearer ${token}`),
        "every call carries the one token",
      );

      const stored = await reader.get(keyOf({ identity }, "token"));
      assert.ok(stored, "the token is kept in Redis");
      for (const secret of [token, CREDENTIALS.clientSecret, CREDENTIALS.accessKeySecret]) {
        assert.ok(!stored.includes(secret), "neither the token nor a secret is stored in clear");
        assert.ok(!stored.includes(Buffer.from(secret).toString("base64").slice(0, 16)), "nor merely base64-encoded");
      }

      // Same account key (base URL and client id), another client secret: it cannot open the sealed token and asks for its own.
      const other = instance({ ...CREDENTIALS, clientSecret: "cs-other-0001" }, { identity, clientSecret: "cs-other-0001", rateLimit: 50 });
      await connected(identity, 4);
      await other.getRobotStatus({ serialNumber: "GS-S-OTHER1" });
      assert.equal(grants.length, 2);
      assert.equal(grants[1]!.secret, "cs-other-0001");
      assert.equal(
        robotCalls().at(-1)!.headers.authorization,
        "Bearer T-cs-other-0001-2",
        "it used its own token, not the one it could not read",
      );
    });

    it("a 401 drops the refused token once for all: three instances calling at once cause exactly two grants", async function () {
      const identity = CREDENTIALS.clientId;
      const firstToken = `T-${CREDENTIALS.clientSecret}-1`;
      cloud((request) =>
        request.headers.authorization === `Bearer ${firstToken}`
          ? { status: 401, body: { code: 16, message: "token invalid" } }
          : { body: statusOf(request) },
      );
      const clients = [0, 1, 2].map(() => instance(CREDENTIALS, { identity, clientSecret: CREDENTIALS.clientSecret, rateLimit: 50 }));
      await connected(identity, 3);

      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, n) => clients[n % 3]!.getRobotStatus({ serialNumber: `GS-S-U${String(n).padStart(5, "0")}` })),
      );
      assert.equal(answers.length, 24, "every call answered after its one resend");
      assert.equal(grants.length, 2, `exactly two grants (${grants.length})`);
      const accepted = robotCalls().filter((request) => request.headers.authorization !== `Bearer ${firstToken}`);
      assert.equal(accepted.length, 24);
      assert.ok(accepted.every((request) => request.headers.authorization === `Bearer T-${CREDENTIALS.clientSecret}-2`));
    });
  });

  describe("watching: one watcher per node across instances", function () {
    const INTERVAL_MS = 1000;
    const TIMER_LATENESS_MS = 250;
    const ROBOTS = 5;
    let fleet: FleetStub;

    beforeEach(async function () {
      fleet = await new FleetStub(ROBOTS).start();
    });
    afterEach(async function () {
      await fleet.server.stop();
    });

    interface Report {
      by: string;
      serialNumber: string;
      initial: boolean;
      changes: RobotUpdate["changes"];
    }

    it("exactly one polls; a dead holder's watch is taken within two intervals, from its saved states; a stopped one hands over", async function () {
      const identity = "tok-watch-shared";
      const reports: Report[] = [];
      const serialNumbers = Array.from({ length: ROBOTS }, (_, index) => stubSerial(index + 1));
      const loops = new Map<string, { loop: WatchLoop; share: AccountSharing }>();

      /** An instance running the same robot-status node ("status-1"); its token tells the server who polled. */
      function watchingInstance(name: string): void {
        const sharing = share({ identity, baseUrl: fleet.url });
        const client = new RobotClient({ baseUrl: fleet.url, auth: { token: `tok-watch-${name}` }, sharing });
        opened.push(client);
        const watcher = new FleetWatcher(client, { serialNumbers, line: "s", thresholds: THRESHOLDS });
        const loop = new WatchLoop(
          watcher,
          INTERVAL_MS,
          {
            polled: (updates) => {
              for (const update of updates)
                reports.push({ by: name, serialNumber: update.serialNumber, initial: update.initial, changes: update.changes });
            },
            failed: (error) => assert.fail(`${name}'s poll failed: ${error.message}`),
            recovered: () => undefined,
          },
          REAL_CLOCK,
          sharing.watchLease("status-1", INTERVAL_MS),
        );
        loops.set(name, { loop, share: sharing });
        loop.start();
      }
      /** Who polled (their tokens) among the batch requests since `since`. */
      const pollers = (since: number) =>
        new Set(
          fleet.server.requests
            .filter((request) => request.path.includes("status:batchGet") && request.at >= since)
            .map((request) => request.headers.authorization),
        );
      const reportsOf = (serialNumber: string) => reports.filter((report) => report.serialNumber === serialNumber && !report.initial);

      try {
        watchingInstance("A");
        watchingInstance("B");
        await until("the first poll's reports", () => reports.length === ROBOTS);
        const holder = reports[0]!.by;
        const standby = holder === "A" ? "B" : "A";
        assert.ok(
          reports.every((report) => report.initial && report.by === holder),
          "every robot reported once as new, by one instance",
        );

        fleet.update(stubSerial(2), (status) => (status.taskState = "RUNNING"));
        await until("the first change reported", () => reportsOf(stubSerial(2)).length > 0, 3 * INTERVAL_MS);
        assert.deepEqual(pollers(0), new Set([`Bearer tok-watch-${holder}`]), "only the holder polled");

        // The holder dies: its share is gone first (it left the instances in Redis), so its loop's release cannot reach Redis.
        const dead = loops.get(holder)!;
        const presence = keyOf({ identity, baseUrl: fleet.url }, "instances");
        const before = await reader.zcard(presence);
        const diedAt = performance.now();
        dead.share.close();
        await until("the dead instance's link closed", async () => (await reader.zcard(presence)) < before, 2000);
        dead.loop.stop();
        fleet.update(stubSerial(4), (status) => (status.emergencyStop.enabled = true));

        await until("the change after the death reported", () => reportsOf(stubSerial(4)).length > 0, 4 * INTERVAL_MS);
        const takeover = fleet.server.requests.find(
          (request) => request.at >= diedAt && request.headers.authorization === `Bearer tok-watch-${standby}`,
        );
        assert.ok(takeover, "the standby polled");
        const tookMs = takeover.at - diedAt;
        // Two intervals, and the lateness of a timer on a busy machine: a takeover a whole interval later still fails.
        assert.ok(
          tookMs <= 2 * INTERVAL_MS + TIMER_LATENESS_MS,
          `the standby polled ${tookMs.toFixed(0)} ms after the death, within two intervals (and ${TIMER_LATENESS_MS} ms a timer may fire late)`,
        );
        assert.ok(
          reports.every((report) => report.by === holder || !report.initial),
          "the standby continued from the saved states: no robot reported again as new",
        );

        assert.deepEqual(pollers(diedAt + 50), new Set([`Bearer tok-watch-${standby}`]), "only the standby polls after the death");

        // A graceful stop: a third instance stands by, the second stops and hands over at once.
        watchingInstance("C");
        await sleep(INTERVAL_MS);
        assert.ok(!reports.some((report) => report.by === "C"), "C stands by while the lease is held");
        loops.get(standby)!.loop.stop();
        const stoppedAt = performance.now();
        fleet.update(stubSerial(5), (status) => (status.battery.powerPercentage = 15));
        await until("the change after the hand-over reported", () => reportsOf(stubSerial(5)).length > 0, 4 * INTERVAL_MS);
        const handedOver = fleet.server.requests.find(
          (request) => request.at >= stoppedAt && request.headers.authorization === "Bearer tok-watch-C",
        );
        assert.ok(handedOver && handedOver.at - stoppedAt <= 2 * INTERVAL_MS, "C polled within two intervals of the stop");
        await sleep(INTERVAL_MS + 200);

        assert.deepEqual(
          reports.filter((report) => !report.initial).map((report) => [report.serialNumber, report.by, report.changes]),
          [
            [stubSerial(2), holder, { taskState: { old: "IDLE", new: "RUNNING" } }],
            [stubSerial(4), standby, { emergencyStop: { old: false, new: true } }],
            [stubSerial(5), "C", { battery: { old: 85, new: 15 }, batteryLow: { old: false, new: true } }],
          ],
          "each change reported once, by whoever watched then",
        );
        assert.equal(reports.filter((report) => report.initial).length, ROBOTS, "the robots were new once, for all instances");
        assert.deepEqual(pollers(stoppedAt + 50), new Set(["Bearer tok-watch-C"]), "only C polls after the hand-over");
      } finally {
        for (const { loop } of loops.values()) loop.stop();
      }
    });
  });

  describe("Redis gone mid-burst", function () {
    let ownRedis: TestRedis;
    let ownReader: Redis;

    before(async function () {
      // Its own server: this test kills it.
      ownRedis = await startRedis();
      ownReader = new Redis(ownRedis.url, { maxRetriesPerRequest: 1 });
      ownReader.on("error", () => undefined);
    });
    after(async function () {
      ownReader.disconnect();
      await ownRedis.stop();
    });

    it("calls go on at each instance's share, each instance logs the outage and the return once, no call is lost or sent twice", async function () {
      const identity = "tok-outage";
      const logs: string[][] = [[], [], []];
      stub.server.respondWith((request) => ({ body: statusOf(request), delayMs: 5 + Math.floor(Math.random() * 20) }));
      const madeAt = Date.now();
      const clients = logs.map((lines) =>
        instance(
          { token: identity },
          { identity, rateLimit: 30, redisUrl: ownRedis.url, log: (level, text) => lines.push(`${level}: ${text}`) },
        ),
      );
      await connected(identity, 3, ownReader);
      // Each instance counts the others when it announces itself, every 5 s (redis-link's PRESENCE_EVERY_MS): the count
      // of 3 it needs for its share while Redis is away is only known after the first announcement after all three joined.
      await sleep(Math.max(0, madeAt + 5500 - Date.now()));

      let answered = 0;
      const calls = clients.flatMap((client, c) =>
        Array.from({ length: 60 }, (_, n) =>
          client.getRobotStatus({ serialNumber: `GS-S-R${c}${String(n).padStart(4, "0")}` }).then((status) => {
            answered++;
            return status.serialNumber;
          }),
        ),
      );
      await until("calls answered through Redis", () => answered >= 40, 10_000);
      await ownRedis.kill();
      const killedAt = performance.now();
      await until("calls answered while Redis is down", () => answered >= 90, 10_000);
      const answeredDown = answered;
      await ownRedis.restart();
      const restartedAt = performance.now();
      const answers = await Promise.all(calls);

      assert.equal(answers.length, 180);
      assert.equal(answered, 180, "each call ended once");
      const requests = stub.server.requests;
      assert.equal(requests.length, 180, "no call sent twice");
      assert.equal(new Set(requests.map(serialOf)).size, 180);
      const down = requests.filter((request) => request.at > killedAt && request.at < restartedAt);
      assert.ok(down.length > 0 && answeredDown >= 90, "calls were answered while Redis was down");
      const busiest = busiestSecond(requests.map((request) => request.at));
      assert.ok(busiest <= 30, `at most 30 calls in any second at the server, before, during and after the outage (${busiest})`);
      const busiestDown = busiestSecond(down.map((request) => request.at));
      assert.ok(busiestDown <= 30, `each instance on its third while Redis was down (${busiestDown})`);

      await until("every instance saw Redis back", () => logs.every((lines) => lines.some((line) => line.includes("is back:"))), 5000);
      for (const lines of logs) {
        assert.equal(lines.filter((line) => line.includes("cannot be reached")).length, 1, `the outage logged once: ${lines.join(" | ")}`);
        assert.equal(lines.filter((line) => line.includes("is back:")).length, 1, `the return logged once: ${lines.join(" | ")}`);
        assert.match(
          lines.find((line) => line.includes("cannot be reached"))!,
          /^warn: .*share of the rate \(1\/3\)/,
        );
      }
    });
  });
});
