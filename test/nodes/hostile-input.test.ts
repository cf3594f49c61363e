/**
 * Thousands of generated hostile values through each node: every one ends in
 * exactly one error at a Catch node, coded INVALID_INPUT, naming the field it
 * was found in, with no output, no TypeError and nothing sent.
 *
 * The values come from a small seeded generator (no dependency): BigInt,
 * Symbol, functions, Buffers, every typed array, ArrayBuffer, DataView, Date,
 * Map, Set, RegExp, class instances, null-prototype objects, cycles at various
 * depths, values nested 40+ deep, throwing getters and throwing proxies. Each
 * is put in msg.payload, somewhere inside an otherwise valid request body, in
 * every other msg property the node reads, and in a msg property a TypedInput
 * setting points at (robot-command's map from msg.place, robot-maps' mapId
 * from msg.x, ...).
 *
 * How the values reach the node: helper.getNode(id).receive(msg) is
 * Node.prototype.receive, which only sets msg._msgid and calls the input
 * handler with the very same object (Node-RED clones a message only when one
 * node sends it to several wires, and when it hands an error to a Catch node).
 * So a getter or proxy is first evaluated by the node itself. A test at the end
 * sends values built inside a function node (another realm) over a real wire.
 */
import assert from "node:assert/strict";
import robotCommand from "../../src/nodes/robot-command/robot-command";
import robotMaps from "../../src/nodes/robot-maps/robot-maps";
import robotSiteTask from "../../src/nodes/robot-site-task/robot-site-task";
import type { RecordedRequest, ScriptedReply } from "../support/recording-server";
import { RecordingServer } from "../support/recording-server";
import { collectMessages, flowWith, helper, loadFlow, outputsAndCatch, recordStatuses, waitFor, type FlowNode, coreNodes, isDirectoryRead } from "../support/node-red";
import { seeded, type Rng, pick, between } from "../support/seeded";
import { robotCommandNode, robotSiteTaskNode, robotMapsNode, TEMP_SITE_TASK_BODY, TEMP_TASK_BODY, SERIAL, MAP_ID, SITE_ID } from "../support/fixtures";

const FUNCTION_NODE = coreNodes("function");

type Msg = Record<string, unknown>;
/** Node-RED's log levels (the helper's log spy carries them, its type does not): fatal 10, error 20, warn 30. */
const LOG_WARN = 30;


// ------------------------------------------------------------ a seeded generator


/**
 * One hostile value, ready to be put somewhere: `place` puts it at holder[key]
 * (a getter is defined there rather than assigned).
 */
interface Hostile {
  /** The generator's kind, for the failure summary. */
  kind: string;
  /** What the error must say about it. */
  problem: RegExp;
  /**
   * Where the error must point: "inner" at the place it was put (or deeper),
   * "top" at the message property it arrived in (a getter or proxy threw, or
   * the property as a whole is too large), "either" for proxies (refused where
   * they are, or named by the property when a trap threw).
   */
  naming: "inner" | "top" | "either";
  place(holder: object, key: string | number): void;
}

const NOT_BINARY = /must be JSON data, not binary data/;
const NOT_A_CLASS = /must be JSON data, not an? /;
const UNREADABLE = /could not be read/;
/** Proxies: refused as such, or because a trap threw while the node read them. */
const NOT_JSON = /must be JSON data/;

function valued(kind: string, problem: RegExp, value: unknown, naming: Hostile["naming"] = "inner"): Hostile {
  return {
    kind,
    problem,
    naming,
    place: (holder, key) => {
      (holder as Record<string | number, unknown>)[key] = value;
    },
  };
}

function getter(kind: string, get: () => unknown): Hostile {
  return {
    kind,
    problem: UNREADABLE,
    naming: "top",
    place: (holder, key) => Object.defineProperty(holder, key, { get, enumerable: true, configurable: true }),
  };
}

/** What a throwing getter or trap throws: not always an Error, and sometimes hostile itself. */
function thrownValue(rng: Rng): unknown {
  return pick(rng, [
    () => new Error("getter says no"),
    () => new TypeError("Cannot read properties of undefined"),
    () => Symbol("thrown"),
    () => 12n,
    () => undefined,
    () => null,
    () => ({ toString: () => { throw new Error("and so does its toString"); } }),
    () => new Proxy({}, { get: () => { throw new Error("thrown proxy"); } }),
  ])();
}

/** Objects and arrays nested `depth` levels, `leaf` at the bottom. */
function nested(rng: Rng, depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = rng() < 0.5 ? [value] : { [`level${i}`]: value };
  return value;
}

/** A plain (or null-prototype) object or array with `hostile` somewhere inside, a few levels down. */
function wrapped(rng: Rng, hostile: Hostile): Hostile {
  return {
    ...hostile,
    place: (holder, key) => {
      const outer: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      let parent: object = outer;
      let parentKey: string | number = "held";
      for (let level = between(rng, 0, 5); level > 0; level--) {
        const container: object = pick(rng, [() => [1, "two"], () => ({ note: "fine" }), () => Object.create(null) as object])();
        (parent as Record<string | number, unknown>)[parentKey] = container;
        parent = container;
        parentKey = Array.isArray(container) ? container.length : `k${level}`;
      }
      hostile.place(parent, parentKey);
      // Half the time the outer holder is a null-prototype object with no toString at all.
      (holder as Record<string | number, unknown>)[key] = rng() < 0.5 ? outer : { ...outer };
    },
  };
}

