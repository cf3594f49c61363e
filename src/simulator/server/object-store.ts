/**
 * The simulated object store that serves map images at pre-signed URLs: no
 * token, a signature and an expiry in the query, as object stores answer.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The simulated object store that serves map images at pre-signed URLs: no
 * token, a signature and an expiry in the query. Another service than the
 * cloud, so the cloud's checks, rate limit and faults do not apply to it.
 */
export const OBJECT_PREFIX = "/_objects/";
export const DEFAULT_DOWNLOAD_URL_LIFETIME_MS = 10 * 60 * 1000;

/** An object store's answer: bytes, not JSON. */
export interface BinaryReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function xmlEscape(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** An object store's error: an S3-style XML body. */
function objectError(status: number, code: string, message: string, headers: Record<string, string> = {}): BinaryReply {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`;
  return { status, headers: { "Content-Type": "application/xml", ...headers }, body: Buffer.from(body) };
}

/** A Host header safe to put into a URL (letters, digits, dots, dashes, brackets, a port). */
const HOST_PATTERN = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

export class ObjectStore {
  /** Signs the store's URLs; new on every start, so old links stop working, as real ones would. */
  private readonly signingKey = randomBytes(32);

  constructor(
    /** How long a pre-signed URL works. */
    private readonly lifetimeMs: number,
    private readonly now: () => number,
    /** The address the simulator listens on, for a caller whose Host header cannot be used. */
    private readonly address: () => AddressInfo,
    /** The PNG at a key (a path under OBJECT_PREFIX, decoded), or undefined when there is no such object. */
    private readonly image: (key: string) => Buffer | undefined,
  ) {
    if (!(lifetimeMs > 0)) throw new Error("downloadUrlLifetimeMs must be more than 0");
  }

  /** The base the caller reached the simulator at (its Host header), or the address it listens on (no caller: a push). */
  private baseOf(req: http.IncomingMessage | undefined): string {
    const host = req?.headers.host ?? "";
    if (HOST_PATTERN.test(host)) return `http://${host}`;
    const address = this.address();
    return `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
  }

  private signature(pathname: string, expires: string): Buffer {
    return createHmac("sha256", this.signingKey).update(`${pathname}\n${expires}`).digest();
  }

  /** A pre-signed URL of the object: its expiry (epoch seconds) and an HMAC of path and expiry in the query. */
  presign(req: http.IncomingMessage | undefined, key: string): string {
    const pathname = `${OBJECT_PREFIX}${key}`;
    const expires = String(Math.floor((this.now() + this.lifetimeMs) / 1000));
    return `${this.baseOf(req)}${pathname}?expires=${expires}&signature=${this.signature(pathname, expires).toString("hex")}`;
  }

  /**
   * GET of a pre-signed object, as object stores answer it: 400 when an
   * Authorization header comes along (one way of authenticating only), 403 for
   * a missing or wrong signature and once expired, 404 for no such object.
   */
  serve(req: http.IncomingMessage, method: string, pathname: string, search: URLSearchParams): BinaryReply {
    req.resume();
    if (method !== "GET" && method !== "HEAD")
      return objectError(405, "MethodNotAllowed", `${method} is not allowed on an object.`, { Allow: "GET, HEAD" });
    if (req.headers.authorization !== undefined) {
      return objectError(
        400,
        "InvalidArgument",
        "Only one auth mechanism allowed: the signature in the query, or an Authorization header, not both.",
      );
    }
    const expires = search.get("expires");
    const signature = search.get("signature");
    if (!expires || !signature)
      return objectError(403, "AccessDenied", "Query-string authentication requires the expires and signature parameters.");
    const expected = this.signature(pathname, expires);
    const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, "hex") : Buffer.alloc(0);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return objectError(403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.");
    }
    if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 <= this.now()) return objectError(403, "AccessDenied", "Request has expired");
    const png = this.image(pathname.slice(OBJECT_PREFIX.length));
    if (!png) return objectError(404, "NoSuchKey", "The specified key does not exist.");
    return { status: 200, headers: { "Content-Type": "image/png", "Cache-Control": "private, max-age=60" }, body: png };
  }
}
