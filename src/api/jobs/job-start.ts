/**
 * Starting a job's work on one robot: the request that starts it (an area is
 * looked up among the map's areas first) and what shows it started. robot-job
 * uses both for the robot it chose; the MQTT bridge for the robot a topic names.
 */
import { areasOfMap } from "./work-targets";
import type { CallOptions, RobotClient } from "../client";
import { commandConfirmationRule, tempTaskConfirmationRule } from "../watching/confirmation";
import type { ConfirmationRule } from "../watching/confirmation-poller";
import { NAVI_IDLE, NavigationFollower } from "../watching/navigation";
import type { RobotOperationName } from "../cloud/endpoints";
import { invalidInput } from "../errors";
import type { JobWork, RobotFacts } from "./dispatch";
import { areaTaskBody, navigateBody, startTaskBody } from "../cloud/command-bodies";
import { areaIdOf, cleaningModeFor, mapNameFor } from "./start-requests";

export interface StartRequest {
  operation: RobotOperationName;
  body: Record<string, unknown>;
  /** The task's name as the robot will show it (task and area work). */
  taskName?: string;
}

/** What starts `work` on the robot `facts` describe; an area not on the robot's map is bad input naming payload.area. */
export async function startRequestFor(
  client: RobotClient,
  work: JobWork,
  facts: RobotFacts,
  settings: { mode?: string; name?: string },
  options: CallOptions = {},
): Promise<StartRequest> {
  const serialNumber = facts.serialNumber;
  const mapName = mapNameFor(work, facts);
  const mode = cleaningModeFor(settings.mode, facts);
  switch (work.kind) {
    case "task":
      return { operation: "submitCommand", body: startTaskBody(serialNumber, work.task, mapName, mode), taskName: work.task };
    case "goto":
      return { operation: "submitCommand", body: navigateBody(serialNumber, mapName, work.point) };
    case "area": {
      const mapId = facts.mapId ?? work.map;
      const areaId = areaIdOf(work.area, await areasOfMap(client, serialNumber, mapId, options));
      if (areaId === undefined) throw invalidInput("payload.area", `no area "${work.area}" on map ${mapName} of robot ${serialNumber}`);
      const taskName = settings.name ?? work.area;
      return { operation: "sendTempTask", body: areaTaskBody(serialNumber, taskName, mode, mapName, mapId, areaId), taskName };
    }
  }
}

/**
 * What shows the work started: its task running, or a navigation to its point
 * under way (or already arrived: a short way). `navigation` follows a goto
 * job's navigation (made with the account's arrival radius), and goes on
 * following it once the job runs.
 */
export function startedRule(
  work: JobWork,
  serialNumber: string,
  taskName: string | undefined,
  navigation?: NavigationFollower,
): ConfirmationRule {
  if (work.kind === "goto") {
    const follower = navigation ?? new NavigationFollower(work.point);
    return {
      get expects() {
        return `navigation to "${work.point}" under way: navStatus other than ${NAVI_IDLE}, the robot coming closer to the point, or ${follower.expectsArrival()}`;
      },
      confirmedBy: (state) => {
        const progress = follower.see(state);
        return progress.phase === "notSeen" ? undefined : progress.shown;
      },
    };
  }
  if (work.kind === "area") return tempTaskConfirmationRule(taskName);
  return commandConfirmationRule(startTaskBody(serialNumber, work.task, work.map, undefined))!;
}