type Kind = (rng: Rng) => Hostile;

class Point {
  x = 1;
  y = 2;
}
class Tagged {
  readonly a = 1;
  // Node-RED's cloneMessage asks every object for its tag (Object.prototype.toString).
  get [Symbol.toStringTag](): string {
    throw new Error("no tag for you");
  }
}
// A class whose prototype's constructor cannot be read.
const Faceless = function Faceless(this: { a: number }) {
  this.a = 1;
} as unknown as new () => object;
Object.defineProperty(Faceless.prototype, "constructor", {
  get() {
    throw new Error("no constructor");
  },
});

const TYPED_ARRAYS = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
  ...((globalThis as { Float16Array?: new (n: number) => ArrayBufferView }).Float16Array ? [(globalThis as unknown as { Float16Array: new (n: number) => ArrayBufferView }).Float16Array] : []),
] as Array<new (length: number) => ArrayBufferView>;

/** Values that are not JSON data; refusing them needs no getter or trap to throw. */
const DATA_KINDS: Kind[] = [
  (rng) => valued("BigInt", /not a BigInt/, pick(rng, [0n, -1n, 10n, 2n ** 64n, BigInt(Number.MAX_SAFE_INTEGER) + 2n])),
  (rng) => valued("Symbol", /not a Symbol/, pick(rng, [Symbol("x"), Symbol.iterator, Symbol.for("robot"), Symbol()])),
  (rng) =>
    valued(
      "function",
      /not a function/,
      pick(rng, [
        () => 1,
        async function later() {},
        function* generator() {},
        class Robot {},
        Math.max.bind(null, 1),
        Object.assign(() => 0, { serialNumber: SERIAL }),
      ] as unknown[]),
    ),
  (rng) => valued("Buffer", NOT_BINARY, pick(rng, [Buffer.from("GS-S-000101"), Buffer.alloc(0), Buffer.from([0, 1, 2])])),
  (rng) => valued("typed array", NOT_BINARY, new (pick(rng, TYPED_ARRAYS))(between(rng, 0, 4))),
  (rng) => valued("ArrayBuffer or DataView", NOT_BINARY, rng() < 0.5 ? new ArrayBuffer(8) : new DataView(new ArrayBuffer(4))),
  (rng) => valued("Date", /not a Date/, rng() < 0.8 ? new Date(0) : new Date(NaN)),
  (rng) => valued("Map or Set", /not a (Map|Set)/, rng() < 0.5 ? new Map([["serialNumber", SERIAL]]) : new Set([SERIAL])),
  () => valued("RegExp", /not a RegExp/, /GS-S-\d+/g),
  (rng) =>
    valued(
      "class instance",
      NOT_A_CLASS,
      pick(rng, [
        () => new Point(),
        () => new Error("an error as data"),
        () => Promise.resolve(SERIAL),
        () => new String(SERIAL),
        () => new Number(1),
        () => new Boolean(false),
        () => new URL("http://127.0.0.1/"),
        () => new WeakMap(),
        () => new SharedArrayBuffer(4),
        () => Object.create({ inherited: true }) as object,
      ])(),
    ),
  (rng) => {
    // A cycle closes `depth` levels below where it starts, through objects, arrays and null-prototype objects.
    const depth = between(rng, 0, 7);
    const top: Record<string, unknown> = rng() < 0.3 ? (Object.create(null) as Record<string, unknown>) : {};
    let current: Record<string | number, unknown> | unknown[] = top;
    for (let i = 0; i < depth; i++) {
      const next: Record<string, unknown> | unknown[] = rng() < 0.5 ? [] : {};
      if (Array.isArray(current)) current.push(next);
      else current[`c${i}`] = next;
      current = next;
    }
    if (Array.isArray(current)) current.push(rng() < 0.5 ? top : current);
    else current.back = rng() < 0.5 ? top : current;
    return valued("cycle", /refers to itself/, top);
  },
  (rng) => {
    const cyclic: unknown[] = [1];
    cyclic.push(cyclic);
    return valued("cyclic array", /refers to itself/, rng() < 0.5 ? cyclic : [[cyclic]]);
  },
  (rng) => valued("nested 40+ deep", /nested deeper than 32 levels/, nested(rng, between(rng, 40, 90), "bottom")),
  (rng) => {
    // A null-prototype object with no toString, holding one of the kinds above.
    const inner = pick(rng, DATA_KINDS.slice(0, 10))(rng);
    const holder = Object.create(null) as Record<string, unknown>;
    inner.place(holder, "held");
    return { ...valued("null-prototype object holding a hostile value", inner.problem, holder), naming: inner.naming };
  },
  (rng) => {
    // A proxy that throws nothing but hands out a BigInt: what it returns is checked like any value.
    const proxy = new Proxy({ serialNumber: SERIAL }, { get: () => 7n });
    return valued("proxy returning a BigInt", NOT_JSON, rng() < 0.5 ? proxy : [proxy]);
  },
];

