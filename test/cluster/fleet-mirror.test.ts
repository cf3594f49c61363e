/**
 * Issue 31's mirror end to end: two Node-RED runtimes, each in its own
 * process, share one robot account through a real redis-server; the same
 * watching robot-status node runs in both. The one that watches sends the
 * changes; the other sends nothing, and its node status counts the robots its
 * own process now keeps (fleetStatusesOf) from the watcher's reads.
 */
import assert from "node:assert/strict";
import { startCluster, type Instance } from "../support/node-red-cluster";
import { useRedis } from "../support/redis-server";
import { FleetStub, stubSerial } from "../support/fleet-stub";
import { sharedWatchFlow } from "../support/shared-watch-flow";

const ROBOTS = 3;
const INTERVAL_S = 5;

const sentBy = (instance: Instance) => instance.sent.filter((sent) => sent.node === "watcher");
const statusTexts = (instance: Instance) =>
  instance.statuses
    .filter((change) => change.node === "watcher")
    .map((change) => (typeof change.status.text === "string" ? change.status.text : ""));

describe("the account's last statuses mirrored between two Node-RED processes through Redis", function () {
  this.timeout(120_000);
  const { redis } = useRedis();
  let fleet: FleetStub;
  let cluster: Instance[] = [];

  before(async () => {
    fleet = await new FleetStub(ROBOTS).start();
  });
  after(() => fleet.server.stop());
  afterEach(async () => {
    await Promise.all(cluster.map((instance) => instance.stop()));
    cluster = [];
  });

  it("the standing-by instance keeps every robot the watching one read, says so under its node, and sends nothing", async () => {
    const flows = sharedWatchFlow({
      baseUrl: fleet.url,
      redisUrl: redis.url,
      redisPrefix: `mirror-${process.pid}`,
      rateLimit: 20,
      intervalS: INTERVAL_S,
    });
    cluster = await startCluster(2, { flows, credentials: { cfg: { token: "mirror-token" } }, watch: ["watcher"] });
    const [first, second] = cluster as [Instance, Instance];
    await first.waitFor(() => sentBy(first).length + sentBy(second).length >= ROBOTS, 20_000, "every robot's first report");
    const [watching, standing] = sentBy(first).length > 0 ? [first, second] : [second, first];
    assert.equal(sentBy(watching).length, ROBOTS, "one message per robot, from the watching instance");

    const mirroring = `standing by: ${ROBOTS} robots from another instance`;
    await standing.waitFor(() => statusTexts(standing).includes(mirroring), 3 * INTERVAL_S * 1000, "the standing-by node's mirror status");

    fleet.update(stubSerial(2), (status) => (status.taskState = "RUNNING"));
    await watching.waitFor(
      () =>
        sentBy(watching).some((sent) => sent.topic === stubSerial(2) && (sent.payload as { taskState?: string }).taskState === "RUNNING"),
      3 * INTERVAL_S * 1000,
      "the change from the watching instance",
    );
    assert.deepEqual(sentBy(standing), [], "the standing-by instance sent nothing");
    assert.match(statusTexts(watching).at(-1) ?? "", /online/, "the watching node shows its polls");
  });
});
