/**
 * The console's upkeep view: the parts due in the coming 14 days (those under
 * their threshold first), the tanks that need a person now, and the
 * batteries' health (those out of normal listed, the others counted), each
 * line in words in the runtime's language. The parts' forecasts come from the
 * account's upkeep table (upkeepTableOfAccount: its history and plans); the
 * tanks and battery from the statuses shown, which may be newer. What needs a
 * person is attention.ts's reading, the same as the work order's.
 */
import { dayFormatter } from "../../api/reports/kpi";
import { batteryNotices, dayAfter, partsDue, tanksNeedingPerson, zoneOfTable } from "../../api/upkeep/attention";
import type { UpkeepFacts } from "../../api/upkeep/facts";
import type { UpkeepRobot } from "../../api/upkeep/table";
import { basisText, itemName, todoText } from "../../api/upkeep/work-order-words";
import type { Translate } from "../shared/i18n";
import type { AccountUpkeepLimits } from "../shared/upkeep-table";

export interface UpkeepSource {
  serialNumber: string;
  name: string;
  /** What its status says (upkeepFactsOf); none for a status with no upkeep fields (the V3 status). */
  facts?: UpkeepFacts;
  readAt: Date;
  /** Its row of the account's upkeep table, where the account's history knows the robot. */
  row?: UpkeepRobot;
}

export interface UpkeepViewPart {
  serialNumber: string;
  robotName: string;
  part: string;
  partText: string;
  /** Share left, whole per cent. */
  remaining: number;
  overdue: boolean;
  dueDay?: string;
  /** The due day as a date in the runtime's language, or "under its threshold now". */
  dueText: string;
  basisText: string;
}

export interface UpkeepViewTank {
  serialNumber: string;
  robotName: string;
  tank: string;
  tankText: string;
  level: number;
  todoText: string;
}

export interface UpkeepViewBattery {
  serialNumber: string;
  robotName: string;
  text: string;
  cycles?: number;
}

export interface UpkeepView {
  /** The last day the parts listed are due by (YYYY-MM-DD, in the robots' zone, else the runtime's). */
  dueBy: string;
  /** That day as a date in the runtime's language. */
  dueByText: string;
  parts: UpkeepViewPart[];
  tanks: UpkeepViewTank[];
  batteries: {
    /** Out of normal, by robot name. */
    notices: UpkeepViewBattery[];
    /** The robots whose status gives a battery health, and how many of them are not out of normal. */
    known: number;
    normal: number;
  };
  /** How many lines need a person: the count the console's tab shows. */
  count: number;
}

/** The robot's upkeep row: its forecasts from the table, its tanks and battery from the status shown. */
function rowOf(source: UpkeepSource, partDue: number): UpkeepRobot | undefined {
  const { facts, row } = source;
  if (row) return { ...row, name: source.name, ...(facts ? { tanks: facts.tanks, battery: facts.battery } : {}) };
  if (!facts) return undefined;
  // A robot the account's history does not know yet (msg.statuses): what its status says, no forecast.
  const parts = facts.parts.map(({ part, remaining, usedLife, lifeSpan }) => ({
    part,
    remaining,
    usedLife,
    lifeSpan,
    threshold: partDue,
    forecast: { basis: "too little history" as const, historyDays: 0 },
  }));
  return { serialNumber: source.serialNumber, name: source.name, readAt: source.readAt.toISOString(), parts, tanks: facts.tanks, battery: facts.battery };
}

/**
 * The upkeep view at `now`: today is the robots' (their rows' zone, else the runtime's), as their due days are;
 * `limits`: the account's (upkeepLimitsOfAccount), robot-upkeep's where one runs.
 */
export function upkeepView(sources: readonly UpkeepSource[], now: Date, language: string, t: Translate, limits: AccountUpkeepLimits): UpkeepView {
  const table = sources.flatMap((source) => rowOf(source, limits.partDue) ?? []);
  const today = dayFormatter(zoneOfTable(table))(now.getTime());
  const date = new Intl.DateTimeFormat(language, { timeZone: "UTC", month: "short", day: "numeric", weekday: "short" });
  const dayText = (day: string) => date.format(Date.parse(`${day}T12:00:00Z`));
  const dueBy = dayAfter(today, limits.dueWithinDays);
  const parts = partsDue(table, today, limits).map(
    (item): UpkeepViewPart => ({
      serialNumber: item.serialNumber,
      robotName: item.robotName,
      part: item.part,
      partText: itemName(item, t),
      remaining: Math.round(item.remaining * 100),
      overdue: item.overdue,
      ...(item.dueDay !== undefined ? { dueDay: item.dueDay } : {}),
      dueText: item.overdue || item.dueDay === undefined ? todoText(item, t) : dayText(item.dueDay),
      basisText: basisText(item, t, language),
    }),
  );
  const tanks = tanksNeedingPerson(table, limits).map(
    (item): UpkeepViewTank => ({
      serialNumber: item.serialNumber,
      robotName: item.robotName,
      tank: item.tank,
      tankText: itemName(item, t),
      level: Math.round(item.level),
      todoText: todoText(item, t),
    }),
  );
  const notices = batteryNotices(table, limits).map(
    (item): UpkeepViewBattery => ({
      serialNumber: item.serialNumber,
      robotName: item.robotName,
      text: todoText(item, t),
      ...(item.cycles !== undefined ? { cycles: item.cycles } : {}),
    }),
  );
  const noticed = new Set(notices.map((notice) => notice.serialNumber));
  const withHealth = table.filter((robot) => robot.battery.health !== undefined);
  return {
    dueBy,
    dueByText: dayText(dueBy),
    parts,
    tanks,
    batteries: { notices, known: withHealth.length, normal: withHealth.filter((robot) => !noticed.has(robot.serialNumber)).length },
    count: parts.length + tanks.length + notices.length,
  };
}
