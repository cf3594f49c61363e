/**
 * robot-maps: lists a robot's maps (C2), reads the sub-areas of one map (C1),
 * fetches a map's image (the map endpoint's pre-signed PNG), or draws a floor
 * with every robot on it (fleetMap, an SVG), or gives the operator console's
 * model of the whole fleet (fleetView). msg.payload becomes the
 * envelope's data on code 0; any other code is an error that names the code.
 */
import type { Node, NodeAPI, NodeDef } from "node-red";
import type { MapImage } from "../../api/client";
import { refuseRobotsNotOfAccount } from "../../api/account/robot-directory";
import { alarmsOfAccount } from "../../api/pushes/open-alarms";
import { invalidInput } from "../../api/errors";
import type { MapList, MapListRequest, Subareas, SubareasRequest } from "../../api/cloud/schemas";
import { translator, type Translate } from "../shared/i18n";
import { handleRobotInput, type RobotCall } from "../shared/robot-input";
import { chooseSetting, evaluateProperty, resolveSerialNumber, serialNumberField, type SerialNumberSetting } from "../shared/settings";
import { isPlainObject } from "../shared/plain-data";
import { SERIAL_NUMBER_PATTERN, SERIAL_NUMBER_RULE } from "../../api/settings/input-rules";
import type { PlacedRobot, UnplacedRobot } from "./fleet-map";
import { alarmText, drawFleetMap, type FleetMapResult } from "./fleet-map-draw";
import { fleetMapSource, listedMap, type FleetMapRequest } from "./fleet-map-source";
import { fleetView, type FleetView } from "./fleet-view";
import { gatherFleetView } from "./fleet-view-source";
import { MAP_OPERATIONS, type MapOperation } from "./table";

export { drawFleetMap, type FleetMapResult } from "./fleet-map-draw";

export interface RobotMapsProperties extends NodeDef, SerialNumberSetting {
  robot: string;
  operation: string;
  mapId: string;
  mapIdType: string;
}

/** A map image with the map it shows (msg.map). */
export interface MapImageResult {
  image: MapImage;
  map: { mapId: string; mapName: string; mapVersion: string | number };
}

type MapsResult = MapList | Subareas | MapImageResult | FleetMapResult | FleetView;

function isImage(result: MapsResult): result is MapImageResult {
  return "image" in result;
}

function isFleetMap(result: MapsResult): result is FleetMapResult {
  return "svg" in result;
}

function isFleetView(result: MapsResult): result is FleetView {
  return "floors" in result;
}

/** The account's open alarms as fleetMap's rings: the most severe per robot, "H6 Brush motor stalled". */
export function accountAlarmsOf(accountKey: string): Map<string, string> {
  const rings = new Map<string, string>();
  const open = alarmsOfAccount(accountKey);
  for (const { serialNumber } of open.list()) {
    if (rings.has(serialNumber)) continue;
    rings.set(serialNumber, alarmText(open.highestOf(serialNumber)!));
  }
  return rings;
}

/**
 * msg.alarms of fleetMap: the robots to ring, as {serialNumber: text} (a
 * robot-events node's incidents kept per robot; true or "" rings without
 * text) or as a list of serial numbers.
 */
export function alarmsOf(value: unknown): Map<string, string> {
  const alarms = new Map<string, string>();
  if (value === undefined || value === null) return alarms;
  const problem = () => invalidInput("msg.alarms", "must be {serialNumber: text} or a list of serial numbers", "fleetMap");
  if (Array.isArray(value)) {
    for (const name of value) {
      if (typeof name !== "string" || !SERIAL_NUMBER_PATTERN.test(name)) throw problem();
      alarms.set(name, "");
    }
    return alarms;
  }
  if (!isPlainObject(value)) throw problem();
  for (const [name, says] of Object.entries(value)) {
    if (says === false || says === undefined || says === null) continue;
    if (!SERIAL_NUMBER_PATTERN.test(name) || (typeof says !== "string" && says !== true)) throw problem();
    alarms.set(name, says === true ? "" : says);
  }
  return alarms;
}

/** "3 maps", "5 areas" or "map image 12 kB", in the runtime's language. */
export function mapsStatusText(data: MapsResult, t: Translate): string {
  if (Array.isArray(data)) return t(data.length === 1 ? "status.oneMap" : "status.maps", { count: data.length });
  if (isImage(data)) return t("status.image", { size: Math.max(1, Math.round(data.image.data.length / 1024)) });
  if (isFleetView(data)) {
    const alarms = data.alarms.open.length;
    return t(alarms === 0 ? "status.view" : "status.viewWithAlarms", { floors: data.floors.length, robots: data.robots.length, alarms });
  }
  if (isFleetMap(data)) return t(data.robots.length === 1 ? "status.oneRobotOnMap" : "status.robotsOnMap", { map: data.map.mapName, count: data.robots.length });
  const count = data.subareas.partitions.length;
  return t(count === 1 ? "status.oneArea" : "status.areas", { count });
}

