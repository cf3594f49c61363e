/** The status under a robot-plan node: paused, its running occurrences, or its next one. */
import type { NodeStatus } from "node-red";
import type { Translate } from "../shared/i18n";

export interface PlanStatusFacts {
  paused: boolean;
  running: number;
  waiting: number;
  /** The next occurrence: its item and local time (HH:MM), or undefined when none is planned within a day. */
  next?: { item: string; time: string };
}

export function planStatus(facts: PlanStatusFacts, t: Translate): NodeStatus {
  if (facts.paused) return { fill: "grey", shape: "ring", text: t("status.paused") };
  const next = facts.next ? t("status.next", facts.next) : t("status.nothingNext");
  if (facts.running + facts.waiting === 0) return { fill: "grey", shape: "dot", text: next };
  const parts = [facts.running > 0 ? t("status.running", { count: facts.running }) : "", facts.waiting > 0 ? t("status.waiting", { count: facts.waiting }) : "", next];
  return { fill: facts.waiting > 0 ? "yellow" : "blue", shape: "dot", text: parts.filter((part) => part !== "").join(", ") };
}
