/**
 * A forward proxy on loopback, as a company network has: absolute-form http
 * requests are forwarded, CONNECT opens a tunnel. It records what it saw
 * (requests, tunnels and the bytes sent into them), may ask for Basic
 * credentials (407), and may refuse every tunnel.
 */
import http from "node:http";
import net from "node:net";
import { LoopbackServer } from "./loopback-server";

export interface ProxiedRequest {
  method: string;
  /** The request line's target: an absolute URL for a proxied http request. */
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface Tunnel {
  /** host:port asked for. */
  target: string;
  headers: http.IncomingHttpHeaders;
  /** Everything the client sent into the tunnel. */
  sent: Buffer[];
}

export class ProxyServer extends LoopbackServer {
  readonly requests: ProxiedRequest[] = [];
  readonly tunnels: Tunnel[] = [];
  /** "user:password" the proxy wants, or undefined for none. */
  credentials: string | undefined;
  /** Answer every CONNECT with this status instead of opening the tunnel. */
  refuseTunnels: number | undefined;

  constructor() {
    super();
    this.server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => this.forward(req, res));
    this.server.on("connect", (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => this.tunnel(req, socket, head));
  }

  reset(): void {
    this.requests.length = 0;
    this.tunnels.length = 0;
    this.credentials = undefined;
    this.refuseTunnels = undefined;
  }

  private authorised(headers: http.IncomingHttpHeaders): boolean {
    if (!this.credentials) return true;
    return headers["proxy-authorization"] === `Basic ${Buffer.from(this.credentials).toString("base64")}`;
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    if (!this.authorised(req.headers)) {
      req.resume();
      res.writeHead(407, { "Proxy-Authenticate": 'Basic realm="proxy"' }).end();
      return;
    }
    const target = new URL(req.url ?? "/");
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    const upstream = http.request(
      { hostname: target.hostname, port: target.port, method: req.method, path: target.pathname + target.search, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  }

  private tunnel(req: http.IncomingMessage, socket: net.Socket, head: Buffer): void {
    const tunnel: Tunnel = { target: req.url ?? "", headers: req.headers, sent: [] };
    this.tunnels.push(tunnel);
    if (!this.authorised(req.headers)) {
      socket.end("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n");
      return;
    }
    if (this.refuseTunnels) {
      socket.end(`HTTP/1.1 ${this.refuseTunnels} Refused\r\n\r\n`);
      return;
    }
    const [host, port] = [tunnel.target.slice(0, tunnel.target.lastIndexOf(":")), tunnel.target.slice(tunnel.target.lastIndexOf(":") + 1)];
    const upstream = net.connect(Number(port), host.replace(/^\[|\]$/g, ""), () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) {
        tunnel.sent.push(head);
        upstream.write(head);
      }
      socket.on("data", (chunk: Buffer) => tunnel.sent.push(chunk));
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  }
}
