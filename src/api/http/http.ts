/**
 * The way out of the client: axios makes every HTTP exchange, over keep-alive
 * agents that hold at most a given number of sockets. Proxies are read from
 * the environment as Node-RED's core http request node reads them: which
 * proxy (or none, for a no_proxy host) is proxy-from-env's decision; https
 * targets are tunnelled through it by hpagent's keep-alive agent, http targets
 * are sent to it in absolute form by axios. Nothing here queues, retries or
 * follows a redirect: that is the request engine's policy, or refused.
 */
import http from "node:http";
import https from "node:https";
import type { Duplex } from "node:stream";
import type tls from "node:tls";
import axios, { type AxiosAdapter, type AxiosProxyConfig, type AxiosRequestConfig, type InternalAxiosRequestConfig } from "axios";
import { HttpsProxyAgent } from "hpagent";
import { getProxyForUrl } from "proxy-from-env";
import { invalidInput } from "../errors";

/** The code of an answer larger than the caller allows. */
export const ANSWER_TOO_LARGE = "ERR_ANSWER_TOO_LARGE";
/** The code of a proxy that refused to open a tunnel: nothing reached the target, so sending again is safe. */
export const PROXY_REFUSED = "EPROXYREFUSED";
/** The code of a connection (or tunnel, or TLS handshake) not made in time: nothing was written on it. */
export const CONNECT_TIMED_OUT = "ECONNECTTIMEDOUT";

export interface WireRequest {
  method: string;
  /** Absolute URL, path and query already encoded. */
  url: string;
  /** Headers beyond the route's own (the bearer token, the Content-Type where the endpoint takes one). */
  headers?: Record<string, string>;
  /** Sent with its Content-Length, also on a GET (the S-line batch status). */
  body?: string;
  signal: AbortSignal;
  /** A larger answer (after decompression) is refused with ANSWER_TOO_LARGE; default the route's. */
  maxBytes?: number;
}

export interface WireAnswer {
  status: number;
  statusText: string;
  /** Header values by lower-case name. */
  header(name: string): string | undefined;
  body: Buffer;
}

export interface RouteOptions {
  /** Sockets the route keeps at most (and so requests on the wire at once). */
  sockets: number;
  /** A connection, tunnel or TLS handshake not done in this time fails with CONNECT_TIMED_OUT. */
  connectMs: number;
  /** The largest answer accepted when a request names none. */
  maxBytes: number;
  /** Sent with every request of the route. */
  headers: Record<string, string>;
}

function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** A proxy as it may be named in messages: never its user name or password. */
export function describeProxy(proxy: URL): string {
  return `${proxy.protocol}//${proxy.host}`;
}

/**
 * The proxy for a target, as the environment says now (http_proxy, https_proxy
 * and no_proxy in either case, decided by proxy-from-env), or undefined. A
 * proxy written without a scheme is http:// (as curl reads it; proxy-from-env
 * would give it the target's scheme). Only http proxies are spoken to: any
 * other is an invalid input naming the variable.
 */
export function proxyFor(target: URL, operation?: string): URL | undefined {
  const chosen = getProxyForUrl(target.href);
  if (!chosen) return undefined;
  const scheme = target.protocol.slice(0, -1);
  const written = [`${scheme}_proxy`, `${scheme.toUpperCase()}_PROXY`, "all_proxy", "ALL_PROXY"]
    .map((name) => process.env[name])
    .find(Boolean);
  const named = written !== undefined && !written.includes("://") ? `http://${written.trim()}` : chosen;
  const variable = target.protocol === "https:" ? "HTTPS_PROXY" : "HTTP_PROXY";
  let proxy: URL;
  try {
    proxy = new URL(named);
  } catch {
    throw invalidInput(variable, "the proxy setting is not a URL", operation);
  }
  if (proxy.protocol !== "http:") throw invalidInput(variable, `only http:// proxies are supported, not ${proxy.protocol}`, operation);
  return proxy;
}

/** Arms a connect deadline on a new socket: destroyed unless `ready` comes first. */
function limitConnectTime(socket: Duplex, ms: number, ready: "connect" | "secureConnect", what: string): void {
  const timer = setTimeout(() => socket.destroy(codedError(`${what} within ${ms / 1000} s`, CONNECT_TIMED_OUT)), ms);
  const stop = () => clearTimeout(timer);
  socket.once(ready, stop);
  socket.once("close", stop);
}

