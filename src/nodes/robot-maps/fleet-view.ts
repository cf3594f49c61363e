/**
 * robot-maps' fleetView: the operator console's model. From the account's
 * last statuses, its open alarms and the jobs holding its robots, it decides
 * everything the console shows: each robot's state in words and colour, its
 * task's progress, the actions its state allows, what its pickers offer, the
 * floors with their counts and pictures, and every fixed word, in the
 * runtime's language. Pure: the node gathers (fleet-view-source.ts), this
 * decides, the console only displays.
 */
import type { JobWork } from "../../api/jobs/dispatch";
import type { JobRecord } from "../../api/jobs/job-book";
import { severityOf, type AlarmLogEntry, type OpenAlarm } from "../../api/pushes/open-alarms";
import { allowedActions, type RobotAction } from "../../api/watching/robot-actions";
import type { KeptStatus } from "../../api/watching/fleet-statuses";
import { DEFAULT_BATTERY_THRESHOLDS } from "../../api/watching/watcher-state";
import { executableTasksOf, mapNameOf, readStatus, type StatusReading } from "../../api/watching/status-reader";
import type { Translate } from "../shared/i18n";
import { MARKER_STATES, STATE_COLOURS, mapIdOf, markerStateOf, navigationMarks, type MapPicture, type MarkerState, type RobotDestinations, type RobotNames } from "./fleet-map";
import { alarmText, drawFleetMap, fleetMapWords } from "./fleet-map-draw";
import { TIMELINE_STATES, planTimeline, type PlanTimeline, type TodaysPlan } from "./plan-timeline";
import { upkeepFactsOf } from "../../api/upkeep/facts";
import type { UpkeepRobot } from "../../api/upkeep/table";
import { upkeepView, type UpkeepSource, type UpkeepView } from "./upkeep-view";
import { DEFAULT_ACCOUNT_UPKEEP_LIMITS, type AccountUpkeepLimits } from "../shared/upkeep-table";

/** What a console's button asks: a robot action, or cancelling the job that holds the robot. */
export type ConsoleAction = RobotAction | "cancelJob";
export const CONSOLE_ACTIONS: readonly ConsoleAction[] = ["startTask", "goTo", "toCharger", "pause", "resume", "stop", "cancelJob"];

/** A floor as the robots' map lists name it: its name and its areas' names (C1), whether or not a robot is on it. */
export interface FloorPlace {
  mapName: string;
  areas: string[];
}

/** The job holding a robot, as the view needs it. */
export interface HeldJob {
  jobId: string;
  work: JobWork;
  /** The job's own name (robot-job's Name setting), when it has one. */
  name?: string;
}

export interface FleetViewInput {
  statuses: readonly KeptStatus[];
  /** Each floor's image, by map id (a floor without one is drawn with none: its svg is empty). */
  pictures: ReadonlyMap<string, MapPicture & { mapVersion: string }>;
  /** Every floor the robots' map lists name, by map id, with its areas (a floor no robot is on is listed too). */
  places?: ReadonlyMap<string, FloorPlace>;
  /** For a floor whose statuses carry no navigation points: a status of a robot on it that does. */
  navigation?: ReadonlyMap<string, Record<string, unknown>>;
  alarms: readonly OpenAlarm[];
  /** The shift's log (AccountAlarms.log). */
  shift?: readonly AlarmLogEntry[];
  /** Serial number → the job holding it. */
  jobs: ReadonlyMap<string, HeldJob>;
  now: Date;
  /** The robots' names (the account's robot directory); the serial number where none is given. */
  nameOf?: RobotNames;
  /** Where robots are on their way to (the account's sent navigations); none where not given. */
  destinationOf?: RobotDestinations;
  /** Today's occurrences of the account's cleaning plans; none where no robot-plan runs on the account. */
  plan?: TodaysPlan;
  /** A robot's row of the account's upkeep table (upkeepTableOfAccount), for its parts' forecasts. */
  upkeepOf?: (serialNumber: string) => UpkeepRobot | undefined;
  /** The account's upkeep limits (upkeepLimitsOfAccount); the defaults where not given. */
  upkeepLimits?: AccountUpkeepLimits;
}

export interface ViewTask {
  name: string;
  progress?: number;
  timeRemaining?: number;
  text: string;
}

