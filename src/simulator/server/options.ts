/** What the simulator is started with, and what a running one offers its caller. */
import type { Faults, FaultsUpdate } from "../faults/faults";
import type { FleetSeed, SimRobot } from "../world/fleet";
import type { CommandResource } from "../../api/cloud/schemas";
import type { PushState, PushTarget } from "../pushes/pushes";
import type { PastReport } from "../world/task-reports";
import type { Timing } from "../world/timing";
import type { z } from "zod";
import type { RobotChanges, WearChanges, WearQuery } from "./control-requests";
import type { WearTruth } from "../world/wear";

export interface RateLimit {
  /** Requests allowed per token in each window. */
  requests: number;
  windowMs: number;
}

export interface SimulatorOptions {
  /** 0 picks a free port. Default 0. */
  port?: number;
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Robots, sites and accounts; POST /_sim/reset goes back to it. Default: the demo fleet. */
  fleet?: FleetSeed;
  /** Access tokens of the fleet's first account (the demo account), replacing its seeded ones. */
  tokens?: string[];
  /** Per-token rate limit; false turns it off. Default 20 requests per second (docs/cloud-api.md). */
  rateLimit?: RateLimit | false;
  faults?: Partial<Faults>;
  /** Seed of the fault dice. Default 1. */
  seed?: number;
  /** No log lines at all. */
  quiet?: boolean;
  /** Log lines only for requests that did not succeed (errors, faults, refusals), not for each 2xx answer. */
  logFailuresOnly?: boolean;
  /** Receives one line per request (method, path, outcome, ms); never the token. Default: console.log. */
  log?: (line: string) => void;
  /** Clock of token expiry, rate-limit windows and timestamps. Default Date.now. */
  now?: () => number;
  /** Lifetime of granted tokens. Default 24 h (docs/cloud-api.md). */
  tokenLifetimeMs?: number;
  /** Larger request bodies are answered 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Older commands are forgotten past this many per robot. Default 200. */
  maxCommandsPerRobot?: number;
  /** How long a map image's pre-signed download URL works. Default 10 minutes. */
  downloadUrlLifetimeMs?: number;
  /**
   * How robots behave over time: command delay, navigation and task time,
   * battery drain and charge (ignored commands are a fault). Default: all
   * instant and still (INSTANT_TIMING); the CLI and the demo use REALISTIC_TIMING.
   */
  timing?: Partial<Timing>;
  /** Grows the demo fleet to this many robots (1-5000) for load tests; ignored when `fleet` is given. */
  robots?: number;
  /**
   * Where to push incidents and task reports, as the maker's Robot Push
   * Service does (POST with the appId in the body). Default: no pushes;
   * PUT /_sim/push and setPush change it at run time.
   */
  push?: PushTarget;
}

/** Read-only copies of the fleet's state, for tests and tools. */
export interface FleetView {
  serialNumbers(): string[];
  robot(serialNumber: string): SimRobot | undefined;
  /** What B1 would answer for the robot. */
  status(serialNumber: string): Record<string, unknown> | undefined;
  /** Stored commands of the robot, oldest first. */
  commands(serialNumber: string): CommandResource[];
}

export interface RunningSimulator {
  /** Base URL for the client and the robot-config node, e.g. http://127.0.0.1:18080. */
  readonly url: string;
  readonly port: number;
  readonly state: FleetView;
  readonly faults: Faults;
  /** Changes some fault settings (and reseeds the dice when `seed` is given); throws when a value is not valid. */
  setFaults(update: FaultsUpdate): Faults;
  /** Back to the seeded fleet: robots, stored commands, open incidents and rate-limit counters. Tokens and the push target stay. */
  reset(): void;
  /** Changes a robot (offline, battery, emergency stop, ...) and returns its B1 status; throws naming a bad field. */
  updateRobot(serialNumber: string, changes: RobotChanges): Record<string, unknown>;
  /** The push target (url and appId null when off) and the delivery counters since start, as GET /_sim/push answers. */
  readonly pushes: PushState;
  /** Pushes to `target` from now on, or stops pushing (undefined); throws naming a bad field. */
  setPush(target: PushTarget | undefined): PushState;
  /** Ends the robot's task at once with this taskEndStatus (-1 to 3) and files its report; returns its B1 status; throws when it runs none. */
  endTask(serialNumber: string, taskEndStatus: number): Record<string, unknown>;
  /** Adds a report of a task in the past (what POST /_sim/robots/<serial>/taskReports takes) and returns it as listed; throws naming a bad field. */
  addTaskReport(serialNumber: string, report: PastReport): Record<string, unknown>;
  /**
   * The robot's wear as the simulator knows it (GET /_sim/robots/<serial>/wear): each part's counters, the
   * cleaning hours until it has `share` left (default 0.1) and, given `hoursPerDay`, when that is.
   */
  wear(serialNumber: string, query?: z.input<typeof WearQuery>): WearTruth;
  /** Replaces parts, sets counters, tanks and battery health (PATCH /_sim/robots/<serial>/wear); throws naming a bad field. */
  changeWear(serialNumber: string, changes: z.input<typeof WearChanges>): WearTruth;
  close(): Promise<void>;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { requests: 20, windowMs: 1000 };
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Control endpoints of the simulator itself; never subject to faults. */
export const CONTROL_PREFIX = "/_sim/";
