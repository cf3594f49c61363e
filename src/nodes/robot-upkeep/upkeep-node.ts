/**
 * robot-upkeep: the upkeep of the account's robots (or those given). On a
 * message, and every few minutes by itself, it reads their statuses and sends
 * the upkeep table on output 1 (per robot and wear part: what is left, the
 * wear rates, the day it is due and why); on output 2 a notice once per
 * crossing: a part at its threshold, a tank that needs a person, a battery
 * out of normal health or too hot, and again when each ends. A message
 * `{replaced: {serialNumber, part}}` records a part's replacement;
 * `{workOrder: {format}}` asks for the work order instead of the table.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage } from "node-red";
import { refuseRobotsNotOfAccount, robotNameOf } from "../../api/account/robot-directory";
import { RobotApiError, invalidInput } from "../../api/errors";
import { readNumberSetting, SERIAL_NUMBER_PATTERN, SERIAL_NUMBER_RULE } from "../../api/settings/input-rules";
import { notOneOf } from "../../api/settings/input-problems";
import { DEFAULT_UPKEEP_LIMITS, zoneOfTable } from "../../api/upkeep/attention";
import { REPORTED_PARTS, WEAR_PARTS, type ReportedPart, type WearPart } from "../../api/upkeep/facts";
import { WORK_ORDER_FORMATS, workOrderAnswer, type WorkOrderFormat } from "../../api/upkeep/work-order";
import { configProblemStatus, lookUpConfig } from "../shared/config-node";
import { translator, type Translate } from "../shared/i18n";
import { StatusDrawer } from "../shared/node-status-view";
import { planClockOf } from "../shared/plan-clock";
import { isPlainObject, readMessage } from "../shared/plain-data";
import { refuseMessages, takeMessages, type Outgoing } from "../shared/robot-input";
import { serialNumberList } from "../shared/settings";
import { runUpkeepLimits } from "../shared/upkeep-table";
import { UpkeepKeeper, type UpkeepRead, type UpkeepSettings } from "./keeper";
import type { UpkeepNotice } from "./notices";
import { upkeepStatus, type UpkeepShown } from "./status";
import { UPKEEP_LIMITS } from "./table";

export interface RobotUpkeepProperties extends NodeDef {
  robot: string;
  /** Serial numbers, separated by commas, spaces or new lines; empty: every robot of the account. */
  serialNumbers?: string;
  every?: string | number;
  partDue?: string | number;
  cleanWaterBelow?: string | number;
  recoveryWaterAbove?: string | number;
  batteryHotAbove?: string | number;
}

/** The parts a replacement may name: a status's wear parts and a task report's. */
const REPLACEABLE_PARTS: readonly (WearPart | ReportedPart)[] = [...new Set([...WEAR_PARTS, ...REPORTED_PARTS])];

function upkeepSettingsOf(config: RobotUpkeepProperties, now: () => number): UpkeepSettings {
  return {
    now,
    serialNumbers: serialNumberList(config.serialNumbers),
    everyMs: readNumberSetting(config.every, "every", UPKEEP_LIMITS.every) * 60_000,
    partDue: readNumberSetting(config.partDue, "partDue", UPKEEP_LIMITS.partDue) / 100,
    limits: {
      ...DEFAULT_UPKEEP_LIMITS,
      cleanWaterBelow: readNumberSetting(config.cleanWaterBelow, "cleanWaterBelow", UPKEEP_LIMITS.cleanWaterBelow),
      recoveryWaterAbove: readNumberSetting(config.recoveryWaterAbove, "recoveryWaterAbove", UPKEEP_LIMITS.recoveryWaterAbove),
      batteryHotAbove: readNumberSetting(config.batteryHotAbove, "batteryHotAbove", UPKEEP_LIMITS.batteryHotAbove),
    },
  };
}

/** msg.serialNumbers (a list, or a text as the dialog takes it); undefined when the message names none. */
function serialNumbersOfMessage(given: unknown): string[] | undefined {
  if (given === undefined || given === "") return undefined;
  if (typeof given === "string") return serialNumberList(given, "msg.serialNumbers");
  if (!Array.isArray(given) || !given.every((name) => typeof name === "string")) throw invalidInput("msg.serialNumbers", "must be a list of serial numbers (strings)");
  return serialNumberList(given.join(" "), "msg.serialNumbers");
}

/** payload.replaced: the robot and part a person replaced. */
function replacementOf(replaced: unknown): { serialNumber: string; part: WearPart | ReportedPart } {
  if (!isPlainObject(replaced)) throw invalidInput("payload.replaced", "must be {serialNumber, part}: the robot and the part replaced");
  const { serialNumber, part } = replaced;
  if (typeof serialNumber !== "string" || !SERIAL_NUMBER_PATTERN.test(serialNumber)) throw invalidInput("payload.replaced.serialNumber", SERIAL_NUMBER_RULE);
  const named = REPLACEABLE_PARTS.find((each) => each === part);
  if (!named) throw invalidInput("payload.replaced.part", notOneOf(REPLACEABLE_PARTS, part ?? null));
  return { serialNumber, part: named };
}

