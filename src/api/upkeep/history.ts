/**
 * An account's upkeep history: per robot, its wear parts' counter readings
 * over time, its cleaning time (from its task reports), the replacements
 * recorded, and its last upkeep facts. The forecast (forecast.ts) learns a
 * part's wear per cleaning hour from it.
 *
 * Fed in one place each, once something asked for the account's history
 * (upkeepHistoryOf): every status the account reads passes through
 * FleetStatuses.record (fleet-statuses.ts), which hands it to `observe`;
 * every task report kept passes through AccountReports.keep
 * (report-store.ts), which hands it to `observeReport`; what the two
 * stores kept before is handed over when the history is made. robot-upkeep
 * records replacements (`replaced`) and copies the history to its context
 * (`toPlain`, `restore`).
 *
 * Bounds: readings of the last 90 days (HISTORY_DAYS), one a part per hour
 * while its counter moves (a reading within the hour of the one before
 * replaces it), a run's first and last while it stands still; 5,000 robots, the one heard of
 * longest ago forgotten first. A counter that falls by 1 % of its life or
 * more (the cloud reset it) or changes its life span starts a new segment: wear is only ever read within
 * a segment, never as negative. Pure: no calls, no Node-RED.
 */
import { keptForAccount, keptIfAsked } from "../account/account-memory";
import { cloudTimeMs } from "../cloud/cloud-time";
import { numberOf } from "../cloud/values";
import type { ReadReport } from "../reports/reading";
import { reportedResidualsOf, shareLeft, type ReportedPart, type UpkeepFacts, type WearPart } from "./facts";

export const HISTORY_DAYS = 90;
export const MAX_UPKEEP_ROBOTS = 5000;
const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** A part's readings closer than this are thinned to the later one (the one before it stays). */
export const READING_SPACING_MS = HOUR_MS;
/** A counter that falls by less than this share of its life span is a stale reading, skipped; by this or more, the cloud reset it. */
export const STALE_FALL_SHARE = 0.01;
/** What toPlain writes to a context: one reading a part per day within a segment (its first and last kept), which keeps every segment's wear and hours. */
const PLAIN_READING_SPACING_MS = DAY_MS;

/** A part's readings, in parallel lists (a fleet's 90 days are millions of numbers: no object per reading). */
export interface PartTrack {
  /** When each reading was taken (ms since the epoch), ascending. */
  at: number[];
  /** The counter (usedLife; for a report's share, 1 - the share left). */
  used: number[];
  /** The life span at that reading (lifeSpan; 1 for a report's share). */
  life: number[];
  /** When replacements were recorded (ms), ascending. */
  replacements: number[];
}

/** A robot's cleaning time, one entry a report, in parallel lists ordered by end. */
export interface WorkTrack {
  /** The report's identity (reportKey): each report counted once. */
  key: string[];
  start: number[];
  end: number[];
  /** The report's durationSeconds: cleaning time, which a pause makes shorter than end - start. */
  seconds: number[];
}

export interface RobotHistory {
  /** The wear parts a status gives, by part. */
  parts: Map<WearPart, PartTrack>;
  /** The shares a task report gives (consumablesResidualPercentage), by part. */
  reported: Map<ReportedPart, PartTrack>;
  work: WorkTrack;
  /** The identities in work.key, to look up. */
  reportKeys: Set<string>;
  /** The last facts a status gave, and when. */
  latest?: { facts: UpkeepFacts; at: number };
}

function newTrack(): PartTrack {
  return { at: [], used: [], life: [], replacements: [] };
}

function newRobot(): RobotHistory {
  return { parts: new Map(), reported: new Map(), work: { key: [], start: [], end: [], seconds: [] }, reportKeys: new Set() };
}

/** Whether readings `index - 1` and `index` of a track are of one segment: no fall, no other life span, no replacement between. */
export function sameSegment(track: PartTrack, index: number): boolean {
  if (track.used[index]! < track.used[index - 1]! || track.life[index] !== track.life[index - 1]) return false;
  // A reading at a replacement's very time is the old part's.
  return !track.replacements.some((at) => at >= track.at[index - 1]! && at < track.at[index]!);
}

/**
 * Adds a reading, thinned: of three readings of one segment, the middle one
 * goes when the three are within READING_SPACING_MS or the counter stood
 * still across them (a part not used, or days without work, keeps a run's
 * first and last reading only, and its last one moves on, so its cleaning
 * hours still count against no wear).
 */
