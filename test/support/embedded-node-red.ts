/**
 * The part of Node-RED's embedding API (require("node-red")) that the tests,
 * the bench and their child processes use beyond what the demo embeds
 * (src/demo/embedded.ts): nodes by id, hooks, every runtime event, the log.
 */
import type { NodeRedRuntime } from "../../src/demo/embedded";

export interface EmbeddedNodeRed extends NodeRedRuntime {
  /** `Node` is what the caller knows the node to be (receive, send, ...). */
  nodes: { getNode<Node = { receive(msg: object): void }>(id: string): Node | null };
  hooks: { add<Event>(hook: string, handler: (event: Event) => void): void };
  events: NodeJS.EventEmitter;
}

/** One line of Node-RED's log, as a custom logging handler gets it. */
export interface NodeRedLogEntry {
  level: number;
  msg: unknown;
  type?: string;
  id?: string;
}
