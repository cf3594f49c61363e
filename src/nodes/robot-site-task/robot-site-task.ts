/**
 * robot-site-task: the site endpoints of an "s line" robot. Reads its status
 * (B1) or its site (B2), creates a temporary site task (B3) or sends a
 * temporary task (B4). The B3 and B4 bodies come whole from msg.payload, or are
 * built from the node's fields for the common one-floor, one-area case.
 */
import type { Node, NodeAPI, NodeDef } from "node-red";
import { tempTaskConfirmationRule } from "../../api/watching/confirmation";
import { RobotApiError, invalidInput, tempTaskRefusalOf } from "../../api/errors";
import { deliveredNotStarted } from "../../api/cloud/command-status";
import { readNumberSetting } from "../../api/settings/input-rules";
import { translator, type Translate } from "../shared/i18n";
import { configuredConfirmTimeout, confirmOnRobot, messageWithConfirmation, startFactsOf, type Confirmation } from "../shared/confirm";
import { isPlainObject } from "../shared/plain-data";
import type { RobotStatus, SiteInfo, TempSiteTaskRequest, TempSiteTaskResult, TempTaskCommandRequest, TempTaskCommandResult } from "../../api/cloud/schemas";
import { handleRobotInput, type RobotCall } from "../shared/robot-input";
import { chooseSetting, evaluateProperty, firstText, isTicked, resolveSerialNumber, serialNumberField, type SerialNumberSetting } from "../shared/settings";
import { robotStatusText } from "../shared/status-text";
import { SEND_WHEN } from "../shared/confirm-table";
import {
  BODY_SOURCES,
  DIALOG_FIELDS_OF,
  SITE_TASK_OPERATIONS,
  WHOLE_NUMBER_FIELDS,
  type BodySource,
  type SiteTaskOperation,
  type TextField,
} from "./table";


/**
 * msg.payload is taken as the B3 body when it carries one of these fields.
 * serialNumber alone does not count: on every operation it only names the robot.
 */
export const TEMP_SITE_TASK_BODY_FIELDS = ["cleaningMode", "loopCount", "siteId", "siteName", "taskName", "floors", "tasks"] as const;
/** msg.payload is taken as the B4 body when it carries one of these fields. */
export const TEMP_TASK_BODY_FIELDS = ["productId", "tempTaskCommand"] as const;


export interface RobotSiteTaskProperties extends NodeDef, SerialNumberSetting, Record<TextField | `${TextField}Type`, string> {
  robot: string;
  operation: string;
  floorIndex: string | number;
  /** A checkbox's boolean; flows edited by hand may hold "true" or "false". */
  loop: boolean | string;
  loopCount: string | number;
  /** One of BODY_SOURCES; flows saved before it existed have none ("auto"). */
  bodyFrom?: string;
  /** For the temporary tasks: "accepted" (flows saved before it existed) or "shown". */
  sendWhen?: string;
  confirmTimeout?: string | number;
}

type SiteTaskAnswer = RobotStatus | SiteInfo | TempSiteTaskResult | TempTaskCommandResult;

/** The answer, and for a temporary task sent with "the robot shows it", its confirmation. */
interface SiteTaskOutcome {
  answer: SiteTaskAnswer;
  confirmation?: Confirmation;
}


function carriesAny(payload: unknown, fields: readonly string[]): payload is Record<string, unknown> {
  return isPlainObject(payload) && fields.some((field) => field in payload);
}

/** Short status text for an answer: "RUNNING 87%", the site's name, "task sent". */
export function statusTextFor(operation: SiteTaskOperation, answer: SiteTaskAnswer, t: Translate): string {
  switch (operation) {
    case "status":
      return robotStatusText(answer, t);
    case "siteInfo": {
      const site = isPlainObject(answer.site) ? answer.site : {};
      return firstText(answer.siteName, answer.name, site.siteName, site.name, answer.siteId, site.id) ?? t("status.siteInfo");
    }
    case "createTempTask":
    case "sendTempTask":
      return t("status.taskSent");
  }
}

/**
 * A task the robot refused (COMMAND_REJECTED), worded in the runtime's
 * language: its code and, where one is published, what it means. Every other
 * failure, and every field a flow may switch on (msg.error.cause.resultCode), stays as it is.
 */