function addReading(track: PartTrack, at: number, used: number, life: number): void {
  const last = track.at.length - 1;
  if (last >= 0 && at <= track.at[last]!) return;
  // A counter a little under the last (another status shape read a moment behind) is a stale reading, not a reset.
  if (last >= 0 && life === track.life[last] && used < track.used[last]! && track.used[last]! - used < STALE_FALL_SHARE * life) return;
  track.at.push(at);
  track.used.push(used);
  track.life.push(life);
  const added = last + 1;
  if (added < 2 || !sameSegment(track, added - 1) || !sameSegment(track, added)) return;
  if (at - track.at[added - 2]! < READING_SPACING_MS || used === track.used[added - 2]) {
    track.at.splice(added - 1, 1);
    track.used.splice(added - 1, 1);
    track.life.splice(added - 1, 1);
  }
}

function pruneTrack(track: PartTrack, oldest: number): void {
  let drop = 0;
  while (drop < track.at.length - 1 && track.at[drop]! < oldest) drop++;
  if (drop > 0) {
    track.at.splice(0, drop);
    track.used.splice(0, drop);
    track.life.splice(0, drop);
  }
  while (track.replacements.length > 1 && track.replacements[0]! < oldest) track.replacements.shift();
}

/**
 * The counter's value a replacement left standing: until the cloud resets the
 * counter (it falls), the new part's use is the counter less its value when
 * the part was replaced. 0 when no replacement is recorded or the cloud reset the counter since.
 */
function counterOffsetOf(track: PartTrack): number {
  const replacedAt = track.replacements.at(-1);
  if (replacedAt === undefined) return 0;
  let before = -1;
  for (let index = 0; index < track.at.length; index++) {
    if (track.at[index]! <= replacedAt) before = index;
    else if (before >= 0 && track.used[index]! < track.used[index - 1]!) return 0;
  }
  return before >= 0 ? track.used[before]! : 0;
}

/** Share left at the track's last reading, 0-1, a replacement's offset taken off; undefined without a reading. */
export function remainingOf(track: PartTrack): number | undefined {
  const last = track.at.length - 1;
  if (last < 0) return undefined;
  return shareLeft(track.used[last]! - counterOffsetOf(track), track.life[last]!);
}

/** Cleaning hours of the robot's reports between two instants: each report's seconds, in the share of its span that falls between them. */
export function cleaningHoursBetween(work: WorkTrack, from: number, to: number): number {
  let seconds = 0;
  for (let index = 0; index < work.end.length; index++) {
    const [start, end] = [work.start[index]!, work.end[index]!];
    if (end <= start) {
      // A report with no span (its start unknown): its time counts where it ended.
      if (end > from && end <= to) seconds += work.seconds[index]!;
      continue;
    }
    const overlap = Math.min(end, to) - Math.max(start, from);
    if (overlap > 0) seconds += (work.seconds[index]! * overlap) / (end - start);
  }
  return seconds / 3600;
}

export class UpkeepHistory {
  /** Least recently heard of first. */
  private readonly robots = new Map<string, RobotHistory>();

  constructor(private readonly capacity = MAX_UPKEEP_ROBOTS) {}

  private robotFor(serialNumber: string): RobotHistory {
    let robot = this.robots.get(serialNumber);
    if (robot) this.robots.delete(serialNumber);
    this.robots.set(serialNumber, (robot ??= newRobot()));
    while (this.robots.size > this.capacity) this.robots.delete(this.robots.keys().next().value!);
    return robot;
  }

  /** A status's upkeep facts (upkeepFactsOf), read at `at` (ms): each wear part's counter is a reading. Undefined facts are nothing. */
  observe(serialNumber: string, facts: UpkeepFacts | undefined, at: number): void {
    if (!facts) return;
    const robot = this.robotFor(serialNumber);
    if (robot.latest && robot.latest.at > at) return;
    robot.latest = { facts, at };
    for (const part of facts.parts) {
      let track = robot.parts.get(part.part);
      if (!track) robot.parts.set(part.part, (track = newTrack()));
      addReading(track, at, part.usedLife, part.lifeSpan);
    }
    this.prune(serialNumber, at);
  }

