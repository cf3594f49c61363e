/**
 * robot-events: receives what the cloud's Robot Push Service POSTs, like
 * Node-RED's own http in node: a route on the HTTP server for flows
 * (httpNodeRoot, with the user's httpNodeMiddleware and httpNodeCors), added on
 * deploy and removed on close. Each push is answered at once; incidents go to
 * output 1, task reports to output 2, scheduling tasks (and pushes of a kind
 * not known) to output 3. Its input lists and acknowledges the account's
 * alarms (with a robot-config set), answered on output 1.
 */
import { robotDirectoryOf } from "../../api/account/robot-directory";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeStatus } from "node-red";
import type { PushReceiver } from "../../api/pushes/push-receiver";
import type { IncidentLevel } from "../../api/cloud/incident-levels";
import type { Push } from "../../api/pushes/pushes";
import { RobotApiError, internalError, invalidInput } from "../../api/errors";
import { AccountAlarms, alarmsOfAccount } from "../../api/pushes/open-alarms";
import { incidentFiguresByDay, incidentsOfDays } from "../../api/pushes/incident-figures";
import { dayFormatter } from "../../api/reports/kpi";
import type { IncidentDays } from "./alarm-requests";
import { settledWithin } from "../../api/engine/clock";
import { keepReport } from "../../api/reports/report-images";
import { pushReceiverModule } from "../shared/api";
import { lookUpConfig } from "../shared/config-node";
import { ContextMirror } from "../shared/context-mirror";
import { StatusDrawer } from "../shared/node-status-view";
import { translator, type Translate } from "../shared/i18n";
import { takeMessages } from "../shared/robot-input";
import { readAlarmRequest } from "./alarm-requests";
import { addRoute, claimPath, readJsonBody, releasePath, type HttpApp } from "./push-route";
import { EVENTS_PATH_RULE, MAX_PUSH_BYTES, eventsPathOf, minLevelOf } from "./table";

export interface RobotEventsProperties extends NodeDef {
  path: string;
  /** Optional robot-config: its account then knows the open alarms and task reports this node receives. */
  robot?: string;
  /** "" sends every incident; "H4" sends H4 and above. */
  minLevel: string;
}
interface RobotEventsCredentials {
  appId?: string;
}

/** The status is redrawn at most this often: a fleet's pushes can come hundreds a second. */
const STATUS_INTERVAL_MS = 500;
/** A refused push is logged the first time, then at most once this often per kind of refusal. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;
/**
 * How long a list or an acknowledgement asked just after a start waits for the
 * alarms kept in context to be read back: a context store that never answers
 * holds no message for longer (robot-plan's bound for an unanswered Redis claim).
 */
export const RESTORE_WAIT_MS = 5_000;

type Refusal = 400 | 401 | 405 | 413;

function answer(res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}

/** Output of each kind of push: the two first as they were before the third existed, so flows keep their wiring. */
const OUTPUT_OF = { incident: 0, taskReport: 1, schedulingTask: 2, other: 2 } as const;

/**
 * The messages of a push, one output holding it: incidents carry the robot's
 * count of open alarms after this one, and their level's meaning in the
 * runtime's language; every message carries `msg.pushType` and, in
 * `msg.push`, the push's other fields (messageId, messageTypeId, ...; never the appId).
 */
function messagesOf(push: Push, openAlarmsOfRobot: number, t: Translate): Array<NodeMessage | null> {
  const messages: Array<NodeMessage | null> = [null, null, null];
  const common = { topic: push.event.serialNumber, pushType: push.kind, push: push.envelope };
  if (push.kind === "incident") {
    const { event } = push;
    const level: IncidentLevel | undefined = event.level;
    const payload = level ? { ...event, level: { ...level, meaning: t(`levels.${level.code}`) } } : event;
    messages[OUTPUT_OF.incident] = { ...common, payload, openAlarms: openAlarmsOfRobot };
  } else {
    messages[OUTPUT_OF[push.kind]] = { ...common, payload: push.event };
  }
  return messages;
}

/** Status under the node: where it listens, open alarms, refused pushes (drawn by a StatusDrawer, at most every STATUS_INTERVAL_MS). */
function eventsStatus(
  where: string,
  t: Translate,
  openAlarms: number,
  refused: number,
  /** A setting that makes every push refused (no app id): shown in red before any count. */
  problem: string | undefined,
): NodeStatus {
  if (problem !== undefined) {
    const refusedText = refused > 0 ? ` (${t("status.refused", { count: refused })})` : "";
    return { fill: "red", shape: "ring", text: `${where}: ${problem}${refusedText}` };
  }
  const parts = [openAlarms === 0 ? t("status.noAlarm") : openAlarms === 1 ? t("status.oneAlarm") : t("status.alarms", { count: openAlarms })];
  if (refused > 0) parts.push(t("status.refused", { count: refused }));
  return { fill: openAlarms > 0 ? "yellow" : "green", shape: refused > 0 ? "ring" : "dot", text: `${where}: ${parts.join(", ")}` };
}

