/**
 * robot-upkeep's notices: which upkeep conditions are open (a part at or
 * under its threshold, a tank that needs a person, a battery out of normal:
 * what needs a person is attention.ts's to say) and, after each read of the
 * table, the crossings since the last one: a condition that opened is raised
 * once, one that ended is cleared once. The open set is the state that makes
 * "once per crossing" hold across reads, redeploys and restarts (the node
 * keeps it per account and node, and in its context). A fact a read does not
 * carry (a robot not read, a model without the part) changes nothing: only a
 * reading can open or end a condition.
 */
import { dayFormatter } from "../../api/reports/kpi";
import { batteryNotices, HEALTHY_BATTERY, partsDue, tanksNeedingPerson, type UpkeepLimits } from "../../api/upkeep/attention";
import type { UpkeepRobot } from "../../api/upkeep/table";

export const NOTICE_KINDS = ["partDue", "cleanWaterLow", "recoveryWaterHigh", "batteryHealth", "batteryHot"] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

export interface UpkeepNotice {
  kind: NoticeKind;
  /** raised: the condition began; cleared: it ended. */
  state: "raised" | "cleared";
  serialNumber: string;
  /** The wear part, for partDue. */
  part?: string;
  /** The reading that crossed: share left (0-1), a tank level (%), the health word or the hottest cell (°C). */
  value: number | string;
  /** What it was held to: the part's threshold (0-1), the tank's limit (%), "HEALTHY", the cell limit (°C). */
  limit: number | string;
  /** When the read that saw the crossing was made (ISO time). */
  at: string;
}

/** An open condition as kept: when it was raised. */
interface OpenCondition {
  kind: NoticeKind;
  serialNumber: string;
  part?: string;
  since: string;
}

/** One condition as one read shows it: open or not, with the reading and limit a notice names. */
interface Reading {
  kind: NoticeKind;
  part?: string;
  open: boolean;
  value: number | string;
  limit: number | string;
}

/** Every condition the robot's row has a reading of, each open where attention.ts says it needs a person. */
function readingsOf(robot: UpkeepRobot, limits: UpkeepLimits): Reading[] {
  // Only the parts due now are notices; the day only picks the parts due soon, which are left out.
  const today = dayFormatter(robot.zone)(Date.parse(robot.readAt));
  const overdue = new Set(partsDue([robot], today, limits).flatMap((due) => (due.overdue ? [due.part] : [])));
  const tanks = new Set(tanksNeedingPerson([robot], limits).map((need) => need.tank));
  const battery = new Set(batteryNotices([robot], limits).flatMap((notice) => notice.reasons));
  const readings: Reading[] = robot.parts.map((part) => ({
    kind: "partDue",
    part: part.part,
    open: overdue.has(part.part),
    value: part.remaining,
    limit: part.threshold,
  }));
  const { cleanWater, recoveryWater } = robot.tanks;
  if (cleanWater !== undefined) readings.push({ kind: "cleanWaterLow", open: tanks.has("cleanWater"), value: cleanWater, limit: limits.cleanWaterBelow });
  if (recoveryWater !== undefined) {
    readings.push({ kind: "recoveryWaterHigh", open: tanks.has("recoveryWater"), value: recoveryWater, limit: limits.recoveryWaterAbove });
  }
  const { health, hottestCell } = robot.battery;
  if (health !== undefined) readings.push({ kind: "batteryHealth", open: battery.has("health"), value: health, limit: HEALTHY_BATTERY });
  if (hottestCell !== undefined) readings.push({ kind: "batteryHot", open: battery.has("temperature"), value: hottestCell, limit: limits.batteryHotAbove });
  return readings;
}

function keyOf(serialNumber: string, kind: NoticeKind, part: string | undefined): string {
  return `${serialNumber}/${kind}/${part ?? ""}`;
}

/** The open conditions of one node's robots. */
export class NoticeBook {
  private readonly open = new Map<string, OpenCondition>();
  /** Set once the node's context was read into it: a redeploy finds it so and does not read the context again. */
  restored = false;

  /** The notices one read of the table brings: each condition that opened or ended since the last read. */
  crossings(robots: readonly UpkeepRobot[], limits: UpkeepLimits): UpkeepNotice[] {
    const notices: UpkeepNotice[] = [];
    for (const robot of robots) {
      for (const reading of readingsOf(robot, limits)) {
        const key = keyOf(robot.serialNumber, reading.kind, reading.part);
        const wasOpen = this.open.has(key);
        if (reading.open === wasOpen) continue;
        const { open, ...named } = reading;
        if (open) this.open.set(key, { kind: reading.kind, serialNumber: robot.serialNumber, ...(reading.part ? { part: reading.part } : {}), since: robot.readAt });
        else this.open.delete(key);
        notices.push({ ...named, state: open ? "raised" : "cleared", serialNumber: robot.serialNumber, at: robot.readAt });
      }
    }
    return notices;
  }

  /** How many conditions of each kind are open now. */
  counts(): Record<NoticeKind, number> {
    const counts = Object.fromEntries(NOTICE_KINDS.map((kind) => [kind, 0])) as Record<NoticeKind, number>;
    for (const condition of this.open.values()) counts[condition.kind]++;
    return counts;
  }

  /** The open conditions as plain JSON, for the node's context. */
  snapshot(): OpenCondition[] {
    return [...this.open.values()];
  }

  /** Takes back what snapshot() gave (a context written by this version or an older one); anything else is skipped. */
  restore(stored: unknown): void {
    if (!Array.isArray(stored)) return;
    for (const entry of stored as Partial<OpenCondition>[]) {
      if (typeof entry !== "object" || entry === null) continue;
      const { kind, serialNumber, part, since } = entry;
      if (!NOTICE_KINDS.includes(kind as NoticeKind) || typeof serialNumber !== "string" || typeof since !== "string") continue;
      if (part !== undefined && typeof part !== "string") continue;
      this.open.set(keyOf(serialNumber, kind!, part), { kind: kind!, serialNumber, ...(part ? { part } : {}), since });
    }
  }
}
