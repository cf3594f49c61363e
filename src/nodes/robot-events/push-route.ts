/**
 * robot-events' part of Node-RED's HTTP server for flows (RED.httpNode): one
 * route per node, added on start and removed on close, a path claimed by one
 * node at a time, and a JSON body read with a size limit.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

type Handler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** What the package needs of an Express app (4 keeps its router at _router and throws on reading router; 5 keeps it at router). */
export interface HttpApp {
  all(path: string, ...handlers: (Handler | Handler[])[]): unknown;
  _router?: { stack: RouterLayer[] };
  router?: { stack: RouterLayer[] };
}
interface RouterLayer {
  route?: { path?: unknown; stack?: { handle?: unknown }[] };
}

/** Adds `handlers` (middleware first, `final` last) for every method of `path`; the returned function removes exactly that route. */
export function addRoute(app: HttpApp, path: string, handlers: (Handler | Handler[])[], final: Handler): () => void {
  app.all(path, ...handlers, final);
  return () => {
    const stack = routeStackOf(app);
    // Found by its own handler, not by path: a core http in node on the same path keeps its routes.
    const index = stack.findIndex((layer) => layer.route?.stack?.some((entry) => entry.handle === final));
    if (index !== -1) stack.splice(index, 1);
  };
}

function routeStackOf(app: HttpApp): RouterLayer[] {
  if (app._router) return app._router.stack;
  try {
    return app.router?.stack ?? [];
  } catch {
    return []; // Express 4 before its first route
  }
}

/** Number of routes whose path is `path` (tests count them after redeploys). */
export function routesOf(app: HttpApp, path: string): number {
  return routeStackOf(app).filter((layer) => layer.route?.path === path).length;
}

const claims = new WeakMap<HttpApp, Map<string, string>>();

/** Express matches paths case-insensitively: so do claims. */
const claimKey = (path: string) => path.toLowerCase();

/** Claims `path` for the node; answers the id of the node that holds it already, or undefined when the claim is made. */
export function claimPath(app: HttpApp, path: string, nodeId: string): string | undefined {
  let owners = claims.get(app);
  if (!owners) claims.set(app, (owners = new Map<string, string>()));
  const owner = owners.get(claimKey(path));
  if (owner !== undefined && owner !== nodeId) return owner;
  owners.set(claimKey(path), nodeId);
  return undefined;
}

export function releasePath(app: HttpApp, path: string, nodeId: string): void {
  const owners = claims.get(app);
  if (owners?.get(claimKey(path)) === nodeId) owners.delete(claimKey(path));
}

export type BodyReading = { ok: true; body: unknown } | { ok: false; status: 400 | 413; error: string };

/**
 * The request's body parsed as JSON, read up to `limit` bytes. A body an
 * httpNodeMiddleware parsed already (body-parser sets req.body) is taken as it is.
 */
export function readJsonBody(req: IncomingMessage & { body?: unknown; _body?: boolean }, limit: number): Promise<BodyReading> {
  if (req._body === true || req.readableEnded) return Promise.resolve(parseJson(req.body, limit));
  const declared = Number(req.headers["content-length"]);
  if (declared > limit) return Promise.resolve(tooLarge(limit));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (reading: BodyReading) => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      resolve(reading);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // The rest is not read: the answer closes the connection.
        req.pause();
        settle(tooLarge(limit));
      } else chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => settle(parseJson(Buffer.concat(chunks), limit)));
    req.once("error", () => settle({ ok: false, status: 400, error: "the request body could not be read" }));
    req.once("close", () => settle({ ok: false, status: 400, error: "the request body ended early" }));
  });
}

function tooLarge(limit: number): BodyReading {
  return { ok: false, status: 413, error: `body: larger than ${limit / 1024} kB` };
}

/**
 * Deeper bodies are refused: a push is a few levels deep, and Node-RED cannot
 * clone a message nested a few thousand levels deep for a second wire (the
 * copy would be lost). 1 MiB of brackets would be half a million levels.
 */
export const MAX_BODY_DEPTH = 64;

function parseJson(body: unknown, limit: number): BodyReading {
  let value = body;
  if (Buffer.isBuffer(body) || typeof body === "string") {
    const text = body.toString();
    if (Buffer.byteLength(text) > limit) return tooLarge(limit);
    if (text.trim() === "") return { ok: false, status: 400, error: "body: is empty, not JSON" };
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      return { ok: false, status: 400, error: "body: is not JSON" };
    }
  }
  if (value === undefined) return { ok: false, status: 400, error: "body: is empty, not JSON" };
  if (deeperThan(value, MAX_BODY_DEPTH)) return { ok: false, status: 400, error: `body: is nested deeper than ${MAX_BODY_DEPTH} levels` };
  return { ok: true, body: value };
}

/** Whether objects and arrays nest deeper than `limit`, walked without recursion (the input may be very deep). */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