export interface ViewRobot {
  serialNumber: string;
  name: string;
  mapId?: string;
  mapName?: string;
  online: boolean;
  state: MarkerState;
  stateText: string;
  colour: string;
  battery: number | null;
  charging: boolean;
  task?: ViewTask;
  job?: { jobId: string; text: string };
  alarm?: { level: string; text: string };
  alarms: number;
  /** At or below robot-status' default low battery (20 %), and not charging. */
  lowBattery: boolean;
  /** Whether an operator should look at it: an open alarm, its emergency stop, offline, or a low battery. */
  attention: boolean;
  actions: { action: ConsoleAction; label: string }[];
  tasks: string[];
  points: string[];
  updatedAt: string;
}

export interface ViewFloor {
  mapId: string;
  mapName: string;
  robots: number;
  alarms: number;
  /** The names of the floor's areas (an area job's `area`), as drawn at the floor's foot. */
  areas: string[];
  svg: string;
}

export type ViewAlarm = OpenAlarm & { robotName: string; levelText: string; since: string; mapName?: string; floorId?: string };
/** An alarm of the shift's log, named as the open ones are. */
export type ViewLogEntry = AlarmLogEntry & { robotName: string; levelText: string };

export interface FleetView {
  at: string;
  floors: ViewFloor[];
  robots: ViewRobot[];
  alarms: { open: ViewAlarm[]; shift: ViewLogEntry[] };
  /** Today's plan per floor, where a robot-plan runs on the account. */
  plan?: PlanTimeline;
  /** What of the robots' upkeep needs a person: parts due in the coming 14 days, tanks now, batteries. */
  upkeep: UpkeepView;
  words: Record<string, unknown>;
  /** The language of the words (a BCP 47 tag), which the console writes times in, not the browser's. */
  language: string;
}

/** The fixed words a console shows, by key (nodes/locales/<lang>/robot-maps.json, robot-maps.view.words). */
export const VIEW_WORDS = [
  "robot",
  "state",
  "battery",
  "task",
  "job",
  "alarm",
  // The column's heading; words.actions is each action's label.
  "actionsHeading",
  "floor",
  "floors",
  "allFloors",
  "robots",
  "openAlarms",
  "shift",
  "level",
  "since",
  "where",
  "noAlarm",
  "noRobots",
  "acknowledge",
  "acknowledged",
  "by",
  "recovered",
  "sent",
  "charging",
  "chooseTask",
  "choosePoint",
  "nearestFree",
  "operator",
  "operatorPlaceholder",
  "zoomIn",
  "zoomOut",
  "fit",
  "clickPointSelected",
  "clickPointNearest",
  "sinceTime",
  "acknowledgedBy",
  "recoveredAt",
  "sending",
  "done",
  "todayWork",
  "updatedAt",
  "allStates",
  "needsAttention",
  "shown",
  "alarmRaised",
  "cleanArea",
  "cleanAreaWith",
  "cleanAreaNearest",
  "cancel",
  "nameNeeded",
  "reportsPage",
  "noWorkYet",
  "areaChart",
  "tasksChart",
  "squareMetres",
  "tasks",
  "noRobotOnFloor",
  "todayPlan",
  "otherFloor",
  "pageTitle",
  "robotsTab",
  "upkeep",
  "partsDue",
  "tanksNow",
  "batteryHealth",
  "batteriesNormal",
  "noUpkeep",
  "part",
  "left",
  "due",
  "basis",
  "tank",
  "tankLevel",
  "todo",
  "cycles",
] as const;

/** How a job ends and what it reports on its way (robot-job's outcomes and progress events), as a console tells them. */
const JOB_OUTCOMES = ["completed", "stoppedByHand", "error", "failedToStart", "cancelled", "unknown"] as const;
const JOB_EVENTS = ["assigned", "started", "progress", "retrying", "waiting"] as const;

/** The levels an open alarm can have (H2-H7; H0 and H1 are no alarms), and "unknown" for one the package could not read. */
const LEVEL_CODES = ["H2", "H3", "H4", "H5", "H6", "H7"];

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Names in natural order: "Scrubber 2" before "Scrubber 11". */
const naturalOrder = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
const compareNames = (a: string, b: string) => naturalOrder.compare(a, b) || compareText(a, b);

/** The open alarms, the most severe first, then the newest. */
function problemsFirst(a: OpenAlarm, b: OpenAlarm): number {
  return severityOf(b) - severityOf(a) || compareText(b.raisedAt, a.raisedAt);
}

