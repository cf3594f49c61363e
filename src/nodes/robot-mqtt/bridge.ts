/**
 * The bridge at run time: reads the account's robots every interval (one
 * process at a time on a shared account, as robot-status's watch mode),
 * publishes what changed, answers Home Assistant's birth message, removes a
 * robot that left, and carries out what arrives on the command topics.
 */
import { serialNumberOf } from "../../api/watching/status-reader";
import { sentNavigationsOf } from "../../api/watching/navigation";
import { robotDirectoryOf } from "../../api/account/robot-directory";
import type { Node, NodeStatus } from "node-red";
import type { RobotClient } from "../../api/client";
import { keptForAccount } from "../../api/account/account-memory";
import { alarmsOfAccount } from "../../api/pushes/open-alarms";
import { RobotApiError } from "../../api/errors";
import { isProblem, mayOvertakePending, payloadText, WarningGate, type Problem, type ProblemKind } from "../../api/mqtt/commands";
import type { Origin } from "../../api/mqtt/discovery";
import { bridgeAvailabilityMessage, PublishedPayloads, removalMessages, robotMessages, type MqttMessage } from "../../api/mqtt/publication";
import { robotViewOf, type RobotView } from "../../api/mqtt/robot-view";
import { readIncomingTopic, robotTopics, topicLevelProblem, type InputKind, type TopicRoots } from "../../api/mqtt/topics";
import { acceptsCommandsFor, refusalOfAcceptance, type CommandAcceptance } from "../../api/mqtt/accepted-commands";
import { chosenAreas, readSegmentIds, segmentIdOf, segmentsOf, type Segments } from "../../api/mqtt/segments";
import { areasOfMap } from "../../api/jobs/work-targets";
import { fleetStatusesOf } from "../../api/watching/fleet-statuses";
import { upkeepTableOfAccount } from "../shared/upkeep-table";
import type { UpkeepRobot } from "../../api/upkeep/table";
import { WatchLoop, type PollSummary, type RobotUpdate } from "../../api/watching/watcher";
import { ContextMirror } from "../shared/context-mirror";
import type { Translate } from "../shared/i18n";
import { StatusDrawer } from "../shared/node-status-view";
import { carryOut, resultCommandOf } from "./commands";
import { SegmentRuns } from "./segment-runs";
import { StatusReader } from "./bridge-reads";
import type { BridgeResult } from "./jobs";

export interface BridgeSettings {
  roots: TopicRoots;
  intervalMs: number;
  /** Empty: every robot of the account. */
  serialNumbers: string[];
  startTasks: ReadonlyMap<string, string>;
  origin: Origin;
  /** What the command topics may drive (accepted-commands.ts). */
  acceptance: CommandAcceptance;
}

/** Until the bridge hears its own messages back from mqtt in, it repeats its availability this often (mqtt out drops what it gets before its connection is up). */
export const UNTIL_ECHO_MS = 3000;

/** A robot's map areas (its segments) are asked for again after this long, read or not. */
export const SEGMENTS_ASKED_EVERY_MS = 10 * 60_000;

export class MqttBridge {
  private readonly published = new PublishedPayloads();
  private readonly views = new Map<string, RobotView>();
  /** Robots whose configs are out there (kept per account and prefix: a redeploy or restart still removes a robot that left meanwhile). */
  private readonly devices: Set<string>;
  private readonly chosenModes: Map<string, string>;
  private readonly mirror: ContextMirror;
  private readonly warnings = new WarningGate();
  private readonly skipped = new Set<string>();
  /**
   * Robots removed before the bridge heard the broker: their removal goes out
   * again then (mqtt out may have dropped it), once; not at Home Assistant's
   * births, which would only answer an empty config again.
   */
  private readonly removed = new Set<string>();
  /** Each robot's segments: the areas of the map it was on when they were read. */
  private readonly segments = new Map<string, { mapId: string; segments: Segments }>();
  /** When each robot's map areas were last asked for (robot and map). */
  private readonly segmentsAskedAt = new Map<string, number>();
  private readonly segmentRuns: SegmentRuns;
  private readonly lifetime = new AbortController();
  private readonly loop: WatchLoop;
  private readonly reader: StatusReader;
  private echoed = false;
  private echoTimer: ReturnType<typeof setInterval> | undefined;
  private polledOnce = false;
  private closed = false;
  private pendingCommands = 0;
  /** Whether this process publishes: on a shared account one instance does, and answers the commands; the others stand by. */
  private watching = true;
  /** Commands under way per robot, the next chosen segment's start among them: a second start waits for nothing, it is refused (see mayOvertakePending). */
  private readonly pendingByRobot = new Map<string, number>();
  private stopAlarms: () => void;
  /** What the status under the node says: the first poll, standing by, the last poll or the failing ones. */
  private said: NodeStatus = {};
  private readonly statusDrawer: StatusDrawer;
  last: PollSummary | undefined;

