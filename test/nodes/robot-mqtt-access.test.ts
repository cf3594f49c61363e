/**
 * Who may drive the robots through robot-mqtt: its setting Commands at each
 * boundary (a robot in the list, one not in it, states only; every robot is
 * robot-mqtt.test.ts's default), answered on the result topic with nothing
 * sent to the cloud; and the broker closed as docs/nodes/robot-mqtt.md says,
 * a real mosquitto with its users (made by mosquitto_passwd) and that page's
 * ACL file, where a user without the right cannot publish a command and the
 * bridge and Home Assistant can do their parts.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import mqtt from "mqtt";
import robotMqtt from "../../src/nodes/robot-mqtt";
import { DEMO_TOKEN, startSimulator, type RunningSimulator } from "../../src/simulator";
import { HomeAssistantClient } from "../support/home-assistant";
import { reserveMosquitto, type Mosquitto } from "../support/mosquitto";
import { flowWith, helper, loadFlow, useNodeRed, waitFor } from "../support/node-red";
import { bridgeFlow, BASE, configTopic, mqttNodes, PREFIX, resultOf, useBridgeRig } from "../support/mqtt-bridge-flow";

const ROBOTS = ["GS-S-000101", "GS-S-000102", "GS-S-000201"];
const MOSQUITTO_PASSWD = fs.existsSync("/usr/bin/mosquitto_passwd") ? "/usr/bin/mosquitto_passwd" : "mosquitto_passwd";

/** The ACL file docs/nodes/robot-mqtt.md gives: the fenced block after its `<!-- mosquitto-acl -->` mark. */
function documentedAcl(): string {
  // test/nodes from the sources, dist/test/nodes once built.
  const page = [path.join(__dirname, "..", ".."), path.join(__dirname, "..", "..", "..")]
    .map((root) => path.join(root, "docs", "nodes", "robot-mqtt.md"))
    .find((file) => fs.existsSync(file))!;
  const found = /<!-- mosquitto-acl -->\n```text\n([\s\S]*?)```/.exec(fs.readFileSync(page, "utf8"));
  assert.ok(found, "the ACL block in docs/nodes/robot-mqtt.md");
  return found[1]!;
}

/** A client that connects once, without retrying (a refused login is the answer). */
function connectOnce(url: string, login: { username?: string; password?: string }) {
  return mqtt.connectAsync(url, { ...login, reconnectPeriod: 0, connectTimeout: 5000 }).then((client) => client.endAsync());
}

describe("robot-mqtt: what its command topics may drive", function () {
  this.timeout(60_000);
  const rig = useBridgeRig({});

  async function deploy(settings: Record<string, unknown>): Promise<HomeAssistantClient> {
    await loadFlow([robotMqtt, mqttNodes], flowWith(rig.simulator.url, bridgeFlow(rig.broker.port, settings)), { config: { token: DEMO_TOKEN } });
    const client = (rig.ha = await HomeAssistantClient.connect(rig.broker.url, [`${PREFIX}/#`, `${BASE}/#`]));
    await waitFor(() => ROBOTS.every((serial) => client.last.has(configTopic(serial))), 20_000, "every robot's discovery");
    return client;
  }

  const vacuumOf = (client: HomeAssistantClient, serial: string) =>
    (client.json(configTopic(serial)).components as Record<string, Record<string, unknown>>).vacuum!;

  it("takes the commands of a robot in the list, refuses one not in it with nothing sent, and offers buttons only where it takes them", async () => {
    const client = await deploy({ accept: "listed", acceptRobots: "GS-S-000101" });
    const taken = await resultOf(client, "GS-S-000101", "command", "return_to_base");
    assert.deepEqual([taken.command, taken.ok], ["CROSS_NAVIGATE", true], String(taken.reason));
    assert.equal(rig.simulator.state.commands("GS-S-000101").length, 1);

    for (const [suffix, payload] of [["command", "return_to_base"], ["send_command", '{"command": "clean_area", "params": {"area": "Lobby"}}'], ["set_fan_speed", "尘推"], ["clean_segments", "[\"x:1\"]"]] as const) {
      const refused = await resultOf(client, "GS-S-000102", suffix, payload);
      assert.equal(refused.ok, false, suffix);
      assert.equal(refused.reason, "the bridge takes commands only for the robots listed in its setting Commands; nothing was sent", suffix);
    }
    assert.equal(rig.simulator.state.commands("GS-S-000102").length, 0, "nothing reached the cloud");
    assert.equal(rig.simulator.state.robot("GS-S-000102")!.currentTask, undefined);

    assert.equal(vacuumOf(client, "GS-S-000101").command_topic, `${BASE}/GS-S-000101/command`);
    assert.deepEqual(vacuumOf(client, "GS-S-000102").supported_features, []);
    assert.equal(vacuumOf(client, "GS-S-000102").command_topic, undefined);
  });

  it("takes no command at all when set to states only, and still publishes every state", async () => {
    const client = await deploy({ accept: "none", acceptRobots: "GS-S-000101" });
    const refused = await resultOf(client, "GS-S-000101", "command", "start");
    assert.deepEqual([refused.command, refused.ok, refused.reason], ["command", false, "the bridge takes no commands from MQTT (its setting Commands: states only); nothing was sent"]);
    assert.equal(rig.simulator.state.commands("GS-S-000101").length, 0);
    for (const serial of ROBOTS) {
      assert.deepEqual(vacuumOf(client, serial).supported_features, []);
      assert.ok(client.last.has(`${BASE}/${serial}/state`), serial);
    }
  });

  it("refuses a list setting without robots at deploy, naming the field", async () => {
    await loadFlow([robotMqtt, mqttNodes], flowWith(rig.simulator.url, bridgeFlow(rig.broker.port, { accept: "listed", acceptRobots: " " })), { config: { token: DEMO_TOKEN } });
    const bridge = helper.getNode("bridge") as unknown as { error: { args: unknown[][] } };
    await waitFor(() => bridge.error.args.length > 0, 5000, "an error at deploy");
    assert.equal((bridge.error.args[0]![0] as { field?: string }).field, "acceptRobots");
  });
});

