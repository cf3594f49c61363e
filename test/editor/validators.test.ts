/**
 * Every validated property of every node type, judged the way the editor
 * judges a node (RED.editor.validateNode in headless Chromium, so Node-RED's
 * own reading of a validator's answer applies), against the runtime's verdict
 * on the same value (its own check functions and tables). A value the runtime
 * refuses marks the node invalid with a reason; a value it accepts does not.
 * The cases are derived from the runtime's tables and bounds, and the test
 * fails when a validated property has no refused or no accepted case.
 */
import assert from "node:assert/strict";
import {
  ACCOUNT_SETTINGS,
  ACCOUNT_SETTING_NAMES,
  accountSettingProblem,
  readNumberSetting,
  SERIAL_NUMBER_PATTERN,
} from "../../src/api/settings/input-rules";
import { COMMAND_TYPES } from "../../src/api/cloud/commands";
import { normaliseBaseUrl, prepareCall } from "../../src/api/http/prepare";
import { confirmTimeoutMs } from "../../src/nodes/shared/confirm";
import { editorTables } from "../../src/nodes/robot-config/editor-tables";
import { chooseSetting } from "../../src/nodes/shared/settings";
import { readRedisSettings } from "../../src/nodes/robot-config/robot-config";
import { serialNumberList } from "../../src/nodes/shared/settings";
import { FIELD_PATHS, buildCommandRequest, fieldsOf, type ParameterField } from "../../src/api/cloud/command-bodies";
import { MIN_LEVELS, eventsPathOf, minLevelOf } from "../../src/nodes/robot-events/table";
import { REPORTS_LIMITS } from "../../src/nodes/robot-reports/table";
import { UPKEEP_LIMITS } from "../../src/nodes/robot-upkeep/table";
import { WATCH_LIMITS } from "../../src/nodes/robot-status/table";
import { dayFormatter } from "../../src/api/reports/kpi";
import { useEditor, type FlowNode } from "../support/editor";

// Node-RED's own reading of a msg property's path, as the runtime applies it to a TypedInput's value.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeRedUtil = (require("@node-red/util") as { util: { normalisePropertyExpression(path: string): unknown } }).util;

interface EditorNode extends Record<string, unknown> {
  valid?: boolean;
  validationErrors?: unknown[];
}
declare const RED: {
  nodes: { getType(type: string): { defaults: Record<string, { value?: unknown; validate?: unknown }> } };
  editor: { validateNode(node: object): void };
};

const TYPES = [
  "robot-config",
  "robot-command",
  "robot-site-task",
  "robot-maps",
  "robot-status",
  "robot-events",
  "robot-reports",
  "robot-upkeep",
] as const;
type NodeType = (typeof TYPES)[number];
/** The nodes that talk to one robot through a robot-config: a serial number and a config to use. */
const ROBOT_TYPES = [
  "robot-command",
  "robot-site-task",
  "robot-maps",
  "robot-status",
  "robot-reports",
  "robot-upkeep",
] as const satisfies readonly NodeType[];

/** One value of one property, with what else the node holds, and whether the runtime accepts it. */
interface Case {
  type: NodeType;
  property: string;
  value: unknown;
  context: Record<string, unknown>;
  runtimeAccepts: boolean;
}

const accepts = (check: () => unknown): boolean => {
  try {
    check();
    return true;
  } catch {
    return false;
  }
};

/** Just below, at and just above each end of a range, and a word. */
function rangeValues(min: number, max: number): string[] {
  return [String(min - 1), String(min), String(max), String(max + 1), "many", "1.5"];
}

const SERIALS = ["GS-S-000101", "a", "x".repeat(128), "x".repeat(129), "GS S 1", "../etc", "-lead", "é"];

