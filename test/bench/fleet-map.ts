/**
 * What drawing a fleet map costs: placing 200 robots of one floor and writing
 * the SVG over an 800 x 520 floor plan (robot-maps' fleetMap once its image
 * is kept), median of several runs in this process.
 */
import { performance } from "node:perf_hooks";
import { drawFleetMap } from "../../src/nodes/robot-maps/robot-maps";
import { Canvas } from "../../src/simulator/maps/png";

export const FLEET_MAP_ROBOTS = 200;
export const FLEET_MAP_GOAL_MS = 100;
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
  const t = (key: string) => key;
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
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log("\nfleet map:");
  console.log(
    `  ${FLEET_MAP_ROBOTS} robots on one ${WIDTH} x ${HEIGHT} floor (${placed} placed): drawn in ${median.toFixed(2)} ms (median of ${RUNS}, slowest ${times.at(-1)!.toFixed(2)} ms), ` +
      `SVG ${Math.round(svgBytes / 1024)} kB   goal < ${FLEET_MAP_GOAL_MS} ms   ${median < FLEET_MAP_GOAL_MS ? "PASS" : "MISS"}`,
  );
}
