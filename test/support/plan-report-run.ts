/**
 * One plan occurrence run to its end against the simulator through real
 * Node-RED, for the tests of the plan report's coverage images (the node's,
 * test/nodes/robot-plan-report.test.ts, and Chromium's, test/pages): the
 * report's HTML page when asked, the coverage image as the account keeps it,
 * and a deploy of the same flow.
 */
import assert from "node:assert/strict";
import type { PlanReportRows } from "../../src/api/plans/plan-report";
import { reportsOfAccount, type KeptImage } from "../../src/api/reports/report-store";
import { DEMO_TOKEN } from "../../src/simulator";
import { FakeClock } from "./fake-clock";
import { collectMessages, flowWith, helper, loadFlow, outputsAndCatch, waitFor, type FlowNode } from "./node-red";

/** A node module as loadFlow takes it. */
type NodeModule = Parameters<typeof loadFlow>[0][number];

const BERLIN = "Europe/Berlin";
type Msg = Record<string, unknown> & { payload: Record<string, unknown> };
/** 2026-06-10 at `time` in Berlin (+02:00). */
const berlin = (time: string) => Date.parse(`2026-06-10T${time}+02:00`);

/**
 * One occurrence at 06:00 on one robot, run to its end with the simulator's
 * report; answers the report's HTML page when asked, and the report as the
 * account keeps it.
 */
export async function oneOccurrenceRun(simulatorUrl: string, modules: NodeModule[]) {
  const clock = new FakeClock(berlin("05:59:30"));
  helper.settings({ robotPlanClock: clock } as never);
  const plan = [{ name: "Lobby", days: "daily", at: "06:00", map: "Floor 1", area: "Lobby", robots: ["GS-S-000101"] }];
  const nodes: FlowNode[] = [
    {
      id: "plan",
      type: "robot-plan",
      robot: "config",
      timezone: BERLIN,
      lateBy: 15,
      skipDates: [],
      plan,
      wires: [["out"], [], ["answers"]],
    },
    { id: "answers", type: "helper" },
  ];
  await loadFlow(modules, flowWith(simulatorUrl, [...nodes, ...outputsAndCatch("plan")]), { config: { token: DEMO_TOKEN } });
  const settled = collectMessages("out") as Msg[];
  const answers = collectMessages("answers") as Msg[];
  const caught = collectMessages("caught");
  await new Promise((resolve) => setTimeout(resolve, 50));
  await clock.advanceTo(berlin("06:00:00"));
  await waitFor(() => settled.length === 1 || caught.length > 0, 40_000, "06:00's occurrence settled");
  assert.equal(caught.length, 0, JSON.stringify(caught[0]));
  const accountKey = (helper.getNode("config") as unknown as { robot: { client: { accountKey: string } } }).robot.client.accountKey;
  const reports = reportsOfAccount(accountKey);
  const rows = async () => {
    helper.getNode("plan").receive({ payload: { report: { from: "2026-06-10", format: "rows" } } });
    await waitFor(() => answers.length > 0 || caught.length > 0, 20_000, "the rows");
    return (answers.pop()!.payload as unknown as PlanReportRows).occurrences[0]!;
  };
  const row = await rows();
  assert.match(row.image ?? "", /^http:\/\/.*expires=/, "the report names its pre-signed coverage image");
  const kept = () => reports.imageOf(`${row.serialNumber!}/${row.reportId!}`, row.serialNumber!);
  // Collected afresh each time: a redeploy makes new nodes.
  const page = async () => {
    const [pages, refused] = [collectMessages("answers") as Msg[], collectMessages("caught")];
    helper.getNode("plan").receive({ payload: { report: { from: "2026-06-10", format: "html" } } });
    await waitFor(() => pages.length > 0 || refused.length > 0, 20_000, "the page");
    assert.equal(refused.length, 0, JSON.stringify(refused[0]));
    return pages[0]!.payload as unknown as string;
  };
  /** Every node closed and created again, robot-config too (a changed name): the process and its account memory stay. */
  const redeploy = () =>
    helper.setFlows(
      flowWith(simulatorUrl, [...nodes, ...outputsAndCatch("plan")]).map((node) => ({ ...node, name: "redeployed" })),
      "nodes",
    );
  /** Keeps `image` as the report's, as report-images.ts would (the store's bounds apply). */
  const keepImage = (image: KeptImage) => reports.keepImage(`${row.serialNumber!}/${row.reportId!}`, row.serialNumber!, image);
  return { link: row.image!, kept, keepImage, page, redeploy };
}
