/**
 * The account's incidents, the one tracker of them: a log of every alarm the
 * cloud pushed (raised, who acknowledged it when, when its robot recovered),
 * kept INCIDENT_LOG_DAYS, of which the open alarms (raised, not yet pushed as
 * recovered) and the shift (news in the last 24 hours, or open) are views; the
 * cloud keeps no incident history, so what is not kept here when pushed is
 * gone. A robot-events node linked to the account feeds them (every incident
 * it receives, also one below its Incidents from) and counts them under
 * itself; jobs, the fleet map and the MQTT bridge read them. Only alarms
 * count: H0 (event notification) and H1 (statistics point) are not, and an
 * incident whose level cannot be read is (a person should look at what the
 * package cannot place).
 */
import { keptForAccount } from "../account/account-memory";
import { alarmIdOf, alarmKey, type IncidentEvent } from "./pushes";
import { idTextOf, isRecord } from "../cloud/values";

/** Alarms kept at most per account; past this the oldest raised is forgotten. */
export const MAX_OPEN_ALARMS = 10_000;
/** The shift's log: alarms raised in the last 24 hours (and any still open), at most this many. */
export const SHIFT_LOG_MS = 24 * 3600_000;
export const MAX_SHIFT_LOG = 2000;
/** The incident log: an alarm is kept this long after its last news (a month's report, as the plan's settled occurrences), at most MAX_LOGGED_INCIDENTS. */
export const INCIDENT_LOG_DAYS = 35;
export const MAX_LOGGED_INCIDENTS = 10_000;
/** The lowest level that is an alarm: H0 and H1 are events, sent on but never open. */
const FIRST_ALARM_RANK = 2;

export interface OpenAlarm {
  serialNumber: string;
  incidentId: string;
  /** "H0"-"H7" and 0-7; absent when the cloud's level could not be read. */
  level?: { code: string; rank: number };
  /** incidentCode and incidentName as the cloud sent them. */
  code?: string;
  name?: string;
  /** Where the robot was, when the incident says (mapName, navName). */
  mapName?: string;
  /** ISO 8601, from the incident's startTime; else when the push arrived. */
  raisedAt: string;
  acknowledged?: { by: string; at: string };
}

export type AlarmChange = { kind: "raised" | "recovered" | "acknowledged"; alarm: OpenAlarm };

/** An alarm of the shift: as it was raised, who acknowledged it when, and when its robot recovered. */
export type AlarmLogEntry = OpenAlarm & { recoveredAt?: string };

/** What toPlain gives and restore takes: the open alarms and the incident log (`shift` in what an earlier version wrote). */
export interface PlainAlarms {
  open: OpenAlarm[];
  incidents: AlarmLogEntry[];
}

/** What a list asks: the open alarms and the shift. */
export interface AlarmsView {
  open: OpenAlarm[];
  shift: AlarmLogEntry[];
}

/** The rank an alarm counts at when comparing severity: an unreadable level counts as the highest. */
export function severityOf(alarm: Pick<OpenAlarm, "level">): number {
  return alarm.level?.rank ?? 7;
}

export class AccountAlarms {
  /** In the order raised: the first is the oldest. */
  private readonly open = new Map<string, OpenAlarm>();
  /** The incident log, in the order the alarms came. */
  private readonly logged: AlarmLogEntry[] = [];
  private readonly listeners = new Set<(change: AlarmChange) => void>();

  constructor(
    private readonly capacity = MAX_OPEN_ALARMS,
    private readonly logCapacity = MAX_LOGGED_INCIDENTS,
  ) {}