function setUpEvents(RED: NodeAPI, node: Node, config: RobotEventsProperties, credentials: RobotEventsCredentials): void {
  const t = translator(RED, "robot-events");
  // The account's alarms answer the input whether or not pushes can arrive here (another node may receive them).
  const account = linkAccount(RED, node, config.robot, t);
  answerAlarmRequests(RED, node, account, t);
  node.on("close", () => account?.close());
  // One status under the node: a setting's refusal until the settings are read, then the receiver's counts.
  let currentStatus = (): NodeStatus => ({});
  const status = new StatusDrawer(node, () => currentStatus(), {
    intervalMs: STATUS_INTERVAL_MS,
    // Every push redraws the counts, changed or not: the status drawn after a push is a sign that it was read.
    skipUnchanged: false,
  });
  node.on("close", () => status.close());
  /** A setting the node cannot work with: said under the node, and logged as an error naming the field. */
  const settingProblem = (field: string, text: string) => new RobotApiError({ kind: "invalid_input", field, message: text });
  const refuse = (field: string, key: string, params?: Record<string, string>) => {
    const text = t(key, params);
    currentStatus = () => ({ fill: "red", shape: "ring", text });
    status.draw();
    node.error(settingProblem(field, text));
  };
  const app = RED.httpNode as unknown as HttpApp | undefined;
  const settings = RED.settings as unknown as { httpNodeRoot?: string | false; httpNodeMiddleware?: unknown; httpNodeCors?: unknown };
  if (!app || settings.httpNodeRoot === false) return refuse("httpNodeRoot", "errors.noHttpNode");
  const path = eventsPathOf(config.path);
  if (path === undefined) return refuse("path", "errors.path", { path: String(config.path), rule: EVENTS_PATH_RULE });
  const minLevel = minLevelOf(config.minLevel);
  if (minLevel === undefined) return refuse("minLevel", "errors.minLevel", { level: String(config.minLevel) });
  const appId = credentials.appId ?? "";
  const owner = claimPath(app, path, node.id);
  if (owner !== undefined) return refuse("path", "errors.pathTaken", { path, node: owner });

  const { PushReceiver } = pushReceiverModule();
  const receiver: PushReceiver = new PushReceiver({ appId, minLevelRank: minLevel === "" ? undefined : Number(minLevel.slice(1)) });
  // The one tracker the status, msg.openAlarms and the input's list all read: the account's, else this node's own.
  const alarms = account?.alarms ?? new AccountAlarms();
  const root = typeof settings.httpNodeRoot === "string" ? settings.httpNodeRoot.replace(/\/+$/, "") : "";
  const noAppId = appId === "" ? t("errors.noAppId") : undefined;
  let refusedCount = 0;
  currentStatus = () => eventsStatus(root + path, t, alarms.size, refusedCount, noAppId);
  /** Set on close: a push still being read then is not sent on from a node that is gone. */
  let closed = false;
  const lastLogged = new Map<Refusal, number>();
  const refusedSince = new Map<Refusal, number>();

  const refused = (res: ServerResponse, code: Refusal, error: string, headers?: Record<string, string>) => {
    answer(res, code, { error }, headers);
    refusedCount++;
    status.changed();
    refusedSince.set(code, (refusedSince.get(code) ?? 0) + 1);
    const now = Date.now();
    const last = lastLogged.get(code);
    if (last === undefined || now - last >= REFUSAL_LOG_INTERVAL_MS) {
      node.warn(t("log.refused", { code: String(code), error, count: String(refusedSince.get(code)) }));
      lastLogged.set(code, now);
      refusedSince.set(code, 0);
    }
  };

  const receive = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") {
      req.resume();
      return refused(res, 405, "only POST is accepted", { allow: "POST" });
    }
    readJsonBody(req, MAX_PUSH_BYTES)
      .then((reading) => {
        if (!reading.ok) return refused(res, reading.status, reading.error, reading.status === 413 ? { connection: "close" } : undefined);
        if (closed) return answer(res, 503, { error: "the receiver was redeployed: send again" });
        const receipt = receiver.receive(reading.body);
        if (receipt.status !== 200) return refused(res, receipt.status, receipt.error);
        // Answered before any flow runs: the sender is not kept waiting by what the flow does.
        answer(res, 200, { ok: true });
        // An incident below Incidents from is not sent on, but is still an alarm.
        const recorded = receipt.push ?? receipt.heldBack;
        if (recorded?.kind === "incident") alarms.record(recorded.event);
        if (recorded) account?.record(recorded);
        if (receipt.push) node.send(messagesOf(receipt.push, alarms.ofRobot(receipt.push.event.serialNumber).length, t));
        status.changed();
      })
      .catch((error: unknown) => {
        // Nothing a sender does may reach another node or the runtime: the push is refused and logged, as the bug it is
        // (what a sender can get wrong is refused above, with its status).
        node.error(internalError(error, "robot-events"));
        if (!res.headersSent) answer(res, 500, { error: "the push could not be read" });
      });
  };

  const middleware = [settings.httpNodeMiddleware].filter((entry) => typeof entry === "function" || Array.isArray(entry)) as Parameters<typeof addRoute>[2];
  if (settings.httpNodeCors) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when the user set httpNodeCors
    const cors = require("cors") as (options: unknown) => Parameters<typeof addRoute>[3];
    middleware.unshift(cors(settings.httpNodeCors));
  }
  const removeRoute = addRoute(app, path, middleware, receive);
  status.draw();
  // The account's alarms change through other nodes too (another robot-events, an acknowledgement), and come back from context after a restart.
  const stopRedrawing = alarms.onChange(() => status.changed());
  void account?.restored.then(() => status.changed());
  if (noAppId !== undefined) node.error(settingProblem("appId", noAppId));

  node.on("close", (done: () => void) => {
    closed = true;
    stopRedrawing();
    removeRoute();
    releasePath(app, path, node.id);
    done();
  });
}

