/** The simulator's own endpoints under /_sim/: faults, robots changed by hand, a reset. Never subject to faults. */
import type http from "node:http";
import { describeIssues } from "../api/errors";
import type { FaultInjector } from "./faults";
import { errorBody, isZodError, readBody, safeDecode, type Reply } from "./http-io";
import { CONTROL_PREFIX } from "./options";
import { Code, SimError } from "./sim-errors";

/** What the control endpoints change. */
export interface Controlled {
  readonly faults: Pick<FaultInjector, "current" | "update">;
  readonly maxBodyBytes: number;
  updateRobot(serialNumber: string, raw: unknown): Record<string, unknown>;
  /** Puts the fleet back; returns its serial numbers. */
  reset(): string[];
}

export async function controlReply(req: http.IncomingMessage, method: string, pathname: string, simulator: Controlled): Promise<Reply> {
  const rest = pathname.slice(CONTROL_PREFIX.length);
  if (rest === "faults" && method === "GET") {
    req.resume();
    return { status: 200, body: simulator.faults.current };
  }
  if (rest === "faults" && method === "PUT") {
    const body = await readBody(req, simulator.maxBodyBytes);
    if (!body.ok) return { status: 413, body: errorBody(Code.INVALID_ARGUMENT, "Request body is too large."), headers: { Connection: "close" } };
    let update: unknown;
    try {
      update = JSON.parse(body.text);
    } catch {
      return { status: 400, body: errorBody(Code.INVALID_ARGUMENT, "Request body is not valid JSON.") };
    }
    try {
      return { status: 200, body: simulator.faults.update(update) };
    } catch (error) {
      const message = isZodError(error) ? describeIssues(error).message : String(error);
      return { status: 400, body: errorBody(Code.INVALID_ARGUMENT, message) };
    }
  }
  const robotPath = /^robots\/([^/]+)$/.exec(rest);
  if (robotPath && method === "PATCH") {
    const body = await readBody(req, simulator.maxBodyBytes);
    if (!body.ok) return { status: 413, body: errorBody(Code.INVALID_ARGUMENT, "Request body is too large."), headers: { Connection: "close" } };
    try {
      return { status: 200, body: simulator.updateRobot(safeDecode(robotPath[1]!), JSON.parse(body.text)) };
    } catch (error) {
      if (error instanceof SimError) return { status: error.httpStatus, body: errorBody(error.code, error.message) };
      return { status: 400, body: errorBody(Code.INVALID_ARGUMENT, "Request body is not valid JSON.") };
    }
  }
  if (robotPath) {
    req.resume();
    return { status: 405, body: errorBody(Code.UNIMPLEMENTED, `Method ${method} is not allowed here; use PATCH.`), headers: { Allow: "PATCH" } };
  }
  if (rest === "reset" && method === "POST") {
    req.resume();
    return { status: 200, body: { reset: true, robots: simulator.reset() } };
  }
  req.resume();
  if (rest === "faults" || rest === "reset") {
    const allowed = rest === "faults" ? "GET, PUT" : "POST";
    return { status: 405, body: errorBody(Code.UNIMPLEMENTED, `Method ${method} is not allowed here; use ${allowed}.`), headers: { Allow: allowed } };
  }
  return { status: 404, body: errorBody(Code.NOT_FOUND, `No route for ${method} ${pathname}.`) };
}