  /** A task report (readReport): its cleaning time once (by its identity), and its residual shares as readings at its end. */
  observeReport(report: ReadReport): void {
    const end = cloudTimeMs(report.endTime);
    const start = cloudTimeMs(report.startTime);
    const seconds = numberOf(report.durationSeconds);
    const [from, to] = [start ?? (end !== undefined && seconds !== undefined ? end - seconds * 1000 : undefined), end];
    if (from === undefined || to === undefined || to < from) return;
    const robot = this.robotFor(report.serialNumber);
    if (robot.reportKeys.has(report.reportKey)) return;
    addWork(robot, report.reportKey, from, to, seconds !== undefined && seconds >= 0 ? seconds : (to - from) / 1000);
    for (const { part, remaining } of reportedResidualsOf(report)) {
      let track = robot.reported.get(part);
      if (!track) robot.reported.set(part, (track = newTrack()));
      addReading(track, to, 1 - remaining, 1);
    }
    this.prune(report.serialNumber, Math.max(to, robot.latest?.at ?? to));
  }

  /** A person replaced the robot's part at `at` (ms): the part's wear starts again from there, whatever the cloud's counter says until it is reset. */
  replaced(serialNumber: string, part: WearPart | ReportedPart, at: number): void {
    const robot = this.robotFor(serialNumber);
    for (const tracks of [robot.parts, robot.reported] as Map<string, PartTrack>[]) {
      let track = tracks.get(part);
      // A replacement of a part no reading named yet is kept for the readings to come (the status's parts first).
      if (!track && tracks === robot.parts && !robot.reported.has(part as ReportedPart)) tracks.set(part, (track = newTrack()));
      if (!track) continue;
      let index = track.replacements.length;
      while (index > 0 && track.replacements[index - 1]! > at) index--;
      track.replacements.splice(index, 0, at);
    }
  }

  /** What is known of the robot; undefined when nothing is. The lists are the history's own: read them, do not change them. */
  of(serialNumber: string): RobotHistory | undefined {
    return this.robots.get(serialNumber);
  }

  serialNumbers(): string[] {
    return [...this.robots.keys()];
  }

  /** Forgets the robot's readings, reports and replacements older than HISTORY_DAYS before `now`. */
  private prune(serialNumber: string, now: number): void {
    const robot = this.robots.get(serialNumber)!;
    const oldest = now - HISTORY_DAYS * DAY_MS;
    for (const track of [...robot.parts.values(), ...robot.reported.values()]) pruneTrack(track, oldest);
    const { work } = robot;
    let drop = 0;
    while (drop < work.end.length && work.end[drop]! < oldest) drop++;
    if (drop === 0) return;
    for (const key of work.key.splice(0, drop)) robot.reportKeys.delete(key);
    for (const list of [work.start, work.end, work.seconds]) list.splice(0, drop);
  }

  /** The history as plain JSON for a context, the readings thinned to one a part per day within a segment (PLAIN_READING_SPACING_MS). */
  toPlain(serialNumbers: Iterable<string> = this.robots.keys()): PlainUpkeepHistory {
    const robots: PlainUpkeepHistory["robots"] = {};
    for (const serialNumber of serialNumbers) {
      const robot = this.robots.get(serialNumber);
      if (!robot) continue;
      robots[serialNumber] = {
        parts: Object.fromEntries([...robot.parts].map(([part, track]) => [part, plainTrack(track)])),
        reported: Object.fromEntries([...robot.reported].map(([part, track]) => [part, plainTrack(track)])),
        work: structuredClone(robot.work),
        ...(robot.latest ? { latest: structuredClone(robot.latest) } : {}),
      };
    }
    return { version: 1, robots };
  }

  /**
   * Takes back what toPlain gave (a context's copy, after a restart), read
   * field by field, under what this process heard already (reads that came
   * before the copy was read): a part's readings older than its first here,
   * the replacements and reports this process does not have, the newer facts.
   */
  restore(plain: unknown): void {
    const robots = (plain as Partial<PlainUpkeepHistory> | undefined)?.robots;
    if (typeof robots !== "object" || robots === null) return;
    for (const [serialNumber, entry] of Object.entries(robots)) {
      if (typeof entry !== "object" || entry === null) continue;
      const known = this.robots.get(serialNumber);
      const robot = known ?? newRobot();
      for (const [tracks, copies] of [
        [robot.parts, entry.parts],
        [robot.reported, entry.reported],
      ] as [Map<string, PartTrack>, Record<string, unknown> | undefined][])
        for (const [part, copy] of Object.entries(copies ?? {})) {
          const older = trackOf(copy);
          if (older) tracks.set(part, mergedTrack(older, tracks.get(part)));
        }
      const work = entry.work;
      if (texts(work?.key) && numbers(work.start) && numbers(work.end) && numbers(work.seconds))
        work.key.forEach((key, index) => {
          if (!robot.reportKeys.has(key) && index < work.start.length && index < work.end.length && index < work.seconds.length)
            addWork(robot, key, work.start[index]!, work.end[index]!, work.seconds[index]!);
        });
      const latest = entry.latest;
      if (typeof latest?.at === "number" && Array.isArray(latest.facts?.parts) && !(robot.latest && robot.latest.at >= latest.at))
        robot.latest = structuredClone(latest);
      if (!known) this.robots.set(serialNumber, robot);
    }
    while (this.robots.size > this.capacity) this.robots.delete(this.robots.keys().next().value!);
  }
}

