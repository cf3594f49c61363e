/**
 * The robot-config a robot node names: its client, or the problem that stops
 * the node (none chosen, or a config that could not be built from its
 * settings), which the node shows under itself and gives every message as
 * its error.
 */
import type { NodeAPI, NodeStatus } from "node-red";
import type { RobotClient } from "../../api/client";
import { invalidInput, type RobotApiError } from "../../api/errors";
import type { Translate } from "./i18n";
import { shorten } from "./status-text";
import type { RobotConfigNode } from "./types";

export type ConfigLookup = { client: RobotClient; problem?: undefined } | { client?: undefined; problem: RobotApiError };

export function lookUpConfig(RED: NodeAPI, configNodeId: string | undefined): ConfigLookup {
  const config = configNodeId ? (RED.nodes.getNode(configNodeId) as RobotConfigNode | null) : null;
  if (!config) return { problem: invalidInput("robot", "no robot-config node is selected") };
  return "error" in config.robot ? { problem: config.robot.error } : { client: config.robot.client };
}

/** "config: baseUrl" in red: the field of the config that is wrong. */
export function configProblemStatus(problem: RobotApiError, t: Translate): NodeStatus {
  return { fill: "red", shape: "ring", text: shorten(t("status.config", { field: problem.field ?? problem.code })) };
}
