/**
 * The robot directory of an account shared by three instances through a real
 * redis-server: each instance has its own client, its own share of the
 * account and its own directory (as three Node-RED processes would), and the
 * robot list is read once per interval between them; with Redis stopped each
 * instance reads for itself.
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import type { AccountSharing } from "../../src/api/account/shared-account";
import { RobotDirectory } from "../../src/api/account/robot-directory";
import { shareAccount } from "../../src/api/sharing";
import { useRecordingServer } from "../support/recording-server";
import { useRedis } from "../support/redis-server";
import { sleep, until } from "../support/until";

const LIST_PATH = /^\/v1alpha1\/robots\?/;
const INTERVAL_MS = 500;

let prefixes = 0;

describe("api: the robot directory of an account shared through Redis", function () {
  this.timeout(30_000);
  const context = useRedis();
  const stub = useRecordingServer();
  let opened: { client: RobotClient; share: AccountSharing; detach: () => void }[] = [];

  beforeEach(function () {
    stub.server.respondWith((request) =>
      LIST_PATH.test(request.path)
        ? {
            body: {
              robots: [
                {
                  serialNumber: "GS-S-1",
                  displayName: "Lobby scrubber",
                  modelFamilyCode: "S",
                  modelTypeCode: "S1",
                  softwareVersion: "3.8.2",
                },
              ],
              total: "1",
            },
          }
        : { status: 404, body: { code: 5, message: "not found" } },
    );
  });
  afterEach(function () {
    for (const { client, share, detach } of opened) {
      detach();
      client.close();
      share.close();
    }
    opened = [];
  });

  /** Three instances of one account, each with its own Redis connection and directory, started together. */
  function threeInstances(): RobotDirectory[] {
    const prefix = `directory-${process.pid}-${++prefixes}`;
    return [1, 2, 3].map(() => {
      const share = shareAccount({
        url: context.redis.url,
        prefix,
        account: { baseUrl: stub.server.url, identity: "shared-token" },
        rateLimit: 20,
        callTimeoutMs: 10_000,
        log: () => undefined,
      });
      const client = new RobotClient({ baseUrl: stub.server.url, auth: { token: "shared-token" }, sharing: share });
      const directory = new RobotDirectory();
      opened.push({ client, share, detach: directory.attach(client, INTERVAL_MS) });
      return directory;
    });
  }

  const listReads = () => stub.server.requests.filter((request) => LIST_PATH.test(request.path)).length;

  it("three instances read the list once per interval between them, and each has the names", async function () {
    const start = Date.now();
    const directories = threeInstances();
    await sleep(12 * INTERVAL_MS);
    const intervals = (Date.now() - start) / INTERVAL_MS;
    const reads = listReads();
    assert.ok(
      directories.every((directory) => directory.nameOf("GS-S-1") === "Lobby scrubber"),
      "every instance has the names",
    );
    // One read at the start and one per interval for the three together (a timer's lateness may lose one), not three each time.
    assert.ok(
      reads >= Math.floor(intervals) - 1 && reads <= Math.ceil(intervals) + 1,
      `${reads} reads in ${intervals.toFixed(1)} intervals`,
    );
    // Each instance took the last read, whoever made it: none of them is more than an interval behind.
    const newest = Math.max(...directories.map((directory) => directory.readTime));
    for (const directory of directories)
      assert.ok(newest - directory.readTime <= INTERVAL_MS, `read ${newest - directory.readTime} ms before the newest`);
  });

  it("with Redis stopped, each instance reads the list for itself", async function () {
    await context.redis.stop();
    const directories = threeInstances();
    await until("every instance has the names", () => directories.every((directory) => directory.nameOf("GS-S-1") === "Lobby scrubber"));
    assert.equal(listReads(), 3);
  });
});
