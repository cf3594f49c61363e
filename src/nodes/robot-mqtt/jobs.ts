/**
 * Jobs from send_command (`{"area": "Kitchen"}`): robot-job runs them. Until
 * it is part of the package, a job ends in a result saying so; this one
 * function is where robot-job's dispatch is wired in.
 */
import type { RobotClient } from "../../api/client";

export interface BridgeResult {
  command: string;
  ok: boolean;
  reason: string;
}

export type JobStarter = (client: RobotClient, serialNumber: string, job: Record<string, unknown>, signal: AbortSignal) => Promise<BridgeResult>;

export const startJob: JobStarter = () => Promise.resolve({ command: "job", ok: false, reason: "jobs need robot-job" });
