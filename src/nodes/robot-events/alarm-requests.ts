/**
 * What a message into robot-events asks of the account's alarms: the list
 * (open ones and the shift's log), or one acknowledged by a person. Errors
 * name the field; nothing is changed by a request that is not understood.
 */
import { invalidInput } from "../../api/errors";
import { isPlainObject } from "../shared/plain-data";
import { trimmedIdOf } from "../../api/cloud/values";

export type AlarmRequest = { kind: "list" } | { kind: "acknowledge"; serialNumber: string; incidentId: string; by: string };

/** Who acknowledged, when the message does not say. */
export const DEFAULT_ACKNOWLEDGER = "operator";
const MAX_NAME_LENGTH = 100;
const REQUEST_RULE = 'must be "alarms" or {"acknowledge": {"serialNumber", "incidentId"}, "by"?}';

/** msg.payload "alarms" (or {alarms: ...}) lists; {acknowledge: {serialNumber, incidentId}, by} acknowledges (by: else msg.by, else "operator"). */
export function readAlarmRequest(msg: { payload?: unknown; by?: unknown }): AlarmRequest {
  const { payload } = msg;
  if (payload === "alarms" || (isPlainObject(payload) && payload.alarms !== undefined && payload.acknowledge === undefined)) return { kind: "list" };
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