/** A task's progress (0-1) and time left (seconds), as the status reader read them from executingTask. */
function taskProgressOf(reading: StatusReading): { progress?: number; timeRemaining?: number } {
  return {
    ...(reading.taskProgress !== undefined ? { progress: reading.taskProgress } : {}),
    ...(reading.timeRemaining !== undefined ? { timeRemaining: reading.timeRemaining } : {}),
  };
}

/**
 * "cleaning Lobby", "to charger", "to Lobby entrance", "paused: Lobby", "offline": a robot's state as a
 * person reads it. Where it goes comes from the navigation the package sent (no status says), else "navigating".
 */
export function stateTextOf(state: MarkerState, reading: StatusReading, t: Translate, destination?: string): string {
  if ((state === "cleaning" || state === "paused") && reading.taskName) return t(`view.stateWithTask.${state}`, { task: reading.taskName });
  if (state === "navigating" && destination !== undefined) return fleetMapWords(t).goingTo(destination);
  return t(`fleetMap.states.${state}`);
}

/** "42 % · 6 min left"; the task's name when its status tells neither. */
export function taskTextOf(task: { name: string; progress?: number; timeRemaining?: number }, t: Translate): string {
  const parts: string[] = [];
  if (task.progress !== undefined) parts.push(t("view.percent", { percent: Math.round(task.progress * 100) }));
  if (task.timeRemaining !== undefined) {
    parts.push(task.timeRemaining < 60 ? t("view.underAMinuteLeft") : t("view.minutesLeft", { minutes: Math.round(task.timeRemaining / 60) }));
  }
  return parts.length > 0 ? parts.join(" · ") : task.name;
}

/** What a job does, in words: its own name, else its task, area or point. */
export function jobTextOf(job: HeldJob, t: Translate): string {
  if (job.name) return job.name;
  const { work } = job;
  if (work.kind === "task") return t("view.jobOf.task", { task: work.task });
  if (work.kind === "area") return t("view.jobOf.area", { area: work.area });
  return fleetMapWords(t).goingTo(work.point);
}

export function levelTextOf(alarm: OpenAlarm, t: Translate): string {
  const code = alarm.level?.code;
  return t(`view.levels.${code !== undefined && LEVEL_CODES.includes(code) ? code : "unknown"}`);
}

/** The actions a console offers for a robot: what its state allows, and cancelling the job that holds it. */
export function consoleActionsOf(reading: StatusReading, held: boolean, t: Translate): { action: ConsoleAction; label: string }[] {
  const actions: ConsoleAction[] = [...allowedActions(reading), ...(held ? (["cancelJob"] as const) : [])];
  return actions.map((action) => ({ action, label: t(`view.actions.${action}`) }));
}

/** The names of the tasks a status offers on map `mapId` (a task the status names no map for runs on any). */
export function executableTaskNames(status: Record<string, unknown>, mapId: string | undefined): string[] {
  const tasks = executableTasksOf(status) ?? [];
  return tasks.filter((task) => task.mapId === undefined || mapId === undefined || task.mapId === mapId).map((task) => task.name);
}

const hasNavigationPoints = (status: Record<string, unknown>) => navigationMarks(status, 0).length > 0;

/** The navigation points of a floor: from a status of a robot on it that carries them, else the one gathered for it. */
function floorAnchor(onFloor: readonly Record<string, unknown>[], gathered: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return onFloor.find(hasNavigationPoints) ?? (gathered && mapIdOf(gathered) === mapIdOf(onFloor[0]!) ? gathered : undefined);
}

/** Every fixed word of the console, in the runtime's language. */
export function viewWords(t: Translate): Record<string, unknown> {
  const words: Record<string, unknown> = {};
  for (const key of VIEW_WORDS) words[key] = t(`view.words.${key}`);
  words.states = Object.fromEntries(MARKER_STATES.map((state) => [state, t(`fleetMap.states.${state}`)]));
  words.actions = Object.fromEntries(CONSOLE_ACTIONS.map((action) => [action, t(`view.actions.${action}`)]));
  words.levels = Object.fromEntries([...LEVEL_CODES, "unknown"].map((code) => [code, t(`view.levels.${code}`)]));
  words.outcomes = Object.fromEntries(JOB_OUTCOMES.map((outcome) => [outcome, t(`view.outcomes.${outcome}`)]));
  words.jobEvents = Object.fromEntries(JOB_EVENTS.map((event) => [event, t(`view.jobEvents.${event}`)]));
  // What a notice says once the robot shows the action done: "to charger, arrived", "started {task}".
  words.actionsDone = Object.fromEntries(CONSOLE_ACTIONS.map((action) => [action, t(`view.actionsDone.${action}`)]));
  // An occurrence's state as the proof-of-service report words it (the shared catalogue): one word for one state everywhere.
  words.planStates = Object.fromEntries(
    TIMELINE_STATES.map((state) => [state, t(`planReport.status.${state}`)]),
  );
  return words;
}

