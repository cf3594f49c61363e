/**
 * The one input handler every robot node goes through: resolve the config,
 * read the message as plain data, run the node's call through the account's
 * engine, put the answer in msg.payload, keep the status under the node, and
 * end each message in exactly one send+done() or one done(err). A node that
 * closes abandons its calls quietly: nothing of it reaches the flows that
 * replace it.
 */
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow, NodeStatus } from "node-red";
import type { CallOptions, RobotClient } from "../api/client";
import type { CallTracker, RequestEngine } from "../api/engine";
import { RobotApiError, invalidInput } from "../api/errors";
import { SHARED_CATALOGUE, translator, type Translate } from "./i18n";
import { plainData, readMessage, type MessageInput } from "./plain-data";
import type { RobotConfigNode } from "./types";

/** The message properties a node reads, as plain data: `payload` and those it names in `reads`. */

export interface RobotCall {
  msg: NodeMessageInFlow;
  /** msg.payload and the other properties the node reads, checked and copied once. */
  input: MessageInput;
  client: RobotClient;
  /** For every client call made for this message: the node's abort signal and status tracker. */
  options: CallOptions;
  /** Shows "waiting for robot" under the node while `waiting` runs (a command's confirmation). */
  waitForRobot<T>(waiting: Promise<T>): Promise<T>;
}

/** What run() resolves with when a message ends with done() and no output; `reason` is counted in the status. */
export class NoOutput {
  constructor(readonly reason: "skipped" | "replaced") {}
}
export const SKIPPED = new NoOutput("skipped");
export const REPLACED = new NoOutput("replaced");

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

/** Status texts stay short: the editor shows them under the node. */
function shorten(text: string, max = 32): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function asError(error: unknown): Error {
  if (error instanceof Error) return error;
  return invalidInput("", "the node failed on a value that is not an error");
}

// ------------------------------------------------------------ status under the node

/** While messages are pending, the status is redrawn at most this often (a burst is thousands of changes). */
const STATUS_INTERVAL_MS = 250;

type Outcome = { fill: "green" | "red"; text: string } | undefined;

/** Keeps the status under a node true to its own messages, cheaply during a burst. */
class NodeStatusView {
  /** Messages accepted and not yet ended. */
  pending = 0;
  /** Messages whose call is answered and that wait for the robot to show its effect. */
  confirming = 0;
  /** Messages that ended with no output since the node was last idle, by reason. */
  readonly dropped = new Map<NoOutput["reason"], number>();
  readonly tracker: CallTracker;
  private outcome: Outcome;
  private configProblem: RobotApiError | undefined;
  private shown = "";
  private timer: NodeJS.Timeout | undefined;
  private stopWatchingPause: (() => void) | undefined;

  constructor(
    private readonly node: Node,
    /** The engine whose pause this node's waiting messages are held by, once a config is known. */
    private readonly engineOf: () => RequestEngine | undefined,
    readonly t: Translate,
  ) {
    this.tracker = { waiting: 0, sending: 0, changed: () => this.changed() };
  }

  watchPause(client: RobotClient): void {
    if (this.stopWatchingPause) return;
    this.stopWatchingPause = client.engine.onPauseChange(() => this.changed());
  }

  showConfigProblem(problem: RobotApiError): void {
    this.configProblem = problem;
    // Shown again on every refused message, as a fresh sign that the message went nowhere.
    this.shown = "";
    this.draw();
  }

  finished(outcome: Outcome): void {
    if (outcome) this.outcome = outcome;
    this.configProblem = undefined;
    this.changed();
  }

  /** Something changed: draw now when the node went idle or just got busy, else at most every STATUS_INTERVAL_MS. */
  changed(): void {
    const busyShown = this.shown.startsWith("busy:");
    if (this.pending === 0 || !busyShown) {
      this.draw();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.draw();
    }, STATUS_INTERVAL_MS);
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stopWatchingPause?.();
    this.node.status({});
  }

  private draw(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const [key, status] = this.current();
    if (key === this.shown) return;
    this.shown = key;
    this.node.status(status);
    if (key.startsWith("busy:paused")) {
      // The pause's seconds count down while this node's messages wait for it.
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.draw();
      }, 1000);
    }
  }

  private current(): [string, NodeStatus] {
    if (this.configProblem) {
      const field = this.configProblem.field ?? this.configProblem.code;
      return ["config", { fill: "red", shape: "ring", text: shorten(this.t("status.config", { field })) }];
    }
    if (this.pending > 0) {
      const pausedMs = this.engineOf()?.pausedForMs() ?? 0;
      if (pausedMs > 0 && this.tracker.waiting > 0) {
        const text = this.t("status.paused", { seconds: Math.ceil(pausedMs / 1000) });
        return [`busy:paused:${text}`, { fill: "yellow", shape: "ring", text }];
      }
      if (this.tracker.waiting > 0) {
        const text = this.t("status.queued", { count: this.tracker.waiting });
        return [`busy:${text}`, { fill: "blue", shape: "ring", text }];
      }
      if (this.tracker.sending === 0 && this.confirming > 0) {
        const text = this.confirming > 1 ? this.t("status.waitingForRobots", { count: this.confirming }) : this.t("status.waitingForRobot");
        return [`busy:${text}`, { fill: "blue", shape: "ring", text }];
      }
      return ["busy:requesting", { fill: "blue", shape: "dot", text: this.t("status.requesting") }];
    }
    const dropped = [...this.dropped].map(([reason, count]) => this.t(`status.${reason}`, { count })).join(", ");
    if (!this.outcome) {
      if (!dropped) return ["idle", {}];
      return [`idle:${dropped}`, { fill: "grey", shape: "ring", text: dropped }];
    }
    // The result is shortened, the count of dropped messages is kept whole.
    const text = dropped ? `${shorten(this.outcome.text, 20)} (${dropped})` : shorten(this.outcome.text);
    return [`done:${this.outcome.fill}:${text}`, { fill: this.outcome.fill, shape: this.outcome.fill === "green" ? "dot" : "ring", text }];
  }
}

