/**
 * The two pushes of the cloud's Robot Push Service (docs/cloud-api.md,
 * "Pushed events"): an incident raised or recovered, and a task report. Both
 * carry the appId the customer registered, a robot's serial number and model,
 * and times in epoch milliseconds. Unknown fields, at the top and inside, are
 * kept: subscriptions made since 2025-05 carry more than is documented.
 */
import { z } from "zod";
import { RobotApiError, describeIssues, invalidInput } from "./errors";
import { incidentLevelOf, type IncidentLevel } from "./incident-levels";
import { SERIAL_NUMBER_PATTERN, SERIAL_NUMBER_RULE } from "./rules";
import { withTaskReading, type TaskReportReading } from "./task-outcomes";

const epochMs = z.union([z.number(), z.string().regex(/^\d+$/, "must be epoch milliseconds")], { error: "must be epoch milliseconds" }).optional();
const id = z.union([z.string().min(1, "must not be empty"), z.number()], { error: "must be a string or a number" });

const IncidentContent = z.looseObject({
  incidentId: id,
  incidentStatus: z.union([z.literal(0), z.literal(1), z.literal("0"), z.literal("1")], { error: "must be 1 (raised) or 0 (recovered)" }),
  incidentLevel: z.union([z.string(), z.number()]).optional(),
  startTime: epochMs,
  endTime: epochMs,
});

const PushTaskReport = z.looseObject({ startTime: epochMs, endTime: epochMs });

const PushBody = z.looseObject({
  payload: z.looseObject(
    {
      serialNumber: z.string({ error: "must be a string" }).regex(SERIAL_NUMBER_PATTERN, SERIAL_NUMBER_RULE),
      content: IncidentContent.optional(),
      taskReport: PushTaskReport.optional(),
    },
    { error: "must be an object" },
  ),
});

/** An incident as a flow gets it: the content as sent, with the robot, whether it is raised, its level read, and ISO times. */
export type IncidentEvent = Record<string, unknown> & {
  serialNumber: string;
  incidentId: string | number;
  raised: boolean;
  /** Absent when the level cannot be read (such an incident is never filtered out). */
  level?: IncidentLevel;
  startTimeIso?: string;
  endTimeIso?: string;
};

export type TaskReportEvent = Record<string, unknown> &
  TaskReportReading & {
    serialNumber: string;
    startTimeIso?: string;
    endTimeIso?: string;
  };

export type Push = { kind: "incident"; event: IncidentEvent } | { kind: "taskReport"; event: TaskReportEvent };

/** The appId of a body, when it has one; compared before anything else is read. */
export function appIdOf(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const appId = (body as { appId?: unknown }).appId;
  return typeof appId === "string" ? appId : undefined;
}

/** 0 and missing times mean "not yet" (an incident still raised has no end). */
function isoTimes(record: { startTime?: unknown; endTime?: unknown }): { startTimeIso?: string; endTimeIso?: string } {
  const iso = (value: unknown) => {
    const ms = Number(value);
    return value !== undefined && Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : undefined;
  };
  const start = iso(record.startTime);
  const end = iso(record.endTime);
  return { ...(start ? { startTimeIso: start } : {}), ...(end ? { endTimeIso: end } : {}) };
}

/**
 * Reads a push body. Throws an invalid_input RobotApiError naming the field
 * (e.g. "payload.content.incidentStatus") when it is neither push or a field
 * a flow relies on is wrong.
 */
export function readPush(body: unknown): Push {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalidInput("body", "must be a JSON object");
  const parsed = PushBody.safeParse(body);
  if (!parsed.success) {
    throw new RobotApiError({ kind: "invalid_input", ...describeIssues(parsed.error) });
  }
  const { serialNumber, modelTypeCode, content, taskReport } = parsed.data.payload;
  const robot = { serialNumber, ...(modelTypeCode !== undefined ? { modelTypeCode } : {}) };
  if (content && taskReport) throw invalidInput("payload", "holds both content (an incident) and taskReport: one push is one of them");
  if (content) {
    const level = incidentLevelOf(content.incidentLevel);
    return {
      kind: "incident",
      event: { ...content, ...robot, raised: String(content.incidentStatus) === "1", ...(level ? { level } : {}), ...isoTimes(content) },
    };
  }
  if (taskReport) return { kind: "taskReport", event: { ...withTaskReading(taskReport), ...robot, ...isoTimes(taskReport) } };
  throw invalidInput("payload", "is neither an incident push (payload.content) nor a task report push (payload.taskReport)");
}
