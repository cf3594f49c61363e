/**
 * robot-status: reads robots' state. Once per message: one robot's status,
 * the status of many (batch calls of 11), the account's robots, or a robot's
 * task reports. Or, in watch mode, by itself: it polls the fleet every N
 * seconds and sends a message only for a robot whose state changed in a way a
 * flow cares about (src/api/watching/watcher.ts decides what that is).
 */
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeStatus } from "node-red";
import { internalError, invalidInput } from "../../api/errors";
import { readNumberSetting } from "../../api/settings/input-rules";
import { withTaskReading } from "../../api/cloud/task-outcomes";
import type { RobotStatus, TaskReportList } from "../../api/cloud/schemas";
import { FleetWatcher, WatchLoop, type PollSummary, type RobotUpdate } from "../../api/watching/watcher";
import type { BatteryThresholds } from "../../api/watching/watcher-state";
import { refuseRobotsNotOfAccount } from "../../api/account/robot-directory";
import { serialNumberOf } from "../../api/watching/status-reader";
import { upkeepFactsOf } from "../../api/upkeep/facts";
import { configProblemStatus, lookUpConfig } from "../shared/config-node";
import { translator, type Translate } from "../shared/i18n";
import { isPlainObject } from "../shared/plain-data";
import { handleRobotInput, refuseMessages, takeMessages, type RobotCall } from "../shared/robot-input";
import { StatusDrawer } from "../shared/node-status-view";
import { chooseSetting, isTicked, resolveSerialNumber, type SerialNumberSetting, serialNumberList } from "../shared/settings";
import { robotStatusText } from "../shared/status-text";
import { FLEET_OUTPUTS, STATUS_LINES, STATUS_OPERATIONS, WATCH_LIMITS } from "./table";


export interface RobotStatusProperties extends NodeDef, SerialNumberSetting {
  robot: string;
  operation: string;
  /** Serial numbers for fleetStatus and watching, separated by commas, spaces or new lines; empty: every robot. */
  serialNumbers: string;
  fleetOutput: string;
  line: string;
  watch: boolean | string;
  /** Watch mode: also report a robot's map and position changing. */
  watchMoves?: boolean | string;
  interval: string | number;
  batteryStep: string | number;
  batteryLow: string | number;
}


/** "1 robot" / "3 robots": the catalogue has a key for one and one for any other count. */
function counted(t: Translate, count: number, noun: "robot" | "report"): string {
  return t(count === 1 ? `status.one_${noun}` : `status.${noun}s`, { count });
}

/**
 * Puts the upkeep facts (src/api/upkeep/facts.ts) of the message's status on
 * it as msg.upkeep, or of a list of statuses by serial number; none where no
 * status carries any (the V3 status), not even one a copy or the input brought.
 */
function withUpkeep(msg: NodeMessage & { upkeep?: unknown }): NodeMessage {
  const payload: unknown = msg.payload;
  const upkeep = Array.isArray(payload)
    ? Object.fromEntries(
        (payload as Record<string, unknown>[]).flatMap((status) => {
          const facts = upkeepFactsOf(status);
          const serialNumber = serialNumberOf(status);
          return facts && serialNumber !== undefined ? [[serialNumber, facts]] : [];
        }),
      )
    : upkeepFactsOf(payload);
  if (upkeep && Object.keys(upkeep).length > 0) msg.upkeep = upkeep;
  else delete msg.upkeep;
  return msg;
}

function clock(at: Date): string {
  return at.toTimeString().slice(0, 8);
}

type OnceResult =
  | { operation: "status"; status: RobotStatus }
  | { operation: "fleetStatus"; statuses: Record<string, unknown>[]; each: boolean }
  | { operation: "listRobots"; robots: unknown[] }
  | { operation: "taskReports"; reports: TaskReportList };

function statusTextOf(result: OnceResult, t: Translate): string {
  switch (result.operation) {
    case "status":
      return robotStatusText(result.status, t);
    case "fleetStatus": {
      const online = result.statuses.filter((status) => status.online === true).length;
      return t("status.fleet", { robots: counted(t, result.statuses.length, "robot"), online });
    }
    case "listRobots":
      return counted(t, result.robots.length, "robot");
    case "taskReports":
      return counted(t, result.reports.robotTaskReports.length, "report");
  }
}