  /** What an incident push changes: an alarm raised or recovered; undefined when it changes nothing. */
  record(event: IncidentEvent, now: Date = new Date()): AlarmChange | undefined {
    const rank = event.level?.rank;
    const incidentId = alarmIdOf(event);
    if ((rank !== undefined && rank < FIRST_ALARM_RANK) || incidentId === undefined) return undefined;
    const key = alarmKey(event.serialNumber, incidentId);
    if (!event.raised) {
      const alarm = this.open.get(key);
      if (!alarm) return undefined;
      this.open.delete(key);
      const logged = this.logEntryOf(alarm);
      if (logged) logged.recoveredAt = event.endTimeIso ?? now.toISOString();
      return this.changed({ kind: "recovered", alarm });
    }
    const known = this.open.get(key);
    const alarm: OpenAlarm = {
      serialNumber: event.serialNumber,
      incidentId,
      ...(event.level ? { level: { code: event.level.code, rank: event.level.rank } } : {}),
      ...optional("code", idTextOf(event.incidentCode)),
      ...optional("name", idTextOf(event.incidentName)),
      ...optional("mapName", idTextOf(event.mapName)),
      raisedAt: event.startTimeIso ?? known?.raisedAt ?? now.toISOString(),
      ...(known?.acknowledged ? { acknowledged: known.acknowledged } : {}),
    };
    // A repeated raise keeps its acknowledgement and its place in the order.
    if (known) {
      this.open.set(key, alarm);
      return undefined;
    }
    this.open.set(key, alarm);
    if (this.open.size > this.capacity) this.open.delete(this.open.keys().next().value!);
    this.logged.push({ ...alarm });
    this.trimLog(now);
    return this.changed({ kind: "raised", alarm });
  }

  /** Marks an open alarm as seen by a person; undefined when no such alarm is open. */
  acknowledge(serialNumber: string, incidentId: string, by: string, now: Date = new Date()): OpenAlarm | undefined {
    const alarm = this.open.get(alarmKey(serialNumber, incidentId));
    if (!alarm) return undefined;
    alarm.acknowledged = { by, at: now.toISOString() };
    const logged = this.logEntryOf(alarm);
    if (logged) logged.acknowledged = alarm.acknowledged;
    this.changed({ kind: "acknowledged", alarm });
    return alarm;
  }

  /** The shift: every alarm with news in the last 24 hours and every one still open, in the order they came (the newest MAX_SHIFT_LOG), with its acknowledgement and recovery. */
  log(now: Date = new Date()): AlarmLogEntry[] {
    this.trimLog(now);
    const since = new Date(now.getTime() - SHIFT_LOG_MS).toISOString();
    const shift = this.logged.filter((entry) => lastNewsOf(entry) >= since || this.stillOpen(entry));
    return shift.slice(Math.max(0, shift.length - MAX_SHIFT_LOG)).map((entry) => ({ ...entry }));
  }

  /** Every logged alarm raised at or after `fromMs` and before `toMs` (ms since the epoch), in the order they came: a report's incidents. */
  incidents(fromMs: number, toMs: number): AlarmLogEntry[] {
    return this.logged
      .filter((entry) => {
        const raised = Date.parse(entry.raisedAt);
        return raised >= fromMs && raised < toMs;
      })
      .map((entry) => ({ ...entry }));
  }

  /** What a list answers: the open alarms and the shift. */
  view(now: Date = new Date()): AlarmsView {
    return { open: this.list().map((alarm) => ({ ...alarm })), shift: this.log(now) };
  }

  /** Every open alarm, oldest raised first. */
  list(): OpenAlarm[] {
    return [...this.open.values()];
  }

  /** How many alarms are open, of every robot. */
  get size(): number {
    return this.open.size;
  }

  ofRobot(serialNumber: string): OpenAlarm[] {
    return this.list().filter((alarm) => alarm.serialNumber === serialNumber);
  }

  /** The robot's most severe open alarm (the oldest among equals), if it has one. */
  highestOf(serialNumber: string): OpenAlarm | undefined {
    let highest: OpenAlarm | undefined;
    for (const alarm of this.open.values()) {
      if (alarm.serialNumber === serialNumber && (!highest || severityOf(alarm) > severityOf(highest))) highest = alarm;
    }
    return highest;
  }

