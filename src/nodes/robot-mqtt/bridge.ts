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
import { isProblem, mayOvertakePending, payloadText, WarningGate, type ProblemKind } from "../../api/mqtt/commands";
import type { Origin } from "../../api/mqtt/discovery";
import { bridgeAvailabilityMessage, PublishedPayloads, removalMessages, robotMessages, type MqttMessage } from "../../api/mqtt/publication";
import { robotViewOf, type RobotView } from "../../api/mqtt/robot-view";
import { readIncomingTopic, robotTopics, topicLevelProblem, type TopicRoots } from "../../api/mqtt/topics";
import { FleetWatcher, WatchLoop, type PollSummary, type RobotUpdate } from "../../api/watching/watcher";
import { DEFAULT_BATTERY_THRESHOLDS } from "../../api/watching/watcher-state";
import { SERIAL_NUMBER_PATTERN } from "../../api/settings/input-rules";
import { ContextMirror } from "../shared/context-mirror";
import type { Translate } from "../shared/i18n";
import { StatusDrawer } from "../shared/node-status-view";
import { carryOut } from "./commands";
import type { BridgeResult } from "./jobs";

export interface BridgeSettings {
  roots: TopicRoots;
  intervalMs: number;
  /** Empty: every robot of the account. */
  serialNumbers: string[];
  startTasks: ReadonlyMap<string, string>;
  origin: Origin;
}

/** Until the bridge hears its own messages back from mqtt in, it repeats its availability this often (mqtt out drops what it gets before its connection is up). */
export const UNTIL_ECHO_MS = 3000;

/**
 * Reads the robots' statuses (S-line batch: navigation, cleaning modes,
 * remote control) and hands every robot on at every poll: the bridge decides
 * what changed by what it published, not by the watcher's thresholds.
 */
class StatusReader extends FleetWatcher {
  constructor(
    private readonly account: RobotClient,
    private readonly names: readonly string[],
    private readonly signal: AbortSignal,
    /** A listed robot that cannot be published (nor asked about: the batch status takes serial numbers of letters, digits, - and _). */
    private readonly unpublishable: (serialNumber: string, problem: string) => void,
  ) {
    super(account, { serialNumbers: names, line: "s", thresholds: DEFAULT_BATTERY_THRESHOLDS, callOptions: { signal } });
  }

  override async poll(): Promise<{ updates: RobotUpdate[]; summary: PollSummary }> {
    const options = { signal: this.signal };
    const listed = this.names.length > 0 ? this.names : (await this.account.listAllRobots(options)).map((robot) => robot.serialNumber);
    const names = listed.filter((serial) => {
      const problem = topicLevelProblem(serial) ?? (SERIAL_NUMBER_PATTERN.test(serial) ? undefined : "is not letters, digits, - and _");
      if (problem) this.unpublishable(serial, problem);
      return problem === undefined;
    });
    const statuses = names.length === 0 ? [] : ((await this.account.batchGetStatuses(names, { ...options, line: "s" })) as Record<string, unknown>[]);
    this.fleetStatuses.record(statuses);
    const updates = statuses.map((status) => {
      const view = robotViewOf(status);
      return { serialNumber: view.serialNumber, status, state: view.state, changes: {}, initial: false, wentOffline: false };
    });
    return { updates, summary: { robots: statuses.length, online: updates.filter((update) => update.state.online === true).length, at: new Date() } };
  }
}