  constructor(
    private readonly node: Node,
    private readonly client: RobotClient,
    private readonly settings: BridgeSettings,
    private readonly t: Translate,
  ) {
    this.statusDrawer = new StatusDrawer(node, () => this.said);
    const { prefix, base } = settings.roots;
    this.devices = keptForAccount(client.accountKey, `mqtt devices\n${prefix}\n${base}`, () => new Set<string>());
    this.chosenModes = keptForAccount(client.accountKey, `mqtt cleaning modes\n${base}`, () => new Map<string, string>());
    this.mirror = new ContextMirror(node, "robotMqttDevices", () => [...this.devices]);
    const alarms = alarmsOfAccount(client.accountKey);
    this.stopAlarms = alarms.onChange((change) => this.republishRobot(change.alarm.serialNumber));
    const lease = client.sharing?.watchLease(node.id, settings.intervalMs);
    const reader = new StatusReader(client, settings.serialNumbers, this.lifetime.signal, (serial, problem) => this.skip(serial, problem), settings.intervalMs);
    this.reader = reader;
    this.segmentRuns = new SegmentRuns(
      client,
      this.lifetime.signal,
      (serial, result) => this.publishResult(serial, result),
      (serial, start) => this.underWay(serial, start),
    );
    this.loop = new WatchLoop(reader, settings.intervalMs, {
      polled: (updates, summary) => this.polled(updates, summary),
      failing: (error, streak) => this.showStatus("red", "ring", streak > 1 ? t("status.pollsFailed", { count: streak, code: error.code }) : t("status.pollFailed", { code: error.code })),
      failed: (error) => node.error(error, { topic: "poll", payload: { failedPolls: 1 } }),
      recovered: (failures) => node.warn(`polls work again after ${failures} failed poll${failures === 1 ? "" : "s"}`),
      watching: (watching) => {
        this.watching = watching;
        if (!watching) this.showStatus("blue", "ring", t("status.standingBy"));
      },
    }, undefined, lease);
    this.watching = lease === undefined;
  }

  async start(): Promise<void> {
    this.showStatus("blue", "ring", this.t("status.firstPoll"));
    // A store that outlived a restart knows robots published before it: one that left meanwhile is removed at the first poll.
    const stored = await this.mirror.read();
    const storedSerials = Array.isArray(stored) ? stored.filter((serial): serial is string => typeof serial === "string") : [];
    for (const serial of storedSerials) this.devices.add(serial);
    // A new node (or a new store) learns what the account's memory already knew.
    if (this.devices.size > storedSerials.length) this.mirror.changed();
    if (this.closed) return;
    this.send([bridgeAvailabilityMessage(this.settings.roots, true)]);
    this.echoTimer = setInterval(() => this.send([bridgeAvailabilityMessage(this.settings.roots, true)]), UNTIL_ECHO_MS);
    this.loop.start();
  }

  /** A message from mqtt in: never throws, whatever it holds. */
  receive(msg: { topic?: unknown; payload?: unknown }): void {
    // The instance that publishes answers too: a standby copy would answer a robot it has not read as unknown.
    if (!this.watching) return;
    const incoming = readIncomingTopic(this.settings.roots, msg.topic);
    if (!this.echoed) {
      // The broker passes messages both ways now: what was published before may have been dropped, so all of it again.
      this.echoed = true;
      clearInterval(this.echoTimer);
      this.republishAll(true);
    }
    switch (incoming.kind) {
      case "own":
        return;
      case "birth": {
        const text = payloadText(msg.payload);
        if (!isProblem(text) && text.text.trim() === "online") this.republishAll(false);
        return;
      }
      case "unknown": {
        const reason = `nothing is taken on topic ${String(msg.topic).slice(0, 200)} (use ${this.settings.roots.base}/<serial>/command, set_fan_speed, send_command or clean_segments)`;
        this.answerProblem("topic", reason, incoming.serialNumber);
        return;
      }
      case "input": {
        if (!acceptsCommandsFor(this.settings.acceptance, incoming.serialNumber)) {
          this.answerProblem("refused", refusalOfAcceptance(this.settings.acceptance), incoming.serialNumber, incoming.input);
          return;
        }
        const text = payloadText(msg.payload);
        if (isProblem(text)) {
          this.answerProblem(text.problem, text.reason, incoming.serialNumber, incoming.input);
          return;
        }
        void this.command(incoming.serialNumber, incoming.input, text.text);
      }
    }
  }

