/**
 * The account's book of plans apart from Node-RED (its context and Redis paths are tried through real Node-RED in
 * test/nodes/robot-plan*.test.ts): an occurrence claimed once and settled once, what a node's context gets and gives
 * back after a restart (read field by field, never taken on trust), the 35 days settled occurrences are kept (at the
 * limit and one ms each side), an item's name given other work or another zone by a second node, the listing the
 * report and the timeline read, and what a deleted node leaves behind.
 */
import assert from "node:assert/strict";
import type { PlannedOccurrence, SettledOccurrence } from "../../src/api/plans/occurrence";
import { AccountPlans, SETTLED_KEPT_DAYS, plansOfAccount, type PlainNodePlans } from "../../src/api/plans/plan-book";
import { readPlan } from "../../src/api/plans/plan";

const BERLIN = "Europe/Berlin";
/** Before every occurrence these tests list: the plans are in force all along. */
const LONG_AGO = Date.parse("2026-01-01T00:00:00Z");
const DAY_MS = 86_400_000;
const item = (fields: Record<string, unknown>) => ({ name: "Lobby", days: "daily", at: "06:00", map: "Floor 1", area: "Lobby", ...fields });
/** Plans are read inside the tests: a plan reading broken by a mutant fails a test rather than the file's loading. */
const lobbyPlan = () => readPlan([item({})]);

/** An occurrence of `name` at a local minute of Berlin in winter (UTC+1), as the calendar makes one. */
function planned(name: string, localMinute: string): PlannedOccurrence {
  const plannedAt = new Date(Date.parse(`${localMinute}:00+01:00`)).toISOString();
  return {
    occurrenceId: `${name}@${localMinute}`,
    item: name,
    plannedAt,
    itemSpec: {
      name,
      days: "daily",
      at: "06:00:00",
      work: { kind: "area", area: name, map: "Floor 1" },
      waitUpToSeconds: 1_800,
    },
  };
}

const settled = (occurrence: PlannedOccurrence, status: SettledOccurrence["status"] = "done"): SettledOccurrence => ({
  occurrenceId: occurrence.occurrenceId,
  item: occurrence.item,
  plannedAt: occurrence.plannedAt,
  status,
});

const SIX = planned("Lobby", "2026-12-01T06:00");
const SEVEN = planned("Lobby", "2026-12-01T07:00");

describe("plan book: claims and settling", () => {
  it("claims an occurrence once: a second claim, by any node, is refused while it is claimed and once it is settled", () => {
    const book = new AccountPlans();
    assert.equal(book.known(SIX.occurrenceId), false);
    assert.equal(book.claim("a", SIX, true), true);
    assert.deepEqual(book.claimedOf(SIX.occurrenceId), { nodeId: "a", occurrence: SIX, late: true });
    assert.equal(book.known(SIX.occurrenceId), true);
    assert.equal(book.claim("b", SIX, false), false);
    assert.equal(book.claim("a", SIX, false), false);
    assert.equal(book.claimedOf(SIX.occurrenceId)!.late, true, "the refused claim changed nothing");
    book.settle("a", settled(SIX));
    assert.equal(book.claimedOf(SIX.occurrenceId), undefined, "settled: no longer claimed");
    assert.deepEqual(book.settledOf(SIX.occurrenceId), settled(SIX));
    assert.equal(book.known(SIX.occurrenceId), true);
    assert.equal(book.claim("b", SIX, false), false);
  });

  it("lets go of a claim that came to nothing, so it may be claimed again", () => {
    const book = new AccountPlans();
    book.claim("a", SIX, false);
    book.unclaim(SIX.occurrenceId);
    assert.equal(book.known(SIX.occurrenceId), false);
    assert.equal(book.claim("b", SIX, false), true);
    assert.equal(book.claimedOf(SIX.occurrenceId)!.nodeId, "b");
  });

  it("settles an occurrence no node claimed (skipped, missed) too", () => {
    const book = new AccountPlans();
    book.settle("a", settled(SIX, "skipped"));
    assert.equal(book.settledOf(SIX.occurrenceId)!.status, "skipped");
    assert.equal(book.claim("a", SIX, false), false);
  });

  it("gives each node its own claims", () => {
    const book = new AccountPlans();
    book.claim("a", SIX, false);
    book.claim("b", SEVEN, false);
    assert.deepEqual(
      book.claimedBy("a").map((entry) => entry.occurrence.occurrenceId),
      [SIX.occurrenceId],
    );
    assert.deepEqual(
      book.claimedBy("b").map((entry) => entry.occurrence.occurrenceId),
      [SEVEN.occurrenceId],
    );
    assert.deepEqual(book.claimedBy("c"), []);
  });

  it("keeps a node's state as one object, starting unpaused with no skips", () => {
    const book = new AccountPlans();
    assert.deepEqual(book.stateOf("a"), { paused: false, skips: [] });
    book.stateOf("a").paused = true;
    book.stateOf("a").skips.push("2026-12-25");
    assert.deepEqual(book.stateOf("a"), { paused: true, skips: ["2026-12-25"] });
    assert.deepEqual(book.stateOf("b"), { paused: false, skips: [] });
  });
});

