/**
 * Node-RED embedded in an HTTP server, as the demo and the editor tests run
 * it: nothing that would cover the editor (tours, the update question), no
 * telemetry, and the port opened only once the flows run, so an early browser
 * never gets an empty palette and no request meets "runtime not started".
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import express from "express";

/** The part of Node-RED's embedding API used here (the tests add what they use: test/support/embedded-node-red.ts). */
export interface NodeRedRuntime {
  init(server: http.Server, settings: Record<string, unknown>): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  httpAdmin: express.Express;
  httpNode: express.Express;
  events: { once(event: string, listener: () => void): void };
}

export interface EmbeddedNodeRedOptions {
  /** What to require as Node-RED (another copy for the compatibility run). Default "node-red". */
  module?: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Node-RED settings; userDir and flowFile at least. httpNodeRoot defaults to "/". */
  settings: Record<string, unknown>;
}

export interface EmbeddedNodeRed {
  /** The editor's address, ending in "/". */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startEmbeddedNodeRed(options: EmbeddedNodeRedOptions): Promise<EmbeddedNodeRed> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const RED = require(options.module ?? "node-red") as NodeRedRuntime;
  const app = express();
  const server = http.createServer(app);
  // Every socket, upgraded ones included: an open dashboard's websocket is no HTTP connection that closeAllConnections ends, and it kept the process (and its ports) alive after Ctrl-C.
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const settings: Record<string, unknown> = {
    credentialSecret: false,
    httpAdminRoot: "/",
    httpNodeRoot: "/",
    editorTheme: { tours: false, projects: { enabled: false } },
    telemetry: { enabled: false, updateNotification: false },
    diagnostics: { enabled: false },
    ...options.settings,
  };
  RED.init(server, settings);
  app.use(settings.httpAdminRoot as string, RED.httpAdmin);
  app.use(settings.httpNodeRoot as string, RED.httpNode);
  // start() resolves before the flows run.
  const flowsStarted = new Promise<void>((resolve) => RED.events.once("flows:started", () => resolve()));
  await RED.start();
  await flowsStarted;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host}:${port}/`,
    port,
    async stop() {
      await RED.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
