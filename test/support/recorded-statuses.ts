/**
 * Statuses in the recorded shapes of the real cloud (test/fixtures/recorded-shapes.json):
 * a v1 batch status and an S-line status of one robot, with the fields that
 * matter to navigation given per test. No displayName, no navigation object:
 * what real answers do not carry. recorded-statuses.test.ts holds both to the
 * recording.
 */

export interface RecordedStatusFacts {
  serialNumber?: string;
  /** mapPosition in grid cells; absent: a LOST robot. */
  position?: { x: number; y: number; angle?: number };
  navStatus?: string;
  charging?: boolean;
  taskState?: string;
  map?: { id: string; name: string };
}

const FLOOR = { id: "e3b0c442-98fc-1c14-9afb-f4c8996fb924", name: "Floor 1" };

/** The S-line status' map version: a resource name (docs/cloud-api.md). */
export function recordedMapVersion(mapId: string): string {
  return `maps/${mapId}/versions/2`;
}

function localization(facts: RecordedStatusFacts, withVersion: boolean): Record<string, unknown> {
  const map = facts.map ?? FLOOR;
  return {
    localizationState: facts.position ? "NORMAL" : "LOST",
    map: withVersion ? { ...map, version: recordedMapVersion(map.id) } : { ...map },
    ...(facts.position ? { mapPosition: { x: facts.position.x, y: facts.position.y, angle: facts.position.angle ?? 0 } } : {}),
  };
}

const common = (facts: RecordedStatusFacts) => ({
  serialNumber: facts.serialNumber ?? "GS-S-000101",
  taskState: facts.taskState ?? "IDLE",
  online: true,
  speedKilometerPerHour: 0,
  battery: { charging: facts.charging ?? false, powerPercentage: 80 },
  emergencyStop: { enabled: false },
  cleanModes: [{ name: "__洗地" }],
  workModes: [{ id: "1", name: "__洗地", strength: "MIDDLE", type: "CLEANING" }],
  device: {},
  navStatus: facts.navStatus ?? "NAVI_IDLE",
  currentElevatorStatus: "ELEVATOR_STATUS_UNKNOWN",
  latestReportTime: "1763300713000",
});

/** A v1 batch status (GET /v1alpha1/robots/-/status:batchGet): its map without a version, no navigation points. */
export function recordedV1Status(facts: RecordedStatusFacts = {}): Record<string, unknown> {
  const base = common(facts);
  return {
    ...base,
    name: `robots/${base.serialNumber}`,
    position: { latitude: 0, longitude: 0, angle: 0 },
    localizationInfo: localization(facts, false),
    executableTasks: [{ id: "task-1", name: "All of Floor 1", map: { ...(facts.map ?? FLOOR) } }],
  };
}

/** An S-line status (B1 or the S-line batch): its map's version and navigation points with their grid cells. */
export function recordedSLineStatus(
  facts: RecordedStatusFacts = {},
  points: { name: string; x: number; y: number }[] = [],
): Record<string, unknown> {
  return {
    ...common(facts),
    localizationInfo: localization(facts, true),
    supportSite: false,
    navigationPoints: {
      naviPoints: points.map((point) => ({ naviPointName: point.name, navPointGridX: point.x, navPointGridY: point.y })),
    },
  };
}