function cases(): Case[] {
  const tables = editorTables();
  const all: Case[] = [];
  const add = (
    type: NodeType,
    property: string,
    values: unknown[],
    runtime: (value: unknown) => boolean,
    context: Record<string, unknown> = {},
  ) => {
    for (const value of values) all.push({ type, property, value, context, runtimeAccepts: runtime(value) });
  };

  // robot-config: the base URL by the runtime's own parser and rules, and every account limit by its table.
  const urls = [
    ...tables.baseUrl.protocols.map((protocol) => `${protocol}//robots.example`),
    "ftp://x",
    "x",
    "http://x/?q=1",
    "http://user:pw@x",
    "http://x/#top",
    "https://openapi.gs-robot.com/",
  ];
  add("robot-config", "baseUrl", urls, (value) => accepts(() => normaliseBaseUrl(String(value))));
  // The Redis settings by the runtime's reader: an empty URL is "not shared"; the prefix checked with a usable URL.
  const redisUrls = [
    "",
    "redis://127.0.0.1:6379",
    "rediss://fleet@redis.example:6380/2",
    "http://127.0.0.1:6379",
    "redis://:secret@host:6379",
    "redis://host:6379?db=2",
    "not a url",
  ];
  add("robot-config", "redisUrl", redisUrls, (value) => accepts(() => readRedisSettings({ redisUrl: value as string })));
  const prefixes = ["", "robot-fleet", "site_a.prod-2", "has space", "x".repeat(65), "a:b"];
  add(
    "robot-config",
    "redisPrefix",
    prefixes,
    (value) => accepts(() => readRedisSettings({ redisUrl: "redis://127.0.0.1:6379", redisPrefix: value as string })),
    { redisUrl: "redis://127.0.0.1:6379" },
  );
  for (const name of ACCOUNT_SETTING_NAMES) {
    const { min, max } = ACCOUNT_SETTINGS[name];
    add("robot-config", name, rangeValues(min, max), (value) => accountSettingProblem(name, value) === undefined);
  }

  // What every robot node has: the serial number typed in (empty: from the message).
  for (const type of ROBOT_TYPES) {
    add(type, "serialNumber", ["", ...SERIALS], (value) => value === "" || SERIAL_NUMBER_PATTERN.test(String(value)), {
      serialNumberType: "str",
    });
  }

  // Choices: the runtime picks from the same tables (chooseSetting refuses anything else).
  const choice = (type: NodeType, property: string, allowed: readonly string[]) =>
    add(type, property, [...allowed, "bogus"], (value) => accepts(() => chooseSetting({}, property, String(value), allowed)));
  choice("robot-command", "command", COMMAND_TYPES);
  choice("robot-command", "burst", tables.command.burstPolicies);
  for (const type of ["robot-command", "robot-site-task"] as const) {
    choice(type, "sendWhen", tables.sendWhen);
    const { min, max } = tables.confirmTimeout;
    add(type, "confirmTimeout", rangeValues(min, max), (value) => accepts(() => confirmTimeoutMs(value as string)));
  }
  choice("robot-site-task", "operation", tables.siteTask.operations);
  choice("robot-site-task", "bodyFrom", tables.siteTask.bodySources);
  choice("robot-maps", "operation", tables.maps.operations);
  choice("robot-status", "operation", tables.status.operations);
  choice("robot-status", "fleetOutput", tables.status.fleetOutputs);
  choice("robot-status", "line", tables.status.lines);

  // robot-status: the serial-number list and the watch bounds, by the runtime's readers.
  add("robot-status", "serialNumbers", ["", "GS-S-000101, GS-S-000102", "GS-S-000101 bad/one"], (value) =>
    accepts(() => serialNumberList(String(value))),
  );
  for (const name of Object.keys(WATCH_LIMITS) as Array<keyof typeof WATCH_LIMITS>) {
    const { min, max } = WATCH_LIMITS[name];
    add("robot-status", name, rangeValues(min, max), (value) => accepts(() => readNumberSetting(value, name, WATCH_LIMITS[name])));
  }

  // robot-command: each parameter field, on a command that needs it, typed in; the runtime builds the request.
  const nodeValues: Record<ParameterField, unknown> = {
    cleaningMode: "__middle_cleaning",
    taskName: "Lobby",
    map: "Floor 1",
    loop: false,
    loopCount: 1,
    position: "charging",
    direction: "FORWARD",
  };
  const fieldValues: Record<ParameterField, unknown[]> = {
    cleaningMode: ["", "__middle_cleaning"],
    taskName: ["", "Lobby"],
    map: ["", "Floor 1"],
    loop: ["true", "false"],
    loopCount: ["-1", "1.5", "0", "3"],
    position: ["", "charging"],
    direction: ["SIDEWAYS", ...tables.command.directions],
  };
  for (const field of Object.keys(FIELD_PATHS).flatMap((parameter) =>
    Object.keys(FIELD_PATHS[parameter as keyof typeof FIELD_PATHS]),
  ) as ParameterField[]) {
    const command = COMMAND_TYPES.find((type) => fieldsOf(type).includes(field))!;
    const literal = tables.command.literalTypes[field];
    add(
      "robot-command",
      field,
      fieldValues[field],
      (value) => {
        const typed = literal === "num" ? Number(value) : literal === "bool" ? value === "true" : value;
        return accepts(() => prepareCall("submitCommand", buildCommandRequest("GS-S-000101", command, { ...nodeValues, [field]: typed })));
      },
      { command, [`${field}Type`]: literal },
    );
  }

  // robot-site-task: the dialog's fields of each temporary task; an empty one is what the runtime names as missing.
  for (const [operation, fields] of Object.entries(tables.siteTask.fieldsOf)) {
    for (const field of fields) {
      if (field in tables.siteTask.wholeNumbers) {
        const setting = tables.siteTask.wholeNumbers[field as keyof typeof tables.siteTask.wholeNumbers];
        add(
          "robot-site-task",
          field,
          ["", "0", "2", "-1", "1.5", "x"],
          (value) => accepts(() => readNumberSetting(value, field, setting)),
          { operation, bodyFrom: "fields" },
        );
      } else if ((tables.siteTask.textFields as readonly string[]).includes(field)) {
        add("robot-site-task", field, ["", "Lobby"], (value) => value !== "", { operation, bodyFrom: "fields", [`${field}Type`]: "str" });
      }
    }
  }

  // robot-maps: the map id of the operations that read one map; empty, msg.payload.mapId names it.
  for (const operation of tables.maps.needMap) add("robot-maps", "mapId", ["", "map-1"], () => true, { operation, mapIdType: "str" });

  // Every TypedInput read from the message: a path Node-RED cannot read is refused, as its runtime refuses it.
  const typed: Array<[NodeType, string, Record<string, unknown>]> = [
    ...ROBOT_TYPES.map((type): [NodeType, string, Record<string, unknown>] => [type, "serialNumber", {}]),
    ...(Object.keys(nodeValues) as ParameterField[]).map((field): [NodeType, string, Record<string, unknown>] => [
      "robot-command",
      field,
      { command: COMMAND_TYPES.find((type) => fieldsOf(type).includes(field))! },
    ]),
    ["robot-maps", "mapId", { operation: "getSubareas" }],
  ];
  for (const [type, property, context] of typed) {
    add(type, property, ["", "payload.value"], (value) => accepts(() => nodeRedUtil.normalisePropertyExpression(String(value))), {
      ...context,
      [`${property}Type`]: "msg",
    });
  }

  // robot-events: each setting by the runtime's own reader (missing or empty is the default path or every level).
  add(
    "robot-events",
    "path",
    ["/robot-events", "/site-a/pushes", "", undefined, "no-slash", "/a//b", "/a/", "/a:b", "/x y"],
    (value) => eventsPathOf(value) !== undefined,
  );
  add("robot-events", "minLevel", [...MIN_LEVELS, undefined, "H8"], (value) => minLevelOf(value) !== undefined);

  // robot-reports: its robots, its minutes and days, and its time zone (which Intl must know, here and in the browser).
  add("robot-reports", "serialNumbers", ["", "GS-S-000101, GS-S-000102", "GS-S-000101 bad/one"], (value) =>
    accepts(() => serialNumberList(String(value))),
  );
  for (const name of Object.keys(REPORTS_LIMITS) as Array<keyof typeof REPORTS_LIMITS>) {
    const { min, max } = REPORTS_LIMITS[name];
    add("robot-reports", name, rangeValues(min, max), (value) => accepts(() => readNumberSetting(value, name, REPORTS_LIMITS[name])));
  }
  add("robot-reports", "timeZone", ["", "UTC", "Europe/Berlin", "Asia/Shanghai", "Mars/Olympus", "Berlin"], (value) =>
    accepts(() => dayFormatter(String(value))),
  );

  // robot-upkeep: its robots, its minutes and its limits.
  add("robot-upkeep", "serialNumbers", ["", "GS-S-000101, GS-S-000102", "GS-S-000101 bad/one"], (value) =>
    accepts(() => serialNumberList(String(value))),
  );
  for (const name of Object.keys(UPKEEP_LIMITS) as Array<keyof typeof UPKEEP_LIMITS>) {
    const { min, max } = UPKEEP_LIMITS[name];
    add("robot-upkeep", name, rangeValues(min, max), (value) => accepts(() => readNumberSetting(value, name, UPKEEP_LIMITS[name])));
  }
  return all;
}

