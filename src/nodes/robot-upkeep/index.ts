/**
 * robot-upkeep: the upkeep of the account's robots, the day each part is due,
 * and a notice once per crossing (upkeep-node.ts). The runtime (with the
 * forecast's zone rules) is loaded when a node is first deployed, not when
 * Node-RED starts.
 */
import type { Node, NodeAPI } from "node-red";
import type { RobotUpkeepProperties } from "./upkeep-node";

type UpkeepNodeModule = typeof import("./upkeep-node");
let loaded: UpkeepNodeModule | undefined;

export default function registerRobotUpkeep(RED: NodeAPI): void {
  RED.nodes.registerType("robot-upkeep", function RobotUpkeepNode(this: Node, config: RobotUpkeepProperties) {
    RED.nodes.createNode(this, config);
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose, see above
    loaded ??= require("./upkeep-node") as UpkeepNodeModule;
    loaded.setUpRobotUpkeep(RED, this, config);
  });
}
