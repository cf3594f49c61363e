/**
 * What the Flow Library scorecard checks offline, and the packaging facts
 * Node-RED's loader depends on (html beside the loaded .js, icons, examples).
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";

const root = path.resolve(__dirname, "../..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  name: string;
  license?: string;
  repository?: { url?: string };
  keywords?: string[];
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  "node-red": { version?: string; nodes: Record<string, string> };
};
/** The package's public names (values and types): adding one here is deciding to support it. */
const PUBLIC_NAMES = [
  // The client, its options and what it returns.
  "RobotClient",
  "RobotClientOptions",
  "ListAllRobotsOptions",
  "BatchStatusOptions",
  "CallOptions",
  "RetryOptions",
  "DownloadOptions",
  "MapImage",
  "ClientCredentials",
  "DEFAULT_BASE_URL",
  "DEFAULT_TIMEOUT_MS",
  // Its errors.
  "RobotApiError",
  "RobotApiErrorKind",
  "RobotApiErrorDetails",
  "isRobotApiError",
  "API_CODES",
  "API_CODE_NAMES",
  "PLATFORM_CODES",
  // The endpoint table, its types, the commands and the schemas.
  "ENDPOINTS",
  "OPERATION_NAMES",
  "Endpoint",
  "Endpoints",
  "HttpMethod",
  "OperationName",
  "RobotOperationName",
  "RequestOf",
  "ResultOf",
  "COMMANDS",
  "COMMAND_TYPES",
  "COMMAND_FAMILIES",
  "MOVE_DIRECTIONS",
  "isCommandType",
  "commandTypeOf",
  "CommandType",
  "CommandFamily",
  "MoveDirection",
  "schemas",
  // What a function node reads of what the nodes send: statuses, incident levels, task outcomes, cleaning kinds.
  "readStatus",
  "StatusReading",
  "MapPosition",
  "INCIDENT_LEVELS",
  "incidentLevelOf",
  "IncidentLevel",
  "IncidentLevelCode",
  "TASK_OUTCOMES",
  "taskOutcomeOf",
  "withTaskReading",
  "TaskOutcome",
  "TaskReportReading",
  "CLEANING_KINDS",
  "cleaningKindOf",
  "readableCleaningMode",
  "CleaningKind",
  // What a dashboard or function node decides as the nodes do: actions, dispatch, reports and KPIs, Home Assistant's view.
  "ROBOT_ACTIONS",
  "allowedActions",
  "refusalOf",
  "refusalText",
  "RobotAction",
  "ActionRefusal",
  "chooseRobot",
  "robotFactsOf",
  "DispatchInput",
  "DispatchChoice",
  "JobWork",
  "RobotFacts",
  "readReport",
  "ReadReport",
  "KPI_GROUPINGS",
  "keptReportOf",
  "kpiRows",
  "dayFormatter",
  "KeptReport",
  "KpiRow",
  "KpiGrouping",
  "KpiRequest",
  "VACUUM_STATES",
  "robotViewOf",
  "vacuumStateOf",
  "VacuumState",
  "RobotView",
];
const nodeTypes = Object.keys(pkg["node-red"].nodes);
const exampleFiles = fs.readdirSync(path.join(root, "examples")).filter((file) => file.endsWith(".json"));
const examples = exampleFiles.map((file) => ({
  file,
  nodes: JSON.parse(fs.readFileSync(path.join(root, "examples", file), "utf8")) as Array<Record<string, unknown>>,
}));