  /** Calls `listener` after each change; returns what stops it. */
  onChange(listener: (change: AlarmChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Plain JSON, for a context store: the open alarms with their acknowledgements, and the incident log. */
  toPlain(now: Date = new Date()): PlainAlarms {
    this.trimLog(now);
    return { open: this.list().map((alarm) => ({ ...alarm })), incidents: this.logged.map((entry) => ({ ...entry })) };
  }

  /**
   * Takes back what toPlain gave (read from a context store; a list of open
   * alarms as an earlier version wrote it), skipping what is not an alarm;
   * alarms already open stay, and the log gains only entries it lacks.
   */
  restore(plain: unknown): void {
    const stored = Array.isArray(plain) ? { open: plain as unknown[], shift: [] } : isRecord(plain) ? plain : undefined;
    if (!stored) return;
    for (const entry of Array.isArray(stored.open) ? stored.open : []) {
      if (!isAlarm(entry)) continue;
      const key = alarmKey(entry.serialNumber, entry.incidentId);
      if (!this.open.has(key) && this.open.size < this.capacity) this.open.set(key, { ...entry });
    }
    const logged = new Set(this.logged.map(logKeyOf));
    const entries: unknown[] = Array.isArray(stored.incidents) ? stored.incidents : Array.isArray(stored.shift) ? stored.shift : [];
    for (const entry of entries) {
      if (isAlarm(entry) && !logged.has(logKeyOf(entry))) this.logged.push({ ...(entry as AlarmLogEntry) });
    }
    this.trimLog(new Date());
  }

  /** The log's entry of an open alarm: the last one raised under its robot and id. */
  private logEntryOf(alarm: OpenAlarm): AlarmLogEntry | undefined {
    for (let index = this.logged.length - 1; index >= 0; index--) {
      const entry = this.logged[index]!;
      if (entry.serialNumber === alarm.serialNumber && entry.incidentId === alarm.incidentId) return entry;
    }
    return undefined;
  }

  /**
   * Drops what fell out of the log: no news of it (raised, acknowledged,
   * recovered) for INCIDENT_LOG_DAYS and no longer open, then the oldest past
   * the log's size. A cloud's old start time recovered now stays the while.
   */
  private trimLog(now: Date): void {
    const since = new Date(now.getTime() - INCIDENT_LOG_DAYS * 24 * 3600_000).toISOString();
    const kept = this.logged.filter((entry) => lastNewsOf(entry) >= since || this.stillOpen(entry));
    this.logged.splice(0, this.logged.length, ...kept.slice(Math.max(0, kept.length - this.logCapacity)));
  }

  /** A logged alarm not recovered whose incident is open: an earlier raise of an id raised again is recovered, and not open. */
  private stillOpen(entry: AlarmLogEntry): boolean {
    return entry.recoveredAt === undefined && this.open.has(alarmKey(entry.serialNumber, entry.incidentId));
  }

  private changed(change: AlarmChange): AlarmChange {
    for (const listener of this.listeners) listener(change);
    return change;
  }
}

/** The last thing that happened to a logged alarm: raised, acknowledged or recovered (ISO 8601 sorts as time). */
const lastNewsOf = (entry: AlarmLogEntry) => [entry.raisedAt, entry.acknowledged?.at ?? "", entry.recoveredAt ?? ""].sort().at(-1)!;

const logKeyOf = (entry: OpenAlarm) => `${alarmKey(entry.serialNumber, entry.incidentId)}\u0000${entry.raisedAt}`;

function isAlarm(entry: unknown): entry is OpenAlarm {
  return (
    isRecord(entry) && typeof entry.serialNumber === "string" && typeof entry.incidentId === "string" && typeof entry.raisedAt === "string"
  );
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

/** The open alarms of the account `accountKey` (RobotClient.accountKey), the same object for every node of it in this process. */
export function alarmsOfAccount(accountKey: string): AccountAlarms {
  return keptForAccount(accountKey, "open alarms", () => new AccountAlarms());
}
