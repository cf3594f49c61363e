/**
 * What an account's plans ran, kept for the life of the process
 * (account-memory.ts) and copied to each plan node's context: the
 * occurrences claimed (their job made or about to be), those settled, and
 * each node's own state (paused, dates skipped by message, a plan set by
 * message, how far its calendar was looked at). An occurrence's id is the
 * key: claimed once per account here (and once across instances in Redis,
 * by the node), so two nodes with one item, a redeploy or a restart never
 * start it twice. No Node-RED, no calls.
 */
import { keptForAccount } from "../account/account-memory";
import { occurrencesBetween, startOfLocalDate } from "./calendar";
import type { JobResult } from "../jobs/job-result";
import { dayOfOccurrence, type OccurrenceListing, type PlanItem, type PlannedOccurrence, type SettledOccurrence } from "./occurrence";

/** Settled occurrences are kept this long after their planned time (a month's report), then forgotten. */
export const SETTLED_KEPT_DAYS = 35;
const DAY_MS = 86_400_000;

/** An occurrence a node of this process claimed and has not settled: its job is made (or about to be), under its id. */
export interface ClaimedOccurrence {
  nodeId: string;
  occurrence: PlannedOccurrence;
  /** Run after its time (downtime within lateBy): it settles `late` rather than `done`. */
  late: boolean;
}

/** A node's own state, kept across a redeploy (memory) and a restart (its context). */
export interface NodePlanState {
  /** The plan a message set, as given (read again after a restart); absent: the node's own. */
  planByMessage?: unknown;
  /** The deployed settings (their hash) the message's plan replaced: once the node is deployed with others, its own plan wins. */
  planByMessageOver?: string;
  paused: boolean;
  /** Dates skipped by message, `YYYY-MM-DD`. */
  skips: string[];
  /** Every occurrence planned before this instant (epoch ms) was looked at; absent: never deployed. */
  checkedUpTo?: number;
  /** Occurrences looked at whose Redis claim got no answer (Redis away): asked again at each look, kept across a redeploy and a restart. */
  unanswered?: PlannedOccurrence[];
  /**
   * The ids of occurrences the node settled that the account's Redis has not
   * taken yet (it did not answer): written again at each look, kept across a
   * redeploy and a restart, and forgotten with the settled occurrence (35 days).
   */
  unshared?: string[];
  /**
   * When each item of the plan in force first was (epoch ms), by planItemKey: a
   * report lists none of its occurrences planned before, which no plan asked for
   * (a week's report of a plan set today is not six days of missed service).
   */
  itemsSince?: Record<string, number>;
}

/** A node's part of the book as plain JSON, for its context. */
export interface PlainNodePlans {
  state: NodePlanState;
  claimed: ClaimedOccurrence[];
  settled: SettledOccurrence[];
}

export class AccountPlans {
  private readonly claimed = new Map<string, ClaimedOccurrence>();
  private readonly settled = new Map<string, { nodeId: string; occurrence: SettledOccurrence }>();
  private readonly states = new Map<string, NodePlanState>();
  /** The plan in force of each open node, for the account's listing. */
  private readonly inForce = new Map<string, { items: readonly PlanItem[]; timezone: string }>();

  stateOf(nodeId: string): NodePlanState {
    let state = this.states.get(nodeId);
    if (!state) this.states.set(nodeId, (state = { paused: false, skips: [] }));
    return state;
  }

  /** Whether the occurrence was claimed or settled by a node of this process. */
  known(occurrenceId: string): boolean {
    return this.claimed.has(occurrenceId) || this.settled.has(occurrenceId);
  }

  settledOf(occurrenceId: string): SettledOccurrence | undefined {
    return this.settled.get(occurrenceId)?.occurrence;
  }

  claimedOf(occurrenceId: string): ClaimedOccurrence | undefined {
    return this.claimed.get(occurrenceId);
  }