/** Values whose reading throws: getters and proxy traps (and tags Node-RED's cloning asks for). */
const THROWING_KINDS: Kind[] = [
  (rng) => {
    const thrown = thrownValue(rng);
    return getter("throwing getter", () => {
      throw thrown;
    });
  },
  (rng) => {
    const array: unknown[] = [SERIAL, 1];
    const thrown = thrownValue(rng);
    Object.defineProperty(array, 1, {
      get() {
        throw thrown;
      },
      enumerable: true,
    });
    return valued("array with a throwing index getter", UNREADABLE, array, "top");
  },
  (rng) => {
    const holder = Object.create(null) as Record<string, unknown>;
    const thrown = thrownValue(rng);
    Object.defineProperty(holder, "serialNumber", {
      get() {
        throw thrown;
      },
      enumerable: true,
    });
    return valued("null-prototype object with a throwing getter", UNREADABLE, holder, "top");
  },
  (rng) => {
    const trap = pick(rng, ["get", "ownKeys", "getOwnPropertyDescriptor", "getPrototypeOf"] as const);
    const thrown = thrownValue(rng);
    // An array is read by index, never by its keys: its ownKeys and getOwnPropertyDescriptor traps are only tried on objects.
    const arrayTarget = (trap === "get" || trap === "getPrototypeOf") && rng() < 0.4;
    const target: object = arrayTarget ? [SERIAL, MAP_ID] : pick(rng, [{ serialNumber: SERIAL, mapId: MAP_ID }, { a: { b: 1 } }]);
    const proxy = new Proxy(target, {
      [trap]: () => {
        throw thrown;
      },
    });
    return valued(`proxy whose ${trap} trap throws`, NOT_JSON, proxy, "either");
  },
  (rng) => {
    const thrown = thrownValue(rng);
    const fail = () => {
      throw thrown;
    };
    const traps = ["get", "has", "ownKeys", "getOwnPropertyDescriptor", "getPrototypeOf", "set", "defineProperty", "deleteProperty"];
    const proxy = new Proxy(rng() < 0.5 ? {} : [], Object.fromEntries(traps.map((name) => [name, fail])));
    return valued("proxy whose every trap throws", NOT_JSON, proxy, "either");
  },
  (rng) => {
    const { proxy, revoke } = Proxy.revocable(rng() < 0.5 ? { serialNumber: SERIAL } : [SERIAL], {});
    revoke();
    return valued("revoked proxy", NOT_JSON, proxy, "either");
  },
  () => valued("class whose constructor cannot be read", UNREADABLE, new Faceless(), "top"),
  // Refused as a class instance by the node, but Node-RED's own cloning of the message throws on it.
  () => valued("class whose Symbol.toStringTag throws", /must be JSON data, not a Tagged/, new Tagged()),
];

/**
 * Proxies whose traps throw only where a copy of plain data never looks: get
 * on an empty target (Node-RED's own cloning and Object.prototype.toString
 * still ask it for Symbol.toStringTag), and has.
 */
const QUIET_PROXY_KINDS: Kind[] = [
  (rng) => {
    const proxy = new Proxy(rng() < 0.5 ? {} : [], {
      get: () => {
        throw new Error("get");
      },
    });
    return valued("proxy over an empty target whose get trap throws", NOT_JSON, proxy, "either");
  },
  (rng) => {
    const proxy = new Proxy(rng() < 0.5 ? { serialNumber: SERIAL, mapId: MAP_ID } : { a: 1 }, {
      has: () => {
        throw new Error("has");
      },
    });
    return valued("proxy whose has trap throws", NOT_JSON, proxy, "either");
  },
];

// ------------------------------------------------------------ where the values go

/** The robot nodes under test, all on one config, each wired to "out"; one Catch node for all three. */
const FLOW_NODES: FlowNode[] = [
  robotCommandNode("cmd", { map: "place", mapType: "msg" }),
  robotSiteTaskNode("site", { serialNumber: "robot", serialNumberType: "msg", mapId: "x", mapIdType: "msg" }),
  robotMapsNode("maps", { serialNumber: "robot", serialNumberType: "msg", mapId: "x", mapIdType: "msg" }),
  ...outputsAndCatch("cmd", "site", "maps"),
];

/** What the cloud answers to each valid request. */
function answerFor(request: RecordedRequest): ScriptedReply {
  const body = (request.body ?? {}) as Record<string, unknown>;
  if (request.path.endsWith("/commands")) {
    return { body: { name: `robots/${String(body.serialNumber)}/commands/1`, state: "WAITING", serialNumber: body.serialNumber } };
  }
  if (request.path.endsWith("/status")) return { body: { serialNumber: SERIAL, taskState: "IDLE", online: true } };
  if (request.path.endsWith("/getSiteInfo")) return { body: { siteId: SITE_ID, siteName: "Headquarters" } };
  if (request.path === "/openapi/v2/robot/tasks/temp/withSite") return { body: { taskId: "task-1" } };
  if (request.path === "/v2alpha1/robotCommand/tempTask:send") return { body: { productId: SERIAL, cmdStatus: 5 } };
  if (request.path === "/openapi/v1/map/robotMap/list") return { body: { code: 0, msg: "SUCCESS", data: [{ mapId: MAP_ID, mapName: "Floor 1" }] } };
  if (request.path === "/openapi/v1/map/subareas/get") {
    return { body: { code: 0, msg: "SUCCESS", data: { mapId: MAP_ID, subareas: { partitions: [{ id: 1, name: "Lobby" }] } } } };
  }
  return { status: 404, body: { code: 5, message: "no such path" } };
}

