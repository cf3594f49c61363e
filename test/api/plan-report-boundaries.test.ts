/**
 * The proof-of-service report at its edges, written against the survivors of a StrykerJS run over src/api/plans:
 * what a client reads on the HTML page (right-aligned figure columns, the total row only under several items, empty
 * cells for what an occurrence lacks, figures to one decimal, the images section only with images), the CSV's last
 * line break, which coverage image a page may show, and the joins where the job or the node gives less.
 *
 * Survivors of src/api/plans accepted as equivalent (no test can tell them apart from the code as written):
 * - calendar.ts occurrencesBetween(): the filter that skips times far from the span, the guard of an empty span or
 *   plan, the day of slack either side of it and the zone its last day is taken in: they only save work, as every
 *   time is then held to [from, to) exactly, and no zone moves a wall time by more than a day.
 * - calendar.ts timesOfDay(): an item without `every` taken as a series: the NaN step ends it after its one time.
 * - calendar.ts sameWallTime(): the year or the month no longer compared (alone, or either of them): a clock change
 *   moves a wall time by a day at most, so another year or month always comes with another day, which is compared.
 * - calendar.ts instantOfWallTime(): `shift >= 0` or true for `shift > 0`: a shift of 0 moves nothing, and a later
 *   instant (shift below 0, the spring side) never shows the same wall time. `<` for `<=` on the 24-hour search: only
 *   a whole skipped day (Samoa, 2011-12-30) reaches it, and at its 00:00 Luxon's own answer is that next minute.
 * - calendar.ts, plan-book.ts between(): comparators answering 1 or 0 when a is not before b, `<=` for `<` on ids
 *   (no two equal): V8's sort asks only whether the answer is negative.
 * - plan-book.ts restore(): `[]` for a missing list replaced by a list holding a string (skipped as no entry); the
 *   name the account's memory keeps the book under, "plans", replaced by "".
 * - plan-report.ts readPlanReportRequest(): the day pattern's anchors and the type tests before the pattern and the
 *   format list: Date.parse and the list refuse the same values on their own.
 * - plan-report.ts isFailedJob(): `job !== undefined` (an occurrence without a job returns before) and either of
 *   `robots` and `code` no longer asked: a job's end (JobResult) has neither. keptReportOfJob(): the job's end time
 *   for the occurrence's: it only dates a report without start and end times, which no figure reads.
 * - plan-report.ts planReportRows(): a settled occurrence the plans list too set again (same id, item and time).
 * - plan-report.ts images: `row.image !== undefined` dropped (showableImage refuses undefined), and a caption's robot
 *   name absent (not reached: a row with an image has a report, so a robot and its name).
 * - plan.ts: the days list's own refusal words (the union around it words every wrong `days` the same), and the
 *   skip dates' separator without `+` (the empty pieces are filtered out).
 */
import assert from "node:assert/strict";
import type { JobResult } from "../../src/api/jobs/job-result";
import type { OccurrenceListing, PlannedOccurrence, SettledOccurrence } from "../../src/api/plans/occurrence";
import fs from "node:fs";
import path from "node:path";
import {
  MAX_REPORT_DAYS,
  OCCURRENCE_STATES,
  REPORT_OUTCOMES,
  REPORT_WORD_KEYS,
  daysBetween,
  planReport,
  planReportRows,
  readPlanReportRequest,
  type PlanReportInput,
} from "../../src/api/plans/plan-report";
import type { ReadReport } from "../../src/api/reports/reading";
import type { AlarmLogEntry } from "../../src/api/pushes/open-alarms";
import { halfHourReport } from "../support/report-fixtures";
import { PACKAGE_ROOT } from "../support/child-node";

const ZONE = "Europe/Berlin";
const ROBOT = "GS-S-000101";

function planned(item: string, localMinute: string): PlannedOccurrence {
  const plannedAt = new Date(Date.parse(`${localMinute}:00+01:00`)).toISOString();
  return {
    occurrenceId: `${item}@${localMinute}`,
    item,
    plannedAt,
    itemSpec: { name: item, days: "daily", at: "06:00:00", work: { kind: "area", area: item, map: "Floor 1" }, waitUpToSeconds: 1800 },
  };
}

/** A task report of the robot from `startIso`, 30 minutes long, with its coverage image if given. */
const report = (id: string, startIso: string, cleaned: number, planned: number, image?: string): ReadReport =>
  halfHourReport(ROBOT, id, startIso, cleaned, planned, image ? { taskReportPngUri: image } : {});