/** Once per message: each input is one read and ends in one output (or one per robot) or one error. */
function setUpOnce(RED: NodeAPI, node: Node, config: RobotStatusProperties, settings: StatusSettings, t: Translate): void {
  async function read(call: RobotCall): Promise<OnceResult> {
    const { client, options } = call;
    const operation = chooseSetting(call.input, "operation", config.operation, STATUS_OPERATIONS);
    const payload = call.input.payload;
    const fromPayload = isPlainObject(payload) ? payload.serialNumber : undefined;
    switch (operation) {
      case "status": {
        const serialNumber = (await resolveSerialNumber(RED, node, call, fromPayload, config)) as string;
        return { operation, status: await client.getRobotStatus({ serialNumber }, options) };
      }
      case "fleetStatus": {
        let names = settings.serialNumbers;
        if (Array.isArray(payload)) {
          if (!payload.every((name) => typeof name === "string")) throw invalidInput("payload", "must be a list of serial numbers (strings)");
          names = payload;
        }
        const refusing = refuseRobotsNotOfAccount(client.accountKey, Array.isArray(payload) ? "payload" : "serialNumbers", names);
        if (refusing) await refusing;
        if (names.length === 0) names = (await client.listAllRobots(options)).map((robot) => robot.serialNumber);
        const statuses = names.length === 0 ? [] : await client.batchGetStatuses(names, { ...options, line: settings.line });
        return { operation, statuses: statuses, each: settings.each };
      }
      case "listRobots":
        return { operation, robots: await client.listAllRobots(options) };
      case "taskReports": {
        const serialNumber = (await resolveSerialNumber(RED, node, call, fromPayload, config)) as string;
        const page = isPlainObject(payload) ? { page: payload.page, pageSize: payload.pageSize } : {};
        const request = { serialNumber, ...Object.fromEntries(Object.entries(page).filter(([, value]) => value !== undefined)) };
        const reports = await client.listTaskReports(request, options);
        // Read like robot-events' pushed reports: the same outcome and cleaning kind beside the cloud's fields.
        return { operation, reports: { ...reports, robotTaskReports: reports.robotTaskReports.map(withTaskReading) } };
      }
    }
  }

  handleRobotInput<OnceResult>(RED, node, config.robot, {
    reads: ["serialNumber", "operation"],
    run: read,
    statusText: (result) => statusTextOf(result, t),
    output: (result, msg) => {
      switch (result.operation) {
        case "status":
          msg.payload = result.status;
          return withUpkeep(msg);
        case "fleetStatus":
          if (!result.each) {
            msg.payload = result.statuses;
            return withUpkeep(msg);
          }
          // One message per robot, each its own copy: a flow may change one without touching the others.
          return [
            result.statuses.map((status, index) => {
              const copy = index === 0 ? msg : RED.util.cloneMessage(msg);
              copy.payload = status;
              copy.topic = serialNumberOf(status) ?? "";
              return withUpkeep(copy);
            }),
          ];
        case "listRobots":
          msg.payload = result.robots;
          return msg;
        case "taskReports":
          msg.payload = result.reports;
          return msg;
      }
    },
  });
}

/** The message of one robot's update: its status and upkeep, what changed, and whether it is its first report. */
function updateMessage(update: RobotUpdate): NodeMessage {
  return withUpkeep({ topic: update.serialNumber, payload: update.status, changes: update.changes, initial: update.initial });
}

/** What the status under a watching node says: its last poll, or why it has none to show. */
type WatchShown =
  | { kind: "firstPoll" | "standingBy" | "polled" }
  | { kind: "failing"; streak: number; code: string }
  | { kind: "mirroring"; robots: number };

function watchStatus(shown: WatchShown, last: PollSummary | undefined, t: Translate): NodeStatus {
  switch (shown.kind) {
    case "polled":
      if (last) return { fill: "green", shape: "dot", text: t("status.polled", { robots: counted(t, last.robots, "robot"), online: last.online, time: clock(last.at) }) };
      return { fill: "blue", shape: "ring", text: t("status.firstPoll") };
    case "failing":
      return { fill: "red", shape: "ring", text: shown.streak > 1 ? t("status.pollsFailed", { count: shown.streak, code: shown.code }) : t("status.pollFailed", { code: shown.code }) };
    case "mirroring":
      return { fill: "blue", shape: "ring", text: t("status.mirroring", { robots: counted(t, shown.robots, "robot") }) };
    default:
      return { fill: "blue", shape: "ring", text: t(`status.${shown.kind}`) };
  }
}

/**
 * Watch mode: polls from deploy to close; a message in asks for a poll now.
 * Output 1 gets every robot whose state changed (all of them once, at the
 * first poll), output 2 a copy for each robot that went offline.
 */
