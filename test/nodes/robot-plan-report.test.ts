/**
 * robot-plan's report input through real Node-RED against the simulator: a
 * morning's occurrences run as jobs, end with the simulator's task reports,
 * and the report's rows agree with robot-reports' KPI row for the same
 * reports; the CSV and the HTML page answer the same occurrences. The plan's
 * clock is fake (Node-RED's settings), the robots' time real.
 */
import assert from "node:assert/strict";
import robotJob from "../../src/nodes/robot-job";
import robotPlan from "../../src/nodes/robot-plan";
import robotReports from "../../src/nodes/robot-reports";
import type { PlanReportRows } from "../../src/api/plans/plan-report";
import { CSV_COLUMNS } from "../../src/api/plans/plan-report";
import { dayFormatter, type KpiRow } from "../../src/api/reports/kpi";
import { MAX_KEPT_IMAGE_BYTES } from "../../src/api/reports/report-store";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { FakeClock } from "../support/fake-clock";
import { useJobFleet } from "../support/job-flow";
import { oneOccurrenceRun } from "../support/plan-report-run";
import { collectMessages, flowWith, helper, loadFlow, outputsAndCatch, waitFor, type FlowNode } from "../support/node-red";

const BERLIN = "Europe/Berlin";
type Msg = Record<string, unknown> & { payload: Record<string, unknown> };
/** 2026-06-10 at `time` in Berlin (+02:00). */
const berlin = (time: string) => Date.parse(`2026-06-10T${time}+02:00`);