/** Counts a report's cleaning time, in its place by end. */
function addWork(robot: RobotHistory, key: string, from: number, to: number, seconds: number): void {
  const { work } = robot;
  let index = work.end.length;
  while (index > 0 && work.end[index - 1]! > to) index--;
  work.key.splice(index, 0, key);
  work.start.splice(index, 0, from);
  work.end.splice(index, 0, to);
  work.seconds.splice(index, 0, seconds);
  robot.reportKeys.add(key);
}

/** A context's copy of a part under the readings this process took since: the copy's readings before the first here, every replacement once. */
function mergedTrack(copy: PartTrack, here: PartTrack | undefined): PartTrack {
  if (!here) return copy;
  const before = copy.at.findIndex((at) => at >= (here.at[0] ?? Infinity));
  const keep = before < 0 ? copy.at.length : before;
  return {
    at: [...copy.at.slice(0, keep), ...here.at],
    used: [...copy.used.slice(0, keep), ...here.used],
    life: [...copy.life.slice(0, keep), ...here.life],
    replacements: [...new Set([...copy.replacements, ...here.replacements])].sort((a, b) => a - b),
  };
}

/** A context's copy: PartTracks thinned (plainTrack). */
export interface PlainUpkeepHistory {
  version: 1;
  robots: Record<
    string,
    {
      parts: Record<string, PartTrack>;
      reported: Record<string, PartTrack>;
      work: WorkTrack;
      latest?: { facts: UpkeepFacts; at: number };
    }
  >;
}

function texts(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === "string");
}

function numbers(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === "number" && Number.isFinite(entry));
}

function plainTrack(track: PartTrack): PartTrack {
  const plain: PartTrack = { at: [], used: [], life: [], replacements: [...track.replacements] };
  const count = track.at.length;
  for (let index = 0; index < count; index++) {
    const segmentEdge = index === 0 || index === count - 1 || !sameSegment(track, index) || !sameSegment(track, index + 1);
    if (!segmentEdge && track.at[index]! - plain.at.at(-1)! < PLAIN_READING_SPACING_MS) continue;
    plain.at.push(track.at[index]!);
    plain.used.push(track.used[index]!);
    plain.life.push(track.life[index]!);
  }
  return plain;
}

function trackOf(value: unknown): PartTrack | undefined {
  const track = value as Partial<PartTrack> | undefined;
  if (!numbers(track?.at) || !numbers(track.used) || !numbers(track.life) || !numbers(track.replacements)) return undefined;
  if (track.at.length !== track.used.length || track.at.length !== track.life.length || track.life.some((life) => life <= 0))
    return undefined;
  const { at } = track;
  if (at.some((time, index) => index > 0 && time <= at[index - 1]!)) return undefined;
  return { at: [...track.at], used: [...track.used], life: [...track.life], replacements: [...track.replacements] };
}

const KIND = "upkeep";

/**
 * The upkeep history of the account `accountKey`, the same object for every
 * node of it in this process. The account's reads feed it from the first time
 * it is asked for (robot-upkeep, the console's upkeep view, the bridge's part
 * sensors): an account nobody asks of upkeep spends no memory on it.
 */
export function upkeepHistoryOf(accountKey: string): UpkeepHistory {
  const asked = upkeepHistoryIfAsked(accountKey);
  if (asked) return asked;
  const history = keptForAccount(accountKey, KIND, () => new UpkeepHistory());
  for (const feed of alreadyKeptFeeds) feed(accountKey);
  return history;
}

/**
 * What hands a history just made what the account kept before anyone asked,
 * through the way it feeds the history from then on: the statuses' and the
 * reports' stores register here (they import this module, so it cannot
 * import them). A report kept first still counts.
 */
const alreadyKeptFeeds: ((accountKey: string) => void)[] = [];

export function feedsUpkeepHistory(feed: (accountKey: string) => void): void {
  alreadyKeptFeeds.push(feed);
}

/** The account's upkeep history where something asked for it, else undefined: what the account's reads feed. */
export function upkeepHistoryIfAsked(accountKey: string): UpkeepHistory | undefined {
  return keptIfAsked(accountKey, KIND);
}
