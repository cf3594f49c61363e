/** The status under a robot-upkeep node: what is open after its last read (parts due, tanks, batteries), or why it has no read. */
import type { NodeStatus } from "node-red";
import { RobotApiError } from "../../api/errors";
import type { Translate } from "../shared/i18n";
import { shorten } from "../shared/status-text";
import type { NoticeKind } from "./notices";

export type UpkeepShown =
  | { kind: "reading" }
  | { kind: "read"; robots: number; open: Record<NoticeKind, number>; at: Date }
  | { kind: "failed"; error: unknown };

export function upkeepStatus(shown: UpkeepShown, t: Translate): NodeStatus {
  switch (shown.kind) {
    case "reading":
      return { fill: "blue", shape: "ring", text: t("status.reading") };
    case "failed":
      return { fill: "red", shape: "ring", text: t("status.failed", { code: shown.error instanceof RobotApiError ? shown.error.code : "ERROR" }) };
    case "read": {
      const { open } = shown;
      const counts = { parts: open.partDue, tanks: open.cleanWaterLow + open.recoveryWaterHigh, batteries: open.batteryHealth + open.batteryHot };
      const time = shown.at.toTimeString().slice(0, 5);
      const due = counts.parts + counts.tanks + counts.batteries > 0;
      const text = due ? t("status.due", { ...counts, time }) : t("status.inOrder", { robots: shown.robots, time });
      return { fill: due ? "yellow" : "green", shape: "dot", text: shorten(text, 64) };
    }
  }
}
