/**
 * One picture of a floor with every robot on it: which robots a set of
 * statuses puts on a map, where (docs/cloud-api.md, "Where a robot is on its
 * map": pixels of the map image, rows counted from its bottom edge, angle in
 * degrees), and the SVG that draws them over the map image. Pure: no Node-RED,
 * no network; robot-maps' fleetMap operation feeds it.
 */
import { placeLabels, spreadMarkers, textWidth, type Box, type LabelRequest, type PlacedLabel, type Point } from "../../api/map-layout";
import { escapeMarkup } from "../../api/markup";
import { isNavigating } from "../../api/watching/navigation";
import { readStatus, type StatusReading } from "../../api/watching/status-reader";
import { isPlainObject } from "../shared/plain-data";

/** What a robot is doing, as the picture colours its marker. */
export const MARKER_STATES = ["cleaning", "navigating", "paused", "idle", "charging", "emergencyStop", "offline"] as const;
export type MarkerState = (typeof MARKER_STATES)[number];

/** Fill colours by state: distinct for colour-blind readers too (hue and lightness differ). */
export const STATE_COLOURS: Readonly<Record<MarkerState, string>> = {
  cleaning: "#1b9e4b",
  navigating: "#01a5b8",
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
  /** Where a navigating robot is going, when known: the navigation point's name ("charging" for its charger). No status says it. */
  destination?: string;
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
  /** "to charger" for "charging", else "to <point>". */
  goingTo(point: string): string;
  reason(reason: UnplacedReason): string;
  title(mapName: string, robots: number): string;
  unplacedHeading: string;
  /** The legend's entry for the ring of a robot with an alarm raised. */
  alarm: string;
  /** The heading of the floor's areas, listed at its foot. */
  areasHeading: string;
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

/** The id of the map a status puts its robot on. */
export function mapIdOf(status: Record<string, unknown>): string | undefined {
  return readStatus(status).mapId;
}

/** How the picture colours a robot: offline first, then its emergency stop, charging, its task, its navigation (navStatus other than NAVI_IDLE). */
export function markerStateOf(reading: StatusReading, destination?: string): MarkerState {
  if (reading.online === false) return "offline";
  if (reading.emergencyStop === true) return "emergencyStop";
  if (reading.charging === true) return "charging";
  if (reading.taskState === "RUNNING") return "cleaning";
  if (reading.taskState === "PAUSED") return "paused";
  if (destination !== undefined || isNavigating(reading) === true) return "navigating";
  return "idle";
}

/** The name a robot is shown by (the account's robot directory: robotNameOf). */
export type RobotNames = (serialNumber: string) => string;

/** Where a robot is on its way to, as far as the package knows (SentNavigations.destinationOf): no status says. */
export type RobotDestinations = (serialNumber: string, reading: StatusReading) => string | undefined;

/** Splits the statuses of robots on map `mapId` into placed (in top-left pixels) and unplaced ones. */
export function placeRobots(
  statuses: readonly unknown[],
  mapId: string,
  height: number,
  nameOf: RobotNames = (serialNumber) => serialNumber,
  destinationOf: RobotDestinations = () => undefined,
): { placed: PlacedRobot[]; unplaced: UnplacedRobot[] } {
  const placed: PlacedRobot[] = [];
  const unplaced: UnplacedRobot[] = [];
  for (const status of statuses) {
    if (!isPlainObject(status)) continue;
    const reading = readStatus(status);
    const { serialNumber, position } = reading;
    if (reading.mapId !== mapId || !serialNumber) continue;
    const name = nameOf(serialNumber);
    const destination = destinationOf(serialNumber, reading);
    const state = markerStateOf(reading, destination);
    if (reading.localizationState === "LOST") unplaced.push({ serialNumber, name, reason: "lost", state });
    else if (!position) unplaced.push({ serialNumber, name, reason: "noPosition", state });
    else {
      const going = state === "navigating" && destination !== undefined ? { destination } : {};
      placed.push({ serialNumber, name, x: position.x, y: height - position.y, angle: position.angle, state, ...going });
    }
  }
  return { placed, unplaced };
}

/** The navigation points of a status that carry a grid position (status-reader.ts), in top-left pixels. */
export function navigationMarks(status: unknown, height: number): NavigationMark[] {
  if (!isPlainObject(status)) return [];
  return (readStatus(status).navigationPoints ?? []).flatMap((point) => (point.grid ? [{ name: point.name, x: point.grid.x, y: height - point.grid.y }] : []));
}

/** Width and height from a PNG's IHDR chunk, or undefined when the bytes are not a PNG. */
export function pngSize(data: Buffer): { width: number; height: number } | undefined {
  const signature = "89504e470d0a1a0a";
  if (data.length < 24 || data.subarray(0, 8).toString("hex") !== signature || data.subarray(12, 16).toString("latin1") !== "IHDR") return undefined;
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

const xml = escapeMarkup;

const round = (value: number) => Math.round(value * 100) / 100;

/** The page width at which every robot's name must still read at MIN_SCREEN_FONT pixels. */
const NARROWEST_PAGE = 800;
const MIN_SCREEN_FONT = 12.5;

/** A robot's words after its name: its state, where it is going while it navigates. */
function stateWords(robot: { state: MarkerState; destination?: string }, words: FleetMapWords): string {
  return robot.destination !== undefined ? words.goingTo(robot.destination) : words.state(robot.state);
}

/**
 * The SVG of a floor: the map image as its background at 0,0 in its own
 * pixels, each placed robot as a <g data-serial-number> at its position with
 * a mark pointing along its angle, its state's colour and its name; robots
 * that stand on one another fanned out, each with a line to its true spot;
 * navigation points as small labelled dots; labels where they hide nothing;
 * a legend of the states and of the robots that cannot be placed below the
 * floor plan (the viewBox grows to hold it), never over it.
 */
export function renderFleetMap(
  map: MapPicture,
  placed: readonly PlacedRobot[],
  unplaced: readonly UnplacedRobot[],
  marks: readonly NavigationMark[],
  words: FleetMapWords,
  areas: readonly string[] = [],
): string {
  const { width, height } = map;
  // Text keeps a readable size on screen whatever the map's size in pixels, down to a page NARROWEST_PAGE wide.
  const font = round(Math.max(1.6 * Math.max(4, Math.min(width, height) / 70), (MIN_SCREEN_FONT * width) / NARROWEST_PAGE));
  const unit = font / 1.6;
  const spread = spreadMarkers(
    [...placed].sort((a, b) => (a.serialNumber < b.serialNumber ? -1 : a.serialNumber > b.serialNumber ? 1 : 0)),
    unit * 2.6,
  );
  const markerBox = ({ x, y }: { x: number; y: number }, radius: number): Box => ({ x: x - radius, y: y - radius, width: radius * 2, height: radius * 2 });
  const labelRequests: LabelRequest[] = [
    ...spread.map((robot): LabelRequest => ({ id: `robot:${robot.serialNumber}`, text: robotLabel(robot), anchor: robot.drawnAt, clearance: unit * 1.3, kind: "robot" })),
    ...marks.map((mark, index): LabelRequest => ({ id: `point:${index}`, text: mark.name, anchor: mark, clearance: unit * 0.9, kind: "point" })),
  ];
  const keepClear = [...spread.map((robot) => markerBox(robot.drawnAt, unit * 1.2)), ...marks.map((mark) => markerBox(mark, unit * 0.6))];
  const labels = placeLabels(labelRequests, keepClear, font, { x: 0, y: 0, width, height });
  // Text on the floor plan is outlined in white, so it reads over the map image and over lines (the legend has its own backing).
  const halo = `stroke="#fff" stroke-width="${round(unit / 2)}" paint-order="stroke"`;
  const legendBlock = legend(unplaced, words, unit, font, width, areas);
  const fullHeight = round(height + legendBlock.height);
  const parts: string[] = [
    // Text's font is inherited from the root, and no <style> element: in a page that puts the SVG in its document
    // (a dashboard, every update) it would be one more of the page's style sheets, added and removed at each update.
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${fullHeight}" width="${width}" height="${fullHeight}" class="robot-fleet-map" data-map-id="${xml(map.mapId)}" data-map-height="${height}" font-family="sans-serif" font-size="${font}" role="img" aria-label="${xml(words.title(map.mapName, placed.length))}">`,
    `<image href="${map.imageUrl}" x="0" y="0" width="${width}" height="${height}"/>`,
    `<g class="navigation-points">`,
  ];
  marks.forEach((mark, index) => {
    const label = labels.get(`point:${index}`);
    parts.push(
      `<g class="navigation-point" data-name="${xml(mark.name)}" transform="translate(${round(mark.x)} ${round(mark.y)})"><title>${xml(mark.name)}</title>` +
        `<circle r="${round(unit * 0.6)}" fill="#fff" stroke="#333" stroke-width="${round(unit / 4)}"/>` +
        (label ? `<text x="${round(label.x - mark.x)}" y="${round(label.y - mark.y)}" fill="#333" ${halo}>${xml(mark.name)}</text>` : "") +
        `</g>`,
    );
  });
  parts.push(`</g><g class="robots">`);
  for (const robot of spread) {
    const colour = STATE_COLOURS[robot.state];
    const alarmed = robot.alarm !== undefined;
    const title = `${robot.name} (${robot.serialNumber}): ${stateWords(robot, words)}${alarmNote(robot.alarm)}`;
    const offset = { x: round(robot.drawnAt.x - robot.x), y: round(robot.drawnAt.y - robot.y) };
    const fanned = offset.x !== 0 || offset.y !== 0;
    const label = labels.get(`robot:${robot.serialNumber}`);
    // The cloud's angle turns counter-clockwise with rows counted upwards; SVG rows count downwards.
    const body =
      (alarmed ? `<circle class="alarm-ring" r="${round(unit * 2)}" fill="none" stroke="${ALARM_COLOUR}" stroke-width="${round(unit / 2.5)}" stroke-dasharray="${round(unit * 0.8)} ${round(unit * 0.4)}"/>` : "") +
      `<path transform="rotate(${round(-robot.angle)})" d="M ${round(unit * 2.2)} 0 L ${round(unit * 0.6)} ${round(-unit * 0.9)} L ${round(unit * 0.6)} ${round(unit * 0.9)} Z" fill="${colour}"/>` +
      `<circle class="robot-body" r="${round(unit)}" fill="${colour}" stroke="#fff" stroke-width="${round(unit / 4)}"/>`;
    parts.push(
      `<g class="robot robot-${robot.state}${alarmed ? " robot-alarm" : ""}" data-serial-number="${xml(robot.serialNumber)}" data-state="${robot.state}"${robot.state === "offline" ? ' opacity=".55"' : ""} transform="translate(${round(robot.x)} ${round(robot.y)})">` +
        `<title>${xml(title)}</title>` +
        // A fanned robot's line and true-spot dot may lie over another robot's body: they never take its click.
        (fanned
          ? `<line class="robot-leader" x1="0" y1="0" x2="${offset.x}" y2="${offset.y}" stroke="#333" stroke-width="${round(unit / 5)}" pointer-events="none"/>` +
            `<circle class="robot-spot" r="${round(unit * 0.35)}" fill="${colour}" stroke="#333" stroke-width="${round(unit / 8)}" pointer-events="none"/>` +
            `<g class="robot-fanned" transform="translate(${offset.x} ${offset.y})">${body}</g>`
          : body) +
        (label ? robotName(robot, label, alarmed, unit, halo) : "") +
        `</g>`,
    );
  }
  parts.push(`</g>`, `<g class="legend" transform="translate(0 ${height})">${legendBlock.svg}</g>`, `</svg>`);
  return parts.join("");
}

/** A robot's name where placeLabels put it, relative to its spot; a name set far off gets a line to its marker. */
function robotName(robot: PlacedRobot & { drawnAt: Point }, label: PlacedLabel, alarmed: boolean, unit: number, halo: string): string {
  let leader = "";
  if (label.far) {
    const { box } = label;
    const end = { x: Math.min(Math.max(robot.drawnAt.x, box.x), box.x + box.width), y: Math.min(Math.max(robot.drawnAt.y, box.y), box.y + box.height) };
    leader = `<line class="label-leader" x1="${round(robot.drawnAt.x - robot.x)}" y1="${round(robot.drawnAt.y - robot.y)}" x2="${round(end.x - robot.x)}" y2="${round(end.y - robot.y)}" stroke="#666" stroke-width="${round(unit / 6)}" pointer-events="none"/>`;
  }
  return `${leader}<text class="robot-name" x="${round(label.x - robot.x)}" y="${round(label.y - robot.y)}" fill="${alarmed ? ALARM_COLOUR : "#111"}" ${halo}>${xml(robotLabel(robot))}</text>`;
}

function robotLabel(robot: { name: string; alarm?: string }): string {
  return robot.alarm !== undefined ? `${ALARM_MARK} ${robot.name}` : robot.name;
}

/**
 * The legend, as wide as the map: the floor's areas (the cloud names a map's
 * areas but gives no outline or place for them, so they are listed here, each
 * a <g class="area" data-area> a page can take clicks on), the states' colours
 * and the alarm ring in rows that wrap, then the robots of this map that
 * cannot be placed, with the reason. Each unplaced robot's line carries
 * data-unplaced-serial-number, so that a page selecting markers by
 * data-serial-number finds markers only.
 */
function legend(unplaced: readonly UnplacedRobot[], words: FleetMapWords, unit: number, font: number, width: number, areas: readonly string[]): { svg: string; height: number } {
  const line = round(font * 1.4);
  const rows: string[] = [];
  let x = unit;
  let y = unit + font;
  if (areas.length > 0) {
    const heading = `${words.areasHeading}:`;
    rows.push(`<text class="areas-heading" x="${round(unit)}" y="${round(y)}" fill="#111" font-weight="bold">${xml(heading)}</text>`);
    x = unit * 2 + textWidth(heading, font);
    for (const area of areas) {
      const itemWidth = textWidth(area, font) + unit * 2;
      if (x > unit && x + itemWidth > width) {
        x = unit;
        y += line * 1.2;
      }
      rows.push(
        `<g class="area" data-area="${xml(area)}" transform="translate(${round(x)} ${round(y)})"><title>${xml(area)}</title>` +
          `<rect x="0" y="${round(-font)}" width="${round(itemWidth - unit * 0.6)}" height="${round(font * 1.35)}" rx="${round(unit / 2)}" fill="#eef3fa" stroke="#2166ac" stroke-width="${round(unit / 6)}"/>` +
          `<text x="${round(unit * 0.7)}" fill="#123">${xml(area)}</text></g>`,
      );
      x += itemWidth;
    }
    x = unit;
    y += line * 1.2;
  }
  const key = (label: string, dot: string, className = "") => {
    const itemWidth = unit * 1.6 + textWidth(label, font) + unit * 1.5;
    if (x > unit && x + itemWidth > width) {
      x = unit;
      y += line;
    }
    rows.push(`<g${className ? ` class="${className}"` : ""} transform="translate(${round(x)} ${round(y)})">${dot}<text x="${round(unit * 1.6)}" fill="${className ? ALARM_COLOUR : "#111"}">${xml(label)}</text></g>`);
    x += itemWidth;
  };
  for (const state of MARKER_STATES) key(words.state(state), `<circle r="${round(unit * 0.6)}" cx="${round(unit * 0.6)}" cy="${round(-font / 3)}" fill="${STATE_COLOURS[state]}"/>`);
  key(words.alarm, `<circle r="${round(unit * 0.6)}" cx="${round(unit * 0.6)}" cy="${round(-font / 3)}" fill="none" stroke="${ALARM_COLOUR}" stroke-width="${round(unit / 4)}"/>`, "legend-alarm");
  if (unplaced.length > 0) {
    y += line;
    rows.push(`<text x="${round(unit)}" y="${round(y)}" fill="#111" font-weight="bold">${xml(words.unplacedHeading)}</text>`);
    for (const robot of unplaced) {
      y += line;
      const says = `${robot.name} (${robot.serialNumber}): ${words.reason(robot.reason)}`;
      rows.push(
        `<text class="unplaced" data-unplaced-serial-number="${xml(robot.serialNumber)}" x="${round(unit)}" y="${round(y)}" fill="${robot.alarm !== undefined ? ALARM_COLOUR : "#111"}">` +
          `${xml(robot.alarm !== undefined ? `${ALARM_MARK} ${says}${alarmNote(robot.alarm)}` : says)}</text>`,
      );
    }
  }
  const height = round(y + unit + font * 0.4);
  return { svg: `<rect class="legend-backing" x="0" y="0" width="${width}" height="${height}" fill="#fff"/>${rows.join("")}`, height };
}