// ------------------------------------------------------------ the handler

export function handleRobotInput<Result>(
  RED: NodeAPI,
  node: Node,
  configNodeId: string | undefined,
  behaviour: RobotNodeBehaviour<Result>,
): void {
  const configNode = (): RobotConfigNode | null => (configNodeId ? (RED.nodes.getNode(configNodeId) as RobotConfigNode | null) : null);
  const engineOf = () => {
    const config = configNode();
    return config && "client" in config.robot ? config.robot.client.engine : undefined;
  };
  const view = new NodeStatusView(node, engineOf, translator(RED, SHARED_CATALOGUE));
  /** Aborted on close: every call of this node leaves the queue or the wire, quietly. */
  const lifetime = new AbortController();
  const options: CallOptions = { signal: lifetime.signal, tracker: view.tracker };
  let closed = false;
  // A config problem is shown at deploy time, before any message arrives.
  const configProblem = (config: RobotConfigNode | null): RobotApiError | undefined => {
    if (!config) return invalidInput("robot", "no robot-config node is selected");
    return "error" in config.robot ? config.robot.error : undefined;
  };
  const waitForRobot = <T>(waiting: Promise<T>): Promise<T> => {
    view.confirming++;
    view.changed();
    return waiting.finally(() => {
      view.confirming--;
      view.changed();
    });
  };
  const problemAtStart = configProblem(configNode());
  if (problemAtStart) view.showConfigProblem(problemAtStart);

  node.on("input", (msg: NodeMessageInFlow, send: (msg: NodeMessage | (NodeMessage | NodeMessage[] | null)[]) => void, done: (err?: Error) => void) => {
    const config = configNode();
    const problem = configProblem(config);
    if (problem) {
      view.showConfigProblem(problem);
      done(problem);
      return;
    }
    const { client } = (config as RobotConfigNode & { robot: { client: RobotClient } }).robot;
    view.watchPause(client);
    // A new burst starts counting its skipped messages afresh.
    if (view.pending === 0) view.dropped.clear();
    view.pending++;
    const call: RobotCall = { msg, input: {}, client, options, waitForRobot };
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

/**
 * Evaluates a TypedInput property (str, num, msg, flow, global, env, ...) for
 * one message, as plain data; `field` names it in errors.
 */
export function evaluateProperty(
  RED: NodeAPI,
  node: Node,
  msg: NodeMessageInFlow,
  value: string | undefined,
  type: string | undefined,
  field: string,
): Promise<unknown> {
  if (value === undefined || value === "") return Promise.resolve(undefined);
  // A typed-in text is already plain data: no need to ask the runtime, once per message.
  if (!type || type === "str") return Promise.resolve(value);
  return new Promise((resolve, reject) => {
    try {
      RED.util.evaluateNodeProperty(value, type || "str", node, msg, (...answer: unknown[]) => {
        // A getter that throws undefined or null reaches us as a falsy error: only (null, result) is a value.
        const [err, result] = answer;
        if (err || answer.length < 2) reject(invalidInput(field, "could not be read"));
        else {
          try {
            resolve(plainData(result, field));
          } catch (error) {
            reject(error instanceof Error ? error : invalidInput(field, "could not be read"));
          }
        }
      });
    } catch {
      reject(invalidInput(field, "could not be read (a getter or proxy threw)"));
    }
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
  call: RobotCall,
  fromPayload: unknown,
  setting: SerialNumberSetting,
): Promise<unknown> {
  if (fromPayload !== undefined) return fromPayload;
  const fromMsg = call.input.serialNumber;
  if (fromMsg !== undefined) return fromMsg;
  const fromNode = await evaluateProperty(RED, node, call.msg, setting.serialNumber, setting.serialNumberType, "serialNumber");
  return typeof fromNode === "string" ? fromNode.trim() : (fromNode ?? "");
}

/**
 * A ticked checkbox of the dialog (loop, watch): its boolean, or the text
 * "true" in any case in a flow edited by hand. Boolean() would read "false"
 * as true.
 */
export function isTicked(setting: unknown): boolean {
  return setting === true || (typeof setting === "string" && setting.trim().toLowerCase() === "true");
}

/**
 * A node setting that a message may override (operation, burst): msg.<name>
 * when given, else the node's; a value not in `allowed` is refused, named
 * where it came from.
 */
export function chooseSetting<Value extends string>(input: MessageInput, name: string, configured: string, allowed: readonly Value[]): Value {
  const fromMsg = input[name];
  const chosen = fromMsg === undefined || fromMsg === "" ? configured : fromMsg;
  if (typeof chosen !== "string" || !(allowed as readonly string[]).includes(chosen)) {
    const field = fromMsg === undefined || fromMsg === "" ? name : `msg.${name}`;
    throw invalidInput(field, `must be one of ${allowed.join(", ")} (got ${JSON.stringify(chosen ?? null)})`);
  }
  return chosen as Value;
}

