/**
 * The message catalogues: every language has the same keys with the same
 * parameters, every key the editor files and the runtime ask for exists, every
 * entry of the runtime's tables has its words, and each help page exists in
 * each language with the same sections.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { CLEANING_KINDS } from "../src/api/cloud/cleaning-modes";
import { editorTables } from "../src/nodes/robot-config/editor-tables";
import { NOTICE_KINDS } from "../src/nodes/robot-upkeep/notices";
import { PACKAGE_ROOT as ROOT } from "./support/child-node";

const LOCALES = path.join(ROOT, "nodes", "locales");
const LANGUAGES = ["en-US", "zh-CN"];
const CATALOGUES = [
  "robot-fleet",
  "robot-config",
  "robot-command",
  "robot-site-task",
  "robot-maps",
  "robot-status",
  "robot-events",
  "robot-reports",
  "robot-mqtt",
  "robot-job",
  "robot-plan",
  "robot-upkeep",
];
const NODE_TYPES = CATALOGUES.filter((name) => name !== "robot-fleet");
const SHARED = "node-red-contrib-robot-fleet/robot-fleet:";

type Catalogue = Record<string, unknown>;

function catalogue(language: string, name: string): Catalogue {
  return JSON.parse(fs.readFileSync(path.join(LOCALES, language, `${name}.json`), "utf8")) as Catalogue;
}

/** Every leaf as "a.b.c" → text. */
function flatten(value: unknown, prefix = "", into = new Map<string, string>()): Map<string, string> {
  if (typeof value === "string") into.set(prefix, value);
  else if (value && typeof value === "object")
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, into);
  return into;
}

const parameters = (text: string) => [...text.matchAll(/__(\w+)__/g)].map((match) => match[1]).sort();

function keysOf(name: string, language = "en-US"): Map<string, string> {
  return flatten(catalogue(language, name));
}