describe("package", function () {
  it("has what the Flow Library scorecard checks offline", () => {
    assert.match(pkg.name, /^(@[a-z0-9-]+\/|node-red-contrib-)/);
    assert.ok(pkg.license, "license");
    assert.ok(pkg.repository?.url, "repository");
    assert.ok(pkg.keywords?.includes("node-red"), "keyword node-red");
    assert.ok(pkg["node-red"].version, "node-red.version");
    assert.ok(pkg.engines?.node, "engines.node");
    // axios, hpagent, proxy-from-env, zod; cors (robot-events, as core's http in); ioredis and
    // rate-limiter-flexible (a shared account only, loaded only then); luxon (robot-plan's zones, loaded with its first node).
    assert.ok(Object.keys(pkg.dependencies ?? {}).length <= 8, "at most 8 dependencies");
    assert.deepEqual(nodeTypes.sort(), [
      "robot-command",
      "robot-config",
      "robot-events",
      "robot-job",
      "robot-maps",
      "robot-mqtt",
      "robot-plan",
      "robot-reports",
      "robot-site-task",
      "robot-status",
      "robot-upkeep",
    ]);
  });

  for (const type of nodeTypes) {
    it(`${type}: the editor file sits beside the loaded file and registers the type with help`, () => {
      const js = path.join(root, pkg["node-red"].nodes[type]!);
      const html = fs.readFileSync(js.replace(/\.js$/, ".html"), "utf8");
      // Its script is served from the module's resources/, where the linter checks it.
      const src = /<script type="text\/javascript" src="resources\/node-red-contrib-robot-fleet\/([a-z-]+\.js)"><\/script>/.exec(html);
      assert.ok(src, "the editor file loads its script from resources/");
      assert.doesNotMatch(html.replace(src[0], ""), /<script type="text\/javascript"/, "no script inline");
      const script = fs.readFileSync(path.join(root, "resources", src[1]!), "utf8");
      // A robot node registers through the plugin's registerRobotNode, which adds what they share (icon, labels).
      assert.match(script, new RegExp(`(registerType|registerRobotNode)\\(\\s*["']${type}["']`));
      // The help lives in the message catalogues, one page per language (Node-RED falls back to en-US).
      const help = fs.readFileSync(path.join(path.dirname(js), "locales", "en-US", `${type}.html`), "utf8");
      assert.match(help, new RegExp(`data-help-name=["']${type}["']`));
      assert.ok(fs.existsSync(path.join(path.dirname(js), "locales", "zh-CN", `${type}.html`)), "Chinese help");
      for (const icon of [...script.matchAll(/icon:\s*["']([^"']+)["']/g)]
        .map((match) => match[1]!)
        .concat(type === "robot-config" ? [] : [`${type}.svg`])) {
        assert.ok(fs.existsSync(path.join(root, "icons", icon)), `icon ${icon} exists in icons/`);
      }
      // robot-events has no input (the cloud posts to it), so its help has no Inputs section.
      if (type !== "robot-config") assert.match(help, /<h3>Outputs<\/h3>/);
      if (type !== "robot-config" && type !== "robot-events") assert.match(help, /<h3>Inputs<\/h3>/);
    });
  }

  it("holds no inline script in any editor file: every editor script is a file in resources/, which the linter checks", () => {
    const editorFiles = fs.readdirSync(path.join(root, "nodes")).filter((file) => file.endsWith(".html"));
    assert.equal(editorFiles.length, 12, editorFiles.join(", "));
    for (const file of editorFiles) {
      const html = fs.readFileSync(path.join(root, "nodes", file), "utf8");
      for (const tag of html.matchAll(/<script\b[^>]*>/g)) {
        if (/type="text\/html"/.test(tag[0])) continue;
        const src = /src="resources\/node-red-contrib-robot-fleet\/([a-z-]+\.js)"/.exec(tag[0]);
        assert.ok(src, `${file}: ${tag[0]} is not a script from resources/`);
        assert.ok(fs.existsSync(path.join(root, "resources", src[1]!)), `${file}: resources/${src[1]} exists`);
      }
    }
    const lintConfig = fs.readFileSync(path.join(root, "eslint.config.mjs"), "utf8");
    assert.match(lintConfig, /files: \["resources\/\*\*\/\*\.js"\]/, "eslint checks resources/");
    assert.doesNotMatch(lintConfig, /"resources\/\*\*"/, "and does not ignore it");
  });

  /** The compiled runtime files (the demo runs from a clone only: it needs express). */
  function runtimeFiles(): string[] {
    const sources = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        return entry.isDirectory() ? sources(full) : entry.name.endsWith(".js") ? [full] : [];
      });
    return sources(path.join(root, "dist", "src")).filter((file) => !file.includes(`${path.sep}demo${path.sep}`));
  }

  it("needs no devDependency at run time: no compiled file under dist/src requires one", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    assert.ok(manifest.dependencies.axios, "axios, the package's HTTP client, is a runtime dependency");
    const devOnly = Object.keys(manifest.devDependencies);
    // Type-only imports are gone once compiled.
    for (const file of runtimeFiles()) {
      const text = fs.readFileSync(file, "utf8");
      for (const match of text.matchAll(/require\(["']([^"'.][^"']*)["']\)/g)) {
        const name = match[1]!.startsWith("@") ? match[1]!.split("/").slice(0, 2).join("/") : match[1]!.split("/")[0]!;
        assert.ok(!devOnly.includes(name), `${path.relative(root, file)} imports ${name}, a devDependency`);
      }
    }
  });

  it("makes HTTP requests only through axios, tunnels only through hpagent and decides no_proxy only through proxy-from-env", () => {
    const handWritten: string[] = [];
    for (const file of runtimeFiles()) {
      // What runs, not what the comments say.
      const code = fs
        .readFileSync(file, "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/^\s*\/\/.*$/gm, "");
      const where = path.relative(root, file);
      if (/require\(["'](node:)?(net|tls)["']\)/.test(code)) handWritten.push(`${where} opens sockets itself (net/tls)`);
      if (/["']CONNECT["']/.test(code)) handWritten.push(`${where} writes a CONNECT request`);
      if (/\bhttps?(_\d+)?\.(default\.)?(request|get)\(/.test(code)) handWritten.push(`${where} sends with node:http(s) directly`);
      if (/no_proxy/i.test(code)) handWritten.push(`${where} reads no_proxy`);
    }
    assert.deepEqual(handWritten, []);
    const http = fs.readFileSync(path.join(root, "dist", "src", "api", "http", "http.js"), "utf8");
    for (const library of ["axios", "hpagent", "proxy-from-env"])
      assert.match(http, new RegExp(`require\\("${library}"\\)`), `the client's HTTP layer uses ${library}`);
  });

  it("requires no HTTP client and no schema library while the nodes load: axios, its proxy helpers and zod come with the first client", () => {
    const nodeFiles = Object.values(pkg["node-red"].nodes).map((file) => path.join(root, file));
    const clientFile = path.join(root, "dist", "src", "api", "client.js");
    // A fresh process, as Node-RED starting with the package installed; then what a first deploy loads.
    const script = `
      const loaded = () => Object.keys(require.cache).map((file) => /node_modules[\\/\\\\]((?:@[^\\/\\\\]+[\\/\\\\])?[^\\/\\\\]+)/.exec(file)?.[1]).filter(Boolean);
      for (const file of ${JSON.stringify(nodeFiles)}) require(file);
      const atStart = [...new Set(loaded())];
      require(${JSON.stringify(clientFile)});
      console.log(JSON.stringify({ atStart, withClient: [...new Set(loaded())] }));`;
    const { atStart, withClient } = JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" })) as {
      atStart: string[];
      withClient: string[];
    };
    assert.deepEqual(atStart, [], "requiring the node files loads no dependency");
    for (const library of ["axios", "hpagent", "proxy-from-env", "zod"])
      assert.ok(withClient.includes(library), `${library} loads with the client`);
    for (const library of ["ioredis", "rate-limiter-flexible", "cors"])
      assert.ok(!withClient.includes(library), `${library} does not load for an account that is not shared`);
  });

  it("lints the layers: src/api importing the nodes, and an import circle of type-only imports, each fail npm run lint's dependency check", function () {
    this.timeout(60_000);
    const tree = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-layers-"));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
        fs.writeFileSync(path.join(tree, file), text);
      };
      write("tsconfig.json", JSON.stringify({ compilerOptions: { module: "commonjs", strict: true }, include: ["src/**/*.ts"] }));
      write("src/api/client.ts", 'import { handler } from "../nodes/input";\nexport const client = handler;\n');
      write("src/nodes/input.ts", 'import type { ConfigNode } from "./config";\nexport const handler = (node?: ConfigNode) => node;\n');
      write("src/nodes/config.ts", 'import type { handler } from "./input";\nexport interface ConfigNode { run: typeof handler }\n');
      const cruiser = path.join(root, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
      const run = spawnSync(
        process.execPath,
        [cruiser, "src", "--config", path.join(root, ".dependency-cruiser.cjs"), "--output-type", "err"],
        { cwd: tree, encoding: "utf8" },
      );
      assert.notEqual(run.status, 0, "the check fails");
      assert.match(run.stdout, /api-stays-below: src\/api\/client\.ts → src\/nodes\/input\.ts/);
      assert.match(run.stdout, /no-circular: src\/nodes\/(input|config)\.ts →/);
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
  });

  it("exports exactly the public API: the client, its errors, the endpoint table, the schemas and the readers; every other module is out of reach", function () {
    this.timeout(60_000);
    // What TypeScript sees of the package's main entry: values and types alike, so a new export fails here until listed.
    const entry = path.join(root, "dist", "src", "api", "index.d.ts");
    const program = ts.createProgram([entry], {
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      noEmit: true,
    });
    const checker = program.getTypeChecker();
    const names = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!).map((symbol) => symbol.name);
    assert.deepEqual(names.sort(), [...PUBLIC_NAMES].sort());
    // Through the package's own name, as a program that installed it requires it (Node resolves a package's self-reference through its exports).
    const script = `
      const api = require("${pkg.name}");
      const simulator = require("${pkg.name}/simulator");
      let deep;
      try { require("${pkg.name}/dist/src/api/engine/engine.js"); deep = "loaded"; } catch (error) { deep = error.code; }
      console.log(JSON.stringify({ values: Object.keys(api), startSimulator: typeof simulator.startSimulator, deep, manifest: require("${pkg.name}/package.json").name }));`;
    const reached = JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: root, encoding: "utf8" })) as {
      values: string[];
      startSimulator: string;
      deep: string;
      manifest: string;
    };
    assert.deepEqual(
      reached.values.filter((name) => !PUBLIC_NAMES.includes(name)),
      [],
      "every value exported at run time is a listed name",
    );
    for (const value of ["RobotClient", "RobotApiError", "ENDPOINTS", "schemas", "readStatus"])
      assert.ok(reached.values.includes(value), value);
    assert.equal(reached.startSimulator, "function", "the simulator has its own subpath");
    assert.equal(reached.deep, "ERR_PACKAGE_PATH_NOT_EXPORTED", "an internal module is not reachable");
    assert.equal(reached.manifest, pkg.name, "package.json stays readable (Node-RED and tools read it)");
  });

  it("uses every node type in some example, and no example carries credentials", () => {
    assert.ok(examples.length >= 3);
    const used = new Set(examples.flatMap((example) => example.nodes.map((node) => node.type)));
    for (const type of nodeTypes) assert.ok(used.has(type), `${type} appears in an example`);
    for (const example of examples) {
      assert.ok(Array.isArray(example.nodes), example.file);
      for (const node of example.nodes) assert.equal(node.credentials, undefined, `${example.file} ${String(node.id)}`);
    }
  });

  it("commits no generated file", function () {
    let tracked: string[];
    try {
      tracked = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" }).split("\n");
    } catch {
      this.skip();
    }
    assert.deepEqual(
      // JavaScript is compiled, except the node shims Node-RED loads, the editor's browser scripts and the build tooling that runs before any compile.
      tracked.filter(
        (file) => /^(dist|nodes\/icons)\//.test(file) || (/\.js$/.test(file) && !/^(nodes|resources|scripts)\/[a-z-]+\.js$/.test(file)),
      ),
      [],
    );
    for (const shim of tracked.filter((file) => /^nodes\/[a-z-]+\.js$/.test(file))) {
      assert.ok(fs.readFileSync(path.join(root, shim), "utf8").split("\n").length <= 5, `${shim} is a shim`);
    }
  });
});