describe(`plan book: settled occurrences kept ${SETTLED_KEPT_DAYS} days`, () => {
  it("forgets one planned more than 35 days before now, and that Redis has not taken it; keeps one exactly 35 days before and one a ms later", () => {
    assert.equal(SETTLED_KEPT_DAYS, 35);
    const now = Date.parse("2026-12-31T12:00:00Z");
    const at = (offsetMs: number): PlannedOccurrence => ({
      ...SIX,
      occurrenceId: `Lobby@${offsetMs}`,
      plannedAt: new Date(now - SETTLED_KEPT_DAYS * DAY_MS + offsetMs).toISOString(),
    });
    const book = new AccountPlans();
    for (const offset of [-1, 0, 1]) book.settle("a", settled(at(offset)));
    book.claim("a", at(-DAY_MS), false);
    book.stateOf("a").unshared = [-1, 0, 1].map((offset) => at(offset).occurrenceId);
    book.prune(now);
    assert.deepEqual(book.stateOf("a").unshared, [at(0).occurrenceId, at(1).occurrenceId]);
    assert.equal(book.settledOf(at(-1).occurrenceId), undefined);
    assert.equal(book.known(at(-1).occurrenceId), false);
    assert.ok(book.settledOf(at(0).occurrenceId));
    assert.ok(book.settledOf(at(1).occurrenceId));
    assert.ok(book.claimedOf(at(-DAY_MS).occurrenceId), "a claim is not pruned: it is settled first");
  });
});

describe("plan book: an item's name on two nodes", () => {
  const KITCHEN = item({ name: "Kitchen", area: "Kitchen" });
  it("names the first item another node gives other work or another zone", () => {
    const book = new AccountPlans();
    book.setPlan(
      "b",
      { items: readPlan([item({ name: "Hall" }), item({ name: "Kitchen", area: "Kitchen east" })]), timezone: BERLIN },
      LONG_AGO,
    );
    assert.deepEqual(book.nameTakenElsewhere("a", readPlan([item({}), KITCHEN]), BERLIN), { index: 1, item: "Kitchen" });
    assert.deepEqual(book.nameTakenElsewhere("a", readPlan([item({ name: "Hall", goto: "Hall", area: undefined })]), BERLIN), {
      index: 0,
      item: "Hall",
    });
    assert.deepEqual(book.nameTakenElsewhere("a", readPlan([item({ name: "Hall" })]), "Europe/London"), { index: 0, item: "Hall" });
  });

  it("takes the same item (same work, same zone) on two nodes as the account's one item, and a node's own plan as no other's", () => {
    const book = new AccountPlans();
    book.setPlan("a", { items: readPlan([item({ area: "Old lobby" })]), timezone: BERLIN }, LONG_AGO);
    book.setPlan("b", { items: lobbyPlan(), timezone: BERLIN }, LONG_AGO);
    assert.equal(book.nameTakenElsewhere("a", lobbyPlan(), BERLIN), undefined);
    assert.equal(book.nameTakenElsewhere("c", readPlan([item({ name: "Other" })]), BERLIN), undefined);
    book.setPlan("b", undefined, LONG_AGO);
    assert.equal(book.nameTakenElsewhere("a", readPlan([item({ area: "Elsewhere" })]), "Asia/Shanghai"), undefined, "b's plan is gone");
  });
});

