/**
 * What a real status shows of a navigation (docs/cloud-api.md, "What a status
 * shows of a navigation"): the v1 status' navStatus (NAVI_IDLE when none runs;
 * no other value is published, so any other counts as navigating), the robot's
 * grid cell (localizationInfo.mapPosition) and the grid cells of its map's
 * navigation points (the S-line status' navigationPoints). No status says
 * where a navigation goes or that it arrived: that is read from these, and
 * followed across polls by a NavigationFollower. Pure: no calls.
 */
import { keptForAccount } from "../account/account-memory";
import { CHARGING_POINT } from "../cloud/commands";
import type { GridPoint, StatusReading } from "./status-reader";

/** navStatus while no navigation runs: the only value the cloud was seen to send. */
export const NAVI_IDLE = "NAVI_IDLE";

/**
 * How close (in grid cells, pixels of the map image) a robot must come to a
 * navigation point to have arrived: 10 cells is 0.5 m at the 0.05 m per cell
 * real maps were seen with. robot-config's arrivalRadius sets it per account.
 */
export const DEFAULT_ARRIVAL_RADIUS_CELLS = 10;

/** A move shorter than this (grid cells) is a robot at rest jittering, not driving. */
export const MOVE_CELLS = 1;

/** What following a navigation needs of a status (a StatusReading, or a job's RobotFacts). */
export type NavigationSight = Pick<StatusReading, "navStatus" | "navigationPoints"> & { position?: GridPoint };

/** Whether the status says a navigation runs: navStatus other than NAVI_IDLE; undefined when it carries no navStatus. */
export function isNavigating(sight: Pick<StatusReading, "navStatus">): boolean | undefined {
  return sight.navStatus === undefined ? undefined : sight.navStatus !== NAVI_IDLE;
}

/** The grid cell of the navigation point `name`, where the status lists it with one. */
export function pointCellOf(sight: NavigationSight, name: string | undefined): GridPoint | undefined {
  return name === undefined ? undefined : sight.navigationPoints?.find((point) => point.name === name && point.grid)?.grid;
}

/** Grid cells from the robot to the point `name`, or undefined when the status places either not. */
export function cellsToPoint(sight: NavigationSight, name: string | undefined): number | undefined {
  const cell = pointCellOf(sight, name);
  return cell && sight.position ? Math.hypot(sight.position.x - cell.x, sight.position.y - cell.y) : undefined;
}

/** What the statuses seen so far show of one navigation. */
export type NavigationProgress =
  | { phase: "notSeen" }
  /** Under way: navStatus left NAVI_IDLE, or the robot came closer to the point. */
  | { phase: "underWay"; shown: string }
  /** At the point: within the arrival radius, or navStatus NAVI_IDLE again (and the robot not shown away from the point). */
  | { phase: "arrived"; shown: string }
  /** navStatus NAVI_IDLE again with the robot outside the radius of its point: stopped or given up, not arrived. */
  | { phase: "endedAway"; shown: string };

const round = (cells: number) => Math.round(cells * 10) / 10;

/**
 * One navigation to a point, followed status by status: made for one wait or
 * one job and fed that robot's statuses in the order they were read, since
 * "left NAVI_IDLE, then back" and "came closer" need the earlier statuses.
 */
export class NavigationFollower {
  private leftIdle = false;
  private startSeen = false;
  private firstCells: number | undefined;
  /** Whether any status placed the point and the robot, or carried navStatus: what arrival can be seen from. */
  private sawCells = false;
  private sawNavStatus = false;

  constructor(
    /** The navigation point's name; undefined when the command named none (a resumed navigation). */
    readonly point: string | undefined,
    /** Grid cells (see DEFAULT_ARRIVAL_RADIUS_CELLS). */
    readonly arrivalRadius: number = DEFAULT_ARRIVAL_RADIUS_CELLS,
  ) {}

  /** Takes the next status of the robot and says what the statuses so far show. */
  see(sight: NavigationSight): NavigationProgress {
    const progress = this.progressOf(sight);
    if (progress.phase !== "notSeen") this.startSeen = true;
    return progress;
  }

  /** Whether a status showed this navigation under way, arrived or ended. */
  get started(): boolean {
    return this.startSeen;
  }

  private progressOf(sight: NavigationSight): NavigationProgress {
    const navigating = isNavigating(sight);
    const cells = cellsToPoint(sight, this.point);
    if (navigating !== undefined) this.sawNavStatus = true;
    if (cells !== undefined) this.sawCells = true;
    const endedNow = navigating === false && this.leftIdle;
    if (navigating === true) this.leftIdle = true;
    const arrived = { phase: "arrived", shown: this.point === undefined ? "ARRIVED" : `ARRIVED at ${this.point}` } as const;
    if (cells !== undefined && cells <= this.arrivalRadius) return arrived;
    if (endedNow) return cells === undefined ? arrived : { phase: "endedAway", shown: `ENDED ${round(cells)} cells from ${this.point}` };
    if (navigating === true) return { phase: "underWay", shown: "NAVIGATING" };
    if (cells !== undefined) {
      // The first status placing both is where the robot stood when the wait began: coming closer than that is driving there.
      this.firstCells ??= cells;
      if (this.firstCells - cells >= MOVE_CELLS) return { phase: "underWay", shown: "NAVIGATING" };
    }
    return { phase: "notSeen" };
  }