  private async command(serialNumber: string, input: InputKind, text: string): Promise<void> {
    if ((this.pendingByRobot.get(serialNumber) ?? 0) > 0 && !mayOvertakePending(input, text)) {
      const asked = input === "command" ? text.trim().slice(0, 40) : resultCommandOf(input);
      this.publishResult(serialNumber, { command: asked, ok: false, reason: "another command for this robot is still under way (stop and pause are always carried out)" });
      return;
    }
    // Another command for the robot ends its chosen segments' run (a fan speed only sets the next start's mode).
    if (input !== "fanSpeed") this.segmentRuns.cancel(serialNumber);
    await this.underWay(serialNumber, () => this.carryOutCommand(serialNumber, input, text));
  }

  /** Work for the robot (a command, or the next chosen segment's start) counted as under way while it lasts: another start for the robot is refused meanwhile. */
  private async underWay<T>(serialNumber: string, work: () => Promise<T>): Promise<T> {
    this.pendingCommands++;
    this.pendingByRobot.set(serialNumber, (this.pendingByRobot.get(serialNumber) ?? 0) + 1);
    try {
      return await work();
    } finally {
      this.pendingCommands--;
      const left = (this.pendingByRobot.get(serialNumber) ?? 1) - 1;
      if (left > 0) this.pendingByRobot.set(serialNumber, left);
      else this.pendingByRobot.delete(serialNumber);
    }
  }

  private async carryOutCommand(serialNumber: string, input: InputKind, text: string): Promise<void> {
    try {
      if (input === "cleanSegments") {
        this.publishResult(serialNumber, await this.cleanSegments(serialNumber, text));
        return;
      }
      const outcome = await carryOut(input, text, {
        client: this.client,
        signal: this.lifetime.signal,
        view: this.views.get(serialNumber),
        chosenMode: this.chosenModes.get(serialNumber),
        chooseMode: (mode) => {
          this.chosenModes.set(serialNumber, mode);
          this.republishRobot(serialNumber);
        },
        startTasks: this.settings.startTasks,
        seen: (status) => this.seen(status),
      });
      if (outcome.problem) this.warn(outcome.problem, `${serialNumber}: ${outcome.result.reason}`);
      this.publishResult(serialNumber, outcome.result);
    } catch (error) {
      if (this.closed || (error instanceof RobotApiError && error.kind === "aborted")) return;
      const reason = error instanceof RobotApiError ? `${error.code}: ${error.message}` : String(error);
      this.publishResult(serialNumber, { command: input, ok: false, reason });
    }
  }

  private answerProblem(kind: ProblemKind, reason: string, serialNumber?: string, input?: InputKind): void {
    this.warn(kind, serialNumber ? `${serialNumber}: ${reason}` : reason);
    if (serialNumber !== undefined) this.publishResult(serialNumber, { command: input === undefined ? "none" : resultCommandOf(input), ok: false, reason });
  }

  /** Home Assistant's clean_area: the chosen segments of the robot's map, as area jobs one after another (segment-runs.ts). */
  private async cleanSegments(serialNumber: string, text: string): Promise<BridgeResult> {
    const refuse = (problem: Problem) => {
      this.warn(problem.problem, `${serialNumber}: ${problem.reason}`);
      return { command: "clean_segments", ok: false, reason: problem.reason };
    };
    const view = this.views.get(serialNumber);
    if (!view) return refuse({ problem: "robot", reason: "the robot is not one of the account's robots the bridge publishes" });
    const ids = readSegmentIds(text);
    if (isProblem(ids)) return refuse(ids);
    const kept = this.segments.get(serialNumber);
    const offered = kept && kept.mapId === view.state.mapId ? kept.segments : undefined;
    const areas = chosenAreas(ids, view.state.mapId, offered);
    if (isProblem(areas)) return refuse(areas);
    const names = offered!;
    return this.segmentRuns.start(
      serialNumber,
      areas.map((area) => ({ ...area, name: names[segmentIdOf(area.mapId, area.areaId)]! })),
      this.chosenModes.get(serialNumber),
    );
  }

