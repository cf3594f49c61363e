/**
 * One HTTP exchange over node:http / node:https, and the proxy rules Node-RED
 * users know from the core http request node (http_proxy, https_proxy,
 * no_proxy). This is the hot path of every call: a request is written once,
 * the answer is read into one Buffer, nothing is retried or followed here.
 */
import http from "node:http";
import https from "node:https";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import zlib from "node:zlib";

/** The code of an answer larger than the caller allows. */
export const ANSWER_TOO_LARGE = "ERR_ANSWER_TOO_LARGE";
/** The code of a proxy that refused to open a tunnel: nothing reached the target, so sending again is safe. */
export const PROXY_REFUSED = "EPROXYREFUSED";

export interface WireRequest {
  method: string;
  /** Where: its protocol, host and port (its path is not used). */
  target: URL;
  /** The request target: path and query, already encoded. */
  path: string;
  headers: Record<string, string>;
  /** Written with its Content-Length, also on a GET (the S-line batch status). */
  body?: string;
  signal: AbortSignal;
  /** The answer (after decompression) may not be larger. */
  maxBytes: number;
  agent: http.Agent;
  /** An http:// target is asked through this proxy in absolute form (https targets tunnel in their agent). */
  proxy?: URL;
}

export interface WireAnswer {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** A hostname for node:http: IPv6 literals come from URL in brackets. */
function bareHost(hostname: string): string {
  return hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
}

function defaultPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/** Basic credentials of a proxy URL, for Proxy-Authorization. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const user = decodeURIComponent(proxy.username);
  const password = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
}

/** A proxy as it may be named in messages: never its password. */
export function describeProxy(proxy: URL): string {
  return `${proxy.protocol}//${proxy.host}`;
}

/** Sends one request and reads its whole answer. Network errors keep Node's `code` (ECONNREFUSED, ...). */
export function exchange(request: WireRequest): Promise<WireAnswer> {
  const { target, path, method, body, signal, maxBytes, agent, proxy } = request;
  const headers: Record<string, string | number> = { ...request.headers };
  if (body !== undefined) headers["Content-Length"] = Buffer.byteLength(body);
  const options: http.RequestOptions = { method, agent, headers, signal };
  if (proxy && target.protocol === "http:") {
    options.hostname = bareHost(proxy.hostname);
    options.port = defaultPort(proxy);
    options.path = target.origin + path;
    headers.Host = target.host;
    const authorization = proxyAuthorization(proxy);
    if (authorization) headers["Proxy-Authorization"] = authorization;
  } else {
    options.hostname = bareHost(target.hostname);
    options.port = defaultPort(target);
    options.path = path;
  }
  const send = target.protocol === "https:" ? https.request : http.request;
  return new Promise<WireAnswer>((resolve, reject) => {
    const req = send(options, (res) => {
      const encoding = String(res.headers["content-encoding"] ?? "").trim().toLowerCase();
      // Sizes count what is held in memory: a small gzip that inflates past maxBytes is refused too.
      const source = decoderFor(encoding, res);
      const chunks: Buffer[] = [];
      let size = 0;
      source.on("data", (chunk: Buffer) => {
        if (size > maxBytes) return;
        size += chunk.length;
        if (size > maxBytes) {
          // Rejected first: the errors the streams report as they are torn down come too late to count.
          reject(codedError(`answer larger than ${maxBytes} bytes`, ANSWER_TOO_LARGE));
          if (source !== res) source.destroy();
          res.destroy();
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      source.once("end", () => resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? "", headers: res.headers, body: Buffer.concat(chunks, size) }));
      // Streams may report one failure more than once (the request, the answer, the decoder): the first counts.
      source.on("error", reject);
      if (source !== res) res.on("error", reject);
      res.once("aborted", () => reject(codedError("the answer was cut short", "ECONNRESET")));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function decoderFor(encoding: string, res: http.IncomingMessage): Duplex | http.IncomingMessage {
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip()
      : encoding === "deflate"
        ? zlib.createInflate()
        : encoding === "br"
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) return res;
  res.pipe(decoder);
  return decoder;
}

// ------------------------------------------------------------ proxies

type Environment = Record<string, string | undefined>;

const PROXY_VARIABLES = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY"];

/** The proxy variables of this process now: a client keeps them, so one client follows one set of rules. */
export function proxyEnvironment(env: Environment = process.env): Environment {
  return Object.fromEntries(PROXY_VARIABLES.map((name) => [name, env[name]]));
}

function envValue(env: Environment, name: string): string | undefined {
  const value = env[name.toLowerCase()] ?? env[name.toUpperCase()];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/** Whether no_proxy exempts the target: `*`, a host, a `.suffix` or suffix, a host:port, an IP. */
export function bypassesProxy(target: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = bareHost(target.hostname).toLowerCase();
  const port = String(defaultPort(target));
  return noProxy
    .split(/[\s,]+/)
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== "")
    .some((entry) => {
      if (entry === "*") return true;
      let name = entry;
      const withPort = /^(.*):(\d+)$/.exec(entry);
      if (withPort && !entry.includes("]") && (entry.match(/:/g) ?? []).length === 1) {
        if (withPort[2] !== port) return false;
        name = withPort[1]!;
      }
      name = name.replace(/^\[|\]$/g, "").replace(/^\*?\./, "");
      return host === name || host.endsWith(`.${name}`);
    });
}

/**
 * The proxy for a target, from the environment as Node-RED's core http request
 * node reads it: https_proxy / HTTPS_PROXY for https targets, http_proxy /
 * HTTP_PROXY for http ones, none when no_proxy / NO_PROXY exempts the target.
 * A proxy given without a scheme is http://. Only http proxies are spoken to.
 */
export function proxyFor(target: URL, env: Environment = process.env): URL | undefined {
  if (bypassesProxy(target, envValue(env, "no_proxy"))) return undefined;
  const raw = envValue(env, target.protocol === "https:" ? "https_proxy" : "http_proxy");
  if (!raw) return undefined;
  let proxy: URL;
  try {
    proxy = new URL(raw.includes("://") ? raw : `http://${raw}`);
  } catch {
    throw codedError(`the proxy setting is not a URL`, "EINVALIDPROXY");
  }
  if (proxy.protocol !== "http:") throw codedError(`only http:// proxies are supported, not ${proxy.protocol}`, "EINVALIDPROXY");
  return proxy;
}

/**
 * An https agent whose connections are tunnels through an http proxy
 * (CONNECT host:port), then TLS to the target inside the tunnel: the proxy
 * sees where, never what (the bearer token stays encrypted). Pooling and
 * keep-alive work as for any agent. A proxy that refuses the tunnel is a
 * connect failure (code EPROXYREFUSED): nothing reached the target.
 */
export class TunnelingAgent extends https.Agent {
  constructor(
    private readonly proxy: URL,
    options: https.AgentOptions,
    private readonly connectMs: number,
  ) {
    super(options);
  }

  override createConnection(options: tls.ConnectionOptions & { host?: string; port?: number }, callback: (error: Error | null, socket?: Duplex) => void): Duplex | undefined {
    const host = options.host ?? "localhost";
    const port = options.port ?? 443;
    const target = `${host.includes(":") ? `[${host}]` : host}:${port}`;
    const headers: Record<string, string> = { Host: target };
    const authorization = proxyAuthorization(this.proxy);
    if (authorization) headers["Proxy-Authorization"] = authorization;
    let settled = false;
    const done = (error: Error | null, socket?: Duplex) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      callback(error, socket);
    };
    const connect = http.request({
      hostname: bareHost(this.proxy.hostname),
      port: defaultPort(this.proxy),
      method: "CONNECT",
      path: target,
      headers,
      agent: false,
    });
    const timer = setTimeout(() => {
      connect.destroy(codedError(`the proxy ${describeProxy(this.proxy)} did not open a tunnel within ${this.connectMs / 1000} s`, "ECONNECTTIMEDOUT"));
    }, this.connectMs);
    connect.once("connect", (answer, socket) => {
      if (answer.statusCode !== 200) {
        socket.destroy();
        done(codedError(`the proxy ${describeProxy(this.proxy)} answered ${answer.statusCode} ${answer.statusMessage ?? ""} to CONNECT ${target}`.trim(), PROXY_REFUSED));
        return;
      }
      const secure = tls.connect({ ...options, socket, servername: options.servername ?? (/^[\d.:]+$/.test(host) ? undefined : host) });
      secure.once("secureConnect", () => done(null, secure));
      secure.once("error", (error: Error) => done(error));
    });
    connect.once("error", (error) => done(error));
    connect.end();
    return undefined;
  }
}