  /** Claims the occurrence for the node; false when it is claimed or settled already. */
  claim(nodeId: string, occurrence: PlannedOccurrence, late: boolean): boolean {
    if (this.known(occurrence.occurrenceId)) return false;
    this.claimed.set(occurrence.occurrenceId, { nodeId, occurrence, late });
    return true;
  }

  /** Lets go of a claim that came to nothing (another instance had it): the occurrence is not this process's. */
  unclaim(occurrenceId: string): void {
    this.claimed.delete(occurrenceId);
  }

  /** The occurrence is over: it leaves the claimed ones and is kept as settled. */
  settle(nodeId: string, occurrence: SettledOccurrence): void {
    this.claimed.delete(occurrence.occurrenceId);
    this.settled.set(occurrence.occurrenceId, { nodeId, occurrence });
  }

  claimedBy(nodeId: string): ClaimedOccurrence[] {
    return [...this.claimed.values()].filter((entry) => entry.nodeId === nodeId);
  }

  /**
   * The node's plan in force (undefined: it has none, or closed for good). An
   * item new to the node is in force from `now`; one it had keeps its time.
   */
  setPlan(nodeId: string, plan: { items: readonly PlanItem[]; timezone: string } | undefined, now: number): void {
    if (!plan) {
      this.inForce.delete(nodeId);
      return;
    }
    this.inForce.set(nodeId, plan);
    const state = this.stateOf(nodeId);
    const before = state.itemsSince ?? {};
    state.itemsSince = Object.fromEntries(
      plan.items.map((item) => planItemKey(item, plan.timezone)).map((key) => [key, before[key] ?? now]),
    );
  }

  /**
   * The first of `items` whose name another open node of the account gives other work or another zone:
   * an occurrence's id is the item's name and minute, so that node's occurrence would stand for this one.
   * The same item (same work, same zone) on two nodes is the account's one item, run once.
   */
  nameTakenElsewhere(nodeId: string, items: readonly PlanItem[], timezone: string): { index: number; item: string } | undefined {
    for (const [otherId, plan] of this.inForce) {
      if (otherId === nodeId) continue;
      for (const [index, item] of items.entries()) {
        const other = plan.items.find((entry) => entry.name === item.name);
        if (other && (plan.timezone !== timezone || JSON.stringify(other.work) !== JSON.stringify(item.work)))
          return { index, item: item.name };
      }
    }
    return undefined;
  }

  /** Forgets what is older than the settled ones are kept for. */
  prune(now: number): void {
    const oldest = now - SETTLED_KEPT_DAYS * DAY_MS;
    for (const [id, entry] of this.settled) if (Date.parse(entry.occurrence.plannedAt) < oldest) this.settled.delete(id);
    for (const state of this.states.values()) if (state.unshared) state.unshared = state.unshared.filter((id) => this.settled.has(id));
  }

  /**
   * The account's occurrences planned at or after `from` and before `to`:
   * what its plans in force have (each once, however many nodes have the item),
   * those claimed (one run now included) and what was settled, by planned time.
   */
  between(from: Date | number, to: Date | number): OccurrenceListing {
    const inSpan = (occurrence: { plannedAt: string }) =>
      Date.parse(occurrence.plannedAt) >= +from && Date.parse(occurrence.plannedAt) < +to;
    return this.listing(() => [from, to], inSpan);
  }

