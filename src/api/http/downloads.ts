/**
 * Map images from the cloud's pre-signed links: another host (object
 * storage), so no token and no cookie go along, and not the account's engine
 * either: its pacing guards the cloud's quota, which object storage does not
 * count. Downloads have their own engine and keep-alive routes, so they
 * neither count against the account's rate nor wait behind or pause with its
 * calls.
 */
import { RequestEngine } from "../engine/engine";
import { RobotApiError, invalidInput } from "../errors";
import { HttpRoute, ANSWER_TOO_LARGE, proxyFor, type WireAnswer } from "./http";
import type { CallOptions, RetryOptions } from "../settings/call-settings";
import { retryAfterOf } from "./answers";
import type { Redact } from "./redaction";
import { DOWNLOAD_URL_RULES, brokenUrlRule, parseUrl } from "../settings/input-rules";
import { wireFailure } from "./wire-failures";

/** Map images larger than this are refused (downloadMapImage's default maxBytes): 10 MiB. */
export const DEFAULT_MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/** Downloads from object storage on the wire at once, per client: each holds up to maxBytes in memory. */
export const DOWNLOAD_CONNECTIONS = 4;

export interface DownloadOptions extends CallOptions {
  /** A larger answer is refused (a bad_response) rather than buffered. Default 10 MiB. */
  maxBytes?: number;
}

/** A downloaded image: the bytes as they came, and the type the object store gave them. */
export interface MapImage {
  data: Buffer;
  /** The answer's Content-Type, e.g. image/png; application/octet-stream when it gave none. */
  contentType: string;
}

/** Checks a pre-signed download URL before anything is sent: absolute, and by DOWNLOAD_URL_RULES. */
export function checkDownloadUri(raw: unknown, operation = "downloadMapImage"): URL {
  if (typeof raw !== "string" || raw.trim() === "") throw invalidInput("downloadUri", "must be an absolute http(s) URL", operation);
  const url = parseUrl(raw.trim());
  if (!url) throw invalidInput("downloadUri", "is not an absolute URL", operation);
  const broken = brokenUrlRule(url, DOWNLOAD_URL_RULES);
  if (broken === "protocol") throw invalidInput("downloadUri", `only http and https are fetched, not ${url.protocol}`, operation);
  if (broken === "parts") throw invalidInput("downloadUri", "must not hold a user name or password", operation);
  return url;
}

/** An object store's error text: the Code and Message of an S3-style XML body, else the start of the text. */
function objectStoreReason(text: string): string {
  const code = /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];
  const message = /<Message>([^<]{1,300})<\/Message>/.exec(text)?.[1];
  if (code || message) return [code, message].filter(Boolean).join(": ");
  return text.slice(0, 200).trim();
}

/** A download's only credential is its URL's signature: no Authorization, no cookie. */
const IMAGE_HEADERS = { Accept: "image/png, image/*;q=0.9, */*;q=0.1" };

/** The constructor details of an error, to build one like it. */
function failureDetails(error: RobotApiError): ConstructorParameters<typeof RobotApiError>[0] {
  return {
    kind: error.kind,
    message: error.message,
    operation: error.operation,
    status: error.status,
    apiCode: error.apiCode,
    resultCode: error.resultCode,
    field: error.field,
    retryAfterSeconds: error.retryAfterSeconds,
    connectFailed: error.connectFailed,
    connectionReset: error.connectionReset,
  };
}

export interface MapDownloadSettings {
  retry: RetryOptions | undefined;
  timeoutMs: number;
  connectMs: number;
  /** The client's redactor: an object store's error text is an answer like any other. */
  redact: Redact;
}

/** A client's downloads: their engine and their routes (by scheme and proxy). */
export class MapDownloads {
  private readonly engine: RequestEngine;
  /** Object storage may be another host each time, maybe behind another proxy rule. */
  private readonly routes = new Map<string, HttpRoute>();

