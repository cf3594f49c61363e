/**
 * An HTTP server on 127.0.0.1 (port 0) that keeps count of its sockets, so a
 * test can see how many connections a client opened and stop() can end
 * kept-alive connections at once instead of waiting for their timeout. Given
 * a key and certificate it speaks https.
 */
import http from "node:http";
import https from "node:https";
import type { AddressInfo, Socket } from "node:net";

/** A server's TLS identity, PEM-encoded. */
export interface TlsIdentity {
  key: string;
  cert: string;
}

export class LoopbackServer {
  protected readonly server: http.Server;
  private readonly sockets = new Set<Socket>();
  private readonly scheme: "http" | "https";
  /** Connections accepted since the last resetCounts(), and the most that were open at once. */
  connections = 0;
  maxOpenSockets = 0;

  constructor(tls?: TlsIdentity) {
    this.server = tls ? https.createServer(tls) : http.createServer();
    this.scheme = tls ? "https" : "http";
    // For https, "connection" is the TCP socket too: kept-alive connections are counted and ended alike.
    this.server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      this.connections++;
      this.maxOpenSockets = Math.max(this.maxOpenSockets, this.sockets.size);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  /** Sockets open now. */
  get openSockets(): number {
    return this.sockets.size;
  }

  get url(): string {
    return `${this.scheme}://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return this;
  }

  protected resetCounts(): void {
    this.connections = 0;
    this.maxOpenSockets = this.sockets.size;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
