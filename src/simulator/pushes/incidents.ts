/**
 * Incidents (alarms) of the simulated robots, as the push service reports
 * them (docs/cloud-api.md, Pushed events): raised with incidentStatus 1 and a
 * new incidentId, recovered with incidentStatus 0 and the same id. Four come
 * from a robot's own state and are noticed in one place, notice(), which the
 * world calls after every change (a command's effect, time passing, a PATCH
 * or updateRobot); any other is raised and recovered by hand through
 * /_sim/robots/<serial>/incidents.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { describeIssues } from "../../api/errors";
import type { SimRobot } from "../world/fleet";
import type { PushBody, PushOutcome } from "./pushes";
import { Code, SimError } from "../server/sim-errors";
import { currentMap } from "../world/views";

export const INCIDENT_LEVELS = ["H0", "H1", "H2", "H3", "H4", "H5", "H6", "H7"] as const;
export type IncidentLevel = (typeof INCIDENT_LEVELS)[number];

/**
 * The content of an incident push. Times are epoch ms; endTime is 0 while the
 * incident is raised. Task fields are those of the task under way when it was
 * raised ("" when none): a simulated task runs once on one map, so taskId,
 * subTaskId and taskInstanceId are all its id. navName is the point a
 * navigation under way heads for; the simulator keeps no navigation ids, so
 * navInstanceId is always "".
 */
export interface IncidentContent {
  incidentCode: number;
  incidentName: string;
  incidentLevel: IncidentLevel;
  incidentId: string;
  /** 1 raised, 0 recovered. */
  incidentStatus: 0 | 1;
  startTime: number;
  endTime: number;
  taskId: string;
  subTaskId: string;
  taskInstanceId: string;
  taskName: string;
  mapId: string;
  mapName: string;
  navInstanceId: string;
  navName: string;
}

/** What an incident is: its code, name and level. */
export interface IncidentKind {
  incidentCode: number;
  incidentName: string;
  incidentLevel: IncidentLevel;
}

/** Below this battery percentage a robot raises its critical battery incident. */
export const CRITICAL_BATTERY_PERCENT = 5;

/**
 * The incidents a simulated robot raises by itself, while the condition holds.
 * The codes are the simulator's own: the real ones are not published.
 */
export const ROBOT_INCIDENTS = {
  emergencyStop: {
    incidentCode: 1001,
    incidentName: "Emergency stop pressed",
    incidentLevel: "H4",
    holds: (robot: SimRobot) => robot.emergencyStop,
  },
  batteryCritical: {
    incidentCode: 1002,
    incidentName: "Battery critically low",
    incidentLevel: "H4",
    holds: (robot: SimRobot) => robot.battery.powerPercentage < CRITICAL_BATTERY_PERCENT,
  },
  localizationLost: {
    incidentCode: 1003,
    incidentName: "Localization lost",
    incidentLevel: "H4",
    holds: (robot: SimRobot) => robot.localization.state === "LOST",
  },
  offline: { incidentCode: 1004, incidentName: "Robot offline", incidentLevel: "H5", holds: (robot: SimRobot) => !robot.online },
} as const satisfies Record<string, IncidentKind & { holds: (robot: SimRobot) => boolean }>;
type Condition = keyof typeof ROBOT_INCIDENTS;
const CONDITIONS = Object.keys(ROBOT_INCIDENTS) as Condition[];

/** Code and name of an incident raised by hand that names neither. */
export const MANUAL_INCIDENT = { incidentCode: 9000, incidentName: "Simulated incident" } as const;

const LEVEL = `must be one of ${INCIDENT_LEVELS.map((level) => `"${level}"`).join(", ")}`;
const WHOLE = "must be a whole number, 0 or more";
const TEXT = "must be a non-empty string";
const text = z.string({ error: TEXT }).refine((value) => value.trim() !== "", TEXT);

/** POST /_sim/robots/<serial>/incidents. */
export const IncidentRequest = z
  .strictObject({
    incidentLevel: z.enum(INCIDENT_LEVELS, { error: LEVEL }).optional(),
    incidentCode: z.number({ error: WHOLE }).int(WHOLE).min(0, WHOLE).optional(),
    incidentName: text.optional(),
    raised: z.boolean({ error: "must be true or false" }).optional(),
    incidentId: text.optional(),
  })
  .superRefine((request, context) => {
    if (request.raised !== false && request.incidentLevel === undefined) {
      context.addIssue({
        code: "custom",
        path: ["incidentLevel"],
        message: `is needed to raise an incident (${LEVEL.replace("must be ", "")})`,
      });
    }
    if (request.raised === false && request.incidentId === undefined && request.incidentCode === undefined) {
      context.addIssue({ code: "custom", path: ["incidentId"], message: "or incidentCode is needed to recover an incident" });
    }
  });

/** The answer of POST /_sim/robots/<serial>/incidents: the pushed body (the payload alone when nothing was pushed). */
export interface IncidentAnswer {
  incidentId: string;
  incidentStatus: 0 | 1;
  pushed: boolean;
  body: PushBody | { payload: Record<string, unknown> };
}

interface OpenIncident {
  content: IncidentContent;
  serialNumber: string;
  modelTypeCode: string;
  /** The robot condition that raised it, if any. */
  condition?: Condition;
}

export class IncidentBook {
  /** Per robot, oldest first. */
  private readonly open = new Map<string, OpenIncident[]>();
  /** Per robot, the conditions last seen holding. */
  private readonly held = new Map<string, Set<Condition>>();

  /** `push` sends an incident's payload (or does nothing without a push target). */
  constructor(private readonly push: (label: string, payload: Record<string, unknown>) => PushOutcome) {}

