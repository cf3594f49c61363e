/**
 * One run of test/nodes/cloud-time-zones.test.ts, in a process of its own so
 * that TZ (read by Node when it starts) is the zone the test chose. Real
 * Node-RED (the test helper) with robot-events, robot-reports wired to its
 * report output, and robot-job, on a fleet stub that files its task reports
 * with times without a zone. It sends three reports through, all with times
 * without a zone:
 *   pushed: pushed to robot-events while a job runs, so robot-events,
 *     robot-reports and robot-job each read it;
 *   early: pushed, started at 00:30 UTC yesterday, so robot-reports' KPI day
 *     changes when it is read as another zone's local time;
 *   polled: filed by the stub at the end of a job nothing was pushed for,
 *     read by robot-job from the task reports endpoint and by robot-reports' sweep.
 * Prints one JSON line (CloudTimeFindings) on stdout and exits.
 */
import { POLL_SETTINGS } from "../../src/api/watching/confirmation-poller";
import robotEvents from "../../src/nodes/robot-events/robot-events";
import robotJob from "../../src/nodes/robot-job";
import robotReports from "../../src/nodes/robot-reports";
import { stubSerial } from "./fleet-stub";
import { HttpNodeServer } from "./http-node";
import { JobFleetStub } from "./job-fleet-stub";
import { jobNode } from "./job-flow";
import { collectMessages, flowWith, helper, loadFlow, TEST_TOKEN, waitFor as waitUntil } from "./node-red";
import { rawRequest } from "./raw-http";

export interface CloudTimeFindings {
  zone: string | undefined;
  /** new Date().getTimezoneOffset() in the child: shows the zone took. */
  offsetMinutes: number;
  /** The times sent, without a zone, by report. */
  sent: Record<"pushed" | "early" | "polled", string>;
  /** startTimeIso of each report as each node put it out. */
  robotEvents: Record<"pushed" | "early", unknown>;
  robotReports: Record<"pushed" | "early" | "polled", unknown>;
  /** The KPI day robot-reports (time zone UTC) filed the early report under. */
  earlyDay: unknown;
  robotJob: Record<"pushed" | "polled", { outcome: unknown; startTimeIso: unknown }>;
}

const R1 = stubSerial(1);
const APP_ID = "tz-app";
/** "2026-01-01T00:30:00": the UTC time of `ms` without its zone. */
const withoutZone = (ms: number) => new Date(ms).toISOString().slice(0, 19);
const startOf = (msg: Record<string, unknown> | undefined) => (msg?.payload as { startTimeIso?: unknown } | undefined)?.startTimeIso;

