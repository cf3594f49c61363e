/**
 * The simulator's own endpoints under /_sim/: faults, the push target, robots
 * changed by hand, incidents raised and scheduling tasks pushed by hand, a robot's task ended
 * with a given taskEndStatus, task reports added in the past, a robot's wear read and changed,
 * a reset. Never subject to faults.
 */
import type http from "node:http";
import { describeIssues } from "../../api/errors";
import type { FaultInjector } from "./faults";
import { errorBody, isZodError, readBody, safeDecode, type Reply } from "../server/http-io";
import type { IncidentContent } from "../pushes/incidents";
import { CONTROL_PREFIX } from "../server/options";
import type { PushState } from "../pushes/pushes";
import { Code, SimError } from "../server/sim-errors";
import type { WearTruth } from "../world/wear";

/** What the control endpoints change. */
export interface Controlled {
  readonly faults: Pick<FaultInjector, "current" | "update">;
  readonly maxBodyBytes: number;
  updateRobot(serialNumber: string, raw: unknown): Record<string, unknown>;
  /** Puts the fleet back; returns its serial numbers. */
  reset(): string[];
  readonly pushState: PushState;
  /** PUT /_sim/push: throws a SimError naming a bad field. */
  updatePush(raw: unknown): PushState;
  /** The robot's open incidents; SimError 404 for an unknown robot. */
  openIncidents(serialNumber: string): IncidentContent[];
  /** Raises or recovers an incident of the robot; SimError naming a bad field. */
  incident(serialNumber: string, raw: unknown): { status: number; body: unknown };
  /** Pushes a scheduled task's run of the robot; SimError naming a bad field. */
  schedulingTask(serialNumber: string, raw: unknown): { status: number; body: unknown };
  /** Ends the robot's task at once with {taskEndStatus}; returns its status. */
  endTask(serialNumber: string, raw: unknown): Record<string, unknown>;
  /** Files a report of a task in the past (task-reports.ts, PastReport); returns it as listed. */
  addTaskReport(serialNumber: string, raw: unknown, req?: http.IncomingMessage): Record<string, unknown>;
  /** The robot's wear as the simulator knows it, for the query's share and hours a day (WearQuery). */
  wear(serialNumber: string, query: unknown): WearTruth;
  /** Changes the robot's wear (WearChanges); returns it as wear() does. */
  changeWear(serialNumber: string, raw: unknown): WearTruth;
}

/** Each path's methods, for 405 answers. */
const ALLOWED: [RegExp, string][] = [
  [/^faults$/, "GET, PUT"],
  [/^push$/, "GET, PUT"],
  [/^robots\/[^/]+$/, "PATCH"],
  [/^robots\/[^/]+\/incidents$/, "GET, POST"],
  [/^robots\/[^/]+\/scheduling-tasks$/, "POST"],
  [/^robots\/[^/]+\/task\/end$/, "POST"],
  [/^robots\/[^/]+\/taskReports$/, "POST"],
  [/^robots\/[^/]+\/wear$/, "GET, PATCH"],
  [/^reset$/, "POST"],
];

/** A request's JSON body, or the answer that refuses it. */
async function jsonBody(req: http.IncomingMessage, limit: number): Promise<{ ok: true; value: unknown } | { ok: false; reply: Reply }> {
  const body = await readBody(req, limit);
  if (!body.ok)
    return {
      ok: false,
      reply: { status: 413, body: errorBody(Code.INVALID_ARGUMENT, "Request body is too large."), headers: { Connection: "close" } },
    };
  try {
    return { ok: true, value: JSON.parse(body.text) };
  } catch {
    return { ok: false, reply: { status: 400, body: errorBody(Code.INVALID_ARGUMENT, "Request body is not valid JSON.") } };
  }
}

/** A refusal as an answer: a SimError with its status, a ZodError as 400 naming the field. */
function refusal(error: unknown): Reply {
  if (error instanceof SimError) return { status: error.httpStatus, body: errorBody(error.code, error.message) };
  if (isZodError(error)) return { status: 400, body: errorBody(Code.INVALID_ARGUMENT, describeIssues(error).message) };
  throw error;
}