function done(occurrence: PlannedOccurrence, read: ReadReport | undefined, change: Partial<JobResult> = {}): SettledOccurrence {
  const job: JobResult = {
    jobId: "x",
    serialNumber: ROBOT,
    robotName: "Scrubber from the job",
    work: occurrence.itemSpec.work,
    outcome: "completed",
    endedAt: read?.endTimeIso ?? occurrence.plannedAt,
    attempts: [],
    ...(read ? { report: read } : {}),
    ...change,
  };
  return {
    occurrenceId: occurrence.occurrenceId,
    item: occurrence.item,
    plannedAt: occurrence.plannedAt,
    status: "done",
    startedAt: occurrence.plannedAt,
    endedAt: job.endedAt,
    job,
  };
}

// Tuesday 1 December 2026: two Lobby occurrences (one done, one not yet) and a Kitchen one failed; the 2nd: one Lobby.
const LOBBY_0600 = planned("Lobby", "2026-12-01T06:00");
const LOBBY_2200 = planned("Lobby", "2026-12-01T22:00");
const KITCHEN_1300 = planned("Kitchen", "2026-12-01T13:00");
const LOBBY_DAY2 = planned("Lobby", "2026-12-02T06:00");
const R1 = report("r1", "2026-12-01T05:01:00Z", 33.333, 100, "http://127.0.0.1:18080/_objects/r1.png");
const R2 = report("r2", "2026-12-02T05:01:00Z", 50, 50);
const FAILED_KITCHEN: SettledOccurrence = {
  ...KITCHEN_1300,
  status: "failed",
  job: { code: "NO_ROBOT", message: "no robot could take the job", robots: { [ROBOT]: "busy" } },
};
const LISTING: OccurrenceListing = {
  timezone: ZONE,
  planned: [LOBBY_DAY2, LOBBY_2200, KITCHEN_1300, LOBBY_0600],
  settled: [done(LOBBY_0600, R1), FAILED_KITCHEN, done(LOBBY_DAY2, R2)],
};
const NOW = Date.parse("2026-12-01T12:00:00Z");

function input(overrides: Partial<PlanReportInput> = {}): PlanReportInput {
  return {
    listing: LISTING,
    request: { from: "2026-12-01", to: "2026-12-02", format: "html" },
    site: "Riverside",
    language: "en-US",
    words: (key, params) => (params ? `${key} ${JSON.stringify(params)}` : key),
    nowMs: NOW,
    ...overrides,
  };
}
const html = (overrides: Partial<PlanReportInput> = {}) => planReport(input(overrides)) as string;
/** Words that show their parameters plainly, `key(name=value,...)`, so a test reads what the page was given. */
const wordsWithParams = (key: string, params?: Record<string, string | number>) =>
  params
    ? `${key}(${Object.entries(params)
        .map(([name, value]) => `${name}=${value}`)
        .join(",")})`
    : key;

/** The rows (`<tr>`) of a day's table of the page, each as the client gets it; nothing else is in the table. */
function tableRows(page: string, day: string, table: "summary" | "occurrences" | "incidents"): string[] {
  const section = page.slice(page.indexOf(`<section class="day" data-day="${day}"`));
  const start = section.indexOf(`<table class="${table}">`);
  const markup = section.slice(start, section.indexOf("</table>", start) + "</table>".length);
  const rows = [...markup.matchAll(/<tr[^>]*>.*?<\/tr>/g)].map((match) => match[0]);
  assert.equal(markup, `<table class="${table}"><thead>${rows[0]}</thead><tbody>${rows.slice(1).join("")}</tbody></table>`);
  return rows;
}
const numbers = (...values: string[]) => values.map((value) => `<td class="number">${value}</td>`).join("");
const SUMMARY_HEAD =
  "<tr><th>column.item</th>" +
  ["column.count", "status.done", "status.late", "status.failed", "status.missed", "status.skipped", "status.cancelled"]
    .concat(["column.areaCleaned", "column.areaPlanned", "column.coverage"])
    .map((key) => `<th class="number">${key}</th>`)
    .join("") +
  "</tr>";