  constructor(private readonly settings: MapDownloadSettings) {
    this.engine = new RequestEngine({ ...settings.retry, timeoutMs: settings.timeoutMs, connections: DOWNLOAD_CONNECTIONS, rateLimit: 0 });
  }

  /**
   * Fetches an image from an absolute pre-signed URL (the map endpoint's
   * downloadUri). It is another host: the request carries no Authorization
   * header and no cookie, only what the URL holds. http and https only, no
   * redirects, at most `maxBytes` (10 MiB), within the client's timeout.
   * On the downloads' own engine (see above): no pacing, at most
   * DOWNLOAD_CONNECTIONS at once, abort and retries of failed connects.
   * Error messages name the URL without its query (the signature grants access).
   */
  async download(downloadUri: string | URL, options: DownloadOptions = {}): Promise<MapImage> {
    const operation = "downloadMapImage";
    const { maxBytes = DEFAULT_MAX_IMAGE_BYTES, ...callOptions } = options;
    if (!Number.isInteger(maxBytes) || maxBytes < 1)
      throw invalidInput("maxBytes", "must be a whole number of bytes, 1 or more", operation);
    // A URL the caller already checked (the cloud's answer, in getMapImage) is not checked twice.
    const url = downloadUri instanceof URL ? downloadUri : checkDownloadUri(downloadUri, operation);
    const where = `${url.origin}${url.pathname}`;
    const hide = (text: string) => (url.search ? text.split(url.search).join("?***") : text);
    const route = this.routeFor(url, operation);
    const attempt = async (signal: AbortSignal): Promise<MapImage> => {
      let response: WireAnswer;
      try {
        response = await route.send({ method: "GET", url: url.href, signal, maxBytes });
      } catch (error) {
        if ((error as { code?: unknown }).code === ANSWER_TOO_LARGE && !signal.aborted) {
          throw new RobotApiError({
            kind: "bad_response",
            operation,
            message: `${operation}: the image at ${where} is larger than ${maxBytes} bytes (maxBytes); not downloaded`,
          });
        }
        const failure = wireFailure(error, operation, signal, this.settings.timeoutMs, this.settings.redact);
        throw new RobotApiError({ ...failureDetails(failure), message: hide(failure.message) });
      }
      const { status } = response;
      const bytes = response.body;
      if (status >= 200 && status <= 299) {
        const type = response.header("content-type")?.trim();
        return { data: bytes, contentType: type ? type : "application/octet-stream" };
      }
      const reason =
        status >= 300 && status <= 399
          ? "a redirect, which is not followed"
          : this.settings.redact(objectStoreReason(bytes.subarray(0, 2000).toString("utf8"))) || response.statusText || "";
      const hint = status === 403 ? " (the link may have expired: ask for the map image again)" : "";
      throw new RobotApiError({
        kind: "http",
        operation,
        status,
        retryAfterSeconds: retryAfterOf(response),
        message: hide(`${operation}: HTTP ${status} from ${where}${reason ? `: ${reason}` : ""}${hint}`),
      });
    };
    return this.engine.run(attempt, { ...callOptions, read: true, operation });
  }

  close(): void {
    this.engine.close();
    for (const route of this.routes.values()) route.destroy();
  }

  /** The route of a download URL, by the proxy rules as they are now. */
  private routeFor(url: URL, operation: string): HttpRoute {
    const proxy = proxyFor(url, operation);
    const key = `${url.protocol}${proxy?.href ?? ""}`;
    let route = this.routes.get(key);
    if (!route) {
      route = new HttpRoute(url.protocol === "https:", proxy, {
        sockets: DOWNLOAD_CONNECTIONS,
        connectMs: this.settings.connectMs,
        maxBytes: DEFAULT_MAX_IMAGE_BYTES,
        headers: IMAGE_HEADERS,
      });
      this.routes.set(key, route);
    }
    return route;
  }
}
