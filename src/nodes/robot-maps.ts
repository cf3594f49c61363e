/**
 * robot-maps: lists a robot's maps (C2) or reads the sub-areas of one map (C1).
 * msg.payload becomes the envelope's data on code 0; any other code is an
 * error that names the code (the client retries code 8 a bounded number of times).
 */
import type { Node, NodeAPI, NodeDef } from "node-red";
import { invalidInput } from "../api/errors";
import type { MapList, MapListRequest, Subareas, SubareasRequest } from "../api/schemas";
import {
  chooseSetting,
  evaluateProperty,
  handleRobotInput,
  isPlainObject,
  resolveSerialNumber,
  type RobotCall,
  type SerialNumberSetting,
} from "./robot-input";

/** The node's operations; each is the client method (and endpoint row) it calls. */
export const MAP_OPERATIONS = ["listMaps", "getSubareas"] as const;
export type MapOperation = (typeof MAP_OPERATIONS)[number];

export interface RobotMapsProperties extends NodeDef, SerialNumberSetting {
  robot: string;
  operation: string;
  mapId: string;
  mapIdType: string;
}

function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** "3 maps" or "5 areas". */
export function mapsStatusText(data: MapList | Subareas): string {
  return Array.isArray(data) ? counted(data.length, "map") : counted(data.subareas.partitions.length, "area");
}

/** Wires one robot-maps node: how each message becomes a call. */
function setUpMaps(RED: NodeAPI, node: Node, config: RobotMapsProperties): void {
  /** msg.payload.mapId, else the node's Map id (TypedInput). */
  async function mapIdFor(call: RobotCall, payload: Record<string, unknown>): Promise<unknown> {
    const mapId = payload.mapId !== undefined ? payload.mapId : await evaluateProperty(RED, node, call.msg, config.mapId, config.mapIdType, "mapId");
    if (mapId === undefined || mapId === null) {
      throw invalidInput("mapId", "is required for getSubareas: set msg.payload.mapId or the node's Map id");
    }
    return mapId;
  }

  // Only robotSn and mapId are read from the payload, so a map-list entry {mapId, mapName, ...} can be
  // fed straight in; the client's request schema checks the values and names any bad field.
  async function fetchMaps(call: RobotCall): Promise<MapList | Subareas> {
    const { client, options } = call;
    const operation = chooseSetting(call.input, "operation", config.operation, MAP_OPERATIONS);
    const payload = isPlainObject(call.input.payload) ? call.input.payload : {};
    const robotSn = await resolveSerialNumber(RED, node, call, payload.robotSn, config);
    if (operation === "listMaps") return client.listMaps({ robotSn } as MapListRequest, options);
    return client.getSubareas({ mapId: await mapIdFor(call, payload), robotSn } as SubareasRequest, options);
  }

  handleRobotInput<MapList | Subareas>(RED, node, config.robot, {
    reads: ["serialNumber", "operation"],
    run: fetchMaps,
    statusText: mapsStatusText,
  });
}

export default function registerRobotMaps(RED: NodeAPI): void {
  RED.nodes.registerType("robot-maps", function RobotMaps(this: Node, config: RobotMapsProperties) {
    RED.nodes.createNode(this, config);
    setUpMaps(RED, this, config);
  });
}