describe("plan book: the account's occurrences between two instants", () => {
  const FROM = Date.parse(SIX.plannedAt);

  it("lists what the plans in force have once however many nodes have the item, by time then id", () => {
    const book = new AccountPlans();
    book.setPlan("a", { items: readPlan([item({ name: "B" }), item({ name: "A" })]), timezone: BERLIN }, LONG_AGO);
    book.setPlan("b", { items: readPlan([item({ name: "A" })]), timezone: BERLIN }, LONG_AGO);
    const listing = book.between(FROM, FROM + 1);
    assert.equal(listing.timezone, BERLIN);
    assert.deepEqual(
      listing.planned.map((each) => each.occurrenceId),
      ["A@2026-12-01T06:00", "B@2026-12-01T06:00"],
    );
    assert.deepEqual(listing.settled, []);
  });

  it("lists a claimed occurrence no calendar has (run now) and what was settled, from `from` on and before `to`", () => {
    const book = new AccountPlans();
    const runNow = planned("Hall", "2026-12-01T06:13");
    book.claim("a", runNow, false);
    const at = Date.parse(runNow.plannedAt);
    assert.deepEqual(book.between(at, at + 1).planned, [runNow]);
    assert.deepEqual(book.between(at - 1, at).planned, [], "`to` is not in the span");
    assert.deepEqual(book.between(at + 1, at + 2).planned, []);
    book.settle("a", settled(runNow));
    assert.deepEqual(book.between(at, at + 1).settled, [settled(runNow)]);
    assert.deepEqual(book.between(at - 1, at).settled, []);
    assert.deepEqual(book.between(at + 1, at + 2).settled, []);
  });

  it("orders settled ones by time, then id; and hands out copies", () => {
    const book = new AccountPlans();
    for (const occurrence of [SEVEN, planned("B", "2026-12-01T06:00"), planned("A", "2026-12-01T06:00")])
      book.settle("a", settled(occurrence));
    const listing = book.between(FROM, FROM + DAY_MS);
    assert.deepEqual(
      listing.settled.map((each) => each.occurrenceId),
      ["A@2026-12-01T06:00", "B@2026-12-01T06:00", SEVEN.occurrenceId],
    );
    listing.settled[0]!.status = "failed";
    assert.equal(book.settledOf("A@2026-12-01T06:00")!.status, "done");
  });

  it("orders ids of one time whichever way they were claimed", () => {
    for (const order of [
      ["A", "B"],
      ["B", "A"],
    ]) {
      const book = new AccountPlans();
      for (const name of order) book.claim("a", planned(name, "2026-12-01T06:00"), false);
      assert.deepEqual(
        book.between(FROM, FROM + 1).planned.map((each) => each.item),
        ["A", "B"],
      );
    }
  });

  it("lists no occurrence of an item planned before the item was in force: from its instant on, not a millisecond before", () => {
    const book = new AccountPlans();
    const six = Date.parse(SIX.plannedAt);
    book.setPlan("a", { items: lobbyPlan(), timezone: BERLIN }, six);
    assert.deepEqual(
      book.between(six - DAY_MS, six + DAY_MS).planned.map((each) => each.occurrenceId),
      [SIX.occurrenceId],
      "the day before the plan existed is not listed as planned",
    );
    const later = new AccountPlans();
    later.setPlan("a", { items: lobbyPlan(), timezone: BERLIN }, six + 1);
    assert.deepEqual(
      later.between(six - DAY_MS, six + DAY_MS + 1).planned.map((each) => each.occurrenceId),
      ["Lobby@2026-12-02T06:00"],
    );
    // What was settled is listed whenever its plan began (a job run now before the plan, say).
    later.settle("a", settled(planned("Lobby", "2026-11-30T06:00")));
    assert.deepEqual(
      later.between(six - DAY_MS, six + DAY_MS).settled.map((each) => each.occurrenceId),
      ["Lobby@2026-11-30T06:00"],
    );
  });

  it("keeps an unchanged item's start when the plan changes; a changed or new item is in force from the change", () => {
    const book = new AccountPlans();
    const six = Date.parse(SIX.plannedAt);
    book.setPlan("a", { items: lobbyPlan(), timezone: BERLIN }, LONG_AGO);
    book.setPlan("a", { items: readPlan([item({}), item({ name: "Hall", area: "Hall" })]), timezone: BERLIN }, six + DAY_MS);
    const listed = (from: number) => book.between(from, from + DAY_MS).planned.map((each) => each.occurrenceId);
    assert.deepEqual(listed(six), [SIX.occurrenceId], "Hall came a day later");
    assert.deepEqual(listed(six + DAY_MS), ["Hall@2026-12-02T06:00", "Lobby@2026-12-02T06:00"]);
    book.setPlan("a", { items: readPlan([item({ at: "07:00" })]), timezone: BERLIN }, six + DAY_MS + 1);
    assert.deepEqual(listed(six), [], "the 07:00 Lobby is another item, from its change on");
    assert.deepEqual(Object.values(book.stateOf("a").itemsSince ?? {}), [six + DAY_MS + 1], "only the items in force are kept");
  });

  it("gives the first plan's zone, or the runtime's when no plan is in force", () => {
    const book = new AccountPlans();
    assert.equal(book.between(FROM, FROM + 1).timezone, Intl.DateTimeFormat().resolvedOptions().timeZone);
    book.setPlan("a", { items: lobbyPlan(), timezone: "Asia/Shanghai" }, LONG_AGO);
    book.setPlan("b", { items: lobbyPlan(), timezone: BERLIN }, LONG_AGO);
    assert.equal(book.between(FROM, FROM + 1).timezone, "Asia/Shanghai");
  });
});

