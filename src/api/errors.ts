import type { ActionRefusal } from "./watching/robot-actions";
import type { z } from "zod";
import { problemOfText, type InputProblem } from "./settings/input-problems";

/**
 * The one error type of the client. Every failure (bad input, HTTP status,
 * envelope code, timeout, network, malformed answer, robot rejection) becomes a
 * RobotApiError; it never holds the request, its headers or the token.
 */

export type RobotApiErrorKind =
  | "invalid_input"
  | "http"
  | "envelope"
  | "timeout"
  | "network"
  | "bad_response"
  | "rejected"
  | "aborted"
  | "queue_full"
  | "not_confirmed"
  /** An action the robot's last status does not allow (robot-command's actions): refused before anything is sent. */
  | "not_allowed"
  /** A bug in this package (a thrown TypeError, a thrown non-Error), not a fault of the cloud or the input. */
  | "internal";

/** Envelope and error-body codes follow the gRPC status numbering (docs/cloud-api.md); the simulator answers with the same. */
export const API_CODES = {
  SUCCESS: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/**
 * The open platform's own codes beside the gRPC numbering, as public clients
 * met them live (docs/cloud-api.md, "Errors"): what each means is part of the
 * error's text, and the name is its code for flows.
 */
export const PLATFORM_CODES = {
  /** Too many calls for the account (about 20 a second): slowed down and retried like HTTP 429. */
  RATE_LIMITED: { code: 100026, meaning: "too many calls for the account; slowed down and retried" },
  /** Task reports use a binding of their own: a robot may answer status and commands and refuse reports. */
  ROBOT_NOT_BOUND: { code: 110003, meaning: "the robot is not bound to this app for this endpoint" },
  ROBOT_UNREACHABLE: { code: 230003, meaning: "the robot cannot be reached" },
} as const;

/** The name of each code, e.g. 7 → PERMISSION_DENIED, 230003 → ROBOT_UNREACHABLE. */
export const API_CODE_NAMES: Readonly<Record<number, string>> = Object.fromEntries([
  ...Object.entries(API_CODES).map(([name, code]): [number, string] => [code, name]),
  ...Object.entries(PLATFORM_CODES).map(([name, { code }]): [number, string] => [code, name]),
]);

const PLATFORM_MEANINGS: Readonly<Record<number, string>> = Object.fromEntries(
  Object.values(PLATFORM_CODES).map(({ code, meaning }) => [code, meaning]),
);

/**
 * A code as an error's text names it: its name ("NOT_FOUND"), a platform
 * code's name, number and meaning ("ROBOT_UNREACHABLE (230003: the robot
 * cannot be reached)"), or "code 4711" for one not known.
 */
export function apiCodeText(code: number): string {
  const name = API_CODE_NAMES[code];
  if (name === undefined) return `code ${code}`;
  const meaning = PLATFORM_MEANINGS[code];
  return meaning === undefined ? name : `${name} (${code}: ${meaning})`;
}

export interface RobotApiErrorDetails {
  kind: RobotApiErrorKind;
  message: string;
  /** Operation name from the endpoint table, e.g. "submitCommand". */
  operation?: string;
  /** HTTP status of the answer, when there was one. */
  status?: number;
  /** Numeric code of an envelope or error body. */
  apiCode?: number;
  /** Robot-side result code of a rejected temporary task (B4 cmdResultCode). */
  resultCode?: string;
  /** Field path of an invalid input, e.g. "commandParameter.startTaskParameter.task.map". */
  field?: string;
  /** Seconds the server asked to wait (Retry-After), when it said. */
  retryAfterSeconds?: number;
  /** A network failure before the request was written (refused, DNS, connect timeout): safe to send again. */
  connectFailed?: boolean;
  /** The connection broke after the request may have been written: only a read may be sent again. */
  connectionReset?: boolean;
  /** The robot's last status seen while waiting for a command's effect (NOT_CONFIRMED). */
  lastStatus?: Record<string, unknown>;
  /** Why that status kept the robot from the command (NOT_CONFIRMED), when it says: a code a console words itself. */
  refusal?: ActionRefusal;
  /** INVALID_INPUT: each field named in the message with its problem, for the nodes to say in Node-RED's language. */
  wording?: InputWording;
}

/**
 * What an INVALID_INPUT message says, part by part: a field and its problem,
 * keyed where it is one every node shares (input-problems.ts), else as text;
 * `more` counts the problems left out of the message.
 */
export interface InputWording {
  parts: ReadonlyArray<{ field: string; problem: InputProblem | string }>;
  more: number;
}

export class RobotApiError extends Error {
  override readonly name = "RobotApiError";
  readonly kind: RobotApiErrorKind;
  /**
   * Short machine-readable code. Node-RED copies an error's own `code` onto
   * msg.error.code for Catch nodes, so flows can switch on it.
   */
  readonly code: string;
  readonly operation: string | undefined;
  readonly status: number | undefined;
  readonly apiCode: number | undefined;
  readonly apiCodeName: string | undefined;
  readonly resultCode: string | undefined;
  readonly field: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly connectFailed: boolean;
  readonly connectionReset: boolean;
  readonly lastStatus: Record<string, unknown> | undefined;
  readonly refusal: ActionRefusal | undefined;
  /** Not among the details: the message's parts, for rewording it (the nodes' i18n). */
  readonly wording: InputWording | undefined;

  constructor(details: RobotApiErrorDetails) {
    super(details.message);
    this.kind = details.kind;
    this.operation = details.operation;
    this.status = details.status;
    this.apiCode = details.apiCode;
    this.apiCodeName = details.apiCode === undefined ? undefined : API_CODE_NAMES[details.apiCode];
    this.resultCode = details.resultCode;
    this.field = details.field;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.connectFailed = details.connectFailed === true;
    this.connectionReset = details.connectionReset === true;
    this.lastStatus = details.lastStatus;
    this.refusal = details.refusal;
    this.wording = details.wording;
    this.code = codeFor(this);
    // Node-RED builds msg.error from an error's message, code, stack and cause only; the details a flow
    // may switch on (retryAfterSeconds, field, status, ...) reach a Catch node as msg.error.cause.
    Object.defineProperty(this, "cause", { value: readableDetails(this.details()), enumerable: false, writable: true, configurable: true });
  }

  /** What a flow may act on, without the message text. */
  details(): Record<string, unknown> {
    const details: Record<string, unknown> = { kind: this.kind, code: this.code };
    for (const key of [
      "operation",
      "status",
      "apiCode",
      "apiCodeName",
      "resultCode",
      "field",
      "retryAfterSeconds",
      "lastStatus",
      "refusal",
    ] as const) {
      if (this[key] !== undefined) details[key] = this[key];
    }
    return details;
  }

  /** True for "slow down and retry later" answers: code 8 (RESOURCE_EXHAUSTED), the platform's 100026, or HTTP 429. */
  get isRateLimited(): boolean {
    return this.apiCode === API_CODES.RESOURCE_EXHAUSTED || this.apiCode === PLATFORM_CODES.RATE_LIMITED.code || this.status === 429;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      kind: this.kind,
      code: this.code,
      operation: this.operation,
      status: this.status,
      apiCode: this.apiCode,
      apiCodeName: this.apiCodeName,
      resultCode: this.resultCode,
      field: this.field,
      retryAfterSeconds: this.retryAfterSeconds,
    };
  }
}