function setUpWatch(
  RED: NodeAPI,
  node: Node,
  config: RobotStatusProperties,
  settings: StatusSettings,
  t: Translate,
): void {
  const { client, problem } = lookUpConfig(RED, config.robot);
  if (problem) {
    refuseMessages(node, configProblemStatus(problem, t), problem, { atDeploy: true, eachMessage: true });
    return;
  }
  const lifetime = new AbortController();
  const watcher = new FleetWatcher(client, {
    serialNumbers: settings.serialNumbers,
    line: settings.line,
    thresholds: settings.thresholds,
    moves: settings.moves,
    callOptions: { signal: lifetime.signal },
  });
  let last: PollSummary | undefined;
  // A shared account: the same node in every copy of the flows polls in one instance at a time.
  const lease = client.sharing?.watchLease(node.id, settings.intervalMs);
  let shown: WatchShown = { kind: lease ? "standingBy" : "firstPoll" };
  const drawer = new StatusDrawer(node, () => watchStatus(shown, last, t));
  const show = (next: WatchShown) => {
    shown = next;
    drawer.draw();
  };
  const showPolled = () => {
    if (last) show({ kind: "polled" });
  };
  drawer.draw();
  const loop = new WatchLoop(watcher, settings.intervalMs, {
    polled: (updates, summary) => {
      last = summary;
      showPolled();
      if (updates.length === 0) return;
      const offline = updates.filter((update) => update.wentOffline).map(updateMessage);
      node.send([updates.map(updateMessage), offline]);
    },
    failing: (error, streak) => {
      show({ kind: "failing", streak, code: error.code });
    },
    // Once per streak: a cloud that is down for an hour is one error for a Catch node, not 120.
    failed: (error) => {
      // With a message, Node-RED hands the error to Catch nodes (msg.error.code, msg.error.cause as for any node).
      node.error(error, { topic: "poll", payload: { failedPolls: 1 } });
    },
    recovered: (failures) => {
      node.warn(`polls work again after ${failures} failed poll${failures === 1 ? "" : "s"}`);
      showPolled();
    },
    watching: (watching) => {
      if (!watching) show({ kind: "standingBy" });
    },
    // Standing by, it keeps the watching instance's reads for this instance's console, and sends nothing.
    mirrored: (robots) => {
      show({ kind: "mirroring", robots });
    },
  }, undefined, lease);
  loop.start();

  // A message asks for a poll now; what it finds goes out like any poll's changes.
  takeMessages(RED, node, async () => {
    await loop.pollNow();
    return undefined;
  });
  node.on("close", (_removed: boolean, done: () => void) => {
    loop.stop();
    lifetime.abort();
    drawer.close();
    done();
  });
}

interface StatusSettings {
  serialNumbers: string[];
  line: "v1" | "s";
  each: boolean;
  intervalMs: number;
  thresholds: BatteryThresholds;
  moves: boolean;
}

function setUpRobotStatus(RED: NodeAPI, node: Node, config: RobotStatusProperties): void {
  const t = translator(RED, "robot-status");
  let settings: StatusSettings;
  try {
    settings = {
      serialNumbers: serialNumberList(config.serialNumbers),
      line: chooseSetting({}, "line", config.line || "v1", STATUS_LINES),
      each: chooseSetting({}, "fleetOutput", config.fleetOutput || "each", FLEET_OUTPUTS) === "each",
      intervalMs: readNumberSetting(config.interval, "interval", WATCH_LIMITS.interval) * 1000,
      thresholds: { step: readNumberSetting(config.batteryStep, "batteryStep", WATCH_LIMITS.batteryStep), low: readNumberSetting(config.batteryLow, "batteryLow", WATCH_LIMITS.batteryLow) },
      moves: isTicked(config.watchMoves),
    };
  } catch (error) {
    // A node cannot refuse to deploy: it shows the bad setting and refuses each message with it.
    const problem = internalError(error);
    refuseMessages(node, { fill: "red", shape: "ring", text: t("status.setting", { field: problem.field ?? problem.code }) }, problem, { atDeploy: true, eachMessage: true });
    return;
  }
  if (isTicked(config.watch)) setUpWatch(RED, node, config, settings, t);
  else setUpOnce(RED, node, config, settings, t);
}

export default function registerRobotStatus(RED: NodeAPI): void {
  RED.nodes.registerType("robot-status", function RobotStatusNode(this: Node, config: RobotStatusProperties) {
    RED.nodes.createNode(this, config);
    setUpRobotStatus(RED, this, config);
  });
}
