/**
 * One HTTP request exactly as written, with node:http: unlike fetch, it can
 * send a body on a GET (the S-line batch status) and any header at all.
 */
import http from "node:http";

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as bytes (an image) and as text. */
  bytes: Buffer;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: unknown;
}

export interface RawOptions {
  token?: string;
  /** Sent as given (a string) or as JSON, with Content-Type application/json unless headers say otherwise. */
  body?: unknown;
  /** Added to the request's headers; null leaves that header out (a body with no Content-Type). */
  headers?: Record<string, string | null>;
}

/** `target` is a path on `base` or an absolute URL. */
export function rawRequest(base: string, method: string, target: string, options: RawOptions = {}): Promise<RawAnswer> {
  const url = new URL(target, base);
  const headers: Record<string, string> = {};
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: Buffer | undefined;
  if (options.body !== undefined) {
    body = Buffer.from(typeof options.body === "string" ? options.body : JSON.stringify(options.body));
    headers["Content-Type"] = "application/json";
    headers["Content-Length"] = String(body.length);
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === null) delete headers[name];
    else headers[name] = value;
  }
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes, text, json });
      });
    });
    request.on("error", reject);
    request.end(body);
  });
}