describe("robot-mqtt behind mosquitto's users and the ACL of its docs", function () {
  this.timeout(60_000);
  let simulator: RunningSimulator;
  let broker: Mosquitto;
  let dir: string;
  const clients: HomeAssistantClient[] = [];

  before(async () => {
    simulator = await startSimulator({ rateLimit: false, log: () => undefined });
    helper.settings({ mqttReconnectTime: 300 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-test-passwd-"));
    const passwords = path.join(dir, "passwd");
    fs.writeFileSync(passwords, "", { mode: 0o600 });
    for (const user of ["nodered", "homeassistant", "viewer"]) execFileSync(MOSQUITTO_PASSWD, ["-b", passwords, user, `${user}-secret`]);
    broker = await reserveMosquitto({
      lines: ["allow_anonymous false", "password_file {dir}/passwd", "acl_file {dir}/acl"],
      files: { passwd: fs.readFileSync(passwords, "utf8"), acl: documentedAcl() },
    });
    await broker.start();
  });
  after(async () => {
    for (const client of clients) await client.end();
    await broker.stop();
    await simulator.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  useNodeRed();

  const login = (user: string) => ({ username: user, password: `${user}-secret` });

  it("lets Home Assistant's user command a robot and the bridge answer; a viewer's command is refused by the broker; no anonymous client", async () => {
    await loadFlow([robotMqtt, mqttNodes], flowWith(simulator.url, bridgeFlow(broker.port)), {
      config: { token: DEMO_TOKEN },
      broker: { user: "nodered", password: "nodered-secret" },
    });
    const homeAssistant = await HomeAssistantClient.connect(broker.url, [`${PREFIX}/#`, `${BASE}/#`], login("homeassistant"));
    clients.push(homeAssistant);
    await waitFor(() => ROBOTS.every((serial) => homeAssistant.last.has(configTopic(serial))), 20_000, "the bridge's discovery, published as nodered");

    const viewer = await HomeAssistantClient.connect(broker.url, [`${BASE}/#`], login("viewer"));
    clients.push(viewer);
    await waitFor(() => viewer.last.has(`${BASE}/GS-S-000101/state`), 10_000, "a viewer reads the states");
    // MQTT 5: the broker answers the publish with "not authorized" and passes it to no one.
    await assert.rejects(viewer.publish(`${BASE}/GS-S-000101/command`, "return_to_base"), /not authorized/i);

    const taken = await resultOf(homeAssistant, "GS-S-000101", "command", "return_to_base");
    assert.deepEqual([taken.command, taken.ok], ["CROSS_NAVIGATE", true], String(taken.reason));
    assert.equal(homeAssistant.on(`${BASE}/GS-S-000101/result`).length, 1, "one result: Home Assistant's command's, none for the viewer's");
    assert.equal(simulator.state.commands("GS-S-000101").length, 1, "one command reached the cloud");
    await assert.rejects(homeAssistant.publish(`${BASE}/GS-S-000101/state`, '{"state": "docked"}'), /not authorized/i, "Home Assistant cannot fake a state");

    await assert.rejects(connectOnce(broker.url, {}), /not authorized|bad user/i, "an anonymous client");
    await assert.rejects(connectOnce(broker.url, { username: "viewer", password: "guess" }), /not authorized|bad user/i, "a wrong password");
  });
});