/** The node's link to its account: where pushes are recorded, and the alarms its input lists and acknowledges. */
interface AccountLink {
  /** Names the robot in the account's directory and keeps a task report in the account's reports (incidents go to `alarms`). */
  record(push: Push): void;
  alarms: AccountAlarms;
  /** Resolves once what the context stored has been read back (after a restart), or RESTORE_WAIT_MS after the start. */
  restored: Promise<void>;
  close(): void;
}

/**
 * With a robot-config, what the pushes tell goes to its account: incidents
 * become the account's open alarms, task reports join the account's reports
 * (robot-job and robot-reports read them there). The alarms, their acknowledgements and the shift's log are
 * mirrored to this node's context at every change (whoever made it) and read
 * back at start, so a persistent context store carries them across a restart.
 */
function linkAccount(RED: NodeAPI, node: Node, configNodeId: string | undefined, t: Translate): AccountLink | undefined {
  if (!configNodeId) return undefined;
  const { client } = lookUpConfig(RED, configNodeId);
  if (!client) return undefined;
  const alarms = alarmsOfAccount(client.accountKey);
  const mirror = new ContextMirror(node, "robot-events.alarms", () => alarms.toPlain());
  // Read back whenever the store answers; a store that has not answered by the bound is said once, and the node answers without it.
  const read = mirror.read().then((stored) => alarms.restore(stored));
  const restored = settledWithin(RESTORE_WAIT_MS, read).then((settled) => {
    if (settled === "timeout") node.warn(t("log.notRestored", { seconds: String(RESTORE_WAIT_MS / 1000) }));
  });
  const stopMirroring = alarms.onChange(() => mirror.changed());
  return {
    record: (push) => {
      // A robot the robot list does not name yet is looked up (its name for the alarm and the console).
      robotDirectoryOf(client.accountKey).notice([push.event.serialNumber]);
      if (push.kind === "taskReport") keepReport(client, push.event);
    },
    alarms,
    restored,
    close: stopMirroring,
  };
}

/**
 * The open alarms and the shift, and the incidents raised on the days asked
 * (today by default) with how fast each day's were acknowledged and recovered.
 */
function alarmsAnswer(alarms: AccountAlarms, days: IncidentDays, now = new Date()) {
  const timezone = days.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const today = dayFormatter(timezone)(now.getTime());
  const [from, to] = [days.from ?? days.to ?? today, days.to ?? days.from ?? today];
  const incidents = incidentsOfDays(alarms, from, to, timezone);
  return { ...alarms.view(now), from, to, timezone, incidents, days: incidentFiguresByDay(incidents, timezone) };
}

/** The input: the account's alarms listed, or one acknowledged; the answer (the list after it) on output 1, as msg.pushType "alarms". */
function answerAlarmRequests(RED: NodeAPI, node: Node, account: AccountLink | undefined, t: Translate): void {
  takeMessages(RED, node, async (msg) => {
    if (!account) throw invalidInput("robot", t("errors.noAccount"));
    const request = readAlarmRequest(msg);
    // Just after a restart, the alarms the context kept are listed (and acknowledged) once read back.
    await account.restored;
    if (request.kind === "acknowledge" && !account.alarms.acknowledge(request.serialNumber, request.incidentId, request.by)) {
      throw invalidInput("payload.acknowledge.incidentId", `no open alarm ${request.incidentId} of robot ${request.serialNumber}`);
    }
    const days = request.kind === "list" ? request.days : {};
    return [Object.assign(msg, { topic: "alarms", pushType: "alarms", payload: alarmsAnswer(account.alarms, days) }), null, null];
  });
}

export default function registerRobotEvents(RED: NodeAPI): void {
  RED.nodes.registerType<Node<RobotEventsCredentials>, RobotEventsProperties, unknown, RobotEventsCredentials>(
    "robot-events",
    function RobotEvents(this: Node<RobotEventsCredentials>, config: RobotEventsProperties) {
      RED.nodes.createNode(this, config);
      setUpEvents(RED, this, config, this.credentials ?? {});
    },
    { credentials: { appId: { type: "password" } } },
  );
}