/** What makes each node type valid besides its defaults (a new START_TASK node has no task name or map yet): only the property under test decides. */
function validBase(): Record<NodeType, Record<string, unknown>> {
  const siteFields = Object.fromEntries(editorTables().siteTask.textFields.map((field) => [field, "x"]));
  return {
    "robot-config": {},
    "robot-command": { taskName: "Lobby", map: "Floor 1" },
    "robot-site-task": siteFields,
    "robot-maps": { mapId: "map-1" },
    "robot-status": {},
    "robot-events": {},
    "robot-reports": {},
    "robot-upkeep": {},
  };
}

/** What Node-RED reports when a validator throws (validator.errors.validation-error): no reason at all. */
const CRASHED_VALIDATOR = ": validation error: ";

const TAB = "validators-tab";
const flow: FlowNode[] = [
  { id: TAB, type: "tab", label: "validators" },
  { id: "cfg", type: "robot-config", name: "cloud", baseUrl: "http://127.0.0.1:9", authMode: "token" },
];

describe("editor: every validated property, judged as the editor judges a node, agrees with the runtime (headless Chromium)", function () {
  this.timeout(60_000);
  const session = useEditor(flow, { cfg: { token: "t" } });

  it("has refused and accepted cases, from the runtime's tables, for every validated property of every node type", async () => {
    const validated = await session.page.evaluate(
      (types) =>
        types.flatMap((type) =>
          Object.entries(RED.nodes.getType(type).defaults)
            .filter(([, definition]) => typeof definition.validate === "function")
            .map(([property]) => `${type}.${property}`),
        ),
      [...TYPES],
    );
    const all = cases();
    const uncovered = validated.filter(
      (key) =>
        !all.some((c) => `${c.type}.${c.property}` === key && c.runtimeAccepts) ||
        !all.some((c) => `${c.type}.${c.property}` === key && !c.runtimeAccepts),
    );
    assert.deepEqual(uncovered, [], "validated properties without both a refused and an accepted case");
    assert.ok(validated.length >= 40, `${validated.length} validated properties`);
  });

  it("marks the node invalid with a reason exactly where the runtime refuses the value", async () => {
    const all = cases();
    const verdicts = await session.page.evaluate(
      ({ list, tab, base, robotTypes }) =>
        list.map((c, index) => {
          const definition = RED.nodes.getType(c.type);
          const node: EditorNode = { id: `probe-${index}`, type: c.type, z: tab, _def: definition };
          for (const [name, entry] of Object.entries(definition.defaults)) node[name] = entry.value;
          if (robotTypes.includes(c.type)) node.robot = "cfg";
          Object.assign(node, base[c.type], c.context, { [c.property]: c.value });
          RED.editor.validateNode(node);
          return { valid: node.valid === true, errors: (node.validationErrors ?? []).map(String) };
        }),
      { list: all, tab: TAB, base: validBase(), robotTypes: [...ROBOT_TYPES] as string[] },
    );
    const disagreements = all
      .map((c, index) => ({ c, verdict: verdicts[index]! }))
      .filter(
        ({ c, verdict }) =>
          verdict.valid !== c.runtimeAccepts ||
          (!verdict.valid && verdict.errors.every((error) => error === c.property || error.includes(CRASHED_VALIDATOR))),
      )
      .map(
        ({ c, verdict }) =>
          `${c.type}.${c.property} = ${JSON.stringify(c.value)} ${JSON.stringify(c.context)}: runtime ${c.runtimeAccepts ? "accepts" : "refuses"}, editor ${verdict.valid ? "valid" : `invalid (${verdict.errors.join("; ")})`}`,
      );
    assert.deepEqual(disagreements, []);
    assert.ok(all.length > 200, `${all.length} cases`);
    assert.ok(all.some((c) => !c.runtimeAccepts) && all.some((c) => c.runtimeAccepts));
  });

  it("refuses what a user met in the editor: robot-config's base URL ftp://x, x, a query, credentials and a fragment, with the reason", async () => {
    const reasons = await session.page.evaluate(() => {
      const definition = RED.nodes.getType("robot-config");
      return ["ftp://x", "x", "http://x/?q=1", "http://user:pw@x", "http://x/#top"].map((baseUrl, index) => {
        const node: EditorNode = { id: `url-${index}`, type: "robot-config", _def: definition };
        for (const [name, entry] of Object.entries(definition.defaults)) node[name] = entry.value;
        node.baseUrl = baseUrl;
        RED.editor.validateNode(node);
        return { valid: node.valid, errors: (node.validationErrors ?? []).map(String) };
      });
    });
    for (const { valid, errors } of reasons) {
      assert.equal(valid, false);
      assert.equal(errors.length, 1);
      assert.notEqual(errors[0], "baseUrl", "a reason, not only the property's name");
    }
  });
});
