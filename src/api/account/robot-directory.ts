/**
 * The account's robots as the robot list names them (GET /v1alpha1/robots:
 * docs/cloud-api.md, "The robot directory"). Real statuses carry no display
 * name, model or software version, so every place that shows a robot reads
 * them here, with the serial number as the fallback. Kept per account in the
 * package's memory (a redeploy keeps it); read when the account starts, every
 * interval after, and at once (at most once a minute) when a status or a push
 * names a robot the list did not; where the account is shared through Redis,
 * one instance reads for all of them per interval and the others take its read.
 */
import { keptForAccount } from "./account-memory";
import { textOf } from "../cloud/values";
import { invalidInput } from "../errors";
import { SERIAL_NUMBER_PATTERN } from "../settings/input-rules";
import { inputProblem } from "../settings/input-problems";

/** What the robot list says of one robot, as the package uses it. */
export interface DirectoryEntry {
  serialNumber: string;
  displayName?: string;
  modelFamilyCode?: string;
  modelTypeCode?: string;
  softwareVersion?: string;
}

/** One read of the whole list and when it was made (ms since the epoch), as instances of a shared account pass it on. */
export interface DirectoryRead {
  at: number;
  robots: DirectoryEntry[];
}

/** The robot list shared between the instances of an account (src/api/sharing/shared-directory.ts). */
export interface DirectoryShare {
  /** The last read any instance saved, if any. */
  load(): Promise<DirectoryRead | undefined>;
  /** True when this instance is the one to read the list now (no other is reading it), for at most `forMs`. */
  claimRead(forMs: number): Promise<boolean>;
  save(read: DirectoryRead): Promise<void>;
  /** Lets go of a claim to read (after saving, or after a failed read). */
  releaseRead(): void;
}

/** What the directory needs of a client: the robot list through the account's engine, and its sharing. */
export interface RobotListSource {
  listAllRobots(options: { callClass: "sweep"; signal?: AbortSignal }): Promise<readonly Record<string, unknown>[]>;
  readonly sharing?: { directory?: DirectoryShare } | undefined;
}

export const DEFAULT_DIRECTORY_INTERVAL_MS = 10 * 60_000;
/**
 * A robot the list did not name brings a read at once, but no more often than
 * this; a list read less than this ago is fresh enough to refuse a robot it
 * does not name (membershipOf).
 */
export const UNKNOWN_ROBOT_READ_GAP_MS = 60_000;

/** Whether a robot is the account's: "cannotTell" when the list was never read or its last read failed. */
export type Membership = "ofAccount" | "notOfAccount" | "cannotTell";
/** How long an instance of a shared account holds the right to read the list (a read takes seconds). */
const SHARED_READ_CLAIM_MS = 30_000;
/** An instance that lost the claim looks for the winner's read this often, for at most SHARED_READ_WAIT_MS. */
const SHARED_READ_LOOK_EVERY_MS = 100;
const SHARED_READ_WAIT_MS = 5_000;

/** The entry of one robot of the list (undefined for one with no serial number). */
export function directoryEntryOf(robot: Record<string, unknown>): DirectoryEntry | undefined {
  const serialNumber = textOf(robot.serialNumber);
  if (serialNumber === undefined) return undefined;
  const entry: DirectoryEntry = { serialNumber };
  for (const field of ["displayName", "modelFamilyCode", "modelTypeCode", "softwareVersion"] as const) {
    const value = textOf(robot[field]);
    if (value !== undefined) entry[field] = value;
  }
  return entry;
}

