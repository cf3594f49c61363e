/**
 * The demo keeps a user's flows: npm start twice on one DEMO_DIR finds the
 * flow deployed in the first run, with the demo's own config pointed at the
 * second run's simulator; --fresh brings the examples back and saves the
 * user's flows beside them; a port in use names the setting to change.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { startDemo } from "../support/demo-process";

type Flow = Array<Record<string, unknown> & { id: string; type: string }>;

async function flowsOf(editor: string): Promise<Flow> {
  const response = await fetch(`${editor}/flows`, { headers: { Accept: "application/json" } });
  assert.equal(response.status, 200);
  return (await response.json()) as Flow;
}

describe("demo (npm start): a lasting folder for the user's flows", function () {
  this.timeout(180_000);
  let folder: string;

  beforeEach(() => (folder = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-demo-kept-"))));
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it("keeps the flows deployed in one run for the next, and --fresh brings the examples back, saving the user's beside them", async () => {
    const first = await startDemo({ DEMO_DIR: folder });
    const flows = await flowsOf(first.urls.editor);
    const tab = flows.find((node) => node.type === "tab")!;
    const mine = { id: "my-own-note", type: "comment", z: tab.id, name: "my note", x: 100, y: 500, wires: [] };
    const deployed = await fetch(`${first.urls.editor}/flows`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify([...flows, mine]),
    });
    assert.equal(deployed.status, 204);
    assert.match(first.output(), new RegExp(`Flows are kept in ${folder.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    assert.equal(await first.stop(), 0);

    const second = await startDemo({ DEMO_DIR: folder });
    try {
      const kept = await flowsOf(second.urls.editor);
      assert.equal(kept.find((node) => node.id === "my-own-note")?.name, "my note", "the user's node is back");
      const config = kept.find((node) => node.type === "robot-config")!;
      assert.equal(config.baseUrl, second.urls.simulator, "the demo's config follows this run's simulator");
      assert.match(second.output(), /those of your last run/);
    } finally {
      assert.equal(await second.stop(), 0);
    }

    const fresh = await startDemo({ DEMO_DIR: folder }, ["--fresh"]);
    try {
      assert.equal(
        (await flowsOf(fresh.urls.editor)).find((node) => node.id === "my-own-note"),
        undefined,
        "the examples as shipped",
      );
      const saved = fs.readdirSync(folder).filter((file) => /^flows\.backup-.*\.json$/.test(file));
      assert.equal(saved.length, 1, fs.readdirSync(folder).join(", "));
      assert.ok((JSON.parse(fs.readFileSync(path.join(folder, saved[0]!), "utf8")) as Flow).some((node) => node.id === "my-own-note"));
      assert.match(fresh.output(), new RegExp(`previous flows were saved as .*${saved[0]!.replace(/\./g, "\\.")}`));
    } finally {
      assert.equal(await fresh.stop(), 0);
    }
  });

  it("names the setting to change when a port is in use", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      await assert.rejects(
        startDemo({ DEMO_DIR: folder, SIMULATOR_PORT: String(port) }),
        new RegExp(`port ${port} is in use: set SIMULATOR_PORT to a free port`),
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
