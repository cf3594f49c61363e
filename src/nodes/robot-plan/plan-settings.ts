/**
 * robot-plan's settings as the runtime takes them: the node's properties, the
 * plan read whole with each item's job fields checked as robot-job would take
 * them, the proof of service's parties, and the deployed settings as one value.
 */
import { createHash } from "node:crypto";
import type { Node, NodeDef } from "node-red";
import { RobotApiError, invalidInput, problemText } from "../../api/errors";
import type { PlanItem } from "../../api/plans/occurrence";
import { readPlan } from "../../api/plans/plan";
import type { ReportParties } from "../../api/plans/plan-report";
import { readJobRequest, type NodeDefaults } from "../shared/jobs/job-input";

export interface RobotPlanProperties extends NodeDef {
  robot: string;
  plan?: unknown;
  timezone?: string;
  lateBy?: string | number;
  skipDates?: unknown;
  /** Named on the proof of service: the site (else the node's name), the customer and the contractor. */
  site?: string;
  customer?: string;
  contractor?: string;
}

/** The job fields of an item, as robot-job reads them from a message. */
export function jobPayloadOf(item: PlanItem, jobId: string): Record<string, unknown> {
  const work = item.work;
  return {
    ...(work.kind === "task" ? { task: work.task } : work.kind === "area" ? { area: work.area } : { goto: work.point }),
    map: work.map,
    jobId,
    name: item.name,
    waitUpTo: item.waitUpToSeconds,
    ...(item.near !== undefined ? { near: item.near } : {}),
    ...(item.robots !== undefined ? { robots: item.robots } : {}),
    ...(item.mode !== undefined ? { mode: item.mode } : {}),
    ...(item.minBattery !== undefined ? { minBattery: item.minBattery } : {}),
  };
}

/**
 * A plan read whole: its items (plan.ts) and each item's job fields as
 * robot-job would take them, so a plan whose job cannot be made is refused
 * when it is set, naming the item and field, not at its time.
 */
export function readPlanForJobs(value: unknown, field: string, defaults: NodeDefaults): PlanItem[] {
  const items = readPlan(value, field);
  items.forEach((item, index) => {
    try {
      readJobRequest(jobPayloadOf(item, "check"), {}, defaults, () => false, () => false, `${field}[${index}]`);
    } catch (error) {
      const problem = error instanceof RobotApiError ? error.wording?.parts[0]?.problem : undefined;
      if (!(error instanceof RobotApiError) || error.field === undefined || problem === undefined) throw error;
      throw invalidInput(error.field, `${problemText(problem)} (item "${item.name}")`);
    }
  });
  return items;
}

/** The report's parties from the node's settings: the site is the node's name where none is set. */
export function reportParties(config: RobotPlanProperties, node: Node): ReportParties {
  const given = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);
  const [customer, contractor] = [given(config.customer), given(config.contractor)];
  return {
    site: given(config.site) ?? node.name ?? "",
    ...(customer ? { customer } : {}),
    ...(contractor ? { contractor } : {}),
  };
}

/** The node's deployed plan settings as one value: a message's plan is kept only while they are the ones it replaced. */
export function deployedSettingsHash(config: RobotPlanProperties): string {
  const deployed = { plan: config.plan ?? [], timezone: config.timezone ?? "", lateBy: config.lateBy ?? "", skipDates: config.skipDates ?? [] };
  return createHash("sha256").update(JSON.stringify(deployed)).digest("hex");
}

export interface PlanSettings {
  timezone: string;
  lateByMinutes: number;
  skipDates: string[];
  items: PlanItem[];
  /** deployedSettingsHash of the node's config. */
  deployed: string;
  /** Named on the proof of service. */
  parties: ReportParties;
}