/** One node and operation under test, with valid messages to hide hostile values in. */
interface Target {
  name: string;
  node: "cmd" | "site" | "maps";
  /** msg properties every message carries (the operation, and what the TypedInput settings read). */
  base: Msg;
  /** Valid request bodies as msg.payload; hostile values are put somewhere inside them. */
  bodies: unknown[];
  /** msg properties the node reads besides payload. */
  reads: string[];
  /** msg properties read through a TypedInput setting ("msg" type), and the name the error gives them. */
  typed: Array<{ property: string; field: string }>;
}


const TARGETS: Target[] = [
  {
    name: "robot-command",
    node: "cmd",
    base: { place: "Floor 1" },
    bodies: [
      {
        serialNumber: SERIAL,
        remoteTaskCommandType: "START_TASK",
        commandParameter: { startTaskParameter: { cleaningMode: "__middle_cleaning", task: { name: "Lobby", map: "Floor 1", loop: false, loopCount: 1 } } },
      },
      { serialNumber: SERIAL, remoteNavigationCommandType: "CROSS_NAVIGATE", commandParameter: { startNavigationParameter: { map: "Floor 1", position: "charging" } } },
      { command: "START_TASK", taskName: "From payload", loopCount: 2 },
      { command: "remote_control_move", direction: "left", serialNumber: SERIAL },
    ],
    reads: ["serialNumber", "command", "burst"],
    typed: [{ property: "place", field: "map (msg.place)" }],
  },
  ...(["status", "siteInfo", "createTempTask", "sendTempTask"] as const).map(
    (operation): Target => ({
      name: `robot-site-task ${operation}`,
      node: "site",
      base: { operation, robot: SERIAL, x: MAP_ID },
      bodies:
        operation === "createTempTask"
          ? [TEMP_SITE_TASK_BODY]
          : operation === "sendTempTask"
            ? [TEMP_TASK_BODY]
            : [{ serialNumber: SERIAL }, { serialNumber: SERIAL, reading: { level: 3, unit: "cm" } }],
      reads: ["serialNumber", "operation"],
      typed:
        operation === "status" || operation === "siteInfo"
          ? [{ property: "robot", field: "serialNumber" }]
          : [
              { property: "x", field: "mapId" },
              { property: "robot", field: "serialNumber" },
            ],
    }),
  ),
  ...(["listMaps", "getSubareas"] as const).map(
    (operation): Target => ({
      name: `robot-maps ${operation}`,
      node: "maps",
      base: { operation, robot: SERIAL, x: MAP_ID },
      bodies: [{ robotSn: SERIAL }, { mapId: MAP_ID, mapName: "Floor 1", mapVersion: "3", robotSn: SERIAL, extra: [1, { a: null }] }],
      reads: ["serialNumber", "operation"],
      typed:
        operation === "getSubareas"
          ? [
              { property: "x", field: "mapId" },
              { property: "robot", field: "serialNumber" },
            ]
          : [{ property: "robot", field: "serialNumber" }],
    }),
  ),
];

/** Payloads that are not request bodies: the node's settings (and TypedInputs) make the request. */
const TRIGGERS: unknown[] = ["go", 1, null, true, { reading: 3 }];

/** A place for a hostile value in a message. */
type Placement =
  | { at: "payload" }
  | { at: "inside a valid body" }
  | { at: "msg property"; property: string }
  | { at: "TypedInput"; property: string; field: string };

function placementsOf(target: Target): Placement[] {
  return [
    { at: "payload" },
    { at: "inside a valid body" },
    ...target.reads.map((property): Placement => ({ at: "msg property", property })),
    ...target.typed.map((typed): Placement => ({ at: "TypedInput", ...typed })),
  ];
}

function describePlacement(placement: Placement): string {
  return placement.at === "msg property" || placement.at === "TypedInput" ? `${placement.at} ${placement.property}` : placement.at;
}

/** Every container in a JSON value and the path to it, the way the node names paths ("a.b[0].c"). */
function containersOf(value: unknown, path: string, found: Array<{ container: object; path: string }> = []) {
  if (typeof value !== "object" || value === null) return found;
  found.push({ container: value, path });
  if (Array.isArray(value)) value.forEach((item, i) => containersOf(item, `${path}[${i}]`, found));
  else for (const [key, item] of Object.entries(value)) containersOf(item, `${path}.${key}`, found);
  return found;
}

interface Case {
  id: string;
  node: Target["node"];
  msg: Msg;
  kind: string;
  where: string;
  /** The message the Catch node must see (msg.error.message). */
  expected: RegExp;
}

