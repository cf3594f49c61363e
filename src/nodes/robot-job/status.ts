/** The status under a robot-job node: how many of its jobs wait for a robot and how many run. */
import type { NodeStatus } from "node-red";
import type { Translate } from "../shared/i18n";

export function jobStatus(counts: { waiting: number; running: number }, t: Translate): NodeStatus {
  if (counts.waiting === 0 && counts.running === 0) return { fill: "grey", shape: "ring", text: t("status.idle") };
  const parts: string[] = [];
  if (counts.running > 0) parts.push(t("status.running", { count: counts.running }));
  if (counts.waiting > 0) parts.push(t("status.waiting", { count: counts.waiting }));
  return { fill: counts.waiting > 0 ? "yellow" : "blue", shape: "dot", text: parts.join(", ") };
}
