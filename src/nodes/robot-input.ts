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

/** The node properties every robot node has for choosing its robot. */
export interface SerialNumberSetting {
  serialNumber: string;
  serialNumberType: string;
}

/**
 * The robot a message is for: the value the payload gives, else
 * msg.serialNumber, else the node's (TypedInput) setting. Whatever comes out is
 * validated by the request schema, so a bad value is reported with its field.
 */
export async function resolveSerialNumber(
  RED: NodeAPI,
  node: Node,
  msg: NodeMessageInFlow,
  fromPayload: unknown,
  setting: SerialNumberSetting,
): Promise<unknown> {
  if (fromPayload !== undefined) return fromPayload;
  const fromMsg = (msg as { serialNumber?: unknown }).serialNumber;
  if (fromMsg !== undefined) return fromMsg;
  const fromNode = await evaluateProperty(RED, node, msg, setting.serialNumber, setting.serialNumberType);
  return typeof fromNode === "string" ? fromNode.trim() : (fromNode ?? "");
}

/** The operation for one message: msg.operation when given, else the node's; unknown ones are refused. */
export function chooseOperation<Op extends string>(msg: NodeMessageInFlow, configured: string, allowed: readonly Op[]): Op {
  const fromMsg = (msg as { operation?: unknown }).operation;
  const chosen = fromMsg === undefined || fromMsg === "" ? configured : fromMsg;
  if (typeof chosen !== "string" || !(allowed as readonly string[]).includes(chosen)) {
    const field = fromMsg === undefined || fromMsg === "" ? "operation" : "msg.operation";
    throw invalidInput(field, `must be one of ${allowed.join(", ")} (got ${JSON.stringify(chosen)})`);
  }
  return chosen as Op;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}