/**
 * Details that read as text too: without a Catch node, Node-RED's debug
 * sidebar shows an error's cause as `cause + ""`, which is "[object Object]"
 * for a plain object. A hidden toString lists the details instead (the robot's
 * last status, long and already summed up by the message, is left out).
 */
function readableDetails(details: Record<string, unknown>): Record<string, unknown> {
  const text = Object.entries(details)
    .filter(([key]) => key !== "lastStatus")
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(", ");
  Object.defineProperty(details, "toString", { value: () => text, enumerable: false });
  return details;
}

function codeFor(error: RobotApiError): string {
  if (error.apiCodeName) return error.apiCodeName;
  if (error.apiCode !== undefined) return `CODE_${error.apiCode}`;
  switch (error.kind) {
    case "http":
      return `HTTP_${error.status ?? "ERROR"}`;
    case "invalid_input":
      return "INVALID_INPUT";
    case "timeout":
      return "TIMEOUT";
    case "network":
      return "NETWORK_ERROR";
    case "bad_response":
      return "BAD_RESPONSE";
    case "rejected":
      return "COMMAND_REJECTED";
    case "aborted":
      return "ABORTED";
    case "envelope":
      return "ENVELOPE_ERROR";
    case "queue_full":
      return "QUEUE_FULL";
    case "not_confirmed":
      return "NOT_CONFIRMED";
    case "not_allowed":
      return "NOT_ALLOWED";
    // Not the cloud's code 13 (INTERNAL): that one is the cloud's own fault.
    case "internal":
      return "INTERNAL_ERROR";
  }
}

