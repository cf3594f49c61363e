/**
 * fleetMap's picture of one floor in the runtime's words: the one drawing
 * that robot-maps' fleetMap answers with and that fleetView draws each floor
 * with. Pure: the source's image is already downloaded.
 */
import { CHARGING_POINT } from "../../api/cloud/commands";
import type { OpenAlarm } from "../../api/pushes/open-alarms";
import type { Translate } from "../shared/i18n";
import { mapIdOf, navigationMarks, placeRobots, renderFleetMap, withAlarms, type FleetMapWords, type PlacedRobot, type UnplacedRobot } from "./fleet-map";
import type { FleetMapSource } from "./fleet-map-source";

/** fleetMap's answer: the SVG, and what it shows as data. */
export interface FleetMapResult {
  svg: string;
  map: { mapId: string; mapName: string; mapVersion: string; width: number; height: number };
  robots: PlacedRobot[];
  unplaced: UnplacedRobot[];
}

/** The picture's words in the runtime's language. */
export function fleetMapWords(t: Translate): FleetMapWords {
  return {
    state: (state) => t(`fleetMap.states.${state}`),
    goingTo: (point) => (point === CHARGING_POINT ? t("fleetMap.toCharger") : t("fleetMap.goingTo", { point })),
    reason: (reason) => t(`fleetMap.reasons.${reason}`),
    title: (mapName, robots) => t(robots === 1 ? "fleetMap.titleOne" : "fleetMap.title", { map: mapName, count: robots }),
    unplacedHeading: t("fleetMap.unplaced"),
    alarm: t("fleetMap.alarm"),
    areasHeading: t("fleetMap.areas"),
  };
}

/** Draws the floor `source` shows, with the robots its statuses put on it, ringed where `alarms` names them. */
export function drawFleetMap(source: FleetMapSource, t: Translate, alarms: ReadonlyMap<string, string> = new Map()): FleetMapResult {
  const { picture } = source;
  const found = placeRobots(source.statuses, picture.mapId, picture.height, source.nameOf, source.destinationOf);
  const placed = withAlarms(found.placed, alarms);
  const unplaced = withAlarms(found.unplaced, alarms);
  const marks = mapIdOf(source.anchor) === picture.mapId ? navigationMarks(source.anchor, picture.height) : [];
  return {
    svg: renderFleetMap(picture, placed, unplaced, marks, fleetMapWords(t), source.areas),
    map: { mapId: picture.mapId, mapName: picture.mapName, mapVersion: source.mapVersion, width: picture.width, height: picture.height },
    robots: placed,
    unplaced,
  };
}

/** An alarm as a ring's and a row's text: "H6 Brush motor stalled". */
export function alarmText(alarm: OpenAlarm): string {
  return [alarm.level?.code, alarm.name ?? alarm.code].filter((part) => part !== undefined).join(" ");
}
