/**
 * One picture of a floor with every robot on it: which robots a set of
 * statuses puts on a map, where (docs/cloud-api.md, "Where a robot is on its
 * map": pixels of the map image, rows counted from its bottom edge, angle in
 * degrees), and the SVG that draws them over the map image. Pure: no Node-RED,
 * no network; robot-maps' fleetMap operation feeds it.
 */
import { numberOf, readStatus, type StatusReading } from "../api/status-reader";
import { isPlainObject } from "./plain-data";

/** What a robot is doing, as the picture colours its marker. */
export const MARKER_STATES = ["cleaning", "paused", "idle", "charging", "emergencyStop", "offline"] as const;
export type MarkerState = (typeof MARKER_STATES)[number];

/** Fill colours by state: distinct for colour-blind readers too (hue and lightness differ). */
export const STATE_COLOURS: Readonly<Record<MarkerState, string>> = {
  cleaning: "#1b9e4b",
  paused: "#e6a100",
  idle: "#2166ac",
  charging: "#7b3294",
  emergencyStop: "#d7301f",
  offline: "#8c8c8c",
};

export type UnplacedReason = "lost" | "noPosition";

export interface PlacedRobot {
  serialNumber: string;
  name: string;
  /** Pixels from the image's left edge. */
  x: number;
  /** Pixels from the image's top edge (the cloud counts from the bottom). */
  y: number;
  /** Degrees as the cloud gives them. */
  angle: number;
  state: MarkerState;
  /** What the flow says of an alarm raised on this robot (msg.alarms), when there is one. */
  alarm?: string;
}

export interface UnplacedRobot {
  serialNumber: string;
  name: string;
  reason: UnplacedReason;
  state: MarkerState;
  alarm?: string;
}

export interface NavigationMark {
  name: string;
  x: number;
  y: number;
}

export interface MapPicture {
  mapId: string;
  mapName: string;
  width: number;
  height: number;
  /** The map image as a data: URL. */
  imageUrl: string;
}

/** The words of the picture, in the runtime's language. */
export interface FleetMapWords {
  state(state: MarkerState): string;
  reason(reason: UnplacedReason): string;
  title(mapName: string, robots: number): string;
  unplacedHeading: string;
  /** The legend's entry for the ring of a robot with an alarm raised. */
  alarm: string;
}

/** The ring around a robot with an alarm raised, and the mark before its name. */
export const ALARM_COLOUR = "#d7301f";
const ALARM_MARK = "\u26a0";

/** " – ⚠ text" after a robot's words, "" when it has no alarm. */
function alarmNote(alarm: string | undefined): string {
  if (alarm === undefined) return "";
  return alarm === "" ? ` – ${ALARM_MARK}` : ` – ${ALARM_MARK} ${alarm}`;
}

/** The placed and unplaced robots with the alarm the flow gives for each (msg.alarms: serial number → text). */
export function withAlarms<Robot extends { serialNumber: string }>(robots: readonly Robot[], alarms: ReadonlyMap<string, string>): Robot[] {
  return robots.map((robot) => (alarms.has(robot.serialNumber) ? { ...robot, alarm: alarms.get(robot.serialNumber)! } : robot));
}

function text(value: unknown): string | undefined {
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  return typeof value === "number" && Number.isFinite(value) ? String(value) : undefined;
}

/** The id of the map a status puts its robot on. */
export function mapIdOf(status: Record<string, unknown>): string | undefined {
  return readStatus(status).mapId;
}

/** How the picture colours a robot: offline first, then its emergency stop, charging, its task. */
export function markerStateOf(reading: StatusReading): MarkerState {
  if (reading.online === false) return "offline";
  if (reading.emergencyStop === true) return "emergencyStop";
  if (reading.charging === true) return "charging";
  if (reading.taskState === "RUNNING") return "cleaning";
  if (reading.taskState === "PAUSED") return "paused";
  return "idle";
}