  private warn(kind: string, text: string): void {
    if (this.warnings.allows(kind)) this.node.warn(text);
  }

  private publishResult(serialNumber: string, result: BridgeResult): void {
    if (this.closed || topicLevelProblem(serialNumber)) return;
    this.send([{ topic: robotTopics(this.settings.roots, serialNumber).result, payload: JSON.stringify(result), retain: false, qos: 1 }]);
  }

  private polled(updates: RobotUpdate[], summary: PollSummary): void {
    if (this.closed) return;
    this.last = summary;
    this.polledOnce = true;
    const seen = new Set<string>();
    const messages: MqttMessage[] = [bridgeAvailabilityMessage(this.settings.roots, true)];
    // The parts' due days: the account's upkeep table of the robots polled, made once for all of them.
    const serialNumbers = updates.map((update) => update.serialNumber);
    const upkeep = new Map(upkeepTableOfAccount(this.client.accountKey, serialNumbers).map((row) => [row.serialNumber, row]));
    for (const update of updates) {
      const view = this.viewOf(update.status, upkeep);
      const problem = topicLevelProblem(view.serialNumber);
      if (problem) {
        this.skip(view.serialNumber, problem);
        continue;
      }
      seen.add(view.serialNumber);
      this.removed.delete(view.serialNumber);
      this.views.set(view.serialNumber, view);
      this.askSegments(view);
      this.segmentRuns.seen(view, this.reader.pollStartedAt);
      messages.push(...this.messagesOf(view));
    }
    for (const serial of new Set([...this.devices, ...this.views.keys()])) {
      if (seen.has(serial)) continue;
      // Left the account (or the node's list): its device disappears from Home Assistant.
      const removal = removalMessages(serial, this.settings.roots);
      messages.push(...removal);
      this.published.forgetTopics(removal.map((message) => message.topic));
      this.views.delete(serial);
      this.devices.delete(serial);
      this.segments.delete(serial);
      if (!this.echoed) this.removed.add(serial);
    }
    let added = false;
    for (const serial of seen) {
      if (!this.devices.has(serial)) {
        this.devices.add(serial);
        added = true;
      }
    }
    if (added || messages.some((message) => message.payload === "" && message.retain)) this.mirror.changed();
    this.send(this.published.changed(messages));
    this.showPolled();
  }

  /** Once per robot: its serial number cannot be a topic level (or asked about); the others go on. */
  private skip(serialNumber: string, problem: string): void {
    if (this.skipped.has(serialNumber)) return;
    this.skipped.add(serialNumber);
    this.node.warn(`robot ${JSON.stringify(serialNumber)} is not published: its serial number ${problem}`);
  }

  /**
   * The robot a status is of, with what the robot list says of it (its device's name, model and
   * software version), its parts' due days (its row of `upkeep`, the table the poll made, when the caller
   * has one, else of a table made now)
   * and where the package sent it, while it has not arrived (the vacuum's returning).
   */
  private viewOf(status: Record<string, unknown>, upkeep?: ReadonlyMap<string, UpkeepRobot>): RobotView {
    const serialNumber = serialNumberOf(status);
    const { accountKey } = this.client;
    const view =
      serialNumber === undefined
        ? robotViewOf(status)
        : robotViewOf(status, robotDirectoryOf(accountKey).entryOf(serialNumber), upkeep ? upkeep.get(serialNumber) : upkeepTableOfAccount(accountKey, [serialNumber])[0]);
    const destination = sentNavigationsOf(this.client.accountKey).destinationOf(view.serialNumber, view.state, this.client.arrivalRadius);
    return destination === undefined ? view : { ...view, destination };
  }

  private messagesOf(view: RobotView): MqttMessage[] {
    const alarm = alarmsOfAccount(this.client.accountKey).highestOf(view.serialNumber);
    const takesCommands = acceptsCommandsFor(this.settings.acceptance, view.serialNumber);
    const segments = this.segments.get(view.serialNumber);
    return robotMessages(view, alarm, this.chosenModes.get(view.serialNumber), this.settings.roots, this.settings.origin, {
      takesCommands,
      // The segments of the map the robot is on; none offered while it stands on another (not read yet).
      ...(segments && segments.mapId === view.state.mapId ? { segments: segments.segments } : {}),
    });
  }