/**
 * The meanings of B4's refusal codes (cmdStatus 7), as a public client that
 * documents its live tests publishes them (docs/cloud-api.md). The key names
 * the meaning in the nodes' message catalogues; `meaning` is its English.
 */
export const TEMP_TASK_REFUSALS = {
  "2010100006": { key: "invalidTag", meaning: "invalid tag" },
  "2010100007": { key: "areaUnreachable", meaning: "the task area cannot be reached" },
  "2010100008": { key: "operationTypeMismatch", meaning: "the area's operation type does not match" },
  "2010100009": {
    key: "parametersRejected",
    meaning: "the task parameters were rejected (most often a wrong areaId, or a cleaning mode the robot does not support)",
  },
  "2010100010": { key: "noColourCamera", meaning: "no colour camera is installed" },
  "2010100011": { key: "noInspectionDevice", meaning: "no inspection device is installed" },
  "2010100012": { key: "tempTaskAlreadyThere", meaning: "a temporary task is already there" },
  "2010100013": { key: "cannotSwitchSites", meaning: "the robot cannot switch sites in its state" },
} as const;

export type TempTaskRefusal = (typeof TEMP_TASK_REFUSALS)[keyof typeof TEMP_TASK_REFUSALS];

/** The published meaning of a B4 refusal code, or undefined for a code without one (shown as the code alone). */
export function tempTaskRefusalOf(resultCode: string): TempTaskRefusal | undefined {
  const code = resultCode.trim();
  return Object.hasOwn(TEMP_TASK_REFUSALS, code) ? TEMP_TASK_REFUSALS[code as keyof typeof TEMP_TASK_REFUSALS] : undefined;
}

/**
 * The words of a B4 refusal: "robot rejected the temporary task (cmdResultCode
 * 2010100009: <meaning>)", or the code alone where none is published. The
 * nodes say the same in the runtime's language (robot-site-task's catalogue).
 */
export function tempTaskRejection(resultCode: string): string {
  const refusal = tempTaskRefusalOf(resultCode);
  return `robot rejected the temporary task (cmdResultCode ${resultCode || "none"}${refusal ? `: ${refusal.meaning}` : ""})`;
}

/** An INVALID_INPUT error naming `field`: "serialNumber: must be 1-128 letters, digits, '-' or '_'". */
export function invalidInput(field: string, problem: string | InputProblem, operation?: string): RobotApiError {
  const where = field === "" ? "input" : field;
  const wording: InputWording = {
    parts: [{ field: where, problem: typeof problem === "string" ? (problemOfText(problem) ?? problem) : problem }],
    more: 0,
  };
  return new RobotApiError({ kind: "invalid_input", field: where, message: inputMessage(wording), operation, wording });
}

