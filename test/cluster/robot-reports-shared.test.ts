/**
 * robot-reports with the account shared by two Node-RED processes through a
 * real redis-server, against a cloud on loopback that keeps task reports: the
 * node sweeps at its timer in one process (the watch lease), the other stands
 * by and answers KPIs from the book the sweeping one shares; a report pushed
 * to the standing-by process, or found by a sweep asked of it, is not sent
 * again; when the sweeping process stops, the other takes over and sends
 * only what is new. Each report reaches the flows once across both.
 */
import assert from "node:assert/strict";
import { startCluster, type Instance } from "../support/node-red-cluster";
import { useRedis } from "../support/redis-server";
import { ReportsStub } from "../support/reports-stub";
import { LOBBY, reportAt } from "../support/report-fixtures";

const HOUR_MS = 3_600_000;
type Payload = Record<string, unknown>;

describe("robot-reports on an account shared by two Node-RED processes", function () {
  this.timeout(240_000);
  const { redis } = useRedis();
  let stub: ReportsStub;
  let cluster: Instance[] = [];
  afterEach(async () => {
    await Promise.all(cluster.map((instance) => instance.stop()));
    cluster = [];
    await stub?.stop();
  });

  it("sweeps in one process, answers KPIs in both, and sends each report once, also across a takeover", async () => {
    stub = await new ReportsStub().start();
    stub.addRobot(LOBBY, "Lobby scrubber");
    const now = Date.now();
    for (const hours of [3, 2, 1]) stub.file(reportAt(`lobby-${hours}h`, LOBBY, now - hours * HOUR_MS, 600));
    const flows = [
      { id: "tab", type: "tab", label: "reports" },
      {
        id: "cfg",
        type: "robot-config",
        baseUrl: stub.url,
        timeout: 10,
        maxRetries: 2,
        rateLimit: 20,
        authMode: "token",
        redisUrl: redis.url,
        redisPrefix: "reports-test",
      },
      // A sweep every minute: the lease is asked for every 20 s.
      {
        id: "reports",
        type: "robot-reports",
        z: "tab",
        robot: "cfg",
        serialNumbers: "",
        every: 1,
        since: 1,
        keep: 30,
        timeZone: "UTC",
        wires: [[], []],
      },
      { id: "errors", type: "catch", z: "tab", scope: ["reports"], uncaught: false, wires: [[]] },
    ];
    cluster = await startCluster(2, { flows, credentials: { cfg: { token: "shared-token" } }, watch: ["reports", "errors"] });
    const sentReports = (instance: Instance) =>
      instance.sent.filter((sent) => sent.node === "reports" && sent.port === 0).map((sent) => String((sent.payload as Payload).id));
    const all = () => cluster.flatMap(sentReports).sort();
    const statusOf = (instance: Instance) =>
      String((instance.statuses.filter((change) => change.node === "reports").at(-1)?.status.text as string | undefined) ?? "");
    const standingBy = (instance: Instance) => statusOf(instance).startsWith("standing by");

    await cluster[0]!.waitFor(() => all().length >= 3 || undefined, 120_000, "the first sweep's three reports");
    const sweeper = cluster.find((instance) => sentReports(instance).length > 0)!;
    const other = cluster.find((instance) => instance !== sweeper)!;
    await other.waitFor(standingBy, 60_000, `${other.name} standing by`);
    assert.deepEqual(all(), ["lobby-1h", "lobby-2h", "lobby-3h"], "each report once");
    assert.deepEqual(sentReports(other), [], `${other.name} swept nothing at its timer`);

    // The standing-by process's KPIs are the sweeping one's: the same three tasks.
    // Output 2 carries each new report's day figures too: a KPI answer is the message with its request in msg.kpi.
    const answers = (instance: Instance) =>
      instance.sent.filter((sent) => sent.node === "reports" && sent.port === 1 && sent.msg.kpi !== undefined);
    const [yesterday, today] = [now - 24 * HOUR_MS, now].map((at) => new Date(at).toISOString().slice(0, 10));
    const kpiOf = async (instance: Instance) => {
      const before = answers(instance).length;
      await instance.inject("reports", { payload: { kpi: { from: yesterday, to: today, by: "robot" } } });
      const rows = (await instance.waitFor(() => answers(instance)[before]?.payload, 20_000, `${instance.name}'s KPIs`)) as Payload[];
      return rows.map((row) => `${String(row.serialNumber)} ${String(row.tasks)} ${String(row.areaCleaned)}`);
    };
    const sweeperKpi = await kpiOf(sweeper);
    assert.deepEqual(
      sweeperKpi.map((row) => row.split(" ").slice(0, 2).join(" ")),
      [`${LOBBY} 3`],
      "the sweeping process counts the three tasks",
    );
    assert.deepEqual(await kpiOf(other), sweeperKpi, `${other.name}'s KPIs are ${sweeper.name}'s`);

    // A new report pushed to the standing-by process goes out there; the sweeping process's sweep does not send it again.
    const pushed = reportAt("lobby-pushed", LOBBY, now - 30 * 60_000, 600);
    stub.file(pushed);
    await other.inject("reports", { payload: { serialNumber: LOBBY, taskReport: pushed } });
    await other.waitFor(() => sentReports(other).includes("lobby-pushed") || undefined, 20_000, "the pushed report sent");
    // A sweep asked of each process: both find every report, neither sends one again.
    const swept = stub.reportRequests().length;
    for (const instance of cluster) await instance.inject("reports", { payload: "sweep" });
    await sweeper.waitFor(() => stub.reportRequests().length >= swept + 2 || undefined, 20_000, "both processes' sweeps");
    await sweeper.waitFor(
      () => cluster.every((instance) => !statusOf(instance).startsWith("sweeping")) || undefined,
      20_000,
      "the sweeps ended",
    );
    assert.deepEqual(all(), ["lobby-1h", "lobby-2h", "lobby-3h", "lobby-pushed"], "the pushed report once, nothing again");

    // The sweeping process stops: the other takes over at its lease checks and sends only the report filed since.
    await sweeper.stop();
    stub.file(reportAt("lobby-after", LOBBY, Date.now() - 5 * 60_000, 120));
    await other.waitFor(() => sentReports(other).includes("lobby-after") || undefined, 150_000, `${other.name} taking over`);
    assert.deepEqual(all(), ["lobby-1h", "lobby-2h", "lobby-3h", "lobby-after", "lobby-pushed"], "each report once across the takeover");
    assert.deepEqual(
      cluster.flatMap((instance) => instance.sent.filter((sent) => sent.node === "errors")).map((sent) => JSON.stringify(sent.msg.error)),
      [],
    );
  });
});
