/**
 * How every robot node takes its messages: `takeMessages` ends each in
 * exactly one send+done() or one catchable done(err), and abandons those
 * under way when the node closes; `refuseMessages` is the node that cannot work;
 * `handleRobotInput` adds, for the nodes that make one call per message, the
 * config looked up per message, the message read as plain data, and the
 * status under the node.
 */
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow, NodeStatus } from "node-red";
import type { CallOptions, RobotClient } from "../../api/client";
import { RobotApiError, internalError, invalidInput } from "../../api/errors";
import { lookUpConfig } from "./config-node";
import { SHARED_CATALOGUE, translator, type Translate } from "./i18n";
import { NoOutput } from "./no-output";
import { NodeStatusView } from "./node-status-view";
import { readMessage, type MessageInput } from "./plain-data";
import { rewordInvalidInput } from "./refusal-words";

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
  sendEarly(outgoing: Outgoing): void;
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
  output?(result: Result, msg: NodeMessageInFlow): Outgoing;
}

/** A thrown Error as it is; a thrown non-Error is a bug of the node, not bad input. */
function asError(error: unknown): Error {
  return error instanceof Error ? error : internalError(error);
}

/** What a node sends: one message, or one entry (a message, several, or null) per output. */
export type Outgoing = NodeMessage | (NodeMessage | NodeMessage[] | null)[];

/**
 * How a node answers one message: the promise settles when the message ends
 * (at once, or at a job's end long after) with what to send (undefined:
 * nothing) or with the error a Catch node gets. `sendEarly` sends before
 * the end (robot-command's "sent" output); the message still ends once.
 */
export type AnswerMessage = (msg: NodeMessageInFlow, sendEarly: (outgoing: Outgoing) => void) => Promise<Outgoing | undefined>;

/**
 * The one input lifecycle of every robot node: each message ends in exactly
 * one send+done() or one done(err) a Catch node can take (a message that
 * cannot be copied for it is made copyable first). A node that closes
 * abandons the messages under way: no send, no done, no error, so nothing of
 * a stopped flow reaches the flows that replace it (its Complete and Catch
 * nodes are stopped with it); an aborted call (the node or its config
 * closed) is not an error.
 */
export function takeMessages(RED: NodeAPI, node: Node, answer: AnswerMessage): void {
  const t = translator(RED, SHARED_CATALOGUE);
  let closed = false;
  node.on("close", () => {
    closed = true;
  });
  node.on("input", (msg: NodeMessageInFlow, send: (outgoing: Outgoing) => void, done: (err?: Error) => void) => {
    const sendEarly = (outgoing: Outgoing) => {
      if (!closed) send(outgoing);
    };
    let ending: Promise<Outgoing | undefined>;
    try {
      ending = answer(msg, sendEarly);
    } catch (error) {
      ending = Promise.reject(asError(error));
    }
    ending.then(
      (outgoing) => {
        if (closed) return;
        if (outgoing !== undefined) {
          try {
            send(outgoing);
          } catch {
            // Sending to a second wire copies the message; a property that throws when copied lands here.
            reportFailure(RED, node, msg, invalidInput("msg", "could not be copied to the next nodes (a property throws when read)"), done);
            return;
          }
        }
        done();
      },
      (error: unknown) => {
        if (closed || (error instanceof RobotApiError && error.kind === "aborted")) return;
        rewordInvalidInput(t, error);
        reportFailure(RED, node, msg, asError(error), done);
      },
    );
  });
}

/** When a node refuses every message because it cannot work (no account, a bad setting). */
export interface Refusal {
  /** Logged once at deploy as well: a node that works without messages (a watcher, a timer, a bridge) has no message to fail. */
  atDeploy: boolean;
  /** Each message ends with the problem as its error; false: ended quietly (a bridge fed by mqtt in would flood a Catch node). */
  eachMessage: boolean;
}

/** A node that cannot work: it shows why under itself and refuses every message as `how` says. */
export function refuseMessages(node: Node, shown: NodeStatus, problem: RobotApiError, how: Refusal): void {
  node.status(shown);
  if (how.atDeploy) node.error(problem);
  node.on("input", (_msg: NodeMessageInFlow, _send: unknown, done: (err?: Error) => void) => done(how.eachMessage ? problem : undefined));
}

/**
 * done(err) with a message Node-RED can copy for each Catch node: a property
 * that throws when copied (a getter, a proxy) is replaced by undefined first,
 * or the copy would throw inside the runtime and no Catch node would hear of it.
 */
function reportFailure(RED: NodeAPI, node: Node, msg: NodeMessageInFlow, failure: Error, done: (err?: Error) => void): void {
  const copies = (value: object): boolean => {
    try {
      RED.util.cloneMessage(value as NodeMessage);
      return true;
    } catch {
      return false;
    }
  };
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

/**
 * The input of a node that makes one call per message (command, site task,
 * maps, status): the config looked up per message, the message read as plain
 * data, the call run through the account's engine, the answer in msg.payload,
 * and the status under the node kept true to its messages.
 */
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

  takeMessages(RED, node, async (msg, sendEarly) => {
    const { client, problem } = lookUpConfig(RED, configNodeId);
    if (problem) {
      view.showConfigProblem(problem);
      throw problem;
    }
    view.watchPause(client);
    // A new burst starts counting its skipped messages afresh.
    if (view.pending === 0) view.dropped.clear();
    view.pending++;
    const call: RobotCall = { msg, input: {}, client, options, waitForRobot, log: node, sendEarly, t };
    let value: Result | NoOutput;
    try {
      call.input = readMessage(msg, behaviour.reads);
      value = await behaviour.run(call);
    } catch (error) {
      if (lifetime.signal.aborted) throw error;
      view.pending--;
      const failure = asError(error);
      view.finished({ fill: "red", text: failure instanceof RobotApiError ? failure.code : view.t("status.error") });
      throw failure;
    }
    if (lifetime.signal.aborted) return undefined;
    view.pending--;
    if (value instanceof NoOutput) {
      view.dropped.set(value.reason, (view.dropped.get(value.reason) ?? 0) + 1);
      view.finished(undefined);
      return undefined;
    }
    view.finished({ fill: "green", text: behaviour.statusText(value, call) });
    if (behaviour.output) return behaviour.output(value, msg);
    msg.payload = value;
    return msg;
  });

  node.on("close", (_removed: boolean, done: () => void) => {
    const abandoned = view.pending;
    lifetime.abort();
    view.close();
    if (abandoned > 0) node.log(`closed with ${abandoned} message${abandoned === 1 ? "" : "s"} under way: abandoned, none was answered`);
    done();
  });
}