/** Splits the statuses of robots on map `mapId` into placed (in top-left pixels) and unplaced ones. */
export function placeRobots(statuses: readonly unknown[], mapId: string, height: number): { placed: PlacedRobot[]; unplaced: UnplacedRobot[] } {
  const placed: PlacedRobot[] = [];
  const unplaced: UnplacedRobot[] = [];
  for (const status of statuses) {
    if (!isPlainObject(status)) continue;
    const reading = readStatus(status);
    const { serialNumber, position } = reading;
    if (reading.mapId !== mapId || !serialNumber) continue;
    const name = reading.displayName ?? serialNumber;
    const state = markerStateOf(reading);
    if (reading.localizationState === "LOST") unplaced.push({ serialNumber, name, reason: "lost", state });
    else if (!position) unplaced.push({ serialNumber, name, reason: "noPosition", state });
    else placed.push({ serialNumber, name, x: position.x, y: height - position.y, angle: position.angle, state });
  }
  return { placed, unplaced };
}

/** The navigation points of a status that carry a position, in top-left pixels. */
export function navigationMarks(status: unknown, height: number): NavigationMark[] {
  if (!isPlainObject(status) || !isPlainObject(status.navigationPoints) || !Array.isArray(status.navigationPoints.naviPoints)) return [];
  const marks: NavigationMark[] = [];
  for (const point of status.navigationPoints.naviPoints) {
    if (!isPlainObject(point)) continue;
    const name = text(point.naviPointName);
    const x = numberOf(point.navPointGridX);
    const y = numberOf(point.navPointGridY);
    if (name !== undefined && x !== undefined && y !== undefined) marks.push({ name, x, y: height - y });
  }
  return marks;
}

/** Width and height from a PNG's IHDR chunk, or undefined when the bytes are not a PNG. */
export function pngSize(data: Buffer): { width: number; height: number } | undefined {
  const signature = "89504e470d0a1a0a";
  if (data.length < 24 || data.subarray(0, 8).toString("hex") !== signature || data.subarray(12, 16).toString("latin1") !== "IHDR") return undefined;
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
function xml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => XML_ESCAPES[character]!);
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * The SVG of a floor: the map image as its background (viewBox = the image's
 * pixels), each placed robot as a <g data-serial-number> centred on its
 * position with a mark pointing along its angle, its state's colour and its
 * name; navigation points as small labelled dots; a legend of the states and
 * of the robots that cannot be placed.
 */
export function renderFleetMap(map: MapPicture, placed: readonly PlacedRobot[], unplaced: readonly UnplacedRobot[], marks: readonly NavigationMark[], words: FleetMapWords): string {
  const { width, height } = map;
  // Marks and text keep one size on screen whatever the map's size in pixels.
  const unit = Math.max(4, Math.min(width, height) / 70);
  const font = round(unit * 1.6);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" class="robot-fleet-map" data-map-id="${xml(map.mapId)}" role="img" aria-label="${xml(words.title(map.mapName, placed.length))}">`,
    `<style>.robot-fleet-map text{font-family:sans-serif;font-size:${font}px;paint-order:stroke;stroke:#fff;stroke-width:${round(unit / 2)}px}` +
      `.robot-fleet-map .robot-offline{opacity:.55}</style>`,
    `<image href="${map.imageUrl}" x="0" y="0" width="${width}" height="${height}"/>`,
    `<g class="navigation-points">`,
  ];
  for (const mark of marks) {
    parts.push(
      `<g class="navigation-point" data-name="${xml(mark.name)}" transform="translate(${round(mark.x)} ${round(mark.y)})">` +
        `<circle r="${round(unit * 0.6)}" fill="#fff" stroke="#333" stroke-width="${round(unit / 4)}"/>` +
        `<text x="${round(unit)}" y="${round(unit * 0.5)}" fill="#333">${xml(mark.name)}</text></g>`,
    );
  }
  parts.push(`</g><g class="robots">`);
  for (const robot of placed) {
    const colour = STATE_COLOURS[robot.state];
    const alarmed = robot.alarm !== undefined;
    const title = `${robot.name} (${robot.serialNumber}): ${words.state(robot.state)}${alarmNote(robot.alarm)}`;
    // The cloud's angle turns counter-clockwise with rows counted upwards; SVG rows count downwards.
    parts.push(
      `<g class="robot robot-${robot.state}${alarmed ? " robot-alarm" : ""}" data-serial-number="${xml(robot.serialNumber)}" data-state="${robot.state}" transform="translate(${round(robot.x)} ${round(robot.y)})">` +
        `<title>${xml(title)}</title>` +
        (alarmed ? `<circle class="alarm-ring" r="${round(unit * 2)}" fill="none" stroke="${ALARM_COLOUR}" stroke-width="${round(unit / 2.5)}" stroke-dasharray="${round(unit * 0.8)} ${round(unit * 0.4)}"/>` : "") +
        `<g transform="rotate(${round(-robot.angle)})"><path d="M ${round(unit * 2.2)} 0 L ${round(unit * 0.6)} ${round(-unit * 0.9)} L ${round(unit * 0.6)} ${round(unit * 0.9)} Z" fill="${colour}"/></g>` +
        `<circle class="robot-body" r="${round(unit)}" fill="${colour}" stroke="#fff" stroke-width="${round(unit / 4)}"/>` +
        `<text x="${round(unit * 1.4)}" y="${round(-unit * 1.2)}" fill="${alarmed ? ALARM_COLOUR : "#111"}">${xml(alarmed ? `${ALARM_MARK} ${robot.name}` : robot.name)}</text></g>`,
    );
  }
  parts.push(`</g>`, legend(unplaced, words, unit, font), `</svg>`);
  return parts.join("");
}