/** The console's model of the fleet (see the file's head). */
export function fleetView(input: FleetViewInput, t: Translate): FleetView {
  const nameOf = input.nameOf ?? ((serialNumber: string) => serialNumber);
  const openOf = new Map<string, OpenAlarm[]>();
  for (const alarm of input.alarms) {
    const ofRobot = openOf.get(alarm.serialNumber);
    if (ofRobot) ofRobot.push(alarm);
    else openOf.set(alarm.serialNumber, [alarm]);
  }
  const floorStatuses = new Map<string, { mapName: string; statuses: Record<string, unknown>[] }>();
  const robots: ViewRobot[] = [];
  const upkeepSources: UpkeepSource[] = [];
  for (const { status, at, reading, serialNumber } of latestOfEach(input.statuses)) {
    const robot = viewRobot(status, { ...reading, serialNumber }, at, input, openOf.get(serialNumber) ?? [], t);
    robots.push(robot);
    const facts = upkeepFactsOf(status);
    const row = input.upkeepOf?.(serialNumber);
    upkeepSources.push({ serialNumber, name: robot.name, readAt: new Date(at), ...(facts ? { facts } : {}), ...(row ? { row } : {}) });
    if (robot.mapId !== undefined) {
      const floor = floorStatuses.get(robot.mapId) ?? { mapName: robot.mapName ?? robot.mapId, statuses: [] };
      floor.statuses.push(status);
      floorStatuses.set(robot.mapId, floor);
    }
  }
  robots.sort((a, b) => compareNames(a.name, b.name) || compareText(a.serialNumber, b.serialNumber));
  const robotBySerial = new Map(robots.map((robot) => [robot.serialNumber, robot]));
  // Each floor's navigation points, for the pickers of robots whose own status has none (the v1 status).
  const anchors = new Map([...floorStatuses].map(([mapId, floor]) => [mapId, floorAnchor(floor.statuses, input.navigation?.get(mapId))]));
  for (const robot of robots) {
    if (robot.points.length === 0 && robot.mapId !== undefined) robot.points = pointNames(anchors.get(robot.mapId));
  }
  const rings = new Map(robots.flatMap((robot) => (robot.alarm ? [[robot.serialNumber, robot.alarm.text] as const] : [])));
  // Every floor the map lists name, with or without robots on it.
  for (const [mapId, place] of input.places ?? []) if (!floorStatuses.has(mapId)) floorStatuses.set(mapId, { mapName: place.mapName, statuses: [] });
  const floors: ViewFloor[] = [...floorStatuses].map(([mapId, floor]) => {
    const picture = input.pictures.get(mapId);
    const anchor = anchors.get(mapId) ?? floor.statuses[0] ?? {};
    const areas = input.places?.get(mapId)?.areas ?? [];
    const svg = picture ? drawFleetMap({ picture, statuses: floor.statuses, anchor, mapVersion: picture.mapVersion, nameOf, destinationOf: input.destinationOf, areas }, t, rings).svg : "";
    const onFloor = robots.filter((robot) => robot.mapId === mapId);
    return { mapId, mapName: floor.mapName, robots: onFloor.length, alarms: onFloor.reduce((sum, robot) => sum + robot.alarms, 0), areas, svg };
  });
  floors.sort((a, b) => compareNames(a.mapName, b.mapName) || compareText(a.mapId, b.mapId));
  const open = [...input.alarms].sort(problemsFirst).map((alarm): ViewAlarm => {
    const robot = robotBySerial.get(alarm.serialNumber);
    const mapName = alarm.mapName ?? robot?.mapName;
    // The floor the alarm is on: the robot's, unless the incident names another map.
    const floorId = robot?.mapId !== undefined && (alarm.mapName === undefined || alarm.mapName === robot.mapName) ? robot.mapId : undefined;
    return {
      ...alarm,
      robotName: robot?.name ?? alarm.serialNumber,
      levelText: levelTextOf(alarm, t),
      since: alarm.raisedAt,
      ...(mapName !== undefined ? { mapName } : {}),
      ...(floorId !== undefined ? { floorId } : {}),
    };
  });
  const shift = (input.shift ?? []).map(
    (entry): ViewLogEntry => ({ ...entry, robotName: robotBySerial.get(entry.serialNumber)?.name ?? entry.serialNumber, levelText: levelTextOf(entry, t) }),
  );
  const plan = input.plan ? { plan: planTimeline(input.plan, floors.map((floor) => floor.mapName)) } : {};
  const language = t("planReport.language");
  const upkeep = upkeepView(upkeepSources, input.now, language, t, input.upkeepLimits ?? DEFAULT_ACCOUNT_UPKEEP_LIMITS);
  return { at: input.now.toISOString(), floors, robots, alarms: { open, shift }, ...plan, upkeep, words: viewWords(t), language };
}