describe("plan report page: the summary of each day", () => {
  it("right-aligns every count and figure, gives a total row under several items only, and leaves no coverage empty", () => {
    const page = html();
    assert.deepEqual(tableRows(page, "2026-12-01", "summary"), [
      SUMMARY_HEAD,
      `<tr><td>Kitchen</td>${numbers("1", "0", "0", "1", "0", "0", "0", "0", "0", "")}</tr>`,
      `<tr><td>Lobby</td>${numbers("2", "1", "0", "0", "0", "0", "0", "33.3", "100", "33.3%")}</tr>`,
      `<tr class="total"><td>total</td>${numbers("3", "1", "0", "1", "0", "0", "0", "33.3", "100", "33.3%")}</tr>`,
    ]);
    assert.deepEqual(tableRows(page, "2026-12-02", "summary"), [
      SUMMARY_HEAD,
      `<tr><td>Lobby</td>${numbers("1", "1", "0", "0", "0", "0", "0", "50", "50", "100%")}</tr>`,
    ]);
  });
});

describe("plan report: each day's totals", () => {
  it("totals each day's own items, in day order even when a plan of another zone lists a later day first", () => {
    // Shanghai's 06:00 on the 2nd comes before Berlin's 23:30 and 23:45 on the 1st.
    const shanghai = { ...planned("Atrium", "2026-12-02T06:00"), plannedAt: "2026-12-01T22:00:00.000Z" };
    const day1 = [planned("Hall", "2026-12-01T23:30"), planned("Lobby", "2026-12-01T23:45")];
    const day2 = [planned("Kitchen", "2026-12-02T09:00"), planned("Kitchen", "2026-12-02T10:00")];
    const listing = { timezone: ZONE, planned: [shanghai, ...day1, ...day2], settled: [] };
    assert.deepEqual(
      planReportRows(input({ listing })).dayTotals.map((row) => [row.day, row.planned]),
      [
        ["2026-12-01", 2],
        ["2026-12-02", 3],
      ],
    );
    const page = html({ listing });
    const total = (count: string) => `<tr class="total"><td>total</td>${numbers(count, "0", "0", "0", "0", "0", "0", "0", "0", "")}</tr>`;
    assert.equal(tableRows(page, "2026-12-01", "summary")[3], total("2"));
    assert.equal(tableRows(page, "2026-12-02", "summary")[3], total("3"));
  });
});

