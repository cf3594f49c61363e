/**
 * A fleet stub robots can be sent jobs on: the robots stand on Floor 1 at
 * positions the test sets, take START_TASK, CROSS_NAVIGATE and the stops,
 * refuse or ignore starts where the test says, run a task for a number of
 * status reads (or until the test finishes it) and file its task report. A
 * navigation moves the robot onto its point's grid cell, navStatus staying
 * NAVI_IDLE, as recorded statuses show it (no navigation object).
 * Every command is recorded per robot, with whether the robot was busy then.
 */
import { FleetStub, stubSerial, type StubStatus } from "./fleet-stub";
import type { RecordedRequest, ScriptedReply } from "./recording-server";

export const STUB_MAP = { id: "map-floor-1", name: "Floor 1" };
export const KITCHEN_DOOR = { name: "Kitchen door", x: 600, y: 300 };

type JobStatus = StubStatus & {
  localizationInfo: {
    localizationState: string;
    map?: { id: string; name: string };
    mapPosition?: { x: number; y: number; angle: number };
  };
  navigationPoints?: unknown;
  cleanModes?: unknown;
  executingTask?: { name: string; progress: number };
};

export interface ReceivedCommand {
  type: string;
  /** The robot was running a task or navigating when it came: a second job sent to a busy robot. */
  whileBusy: boolean;
}

export class JobFleetStub extends FleetStub {
  /** Commands per robot, in arrival order. */
  readonly commands = new Map<string, ReceivedCommand[]>();
  /** Robots that answer a start with an error. */
  readonly refusing = new Set<string>();
  /** Robots that accept a start and never show it. */
  readonly ignoring = new Set<string>();
  /** How long the answer to a start command takes. */
  commandDelayMs = 0;
  /** Each robot's maps (C2), by serial number; a robot not in it has Floor 1. */
  readonly maps = new Map<string, { mapId: string; mapName: string }[]>();
  /** The areas (C1) of every map of every robot. */
  areas = [
    { id: 1, name: "Kitchen" },
    { id: 2, name: "Lobby" },
  ];
  /** How long the answers of C1 and C2 take. */
  placesDelayMs = 0;
  /** How a filed report's startTime and endTime are written (the cloud's RFC 3339 with Z unless a test says). */
  reportTime: (ms: number) => string | number = (ms) => new Date(ms).toISOString();
  /** Robots whose task is over as it starts, before any status read shows it running: the taskEndStatus of its report. */
  readonly endingAtStart = new Map<string, number>();
  /** Status reads a task stays running; undefined: until finish(). */
  runReads: number | undefined = 2;
  private readonly readsLeft = new Map<string, number>();
  private readonly reports = new Map<string, Record<string, unknown>[]>();

  constructor(robots: number) {
    super(robots);
    for (let index = 1; index <= robots; index++) {
      this.update(stubSerial(index), (status) => {
        const s = status as JobStatus;
        s.localizationInfo = { localizationState: "NORMAL", map: { ...STUB_MAP }, mapPosition: { x: 100 * index, y: 100, angle: 0 } };
        s.navigationPoints = {
          naviPoints: [{ naviPointName: KITCHEN_DOOR.name, navPointGridX: KITCHEN_DOOR.x, navPointGridY: KITCHEN_DOOR.y }],
        };
        s.cleanModes = [{ name: "__middle_cleaning" }];
        s.navStatus = "NAVI_IDLE";
      });
    }
  }

  /** Puts the robot at (x, y) of its map. */
  place(serialNumber: string, x: number, y: number): void {
    this.update(serialNumber, (status) => ((status as JobStatus).localizationInfo.mapPosition = { x, y, angle: 0 }));
  }

  /** Ends the robot's task as it would (back to IDLE, a report filed with this end status). */
  finish(serialNumber: string, taskEndStatus = 0): void {
    const status = this.statuses.get(serialNumber) as JobStatus;
    const name = status.currentTask?.name ?? "task";
    status.taskState = "IDLE";
    delete status.currentTask;
    delete status.executingTask;
    const list = this.reports.get(serialNumber) ?? [];
    list.push({
      id: `${serialNumber}-${list.length + 1}`,
      displayName: name,
      robotSerialNumber: serialNumber,
      taskEndStatus,
      cleaningMode: "middle_cleaning",
      startTime: this.reportTime(Date.now() - 1000),
      endTime: this.reportTime(Date.now()),
    });
    this.reports.set(serialNumber, list);
  }

  /** When a status read was last answered (ms): the newest status the package can have read. */
  lastStatusReadAt = 0;
  /**
   * The robots' clock less the true time (ms). Set, every status read carries the robot's time (latestReportTime, epoch
   * ms as a string, as both recorded status shapes do: test/fixtures/recorded-shapes.json); unset, none.
   */
  robotClockOffsetMs: number | undefined;

  startCommands(serialNumber: string): ReceivedCommand[] {
    return (this.commands.get(serialNumber) ?? []).filter((command) =>
      ["START_TASK", "CROSS_NAVIGATE", "TEMP_TASK"].includes(command.type),
    );
  }