/** One status per robot, the latest read (msg.statuses may name a robot twice); statuses without a serial number are left out. */
function latestOfEach(statuses: readonly KeptStatus[]): Array<KeptStatus & { reading: StatusReading; serialNumber: string }> {
  const latest = new Map<string, KeptStatus & { reading: StatusReading; serialNumber: string }>();
  for (const kept of statuses) {
    const reading = readStatus(kept.status);
    const { serialNumber } = reading;
    if (serialNumber === undefined) continue;
    const known = latest.get(serialNumber);
    if (!known || known.at <= kept.at) latest.set(serialNumber, { ...kept, reading, serialNumber });
  }
  return [...latest.values()];
}

function pointNames(status: Record<string, unknown> | undefined): string[] {
  return status ? navigationMarks(status, 0).map((mark) => mark.name) : [];
}

function viewRobot(status: Record<string, unknown>, reading: StatusReading & { serialNumber: string }, at: number, input: FleetViewInput, open: readonly OpenAlarm[], t: Translate): ViewRobot {
  const { serialNumber } = reading;
  const destination = input.destinationOf?.(serialNumber, reading);
  const state = markerStateOf(reading, destination);
  const mapName = mapNameOf(status);
  const held = input.jobs.get(serialNumber);
  const highest = open.reduce<OpenAlarm | undefined>((top, alarm) => (!top || severityOf(alarm) > severityOf(top) ? alarm : top), undefined);
  const battery = reading.battery ?? null;
  const lowBattery = battery !== null && battery <= DEFAULT_BATTERY_THRESHOLDS.low && reading.charging !== true;
  // A task the status still names once the robot is idle again is over.
  const task = reading.taskName !== undefined && reading.taskState !== "IDLE" ? { name: reading.taskName, ...taskProgressOf(reading) } : undefined;
  return {
    serialNumber,
    name: input.nameOf?.(serialNumber) ?? serialNumber,
    ...(reading.mapId !== undefined ? { mapId: reading.mapId } : {}),
    ...(mapName !== undefined ? { mapName } : {}),
    online: reading.online !== false,
    state,
    stateText: stateTextOf(state, reading, t, destination),
    colour: STATE_COLOURS[state],
    battery,
    charging: reading.charging === true,
    ...(task ? { task: { ...task, text: taskTextOf(task, t) } } : {}),
    ...(held ? { job: { jobId: held.jobId, text: jobTextOf(held, t) } } : {}),
    ...(highest ? { alarm: { level: highest.level?.code ?? "", text: alarmText(highest) } } : {}),
    alarms: open.length,
    lowBattery,
    attention: open.length > 0 || state === "emergencyStop" || state === "offline" || lowBattery,
    actions: consoleActionsOf(reading, held !== undefined, t),
    tasks: executableTaskNames(status, reading.mapId),
    points: hasNavigationPoints(status) ? pointNames(status) : [],
    updatedAt: new Date(at).toISOString(),
  };
}

/** The jobs holding the account's robots (a started job holds its robot until it ends). */
export function heldJobs(jobs: Iterable<JobRecord>): Map<string, HeldJob> {
  const held = new Map<string, HeldJob>();
  for (const job of jobs) {
    if (job.phase === "waiting" || job.serialNumber === undefined) continue;
    held.set(job.serialNumber, { jobId: job.jobId, work: job.work, ...(job.settings.name !== undefined ? { name: job.settings.name } : {}) });
  }
  return held;
}
