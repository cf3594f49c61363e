/**
 * robot-command's tables: its dialog's types for the parameter fields (which
 * sit in a request as api/cloud/command-bodies.ts says), the loop count's
 * limits and the burst policies. The node and the editor's tables
 * (editor-tables.ts) both read them; neither imports the other.
 */
import type { NumberSetting } from "../../api/settings/input-rules";
import { RUN_ONCE, type ParameterField } from "../../api/cloud/command-bodies";

/** How many times a task runs when looped; an empty field runs it once. The request schema's count: whole, 0 or more. */
export const LOOP_COUNT = { default: RUN_ONCE.loopCount, min: 0, integer: true, unit: "" } as const satisfies NumberSetting;

/** What each field is when typed straight into the dialog (its TypedInput's own type). */
export const LITERAL_TYPE: Record<ParameterField, "str" | "num" | "bool" | "direction"> = {
  cleaningMode: "str",
  taskName: "str",
  map: "str",
  loop: "bool",
  loopCount: "num",
  position: "str",
  direction: "direction",
};

/**
 * What a node does with a message for a robot that already has one pending:
 * send it too, skip it while the earlier one is pending, or let it replace
 * the earlier one while that still waits in the queue.
 */
export const BURST_POLICIES = ["all", "skip", "latest"] as const;
export type BurstPolicy = (typeof BURST_POLICIES)[number];