describe("plan book: a node's part in its context", () => {
  it("gives a node's state, claims and settled occurrences as copies, and takes them back after a restart", () => {
    const book = new AccountPlans();
    Object.assign(book.stateOf("a"), {
      paused: true,
      skips: ["2026-12-25"],
      checkedUpTo: 1_000,
      unanswered: [SEVEN],
      itemsSince: { Lobby: 1_000 },
    });
    book.claim("a", SIX, true);
    book.settle("a", settled(SEVEN));
    book.claim("b", planned("Hall", "2026-12-01T06:00"), false);
    const plain = book.toPlain("a");
    assert.deepEqual(plain, {
      state: { paused: true, skips: ["2026-12-25"], checkedUpTo: 1_000, unanswered: [SEVEN], itemsSince: { Lobby: 1_000 } },
      claimed: [{ nodeId: "a", occurrence: SIX, late: true }],
      settled: [settled(SEVEN)],
    });
    plain.state.skips.push("2027-01-01");
    assert.deepEqual(book.stateOf("a").skips, ["2026-12-25"], "a copy");

    const restarted = new AccountPlans();
    restarted.restore("a", JSON.parse(JSON.stringify(book.toPlain("a"))));
    assert.deepEqual(restarted.toPlain("a"), book.toPlain("a"));
    assert.equal(restarted.claim("a", SIX, false), false);
    assert.equal(restarted.claim("a", SEVEN, false), false);
  });

  it("reads back each field of the state on its own, dropping what is not of its kind", () => {
    const book = new AccountPlans();
    book.restore("a", {
      state: {
        planByMessage: [{ name: "Hall" }],
        planByMessageOver: "settings-hash",
        paused: "yes",
        skips: ["2026-12-25", 5, null],
        checkedUpTo: "1000",
        unanswered: [SEVEN, null, { occurrenceId: 5, itemSpec: {} }, { occurrenceId: "Hall@2026-12-01T06:00" }],
        unshared: [SIX.occurrenceId, 5, null],
        itemsSince: { kept: 1_000, text: "1000", none: null, infinite: Infinity },
      },
    });
    assert.deepEqual(book.stateOf("a"), {
      planByMessage: [{ name: "Hall" }],
      planByMessageOver: "settings-hash",
      paused: false,
      skips: ["2026-12-25"],
      unanswered: [SEVEN],
      unshared: [SIX.occurrenceId],
      itemsSince: { kept: 1_000 },
    });
    book.restore("b", {
      state: {
        planByMessageOver: 7,
        paused: true,
        skips: "2026-12-25",
        checkedUpTo: 0,
        unanswered: "none",
        unshared: "none",
        itemsSince: null,
      },
    });
    assert.deepEqual(book.stateOf("b"), { paused: true, skips: [], checkedUpTo: 0 });
  });

  it("keeps the state this process has already, and takes no state that is not an object", () => {
    const book = new AccountPlans();
    book.stateOf("a").skips.push("2026-12-24");
    book.restore("a", { state: { paused: true, skips: ["2026-12-25"] } });
    assert.deepEqual(book.stateOf("a"), { paused: false, skips: ["2026-12-24"] });
    book.restore("b", { state: null, claimed: [{ occurrence: SIX, late: true }] });
    assert.deepEqual(book.stateOf("b"), { paused: false, skips: [] });
    assert.deepEqual(book.claimedOf(SIX.occurrenceId), { nodeId: "b", occurrence: SIX, late: true }, "the rest is still read");
  });

  it("takes back claims and settled occurrences this process does not know, with `late` only when it is true", () => {
    const book = new AccountPlans();
    const hall = planned("Hall", "2026-12-01T06:00");
    book.claim("x", SIX, false);
    book.settle("x", settled(SEVEN, "missed"));
    const plain: unknown = {
      claimed: [
        { nodeId: "other", occurrence: SIX, late: true },
        { occurrence: hall, late: "true" },
        { occurrence: { occurrenceId: 5 } },
        { late: true },
        null,
      ],
      settled: [settled(SEVEN, "done"), settled(planned("Kitchen", "2026-12-01T06:00")), { occurrenceId: 5 }, null],
    };
    book.restore("a", plain);
    assert.deepEqual(book.claimedOf(SIX.occurrenceId), { nodeId: "x", occurrence: SIX, late: false }, "its own claim stays");
    assert.equal(book.settledOf(SEVEN.occurrenceId)!.status, "missed", "its own settling stays");
    assert.deepEqual(book.claimedOf(hall.occurrenceId), { nodeId: "a", occurrence: hall, late: false });
    assert.deepEqual(book.toPlain("a").settled, [settled(planned("Kitchen", "2026-12-01T06:00"))]);
    assert.deepEqual(
      book.claimedBy("a").map((entry) => entry.occurrence.occurrenceId),
      [hall.occurrenceId],
    );
  });

  it("a claim settled before the restart is not taken back as claimed", () => {
    const book = new AccountPlans();
    book.restore("a", {
      settled: [settled(SIX)],
      claimed: [{ nodeId: "a", occurrence: SIX, late: false }],
    } satisfies Partial<PlainNodePlans>);
    assert.equal(book.claimedOf(SIX.occurrenceId), undefined);
    assert.ok(book.settledOf(SIX.occurrenceId));
  });

  it("ignores a context that holds no object, and lists that are none", () => {
    const book = new AccountPlans();
    for (const stored of [undefined, null, "text", 5]) book.restore("a", stored);
    book.restore("a", { claimed: "none", settled: { occurrenceId: "Lobby@2026-12-01T06:00" } });
    assert.deepEqual(book.toPlain("a"), { state: { paused: false, skips: [] }, claimed: [], settled: [] });
  });
});

