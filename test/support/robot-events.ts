/** What the robot-events tests send and deploy: pushes in the documented envelope, and a flow with helper nodes on the node's outputs. */
import { TAB, type FlowNode } from "./node-red";

export const APP_ID = "app-7f3c1e";
export const SERIAL = "GS-S-000101";
export const PATH = "/robot-events";

/** A tab, a robot-events node "events" and helper nodes on its three outputs. */
export function eventsFlow(settings: Record<string, unknown> = {}): FlowNode[] {
  return [
    { id: TAB, type: "tab", label: "events" },
    {
      id: "events",
      type: "robot-events",
      z: TAB,
      path: PATH,
      minLevel: "",
      ...settings,
      wires: [["incidents"], ["reports"], ["scheduling"]],
    },
    { id: "incidents", type: "helper", z: TAB },
    { id: "reports", type: "helper", z: TAB },
    { id: "scheduling", type: "helper", z: TAB },
  ];
}

/** An emergency stop raised at 2025-11-24T16:00:00Z, not yet recovered (endTime 0). */
export const INCIDENT_CONTENT = {
  incidentCode: 4011,
  incidentName: "Emergency stop pressed",
  incidentLevel: "H4",
  incidentId: "inc-1",
  incidentStatus: 1,
  startTime: 1_764_000_000_000,
  endTime: 0,
};

export function incidentPush(content: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    appId: APP_ID,
    payload: {
      serialNumber: SERIAL,
      modelTypeCode: "S1",
      content: { ...INCIDENT_CONTENT, taskId: "task-9", mapName: "Floor 1", ...content },
    },
    ...extra,
  };
}

export function reportPush(report: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    appId: APP_ID,
    payload: {
      serialNumber: SERIAL,
      modelTypeCode: "S1",
      taskReport: {
        id: "report-1",
        displayName: "Nightly lobby",
        cleaningMode: "洗地",
        taskEndStatus: 0,
        actualCleaningAreaSquareMeter: 118.5,
        startTime: 1_764_000_000_000,
        endTime: 1_764_001_200_000,
        ...report,
      },
    },
  };
}

/**
 * A real robot's task report in the polled shape (RFC 3339 times, subTasks,
 * consumables), as a public connector recorded one: the fields the field
 * notes list, with values of a scrubber stopped by hand at about 30 %
 * coverage (what a real account mostly showed). Some int64 values come as strings.
 */
export const RECORDED_TASK_REPORT = {
  id: "1894562370129641472",
  displayName: "B1 大堂洗地",
  robotSerialNumber: SERIAL,
  operator: "ops-user-17",
  completionPercentage: 0.3127,
  durationSeconds: "2288",
  plannedCleaningAreaSquareMeter: 1436.25,
  actualCleaningAreaSquareMeter: 449.12,
  efficiencySquareMeterPerHour: 870.4,
  waterConsumptionLiter: 11.6,
  startBatteryPercentage: 94,
  endBatteryPercentage: 71,
  consumablesResidualPercentage: { brush: 62, filter: 48, suctionBlade: 77 },
  cleaningMode: "洗地",
  taskEndStatus: 1,
  taskReportPngUri: "https://objects.example.test/reports/1894562370129641472.png?X-Amz-Expires=600",
  subTasks: [
    { mapId: "6c1f2a9e-5b0d-4c7e-9a43-2f8d1e7b0c55", mapName: "B1", actualCleaningAreaSquareMeter: 312.4, taskId: "1894562370129641473" },
    { mapId: "6c1f2a9e-5b0d-4c7e-9a43-2f8d1e7b0c55", mapName: "B1", actualCleaningAreaSquareMeter: 136.72, taskId: "1894562370129641474" },
  ],
  startTime: "2025-02-26T01:14:07.118954Z",
  endTime: "2025-02-26T01:52:15Z",
};
