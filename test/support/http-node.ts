/**
 * Node-RED's HTTP server for flows in the test helper. The helper gives nodes
 * a real Express app as RED.httpNode but serves only the admin app; this
 * serves that app on loopback, so a test reaches a node's routes over HTTP
 * exactly as a sender on the network would.
 */
import type { RequestListener } from "node:http";
import { LoopbackServer } from "./loopback-server";

type NodeModule = (RED: never) => void;

export class HttpNodeServer extends LoopbackServer {
  private app: RequestListener | undefined;

  constructor() {
    super();
    this.server.on("request", (req, res) => {
      if (this.app) return this.app(req, res);
      res.statusCode = 503;
      res.end();
    });
  }

  /** The node module, wrapped so that loading it also hands RED.httpNode to this server. */
  serving(module: NodeModule): NodeModule {
    return (RED: never) => {
      this.app = (RED as { httpNode: RequestListener }).httpNode;
      module(RED);
    };
  }

  /** The Express app of the runtime loaded last (routes are counted in it). */
  get httpNode(): unknown {
    return this.app;
  }
}