/** payload.workOrder: {format: "csv" | "html"}, the work order of what needs a person (api/upkeep/work-order.ts). */
function workOrderFormatOf(workOrder: unknown): WorkOrderFormat {
  const format = isPlainObject(workOrder) ? workOrder.format : undefined;
  const known = WORK_ORDER_FORMATS.find((each) => each === format);
  if (!known) throw invalidInput("payload.workOrder.format", notOneOf(WORK_ORDER_FORMATS, format ?? null));
  return known;
}

/** A notice in the runtime's language: "Filter of Lobby scrubber: 8 % left, due at 10 %". */
function noticeText(notice: UpkeepNotice, robot: string, t: Translate): string {
  const percent = (share: number | string) => (typeof share === "number" ? Math.round(share * 1000) / 10 : share);
  const isPart = notice.kind === "partDue";
  return t(`notice.${notice.kind}.${notice.state}`, {
    robot,
    // The part's name as the console and the work order say it (the shared catalogue's).
    part: isPart ? t(`upkeep.parts.${notice.part ?? ""}`) : "",
    value: isPart ? percent(notice.value) : notice.value,
    limit: isPart ? percent(notice.limit) : notice.limit,
  });
}

export function setUpRobotUpkeep(RED: NodeAPI, node: Node, config: RobotUpkeepProperties): void {
  const t = translator(RED, "robot-upkeep");
  let settings: UpkeepSettings;
  try {
    const clock = planClockOf((RED.settings as unknown as Record<string, unknown>).robotPlanClock);
    settings = upkeepSettingsOf(config, () => clock.now());
  } catch (error) {
    // A node cannot refuse to deploy: it shows the bad setting and refuses each message with it.
    const problem = error instanceof RobotApiError ? error : invalidInput("", String(error));
    return refuseMessages(node, { fill: "red", shape: "ring", text: t("status.setting", { field: problem.field ?? problem.code }) }, problem, { atDeploy: true, eachMessage: true });
  }
  const { client, problem } = lookUpConfig(RED, config.robot);
  if (problem) return refuseMessages(node, configProblemStatus(problem, t), problem, { atDeploy: true, eachMessage: true });

  // The node's limits are the account's, which the console and robot-mqtt read (one node's, where two run on the account).
  const limits = runUpkeepLimits(client.accountKey, node.id, { ...settings.limits, partDue: settings.partDue });
  if (limits.conflict) node.warn(t("warning.limits", { others: limits.conflict.others.join(", "), winner: limits.conflict.winner }));
  const keeper = new UpkeepKeeper(node, client, settings);
  let shown: UpkeepShown = { kind: "reading" };
  const drawer = new StatusDrawer(node, () => upkeepStatus(shown, t));
  drawer.draw();

  /** Output 1 the table (on `msg` when a message asked), output 2 one message per notice. */
  const outgoing = (read: UpkeepRead, msg: NodeMessage = { topic: "upkeep" }): Outgoing => {
    msg.payload = read.table;
    const notices = read.notices.map((notice) => {
      const robot = robotNameOf(client.accountKey, notice.serialNumber);
      return { topic: notice.serialNumber, payload: { ...notice, name: robot, text: noticeText(notice, robot, t) } };
    });
    return [msg, notices.length > 0 ? notices : null];
  };

  const read = async (serialNumbers?: string[]): Promise<UpkeepRead> => {
    try {
      const result = await keeper.read(serialNumbers);
      shown = { kind: "read", robots: result.table.length, open: keeper.notices.counts(), at: new Date(settings.now()) };
      return result;
    } catch (error) {
      if (!(error instanceof RobotApiError && error.kind === "aborted")) shown = { kind: "failed", error };
      throw error;
    } finally {
      drawer.draw();
      keeper.schedule();
    }
  };

  keeper.onTimer = () => {
    read().then(
      (result) => node.send(outgoing(result)),
      (error: unknown) => {
        if (!(error instanceof RobotApiError && error.kind === "aborted")) node.error(error, { topic: "upkeep", payload: {} });
      },
    );
  };
  void keeper.ready.then(() => {
    if (settings.everyMs > 0) keeper.onTimer?.();
  });

  takeMessages(RED, node, async (msg) => {
    const input = readMessage(msg, ["serialNumbers"]);
    const named = serialNumbersOfMessage(input.serialNumbers);
    if (named) {
      const refusing = refuseRobotsNotOfAccount(client.accountKey, "msg.serialNumbers", named);
      if (refusing) await refusing;
    }
    const request = isPlainObject(input.payload) ? input.payload : {};
    // Everything a message asks is checked before any of it is done: a bad request records and reads nothing.
    const workOrder = request.workOrder === undefined ? undefined : workOrderFormatOf(request.workOrder);
    const replaced = request.replaced === undefined ? undefined : replacementOf(request.replaced);
    if (replaced) {
      const refusing = refuseRobotsNotOfAccount(client.accountKey, "payload.replaced.serialNumber", [replaced.serialNumber]);
      if (refusing) await refusing;
      await keeper.replaced(replaced.serialNumber, replaced.part);
    }
    const result = await read(named);
    const out = outgoing(result, msg);
    if (workOrder) msg.payload = workOrderAnswer(result.table, workOrder, t, { limits: settings.limits, now: new Date(settings.now()), timeZone: zoneOfTable(result.table) });
    return out;
  });

  node.on("close", (_removed: boolean, done: () => void) => {
    limits.stop();
    drawer.close();
    keeper.close().then(done, done);
  });
}