/** The English of a problem. */
export function problemText(problem: InputProblem | string): string {
  return typeof problem === "string" ? problem : problem.text;
}

/** An INVALID_INPUT message from its parts, each problem worded by `say` (English by default). */
export function inputMessage(
  wording: InputWording,
  say: (problem: InputProblem | string) => string = problemText,
  words: { separator: string; more: (count: number) => string } = { separator: "; ", more: (count) => ` (and ${count} more)` },
): string {
  const text = wording.parts.map(({ field, problem }) => `${field}: ${say(problem)}`).join(words.separator);
  return wording.more > 0 ? text + words.more(wording.more) : text;
}

/** " (text)" of a thrown value that reads as text; "" for one that cannot (a null-prototype object, a throwing toString). */
function shown(value: unknown): string {
  try {
    return ` (${String(value).slice(0, 200)})`;
  } catch {
    return "";
  }
}

/**
 * What an unexpected throw becomes where a RobotApiError is promised: a
 * RobotApiError passes as it is; anything else is a bug of the package and
 * reads as one (code INTERNAL_ERROR), with the stack of what was thrown so a
 * log shows where.
 */
export function internalError(thrown: unknown, operation?: string): RobotApiError {
  if (thrown instanceof RobotApiError) return thrown;
  const what = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : `a thrown ${typeof thrown}${shown(thrown)}`;
  const why = `a bug in node-red-contrib-robot-fleet, not a fault of the cloud: ${what}`;
  const error = new RobotApiError({ kind: "internal", operation, message: operation ? `${operation}: ${why}` : why });
  if (thrown instanceof Error && thrown.stack)
    error.stack = `${error.name}: ${error.message}\n${thrown.stack.split("\n").slice(1).join("\n")}`;
  return error;
}

export function abortedError(operation: string | undefined, why = "request aborted"): RobotApiError {
  return new RobotApiError({ kind: "aborted", operation, message: operation ? `${operation}: ${why}` : why });
}

export function isRobotApiError(value: unknown): value is RobotApiError {
  return value instanceof RobotApiError;
}

/** How describeIssues words its findings, for callers that know the fields by other names. */
export interface IssueWording {
  /** How a field is named; default its path joined with dots. */
  nameOf?: (path: readonly PropertyKey[]) => string;
  /** Other words for a problem, or undefined to keep zod's. */
  restate?: (issue: z.core.$ZodIssue, path: readonly PropertyKey[]) => string | InputProblem | undefined;
}

/** Enough to name every field of the largest request a node builds (START_TASK: five and the robot) in one error. */
const SHOWN_ISSUES = 6;

/**
 * Formats a zod failure as "field.path: problem", naming the first offending
 * fields. An unknown key is named itself (zod puts it on the parent object), and
 * a problem with the input as a whole is named "input", so `field` is never empty.
 */
export function describeIssues(error: z.ZodError, wording: IssueWording = {}): { field: string; message: string; wording: InputWording } {
  const nameOf = wording.nameOf ?? ((path: readonly PropertyKey[]) => path.map(String).join(".") || "input");
  const describe = (issue: z.core.$ZodIssue, path: readonly PropertyKey[], problem: string) => {
    const restated = wording.restate?.(issue, path) ?? problem;
    // A schema's own message that is a problem every node shares (the serial number's rule) is kept by its key.
    return { field: nameOf(path), problem: typeof restated === "string" ? (problemOfText(restated) ?? restated) : restated };
  };
  const described = error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => describe(issue, [...issue.path, key], "is not a field of this request"))
      : [describe(issue, issue.path, issue.message)],
  );
  const parts: InputWording = { parts: described.slice(0, SHOWN_ISSUES), more: Math.max(0, described.length - SHOWN_ISSUES) };
  return { field: described[0]?.field ?? "input", message: inputMessage(parts), wording: parts };
}