  /** What arrival is waited for, in words, from what the statuses so far could show. */
  expectsArrival(): string {
    const at = this.point === undefined ? "the navigation's end" : `arrival at "${this.point}"`;
    const radius = `within ${this.arrivalRadius} cells of the point's grid position`;
    const back = `navStatus leaving ${NAVI_IDLE} and coming back to it`;
    if (this.sawCells) return `${at}: ${radius}`;
    if (this.sawNavStatus) return `${at}: ${back}`;
    return `${at}: ${radius}, or ${back}; no status read so far placed the point or carried navStatus`;
  }
}

/** Whether the robot moved between the last two statuses that placed it: what a paused or stopped navigation shows. */
export class MoveWatch {
  private last: GridPoint | undefined;

  /** "moving" or "still" against the previous status that placed the robot; undefined until two have. */
  see(sight: { position?: GridPoint }): "moving" | "still" | undefined {
    const { position } = sight;
    if (!position) return undefined;
    const previous = this.last;
    this.last = { x: position.x, y: position.y };
    if (!previous) return undefined;
    return Math.hypot(position.x - previous.x, position.y - previous.y) >= MOVE_CELLS ? "moving" : "still";
  }
}

/** Robots whose last sent navigation is kept per account; past this the oldest is forgotten. */
const SENT_NAVIGATIONS_KEPT = 5000;

/**
 * The navigation point each robot of an account was last sent to by this
 * process (an accepted CROSS_NAVIGATE): no status says where a navigation
 * goes, and the pause, resume and stop of a navigation name its point.
 */
export class SentNavigations {
  private readonly points = new Map<string, { map?: string; position: string }>();
  /**
   * Navigations sent and not yet seen to end, with when they were sent: what a
   * console shows as "to <point>". `stoppingTask`: a return to the charger
   * whose first step, stopping the robot's task, is under way (to-charger.ts).
   */
  private readonly underWay = new Map<string, { position: string; sentAt: number; stoppingTask?: boolean }>();

  /**
   * Keeps the point of an accepted command body, when it is a CROSS_NAVIGATE
   * with one; any other command to the robot (a task, a stop) ends the
   * navigation shown under way.
   */
  noteSent(body: unknown, now: number = Date.now()): void {
    const command = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
    const parameter = (command.commandParameter as { startNavigationParameter?: { map?: unknown; position?: unknown } } | undefined)
      ?.startNavigationParameter;
    const serialNumber = command.serialNumber;
    if (typeof serialNumber !== "string") return;
    const type = command.remoteNavigationCommandType;
    if (type !== "CROSS_NAVIGATE" || typeof parameter?.position !== "string") {
      if (type !== "PAUSE_NAVIGATE" && type !== "RESUME_NAVIGATE") this.underWay.delete(serialNumber);
      return;
    }
    this.points.delete(serialNumber);
    this.points.set(serialNumber, { position: parameter.position, ...(typeof parameter.map === "string" ? { map: parameter.map } : {}) });
    this.underWay.delete(serialNumber);
    this.underWay.set(serialNumber, { position: parameter.position, sentAt: now });
    for (const kept of [this.points, this.underWay]) while (kept.size > SENT_NAVIGATIONS_KEPT) kept.delete(kept.keys().next().value!);
  }

  /**
   * A return to the charger begun by stopping the robot's task: shown on its
   * way to the charger from now (its task's end is no end of it), so Home
   * Assistant's state goes from cleaning to returning without an idle between.
   */
  noteReturnBegun(serialNumber: string, now: number = Date.now()): void {
    this.underWay.delete(serialNumber);
    this.underWay.set(serialNumber, { position: CHARGING_POINT, sentAt: now, stoppingTask: true });
    while (this.underWay.size > SENT_NAVIGATIONS_KEPT) this.underWay.delete(this.underWay.keys().next().value!);
  }

  /** A return begun by noteReturnBegun that ends before its navigation is sent (the stop not carried out). */
  forgetReturn(serialNumber: string): void {
    if (this.underWay.get(serialNumber)?.stoppingTask) this.underWay.delete(serialNumber);
  }

  /** Where the robot was last sent, if this process sent it somewhere. */
  lastSent(serialNumber: string): { map?: string; position: string } | undefined {
    return this.points.get(serialNumber);
  }

  /**
   * The point the robot is on its way to, as far as this process knows: a
   * navigation it sent that no status has shown to end yet. It ends when the
   * robot stands within `arrivalRadius` cells of the point, charges after
   * being sent to the charger, runs or pauses a task, is offline, or after
   * NAVIGATION_SHOWN_MS with none of these (real statuses never say that a
   * navigation runs: navStatus is NAVI_IDLE in every recorded answer).
   */
  destinationOf(serialNumber: string, reading: StatusReading, arrivalRadius: number, now: number = Date.now()): string | undefined {
    const sent = this.underWay.get(serialNumber);
    if (!sent) return undefined;
    const cells = cellsToPoint(reading, sent.position);
    const ended =
      now - sent.sentAt >= NAVIGATION_SHOWN_MS ||
      reading.online === false ||
      (!sent.stoppingTask && (reading.taskState === "RUNNING" || reading.taskState === "PAUSED")) ||
      (sent.position === CHARGING_POINT && reading.charging === true) ||
      (cells !== undefined && cells <= arrivalRadius);
    if (!ended) return sent.position;
    this.underWay.delete(serialNumber);
    return undefined;
  }
}

/** A navigation no status shows to end is shown under way this long at most. */
export const NAVIGATION_SHOWN_MS = 30 * 60_000;

/** The sent navigations of the account `accountKey` (RobotClient.accountKey). */
export function sentNavigationsOf(accountKey: string): SentNavigations {
  return keptForAccount(accountKey, "sent navigations", () => new SentNavigations());
}