export class MqttBridge {
  private readonly published = new PublishedPayloads();
  private readonly views = new Map<string, RobotView>();
  /** Robots whose configs are out there (kept per account and prefix: a redeploy or restart still removes a robot that left meanwhile). */
  private readonly devices: Set<string>;
  private readonly chosenModes: Map<string, string>;
  private readonly mirror: ContextMirror;
  private readonly warnings = new WarningGate();
  private readonly skipped = new Set<string>();
  /** Robots removed since deploy: their removal goes out again with everything else (mqtt out may have dropped it). */
  private readonly removed = new Set<string>();
  private readonly lifetime = new AbortController();
  private readonly loop: WatchLoop;
  private echoed = false;
  private echoTimer: ReturnType<typeof setInterval> | undefined;
  private polledOnce = false;
  private closed = false;
  private pendingCommands = 0;
  /** Whether this process publishes: on a shared account one instance does, and answers the commands; the others stand by. */
  private watching = true;
  /** Commands under way per robot: a second start waits for nothing, it is refused (see mayOvertakePending). */
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
    const reader = new StatusReader(client, settings.serialNumbers, this.lifetime.signal, (serial, problem) => this.skip(serial, problem));
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
      this.republishAll();
    }
    switch (incoming.kind) {
      case "own":
        return;
      case "birth": {
        const text = payloadText(msg.payload);
        if (!isProblem(text) && text.text.trim() === "online") this.republishAll();
        return;
      }
      case "unknown": {
        const reason = `nothing is taken on topic ${String(msg.topic).slice(0, 200)} (use ${this.settings.roots.base}/<serial>/command, set_fan_speed or send_command)`;
        this.answerProblem("topic", reason, incoming.serialNumber);
        return;
      }
      case "input": {
        const text = payloadText(msg.payload);
        if (isProblem(text)) {
          this.answerProblem(text.problem, text.reason, incoming.serialNumber, incoming.input);
          return;
        }
        void this.command(incoming.serialNumber, incoming.input, text.text);
      }
    }
  }

  private async command(serialNumber: string, input: "command" | "fanSpeed" | "sendCommand", text: string): Promise<void> {
    if ((this.pendingByRobot.get(serialNumber) ?? 0) > 0 && !mayOvertakePending(input, text)) {
      const asked = input === "command" ? text.trim().slice(0, 40) : "send_command";
      this.publishResult(serialNumber, { command: asked, ok: false, reason: "another command for this robot is still under way (stop and pause are always carried out)" });
      return;
    }
    this.pendingCommands++;
    this.pendingByRobot.set(serialNumber, (this.pendingByRobot.get(serialNumber) ?? 0) + 1);
    try {
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
    } finally {
      this.pendingCommands--;
      const left = (this.pendingByRobot.get(serialNumber) ?? 1) - 1;
      if (left > 0) this.pendingByRobot.set(serialNumber, left);
      else this.pendingByRobot.delete(serialNumber);
    }
  }

  private answerProblem(kind: ProblemKind, reason: string, serialNumber?: string, input?: string): void {
    this.warn(kind, serialNumber ? `${serialNumber}: ${reason}` : reason);
    if (serialNumber !== undefined) this.publishResult(serialNumber, { command: input === "fanSpeed" ? "set_fan_speed" : input === "sendCommand" ? "send_command" : (input ?? "none"), ok: false, reason });
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
    for (const update of updates) {
      const view = this.viewOf(update.status);
      const problem = topicLevelProblem(view.serialNumber);
      if (problem) {
        this.skip(view.serialNumber, problem);
        continue;
      }
      seen.add(view.serialNumber);
      this.removed.delete(view.serialNumber);
      this.views.set(view.serialNumber, view);
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
      this.removed.add(serial);
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
   * software version) and where the package sent it, while it has not arrived (the vacuum's returning).
   */
  private viewOf(status: Record<string, unknown>): RobotView {
    const serialNumber = serialNumberOf(status);
    const view = robotViewOf(status, serialNumber === undefined ? undefined : robotDirectoryOf(this.client.accountKey).entryOf(serialNumber));
    const destination = sentNavigationsOf(this.client.accountKey).destinationOf(view.serialNumber, view.state, this.client.arrivalRadius);
    return destination === undefined ? view : { ...view, destination };
  }

  private messagesOf(view: RobotView): MqttMessage[] {
    const alarm = alarmsOfAccount(this.client.accountKey).highestOf(view.serialNumber);
    return robotMessages(view, alarm, this.chosenModes.get(view.serialNumber), this.settings.roots, this.settings.origin);
  }

  /** A status read for a command: shown at once, without waiting for the next poll. */
  private seen(status: Record<string, unknown>): RobotView {
    const view = this.viewOf(status);
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

  /** Everything again: Home Assistant announced itself, or the broker connection is up. */
  private republishAll(): void {
    if (this.closed) return;
    this.published.forget();
    const messages = [bridgeAvailabilityMessage(this.settings.roots, true)];
    for (const view of this.views.values()) messages.push(...this.messagesOf(view));
    for (const serial of this.removed) messages.push(...removalMessages(serial, this.settings.roots));
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
