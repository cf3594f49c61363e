/** Reading requests and writing answers, as the simulated cloud does on every route. */
import type http from "node:http";
import type { z } from "zod";

/** An answer before it is written. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** An envelope or error code worth a word in the log line. */
  code?: number;
}

type BodyResult = { ok: true; text: string } | { ok: false };

export function readBody(req: http.IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ ok: false });
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        settled = true;
        resolvePromise({ ok: false });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (settled) return;
      settled = true;
      resolvePromise({ ok: true, text: Buffer.concat(chunks).toString("utf8") });
    });
    req.on("error", (error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
  });
}

export function isJsonContentType(header: string | undefined): boolean {
  return (header ?? "").split(";")[0]!.trim().toLowerCase() === "application/json";
}

export function errorBody(code: number, message: string): { code: number; message: string; details: unknown[] } {
  return { code, message, details: [] };
}

export function envelope(code: number, msg: string, data: unknown): { code: number; msg: string; data: unknown } {
  return { code, msg, data };
}

/** Writes a JSON reply; `malformed` cuts its body in half (never valid JSON). */
export function writeJson(res: http.ServerResponse, reply: Reply, malformed = false): void {
  let text = JSON.stringify(reply.body);
  // Half an object or array is never valid JSON.
  if (malformed) text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  res.writeHead(reply.status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(text)),
    ...reply.headers,
  });
  res.end(text);
}

/** A path segment decoded, or as it is when it is not valid percent-encoding. */
export function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function isZodError(error: unknown): error is z.ZodError {
  return typeof error === "object" && error !== null && Array.isArray((error as { issues?: unknown }).issues);
}
