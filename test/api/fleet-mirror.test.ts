/**
 * The account's last statuses on an account shared through a real
 * redis-server: the instance that watches publishes every status it read, an
 * instance standing by keeps them in its own fleet statuses at each check and
 * sends nothing for them. Two instances in one process, as in sharing.test.ts:
 * each has its own Redis connection and its own FleetStatuses, as two
 * Node-RED processes would.
 */
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { RobotClient } from "../../src/api/client";
import type { AccountSharing } from "../../src/api/account/shared-account";
import { accountKeyOf } from "../../src/api/account/account-memory";
import { shareAccount } from "../../src/api/sharing";
import { REAL_CLOCK } from "../../src/api/engine/clock";
import { FleetStatuses } from "../../src/api/watching/fleet-statuses";
import { FleetWatcher, WatchLoop } from "../../src/api/watching/watcher";
import { FleetStub, stubSerial } from "../support/fleet-stub";
import { useRedis } from "../support/redis-server";
import { until } from "../support/until";

const INTERVAL_MS = 1000;
const ROBOTS = 5;
const IDENTITY = "tok-fleet-mirror";

let prefixes = 0;

describe("api: a standing-by instance keeps the watching instance's statuses (Redis)", function () {
  this.timeout(30_000);
  const context = useRedis();
  let fleet: FleetStub;
  let prefix: string;
  let reader: Redis;
  const shares: AccountSharing[] = [];
  const clients: RobotClient[] = [];
  const loops: WatchLoop[] = [];

  before(function () {
    reader = new Redis(context.redis.url, { maxRetriesPerRequest: 1 });
  });
  after(function () {
    reader.disconnect();
  });
  beforeEach(async function () {
    prefix = `fleet-mirror-${process.pid}-${++prefixes}`;
    fleet = await new FleetStub(ROBOTS).start();
  });
  afterEach(async function () {
    for (const loop of loops.splice(0)) loop.stop();
    for (const client of clients.splice(0)) client.close();
    for (const share of shares.splice(0)) share.close();
    await fleet.server.stop();
  });

  function share(): AccountSharing {
    const made = shareAccount({
      url: context.redis.url,
      prefix,
      account: { baseUrl: fleet.url, identity: IDENTITY },
      rateLimit: 20,
      callTimeoutMs: 10_000,
      log: () => undefined,
    });
    shares.push(made);
    return made;
  }

  const accountKey = (...parts: string[]) => [prefix, accountKeyOf(fleet.url, IDENTITY), ...parts].join(":");

  interface Instance {
    name: string;
    kept: FleetStatuses;
    /** Updates the loop handed on to be sent (the node's messages). */
    sent: string[];
    /** The robot counts its standing-by checks kept (the node's status). */
    mirrored: number[];
  }

  /** One instance running the same watching node ("status-1"), its token telling the server who polled. */
  function instance(name: string): Instance {
    const sharing = share();
    const client = new RobotClient({ baseUrl: fleet.url, auth: { token: `tok-${name}` }, sharing });
    clients.push(client);
    const made: Instance = { name, kept: new FleetStatuses(), sent: [], mirrored: [] };
    const watcher = new FleetWatcher(client, {
      serialNumbers: [],
      line: "s",
      thresholds: { step: 10, low: 20 },
      fleetStatuses: made.kept,
    });
    const loop = new WatchLoop(
      watcher,
      INTERVAL_MS,
      {
        polled: (updates) => made.sent.push(...updates.map((update) => update.serialNumber)),
        failed: (error) => assert.fail(`${name}'s poll failed: ${error.message}`),
        recovered: () => undefined,
        mirrored: (robots) => made.mirrored.push(robots),
      },
      REAL_CLOCK,
      sharing.watchLease("status-1", INTERVAL_MS),
    );
    loops.push(loop);
    loop.start();
    return made;
  }

  const pollers = () =>
    new Set(
      fleet.server.requests.filter((request) => request.path.includes("status:batchGet")).map((request) => request.headers.authorization),
    );

  it("the standing-by instance's fleet statuses fill with the watcher's reads and follow a change, and it sends nothing", async function () {
    const a = instance("A");
    const b = instance("B");
    await until("the first poll's messages", () => a.sent.length + b.sent.length === ROBOTS);
    const [watching, standing] = a.sent.length > 0 ? [a, b] : [b, a];
    assert.equal(watching.kept.size, ROBOTS, "the watching instance keeps what it read");

    await until("the standing-by instance keeps every robot", () => standing.kept.size === ROBOTS, 4 * INTERVAL_MS);
    for (const entry of watching.kept.all()) {
      const mirrored = standing.kept.get(String(entry.status.serialNumber));
      assert.ok(mirrored, `${String(entry.status.serialNumber)} mirrored`);
      assert.deepEqual(mirrored.status, entry.status);
      assert.ok(mirrored.at <= entry.at, "kept with the time the watcher read it, not the time it was mirrored");
    }
    assert.ok(standing.mirrored.includes(ROBOTS), `its status counted ${ROBOTS} robots (${standing.mirrored.join(", ")})`);

    fleet.update(stubSerial(3), (status) => {
      status.taskState = "RUNNING";
      status.currentTask = { name: "All of Floor 1" };
    });
    await until(
      "the standing-by instance keeps the change",
      () => standing.kept.get(stubSerial(3))?.status.taskState === "RUNNING",
      4 * INTERVAL_MS,
    );
    await until(
      "the watching instance sent the change",
      () => watching.sent.filter((serial) => serial === stubSerial(3)).length === 2,
      4 * INTERVAL_MS,
    );

    assert.deepEqual(standing.sent, [], "the standing-by instance sends nothing");
    assert.deepEqual(pollers(), new Set([`Bearer tok-${watching.name}`]), "only the watching instance called the cloud");

    const hash = await reader.hgetall(accountKey("fleet-statuses"));
    assert.deepEqual(
      Object.keys(hash).sort(),
      // One field per robot and status shape: these stub statuses are S-line's.
      Array.from({ length: ROBOTS }, (_, index) => `${stubSerial(index + 1)}/lean`),
    );
    const stored = JSON.parse(hash[`${stubSerial(3)}/lean`]!) as { at: number; status: Record<string, unknown> };
    assert.equal(typeof stored.at, "number");
    assert.equal(stored.status.serialNumber, stubSerial(3));
    const ttl = await reader.pttl(accountKey("fleet-statuses"));
    assert.ok(ttl > 0 && ttl <= 60_000, `the hash expires (${ttl} ms left)`);
  });

  it("a lease reads the hash only when something new was published since it last did", async function () {
    const publisher = share().watchLease("status-2", INTERVAL_MS);
    const mirror = share().watchLease("status-2", INTERVAL_MS);
    await until("both joined", async () => (await reader.zcard(accountKey("instances"))) >= 2);
    assert.equal(await mirror.mirroredStatuses!(), undefined, "nothing published yet");

    await publisher.publishStatuses!([{ serialNumber: "GS-S-000101", taskState: "IDLE" }, { online: true }], 1000);
    assert.deepEqual(await mirror.mirroredStatuses!(), [{ at: 1000, status: { serialNumber: "GS-S-000101", taskState: "IDLE" } }]);
    assert.equal(await mirror.mirroredStatuses!(), undefined, "the same publication is not read twice");

    await publisher.publishStatuses!([{ name: "robots/GS-S-000102", taskState: "RUNNING" }], 2000);
    const again = await mirror.mirroredStatuses!();
    assert.deepEqual(
      again?.map((entry) => [entry.at, entry.status.taskState]).sort(),
      [
        [1000, "IDLE"],
        [2000, "RUNNING"],
      ],
      "every robot of the hash, the v1 name read as its serial number",
    );
    await reader.hset(accountKey("fleet-statuses"), "GS-S-000103", "not json");
    await publisher.publishStatuses!([{ serialNumber: "GS-S-000101", taskState: "PAUSED" }], 3000);
    const withGarbage = await mirror.mirroredStatuses!();
    assert.equal(withGarbage?.length, 2, "a field this package did not write is left out");
  });
});
