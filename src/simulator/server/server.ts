/**
 * The robot-cloud simulator's HTTP side (node:http only). Routes come from the
 * endpoint table and request bodies are checked with the table's own zod
 * schemas, so the client and the simulator cannot drift apart. It checks what
 * the real cloud checks: bearer token, the robot's account, body, content type
 * and a per-token rate limit; and it can inject latency and faults.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { describeIssues } from "../../api/errors";
import { readQuery, type RobotOperationName } from "../../api/cloud/endpoints";
import { Accounts, DEFAULT_TOKEN_LIFETIME_MS } from "./accounts";
import { controlReply } from "../faults/control";
import { FaultInjector, type FaultRoll, type Faults, type FaultsUpdate } from "../faults/faults";
import { demoFleet, grownFleet, type FleetSeed, type SimRobot } from "../world/fleet";
import { envelope, errorBody, isJsonContentType, readBody, safeDecode, writeJson, type Reply } from "./http-io";
import type { IncidentContent } from "../pushes/incidents";
import { DEFAULT_DOWNLOAD_URL_LIFETIME_MS, OBJECT_PREFIX, ObjectStore } from "./object-store";
import {
  CONTROL_PREFIX,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_RATE_LIMIT,
  type FleetView,
  type RunningSimulator,
  type SimulatorOptions,
} from "./options";
import { PushEvents } from "../pushes/push-events";
import type { PushState, PushTarget } from "../pushes/pushes";
import {
  ENVELOPE_CODES,
  HANDLERS,
  envelopeErrorData,
  refuseJoinedNames,
  resolve,
  type Handler,
  type HandlerContext,
  type Resolved,
  type Route,
} from "./routes";
import { Code, SimError } from "./sim-errors";
import { statusOf } from "../world/views";
import { withImage } from "../world/report-book";
import { EndTask, RobotChanges, WearChanges, WearQuery, parsedOrRefused } from "./control-requests";
import { changeWear, wearTruthOf, type WearTruth } from "../world/wear";
import { World, type Parsed } from "../world/world";

// The simulator's public names that live in the modules it is made of.
export { DEFAULT_DOWNLOAD_URL_LIFETIME_MS, OBJECT_PREFIX } from "./object-store";
export {
  CONTROL_PREFIX,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_RATE_LIMIT,
  type FleetView,
  type RateLimit,
  type RunningSimulator,
  type SimulatorOptions,
} from "./options";

class Simulator {
  private world: World;
  readonly faults: FaultInjector;
  private readonly accounts: Accounts;
  private readonly objects: ObjectStore;
  private readonly now: () => number;
  private readonly log: ((line: string) => void) | undefined;
  readonly maxBodyBytes: number;
  private readonly maxCommandsPerRobot: number;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly pushes: PushEvents;
  private readonly sockets = new Set<Socket>();
  readonly server: http.Server;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: SimulatorOptions) {
    this.now = options.now ?? Date.now;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.maxCommandsPerRobot = options.maxCommandsPerRobot ?? 200;
    this.log = options.quiet ? undefined : (options.log ?? ((line) => console.log(`${new Date().toISOString()} ${line}`)));
    const rateLimit = options.rateLimit === false ? undefined : (options.rateLimit ?? DEFAULT_RATE_LIMIT);
    this.faults = new FaultInjector(options.faults ?? {}, options.seed ?? 1);
    this.pushes = new PushEvents({
      faults: this.faults,
      now: this.now,
      log: this.log,
      logFailuresOnly: options.logFailuresOnly ?? false,
      advance: () => void this.current(),
    });
    if (options.push) this.setPush(options.push);
    this.world = this.freshWorld();
    this.accounts = new Accounts(
      this.seed().accounts,
      options.tokens,
      rateLimit,
      options.tokenLifetimeMs ?? DEFAULT_TOKEN_LIFETIME_MS,
      this.now,
    );
    this.objects = new ObjectStore(
      options.downloadUrlLifetimeMs ?? DEFAULT_DOWNLOAD_URL_LIFETIME_MS,
      this.now,
      () => this.server.address() as AddressInfo,
      (key) => this.object(key),
    );
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        // Last resort: an unexpected failure still gets an answer and never crashes the process.
        if (!res.headersSent) writeJson(res, { status: 500, body: errorBody(Code.INTERNAL, `simulator error: ${String(error)}`) });
        else res.destroy();
      });
    });
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  private seed(): FleetSeed {
    if (this.options.fleet) return this.options.fleet;
    return this.options.robots === undefined ? demoFleet() : grownFleet(this.options.robots);
  }

  private freshWorld(): World {
    return new World(this.seed(), {
      now: this.now,
      maxCommandsPerRobot: this.maxCommandsPerRobot,
      timing: this.options.timing,
      ignores: () => this.faults.ignores(),
      taskFault: () => this.faults.taskFault(),
      taskEnded: (robot, filed) =>
        this.pushes.taskEnded(
          robot,
          withImage(robot.serialNumber, filed, (key) => this.objects.presign(undefined, key)),
        ),
      changed: (robots, at) => this.pushes.changed(robots, at),
    });
  }

  get pushState(): PushState {
    return this.pushes.state;
  }

  setPush(target: PushTarget | undefined): PushState {
    return this.pushes.setTarget(target);
  }

  updatePush(raw: unknown): PushState {
    return this.pushes.update(raw);
  }

  /** The object store's objects: map images (maps/<serial>/<mapId>.png) and coverage images (reports/<serial>/<reportId>.png). */
  private object(key: string): Buffer | undefined {
    const [kind, serialNumber, file] = key.split("/").map(safeDecode);
    const name = /^(.+)\.png$/.exec(file ?? "")?.[1];
    if (key.split("/").length !== 3 || !serialNumber || !name) return undefined;
    if (kind === "maps") return this.world.mapImage(serialNumber, name);
    const robot = this.world.robots.get(serialNumber);
    return kind === "reports" && robot ? this.world.reports.coverage(serialNumber, name, robot.maps) : undefined;
  }

  /** Ends the robot's task at once with the given taskEndStatus; SimError when it runs none. */
  endTask(serialNumber: string, raw: unknown): Record<string, unknown> {
    const robot = this.robot(serialNumber);
    const { taskEndStatus } = parsedOrRefused(EndTask, raw);
    if (!robot.currentTask) throw new SimError(Code.FAILED_PRECONDITION, `Robot ${serialNumber} runs no task.`);
    this.world.finishTask(robot, taskEndStatus, true);
    return statusOf(robot, this.world.now());
  }

  wear(serialNumber: string, query: unknown): WearTruth {
    return wearTruthOf(serialNumber, this.robot(serialNumber).wear, parsedOrRefused(WearQuery, query), this.world.now());
  }

  changeWear(serialNumber: string, raw: unknown): WearTruth {
    changeWear(this.robot(serialNumber).wear, parsedOrRefused(WearChanges, raw), this.world.now());
    return this.wear(serialNumber, {});
  }

  /** Files a report of a task in the past; answers it as the task reports endpoint lists it. */
  addTaskReport(serialNumber: string, raw: unknown, req?: http.IncomingMessage): Record<string, unknown> {
    const filed = this.world.addPastReport(this.robot(serialNumber), raw);
    return withImage(serialNumber, filed, (key) => this.objects.presign(req, key));
  }

  private robot(serialNumber: string): SimRobot {
    const robot = this.current().robots.get(serialNumber);
    if (!robot) throw new SimError(Code.NOT_FOUND, `Robot ${serialNumber} not found.`);
    return robot;
  }

  openIncidents(serialNumber: string): IncidentContent[] {
    return this.pushes.openIncidents(this.robot(serialNumber));
  }

  incident(serialNumber: string, raw: unknown): { status: number; body: unknown } {
    return this.pushes.incident(this.robot(serialNumber), raw, this.world.now());
  }

  schedulingTask(serialNumber: string, raw: unknown): { status: number; body: unknown } {
    return this.pushes.schedulingTask(this.robot(serialNumber), raw, this.world.now());
  }

  /** The world brought up to now: every read and every request sees time pass. */
  private current(): World {
    this.world.advance(this.now());
    return this.world;
  }

  updateRobot(serialNumber: string, raw: unknown): Record<string, unknown> {
    const robot = this.robot(serialNumber);
    this.world.updateRobot(robot, parsedOrRefused(RobotChanges, raw));
    return statusOf(robot, this.world.now());
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolvePromise, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        resolvePromise(this.server.address() as AddressInfo);
      });
    });
  }

  close(): Promise<void> {
    this.closing ??= new Promise((resolvePromise) => {
      for (const timer of this.timers) clearTimeout(timer);
      this.timers.clear();
      const closed = new Promise<void>((resolveClosed) => this.server.close(() => resolveClosed()));
      for (const socket of this.sockets) socket.destroy();
      // Pushes still on the way are ended, not waited out.
      void Promise.all([closed, this.pushes.close()]).then(
        () => resolvePromise(),
        () => resolvePromise(),
      );
    });
    return this.closing;
  }

  setFaults(update: FaultsUpdate): Faults {
    return this.faults.update(update);
  }

  reset(): string[] {
    this.world = this.freshWorld();
    this.pushes.reset();
    this.accounts.clearLimits();
    return [...this.world.robots.keys()];
  }

  view(): FleetView {
    return {
      serialNumbers: () => [...this.world.robots.keys()],
      robot: (serialNumber) => {
        const robot = this.current().robots.get(serialNumber);
        return robot ? structuredClone(robot) : undefined;
      },
      status: (serialNumber) => {
        const robot = this.current().robots.get(serialNumber);
        return robot ? statusOf(robot, this.world.now()) : undefined;
      },
      commands: (serialNumber) => structuredClone([...(this.world.commands.get(serialNumber)?.values() ?? [])]),
    };
  }

  // ------------------------------------------------------------ one request

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const started = performance.now();
    const method = req.method ?? "GET";
    const [pathname = "/", queryString = ""] = (req.url ?? "/").split(/\?(.*)/s);
    const search = new URLSearchParams(queryString);
    const logLine = (outcome: string) => {
      if (this.options.logFailuresOnly && /^2\d\d(?! .*malformed)/.test(outcome)) return;
      this.log?.(`${method} ${pathname} ${outcome} ${Math.round(performance.now() - started)}ms`);
    };
    this.current();

    if (pathname.startsWith(CONTROL_PREFIX)) {
      const reply = await controlReply(req, method, pathname, search, this);
      writeJson(res, reply);
      logLine(String(reply.status));
      return;
    }

    if (pathname.startsWith(OBJECT_PREFIX)) {
      const reply = this.objects.serve(req, method, pathname, search);
      res.writeHead(reply.status, { "Content-Length": String(reply.body.length), ...reply.headers });
      res.end(method === "HEAD" ? undefined : reply.body);
      // The path only: the query's signature is a credential.
      logLine(`${reply.status} object`);
      return;
    }

    const resolved = resolve(method, pathname);
    const roll: FaultRoll = this.faults.roll();
    await this.delay(this.faults.current.latencyMs);
    if (this.closing) return;

    let reply: Reply;
    if (roll.fail) {
      reply = this.failure(resolved);
    } else {
      try {
        reply = await this.process(req, method, pathname, resolved, search);
      } catch (error) {
        if (!(error instanceof SimError)) throw error;
        reply = this.errorReply(resolved, error);
      }
    }

    if (roll.drop) {
      // The request took effect; only its answer is lost, as when a connection breaks on the way back.
      req.socket.destroy();
      logLine("dropped");
      return;
    }
    const codeNote = reply.code ? ` code ${reply.code}` : "";
    if (roll.malformed) {
      writeJson(res, reply, true);
      logLine(`${reply.status}${codeNote} malformed`);
      return;
    }
    writeJson(res, reply);
    logLine(`${reply.status}${codeNote}`);
  }

  private delay(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolvePromise) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolvePromise();
      }, ms);
      this.timers.add(timer);
    });
  }

  /** The simulated failure: HTTP 500, or INTERNAL inside the envelope on C1 and C2. */
  private failure(resolved: Resolved): Reply {
    return this.errorReply(resolved, new SimError(Code.INTERNAL, "Internal error (simulated failure)."));
  }

  private errorReply(resolved: Resolved, error: SimError): Reply {
    const { headers } = error;
    if (resolved.kind === "operation" && resolved.route.endpoint.envelope && !error.transport && ENVELOPE_CODES.has(error.code)) {
      return {
        status: 200,
        body: envelope(error.code, error.message, envelopeErrorData(resolved.route.operation, error.code)),
        headers,
        code: error.code,
      };
    }
    return { status: error.httpStatus, body: errorBody(error.code, error.message), headers, code: error.code };
  }

  private async process(
    req: http.IncomingMessage,
    method: string,
    pathname: string,
    resolved: Resolved,
    search: URLSearchParams,
  ): Promise<Reply> {
    switch (resolved.kind) {
      case "unknown":
        throw new SimError(Code.NOT_FOUND, `No route for ${method} ${pathname}.`);
      case "wrongMethod":
        throw new SimError(Code.UNIMPLEMENTED, `Method ${method} is not allowed here; use ${resolved.allowed.join(", ")}.`, {
          transport: true,
          headers: { Allow: resolved.allowed.join(", ") },
        });
      case "operation":
        return this.operation(req, resolved.route, resolved.params, search);
    }
  }

  private async operation(
    req: http.IncomingMessage,
    route: Route,
    params: Record<string, string>,
    search: URLSearchParams,
  ): Promise<Reply> {
    const { endpoint, operation } = route;
    const account = endpoint.authenticated ? this.accounts.authenticate(req) : undefined;
    if (endpoint.withoutContentType && req.headers["content-type"] !== undefined) {
      req.resume();
      throw new SimError(
        Code.INVALID_ARGUMENT,
        `${endpoint.method} ${endpoint.path} must be sent without a Content-Type header (the cloud answers this call 415 when it has one).`,
        {
          httpStatus: 415,
          transport: true,
        },
      );
    }
    let raw: unknown;
    if (endpoint.sendsBody) {
      // Read on a GET as well: the S-line batch status sends its names as a JSON body.
      raw = await this.jsonBody(req);
    } else {
      const query = readQuery(endpoint, search);
      if (query.twice) throw new SimError(Code.INVALID_ARGUMENT, `${query.twice}: given more than once`);
      raw = { ...query.fields, ...params };
      // Drain what a GET may carry, so the connection stays usable.
      req.resume();
    }
    refuseJoinedNames(operation, raw);
    const parsed = endpoint.request.safeParse(raw);
    if (!parsed.success) {
      const { message } = describeIssues(parsed.error);
      throw new SimError(Code.INVALID_ARGUMENT, message);
    }
    if (operation === "grantToken") return { status: 200, body: this.accounts.grant(parsed.data as Parsed<"grantToken">) };

    const fields = parsed.data as Record<string, unknown>;
    for (const [name, value] of Object.entries(params)) {
      if (fields[name] !== value) {
        const words = name.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`);
        throw new SimError(Code.INVALID_ARGUMENT, `${name}: must equal the ${words} in the path (${value})`);
      }
    }
    const serialNumber = endpoint.serialNumberOf?.(parsed.data);
    const robot = serialNumber === undefined ? undefined : this.world.robotFor(account!, serialNumber);
    const context: HandlerContext = {
      account: account!,
      raw,
      robot: () => {
        if (!robot) throw new Error(`${operation} names no robot`);
        return robot;
      },
      objectUrl: (key) => this.objects.presign(req, key),
    };
    const handler = HANDLERS[operation] as Handler<RobotOperationName>;
    const result = handler(this.world, parsed.data as never, context);
    return endpoint.envelope ? { status: 200, body: envelope(0, "SUCCESS", result), code: 0 } : { status: 200, body: result };
  }

  private async jsonBody(req: http.IncomingMessage): Promise<unknown> {
    if (!isJsonContentType(req.headers["content-type"])) {
      req.resume();
      throw new SimError(Code.INVALID_ARGUMENT, "Content-Type must be application/json.", { httpStatus: 415, transport: true });
    }
    const body = await readBody(req, this.maxBodyBytes);
    if (!body.ok) {
      throw new SimError(Code.INVALID_ARGUMENT, `Request body is larger than ${this.maxBodyBytes} bytes.`, {
        httpStatus: 413,
        transport: true,
        headers: { Connection: "close" },
      });
    }
    try {
      return JSON.parse(body.text) as unknown;
    } catch {
      throw new SimError(Code.INVALID_ARGUMENT, "Request body is not valid JSON.");
    }
  }
}

/** Starts the simulator; resolves once it listens. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const simulator = new Simulator(options);
  const host = options.host ?? "127.0.0.1";
  let address: AddressInfo;
  try {
    address = await simulator.listen(options.port ?? 0, host);
  } catch (error) {
    // Nothing keeps running for a simulator that never started (the push tick, its agents).
    await simulator.close();
    throw error;
  }
  // A wildcard address is not something to type into a browser: show loopback instead.
  const reachable = address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
  const urlHost = address.family === "IPv6" ? `[${reachable}]` : reachable;
  const state = simulator.view();
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    state,
    get faults() {
      return simulator.faults.current;
    },
    setFaults: (update) => simulator.setFaults(update),
    reset: () => void simulator.reset(),
    updateRobot: (serialNumber, changes) => simulator.updateRobot(serialNumber, changes),
    get pushes() {
      return simulator.pushState;
    },
    setPush: (target) => simulator.setPush(target),
    endTask: (serialNumber, taskEndStatus) => simulator.endTask(serialNumber, { taskEndStatus }),
    addTaskReport: (serialNumber, report) => simulator.addTaskReport(serialNumber, report),
    wear: (serialNumber, query = {}) => simulator.wear(serialNumber, query),
    changeWear: (serialNumber, changes) => simulator.changeWear(serialNumber, changes),
    close: () => simulator.close(),
  };
}