  /**
   * Raises the incident of each condition that has come to hold since the
   * last look and recovers the one of each that no longer holds. Cheap (four
   * tests per robot), so it may run after every change.
   */
  notice(robots: Iterable<SimRobot>, now: number): void {
    for (const robot of robots) {
      let held = this.held.get(robot.serialNumber);
      for (const condition of CONDITIONS) {
        const holds = ROBOT_INCIDENTS[condition].holds(robot);
        if (holds === (held?.has(condition) ?? false)) continue;
        if (holds) {
          if (!held) this.held.set(robot.serialNumber, (held = new Set()));
          held.add(condition);
          this.raise(robot, ROBOT_INCIDENTS[condition], now, randomUUID(), condition);
        } else {
          held!.delete(condition);
          const incident = this.openOf(robot.serialNumber).find((candidate) => candidate.condition === condition);
          // Recovered by hand already: nothing more to say.
          if (incident) this.recover(incident, now);
        }
      }
    }
  }

  /** The robot's open incidents, oldest first. */
  list(serialNumber: string): IncidentContent[] {
    return this.openOf(serialNumber).map((incident) => structuredClone(incident.content));
  }

  /** Forgets every open incident (a reset): the robots' conditions are looked at afresh. */
  clear(): void {
    this.open.clear();
    this.held.clear();
  }

  /** POST /_sim/robots/<serial>/incidents: raises one, or recovers an open one; SimError naming the field otherwise. */
  request(robot: SimRobot, raw: unknown, now: number): { status: number; body: IncidentAnswer } {
    const parsed = IncidentRequest.safeParse(raw);
    if (!parsed.success) throw new SimError(Code.INVALID_ARGUMENT, describeIssues(parsed.error).message);
    const request = parsed.data;
    if (request.raised === false) {
      const [field, matches] =
        request.incidentId !== undefined
          ? (["incidentId", (incident: OpenIncident) => incident.content.incidentId === request.incidentId] as const)
          : (["incidentCode", (incident: OpenIncident) => incident.content.incidentCode === request.incidentCode] as const);
      const incident = this.openOf(robot.serialNumber).find(matches);
      if (!incident) {
        const value = field === "incidentId" ? request.incidentId : request.incidentCode;
        throw new SimError(Code.NOT_FOUND, `${field}: no open incident ${value} on robot ${robot.serialNumber}`);
      }
      return { status: 200, body: this.recover(incident, now) };
    }
    if (
      request.incidentId !== undefined &&
      this.openOf(robot.serialNumber).some((incident) => incident.content.incidentId === request.incidentId)
    ) {
      throw new SimError(Code.ALREADY_EXISTS, `incidentId: incident ${request.incidentId} is already open on robot ${robot.serialNumber}`, {
        httpStatus: 409,
      });
    }
    const kind: IncidentKind = {
      incidentCode: request.incidentCode ?? MANUAL_INCIDENT.incidentCode,
      incidentName: request.incidentName ?? MANUAL_INCIDENT.incidentName,
      incidentLevel: request.incidentLevel!,
    };
    return { status: 201, body: this.raise(robot, kind, now, request.incidentId ?? randomUUID()) };
  }

  private openOf(serialNumber: string): OpenIncident[] {
    return this.open.get(serialNumber) ?? [];
  }

  private raise(robot: SimRobot, kind: IncidentKind, now: number, incidentId: string, condition?: Condition): IncidentAnswer {
    const incident: OpenIncident = {
      content: {
        incidentCode: kind.incidentCode,
        incidentName: kind.incidentName,
        incidentLevel: kind.incidentLevel,
        incidentId,
        incidentStatus: 1,
        startTime: now,
        endTime: 0,
        ...taskFields(robot),
      },
      serialNumber: robot.serialNumber,
      modelTypeCode: robot.model,
      ...(condition ? { condition } : {}),
    };
    this.open.set(robot.serialNumber, [...this.openOf(robot.serialNumber), incident]);
    return this.send(incident);
  }

  private recover(incident: OpenIncident, now: number): IncidentAnswer {
    const left = this.openOf(incident.serialNumber).filter((candidate) => candidate !== incident);
    if (left.length) this.open.set(incident.serialNumber, left);
    else this.open.delete(incident.serialNumber);
    return this.send({ ...incident, content: { ...incident.content, incidentStatus: 0, endTime: now } });
  }

  private send(incident: OpenIncident): IncidentAnswer {
    const { content } = incident;
    const payload = { serialNumber: incident.serialNumber, modelTypeCode: incident.modelTypeCode, content: structuredClone(content) };
    const label = `incident ${content.incidentLevel} ${content.incidentStatus === 1 ? "raised" : "recovered"} ${incident.serialNumber}`;
    const outcome = this.push(label, payload);
    return {
      incidentId: content.incidentId,
      incidentStatus: content.incidentStatus,
      pushed: outcome.pushed,
      body: outcome.body ?? { payload },
    };
  }
}

/** The task, map and navigation fields of an incident the robot raises now. */
function taskFields(
  robot: SimRobot,
): Omit<IncidentContent, keyof IncidentKind | "incidentId" | "incidentStatus" | "startTime" | "endTime"> {
  const task = robot.currentTask;
  const map = currentMap(robot);
  const navigating = robot.navigation?.state === "NAVIGATING" || robot.navigation?.state === "PAUSED";
  return {
    taskId: task?.id ?? "",
    subTaskId: task?.id ?? "",
    taskInstanceId: task?.id ?? "",
    taskName: task?.name ?? "",
    mapId: task?.mapId ?? map.id,
    mapName: task?.mapName ?? map.name,
    navInstanceId: "",
    navName: navigating ? robot.navigation!.position : "",
  };
}