  /**
   * The account's occurrences on the local days `fromDay` to `toDay` (both
   * included), each day taken in its own plan's zone: a plan in Auckland and
   * one in Los Angeles each list their occurrence of a day, whichever node asks.
   */
  onDays(fromDay: string, toDay: string): OccurrenceListing {
    const nextDay = new Date(Date.parse(`${toDay}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
    // The occurrence's id holds its local day in its plan's zone: a claimed or settled one is placed by it, whatever plan it came from.
    const inSpan = (occurrence: { occurrenceId: string }) => {
      const day = dayOfOccurrence(occurrence.occurrenceId);
      return day >= fromDay && day <= toDay;
    };
    return this.listing((zone) => [startOfLocalDate(fromDay, zone), startOfLocalDate(nextDay, zone)], inSpan);
  }

  private listing(
    spanIn: (zone: string) => [Date | number, Date | number],
    inSpan: (occurrence: PlannedOccurrence | SettledOccurrence) => boolean,
  ): OccurrenceListing {
    const planned = new Map<string, PlannedOccurrence>();
    const zones: Record<string, string> = {};
    for (const [nodeId, plan] of this.inForce) {
      const since = this.states.get(nodeId)?.itemsSince ?? {};
      for (const item of plan.items) zones[item.name] = plan.timezone;
      for (const occurrence of occurrencesBetween(plan.items, plan.timezone, ...spanIn(plan.timezone)))
        if (Date.parse(occurrence.plannedAt) >= (since[planItemKey(occurrence.itemSpec, plan.timezone)] ?? -Infinity))
          planned.set(occurrence.occurrenceId, occurrence);
    }
    // An occurrence run now (runNow) is no calendar's: under way, it is listed from its claim.
    for (const { occurrence } of this.claimed.values())
      if (!planned.has(occurrence.occurrenceId) && inSpan(occurrence)) planned.set(occurrence.occurrenceId, occurrence);
    const settled = [...this.settled.values()].map((entry) => entry.occurrence).filter(inSpan);
    // An item no plan has any more keeps the zone it was settled in.
    for (const occurrence of settled) if (occurrence.timezone !== undefined) zones[occurrence.item] ??= occurrence.timezone;
    const timezone = this.inForce.values().next().value?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    return {
      timezone,
      zones,
      planned: [...planned.values()].sort(byPlannedTime),
      settled: settled.map((occurrence) => structuredClone(occurrence)).sort(byPlannedTime),
    };
  }

  /**
   * The account's occurrences planned at or after `from` and before `to` and
   * not settled yet, each with the robot that will run it and the seconds it
   * will take, as far as the item's settled runs tell (the upkeep forecast's
   * hours): the robot of its latest run (an item may leave the robot to the
   * job, so the robot that ran it last is the likeliest), and the median
   * durationSeconds of its runs kept (35 days). An item not run yet is left
   * out: nothing says how long it takes. Each run names its plan's zone.
   */
  plannedRuns(from: Date | number, to: Date | number): PlannedRun[] {
    const listing = this.between(from, to);
    const ranBy = new Map<string, { robot: string; seconds: number[] }>();
    for (const { occurrence } of [...this.settled.values()].sort(
      (a, b) => Date.parse(a.occurrence.plannedAt) - Date.parse(b.occurrence.plannedAt),
    )) {
      const job = occurrence.job as Partial<JobResult> | undefined;
      if (typeof job?.durationSeconds !== "number" || typeof job.serialNumber !== "string") continue;
      const item = ranBy.get(occurrence.item) ?? { robot: job.serialNumber, seconds: [] };
      item.robot = job.serialNumber;
      item.seconds.push(job.durationSeconds);
      ranBy.set(occurrence.item, item);
    }
    const runs: PlannedRun[] = [];
    for (const occurrence of listing.planned) {
      if (this.settled.has(occurrence.occurrenceId)) continue;
      const ran = ranBy.get(occurrence.item);
      const timezone = listing.zones?.[occurrence.item] ?? listing.timezone;
      if (ran) runs.push({ serialNumber: ran.robot, plannedAt: occurrence.plannedAt, seconds: median(ran.seconds), timezone });
    }
    return runs;
  }

  toPlain(nodeId: string): PlainNodePlans {
    return structuredClone({
      state: this.stateOf(nodeId),
      claimed: this.claimedBy(nodeId),
      settled: [...this.settled.values()].filter((entry) => entry.nodeId === nodeId).map((entry) => entry.occurrence),
    });
  }

  /** Takes back a node's part from its context (after a restart): what this process does not know already. */
  restore(nodeId: string, plain: unknown): void {
    if (typeof plain !== "object" || plain === null) return;
    const { state, claimed, settled } = plain as Partial<PlainNodePlans>;
    if (!this.states.has(nodeId) && typeof state === "object" && state !== null) {
      this.states.set(nodeId, {
        ...(state.planByMessage !== undefined ? { planByMessage: state.planByMessage } : {}),
        ...(typeof state.planByMessageOver === "string" ? { planByMessageOver: state.planByMessageOver } : {}),
        paused: state.paused === true,
        skips: Array.isArray(state.skips) ? state.skips.filter((date) => typeof date === "string") : [],
        ...(typeof state.checkedUpTo === "number" ? { checkedUpTo: state.checkedUpTo } : {}),
        ...(typeof state.itemsSince === "object" && state.itemsSince !== null
          ? {
              itemsSince: Object.fromEntries(
                Object.entries(state.itemsSince).filter(([, at]) => typeof at === "number" && Number.isFinite(at)),
              ),
            }
          : {}),
        ...(Array.isArray(state.unanswered)
          ? {
              unanswered: state.unanswered.filter((entry) => typeof entry?.occurrenceId === "string" && typeof entry.itemSpec === "object"),
            }
          : {}),
        ...(Array.isArray(state.unshared) ? { unshared: state.unshared.filter((id) => typeof id === "string") } : {}),
      });
    }
    for (const entry of Array.isArray(settled) ? settled : [])
      if (typeof entry?.occurrenceId === "string" && !this.known(entry.occurrenceId))
        this.settled.set(entry.occurrenceId, { nodeId, occurrence: entry });
    for (const entry of Array.isArray(claimed) ? claimed : [])
      if (typeof entry?.occurrence?.occurrenceId === "string" && !this.known(entry.occurrence.occurrenceId))
        this.claimed.set(entry.occurrence.occurrenceId, { nodeId, occurrence: entry.occurrence, late: entry.late === true });
  }

  /** The node was deleted or disabled: its state and plan go; what it settled stays for the account's report. */
  forget(nodeId: string): void {
    this.states.delete(nodeId);
    this.inForce.delete(nodeId);
    for (const entry of this.claimedBy(nodeId)) this.claimed.delete(entry.occurrence.occurrenceId);
  }
}

/** An upcoming occurrence as the upkeep forecast counts it: who runs it, when, and for how long. */
export interface PlannedRun {
  serialNumber: string;
  plannedAt: string;
  seconds: number;
  /** Its plan's IANA zone: the robot's days are that zone's. */
  timezone: string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** An item as planned: the same name with another time, days or work is another item, in force from its own change. */
export function planItemKey(item: PlanItem, timezone: string): string {
  return JSON.stringify([timezone, item]);
}

/**
 * A listing with the occurrences other processes sharing the account settled
 * (Redis, robot-claims.ts) that this one does not know, each once; their zones
 * name their items where no plan of this process does.
 */
export function withSettledElsewhere(listing: OccurrenceListing, elsewhere: readonly SettledOccurrence[]): OccurrenceListing {
  const known = new Set(listing.settled.map((occurrence) => occurrence.occurrenceId));
  const added = elsewhere.filter((occurrence) => !known.has(occurrence.occurrenceId));
  if (added.length === 0) return listing;
  const zones = { ...listing.zones };
  for (const occurrence of added) if (occurrence.timezone !== undefined) zones[occurrence.item] ??= occurrence.timezone;
  return { ...listing, zones, settled: [...listing.settled, ...added].sort(byPlannedTime) };
}

function byPlannedTime(a: { plannedAt: string; occurrenceId: string }, b: { plannedAt: string; occurrenceId: string }): number {
  return (
    Date.parse(a.plannedAt) - Date.parse(b.plannedAt) || (a.occurrenceId < b.occurrenceId ? -1 : a.occurrenceId > b.occurrenceId ? 1 : 0)
  );
}

/** The plans of the account `accountKey` in this process. */
export function plansOfAccount(accountKey: string): AccountPlans {
  return keptForAccount(accountKey, "plans", () => new AccountPlans());
}
