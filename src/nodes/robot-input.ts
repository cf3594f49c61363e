/**
 * The one input handler every robot node goes through: resolve the config,
 * run the node's call, put the answer in msg.payload, keep the status under
 * the node, and end each message in exactly one send+done() or one done(err).
 */
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow } from "node-red";
import type { RobotClient } from "../api/client";
import { RobotApiError, invalidInput } from "../api/errors";
import type { RobotConfigNode } from "./robot-config";

export interface RobotCall {
  msg: NodeMessageInFlow;
  client: RobotClient;
  /** Aborted when the node is closed (redeploy, shutdown). */
  signal: AbortSignal;
}

export interface RobotNodeBehaviour<Result> {
  /** Validates the message and makes the API call; throws RobotApiError (invalid_input before sending). */
  run(call: RobotCall): Promise<Result>;
  /** Short status text after success, e.g. the command state. */
  statusText(result: Result, msg: NodeMessageInFlow): string;
}

/** Status texts stay short: the editor shows them under the node. */
function shorten(text: string, max = 32): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function asError(error: unknown): Error {
  if (error instanceof Error) return error;
  return invalidInput("", String(error));
}

export function handleRobotInput<Result>(
  RED: NodeAPI,
  node: Node,
  configNodeId: string | undefined,
  behaviour: RobotNodeBehaviour<Result>,
): void {
  const inFlight = new Set<AbortController>();

  const showProgress = () => {
    node.status({ fill: "blue", shape: "dot", text: inFlight.size > 1 ? `${inFlight.size} requests` : "requesting" });
  };

  // A config problem is shown at deploy time, before any message arrives.
  const configProblem = (): RobotApiError | undefined => {
    const config = configNodeId ? (RED.nodes.getNode(configNodeId) as RobotConfigNode | null) : null;
    if (!config) return invalidInput("robot", "no robot-config node is selected");
    return "error" in config.robot ? config.robot.error : undefined;
  };
  const showConfigProblem = (problem: RobotApiError) => {
    node.status({ fill: "red", shape: "ring", text: shorten(`config: ${problem.field ?? problem.code}`) });
  };
  const problemAtStart = configProblem();
  if (problemAtStart) showConfigProblem(problemAtStart);

  node.on("input", (msg: NodeMessageInFlow, send: (msg: NodeMessage) => void, done: (err?: Error) => void) => {
    const problem = configProblem();
    if (problem) {
      showConfigProblem(problem);
      done(problem);
      return;
    }
    const config = RED.nodes.getNode(configNodeId!) as RobotConfigNode & { robot: { client: RobotClient } };
    const controller = new AbortController();
    inFlight.add(controller);
    showProgress();
    let result: Promise<Result>;
    try {
      result = behaviour.run({ msg, client: config.robot.client, signal: controller.signal });
    } catch (error) {
      result = Promise.reject(asError(error));
    }
    result.then(
      (value) => {
        inFlight.delete(controller);
        msg.payload = value;
        node.status({ fill: "green", shape: "dot", text: shorten(behaviour.statusText(value, msg)) });
        send(msg);
        done();
      },
      (error: unknown) => {
        inFlight.delete(controller);
        const failure = asError(error);
        // A close already cleared the status; an aborted call has nothing left to report to.
        if (!(failure instanceof RobotApiError && failure.kind === "aborted")) {
          node.status({ fill: "red", shape: "ring", text: shorten(failure instanceof RobotApiError ? failure.code : "error") });
        }
        done(failure);
      },
    );
  });

  node.on("close", (_removed: boolean, done: () => void) => {
    for (const controller of inFlight) controller.abort();
    inFlight.clear();
    node.status({});
    done();
  });
}

/** Evaluates a TypedInput property (str, num, msg, flow, global, env, ...) for one message. */
export function evaluateProperty(
  RED: NodeAPI,
  node: Node,
  msg: NodeMessageInFlow,
  value: string | undefined,
  type: string | undefined,
): Promise<unknown> {
  if (value === undefined || value === "") return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    RED.util.evaluateNodeProperty(value, type || "str", node, msg, (err, result) => {
      if (err) reject(err);
      else resolve(result);
    });
  });
}

/** The first candidate that is a non-empty string (after trimming), else undefined. */
export function firstText(...candidates: unknown[]): string | undefined {
  for (const candidate of candidates) {
    if (typeof candidate === "string" && candidate.trim() !== "") return candidate.trim();
  }
  return undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}