describe("plan report page: the occurrences of each day", () => {
  it("right-aligns the three figures only, and leaves what an occurrence lacks empty", () => {
    const head = ["planned", "item", "status", "started", "ended", "robot", "duration", "areaCleaned", "areaPlanned", "coverage", "reason"]
      .map((key, index) => `<th${index >= 6 && index < 10 ? ' class="number"' : ""}>column.${key}</th>`)
      .join("");
    const state = (colour: string, status: string) => `<td><span class="state" style="color:${colour}">status.${status}</span></td>`;
    assert.deepEqual(tableRows(html(), "2026-12-01", "occurrences"), [
      `<tr>${head}</tr>`,
      `<tr><td>06:00</td><td>Lobby</td>${state("#1b7f3b", "done")}<td>06:00</td><td>06:31</td><td>Scrubber from the job</td>${numbers("31 min", "33.3", "100", "33.3%")}<td></td></tr>`,
      `<tr><td>13:00</td><td>Kitchen</td>${state("#c0281b", "failed")}<td></td><td></td><td></td>${numbers("", "", "", "")}<td>reason.noRobot {&quot;robots&quot;:&quot;GS-S-000101: busy&quot;}</td></tr>`,
      `<tr><td>22:00</td><td>Lobby</td>${state("#2166ac", "upcoming")}<td></td><td></td><td></td>${numbers("", "", "", "")}<td></td></tr>`,
    ]);
  });

  it("gives every state its own colour", () => {
    const listing: OccurrenceListing = { timezone: ZONE, planned: [], settled: [] };
    for (const [index, state] of OCCURRENCE_STATES.entries()) {
      const occurrence = planned(`Item ${index}`, "2026-12-01T06:00");
      listing.planned.push(occurrence);
      if (state !== "upcoming" && state !== "running" && state !== "notRun") listing.settled.push({ ...occurrence, status: state });
    }
    const running = listing.planned[OCCURRENCE_STATES.indexOf("running")]!.occurrenceId;
    const underWay = (occurrenceId: string) => (occurrenceId === running ? {} : undefined);
    const request = { from: "2026-12-01", to: "2026-12-01", format: "html" } as const;
    const page = html({ listing, request, underWay, nowMs: Date.parse("2026-12-01T04:59:59.999Z") });
    const later = html({ listing, request, underWay });
    const colours = new Map(
      [...page.matchAll(/style="color:([^"]*)">status\.(\w+)</g), ...later.matchAll(/style="color:([^"]*)">status\.(notRun)</g)].map(
        (match) => [match[2]!, match[1]!],
      ),
    );
    assert.deepEqual([...colours.keys()].sort(), [...OCCURRENCE_STATES].sort());
    assert.equal(new Set(colours.values()).size, OCCURRENCE_STATES.length);
    for (const colour of colours.values()) assert.match(colour, /^#[0-9a-f]{6}$/);
  });
});

describe("plan report page: the period's totals, the parties and the sign-off", () => {
  const sections = (page: string) => page.split("<section ").slice(1);

  it("ends a span of several days with its totals per item and in all, then the sign-off; one day has no totals page", () => {
    const page = html();
    const parts = sections(page);
    assert.equal(parts.length, 3, "two days and the period");
    const period = parts[2]!;
    assert.ok(period.startsWith('class="day period">'));
    assert.ok(
      period.includes('<p class="date">title · period {&quot;from&quot;:&quot;2026-12-01&quot;,&quot;to&quot;:&quot;2026-12-02&quot;}</p>'),
    );
    const rows = [...period.matchAll(/<tr[^>]*>(.*?)<\/tr>/g)].map((match) => match[0]);
    const rowsData = planReportRows(input());
    assert.equal(rows.length, 1 + rowsData.itemTotals.length + (rowsData.itemTotals.length > 1 ? 1 : 0), "a head, each item, the total");
    assert.equal(rowsData.total.planned, rowsData.occurrences.length);
    assert.equal(
      rowsData.itemTotals.reduce((sum, row) => sum + row.planned, 0),
      rowsData.occurrences.length,
      "each occurrence counted once under its item",
    );
    assert.ok(period.includes('<div class="sign-off"><h2>signOff</h2>'), "the sign-off on the last page");
    assert.equal(page.match(/class="sign-off"/g)?.length, 1, "once");
    assert.ok(!parts[0]!.includes("sign-off") && !parts[1]!.includes("sign-off"));

    const oneDay = sections(html({ request: { from: "2026-12-01", to: "2026-12-01", format: "html" } }));
    assert.equal(oneDay.length, 1, "no totals page for one day: the day's total row is its total");
    assert.ok(oneDay[0]!.includes('class="sign-off"'));
  });

  it("names the customer and the contractor under the site on every page and in the sign-off, and neither where not given", () => {
    // Words that name the party plainly: the page escapes what it is given.
    const words = (key: string, params?: Record<string, string | number>) => (params?.name !== undefined ? `${key}=${params.name}` : key);
    const named = html({ customer: "Riverside <Estates>", contractor: "Acme Cleaning", words });
    assert.equal(
      named.match(/<p>customer=Riverside &lt;Estates&gt; · contractor=Acme Cleaning<\/p>/g)?.length,
      3,
      "each day and the period",
    );
    assert.ok(named.includes('<div class="party"><p><b>signOffContractor</b> Acme Cleaning</p><p class="line">signOffName</p>'));
    assert.ok(named.includes('<div class="party"><p><b>signOffCustomer</b> Riverside &lt;Estates&gt;</p>'));
    const onlyCustomer = html({ customer: "Riverside", words });
    assert.ok(onlyCustomer.includes("<p>customer=Riverside</p>"));
    const unnamed = html({ words });
    assert.ok(!unnamed.includes("customer=") && !unnamed.includes("contractor="));
    assert.ok(unnamed.includes('<div class="party"><p><b>signOffCustomer</b></p>'), "lines to fill in by hand");
  });
});

describe("plan report: the incidents raised during each occurrence", () => {
  // LOBBY_0600 ran from 05:00:00 to R1's end, 05:31:00 UTC, on ROBOT.
  const start = Date.parse(LOBBY_0600.plannedAt);
  const end = Date.parse(R1.endTimeIso!);
  const alarm = (incidentId: string, ms: number, extra: Partial<AlarmLogEntry> = {}): AlarmLogEntry => ({
    serialNumber: ROBOT,
    incidentId,
    level: { code: "H5", rank: 5 },
    code: "2010",
    name: "Brush motor stalled",
    raisedAt: new Date(ms).toISOString(),
    ...extra,
  });
  const log = [
    alarm("before", start - 1),
    alarm("at-start", start, {
      acknowledged: { by: "Ana", at: new Date(start + 120_000).toISOString() },
      recoveredAt: new Date(start + 600_000).toISOString(),
    }),
    alarm("at-end", end),
    alarm("after", end + 1),
    alarm("other-robot", start + 1000, { serialNumber: "GS-S-000102" }),
  ];
  const incidents = (fromMs: number, toMs: number) =>
    log.filter((entry) => Date.parse(entry.raisedAt) >= fromMs && Date.parse(entry.raisedAt) < toMs);

  it("takes its robot's alarms raised from its start to its end, both included, no other robot's", () => {
    const row = planReportRows(input({ incidents })).occurrences.find((each) => each.occurrenceId === LOBBY_0600.occurrenceId)!;
    assert.deepEqual(
      row.incidents?.map((entry) => entry.incidentId),
      ["at-start", "at-end"],
    );
    const failed = planReportRows(input({ incidents })).occurrences.find((each) => each.occurrenceId === KITCHEN_1300.occurrenceId)!;
    assert.equal(failed.incidents, undefined, "an occurrence that never started has none");
    const csv = (planReport(input({ incidents, request: { from: "2026-12-01", to: "2026-12-01", format: "csv" } })) as string).split("\n");
    assert.ok(csv.find((line) => line.includes(LOBBY_0600.occurrenceId))!.endsWith(",r1,2,,"), "the count in the CSV");
  });

  it("lists them on the day's page with how soon each was acknowledged and recovered, and the day's figures above", () => {
    const page = html({ incidents, words: wordsWithParams, request: { from: "2026-12-01", to: "2026-12-01", format: "html" } });
    assert.deepEqual(tableRows(page, "2026-12-01", "incidents").slice(1), [
      "<tr><td>06:00</td><td>Lobby</td><td>Scrubber from the job</td><td>H5</td><td>2010 Brush motor stalled</td><td>afterBy(time=2 min,by=Ana)</td><td>after(time=10 min)</td></tr>",
      "<tr><td>06:31</td><td>Lobby</td><td>Scrubber from the job</td><td>H5</td><td>2010 Brush motor stalled</td><td></td><td></td></tr>",
    ]);
    assert.ok(
      page.includes(
        '<tr><td class="number">2</td><td class="number">1</td><td class="number">1</td><td>meanLongest(mean=2 min,longest=2 min)</td><td>meanLongest(mean=10 min,longest=10 min)</td></tr>',
      ),
      "2 raised, 1 acknowledged, 1 recovered, and how soon",
    );
    assert.ok(
      !html({ request: { from: "2026-12-01", to: "2026-12-01", format: "html" } }).includes('class="incidents"'),
      "no table without incidents",
    );
  });
});

describe("plan report: why an occurrence is not done, in words", () => {
  const words = wordsWithParams;
  const textOf = (occurrence: SettledOccurrence, extra: Partial<PlanReportInput> = {}) =>
    planReportRows(input({ listing: { timezone: ZONE, planned: [], settled: [occurrence] }, words, ...extra })).occurrences[0]!.reasonText;

  it("names each robot's reason in the job's words for NO_ROBOT, and the problem without its field otherwise", () => {
    assert.equal(textOf(FAILED_KITCHEN, { reasonWords: (reason) => `<${reason}>` }), `reason.noRobot(robots=${ROBOT}: <busy>)`);
    assert.equal(textOf(FAILED_KITCHEN), `reason.noRobot(robots=${ROBOT}: busy)`, "the code where no words are given");
    const invalid = {
      ...FAILED_KITCHEN,
      job: { code: "INVALID_INPUT", message: 'payload.area: no robot of the account has an area "Kitchn"', robots: {} },
    };
    assert.equal(textOf(invalid), 'reason.notPossible(detail=no robot of the account has an area "Kitchn")');
  });

  it("says how late a late one started, in whole minutes, and why missed, skipped, cancelled and unknown ones are so", () => {
    const late = (seconds: number) => ({
      ...done(LOBBY_0600, R1),
      status: "late" as const,
      startedAt: new Date(Date.parse(LOBBY_0600.plannedAt) + seconds * 1000).toISOString(),
    });
    assert.equal(textOf(late(9 * 60 + 29)), "reason.late(minutes=9)");
    assert.equal(textOf(late(9 * 60 + 30)), "reason.late(minutes=10)");
    for (const status of ["missed", "skipped", "cancelled"] as const) assert.equal(textOf({ ...KITCHEN_1300, status }), `reason.${status}`);
    assert.equal(
      textOf(done(LOBBY_0600, R1, { outcome: "unknown", reason: "robot offline for 30 min" })),
      "reason.unknown(detail=robot offline for 30 min)",
    );
    assert.equal(textOf(done(LOBBY_0600, R1)), undefined, "a done one needs no reason");
    const notRun = planReportRows(input({ listing: { timezone: ZONE, planned: [LOBBY_0600], settled: [] }, words })).occurrences[0]!;
    assert.deepEqual([notRun.status, notRun.reasonText], ["notRun", "reason.notRun"]);
  });
});

describe("plan report page: images, headings and title", () => {
  it("shows a day's coverage images under their heading, captioned, and no heading on a day without any", () => {
    const page = html();
    const [day1, day2] = page.split("<section ").slice(1) as [string, string];
    assert.ok(
      day1.includes(
        '<h2>images</h2><div class="images"><figure><img src="http://127.0.0.1:18080/_objects/r1.png" alt="Lobby 06:00"><figcaption>Lobby · 06:00 · Scrubber from the job</figcaption></figure></div></section>',
      ),
    );
    assert.ok(!day2.includes("images"));
    assert.ok(day2.endsWith("</tbody></table></section>\n"), "nothing after the occurrences");
    const two = html({
      listing: {
        timezone: ZONE,
        planned: [],
        settled: [done(LOBBY_0600, R1), done(LOBBY_2200, report("r8", "2026-12-01T21:00:00Z", 1, 1, "http://host/r8.png"))],
      },
    });
    assert.ok(two.includes("</figcaption></figure><figure><img"), "one figure after the other");
    const unnamed = html({
      listing: {
        timezone: ZONE,
        planned: [LOBBY_0600],
        settled: [done(LOBBY_0600, R1, { serialNumber: undefined, robotName: undefined })],
      },
    });
    assert.ok(unnamed.includes("<figcaption>Lobby · 06:00 · GS-S-000101</figcaption>"), "the report's robot when the job names none");
  });

  it("shows an image only from http(s) or an embedded PNG or JPEG, the whole address checked", () => {
    const shown = (image: string) =>
      html({
        listing: { timezone: ZONE, planned: [LOBBY_0600], settled: [done(LOBBY_0600, report("r9", "2026-12-01T05:01:00Z", 1, 2, image))] },
      }).includes("<img ");
    for (const image of [
      "http://host/a.png",
      "HTTPS://host/a.png",
      "data:image/png;base64,iVBORw0KGgo=",
      "data:image/jpeg;base64,/9j/4AAQ",
    ])
      assert.equal(shown(image), true, image);
    for (const image of [
      "javascript:alert(1)",
      "xhttp://host/a.png",
      "data:image/svg+xml;base64,PHN2Zz4=",
      "xdata:image/png;base64,AAAA",
      'data:image/png;base64,AAAA"><script>',
    ])
      assert.equal(shown(image), false, image);
  });

  it("heads each day with the site, the date and the zone, titles the page with the site, the title and the period, one day a line", () => {
    const page = html();
    assert.ok(
      page.includes(
        "<title>Riverside · title · period {&quot;from&quot;:&quot;2026-12-01&quot;,&quot;to&quot;:&quot;2026-12-02&quot;}</title>",
      ),
    );
    assert.ok(
      page.includes(
        '<header><h1>Riverside</h1><p class="date">title · Tuesday, December 1, 2026</p><p class="muted">zone {&quot;zone&quot;:&quot;Europe/Berlin&quot;}</p></header>',
      ),
    );
    assert.ok(page.includes("<h2>byItem</h2><table") && page.includes("<h2>occurrences</h2><table"));
    assert.ok(page.includes("</section>\n<section"));
  });

  it("has a word for every key, state and outcome in each catalogue, and no state or outcome the report does not know", () => {
    for (const language of ["en-US", "zh-CN"]) {
      const file = path.join(PACKAGE_ROOT, "nodes", "locales", language, "robot-fleet.json");
      const words = (
        JSON.parse(fs.readFileSync(file, "utf8")) as { "robot-fleet": { planReport: Record<string, Record<string, string>> } }
      )["robot-fleet"].planReport;
      const word = (key: string) => key.split(".").reduce<unknown>((value, part) => (value as Record<string, unknown>)?.[part], words);
      for (const key of REPORT_WORD_KEYS) assert.equal(typeof word(key), "string", `${language} ${key}`);
      assert.deepEqual(Object.keys(words.status!).sort(), [...OCCURRENCE_STATES].sort(), language);
      assert.deepEqual(Object.keys(words.outcome!).sort(), [...REPORT_OUTCOMES].sort(), language);
    }
  });
});

describe("plan report: rows, CSV and the joins where less is given", () => {
  it("answers rows as the rows themselves, and CSV ending with one line break", () => {
    assert.deepEqual(planReport(input({ request: { from: "2026-12-01", to: "2026-12-02", format: "rows" } })), planReportRows(input()));
    const csv = planReport(input({ request: { from: "2026-12-01", to: "2026-12-02", format: "csv" } })) as string;
    assert.ok(csv.endsWith("\n") && !csv.endsWith("\n\n"));
  });

  it("orders occurrences by planned time, then item, whatever order the listing gives", () => {
    const listing = {
      timezone: ZONE,
      planned: [planned("B", "2026-12-01T06:00"), LOBBY_2200, planned("A", "2026-12-01T06:00")],
      settled: [],
    };
    assert.deepEqual(
      planReportRows(input({ listing })).occurrences.map((row) => row.occurrenceId),
      ["A@2026-12-01T06:00", "B@2026-12-01T06:00", LOBBY_2200.occurrenceId],
    );
  });

  it("names a robot by the job, else by its serial number, when the node gives no directory", () => {
    const row = (job: Partial<JobResult>, read: ReadReport | undefined) =>
      planReportRows(input({ listing: { timezone: ZONE, planned: [], settled: [done(LOBBY_0600, read, job)] } })).occurrences[0]!;
    assert.equal(row({}, R1).robotName, "Scrubber from the job");
    assert.deepEqual([row({ robotName: undefined }, R1).robotName, row({ robotName: undefined }, R1).serialNumber], [ROBOT, ROBOT]);
    assert.deepEqual(
      [row({ serialNumber: undefined }, R1).serialNumber, row({ serialNumber: undefined }, R1).robotName],
      [ROBOT, "Scrubber from the job"],
      "the report's robot",
    );
    const neither = row({ serialNumber: undefined }, undefined);
    assert.deepEqual([neither.serialNumber, neither.robotName], [undefined, undefined]);
    const failed = planReportRows(input({ listing: { timezone: ZONE, planned: [], settled: [FAILED_KITCHEN] } })).occurrences[0]!;
    assert.equal(failed.reason, "GS-S-000101: busy");
  });

  it("takes a job's report without a key as no report: no figures, no report id", () => {
    const keyless = { ...R1, reportKey: undefined } as unknown as ReadReport;
    const row = planReportRows(input({ listing: { timezone: ZONE, planned: [], settled: [done(LOBBY_0600, keyless)] } })).occurrences[0]!;
    assert.deepEqual([row.areaCleaned, row.reportId, row.image], [null, undefined, undefined]);
  });
});

describe("plan report: the request's words", () => {
  const refusal = (value: unknown, words: RegExp) =>
    assert.throws(
      () => readPlanReportRequest(value, "2026-12-02"),
      (error: Error) => words.test(error.message),
    );
  it("says what is wrong, field first", () => {
    for (const value of [null, [], "2026-12-01"])
      refusal(value, /^payload\.report: must be \{from: "YYYY-MM-DD", to: "YYYY-MM-DD", format: "rows" \| "csv" \| "html"\}$/);
    refusal({ from: "1.12.2026" }, /^payload\.report\.from: must be a day as "YYYY-MM-DD" or "today" \(got "1\.12\.2026"\)$/);
    refusal({ from: "2026-12-02", to: "2026-12-01" }, /^payload\.report\.to: must not be before from \(2026-12-02\)$/);
    refusal({ from: "2026-01-01", to: "2027-12-31" }, /^payload\.report\.to: must be at most 366 days after from, both included$/);
    refusal({ from: "2026-12-01", format: "pdf" }, /^payload\.report\.format: must be one of rows, csv, html$/);
  });

  it(`counts the days of a span no further than one past ${MAX_REPORT_DAYS}: enough to refuse it`, () => {
    assert.equal(daysBetween("2026-01-01", "2036-01-01").length, MAX_REPORT_DAYS + 1);
  });
});