export class RobotDirectory {
  private robots = new Map<string, DirectoryEntry>();
  /** When the list in hand was read (0: never). */
  private readAt = 0;
  private lastUnknownReadAt = Number.NEGATIVE_INFINITY;
  /** When the last read was started, whatever came of it. */
  private lastTriedAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;
  private readonly sources: { source: RobotListSource; intervalMs: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The robot's entry, when the list named it. */
  entryOf(serialNumber: string): DirectoryEntry | undefined {
    return this.robots.get(serialNumber);
  }

  /** The robot's display name, else its serial number. */
  nameOf(serialNumber: string): string {
    return this.robots.get(serialNumber)?.displayName ?? serialNumber;
  }

  /**
   * Whether the account has the robot. A robot the list names is answered at
   * once (a Map lookup, no promise). One it does not name is refused only by
   * a list read less than UNKNOWN_ROBOT_READ_GAP_MS ago: an older list is
   * read again first (at most once per gap, for every node of the account,
   * so a typo in every message costs one read), so a robot just added to the
   * account is not refused. With no list that young, nor a read allowed,
   * the answer is "cannotTell"; likewise from a list that names no robot at
   * all (no account commands robots it cannot list: such a list says
   * nothing of a serial number, and refusing every robot on it would stop
   * the account whole).
   */
  membershipOf(serialNumber: string): Membership | Promise<Membership> {
    if (this.robots.has(serialNumber)) return "ofAccount";
    const judged = (): Membership =>
      this.robots.has(serialNumber) ? "ofAccount" : this.isFresh() && this.robots.size > 0 ? "notOfAccount" : "cannotTell";
    if (this.isFresh()) return judged();
    const reading = this.reading ?? this.readForUnknown();
    return reading ? reading.then(judged) : "cannotTell";
  }

  /** The serial numbers of `serialNumbers` that membershipOf refuses; at once (no promise) when the list names them all. */
  robotsNotOfAccount(serialNumbers: readonly string[]): string[] | Promise<string[]> {
    const unnamed = serialNumbers.filter((serialNumber) => !this.robots.has(serialNumber));
    if (unnamed.length === 0) return [];
    const refused = (answers: readonly Membership[]) => unnamed.filter((_, index) => answers[index] === "notOfAccount");
    const answers = unnamed.map((serialNumber) => this.membershipOf(serialNumber));
    if (!answers.some((answer) => answer instanceof Promise)) return refused(answers as Membership[]);
    return Promise.all(answers.map((answer) => Promise.resolve(answer))).then(refused);
  }

  /** The list in hand was read less than UNKNOWN_ROBOT_READ_GAP_MS ago. */
  private isFresh(): boolean {
    return this.readAt !== 0 && this.now() - this.readAt < UNKNOWN_ROBOT_READ_GAP_MS;
  }

  /** A read for a robot the list did not name, unless one was started within the gap (or nothing can read). */
  private readForUnknown(): Promise<void> | undefined {
    if (this.sources.length === 0 || this.now() - this.lastUnknownReadAt < UNKNOWN_ROBOT_READ_GAP_MS) return undefined;
    this.lastUnknownReadAt = this.now();
    // Another instance's read that young serves as well (a shared account).
    return this.refresh(UNKNOWN_ROBOT_READ_GAP_MS);
  }

  entries(): DirectoryEntry[] {
    return [...this.robots.values()];
  }

  /** When the list in hand was read (ms since the epoch), 0 before any read. */
  get readTime(): number {
    return this.readAt;
  }

  /** Settles when a read under way ends (at once when none is): a picture drawn just after a deploy shows names, not serial numbers. */
  settled(): Promise<void> {
    return this.reading ?? Promise.resolve();
  }

  /** Called after each change of the list; answers the way to stop. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A whole robot list read `at` (by the directory or by anyone who listed the robots): it replaces the list in hand unless older. */
  learn(robots: readonly Record<string, unknown>[], at: number = this.now()): void {
    if (at < this.readAt) return;
    const next = new Map<string, DirectoryEntry>();
    for (const robot of robots) {
      const entry = directoryEntryOf(robot);
      if (entry) next.set(entry.serialNumber, entry);
    }
    const changed =
      next.size !== this.robots.size || [...next].some(([serialNumber, entry]) => !sameEntry(this.robots.get(serialNumber), entry));
    this.robots = next;
    this.readAt = at;
    if (changed) for (const listener of this.listeners) listener();
  }

  /**
   * Serial numbers a status or a push named: one the list does not know
   * brings a read at once, unless such a read was started within the last
   * minute (a robot the list does not name at all must not read it each poll).
   */
  notice(serialNumbers: Iterable<string>): void {
    if (this.sources.length === 0) return;
    if (this.reading) {
      // The read under way may name them: asked again once it is in, so it does not spend the minute.
      const named = [...serialNumbers];
      void this.reading.then(() => this.notice(named));
      return;
    }
    for (const serialNumber of serialNumbers) {
      if (serialNumber === "" || this.robots.has(serialNumber)) continue;
      if (this.now() - this.lastUnknownReadAt < UNKNOWN_ROBOT_READ_GAP_MS) return;
      this.lastUnknownReadAt = this.now();
      // However young the list in hand: it does not name this robot.
      void this.refresh(0);
      return;
    }
  }

  /**
   * A robot-config of the account starts: the list is read now unless the
   * one in hand is younger than the interval (a redeploy does not read it
   * again), then every interval. Answers the way to stop (the config closes);
   * the last one stopped ends the reading.
   */
  attach(source: RobotListSource, intervalMs: number = DEFAULT_DIRECTORY_INTERVAL_MS): () => void {
    const attached = { source, intervalMs };
    this.sources.push(attached);
    this.schedule();
    return () => {
      const index = this.sources.indexOf(attached);
      if (index >= 0) this.sources.splice(index, 1);
      if (this.sources.length === 0) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
    };
  }

  private get intervalMs(): number {
    return Math.min(...this.sources.map((attached) => attached.intervalMs));
  }

  /**
   * The next read when the list in hand reaches the interval's age (now, when
   * it already has); after a read that brought nothing new (the cloud failed,
   * or another instance had not saved yet), a minute after that try.
   */
  private schedule(): void {
    clearTimeout(this.timer);
    if (this.sources.length === 0) return;
    const intervalMs = this.intervalMs;
    const neverRead = this.readAt === 0 && this.lastTriedAt < 0;
    const dueAt = neverRead ? 0 : Math.max(this.readAt + intervalMs, this.lastTriedAt + Math.min(UNKNOWN_ROBOT_READ_GAP_MS, intervalMs));
    const read = () => void this.refresh(intervalMs).finally(() => this.schedule());
    // The first read starts at once, so that settled() waits for it from the account's start on.
    if (neverRead) return read();
    this.timer = setTimeout(read, Math.max(0, dueAt - this.now()));
    this.timer.unref?.();
  }

  /**
   * Makes the list in hand at most `maxAgeMs` old: a shared account first
   * takes another instance's read that young, and reads only when it wins
   * the claim to read (Redis failing means reading for itself). Failures are
   * kept quiet: the names in hand stay, and the serial number is the fallback.
   */
  refresh(maxAgeMs: number): Promise<void> {
    if (this.readAt !== 0 && this.now() - this.readAt < maxAgeMs) return Promise.resolve();
    this.reading ??= this.read(maxAgeMs).finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read(maxAgeMs: number): Promise<void> {
    const source = this.sources[0]?.source;
    if (!source) return;
    this.lastTriedAt = this.now();
    const share = source.sharing?.directory;
    if (share) {
      if (await this.adoptShared(share, maxAgeMs)) return;
      const mine = await share.claimRead(SHARED_READ_CLAIM_MS).catch(() => true);
      if (!mine) {
        const before = this.readAt;
        for (
          let waited = 0;
          waited < SHARED_READ_WAIT_MS && this.readAt === before && this.sources.length > 0;
          waited += SHARED_READ_LOOK_EVERY_MS
        ) {
          await new Promise((resolve) => setTimeout(resolve, SHARED_READ_LOOK_EVERY_MS).unref?.());
          await this.adoptShared(share, Number.POSITIVE_INFINITY);
        }
        return;
      }
    }
    const at = this.now();
    try {
      const robots = await source.listAllRobots({ callClass: "sweep" }).catch(() => undefined);
      if (!robots) return;
      this.learn(robots, at);
      await share?.save({ at, robots: this.entries() }).catch(() => undefined);
    } finally {
      share?.releaseRead();
    }
  }

  /** Takes the shared read when it is younger than `maxAgeMs` and newer than the list in hand; true when it did. */
  private async adoptShared(share: DirectoryShare, maxAgeMs: number): Promise<boolean> {
    const shared = await share.load().catch(() => undefined);
    if (!shared || this.now() - shared.at >= maxAgeMs) return false;
    this.learn(shared.robots as unknown as Record<string, unknown>[], shared.at);
    return true;
  }
}

function sameEntry(a: DirectoryEntry | undefined, b: DirectoryEntry): boolean {
  return (
    a !== undefined &&
    a.displayName === b.displayName &&
    a.modelFamilyCode === b.modelFamilyCode &&
    a.modelTypeCode === b.modelTypeCode &&
    a.softwareVersion === b.softwareVersion
  );
}

/** The account's directory (one per account in this process, across redeploys). */
export function robotDirectoryOf(accountKey: string): RobotDirectory {
  return keptForAccount(accountKey, "robot directory", () => new RobotDirectory());
}

/**
 * Refuses robots the account does not have where a flow names them: an
 * INVALID_INPUT naming `field` and the first such serial number (membershipOf),
 * and the plan item that names it when there is one.
 * Only serial numbers of the right form are asked (a wrong one is its own
 * rule's to refuse). Answers at once, with no promise, when the list names
 * them all: robot-command's every message passes here.
 */
export function refuseRobotsNotOfAccount(
  accountKey: string,
  field: string,
  named: readonly unknown[],
  item?: string,
): void | Promise<void> {
  const serialNumbers = named.filter((value): value is string => typeof value === "string" && SERIAL_NUMBER_PATTERN.test(value));
  const refused = robotDirectoryOf(accountKey).robotsNotOfAccount(serialNumbers);
  const refuse = (notOfAccount: readonly string[]) => {
    if (notOfAccount.length === 0) return;
    const serialNumber = notOfAccount[0]!;
    throw invalidInput(
      field,
      item === undefined ? inputProblem("notOfAccount", { serialNumber }) : inputProblem("itemNotOfAccount", { serialNumber, item }),
    );
  };
  return Array.isArray(refused) ? refuse(refused) : refused.then(refuse);
}

/** The name to show for a robot of the account: the robot list's display name, else its serial number. */
export function robotNameOf(accountKey: string, serialNumber: string): string {
  return robotDirectoryOf(accountKey).nameOf(serialNumber);
}