  /**
   * The areas of the robot's map as its segments, asked for (C1, kept per
   * account for 10 minutes, shared with robot-job) once per robot and map
   * every SEGMENTS_ASKED_EVERY_MS, only for a robot whose commands the bridge
   * takes: a failed read leaves the segments as they were.
   */
  private askSegments(view: RobotView): void {
    const mapId = view.state.mapId;
    if (mapId === undefined || !acceptsCommandsFor(this.settings.acceptance, view.serialNumber)) return;
    const key = `${view.serialNumber}\n${mapId}`;
    const asked = this.segmentsAskedAt.get(key);
    if (asked !== undefined && Date.now() - asked < SEGMENTS_ASKED_EVERY_MS) return;
    this.segmentsAskedAt.set(key, Date.now());
    areasOfMap(this.client, view.serialNumber, mapId, { signal: this.lifetime.signal }).then(
      (areas) => {
        if (this.closed) return;
        this.segments.set(view.serialNumber, { mapId, segments: segmentsOf(mapId, areas) });
        this.republishRobot(view.serialNumber);
      },
      () => undefined,
    );
  }

  /** A status read for a command: shown at once, without waiting for the next poll. */
  private seen(status: Record<string, unknown>): RobotView {
    // Kept with the robot's other reads, so that the view keeps what only the v1 status says (its task).
    const statuses = fleetStatusesOf(this.client.accountKey);
    statuses.record([status]);
    const serialNumber = serialNumberOf(status);
    const view = this.viewOf((serialNumber === undefined ? undefined : statuses.get(serialNumber)?.status) ?? status);
    if (this.closed || !this.views.has(view.serialNumber)) return view;
    this.views.set(view.serialNumber, view);
    this.republishRobot(view.serialNumber);
    return view;
  }

  /** One robot's messages again (an alarm raised or recovered, a fan speed chosen): only what changed goes out. */
  private republishRobot(serialNumber: string): void {
    const view = this.views.get(serialNumber);
    if (!view || this.closed) return;
    this.send(this.published.changed(this.messagesOf(view)));
  }

  /** Everything again: Home Assistant announced itself, or (`brokerUp`) the broker connection is up, with the removals it may have missed. */
  private republishAll(brokerUp: boolean): void {
    if (this.closed) return;
    this.published.forget();
    const messages = [bridgeAvailabilityMessage(this.settings.roots, true)];
    for (const view of this.views.values()) messages.push(...this.messagesOf(view));
    if (brokerUp) {
      for (const serial of this.removed) messages.push(...removalMessages(serial, this.settings.roots));
      this.removed.clear();
    }
    this.send(this.published.changed(messages));
  }

  private send(messages: MqttMessage[]): void {
    if (messages.length === 0 || this.closed) return;
    // One message per publish, in order, on the one output.
    this.node.send([messages.map((message) => ({ ...message }))]);
  }

  private showPolled(): void {
    const last = this.last;
    if (!last) return;
    const robots = this.t(last.robots === 1 ? "status.one_robot" : "status.robots", { count: last.robots });
    const text = this.t(this.echoed ? "status.polled" : "status.noEcho", { robots, online: last.online, time: last.at.toTimeString().slice(0, 8) });
    this.showStatus(this.echoed ? "green" : "yellow", "dot", text);
  }

  private showStatus(fill: "red" | "green" | "yellow" | "blue" | "grey", shape: "dot" | "ring", text: string): void {
    if (this.closed) return;
    this.said = { fill, shape, text };
    this.statusDrawer.draw();
  }

  /** Polls now (an inject, for a test). */
  pollNow(): Promise<void> {
    return this.loop.pollNow();
  }

  get hasPolled(): boolean {
    return this.polledOnce;
  }

  async close(removed: boolean): Promise<void> {
    // A bridge taken out of the flows says so: its robots' entities turn unavailable.
    if (removed) this.send([bridgeAvailabilityMessage(this.settings.roots, false)]);
    this.closed = true;
    clearInterval(this.echoTimer);
    this.loop.stop();
    this.lifetime.abort();
    this.stopAlarms();
    await this.mirror.flush();
    if (this.pendingCommands > 0) this.node.log(`closed with ${this.pendingCommands} command${this.pendingCommands === 1 ? "" : "s"} under way: no result will be published`);
    this.statusDrawer.close();
  }
}

