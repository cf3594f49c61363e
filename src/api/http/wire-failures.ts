/** The connect policy: which failures of an exchange may be sent again, and what a call's end by its signal is. */
import { ATTEMPT_TIMED_OUT } from "../settings/call-settings";
import { RobotApiError, abortedError } from "../errors";
import { ANSWER_TOO_LARGE, CONNECT_TIMED_OUT, PROXY_REFUSED } from "./http";
import type { Redact } from "./redaction";

/** Network failures before the request was written: nothing reached the cloud, so sending again is safe. */
const CONNECT_FAILURES = new Set([
  "ECONNREFUSED",
  PROXY_REFUSED,
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  CONNECT_TIMED_OUT,
]);
/** Failures after the request may have been written: only a read is sent again. */
const CONNECTION_RESETS = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

/** Why a call's signal ended it: its attempt ran out of time (`timeoutMs`), or its caller (or a close) aborted it. */
export function abortFailure(signal: AbortSignal, operation: string, timeoutMs: number, waitingFor = "answer"): RobotApiError {
  if (signal.reason === ATTEMPT_TIMED_OUT) {
    return new RobotApiError({ kind: "timeout", operation, message: `${operation}: no ${waitingFor} within ${timeoutMs / 1000} s` });
  }
  return abortedError(operation);
}

/**
 * What a failed exchange means for the retry rules: nothing sent (a failed
 * connect: safe to send again), a reset after sending (only a read goes
 * again), an unreadable answer, or the call's own end (abort, timeout).
 */
export function wireFailure(error: unknown, operation: string, signal: AbortSignal, timeoutMs: number, redact: Redact): RobotApiError {
  if (signal.aborted) return abortFailure(signal, operation, timeoutMs);
  // Only the code and text are kept: nothing of the request (its headers hold the token) is.
  const code =
    typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"
      ? (error as { code: string }).code
      : undefined;
  if (code === ANSWER_TOO_LARGE || code?.startsWith("Z_")) {
    return new RobotApiError({ kind: "bad_response", operation, message: `${operation}: answer could not be read` });
  }
  const text = error instanceof Error ? error.message : String(error);
  return new RobotApiError({
    kind: "network",
    operation,
    message: `${operation}: network error: ${redact(text)}`,
    connectFailed: code !== undefined && CONNECT_FAILURES.has(code),
    connectionReset: code !== undefined && CONNECTION_RESETS.has(code),
  });
}