type ConnectCallback = (error: Error | null, socket: Duplex) => void;

/**
 * A keep-alive pool (http.Agent or https.Agent) whose new connections must be
 * ready in time: connected, and for https through the TLS handshake. Nothing
 * was written on one that was not, so its call may go again.
 */
function connectLimited(Agent: typeof http.Agent, ready: "connect" | "secureConnect") {
  return class ConnectLimitedAgent extends Agent {
    constructor(
      options: https.AgentOptions,
      private readonly connectMs: number,
    ) {
      super(options);
    }

    override createConnection(options: http.ClientRequestArgs, callback?: ConnectCallback): Duplex | null | undefined {
      const socket = super.createConnection(options, callback);
      if (socket) limitConnectTime(socket, this.connectMs, ready, "could not connect");
      return socket;
    }
  };
}

const DirectHttpAgent = connectLimited(http.Agent, "connect");
// https.Agent is an http.Agent whose connections are TLS sockets.
const DirectHttpsAgent = connectLimited(https.Agent, "secureConnect");

/**
 * hpagent's tunnel (CONNECT through the proxy, then TLS to the target inside
 * it: the proxy sees where, never what), with its failures named: a refused
 * tunnel is a failed connect naming the proxy (never its password), and the
 * tunnel and the handshake in it must be done within the connect time.
 */
class TunnelAgent extends HttpsProxyAgent {
  constructor(
    private readonly proxyUrl: URL,
    options: https.AgentOptions,
    private readonly connectMs: number,
  ) {
    super({ ...options, proxy: proxyUrl });
  }

  override createConnection(options: https.RequestOptions, callback?: ConnectCallback): undefined {
    const where = describeProxy(this.proxyUrl);
    const target = `${options.host ?? ""}:${options.port ?? 443}`;
    const done = callback ?? (() => undefined);
    // hpagent times the CONNECT request out with the options' timeout.
    super.createConnection({ ...options, timeout: this.connectMs }, (error, socket) => {
      if (!error && socket) {
        // The TLS socket inherits that timeout as an idle timeout: it only limits the handshake here.
        socket.once("secureConnect", () => (socket as tls.TLSSocket).setTimeout(0));
        limitConnectTime(socket, this.connectMs, "secureConnect", `no TLS handshake with ${target} through the proxy ${where}`);
        return done(null, socket);
      }
      done(tunnelError(error, where, target, this.connectMs), socket);
    });
    return undefined;
  }
}

/** hpagent's failures to open a tunnel, named: a refusal is a failed connect naming the proxy, never its password. */
function tunnelError(error: Error | null, where: string, target: string, connectMs: number): Error {
  const refused = /^Bad response: (\d+)/.exec(error?.message ?? "");
  if (refused) return codedError(`the proxy ${where} answered ${refused[1]} to CONNECT ${target}`, PROXY_REFUSED);
  if (error?.message === "Proxy timeout")
    return codedError(`the proxy ${where} did not open a tunnel within ${connectMs / 1000} s`, CONNECT_TIMED_OUT);
  return error ?? codedError(`the proxy ${where} gave no connection`, "ECONNRESET");
}

/**
 * Whether the environment names any proxy for the scheme (proxy-from-env's
 * variables, which axios reads on every call left without a `proxy`).
 *
 * Never the environment's proxy on top of ours: the route already is the
 * decision, and `proxy: false` says so to axios. But axios 1.x answers
 * `proxy: false` with a closure per request that keeps the whole exchange
 * alive past young-generation collections: about 8 KB of every call went to
 * the old generation, and the client spent 4x raw axios's time in GC
 * (docs/performance.md). A direct route made while the environment names no
 * proxy at all leaves `proxy` unset instead: axios then finds none, as
 * proxyFor did (a proxy set in the environment later would be axios's, on
 * such a route only).
 */
function namesAnyProxy(secure: boolean): boolean {
  const scheme = secure ? "https" : "http";
  return [`${scheme}_proxy`, `${scheme.toUpperCase()}_PROXY`, "all_proxy", "ALL_PROXY"].some((name) => Boolean(process.env[name]));
}

