/**
 * What drawing a fleet map costs: placing 200 robots of one floor and writing
 * the SVG over an 800 x 520 floor plan (robot-maps' fleetMap once its image
 * is kept), and what the console's whole model of those 200 robots costs
 * (fleetView: words, actions, pickers, alarms and the floor's picture),
 * median of several runs in this process.
 */
import { performance } from "node:perf_hooks";
import type { OpenAlarm } from "../../src/api/pushes/open-alarms";
import { fleetView, type HeldJob } from "../../src/nodes/robot-maps/fleet-view";
import { drawFleetMap } from "../../src/nodes/robot-maps/robot-maps";
import { Canvas } from "../../src/simulator/maps/png";

export const FLEET_MAP_ROBOTS = 200;
export const FLEET_MAP_GOAL_MS = 100;
/** "Well under a second" for the console's whole model, picture included. */
export const FLEET_VIEW_GOAL_MS = 250;
const RUNS = 21;
const [WIDTH, HEIGHT] = [800, 520];
const MAP_ID = "bench-floor";

function statuses(): Record<string, unknown>[] {
  const states = [
    { taskState: "RUNNING" },
    { taskState: "PAUSED" },
    { taskState: "IDLE" },
    { online: false },
    { emergencyStop: { enabled: true } },
  ];
  return Array.from({ length: FLEET_MAP_ROBOTS }, (_, index) => ({
    serialNumber: `GS-S-${String(index).padStart(6, "0")}`,
    displayName: `Robot ${index}`,
    online: true,
    battery: { charging: index % 9 === 0, powerPercentage: 50 },
    localizationInfo: {
      localizationState: index % 50 === 49 ? "LOST" : "NORMAL",
      map: { id: MAP_ID, name: "Floor 1", version: 1 },
      ...(index % 50 === 49
        ? {}
        : { mapPosition: { x: (index * 37) % WIDTH, y: (index * 53) % HEIGHT, angle: ((index * 29) % 360) - 180 } }),
    },
    ...states[index % states.length],
  }));
}

export function printFleetMapCost(): void {
  const image = new Canvas(WIDTH, HEIGHT, [250, 250, 250]).toPng();
  const fleet = statuses();
  const source = {
    picture: {
      mapId: MAP_ID,
      mapName: "Floor 1",
      width: WIDTH,
      height: HEIGHT,
      imageUrl: `data:image/png;base64,${image.toString("base64")}`,
    },
    statuses: fleet,
    anchor: fleet[0]!,
    mapVersion: "1",
  };
  // The keys stand for the words, except the language the views format dates in (the node's catalogue gives "en-US").
  const t = (key: string) => (key === "planReport.language" ? "en-US" : key);
  const times: number[] = [];
  let svgBytes = 0;
  let placed = 0;
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const result = drawFleetMap(source, t);
    times.push(performance.now() - started);
    svgBytes = Buffer.byteLength(result.svg);
    placed = result.robots.length;
  }
  const median = medianOf(times);
  console.log("\nfleet map:");
  console.log(
    `  ${FLEET_MAP_ROBOTS} robots on one ${WIDTH} x ${HEIGHT} floor (${placed} placed): drawn in ${median.toFixed(2)} ms (median of ${RUNS}, slowest ${times.at(-1)!.toFixed(2)} ms), ` +
      `SVG ${Math.round(svgBytes / 1024)} kB   goal < ${FLEET_MAP_GOAL_MS} ms   ${median < FLEET_MAP_GOAL_MS ? "PASS" : "MISS"}`,
  );
  printViewCost(fleet, source.picture, t);
}

function medianOf(times: number[]): number {
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** fleetView of the same floor: the statuses as the v1 status gives them (tasks, progress), a tenth of the robots with an alarm, a tenth held by a job. */
function printViewCost(
  fleet: Record<string, unknown>[],
  picture: { mapId: string; mapName: string; width: number; height: number; imageUrl: string },
  t: (key: string) => string,
): void {
  const statuses = fleet.map((status, index) => ({
    status: {
      ...status,
      executableTasks: [{ id: "all", name: "All of Floor 1", map: { id: MAP_ID } }],
      ...(status.taskState === "RUNNING"
        ? { executingTask: { name: "All of Floor 1", progress: (index % 100) / 100, timeRemaining: index * 7 } }
        : {}),
      navigationPoints: { naviPoints: [{ naviPointName: "charging", navPointGridX: 20, navPointGridY: 20 }] },
    },
    at: Date.now(),
  }));
  const serialOf = (index: number) => `GS-S-${String(index).padStart(6, "0")}`;
  const alarms: OpenAlarm[] = Array.from({ length: FLEET_MAP_ROBOTS / 10 }, (_, index) => ({
    serialNumber: serialOf(index * 10),
    incidentId: `i-${index}`,
    level: { code: "H4", rank: 4 },
    name: "Brush stalled",
    raisedAt: new Date().toISOString(),
  }));
  const jobs = new Map<string, HeldJob>(
    Array.from({ length: FLEET_MAP_ROBOTS / 10 }, (_, index) => [
      serialOf(index * 10 + 2),
      { jobId: `job-${index}`, work: { kind: "goto", point: "charging", map: "Floor 1" } },
    ]),
  );
  const input = { statuses, pictures: new Map([[MAP_ID, { ...picture, mapVersion: "1" }]]), alarms, jobs, now: new Date() };
  const times: number[] = [];
  let bytes = 0;
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const view = fleetView(input, t);
    times.push(performance.now() - started);
    bytes = Buffer.byteLength(JSON.stringify(view));
  }
  const median = medianOf(times);
  console.log("\nfleet view (the console's model):");
  console.log(
    `  ${FLEET_MAP_ROBOTS} robots on one ${WIDTH} x ${HEIGHT} floor, ${alarms.length} alarms, ${jobs.size} jobs: built in ${median.toFixed(2)} ms (median of ${RUNS}, slowest ${times.at(-1)!.toFixed(2)} ms), ` +
      `${Math.round(bytes / 1024)} kB as JSON   goal < ${FLEET_VIEW_GOAL_MS} ms   ${median < FLEET_VIEW_GOAL_MS ? "PASS" : "MISS"}`,
  );
}
