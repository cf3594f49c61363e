/**
 * What a command answer's cmdStatus says (B4's answer, docs/cloud-api.md), in a
 * module of its own: a node that reads it at load time must not load the
 * schemas (and zod) before its first call.
 */

/** B4 cmdStatus meaning the robot refused the temporary task (docs/cloud-api.md). */
export const TEMP_TASK_REJECTED_STATUS = 7;
/**
 * cmdStatus meaning the robot received the command but has not started it
 * (B4's answer, seen with cmdResultCode "6880", or any answer carrying
 * cmdStatus): only its status tells when it starts (docs/cloud-api.md).
 */
export const CMD_STATUS_DELIVERED = 6;

/** Whether an answer says "delivered, not started yet": cmdStatus 6, as a number or an int64 string. */
export function deliveredNotStarted(answer: unknown): boolean {
  if (typeof answer !== "object" || answer === null || !("cmdStatus" in answer)) return false;
  const status = answer.cmdStatus;
  return (typeof status === "number" || (typeof status === "string" && status.trim() !== "")) && Number(status) === CMD_STATUS_DELIVERED;
}