describe("plan book: a node deleted or disabled", () => {
  it("drops its state, its plan and its claims, and keeps what it settled for the account's report", () => {
    const book = new AccountPlans();
    book.setPlan("a", { items: readPlan([item({ area: "Lobby east" })]), timezone: BERLIN }, LONG_AGO);
    book.stateOf("a").paused = true;
    book.claim("a", SEVEN, false);
    book.claim("b", planned("Hall", "2026-12-01T07:00"), false);
    book.settle("a", settled(SIX));
    book.forget("a");
    assert.deepEqual(book.stateOf("a"), { paused: false, skips: [] });
    assert.equal(book.known(SEVEN.occurrenceId), false);
    assert.equal(book.known("Hall@2026-12-01T07:00"), true, "another node's claim stays");
    assert.ok(book.settledOf(SIX.occurrenceId));
    assert.equal(book.nameTakenElsewhere("b", lobbyPlan(), BERLIN), undefined, "its plan is no longer in force");
    const from = Date.parse(SIX.plannedAt);
    assert.deepEqual(
      book.between(from, from + 1).planned.map((each) => each.occurrenceId),
      [],
    );
    assert.deepEqual(
      book.between(from, from + 1).settled.map((each) => each.occurrenceId),
      [SIX.occurrenceId],
    );
  });
});

describe("plan book: one per account", () => {
  it("is the same book for an account's nodes, and another for another account", () => {
    const key = `plan-book-test-${process.pid}`;
    assert.equal(plansOfAccount(key), plansOfAccount(key));
    assert.notEqual(plansOfAccount(key), plansOfAccount(`${key}-other`));
  });
});
