/**
 * Reading an answer of the cloud: an HTTP error, a {code, message} error body
 * (even under 200), a {code, msg, data} envelope, or the data itself, checked
 * against the endpoint's response schema. Every failure is a RobotApiError
 * whose quotes of the answer have passed the redactor.
 */
import type { z } from "zod";
import type { Endpoint } from "../cloud/endpoints";
import { RobotApiError, apiCodeText, describeIssues } from "../errors";
import type { WireAnswer } from "./http";
import type { Redact } from "./redaction";
import { Envelope, ErrorBody } from "../cloud/schemas";

/** The seconds an answer's Retry-After asks for (a number of seconds, or a date), if it says. */
export function retryAfterOf(answer: WireAnswer): number | undefined {
  const header = answer.header("retry-after");
  if (header === undefined || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/**
 * A google.rpc.Status-like {code, message[, details]} body with a non-zero code
 * is an error even under HTTP 200 (the cloud's error numbering, docs/cloud-api.md).
 */
function errorBodyOf(body: unknown): { code: number; message: string } | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const keys = Object.keys(body);
  if (!keys.every((key) => ["code", "message", "msg", "details"].includes(key))) return undefined;
  const { code, message, msg } = body as { code?: unknown; message?: unknown; msg?: unknown };
  if (typeof code !== "number" || code === 0) return undefined;
  const text = typeof message === "string" ? message : typeof msg === "string" ? msg : "";
  return { code, message: text };
}

/** The result of a call from its answer, or the RobotApiError it is. */
export function readAnswer<Res extends z.ZodType>(
  endpoint: Endpoint<z.ZodType, Res>,
  operation: string,
  response: WireAnswer,
  redact: Redact,
): z.output<Res> {
  const fail = (details: ConstructorParameters<typeof RobotApiError>[0]): never => {
    throw new RobotApiError(details);
  };
  const { status } = response;
  // A server may echo what it was sent: no secret leaves through an answer, an error or an output.
  // Only the grant's own successful answer may hold a token: it is where tokens come from.
  // The raw text is parsed as it came (redaction.ts says why); what an error quotes of the answer is redacted where it is quoted.
  const mayEcho = endpoint.authenticated || status < 200 || status > 299;
  const text = response.body.toString("utf8");
  let body: unknown;
  let isJson = true;
  try {
    body = text.trim() === "" ? undefined : JSON.parse(text);
  } catch {
    isJson = false;
  }
  if (mayEcho && isJson) body = redact.answer(body, text);

  if (status < 200 || status > 299) {
    const errorBody = isJson ? ErrorBody.safeParse(body) : undefined;
    const fields = errorBody?.success ? errorBody.data : {};
    const apiCode = fields.code === undefined || fields.code === "" ? NaN : Number(fields.code);
    const quoted = fields.message ?? fields.msg;
    // A raw body is redacted before the cut, which could otherwise leave part of a secret behind.
    const serverText = quoted !== undefined ? redact(quoted) : isJson ? "" : redact(text).slice(0, 200).trim();
    const reason = serverText || redact(response.statusText || "");
    const known = Number.isInteger(apiCode) ? apiCode : undefined;
    const codeName = known === undefined ? "" : ` ${apiCodeText(known)}`;
    return fail({
      kind: "http",
      operation,
      status,
      apiCode: known,
      retryAfterSeconds: retryAfterOf(response),
      message: `${operation}: HTTP ${status}${codeName}${reason ? `: ${reason}` : ""}`,
    });
  }
  if (!isJson) {
    return fail({ kind: "bad_response", operation, status, message: `${operation}: answer is not JSON` });
  }

  let data: unknown = body ?? {};
  const errorInSuccess = endpoint.envelope ? undefined : errorBodyOf(body);
  if (errorInSuccess) {
    const name = apiCodeText(errorInSuccess.code);
    return fail({
      kind: "envelope",
      operation,
      status,
      apiCode: errorInSuccess.code,
      // A code 8 here is rate limiting like the envelope's: the server's wait is honoured the same way.
      retryAfterSeconds: retryAfterOf(response),
      message: `${operation}: ${name}${errorInSuccess.message ? `: ${redact(errorInSuccess.message)}` : ""}`,
    });
  }
  if (endpoint.envelope) {
    const envelope = Envelope.safeParse(body);
    if (!envelope.success) {
      return fail({ kind: "bad_response", operation, status, message: `${operation}: answer is not a {code, msg, data} envelope` });
    }
    if (envelope.data.code !== 0) {
      const name = apiCodeText(envelope.data.code);
      return fail({
        kind: "envelope",
        operation,
        status,
        apiCode: envelope.data.code,
        retryAfterSeconds: retryAfterOf(response),
        message: `${operation}: ${name}${envelope.data.msg ? `: ${redact(envelope.data.msg)}` : ""}`,
      });
    }
    data = envelope.data.data;
  }

  const result = endpoint.response.safeParse(data);
  if (!result.success) {
    const { message } = describeIssues(result.error);
    return fail({ kind: "bad_response", operation, status, message: `${operation}: unexpected answer: ${redact(message)}` });
  }
  const rejection = endpoint.rejectionOf?.(result.data);
  if (rejection) {
    return fail({
      kind: "rejected",
      operation,
      status,
      resultCode: rejection.resultCode,
      message: `${operation}: ${redact(rejection.message)}`,
    });
  }
  return result.data;
}