/** A rejection's reason as text, even when it is hostile itself. */
function describeReason(reason: unknown): string {
  try {
    return reason instanceof Error ? `${reason.name}: ${reason.message}` : typeof reason === "symbol" ? reason.toString() : `a thrown ${typeof reason}`;
  } catch {
    return "a reason that cannot be read";
  }
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Builds one message with `hostile` at `placement`, and what its error must say. */
function buildCase(rng: Rng, target: Target, placement: Placement, hostile: Hostile, id: string): Case {
  const msg: Msg = { ...structuredClone(target.base), payload: pick(rng, TRIGGERS), hostileId: id, topic: "keep-me" };
  let top: string;
  let at: string;
  switch (placement.at) {
    case "payload":
      top = at = "payload";
      hostile.place(msg, "payload");
      break;
    case "inside a valid body": {
      const body = structuredClone(pick(rng, target.bodies));
      msg.payload = body;
      const { container, path } = pick(rng, containersOf(body, "payload"));
      // Replace what is there, or add a key (or an element) of its own.
      const keys: Array<string | number> = Array.isArray(container) ? container.map((_, i) => i) : Object.keys(container);
      const key = keys.length > 0 && rng() < 0.7 ? pick(rng, keys) : Array.isArray(container) ? container.length : `extra${between(rng, 0, 99)}`;
      hostile.place(container, key);
      top = "payload";
      at = typeof key === "number" ? `${path}[${key}]` : `${path}.${key}`;
      break;
    }
    case "msg property":
      top = at = `msg.${placement.property}`;
      if (rng() < 0.2) {
        // A wrapper as the property, the value inside it.
        const holder: Record<string, unknown> = {};
        hostile.place(holder, "inner");
        msg[placement.property] = holder;
        at = `${top}.inner`;
      } else {
        hostile.place(msg, placement.property);
      }
      break;
    case "TypedInput":
      top = at = placement.field;
      hostile.place(msg, placement.property);
      // The setting is only read when neither the payload nor msg.serialNumber names the robot.
      delete msg.serialNumber;
      break;
  }
  // The error names the field where the value was found (or, for inner values, that place or deeper).
  const field =
    hostile.naming === "top" ? escape(top) : hostile.naming === "inner" ? `${escape(at)}(?:[.[][^:]*)?` : `(?:${escape(top)}|${escape(at)}(?:[.[][^:]*)?)`;
  return {
    id,
    node: target.node,
    msg,
    kind: hostile.kind,
    where: describePlacement(placement),
    expected: new RegExp(`^RobotApiError: ${field}: (?:.*)?(?:${hostile.problem.source})`),
  };
}

/** `count` cases for a target: every kind in every placement, in turn, wrapped at random. */
function generateCases(target: Target, kinds: Kind[], count: number, seed: number): Case[] {
  const rng = seeded(seed);
  const placements = placementsOf(target);
  const cases: Case[] = [];
  for (let i = 0; i < count; i++) {
    const kind = kinds[i % kinds.length]!;
    const placement = placements[Math.floor(i / kinds.length) % placements.length]!;
    let hostile = kind(rng);
    if (hostile.naming === "inner" && rng() < 0.3) hostile = wrapped(rng, hostile);
    cases.push(buildCase(rng, target, placement, hostile, `${target.node}-${seed}-${i}`));
  }
  return cases;
}

// ------------------------------------------------------------ the tests

describe("hostile input through every robot node", function () {
  this.timeout(30_000);
  let server: RecordingServer;
  let outputs: Msg[];
  let caught: Msg[];
  let statuses: Record<Target["node"], Array<{ fill?: string; shape?: string; text?: string }>>;
  let logStart = 0;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  /**
   * Mocha's own listener reads properties of a rejection's reason; a hostile
   * reason (a proxy a getter threw) would make it throw in turn. While this
   * file runs, rejections are only recorded here and asserted on by each test.
   */
  let mochaListeners: NodeJS.UnhandledRejectionListener[] = [];

  /** What the nodes under test sent: not the robot directory's reads of the robot list, which a status naming a robot it does not know brings. */
  const nodeRequests = () => server.requests.filter((request) => !isDirectoryRead(request));

  before(async () => {
    server = await new RecordingServer().start();
    await new Promise<void>((resolve) => helper.startServer(resolve));
    await loadFlow([robotCommand, robotSiteTask, robotMaps], flowWith(server.url, FLOW_NODES, { rateLimit: 0, connections: 4 }));
    outputs = collectMessages("out");
    caught = collectMessages("caught");
    statuses = { cmd: recordStatuses("cmd"), site: recordStatuses("site"), maps: recordStatuses("maps") };
    mochaListeners = process.listeners("unhandledRejection");
    process.removeAllListeners("unhandledRejection");
    process.on("unhandledRejection", onUnhandled);
  });
  after(async () => {
    process.off("unhandledRejection", onUnhandled);
    for (const listener of mochaListeners) process.on("unhandledRejection", listener);
    await helper.unload();
    await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
    await server.stop();
  });
  beforeEach(() => {
    server.reset();
    server.respondWith(answerFor);
    outputs.length = 0;
    caught.length = 0;
    unhandled.length = 0;
    logStart = helper.log().callCount;
  });

  /** Log entries since the test started, as Node-RED wrote them. */
  function logEntries(): Array<{ level: number; msg?: unknown }> {
    return helper
      .log()
      .getCalls()
      .slice(logStart)
      .map((call) => call.args[0] as { level: number; msg?: unknown });
  }

  /**
   * Waits until `expected` messages were caught, or until nothing more arrives for 5 s: long enough that a
   * machine busy elsewhere for a moment does not end the wait early (it only delays a failing run).
   */
  async function settle(expected: number): Promise<void> {
    let seen = -1;
    let quietSince = Date.now();
    while (caught.length + outputs.length < expected || Date.now() - quietSince < 50) {
      const now = caught.length + outputs.length;
      if (now !== seen) {
        seen = now;
        quietSince = Date.now();
      } else if (Date.now() - quietSince > 5000) {
        return;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Sends every case, then checks each ended in one INVALID_INPUT error naming its field and nothing else happened. */
  async function expectAllRefused(cases: Case[]): Promise<void> {
    for (const { node, msg } of cases) helper.getNode(node).receive(msg);
    await settle(cases.length);

    const problems = new Map<string, { count: number; example: string }>();
    const note = (c: Case, problem: string) => {
      const key = `${c.kind} @ ${c.where}: ${problem.replace(/:.*$/s, "")}`;
      const entry = problems.get(key) ?? { count: 0, example: `${c.id}: ${problem}` };
      entry.count++;
      problems.set(key, entry);
    };
    const caughtById = new Map<string, Msg[]>();
    for (const message of caught) {
      const id = String(message.hostileId);
      caughtById.set(id, [...(caughtById.get(id) ?? []), message]);
    }
    const outputIds = new Set(outputs.map((message) => String(message.hostileId)));
    for (const c of cases) {
      const errors = caughtById.get(c.id) ?? [];
      if (outputIds.has(c.id)) note(c, "an output was sent");
      if (errors.length !== 1) {
        note(c, errors.length === 0 ? "no error reached the Catch node" : `${errors.length} errors reached the Catch node`);
        continue;
      }
      const error = errors[0]!.error as { message: string; code?: string; stack?: string; source: { id: string } };
      if (error.code !== "INVALID_INPUT") note(c, `code ${String(error.code)}: ${error.message}`);
      else if (!c.expected.test(error.message)) note(c, `unexpected message: ${error.message} (wanted ${String(c.expected)})`);
      if (/TypeError/.test(error.message) || /^TypeError/.test(error.stack ?? "")) note(c, `a TypeError: ${error.message}`);
      if (error.source.id !== c.node) note(c, `reported by ${error.source.id}`);
      if (errors[0]!.topic !== "keep-me") note(c, "the message's topic was lost");
    }

    const summary = [...problems].map(([key, { count, example }]) => `${count}x ${key}\n      e.g. ${example}`);
    const rejections = unhandled.length ? `\n  and ${unhandled.length} unhandled rejections, e.g. ${[...new Set(unhandled.map(describeReason))].slice(0, 5).join("; ")}` : "";
    assert.equal(summary.length, 0, `${summary.length} kinds of failure among ${cases.length} messages:\n    ${summary.join("\n    ")}${rejections}`);
    assert.equal(caught.length, cases.length, "exactly one error per message");
    assert.equal(outputs.length, 0, "no output");
    assert.equal(nodeRequests().length, 0, "nothing was sent");
    for (const node of new Set(cases.map((c) => c.node))) {
      assert.deepEqual(statuses[node].at(-1), { fill: "red", shape: "ring", text: "INVALID_INPUT" }, `the status under ${node}`);
    }
    assert.deepEqual(unhandled.map(describeReason), [], "no unhandled rejection");
    const errorsLogged = logEntries().filter((entry) => entry.level <= LOG_WARN);
    assert.deepEqual(errorsLogged, [], "nothing logged as an error or warning (every error was caught)");
  }

  it("answers the valid messages the hostile ones are built from", async () => {
    let sent = 0;
    for (const target of TARGETS) {
      for (const payload of [...target.bodies, ...TRIGGERS]) {
        helper.getNode(target.node).receive({ ...structuredClone(target.base), payload: structuredClone(payload) });
        sent++;
      }
    }
    await waitFor(() => outputs.length + caught.length >= sent, 5000, "every answer");
    assert.deepEqual(
      caught.map((m) => (m.error as { message: string }).message),
      [],
    );
    assert.equal(outputs.length, sent);
    assert.equal(nodeRequests().length, sent);
  });

  TARGETS.forEach((target, index) => {
    describe(target.name, () => {
      it("refuses 300 generated values that are not JSON data, wherever they are put", async () => {
        await expectAllRefused(generateCases(target, DATA_KINDS, 300, 1000 + index));
      });

      it("refuses 130 generated values that throw when read (getters, proxies), wherever they are put", async () => {
        await expectAllRefused(generateCases(target, THROWING_KINDS, 130, 2000 + index));
      });
    });
  });

  it("refuses proxies whose traps throw where a copy of plain data never looks (get on an empty target, has)", async () => {
    const cases = TARGETS.flatMap((target, index) => generateCases(target, QUIET_PROXY_KINDS, 12, 3000 + index));
    await expectAllRefused(cases);
  });

  it("refuses a property holding more than 100,000 values, naming the property", async () => {
    const big = new Array<number>(100_001).fill(0);
    const cases: Case[] = [
      { id: "big-1", node: "cmd", msg: { payload: { command: "START_TASK", taskName: big }, place: "Floor 1" }, kind: "100,001 values", where: "payload", expected: /^RobotApiError: payload: holds more than 100000 values/ },
      { id: "big-2", node: "site", msg: { payload: 1, operation: "status", serialNumber: [big] }, kind: "100,001 values", where: "msg.serialNumber", expected: /^RobotApiError: msg\.serialNumber: holds more than 100000 values/ },
      { id: "big-3", node: "maps", msg: { payload: 1, operation: "getSubareas", robot: SERIAL, x: { big } }, kind: "100,001 values", where: "TypedInput x", expected: /^RobotApiError: mapId: holds more than 100000 values/ },
    ];
    for (const c of cases) Object.assign(c.msg, { hostileId: c.id, topic: "keep-me" });
    await expectAllRefused(cases);
  });

  it("still reports an API error when a property the node does not read throws when read", async () => {
    server.respondWith(() => ({ status: 500, body: { code: 13, message: "robot cloud down" } }));
    const msg: Msg = { payload: 1, operation: "listMaps", robot: SERIAL, hostileId: "unread" };
    // Like an object literal's getter: enumerable and configurable.
    Object.defineProperty(msg, "notReadByTheNode", {
      get() {
        throw new Error("not mine");
      },
      enumerable: true,
      configurable: true,
    });
    helper.getNode("maps").receive(msg);
    await settle(1);
    assert.equal(nodeRequests().length, 1, "the message itself was fine");
    assert.equal(caught.length, 1, "the cloud's error reached the Catch node");
    assert.equal((caught[0]!.error as { code: string }).code, "INTERNAL");
    assert.deepEqual(unhandled.map(describeReason), []);
  });

  it("refuses a request body whose command type is an object (null-prototype, an own toString that is no function, ...), naming the field", async () => {
    const commandTypes: Array<[string, () => unknown]> = [
      ["a null-prototype object", () => Object.create(null) as object],
      ["an object whose toString is a number", () => ({ toString: 5 })],
      ["an object whose valueOf and toString are objects", () => ({ valueOf: {}, toString: {} })],
      ["a plain object", () => ({ kind: "START_TASK" })],
      ["an array", () => ["START_TASK"]],
    ];
    for (const [label, make] of commandTypes) {
      caught.length = 0;
      helper.getNode("cmd").receive({ payload: { serialNumber: SERIAL, remoteTaskCommandType: make() }, topic: label });
      await settle(1);
      assert.equal(caught.length, 1, `${label}: one error`);
      const error = caught[0]!.error as { code: string; message: string };
      assert.equal(error.code, "INVALID_INPUT", `${label}: ${error.message}`);
      assert.match(error.message, /payload\.remoteTaskCommandType/, label);
    }
    assert.equal(outputs.length, 0);
    assert.equal(nodeRequests().length, 0, "nothing was sent");
    assert.deepEqual(unhandled.map(describeReason), []);
  });

  describe("valid-looking edge values still work", () => {
    const EDGES: Array<[string, string, () => Msg]> = [
      ["a payload that is a plain number", "maps", () => ({ payload: 42, operation: "listMaps", robot: SERIAL })],
      ["a payload that is a string", "site", () => ({ payload: "tick", operation: "status", robot: SERIAL })],
      ["a payload that is null", "cmd", () => ({ payload: null, place: "Floor 1" })],
      ["a payload that is undefined", "cmd", () => ({ place: "Floor 1" })],
      ["a payload that is an empty array", "maps", () => ({ payload: [], operation: "getSubareas", robot: SERIAL, x: MAP_ID })],
      [
        'a JSON.parse\'d payload with a "__proto__" key',
        "maps",
        () => ({ payload: JSON.parse(`{"__proto__": {"robotSn": "NOT-READ"}, "robotSn": "${SERIAL}"}`) as unknown, operation: "listMaps" }),
      ],
      [
        'a sensor reading with a "__proto__" key naming another command and robot',
        "cmd",
        () => ({ payload: JSON.parse('{"__proto__": {"command": "STOP_TASK", "serialNumber": "EVIL-1"}, "level": 3}') as unknown, place: "Floor 1" }),
      ],
      [
        "a null-prototype payload",
        "site",
        () => ({ payload: Object.assign(Object.create(null) as object, { serialNumber: SERIAL }), operation: "siteInfo" }),
      ],
      ["the same object twice (shared, not a cycle)", "maps", () => {
        const shared = { kept: [1, 2] };
        return { payload: { robotSn: SERIAL, a: shared, b: shared, list: [shared, shared] }, operation: "listMaps" };
      }],
      ["a payload 20 levels deep", "maps", () => ({ payload: { robotSn: SERIAL, deep: nested(seeded(7), 20, "x") }, operation: "listMaps" })],
      ["numbers that JSON writes as null (NaN, Infinity) beside the request", "maps", () => ({ payload: { robotSn: SERIAL, extra: [NaN, Infinity, -0] }, operation: "listMaps" })],
      ["an object with a non-enumerable getter that throws", "maps", () => {
        const payload = { robotSn: SERIAL };
        Object.defineProperty(payload, "hidden", {
          get() {
            throw new Error("hidden");
          },
          enumerable: false,
        });
        return { payload, operation: "listMaps" };
      }],
    ];
    for (const [label, node, make] of EDGES) {
      it(`${label}`, async () => {
        helper.getNode(node).receive({ ...make(), topic: "edge" });
        await settle(1);
        assert.deepEqual(
          caught.map((m) => (m.error as { message: string }).message),
          [],
        );
        assert.equal(outputs.length, 1);
        assert.equal(nodeRequests().length, 1);
        assert.deepEqual(unhandled.map(describeReason), []);
      });
    }

    it('sends the node\'s own command for a payload whose "__proto__" key names another, and pollutes nothing', async () => {
      helper.getNode("cmd").receive({ payload: JSON.parse('{"__proto__": {"command": "STOP_TASK", "serialNumber": "EVIL-1"}}') as unknown, place: "Floor 1" });
      await settle(1);
      assert.equal(outputs.length, 1);
      const body = nodeRequests()[0]!.body as Record<string, unknown>;
      assert.equal(body.remoteTaskCommandType, "START_TASK");
      assert.equal(body.serialNumber, SERIAL);
      assert.equal(({} as Record<string, unknown>).command, undefined, "Object.prototype untouched");
    });
  });

  describe("values built in a function node (another realm), over a real wire", () => {
    // The function node builds the value named by msg.kind in its own sandbox and sends it on to robot-maps.
    const BUILD = `
      const kinds = {
        plain: () => ({ robotSn: "${SERIAL}" }),
        bigint: () => ({ robotSn: "${SERIAL}", n: 10n }),
        map: () => new Map([["robotSn", "${SERIAL}"]]),
        typed: () => new Float64Array(2),
        arrayBuffer: () => new ArrayBuffer(2),
        buffer: () => Buffer.from("x"),
        date: () => new Date(0),
        cycle: () => { const a = { robotSn: "${SERIAL}" }; a.self = a; return a; },
        klass: () => new (class Sensor { constructor() { this.level = 3; } })(),
        deep: () => { let v = 1; for (let i = 0; i < 45; i++) v = { v }; return v; },
        symbol: () => Symbol("s"),
        fn: () => () => 1,
        getter: () => ({ get robotSn() { throw new Error("no"); } }),
        proxy: () => new Proxy({ robotSn: "x" }, { get() { throw new Error("no"); } }),
      };
      msg.payload = kinds[msg.kind]();
      return msg;`;
    const NOT_JSON: Record<string, RegExp> = {
      bigint: /^RobotApiError: payload\.n: must be JSON data, not a BigInt/,
      map: /^RobotApiError: payload: must be JSON data, not a Map/,
      typed: /^RobotApiError: payload: must be JSON data, not binary data/,
      arrayBuffer: /^RobotApiError: payload: must be JSON data, not /,
      buffer: /^RobotApiError: payload: must be JSON data, not binary data/,
      date: /^RobotApiError: payload: must be JSON data, not a Date/,
      cycle: /^RobotApiError: payload\.self: must be JSON data, but refers to itself/,
      klass: /^RobotApiError: payload: must be JSON data, not a Sensor/,
      deep: /^RobotApiError: payload(\.v)+: is nested deeper than 32 levels/,
      symbol: /^RobotApiError: payload: must be JSON data, not a Symbol/,
      fn: /^RobotApiError: payload: must be JSON data, not a function/,
    };
    const THROWING: Record<string, RegExp> = {
      getter: /^RobotApiError: payload: must be JSON data, but could not be read/,
      proxy: /^RobotApiError: payload: must be JSON data/,
    };

    before(async () => {
      // The function node joins the file's flow, wired to robot-maps.
      await helper.unload();
      await loadFlow(
        [robotCommand, robotSiteTask, robotMaps, ...FUNCTION_NODE],
        flowWith(server.url, [...FLOW_NODES, { id: "build", type: "function", func: BUILD, outputs: 1, wires: [["maps"]] }], { rateLimit: 0, connections: 4 }),
      );
      outputs = collectMessages("out");
      caught = collectMessages("caught");
    });

    /** Sends one message per kind through the function node; what reached the Catch node and the output, per kind. */
    async function outcomes(kinds: string[]): Promise<Record<string, { errors: string[]; sent: number }>> {
      for (const kind of kinds) helper.getNode("build").receive({ kind, operation: "listMaps", robot: SERIAL, topic: kind });
      await settle(kinds.length);
      return Object.fromEntries(
        kinds.map((kind) => [
          kind,
          {
            errors: caught.filter((m) => m.topic === kind).map((m) => (m.error as { message: string }).message),
            sent: outputs.filter((m) => m.topic === kind).length,
          },
        ]),
      );
    }

    function assertRefused(seen: Record<string, { errors: string[]; sent: number }>, expected: Record<string, RegExp>) {
      for (const [kind, pattern] of Object.entries(expected)) {
        const { errors, sent } = seen[kind]!;
        assert.equal(sent, 0, `${kind}: no output`);
        assert.equal(errors.length, 1, `${kind}: one error at the Catch node, got ${JSON.stringify(errors)}`);
        assert.match(errors[0]!, pattern, kind);
      }
      assert.equal(nodeRequests().length, 0, "nothing was sent");
      assert.deepEqual(unhandled.map(describeReason), []);
    }

    it("accepts a plain object built in the sandbox", async () => {
      const seen = await outcomes(["plain"]);
      assert.deepEqual(seen.plain, { errors: [], sent: 1 });
      assert.deepEqual(nodeRequests()[0]!.body, { robotSn: SERIAL });
    });

    it("refuses the sandbox's BigInt, Map, typed array, ArrayBuffer, Buffer, Date, cycle, class, deep nesting, Symbol and function", async () => {
      assertRefused(await outcomes(Object.keys(NOT_JSON)), NOT_JSON);
    });

    it("refuses the sandbox's throwing getter and throwing proxy", async () => {
      assertRefused(await outcomes(Object.keys(THROWING)), THROWING);
    });
  });
});
