/**
 * The pushes of the cloud's Robot Push Service (docs/cloud-api.md, "Pushed
 * events"), in every shape it is known to send: an incident raised or
 * recovered, a task report, and a scheduling task's run, in the documented
 * envelope `{appId, payload {serialNumber, ...}}` or the one of subscriptions
 * saved since 2025-05-15 (`messageTypeId`, `productId`, `messageId`, ... at the
 * top level). The service documents no retry, so a push refused is lost: only a
 * push naming no robot at all is refused here. Times are read by
 * cloud-time.ts, the one reading every node shares, and a task report by
 * reports/reading.ts, as a swept one is; unknown fields, at the top and
 * inside, are kept.
 */
import { invalidInput } from "../errors";
import { incidentLevelOf, type IncidentLevel } from "../cloud/incident-levels";
import { isoTimesOf, type IsoTimes } from "../cloud/cloud-time";
import { readReport, type ReadReport } from "../reports/reading";
import { isRecord, trimmedIdOf } from "../cloud/values";

/** messageTypeId of the newer envelope (docs/cloud-api.md). */
export const PUSH_MESSAGE_TYPES = { incident: 1, taskReport: 2, schedulingTask: 3 } as const;

export type IncidentState = "raised" | "recovered" | "unknown";

/** An incident as a flow gets it: the content as sent, with the robot, whether it is raised, its level read, and ISO times. */
export type IncidentEvent = Record<string, unknown> &
  IsoTimes & {
    serialNumber: string;
    /** Absent when the push names none (such an incident counts no open alarm). */
    incidentId?: string | number;
    /** incidentStatus read: 1 raised, 0 recovered, anything else unknown (then no alarm opens or closes). */
    incidentState: IncidentState;
    /** incidentState is "raised". */
    raised: boolean;
    /** Absent when the level cannot be read (such an incident is never filtered out). */
    level?: IncidentLevel;
  };

/** A task report read as every report is (reading.ts: its outcome, figures, maps and identity), with the robot's model when sent. */
export type TaskReportEvent = ReadReport;

/** A scheduling task's run (messageTypeId 3; its shape is not published), or a push of a kind not known: its payload as sent. */
export type OtherPushEvent = Record<string, unknown> & IsoTimes & { serialNumber: string };

/** What every push carries besides its event: the top-level fields but the appId, and the payload's fields that are not the event. */
export type PushEnvelope = Record<string, unknown>;

export type Push =
  | { kind: "incident"; event: IncidentEvent; envelope: PushEnvelope }
  | { kind: "taskReport"; event: TaskReportEvent; envelope: PushEnvelope }
  | { kind: "schedulingTask" | "other"; event: OtherPushEvent; envelope: PushEnvelope };

export type PushKind = Push["kind"];

/** The appId of a body, when it has one; compared before anything else is read. */
export function appIdOf(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const appId = (body as { appId?: unknown }).appId;
  return typeof appId === "string" ? appId : undefined;
}

/** The kind: messageTypeId where it names a known one, else which of content and taskReport the payload holds. */
function kindOf(messageTypeId: unknown, payload: Record<string, unknown>): PushKind {
  switch (Number(messageTypeId)) {
    case PUSH_MESSAGE_TYPES.incident:
      return "incident";
    case PUSH_MESSAGE_TYPES.taskReport:
      return "taskReport";
    case PUSH_MESSAGE_TYPES.schedulingTask:
      return "schedulingTask";
  }
  if (isRecord(payload.content)) return "incident";
  if (isRecord(payload.taskReport)) return "taskReport";
  return "other";
}

/** What incidentStatus says: 1 raised, 0 recovered; anything else (or none) is unknown. */
function incidentStateOf(content: Record<string, unknown>): IncidentState {
  const status =
    typeof content.incidentStatus === "number" || typeof content.incidentStatus === "string" ? String(content.incidentStatus).trim() : "";
  return status === "1" ? "raised" : status === "0" ? "recovered" : "unknown";
}

/** An incident's id as text (trimmed), whatever its status; undefined when it names none. */
export function incidentIdOf(event: IncidentEvent): string | undefined {
  return trimmedIdOf(event.incidentId);
}

/**
 * The alarm an incident raises or recovers: its id as text, or undefined when
 * it can be neither matched nor closed (no id, or a status that is neither
 * raised nor recovered). Such an incident is sent on but opens no alarm: one
 * opened from it could never close.
 */
export function alarmIdOf(event: IncidentEvent): string | undefined {
  return event.incidentState === "unknown" ? undefined : incidentIdOf(event);
}

/** An alarm's identity: its robot and its incident id (two robots' incidents with one id are two alarms). */
export function alarmKey(serialNumber: string, incidentId: string): string {
  return `${serialNumber}\u0000${incidentId}`;
}

/**
 * Reads a push body (the appId is checked before). Throws an invalid_input
 * RobotApiError only when the body is not an object or names no robot (no
 * payload.serialNumber, no productId): anything else is a push to pass on.
 */
export function readPush(body: unknown): Push {
  if (!isRecord(body)) throw invalidInput("body", "must be a JSON object");
  const top = without(body, ["appId", "payload"]);
  const rawPayload = body.payload;
  const payload = isRecord(rawPayload) ? rawPayload : {};
  const serialNumber = trimmedIdOf(payload.serialNumber) ?? trimmedIdOf(top.productId);
  if (serialNumber === undefined) throw invalidInput("payload.serialNumber", "is missing, and so is productId: a push must name its robot");
  const kind = kindOf(top.messageTypeId, payload);
  const robot = { serialNumber, ...(payload.modelTypeCode !== undefined ? { modelTypeCode: payload.modelTypeCode } : {}) };
  const { content, taskReport } = payload;
  const payloadRest = without(payload, ["serialNumber", "modelTypeCode", "content", "taskReport"]);
  /** The payload's other fields, and a payload that is not an object as it was sent. */
  const envelopeWith = (rest: Record<string, unknown>): PushEnvelope => ({
    ...top,
    ...(Object.keys(rest).length > 0
      ? { payload: rest }
      : rawPayload !== undefined && !isRecord(rawPayload)
        ? { payload: rawPayload }
        : {}),
  });

  if (kind === "incident" || kind === "taskReport") {
    const field = kind === "incident" ? content : taskReport;
    const wrappers = { ...optional("content", content), ...optional("taskReport", taskReport) };
    // An event without its wrapper (payload.content / payload.taskReport) is the payload itself; what else was sent stays beside.
    const [record, rest] = isRecord(field)
      ? [field, { ...payloadRest, ...without(wrappers, [kind === "incident" ? "content" : "taskReport"]) }]
      : [payloadRest, wrappers];
    if (kind === "taskReport") return { kind, event: { ...readReport(record, serialNumber)!, ...robot }, envelope: envelopeWith(rest) };
    const level = incidentLevelOf(record.incidentLevel);
    const incidentState = incidentStateOf(record);
    const event: IncidentEvent = {
      ...record,
      ...robot,
      incidentState,
      raised: incidentState === "raised",
      ...(level ? { level } : {}),
      ...isoTimesOf(record),
    };
    return { kind, event, envelope: envelopeWith(rest) };
  }
  const rest = { ...payloadRest, ...optional("content", content), ...optional("taskReport", taskReport) };
  return { kind, event: { ...rest, ...robot, ...isoTimesOf(rest) }, envelope: envelopeWith({}) };
}

/** A copy of `record` without `keys`. */
function without(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const copy = { ...record };
  for (const key of keys) delete copy[key];
  return copy;
}

function optional(name: string, value: unknown): Record<string, unknown> {
  return value === undefined ? {} : { [name]: value };
}
