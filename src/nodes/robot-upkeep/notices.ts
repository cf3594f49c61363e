/**
 * robot-upkeep's notices: which upkeep conditions are open (a part under its
 * threshold, a tank that needs a person, a battery out of normal) and, after
 * each read of the table, the crossings since the last one: a condition that
 * opened is raised once, one that ended is cleared once. The open set is the
 * state that makes "once per crossing" hold across reads, redeploys and
 * restarts (the node keeps it per account and node, and in its context).
 * A fact a read does not carry (a robot not read, a model without the part)
 * changes nothing: only a reading can open or end a condition.
 */
import type { UpkeepRobot } from "../../api/upkeep/table";

export const NOTICE_KINDS = ["partDue", "cleanWaterLow", "recoveryWaterHigh", "batteryHealth", "batteryHot"] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** The battery health word of a battery in normal health (soh in the recorded statuses). */
export const NORMAL_BATTERY_HEALTH = "HEALTHY";

/** The node's limits, in the units of the facts: tank levels in %, the hottest cell in °C (a part's is its row's threshold). */
export interface NoticeLimits {
  cleanWaterLow: number;
  recoveryWaterHigh: number;
  hottestCell: number;
}

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

/**
 * 1 - usedLife/lifeSpan is not exact in binary (270 of 300 used leaves 0.09999999999999998): a share this close to
 * its threshold is at it, not under it.
 */
const SHARE_ROUNDING = 1e-9;

/** One condition as one read shows it: open or not, with the reading and limit a notice names. */
interface Reading {
  kind: NoticeKind;
  part?: string;
  open: boolean;
  value: number | string;
  limit: number | string;
}

function readingsOf(robot: UpkeepRobot, limits: NoticeLimits): Reading[] {
  const readings: Reading[] = robot.parts.map((part) => ({
    kind: "partDue",
    part: part.part,
    open: part.remaining < part.threshold - SHARE_ROUNDING,
    value: part.remaining,
    limit: part.threshold,
  }));
  const { cleanWater, recoveryWater } = robot.tanks;
  if (cleanWater !== undefined) readings.push({ kind: "cleanWaterLow", open: cleanWater < limits.cleanWaterLow, value: cleanWater, limit: limits.cleanWaterLow });
  if (recoveryWater !== undefined) {
    readings.push({ kind: "recoveryWaterHigh", open: recoveryWater > limits.recoveryWaterHigh, value: recoveryWater, limit: limits.recoveryWaterHigh });
  }
  const { health, hottestCell } = robot.battery;
  if (health !== undefined) readings.push({ kind: "batteryHealth", open: health !== NORMAL_BATTERY_HEALTH, value: health, limit: NORMAL_BATTERY_HEALTH });
  if (hottestCell !== undefined) readings.push({ kind: "batteryHot", open: hottestCell > limits.hottestCell, value: hottestCell, limit: limits.hottestCell });
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
  crossings(robots: readonly UpkeepRobot[], limits: NoticeLimits): UpkeepNotice[] {
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