/** Reads the JSON body and answers what `act` makes of it, or the refusal. */
async function withBody(req: http.IncomingMessage, simulator: Controlled, act: (value: unknown) => Reply): Promise<Reply> {
  const body = await jsonBody(req, simulator.maxBodyBytes);
  if (!body.ok) return body.reply;
  try {
    return act(body.value);
  } catch (error) {
    return refusal(error);
  }
}

export async function controlReply(
  req: http.IncomingMessage,
  method: string,
  pathname: string,
  search: URLSearchParams,
  simulator: Controlled,
): Promise<Reply> {
  const rest = pathname.slice(CONTROL_PREFIX.length);
  const robotPath = /^robots\/([^/]+)$/.exec(rest);
  const incidentPath = /^robots\/([^/]+)\/incidents$/.exec(rest);
  const schedulingPath = /^robots\/([^/]+)\/scheduling-tasks$/.exec(rest);
  const endPath = /^robots\/([^/]+)\/task\/end$/.exec(rest);
  const reportsPath = /^robots\/([^/]+)\/taskReports$/.exec(rest);
  const wearPath = /^robots\/([^/]+)\/wear$/.exec(rest);
  const route = `${method} ${robotPath ? "robot" : incidentPath ? "incidents" : schedulingPath ? "scheduling-tasks" : endPath ? "task end" : reportsPath ? "reports" : wearPath ? "wear" : rest}`;
  switch (route) {
    case "GET faults":
      req.resume();
      return { status: 200, body: simulator.faults.current };
    case "PUT faults":
      return withBody(req, simulator, (value) => ({ status: 200, body: simulator.faults.update(value) }));
    case "GET push":
      req.resume();
      return { status: 200, body: simulator.pushState };
    case "PUT push":
      return withBody(req, simulator, (value) => ({ status: 200, body: simulator.updatePush(value) }));
    case "PATCH robot":
      return withBody(req, simulator, (value) => ({ status: 200, body: simulator.updateRobot(safeDecode(robotPath![1]!), value) }));
    case "GET incidents":
      req.resume();
      try {
        return { status: 200, body: { incidents: simulator.openIncidents(safeDecode(incidentPath![1]!)) } };
      } catch (error) {
        return refusal(error);
      }
    case "POST incidents":
      return withBody(req, simulator, (value) => simulator.incident(safeDecode(incidentPath![1]!), value));
    case "POST scheduling-tasks":
      return withBody(req, simulator, (value) => simulator.schedulingTask(safeDecode(schedulingPath![1]!), value));
    case "POST task end":
      return withBody(req, simulator, (value) => ({ status: 200, body: simulator.endTask(safeDecode(endPath![1]!), value) }));
    case "POST reports":
      return withBody(req, simulator, (value) => ({
        status: 200,
        body: simulator.addTaskReport(safeDecode(reportsPath![1]!), value, req),
      }));
    case "GET wear":
      req.resume();
      try {
        return { status: 200, body: simulator.wear(safeDecode(wearPath![1]!), Object.fromEntries(search)) };
      } catch (error) {
        return refusal(error);
      }
    case "PATCH wear":
      return withBody(req, simulator, (value) => ({ status: 200, body: simulator.changeWear(safeDecode(wearPath![1]!), value) }));
    case "POST reset":
      req.resume();
      return { status: 200, body: { reset: true, robots: simulator.reset() } };
  }
  req.resume();
  const allowed = ALLOWED.find(([pattern]) => pattern.test(rest))?.[1];
  if (allowed) {
    return {
      status: 405,
      body: errorBody(Code.UNIMPLEMENTED, `Method ${method} is not allowed here; use ${allowed}.`),
      headers: { Allow: allowed },
    };
  }
  return { status: 404, body: errorBody(Code.NOT_FOUND, `No route for ${method} ${pathname}.`) };
}