/** Wires one robot-maps node: how each message becomes a call. */
function setUpMaps(RED: NodeAPI, node: Node, config: RobotMapsProperties): void {
  const t = translator(RED, "robot-maps");
  /** msg.payload.mapId, else the node's Map id (TypedInput). */
  async function mapIdFor(call: RobotCall, payload: Record<string, unknown>, operation: MapOperation): Promise<unknown> {
    const mapId = payload.mapId !== undefined ? payload.mapId : await evaluateProperty(RED, node, call.msg, config.mapId, config.mapIdType, "mapId");
    if (mapId === undefined || mapId === null) {
      throw invalidInput("mapId", `is required for ${operation}: set msg.payload.mapId or the node's Map id`);
    }
    return mapId;
  }

  /** What fleetMap draws: the robot and map, and msg.statuses or msg.serialNumbers when the message gives them. */
  async function fleetMapRequest(call: RobotCall, payload: Record<string, unknown>, robotSn: unknown): Promise<FleetMapRequest> {
    if (typeof robotSn !== "string" || !SERIAL_NUMBER_PATTERN.test(robotSn)) {
      throw invalidInput(payload.robotSn !== undefined ? "payload.robotSn" : "serialNumber", SERIAL_NUMBER_RULE, "fleetMap");
    }
    const request: FleetMapRequest = { serialNumber: robotSn };
    const mapId = payload.mapId !== undefined ? payload.mapId : await evaluateProperty(RED, node, call.msg, config.mapId, config.mapIdType, "mapId");
    if (mapId !== undefined && mapId !== null && mapId !== "") {
      if (typeof mapId !== "string") throw invalidInput("mapId", "must be a string", "fleetMap");
      request.mapId = mapId;
    }
    const { statuses, serialNumbers } = call.input;
    if (statuses !== undefined) {
      if (!Array.isArray(statuses)) throw invalidInput("msg.statuses", "must be an array of robot statuses (as robot-status sends them)", "fleetMap");
      request.statuses = statuses;
    } else if (serialNumbers !== undefined) {
      if (!Array.isArray(serialNumbers) || !serialNumbers.every((name) => typeof name === "string" && SERIAL_NUMBER_PATTERN.test(name))) {
        throw invalidInput("msg.serialNumbers", `must be an array of serial numbers (${SERIAL_NUMBER_RULE})`, "fleetMap");
      }
      const refusing = refuseRobotsNotOfAccount(call.client.accountKey, "msg.serialNumbers", serialNumbers);
      if (refusing) await refusing;
      request.serialNumbers = serialNumbers as string[];
    }
    return request;
  }

  // Only robotSn and mapId are read from the payload, so a map-list entry {mapId, mapName, ...} can be
  // fed straight in; the client's request schema checks the values and names any bad field.
  async function fetchMaps(call: RobotCall): Promise<MapsResult> {
    const { client, options } = call;
    const operation = chooseSetting(call.input, "operation", config.operation, MAP_OPERATIONS);
    // The whole account's fleet: no robot or map to name.
    if (operation === "fleetView") return fleetView(await gatherFleetView(client, call.input.statuses, options), t);
    const payload = isPlainObject(call.input.payload) ? call.input.payload : {};
    const robotSn = await resolveSerialNumber(RED, node, call, payload.robotSn, config, serialNumberField(call, payload.robotSn, { payload: "payload.robotSn" }));
    if (operation === "listMaps") return client.listMaps({ robotSn } as MapListRequest, options);
    if (operation === "fleetMap") {
      const request = await fleetMapRequest(call, payload, robotSn);
      // Without msg.alarms, the account's open alarms (from a robot-events node linked to it) ring the robots.
      const alarms = call.input.alarms === undefined ? accountAlarmsOf(client.accountKey) : alarmsOf(call.input.alarms);
      return drawFleetMap(await fleetMapSource(client, request, options), t, alarms);
    }
    const mapId = await mapIdFor(call, payload, operation);
    if (operation === "getSubareas") return client.getSubareas({ mapId, robotSn } as SubareasRequest, options);
    const map = await mapEntryFor(call, robotSn as string, mapId, payload);
    const image = await client.getMapImage({ serialNumber: robotSn as string, ...map }, options);
    return { image, map };
  }

  /**
   * The map's name and version as the map endpoint wants them: from the
   * payload (an entry of listMaps passed on), else looked up in the robot's
   * map list, so a flow that only knows the id still gets its image.
   */
  async function mapEntryFor(call: RobotCall, robotSn: string, mapId: unknown, payload: Record<string, unknown>): Promise<MapImageResult["map"]> {
    if (payload.mapName !== undefined && payload.mapVersion !== undefined) {
      return { mapId: mapId as string, mapName: payload.mapName as string, mapVersion: payload.mapVersion as string };
    }
    const entry = await listedMap(call.client, robotSn, mapId, "mapImage", call.options);
    const version = (entry as Record<string, unknown>).mapVersion;
    return { mapId: entry.mapId, mapName: entry.mapName, mapVersion: typeof version === "number" || typeof version === "string" ? version : "" };
  }

  handleRobotInput<MapsResult>(RED, node, config.robot, {
    reads: ["serialNumber", "operation", "statuses", "serialNumbers", "alarms"],
    run: fetchMaps,
    statusText: (result) => mapsStatusText(result, t),
    output: (result, msg) => {
      if (isFleetMap(result)) {
        // The SVG for a ui-template or an http response node; what it shows as data beside it.
        const out = msg as typeof msg & { contentType: string; map: FleetMapResult["map"]; robots: PlacedRobot[]; unplaced: UnplacedRobot[] };
        out.payload = result.svg;
        out.contentType = "image/svg+xml";
        out.map = result.map;
        out.robots = result.robots;
        out.unplaced = result.unplaced;
        return out;
      }
      if (!isImage(result)) {
        msg.payload = result;
        return msg;
      }
      // The PNG itself, its type and which map it is: for an http response node (set its Content-Type from msg.contentType) or a dashboard.
      const out = msg as typeof msg & { contentType: string; map: MapImageResult["map"] };
      out.payload = result.image.data;
      out.contentType = result.image.contentType;
      out.map = result.map;
      return out;
    },
  });
}

export default function registerRobotMaps(RED: NodeAPI): void {
  RED.nodes.registerType("robot-maps", function RobotMaps(this: Node, config: RobotMapsProperties) {
    RED.nodes.createNode(this, config);
    setUpMaps(RED, this, config);
  });
}
