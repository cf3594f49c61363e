/**
 * robot-plan: a cleaning plan (items on days at times, every N minutes until
 * a time) in an IANA zone; each occurrence becomes a robot-job job at its
 * time, once per account, and is settled once: done, late, failed, missed,
 * skipped or cancelled. The runtime (plan-node.ts, with the plan's schemas
 * and zone rules) is loaded when a node is first deployed, not when Node-RED
 * starts.
 */
import type { Node, NodeAPI } from "node-red";
import type { RobotPlanProperties } from "./plan-settings";

type PlanNodeModule = typeof import("./plan-node");
let loaded: PlanNodeModule | undefined;

export default function registerRobotPlan(RED: NodeAPI): void {
  RED.nodes.registerType("robot-plan", function RobotPlan(this: Node, config: RobotPlanProperties) {
    RED.nodes.createNode(this, config);
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose, see above
    loaded ??= require("./plan-node") as PlanNodeModule;
    loaded.setUpRobotPlan(RED, this, config);
  });
}