async function main(): Promise<CloudTimeFindings> {
  POLL_SETTINGS.intervalMs = 100;
  const http = new HttpNodeServer();
  await http.start();
  const stub = await new JobFleetStub(1).start();
  /** The times the stub wrote into the reports it filed, in order: the first report's start first. */
  const filed: string[] = [];
  stub.reportTime = (ms) => {
    filed.push(withoutZone(ms));
    return filed.at(-1)!;
  };
  await new Promise<void>((resolve) => helper.startServer(() => resolve()));
  const flow = flowWith(stub.url, [
    { id: "events", type: "robot-events", robot: "config", path: "/tz-pushes", minLevel: "", wires: [[], ["reports", "pushedOut"], []] },
    { id: "pushedOut", type: "helper" },
    {
      id: "reports",
      type: "robot-reports",
      robot: "config",
      serialNumbers: R1,
      every: 1440,
      since: 7,
      keep: 30,
      timeZone: "UTC",
      wires: [["reportsOut"], ["figures"]],
    },
    { id: "reportsOut", type: "helper" },
    { id: "figures", type: "helper" },
    jobNode({ wires: [["jobEnds"], ["jobProgress"]] }),
    { id: "jobProgress", type: "helper" },
    { id: "jobEnds", type: "helper" },
    { id: "catchAll", type: "catch", scope: null, uncaught: false, wires: [["caught"]] },
    { id: "caught", type: "helper" },
  ]);
  await loadFlow([http.serving(robotEvents), robotReports, robotJob], flow, { config: { token: TEST_TOKEN }, events: { appId: APP_ID } });
  const pushedOut = collectMessages("pushedOut");
  const reportsOut = collectMessages("reportsOut");
  const figures = collectMessages("figures");
  const jobEnds = collectMessages("jobEnds");
  const caught = collectMessages("caught");
  const progress = collectMessages("jobProgress");
  const started = () => progress.filter((msg) => (msg.payload as { event?: unknown }).event === "started");
  // A node's error ends the run naming it, rather than a wait timing out.
  const waitFor = (done: () => boolean, ms: number, what: string) =>
    waitUntil(
      () => {
        if (caught.length > 0) throw new Error(`${what}: ${JSON.stringify(caught[0]!.error)}`);
        return done();
      },
      ms,
      what,
    );
  const push = async (report: Record<string, unknown>) => {
    const answer = await rawRequest(http.url, "POST", "/tz-pushes", {
      body: { appId: APP_ID, payload: { serialNumber: R1, taskReport: report } },
    });
    if (answer.status !== 200) throw new Error(`push answered ${answer.status}: ${answer.text}`);
  };
  const byId = (messages: Record<string, unknown>[], id: string) => messages.find((msg) => (msg.payload as { id?: unknown }).id === id);

  // The polled report: a job nothing is pushed for ends, the stub files its report, robot-job reads it from the endpoint.
  helper.getNode("job").receive({ payload: { task: "Kitchen", map: "Floor 1" } });
  await waitFor(() => jobEnds.length === 1, 20_000, "the first job's end");
  const polledReport = (jobEnds[0]!.payload as { report?: Record<string, unknown> }).report;
  // Then robot-reports sweeps (a message that is no request) and lists it.
  helper.getNode("reports").receive({ payload: Date.now() });
  await waitFor(() => byId(reportsOut, `${R1}-1`) !== undefined, 10_000, "the swept report");

  // The pushed report: pushed while the second job runs, so robot-job takes it from robot-events.
  stub.runReads = undefined;
  helper.getNode("job").receive({ payload: { task: "Kitchen", map: "Floor 1" } });
  // Started as robot-job sees it (its status read confirmed the start), not only as the stub has it.
  await waitFor(() => started().length === 2, 10_000, "the second task started");
  const pushedStart = withoutZone(Date.now());
  await push({ id: "pushed-1", taskEndStatus: 0, cleaningMode: "洗地", startTime: pushedStart, endTime: withoutZone(Date.now() + 1000) });
  stub.finish(R1, 0);
  await waitFor(() => jobEnds.length === 2, 20_000, "the second job's end");

  // The early report: yesterday 00:30 UTC, a day that local time would change.
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const earlyStart = `${yesterday}T00:30:00`;
  await push({
    id: "early-1",
    taskEndStatus: 0,
    cleaningMode: "洗地",
    actualCleaningAreaSquareMeter: 40,
    startTime: earlyStart,
    endTime: `${yesterday}T01:10:00`,
  });
  await waitFor(() => byId(reportsOut, "early-1") !== undefined && figures.length >= 2, 10_000, "the early report's figures");

  const secondEnd = jobEnds[1]!.payload as { outcome?: unknown; report?: Record<string, unknown> };
  const findings: CloudTimeFindings = {
    zone: process.env.TZ,
    offsetMinutes: new Date(Date.UTC(2026, 0, 15)).getTimezoneOffset(),
    sent: { pushed: pushedStart, early: earlyStart, polled: filed[0]! },
    robotEvents: { pushed: startOf(byId(pushedOut, "pushed-1")), early: startOf(byId(pushedOut, "early-1")) },
    robotReports: {
      pushed: startOf(byId(reportsOut, "pushed-1")),
      early: startOf(byId(reportsOut, "early-1")),
      polled: startOf(byId(reportsOut, `${R1}-1`)),
    },
    earlyDay: (figures.at(-1)!.payload as { day?: unknown }).day,
    robotJob: {
      polled: { outcome: (jobEnds[0]!.payload as { outcome?: unknown }).outcome, startTimeIso: polledReport?.startTimeIso },
      pushed: { outcome: secondEnd.outcome, startTimeIso: secondEnd.report?.startTimeIso },
    },
  };
  await helper.unload();
  await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
  await stub.server.stop();
  await http.stop();
  return findings;
}

if (require.main === module) {
  main().then(
    (findings) => {
      process.stdout.write(`${JSON.stringify(findings)}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