  protected override answer(request: RecordedRequest): ScriptedReply {
    if (this.failure) return this.failure;
    const url = new URL(request.path, "http://stub");
    const command = /^\/v1alpha1\/robots\/([^/]+)\/commands$/.exec(url.pathname);
    if (request.method === "POST" && command) return this.command(decodeURIComponent(command[1]!), request.body as Record<string, unknown>);
    if (request.method === "POST" && url.pathname.endsWith("/robotCommand/tempTask:send"))
      return this.tempTask(request.body as Record<string, unknown>);
    if (request.method === "POST" && url.pathname === "/openapi/v1/map/robotMap/list") {
      const robotSn = String((request.body as { robotSn?: unknown }).robotSn);
      const maps = this.maps.get(robotSn) ?? [{ mapId: STUB_MAP.id, mapName: STUB_MAP.name }];
      return { body: { code: 0, msg: "ok", data: maps }, delayMs: this.placesDelayMs };
    }
    if (request.method === "POST" && url.pathname === "/openapi/v1/map/subareas/get") {
      const mapId = String((request.body as { mapId?: unknown }).mapId);
      return { body: { code: 0, msg: "ok", data: { mapId, subareas: { partitions: this.areas } } }, delayMs: this.placesDelayMs };
    }
    const reports = /^\/openapi\/v2alpha1\/robots\/([^/]+)\/taskReports$/.exec(url.pathname);
    if (reports) return { body: { robotTaskReports: [...(this.reports.get(decodeURIComponent(reports[1]!)) ?? [])].reverse() } };
    const reply = super.answer(request);
    if (url.pathname.includes("status:batchGet")) {
      this.lastStatusReadAt = Date.now();
      const body = reply.body as { robotStatuses?: Record<string, unknown>[]; robotStatus?: Record<string, unknown>[] };
      if (this.robotClockOffsetMs !== undefined)
        for (const read of [...(body.robotStatuses ?? []), ...(body.robotStatus ?? [])])
          read.latestReportTime = String(Date.now() + this.robotClockOffsetMs);
      this.afterRead(reply);
    }
    return reply;
  }

  /**
   * A temporary task (B4) starts as START_TASK does; the answer is B4's accepted one (cmdStatus 5), or for a
   * refusing robot its refusal as busy (cmdStatus 7, cmdResultCode 2010100012: field notes).
   */
  private tempTask(body: Record<string, unknown>): ScriptedReply {
    const serialNumber = String(body.productId);
    if (!this.statuses.has(serialNumber)) return { status: 404, body: { code: 5, message: "Robot not found." } };
    const list = this.commands.get(serialNumber) ?? [];
    list.push({ type: "TEMP_TASK", whileBusy: this.statuses.get(serialNumber)!.taskState === "RUNNING" });
    this.commands.set(serialNumber, list);
    if (this.refusing.has(serialNumber)) return { body: { productId: serialNumber, cmdStatus: 7, cmdResultCode: "2010100012" } };
    if (!this.ignoring.has(serialNumber)) this.startTask(serialNumber, String((body.tempTaskCommand as { taskName?: unknown }).taskName));
    return { body: { productId: serialNumber, requestId: `request-${list.length}`, orderType: "tempTask", cmdStatus: 5 } };
  }

  private startTask(serialNumber: string, name: string): void {
    const status = this.statuses.get(serialNumber) as JobStatus;
    status.taskState = "RUNNING";
    status.currentTask = { name };
    status.executingTask = { name, progress: 0.5 };
    const endStatus = this.endingAtStart.get(serialNumber);
    if (endStatus !== undefined) this.finish(serialNumber, endStatus);
    else if (this.runReads !== undefined) this.readsLeft.set(serialNumber, this.runReads);
  }

  /** A running task counts down its reads and ends. */
  private afterRead(reply: ScriptedReply): void {
    const body = reply.body as { robotStatus?: StubStatus[] };
    for (const read of body.robotStatus ?? []) {
      const left = this.readsLeft.get(read.serialNumber);
      if (left === undefined || this.runReads === undefined) continue;
      if (left <= 1) {
        this.readsLeft.delete(read.serialNumber);
        this.finish(read.serialNumber);
      } else this.readsLeft.set(read.serialNumber, left - 1);
    }
  }

  private command(serialNumber: string, body: Record<string, unknown>): ScriptedReply {
    const status: JobStatus | undefined = this.statuses.get(serialNumber);
    if (!status) return { status: 404, body: { code: 5, message: "Robot not found." } };
    const type = String(body.remoteTaskCommandType ?? body.remoteNavigationCommandType ?? body.remoteControlCommandType);
    const busy = status.taskState === "RUNNING" || (status.navStatus !== undefined && status.navStatus !== "NAVI_IDLE");
    const list = this.commands.get(serialNumber) ?? [];
    list.push({ type, whileBusy: busy && (type === "START_TASK" || type === "CROSS_NAVIGATE") });
    this.commands.set(serialNumber, list);
    const accepted = {
      body: { name: `robots/${serialNumber}/commands/${list.length}`, state: "WAITING", serialNumber, rawCommandType: type.toLowerCase() },
    };
    if (type === "STOP_TASK") {
      this.finish(serialNumber, 1);
      return accepted;
    }
    if (type === "STOP_NAVIGATE") return accepted;
    if (this.refusing.has(serialNumber))
      return { status: 400, body: { code: 9, message: "The robot is busy." }, delayMs: this.commandDelayMs };
    if (this.ignoring.has(serialNumber)) return accepted;
    const parameter = body.commandParameter as {
      startTaskParameter?: { task: { name: string } };
      startNavigationParameter?: { position: string };
    };
    if (type === "START_TASK") this.startTask(serialNumber, parameter.startTaskParameter!.task.name);
    if (type === "CROSS_NAVIGATE") {
      const point = parameter.startNavigationParameter!.position;
      const cell = point === KITCHEN_DOOR.name ? KITCHEN_DOOR : undefined;
      if (cell) status.localizationInfo.mapPosition = { x: cell.x, y: cell.y, angle: 0 };
    }
    return accepted;
  }
}
