/**
 * A child process running real Node-RED, embedded, with one robot-events node
 * whose outputs are counted: what robot-events-load.test.ts sends pushes to.
 * Its own process, so the heap it reports is Node-RED's and the package's
 * alone (the test helper's spies keep every message they see). Run with
 * --expose-gc. IPC: sends {port} once the flows run; answers "report" with
 * {heapBytes, sentOn, repeated, wrongOutput}; "stop" ends it.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { EmbeddedNodeRed } from "./embedded-node-red";

interface SendEvent {
  msg: { payload: Record<string, unknown> };
  source: { id: string; port: number };
}

export const EVENTS_APP_ID = "load-app";

async function main(): Promise<void> {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-events-"));
  const flows = [
    { id: "tab", type: "tab", label: "load" },
    { id: "events", type: "robot-events", z: "tab", path: "/robot-events", minLevel: "", wires: [["sink"], ["sink"]] },
    { id: "sink", type: "function", z: "tab", func: "return null;", outputs: 0, wires: [] },
  ];
  fs.writeFileSync(path.join(userDir, "flows.json"), JSON.stringify(flows));
  fs.writeFileSync(path.join(userDir, "flows_cred.json"), JSON.stringify({ events: { appId: EVENTS_APP_ID } }));

  // Counted by key, never kept: what a push is sent on as (incident id and status, or report id).
  const sentOn = new Map<string, number>();
  let wrongOutput = 0;
  // This repository's Node-RED, or the compatibility run's (npm run compat sets ROBOT_FLEET_NODE_RED).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const RED = require(process.env.ROBOT_FLEET_NODE_RED ?? "node-red") as EmbeddedNodeRed;
  // Read at each request: RED.httpNode exists once init() has run.
  const server = http.createServer((req, res) => {
    RED.httpNode(req, res);
  });
  RED.init(server, {
    userDir,
    flowFile: "flows.json",
    credentialSecret: false,
    nodesDir: [path.resolve(__dirname, "../../..")],
    httpAdminRoot: false,
    httpNodeRoot: "/",
    telemetry: { enabled: false, updateNotification: false },
    diagnostics: { enabled: false },
    logging: { console: { level: "error", metrics: false, audit: false } },
  });
  RED.hooks.add("onSend.count", (events: SendEvent[]) => {
    for (const { msg, source } of events) {
      if (source.id !== "events") continue;
      const payload = msg.payload;
      const isReport = payload.outcome !== undefined;
      if (isReport !== (source.port === 1)) wrongOutput++;
      const key = isReport ? `report-${String(payload.id)}` : `${String(payload.incidentId)}/${payload.raised ? 1 : 0}`;
      sentOn.set(key, (sentOn.get(key) ?? 0) + 1);
    }
  });
  const started = new Promise<void>((resolve) => RED.events.once("flows:started", resolve));
  await RED.start();
  await started;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.send!({ port: (server.address() as AddressInfo).port });

  process.on("message", (message: string) => {
    if (message === "report") {
      global.gc!();
      global.gc!();
      const repeated = [...sentOn.values()].filter((times) => times > 1).length;
      process.send!({ heapBytes: process.memoryUsage().heapUsed, sentOn: sentOn.size, repeated, wrongOutput });
    } else if (message === "stop") {
      void RED.stop().finally(() => {
        fs.rmSync(userDir, { recursive: true, force: true });
        process.exit(0);
      });
    }
  });
}

// Imported by the test for EVENTS_APP_ID: only the forked process runs Node-RED.
if (require.main === module) void main();
