/**
 * What a message into robot-events asks of the account's alarms: the list
 * (open ones and the shift's log), or one acknowledged by a person. Errors
 * name the field; nothing is changed by a request that is not understood.
 */
import { invalidInput } from "../../api/errors";
import { isPlainObject } from "../shared/plain-data";
import { trimmedIdOf } from "../../api/cloud/values";
import { isCalendarDate } from "../../api/cloud/cloud-time";
import { dayFormatter } from "../../api/reports/kpi";

/** Which days a list gives the incidents and figures of: from and to (YYYY-MM-DD, both included) in a zone; default today in the runtime's. */
export interface IncidentDays {
  from?: string;
  to?: string;
  timezone?: string;
}

export type AlarmRequest =
  | { kind: "list"; days: IncidentDays }
  | { kind: "acknowledge"; serialNumber: string; incidentId: string; by: string };

/** Who acknowledged, when the message does not say. */
export const DEFAULT_ACKNOWLEDGER = "operator";
const MAX_NAME_LENGTH = 100;
const REQUEST_RULE = 'must be "alarms", {"alarms": {"from"?, "to"?, "timezone"?}} or {"acknowledge": {"serialNumber", "incidentId"}, "by"?}';

/** msg.payload "alarms" (or {alarms: ...}) lists; {acknowledge: {serialNumber, incidentId}, by} acknowledges (by: else msg.by, else "operator"). */
export function readAlarmRequest(msg: { payload?: unknown; by?: unknown }): AlarmRequest {
  const { payload } = msg;
  if (payload === "alarms" || (isPlainObject(payload) && payload.alarms !== undefined && payload.acknowledge === undefined))
    return { kind: "list", days: readIncidentDays(isPlainObject(payload) ? payload.alarms : undefined) };
  if (!isPlainObject(payload) || payload.acknowledge === undefined) throw invalidInput("payload", REQUEST_RULE);
  const { acknowledge } = payload;
  if (!isPlainObject(acknowledge)) throw invalidInput("payload.acknowledge", "must be {serialNumber, incidentId}");
  const serialNumber = trimmedIdOf(acknowledge.serialNumber);
  if (serialNumber === undefined || typeof acknowledge.serialNumber !== "string") throw invalidInput("payload.acknowledge.serialNumber", "must be the robot's serial number");
  const incidentId = trimmedIdOf(acknowledge.incidentId);
  if (incidentId === undefined) throw invalidInput("payload.acknowledge.incidentId", "must be the alarm's incidentId");
  const given = payload.by ?? msg.by;
  const by = given === undefined ? DEFAULT_ACKNOWLEDGER : typeof given === "string" ? given.trim() : undefined;
  if (by === undefined || by === "" || by.length > MAX_NAME_LENGTH) throw invalidInput("payload.by", `must be a name of 1 to ${MAX_NAME_LENGTH} characters`);
  return { kind: "acknowledge", serialNumber, incidentId, by };
}

/** {"alarms": {from, to, timezone}}: each optional (a list of today, in the runtime's zone), each checked where given. */
function readIncidentDays(value: unknown): IncidentDays {
  if (!isPlainObject(value)) return {};
  const days: IncidentDays = {};
  for (const field of ["from", "to"] as const) {
    if (value[field] === undefined) continue;
    if (!isCalendarDate(value[field])) throw invalidInput(`payload.alarms.${field}`, `must be a day as "YYYY-MM-DD" (got ${JSON.stringify(value[field])})`);
    days[field] = value[field];
  }
  if (days.from !== undefined && days.to !== undefined && days.to < days.from) throw invalidInput("payload.alarms.to", `must not be before from (${days.from})`);
  if (value.timezone !== undefined) {
    const zone = typeof value.timezone === "string" ? value.timezone.trim() : "";
    try {
      if (zone === "") throw new Error("no zone");
      dayFormatter(zone);
    } catch {
      throw invalidInput("payload.alarms.timezone", `must be an IANA time zone such as "Europe/Berlin" (got ${JSON.stringify(value.timezone)})`);
    }
    days.timezone = zone;
  }
  return days;
}