function rejectionInRuntimeLanguage(error: unknown, t: Translate): unknown {
  if (!(error instanceof RobotApiError) || error.kind !== "rejected" || error.resultCode === undefined) return error;
  const code = error.resultCode || "none";
  const refusal = tempTaskRefusalOf(error.resultCode);
  const words = refusal ? t("rejected.withMeaning", { code, meaning: t(`refusals.${refusal.key}`) }) : t("rejected.codeOnly", { code });
  const { operation, status, resultCode } = error;
  return new RobotApiError({ kind: "rejected", operation, status, resultCode, message: operation ? `${operation}: ${words}` : words });
}

/** Wires one robot-site-task node: how each message becomes a call. */
function setUpSiteTask(RED: NodeAPI, node: Node, config: RobotSiteTaskProperties): void {
  const t = translator(RED, "robot-site-task");
  /** The robot: the body's own serial field, else msg.serialNumber, else the node's Serial no. */
  const serialNumberFor = (call: RobotCall, fromBody: unknown, bodyField?: string) =>
    resolveSerialNumber(RED, node, call, fromBody, config, serialNumberField(call, fromBody, { payload: bodyField }));

  /** The serial number carried by a payload that is not a body: msg.payload.serialNumber. */
  function payloadSerialNumber(call: RobotCall): unknown {
    return isPlainObject(call.input.payload) ? call.input.payload.serialNumber : undefined;
  }

  /**
   * The operation's text fields of the dialog, evaluated for this message.
   * Every one is required: all that are missing are named in one error, so a
   * user fills them in one go rather than one per message.
   */
  async function dialogTexts(call: RobotCall, operation: keyof typeof DIALOG_FIELDS_OF): Promise<Record<TextField, unknown>> {
    const values = {} as Record<TextField, unknown>;
    const missing: TextField[] = [];
    for (const field of DIALOG_FIELDS_OF[operation]) {
      if (field in WHOLE_NUMBER_FIELDS || field === "loop") continue;
      const name = field as TextField;
      // A flow saved before cleaning mode was a TypedInput has no cleaningModeType: its text is a string.
      const value = await evaluateProperty(RED, node, call.msg, config[name], config[`${name}Type`], name);
      if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) missing.push(name);
      values[name] = value;
    }
    if (missing.length > 0) {
      const which = missing.length === 1 ? `is required` : `are required (${missing.join(", ")})`;
      throw invalidInput(missing[0]!, `${which} for ${operation} when msg.payload is not the request body; set ${missing.length === 1 ? "it" : "them"} in the node`);
    }
    return values;
  }

  const bodyFrom = (): BodySource => chooseSetting({}, "bodyFrom", config.bodyFrom || "auto", BODY_SOURCES);

  /** Whether this message's body is msg.payload, as the node's Request body setting says. */
  function bodyFromPayload(payload: unknown, bodyFields: readonly string[]): payload is Record<string, unknown> {
    const source = bodyFrom();
    if (source === "fields") return false;
    if (source === "auto") return carriesAny(payload, bodyFields);
    if (!isPlainObject(payload)) throw invalidInput("payload", "must be the request body (the node's Request body is msg.payload)");
    return true;
  }

  async function createTempTaskRequest(call: RobotCall): Promise<TempSiteTaskRequest> {
    const payload = call.input.payload;
    if (bodyFromPayload(payload, TEMP_SITE_TASK_BODY_FIELDS)) {
      // The API's body is sent as given; only a missing serial number is filled in.
      return { ...payload, serialNumber: await serialNumberFor(call, payload.serialNumber) } as TempSiteTaskRequest;
    }
    const text = await dialogTexts(call, "createTempTask");
    const { mapId, areaId } = text;
    return {
      cleaningMode: text.cleaningMode,
      loopCount: readNumberSetting(config.loopCount, "loopCount", WHOLE_NUMBER_FIELDS.loopCount),
      siteId: text.siteId,
      siteName: text.siteName,
      taskName: text.taskName,
      floors: [
        {
          index: readNumberSetting(config.floorIndex, "floorIndex", WHOLE_NUMBER_FIELDS.floorIndex),
          name: text.floorName,
          mapId,
          area: { id: areaId, name: text.areaName },
        },
      ],
      tasks: [{ mapId, subTasks: [{ mapId, areaId }] }],
      serialNumber: await serialNumberFor(call, payloadSerialNumber(call)),
    } as TempSiteTaskRequest;
  }

  async function sendTempTaskRequest(call: RobotCall): Promise<TempTaskCommandRequest> {
    const payload = call.input.payload;
    if (bodyFromPayload(payload, TEMP_TASK_BODY_FIELDS)) {
      return { ...payload, productId: await serialNumberFor(call, payload.productId, "payload.productId") } as TempTaskCommandRequest;
    }
    const text = await dialogTexts(call, "sendTempTask");
    return {
      productId: await serialNumberFor(call, payloadSerialNumber(call)),
      tempTaskCommand: {
        taskName: text.taskName,
        cleaningMode: text.cleaningMode,
        // The client sends loop, loopCount and areaId as the strings the cloud wants.
        loop: isTicked(config.loop),
        loopCount: readNumberSetting(config.loopCount, "loopCount", WHOLE_NUMBER_FIELDS.loopCount),
        mapName: text.mapName,
        startParam: { mapId: text.mapId, areaId: text.areaId },
      },
    } as TempTaskCommandRequest;
  }

  const confirmTimeout = configuredConfirmTimeout(config.confirmTimeout);

  /** A temporary task the cloud accepted, and when asked, the robot running it. */
  async function temporaryTask<Body extends TempSiteTaskRequest | TempTaskCommandRequest>(
    call: RobotCall,
    request: Body,
    send: (request: Body) => Promise<SiteTaskAnswer>,
    robotOf: (request: Body) => unknown,
    taskNameOf: (request: Body) => unknown,
  ): Promise<SiteTaskOutcome> {
    const shown = chooseSetting(call.input, "sendWhen", config.sendWhen || "accepted", SEND_WHEN) === "shown";
    const timeoutMs = shown ? confirmTimeout() : 0;
    // The task's report settles its start too: the reports kept before it is sent are not its task's.
    const start = shown ? startFactsOf(call.client, String(robotOf(request))) : undefined;
    const answer = await send(request).catch((error: unknown) => {
      throw rejectionInRuntimeLanguage(error, t);
    });
    if (!shown) return { answer };
    // The client checked the request, so the robot and task name are what the cloud was sent.
    const taskName = taskNameOf(request);
    const rule = tempTaskConfirmationRule(typeof taskName === "string" ? taskName : undefined);
    // cmdStatus 6: the robot has the task and has not started it; the wait says so under the node.
    const how = { delivered: deliveredNotStarted(answer) };
    return { answer, confirmation: await confirmOnRobot(call, String(robotOf(request)), rule, timeoutMs, "temporary task", how, start) };
  }

  handleRobotInput<SiteTaskOutcome>(RED, node, config.robot, {
    reads: ["serialNumber", "operation", "sendWhen"],
    run: async (call) => {
      const { client, options } = call;
      switch (chooseSetting(call.input, "operation", config.operation, SITE_TASK_OPERATIONS)) {
        case "status":
          return { answer: await client.getRobotStatus({ serialNumber: (await serialNumberFor(call, payloadSerialNumber(call))) as string }, options) };
        case "siteInfo":
          return { answer: await client.getSiteInfo({ serialNumber: (await serialNumberFor(call, payloadSerialNumber(call))) as string }, options) };
        case "createTempTask":
          return temporaryTask(
            call,
            await createTempTaskRequest(call),
            (request) => client.createTempSiteTask(request, options),
            (request) => request.serialNumber,
            (request) => request.taskName,
          );
        case "sendTempTask":
          return temporaryTask(
            call,
            await sendTempTaskRequest(call),
            (request) => client.sendTempTask(request, options),
            (request) => request.productId,
            (request) => (isPlainObject(request.tempTaskCommand) ? request.tempTaskCommand.taskName : undefined),
          );
      }
    },
    // The operation is read again from the same input and config: run() already accepted it.
    statusText: ({ answer, confirmation }, call) => {
      const text = statusTextFor(chooseSetting(call.input, "operation", config.operation, SITE_TASK_OPERATIONS), answer, t);
      return confirmation ? t("status.taskShown", { state: confirmation.state, seconds: Math.round(confirmation.seconds) }) : text;
    },
    output: ({ answer, confirmation }, msg) => messageWithConfirmation(msg, answer, confirmation),
  });
}

export default function registerRobotSiteTask(RED: NodeAPI): void {
  RED.nodes.registerType("robot-site-task", function RobotSiteTask(this: Node, config: RobotSiteTaskProperties) {
    RED.nodes.createNode(this, config);
    setUpSiteTask(RED, this, config);
  });
}
