/**
 * A job from send_command for the robot of the topic (`{"area": "Kitchen"}`,
 * `{"task": ...}`, `{"goto": ...}`, each with optional `map`, `mode`,
 * `name`): started on that robot as robot-job starts its work (the same
 * request and the same sign that it started), through the account's queue,
 * and answered once it shows or is refused. Choosing among robots is
 * robot-job's: here the topic names the robot.
 */
import type { RobotClient } from "../../api/client";
import { confirmationPollerOf } from "../../api/watching/confirmation-poller";
import { NavigationFollower } from "../../api/watching/navigation";
import { RobotApiError } from "../../api/errors";
import { isOnMap, robotFactsOf, type JobWork, type RobotFacts } from "../../api/jobs/dispatch";
import { startRequestFor, startedRule } from "../../api/jobs/job-start";
import { refusalOf, refusalText } from "../../api/watching/robot-actions";
import { readStatus } from "../../api/watching/status-reader";
import { CONFIRM_TIMEOUT } from "../shared/confirm-table";
import { clientModule } from "../shared/api";
import { trimmedTextOf } from "../../api/cloud/values";

export interface BridgeResult {
  command: string;
  ok: boolean;
  reason: string;
}

/**
 * The job's work on its map (`map` when given, else the robot's), or what is
 * wrong with it. A task or an area on another map than the robot's is
 * refused: the cloud starts them on the map the robot is on (its status lists
 * the tasks of that map only; a cross-floor task needs the site's lifts, which
 * the package does not set up), never on the robot's map instead. A goto is
 * sent on its own map: CROSS_NAVIGATE names the map of its point.
 */
function workOf(job: Record<string, unknown>, facts: RobotFacts): JobWork | string {
  const robotMap = facts.mapName ?? facts.mapId;
  const map = trimmedTextOf(job.map) ?? robotMap;
  if (map === undefined) return "the robot is on no map: name one in map";
  const elsewhere = isOnMap(facts, map) ? undefined : `robot ${facts.serialNumber} is on map ${robotMap ?? "(none)"}, not ${map}: a task or an area starts on the map the robot is on (send it to ${map} first with go_to)`;
  if ("area" in job) return !trimmedTextOf(job.area) ? "area must be an area's name or id" : (elsewhere ?? { kind: "area", area: trimmedTextOf(job.area)!, map });
  if ("task" in job) return !trimmedTextOf(job.task) ? "task must be a task's name" : (elsewhere ?? { kind: "task", task: trimmedTextOf(job.task)!, map });
  return trimmedTextOf(job.goto) ? { kind: "goto", point: trimmedTextOf(job.goto)!, map } : "goto must be a navigation point's name";
}

export async function startJob(client: RobotClient, serialNumber: string, job: Record<string, unknown>, signal: AbortSignal, confirmTimeoutMs = CONFIRM_TIMEOUT.default * 1000): Promise<BridgeResult> {
  const result = (ok: boolean, reason: string): BridgeResult => ({ command: "job", ok, reason });
  try {
    const [status] = (await client.batchGetStatuses([serialNumber], { line: "s", signal })) as Record<string, unknown>[];
    if (!status) return result(false, `no status of robot ${serialNumber} was read`);
    const facts = robotFactsOf(status);
    const work = workOf(job, facts);
    if (typeof work === "string") return result(false, work);
    const refusal = refusalOf(work.kind === "goto" ? "goTo" : "startTask", readStatus(status));
    if (refusal) return result(false, `robot ${serialNumber} ${refusalText(refusal)}`);
    const request = await startRequestFor(client, work, facts, { mode: trimmedTextOf(job.mode), name: trimmedTextOf(job.name) }, { signal });
    await client.send(clientModule().prepareCall(request.operation, request.body as never), { signal });
    const navigation = work.kind === "goto" ? new NavigationFollower(work.point, client.arrivalRadius) : undefined;
    const confirmed = await confirmationPollerOf(client).waitFor(serialNumber, startedRule(work, serialNumber, request.taskName, navigation), { timeoutMs: confirmTimeoutMs, signal, operation: "job" });
    return result(true, `${confirmed.state} after ${Math.round(confirmed.seconds)} s`);
  } catch (error) {
    return result(false, error instanceof RobotApiError ? `${error.code}: ${error.message}` : String(error));
  }
}