describe("message catalogues", () => {
  for (const name of CATALOGUES) {
    it(`${name}: every language has the same keys, each with the same parameters`, () => {
      const english = keysOf(name);
      assert.ok(english.size > 0);
      for (const language of LANGUAGES.slice(1)) {
        const other = keysOf(name, language);
        assert.deepEqual(
          [...english.keys()].filter((key) => !other.has(key)),
          [],
          `keys missing in ${language}`,
        );
        assert.deepEqual(
          [...other.keys()].filter((key) => !english.has(key)),
          [],
          `keys only in ${language}`,
        );
        for (const [key, text] of english) assert.deepEqual(parameters(other.get(key)!), parameters(text), `${language} ${key}`);
        for (const [key, text] of other) assert.notEqual(text.trim(), "", `${language} ${key} is empty`);
      }
    });
  }

  it("holds every key the editor files ask for, literally or per entry of the runtime's tables", () => {
    const known = new Set<string>();
    for (const name of CATALOGUES) for (const key of keysOf(name).keys()) known.add(name === "robot-fleet" ? `${SHARED}${key}` : key);
    const asked = new Set<string>();
    for (const file of [...NODE_TYPES, "robot-fleet"]) {
      // A node's template and help are in nodes/<type>.html, its script in resources/ (the plugin's: robot-fleet-editor.js).
      const html = fs.readFileSync(path.join(ROOT, "nodes", `${file}.html`), "utf8");
      const script = fs.readFileSync(path.join(ROOT, "resources", `${file === "robot-fleet" ? "robot-fleet-editor" : file}.js`), "utf8");
      if (file === "robot-fleet") {
        // The plugin builds its rows' attributes from pieces: the placeholder and unit keys it names.
        for (const match of script.matchAll(/["']((?:placeholder|unit)\.\w+)["']/g)) asked.add(`${SHARED}robot-fleet.${match[1]!}`);
      } else {
        for (const match of html.matchAll(/data-i18n="(?:\[\w+\])?([^"]+)"/g)) asked.add(match[1]!);
      }
      // Rows the plugin draws take their label from the shared catalogue.
      for (const match of file === "robot-fleet" ? [] : html.matchAll(/data-robot-fleet-rows="([^"]+)"/g)) {
        for (const entry of match[1]!.split(/\s+/))
          if (!entry.startsWith("name")) asked.add(`${SHARED}robot-fleet.field.${entry.split(":")[0]!}`);
      }
      for (const match of script.matchAll(/\._\("([\w.-]+)"/g)) asked.add(match[1]!);
      for (const match of script.matchAll(/\bt\("([\w.]+)"/g)) asked.add(`${SHARED}robot-fleet.${match[1]!}`);
    }
    const tables = editorTables();
    for (const family of tables.command.families) {
      asked.add(`robot-command.families.${family.family}`);
      for (const command of family.commands) asked.add(`robot-command.commands.${command.type}`);
    }
    for (const value of tables.command.directions) asked.add(`robot-command.directions.${value}`);
    for (const value of tables.command.burstPolicies) asked.add(`robot-command.burst.${value}`);
    for (const value of tables.sendWhen) for (const type of ["robot-command", "robot-site-task"]) asked.add(`${type}.sendWhen.${value}`);
    for (const value of tables.siteTask.bodySources) asked.add(`robot-site-task.bodyFrom.${value}`);
    for (const value of tables.siteTask.operations) asked.add(`robot-site-task.operations.${value}`).add(`robot-site-task.labels.${value}`);
    for (const value of tables.maps.operations) asked.add(`robot-maps.operations.${value}`).add(`robot-maps.labels.${value}`);
    for (const value of tables.status.operations) asked.add(`robot-status.operations.${value}`).add(`robot-status.labels.${value}`);
    for (const value of tables.status.lines) asked.add(`robot-status.lines.${value}`);
    for (const value of tables.status.fleetOutputs) asked.add(`robot-status.fleetOutputs.${value}`);
    for (const value of tables.job.works) asked.add(`robot-job.work.${value || "fromMessage"}`);
    for (const value of tables.plan.works) asked.add(`robot-plan.work.${value}`);
    for (const level of tables.events.minLevels) if (level !== "") asked.add(`robot-events.levels.${level}`);
    for (const kind of NOTICE_KINDS) for (const state of ["raised", "cleared"]) asked.add(`robot-upkeep.notice.${kind}.${state}`);
    for (const field of [...tables.command.fields, ...tables.siteTask.textFields]) asked.add(`${SHARED}robot-fleet.field.${field}`);
    for (const name of Object.keys(tables.accountSettings))
      for (const part of ["label", "unit", "hint"]) asked.add(`robot-config.limits.${name}.${part}`);
    for (const kind of Object.keys(CLEANING_KINDS)) asked.add(`${SHARED}robot-fleet.cleaningKind.${kind}`);
    // A key ending in "." is the start of one built from a table value: those are added above.
    const missing = [...asked].filter((key) => !key.startsWith("node-red:") && !key.endsWith(".") && !known.has(key));
    assert.deepEqual(missing, []);
    assert.ok(asked.size > 150, `found ${asked.size} keys`);
  });

  it("holds every status key the runtime asks for", () => {
    // status-text.ts and config-node.ts translate with the catalogue of the node that calls them: each must hold their keys.
    const sources: Record<string, string[]> = {
      "robot-fleet": ["shared/node-status-view.ts", "shared/config-node.ts"],
      "robot-maps": ["robot-maps/robot-maps.ts"],
      "robot-site-task": ["robot-site-task/robot-site-task.ts", "shared/status-text.ts"],
      "robot-status": ["robot-status/robot-status.ts", "shared/status-text.ts", "shared/config-node.ts"],
      "robot-events": ["robot-events/robot-events.ts"],
      "robot-reports": ["robot-reports/index.ts", "robot-reports/status.ts", "shared/config-node.ts"],
      "robot-mqtt": ["robot-mqtt/index.ts", "robot-mqtt/bridge.ts", "shared/config-node.ts"],
      "robot-job": ["robot-job/index.ts", "robot-job/status.ts"],
      "robot-plan": ["robot-plan/plan-node.ts", "robot-plan/status.ts"],
      "robot-upkeep": ["robot-upkeep/upkeep-node.ts", "robot-upkeep/status.ts", "shared/config-node.ts"],
    };
    for (const [name, files] of Object.entries(sources)) {
      const file = files.join(" and ");
      const source = files.map((each) => fs.readFileSync(path.join(ROOT, "src", "nodes", each), "utf8")).join("\n");
      const keys = new Set([...source.matchAll(/["`](status\.\w+)["`]/g)].map((match) => match[1]!));
      // Keys built from a value: the dropped-message reasons and the counted nouns.
      if (name === "robot-fleet") keys.add("status.skipped").add("status.replaced");
      if (name === "robot-status") for (const noun of ["robot", "report"]) keys.add(`status.one_${noun}`).add(`status.${noun}s`);
      if (name === "robot-mqtt") keys.add("status.one_robot").add("status.robots");
      assert.ok(keys.size > 3, `${file} asks for keys`);
      const known = keysOf(name);
      for (const key of keys) assert.ok(known.has(`${name}.${key}`), `${name}.${key} (asked by ${file})`);
    }
  });

  for (const type of NODE_TYPES) {
    it(`${type}: help in every language, with the same sections and the same code samples`, () => {
      const pages = LANGUAGES.map((language) => fs.readFileSync(path.join(LOCALES, language, `${type}.html`), "utf8"));
      const count = (html: string, pattern: RegExp) => html.match(pattern)?.length ?? 0;
      for (const html of pages) assert.match(html, new RegExp(`data-help-name="${type}"`));
      const [english, ...others] = pages;
      for (const other of others) {
        for (const tag of [/<h3>/g, /<dt/g, /<li>/g, /<pre>/g, /<tr>/g])
          assert.equal(count(other, tag), count(english!, tag), `${type} ${String(tag)}`);
        assert.deepEqual(
          [...other.matchAll(/<pre>([\s\S]*?)<\/pre>/g)].map((m) => m[1]),
          [...english!.matchAll(/<pre>([\s\S]*?)<\/pre>/g)].map((m) => m[1]),
        );
        // Translated, not copied: every paragraph holds Chinese text.
        for (const paragraph of other.matchAll(/<p>([\s\S]*?)<\/p>/g))
          assert.match(paragraph[1]!, /[\u4e00-\u9fff]/, paragraph[1]!.slice(0, 80));
      }
    });
  }
});