describe("robot-plan: the proof-of-service report through the node", function () {
  this.timeout(90_000);
  const fleet = useJobFleet();
  let simulator: RunningSimulator | undefined;
  afterEach(async () => {
    helper.settings({});
    await simulator?.close();
  });

  it("answers rows that agree with robot-reports' KPIs for the same reports, and the CSV and HTML of the same occurrences", async () => {
    simulator = await startSimulator({ quiet: true, rateLimit: false, timing: { taskDurationMs: 1500 } });
    const clock = new FakeClock(berlin("05:59:30"));
    helper.settings({ robotPlanClock: clock } as never);
    const plan = [
      { name: "Lobby", days: "daily", at: "06:00", every: 1, until: "06:01", map: "Floor 1", area: "Lobby", robots: ["GS-S-000101"] },
      { name: "Kitchen", days: "daily", at: "06:00", map: "Floor 1", area: "Kitchen", robots: ["GS-S-000102"] },
    ];
    const nodes: FlowNode[] = [
      { id: "plan", type: "robot-plan", name: "Riverside <cleaning>", contractor: "Acme <Facility>", robot: "config", timezone: BERLIN, lateBy: 15, skipDates: [], plan, wires: [["out"], [], ["answers"]] },
      { id: "reports", type: "robot-reports", robot: "config", every: 60, since: 1, keep: 30, timeZone: BERLIN, wires: [[], ["kpi"]] },
      { id: "answers", type: "helper" },
      { id: "kpi", type: "helper" },
    ];
    await loadFlow([fleet.http.serving(robotJob), robotPlan, robotReports], flowWith(simulator.url, [...nodes, ...outputsAndCatch("plan", "reports")]), {
      config: { token: DEMO_TOKEN },
    });
    const settled = collectMessages("out") as Msg[];
    const answers = collectMessages("answers") as Msg[];
    const kpi = collectMessages("kpi") as Msg[];
    const caught = collectMessages("caught");
    const failed = () => (caught.length ? JSON.stringify(caught[0]) : "");

    await new Promise((resolve) => setTimeout(resolve, 50));
    await clock.advanceTo(berlin("06:00:00"));
    await waitFor(() => settled.length === 2 || caught.length > 0, 40_000, "06:00's two occurrences settled");
    await clock.advanceTo(berlin("06:01:00"));
    await waitFor(() => settled.length === 3 || caught.length > 0, 40_000, "06:01's occurrence settled");
    assert.equal(failed(), "");
    assert.deepEqual(
      settled.map((msg) => `${String(msg.payload.occurrenceId)} ${String(msg.payload.status)}`).sort(),
      ["Kitchen@2026-06-10T06:00 done", "Lobby@2026-06-10T06:00 done", "Lobby@2026-06-10T06:01 done"],
    );

    const ask = async (payload: unknown, into: Msg[], node = "plan") => {
      const before = into.length;
      helper.getNode(node).receive({ payload });
      await waitFor(() => into.length > before || caught.length > 0, 20_000, JSON.stringify(payload));
      assert.equal(failed(), "");
      return into.at(-1)!.payload as unknown;
    };
    const rows = (await ask({ report: { from: "2026-06-10", format: "rows" } }, answers)) as PlanReportRows;
    assert.equal(rows.site, "Riverside <cleaning>", "the plan node's name when the request names no site");
    assert.equal(rows.occurrences.length, 3);
    for (const row of rows.occurrences) {
      assert.ok(row.areaCleaned! > 0 && row.areaPlanned! > 0, `${row.occurrenceId}: ${row.areaCleaned} of ${row.areaPlanned} m²`);
      assert.match(row.robotName!, /\S/);
    }
    // robot-reports sweeps the same reports from the cloud; its row of the day the robots cleaned (real time) holds exactly them.
    helper.getNode("reports").receive({ payload: "sweep" });
    const today = dayFormatter(BERLIN)(Date.now());
    let day: KpiRow | undefined;
    for (let tries = 0; day?.tasks !== 3; tries++) {
      assert.ok(tries < 40, `robot-reports has the three reports: ${JSON.stringify(day)}`);
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      day = ((await ask({ kpi: { from: today, to: today, by: "day" } }, kpi, "reports")) as KpiRow[])[0];
    }
    const total = rows.dayTotals[0]!;
    assert.deepEqual(
      { areaCleaned: total.areaCleaned, areaPlanned: total.areaPlanned, coverage: total.coverage, done: total.done },
      { areaCleaned: day.areaCleaned, areaPlanned: day.areaPlanned, coverage: day.coverage, done: day.tasks },
    );

    const csv = String(await ask({ report: { from: "2026-06-10", format: "csv", site: "Riverside Office Park" } }, answers));
    const lines = csv.trimEnd().split("\n");
    assert.equal(lines[0], CSV_COLUMNS.join(","));
    assert.equal(lines.length, 4);
    assert.ok(
      lines.slice(1).every((line) => /,done,done,GS-S-00010[12],/.test(line)),
      "each state's code beside its words in the runtime's language",
    );
    const html = String(await ask({ report: { from: "2026-06-10", to: "2026-06-11", format: "html", customer: "Riverside Estates" } }, answers));
    assert.equal(html.match(/<section class="day"/g)?.length, 2);
    assert.equal(html.match(/<section class="day period"/g)?.length, 1, "two days: the period's totals after them");
    assert.ok(html.includes("<h1>Riverside &lt;cleaning&gt;</h1>"));
    assert.equal(html.match(/<p>Customer: Riverside Estates · Contractor: Acme &lt;Facility&gt;<\/p>/g)?.length, 3, "the request's customer, the node's contractor");
    assert.ok(html.includes("<b>For the contractor</b> Acme &lt;Facility&gt;"));
    assert.equal(html.match(/src="data:image\/png;base64,/g)?.length, 3, "each report's coverage image embedded");

    helper.getNode("plan").receive({ payload: { report: { from: "2026-06-10", format: "pdf" } } });
    await waitFor(() => caught.length > 0, 5000, "a bad format refused");
    assert.match(JSON.stringify(caught[0]), /payload\.report\.format/);
    helper.getNode("plan").receive({ payload: { report: { from: "2026-06-10", customer: 7 } } });
    await waitFor(() => caught.length > 1, 5000, "a customer that is no text refused");
    assert.match(JSON.stringify(caught[1]), /payload\.report\.customer: must be the customer's name as text/);
  });

  it("embeds the coverage image kept with the report an hour later and after a deploy, when the report's own link has expired", async () => {
    let hoursAhead = 0;
    simulator = await startSimulator({ quiet: true, rateLimit: false, timing: { taskDurationMs: 1500 }, now: () => Date.now() + hoursAhead * 3600_000 });
    const { link, kept, page, redeploy } = await oneOccurrenceRun(simulator.url, [fleet.http.serving(robotJob), robotPlan]);
    await waitFor(() => kept() !== undefined, 20_000, "the image fetched when the report was kept");
    hoursAhead = 1;
    const expired = await fetch(link);
    assert.equal(expired.status, 403, "an hour on, the report's own link answers 403");
    assert.match(await expired.text(), /Request has expired/);
    // Kept with the account's reports, in the process: a deploy keeps it (docs/nodes/robot-reports.md).
    await redeploy();
    const html = await page();
    const embedded = [...html.matchAll(/src="data:image\/png;base64,([A-Za-z0-9+/=]+)"/g)];
    assert.equal(embedded.length, 1, "the kept image embedded");
    const png = Buffer.from(embedded[0]![1]!, "base64");
    assert.deepEqual(png, (kept() as { data: Buffer }).data);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "PNG bytes");
    assert.doesNotMatch(html, /<img src="http/, "no link to the expired image");
  });

  it("says in words why a report's coverage image is missing when its link was refused as it was kept", async () => {
    // Links that expire a millisecond after they are signed: the fetch when the report is kept is refused (403).
    simulator = await startSimulator({ quiet: true, rateLimit: false, timing: { taskDurationMs: 1500 }, downloadUrlLifetimeMs: 1 });
    const { kept, page } = await oneOccurrenceRun(simulator.url, [fleet.http.serving(robotJob), robotPlan]);
    await waitFor(() => kept() !== undefined, 20_000, "the refusal kept");
    assert.deepEqual(kept(), { why: "refused", status: 403 });
    const html = await page();
    assert.ok(
      html.includes(`<p class="no-image">Coverage image no longer available: its link answered HTTP 403 when it was fetched (the cloud&#39;s links expire about 15 minutes after the task).</p>`),
      html.slice(html.indexOf("Coverage images")),
    );
    assert.doesNotMatch(html, /<img /, "no empty box");
  });

  it("says the image was too large, or dropped for the account's total, where the store kept that instead of its bytes", async () => {
    simulator = await startSimulator({ quiet: true, rateLimit: false, timing: { taskDurationMs: 1500 } });
    const { kept, keepImage, page } = await oneOccurrenceRun(simulator.url, [fleet.http.serving(robotJob), robotPlan]);
    await waitFor(() => kept() !== undefined, 20_000, "the image fetched when the report was kept");
    keepImage({ data: Buffer.alloc(MAX_KEPT_IMAGE_BYTES + 1), contentType: "image/png" });
    assert.deepEqual(kept(), { why: "tooLarge" }, "a byte over the bound");
    assert.ok((await page()).includes(`<p class="no-image">Coverage image not kept: larger than 2 MiB.</p>`));
    keepImage({ why: "dropped" });
    assert.ok((await page()).includes(`<p class="no-image">Coverage image not kept: dropped to keep the account&#39;s images within 32 MiB (the oldest go first).</p>`));
  });
  it("takes each plan's day in its own zone: nodes in Auckland and Los Angeles each list both plans' occurrences of a day, with their zones", async () => {
    simulator = await startSimulator({ quiet: true, rateLimit: false });
    // 2026-06-09 12:00 UTC: before every occurrence asked about, so each is upcoming (a plan lists nothing from before it was set).
    const clock = new FakeClock(Date.parse("2026-06-09T12:00:00Z"));
    helper.settings({ robotPlanClock: clock } as never);
    const planNode = (id: string, timezone: string, name: string): FlowNode => ({
      id,
      type: "robot-plan",
      robot: "config",
      timezone,
      lateBy: 15,
      skipDates: [],
      plan: [{ name, days: "daily", at: "09:00", map: "Floor 1", area: name }],
      wires: [[], [], ["answers"]],
    });
    const nodes: FlowNode[] = [planNode("auckland", "Pacific/Auckland", "Office"), planNode("angeles", "America/Los_Angeles", "Warehouse"), { id: "answers", type: "helper" }];
    await loadFlow([fleet.http.serving(robotJob), robotPlan], flowWith(simulator.url, [...nodes, ...outputsAndCatch("auckland", "angeles")]), { config: { token: DEMO_TOKEN } });
    const answers = collectMessages("answers") as Msg[];
    const caught = collectMessages("caught");
    const ask = async (node: string, report: Record<string, unknown>) => {
      const before = answers.length;
      helper.getNode(node).receive({ payload: { report } });
      await waitFor(() => answers.length > before || caught.length > 0, 20_000, `${node}'s report`);
      assert.equal(caught.length ? JSON.stringify(caught[0]) : "", "");
      return answers.at(-1)!.payload as unknown;
    };
    const listed = (rows: PlanReportRows) => rows.occurrences.map((row) => `${row.occurrenceId} ${row.timezone} ${row.status}`);
    const both = (day: string) => [`Office@${day}T09:00 Pacific/Auckland upcoming`, `Warehouse@${day}T09:00 America/Los_Angeles upcoming`];
    for (const node of ["auckland", "angeles"]) {
      // Auckland's 11 June 09:00 is 10 June 21:00 UTC, Los Angeles' is 11 June 16:00 UTC: one local day, two UTC days.
      const day = (await ask(node, { from: "2026-06-11" })) as PlanReportRows;
      assert.deepEqual(listed(day), both("2026-06-11"), `${node} lists each plan's 11 June`);
      assert.deepEqual(day.zones, [
        { timezone: "America/Los_Angeles", items: ["Warehouse"] },
        { timezone: "Pacific/Auckland", items: ["Office"] },
      ]);
      // The days either side, as that node asks them: each plan's own day before and after, nothing of the 11th.
      assert.deepEqual(listed((await ask(node, { from: "2026-06-10" })) as PlanReportRows), both("2026-06-10"), `${node}: 10 June`);
      assert.deepEqual(listed((await ask(node, { from: "2026-06-12" })) as PlanReportRows), both("2026-06-12"), `${node}: 12 June`);
    }
    const csv = String(await ask("auckland", { from: "2026-06-11", format: "csv" }));
    assert.deepEqual(
      csv
        .trimEnd()
        .split("\n")
        .slice(1)
        .map((line) => line.split(",").slice(0, 3).join(",")),
      ["2026-06-11,Pacific/Auckland,Office@2026-06-11T09:00", "2026-06-11,America/Los_Angeles,Warehouse@2026-06-11T09:00"],
      "each CSV line names the zone its day is in",
    );
    const html = String(await ask("angeles", { from: "2026-06-11", format: "html" }));
    assert.ok(html.includes("Days and times in each plan&#39;s zone: America/Los_Angeles (Warehouse); Pacific/Auckland (Office)"), "the page names each plan's zone");
    assert.equal(html.match(/<td>09:00<\/td>/g)?.length, 2, "each occurrence's time in its own plan's zone");
  });
});
