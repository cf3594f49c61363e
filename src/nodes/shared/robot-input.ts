/**
 * The one input handler every robot node goes through: resolve the config,
 * read the message as plain data, run the node's call through the account's
 * engine, put the answer in msg.payload, keep the status under the node, and
 * end each message in exactly one send+done() or one done(err). A node that
 * closes abandons its calls quietly: nothing of it reaches the flows that
 * replace it.
 */
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow } from "node-red";
import type { CallOptions, RobotClient } from "../../api/client";
import { RobotApiError, internalError, invalidInput } from "../../api/errors";
import { lookUpConfig } from "./config-node";
import { SHARED_CATALOGUE, translator, type Translate } from "./i18n";
import { NoOutput } from "./no-output";
import { NodeStatusView } from "./node-status-view";
import { readMessage, type MessageInput } from "./plain-data";

export interface RobotCall {
  msg: NodeMessageInFlow;
  /** msg.payload and the other properties the node reads, checked and copied once. */
  input: MessageInput;
  client: RobotClient;
  /** For every client call made for this message: the node's abort signal and status tracker. */
  options: CallOptions;
  /**
   * Shows "waiting for robot" under the node while `waiting` runs (a command's
   * confirmation); "delivered, not started yet" for a command the answer said
   * the robot received and has not started (cmdStatus 6).
   */
  waitForRobot<T>(waiting: Promise<T>, how?: WaitingHow): Promise<T>;
  /** The node's log, for what goes wrong beside the message's own outcome. */
  log: Pick<Node, "warn" | "error">;
  /** Sends at once, before the message ends (robot-command's "sent" output); the message still ends once. */
  sendEarly(outgoing: (NodeMessage | null)[]): void;
  /** The shared catalogue's texts in the runtime's language. */
  t: Translate;
}

/** What the answer said of a command the node now waits to see on the robot. */
export interface WaitingHow {
  /** The robot received it and has not started it (cmdStatus 6). */
  delivered?: boolean;
}

export interface RobotNodeBehaviour<Result> {
  /** msg properties read besides payload, e.g. ["serialNumber", "operation"]. */
  reads: readonly string[];
  /** Builds and makes the API call; throws RobotApiError (invalid_input before anything is sent). */
  run(call: RobotCall): Promise<Result | NoOutput>;
  /** Short status text after success, e.g. the command state. */
  statusText(result: Result, call: RobotCall): string;
  /**
   * What is sent for a result. Default: the message with msg.payload = result.
   * A node that sets more properties (msg.contentType), or sends several
   * messages or to several outputs, returns what `send` takes.
   */
  output?(result: Result, msg: NodeMessageInFlow): NodeMessage | (NodeMessage | NodeMessage[] | null)[];
}

/** A thrown Error as it is; a thrown non-Error is a bug of the node, not bad input. */
function asError(error: unknown): Error {
  return error instanceof Error ? error : internalError(error);
}

export function handleRobotInput<Result>(
  RED: NodeAPI,
  node: Node,
  configNodeId: string | undefined,
  behaviour: RobotNodeBehaviour<Result>,
): void {
  const t = translator(RED, SHARED_CATALOGUE);
  const view = new NodeStatusView(node, () => lookUpConfig(RED, configNodeId).client?.engine, t);
  /** Aborted on close: every call of this node leaves the queue or the wire, quietly. */
  const lifetime = new AbortController();
  const options: CallOptions = { signal: lifetime.signal, tracker: view.tracker };
  let closed = false;
  const waitForRobot = <T>(waiting: Promise<T>, how: WaitingHow = {}): Promise<T> => {
    const delivered = how.delivered === true;
    view.confirming++;
    if (delivered) view.deliveredNotStarted++;
    view.changed();
    return waiting.finally(() => {
      view.confirming--;
      if (delivered) view.deliveredNotStarted--;
      view.changed();
    });
  };
  // A config problem is shown at deploy time, before any message arrives.
  const atStart = lookUpConfig(RED, configNodeId);
  if (atStart.problem) view.showConfigProblem(atStart.problem);

  node.on("input", (msg: NodeMessageInFlow, send: (msg: NodeMessage | (NodeMessage | NodeMessage[] | null)[]) => void, done: (err?: Error) => void) => {
    const { client, problem } = lookUpConfig(RED, configNodeId);
    if (problem) {
      view.showConfigProblem(problem);
      done(problem);
      return;
    }
    view.watchPause(client);
    // A new burst starts counting its skipped messages afresh.
    if (view.pending === 0) view.dropped.clear();
    view.pending++;
    const sendEarly = (outgoing: (NodeMessage | null)[]) => {
      if (!closed) send(outgoing);
    };
    const call: RobotCall = { msg, input: {}, client, options, waitForRobot, log: node, sendEarly, t };
    let result: Promise<Result | NoOutput>;
    try {
      call.input = readMessage(msg, behaviour.reads);
      result = behaviour.run(call);
    } catch (error) {
      result = Promise.reject(asError(error));
    }
    result.then(
      (value) => {
        if (closed) return;
        view.pending--;
        if (value instanceof NoOutput) {
          view.dropped.set(value.reason, (view.dropped.get(value.reason) ?? 0) + 1);
          view.finished(undefined);
          done();
          return;
        }
        let outgoing: NodeMessage | (NodeMessage | NodeMessage[] | null)[] = msg;
        if (behaviour.output) outgoing = behaviour.output(value, msg);
        else msg.payload = value;
        view.finished({ fill: "green", text: behaviour.statusText(value, call) });
        try {
          send(outgoing);
        } catch {
          // Sending to a second wire copies the message; a property that throws when copied lands here.
          reportFailure(msg, invalidInput("msg", "could not be copied to the next nodes (a property throws when read)"), done);
          return;
        }
        done();
      },
      (error: unknown) => {
        // A closed node, or a config closed under it, ends its messages quietly: its flow is being replaced.
        if (closed || (error instanceof RobotApiError && error.kind === "aborted")) return;
        view.pending--;
        const failure = asError(error);
        view.finished({ fill: "red", text: failure instanceof RobotApiError ? failure.code : view.t("status.error") });
        reportFailure(msg, failure, done);
      },
    );
  });

  /**
   * done(err) with a message Node-RED can copy for each Catch node: a property
   * that throws when copied (a getter, a proxy) is replaced by undefined first,
   * or the copy would throw inside the runtime and no Catch node would hear of it.
   */
  function reportFailure(msg: NodeMessageInFlow, failure: Error, done: (err?: Error) => void): void {
    if (!copies(msg)) {
      const record = msg as unknown as Record<PropertyKey, unknown>;
      for (const key of Reflect.ownKeys(msg)) {
        let readable = true;
        let value: unknown;
        try {
          value = record[key];
        } catch {
          readable = false;
        }
        if (readable && copies({ value })) continue;
        try {
          Object.defineProperty(msg, key, { value: undefined, enumerable: true, writable: true, configurable: true });
        } catch {
          // A property that can be neither copied nor replaced: the error is reported without the message.
          node.error(failure);
          done();
          return;
        }
      }
    }
    done(failure);
  }
  const copies = (value: object): boolean => {
    try {
      RED.util.cloneMessage(value as NodeMessage);
      return true;
    } catch {
      return false;
    }
  };

  node.on("close", (_removed: boolean, done: () => void) => {
    closed = true;
    const abandoned = view.pending;
    lifetime.abort();
    view.close();
    if (abandoned > 0) node.log(`closed with ${abandoned} message${abandoned === 1 ? "" : "s"} under way: abandoned, none was answered`);
    done();
  });
}
