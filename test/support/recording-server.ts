/**
 * A recording stub of the robot cloud on loopback (port 0): it records every
 * request exactly as it arrived on the wire and answers from a queue of scripted
 * replies, so tests check the wire format rather than a mocked library.
 */
import http from "node:http";
import { LoopbackServer, type TlsIdentity } from "./loopback-server";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** The body parsed as JSON, or undefined when empty. */
  body: unknown;
  /** When the whole request had arrived (performance.now()), for pacing checks. */
  at: number;
}

export interface ScriptedReply {
  status?: number;
  /** Sent as JSON unless it is a string or a Buffer (sent as is). */
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Destroy the connection instead of answering. */
  drop?: boolean;
}

export type Responder = (request: RecordedRequest) => ScriptedReply;

export class RecordingServer extends LoopbackServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ScriptedReply[] = [];
  private fallback: Responder = () => ({ status: 200, body: {} });

  constructor(tls?: TlsIdentity) {
    super(tls);
    this.server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => this.handle(req, res));
  }

  /** Answers the next requests in order with these replies, then falls back to the responder. */
  reply(...replies: ScriptedReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Answers every request not covered by reply() with this responder. */
  respondWith(responder: Responder): this {
    this.fallback = responder;
    return this;
  }

  reset(): void {
    this.requests.length = 0;
    this.resetCounts();
    this.queue.length = 0;
    this.fallback = () => ({ status: 200, body: {} });
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = rawBody === "" ? undefined : JSON.parse(rawBody);
      } catch {
        body = rawBody;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        rawBody,
        body,
        at: performance.now(),
      };
      this.requests.push(recorded);
      const reply = this.queue.shift() ?? this.fallback(recorded);
      const answer = () => {
        if (reply.drop) {
          req.socket.destroy();
          return;
        }
        const payload = typeof reply.body === "string" || Buffer.isBuffer(reply.body) ? reply.body : JSON.stringify(reply.body ?? {});
        res.writeHead(reply.status ?? 200, { "Content-Type": "application/json", ...reply.headers });
        res.end(payload);
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  }
}

/** One recording server for the suite (mocha hooks), reset before each test. */
export function useRecordingServer(): { readonly server: RecordingServer } {
  const context = {} as { server: RecordingServer };
  before(async () => {
    context.server = await new RecordingServer().start();
  });
  after(async () => {
    await context.server.stop();
  });
  beforeEach(() => context.server.reset());
  return context;
}