/**
 * One way to a kind of target (a scheme, and a proxy or none): axios's http
 * adapter over one keep-alive pool. Answers of every status resolve (the
 * client reads them); redirects are not followed.
 *
 * The route's whole axios config is built once, and each call hands the
 * adapter that config with its own method, URL, body, signal and headers:
 * `instance.request` would merge the instance's defaults into every call
 * (mergeConfig, the header buckets, a safe flat copy, AxiosHeaders twice, the
 * transforms), which took more CPU per call than the rest of the client and
 * robot-command together (docs/performance.md). What that path adds is
 * nothing a route uses: no interceptors, no transforms, no defaults beyond
 * these, and the adapter reads the same config either way.
 */
export class HttpRoute {
  private readonly agent: http.Agent;
  private readonly exchange: AxiosAdapter;
  /** Every call's config but what varies per call. */
  private readonly config: AxiosRequestConfig;
  private readonly headers: Record<string, string>;

  constructor(secure: boolean, proxy: URL | undefined, options: RouteOptions) {
    const pool = { keepAlive: true, maxSockets: options.sockets, maxFreeSockets: options.sockets };
    this.agent = !secure
      ? new DirectHttpAgent(pool, options.connectMs)
      : proxy
        ? new TunnelAgent(proxy, pool, options.connectMs)
        : new DirectHttpsAgent(pool, options.connectMs);
    // An http target goes to the proxy in absolute form, axios's forward-proxy mode; its credentials as written, decoded.
    const forward: AxiosProxyConfig | false =
      proxy && !secure
        ? {
            protocol: "http",
            host: proxy.hostname.replace(/^\[|\]$/g, ""),
            port: proxy.port ? Number(proxy.port) : 80,
            ...(proxy.username || proxy.password
              ? { auth: { username: decodeURIComponent(proxy.username), password: decodeURIComponent(proxy.password) } }
              : {}),
          }
        : false;
    this.exchange = axios.getAdapter("http");
    this.headers = options.headers;
    // Every key always present (undefined where unset), so each call's copy is a plain copy of one shape.
    this.config = {
      httpAgent: secure ? undefined : this.agent,
      httpsAgent: secure ? this.agent : undefined,
      proxy: proxy || namesAnyProxy(secure) ? forward : undefined,
      maxRedirects: 0,
      // No limit of axios's own on what is sent, and no timer: the engine times each attempt (its signal), the agent the connect.
      maxBodyLength: -1,
      timeout: 0,
      validateStatus: null,
      responseType: "arraybuffer",
      maxContentLength: options.maxBytes,
    };
  }

  /** Sends one request and reads its whole answer. Network errors keep Node's `code` (ECONNREFUSED, ...). */
  async send(request: WireRequest): Promise<WireAnswer> {
    const { method, url, headers, body, signal, maxBytes } = request;
    try {
      // The adapter would still send for a signal aborted before it is called (axios's request checks before
      // calling it): a call withdrawn while it waited for its token must never reach the cloud.
      if (signal.aborted) throw codedError("canceled", "ERR_CANCELED");
      const config = {
        ...this.config,
        method,
        url,
        data: body,
        signal,
        // The adapter reads plain headers as well as AxiosHeaders (it makes its own from them).
        headers: (headers === undefined ? this.headers : { ...this.headers, ...headers }) as InternalAxiosRequestConfig["headers"],
      };
      if (maxBytes !== undefined) config.maxContentLength = maxBytes;
      // responseType "arraybuffer": the adapter answers the body as one Buffer.
      const response = await this.exchange(config);
      const answerHeaders = response.headers as Record<string, unknown>;
      return {
        status: response.status,
        statusText: response.statusText ?? "",
        header: (name) => {
          const value = answerHeaders[name];
          return typeof value === "string" ? value : Array.isArray(value) ? value.join(", ") : undefined;
        },
        body: response.data as Buffer,
      };
    } catch (error) {
      throw wireError(error);
    }
  }

  destroy(): void {
    this.agent.destroy();
  }
}

/**
 * What a failed exchange says, from axios's error: Node's code and text, an
 * answer over the limit as ANSWER_TOO_LARGE, an answer cut short as a reset.
 * Nothing of the request (its headers hold the token) is kept.
 */
function wireError(error: unknown): Error {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === "string" ? message : String(error);
  if (code === "ERR_BAD_RESPONSE" && text.startsWith("maxContentLength")) return codedError(text, ANSWER_TOO_LARGE);
  if (code === "ERR_BAD_RESPONSE" && text === "stream has been aborted") return codedError("the answer was cut short", "ECONNRESET");
  return codedError(text, typeof code === "string" ? code : "");
}