/** The states' colours, and the robots of this map that cannot be placed with the reason. */
function legend(unplaced: readonly UnplacedRobot[], words: FleetMapWords, unit: number, font: number): string {
  const line = round(font * 1.3);
  const rows = MARKER_STATES.map(
    (state, index) =>
      `<g transform="translate(0 ${round(index * line)})"><circle r="${round(unit * 0.6)}" cx="${round(unit * 0.6)}" cy="${round(-font / 3)}" fill="${STATE_COLOURS[state]}"/>` +
      `<text x="${round(unit * 1.6)}" fill="#111">${xml(words.state(state))}</text></g>`,
  );
  rows.push(
    `<g class="legend-alarm" transform="translate(0 ${round(MARKER_STATES.length * line)})"><circle r="${round(unit * 0.6)}" cx="${round(unit * 0.6)}" cy="${round(-font / 3)}" fill="none" stroke="${ALARM_COLOUR}" stroke-width="${round(unit / 4)}"/>` +
      `<text x="${round(unit * 1.6)}" fill="${ALARM_COLOUR}">${xml(words.alarm)}</text></g>`,
  );
  /** The states' rows and the alarm ring's. */
  const keyRows = MARKER_STATES.length + 1;
  if (unplaced.length > 0) {
    rows.push(`<text y="${round(keyRows * line)}" fill="#111" font-weight="bold">${xml(words.unplacedHeading)}</text>`);
    unplaced.forEach((robot, index) => {
      const says = `${robot.name} (${robot.serialNumber}): ${words.reason(robot.reason)}`;
      rows.push(
        `<text class="unplaced" data-serial-number="${xml(robot.serialNumber)}" y="${round((keyRows + 1 + index) * line)}" fill="${robot.alarm !== undefined ? ALARM_COLOUR : "#111"}">` +
          `${xml(robot.alarm !== undefined ? `${ALARM_MARK} ${says}${alarmNote(robot.alarm)}` : says)}</text>`,
      );
    });
  }
  // A backing so the legend stays readable over the map; text widths are estimated (no font metrics here).
  const longest = Math.max(
    ...MARKER_STATES.map((state) => words.state(state).length + 3),
    words.alarm.length + 3,
    ...unplaced.map((robot) => robot.name.length + robot.serialNumber.length + 16 + (robot.alarm?.length ?? -3) + 3),
    words.unplacedHeading.length,
  );
  const lines = keyRows + (unplaced.length > 0 ? 1 + unplaced.length : 0);
  const backing = `<rect x="${round(-unit / 2)}" y="${round(-font - unit / 2)}" width="${round(longest * font * 0.6 + unit)}" height="${round(lines * line + unit)}" rx="${round(unit / 2)}" fill="#fff" fill-opacity=".8"/>`;
  return `<g class="legend" transform="translate(${round(unit)} ${round(unit + font)})">${backing}${rows.join("")}</g>`;
}
