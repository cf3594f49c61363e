/**
 * An https cloud through an http proxy, all the way: a test CA made here signs
 * the cloud's certificate, and a client in its own process, which trusts that
 * CA through NODE_EXTRA_CA_CERTS (read by Node only at start), calls the cloud
 * with HTTPS_PROXY set. The answer arrives; the proxy saw one CONNECT to the
 * host and port and encrypted bytes only, never the token; the keep-alive
 * tunnel carries every call; and the same client without the CA refuses the
 * certificate, so the trust is what made the call work.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import selfsigned from "selfsigned";
import { CHILD_NODE_OPTIONS, srcFile } from "../support/child-node";
import { ProxyServer } from "../support/proxy-server";
import { RecordingServer } from "../support/recording-server";

const TOKEN = "tok-https-tunnel-5d1f93ab";
const SN = "GS-S-000101";
const CALLS = 3;
const CLIENT_MODULE = srcFile("api/client");

/** What the child process does: CALLS status reads in a row through one client, then one line of JSON. */
const CHILD = `
const { RobotClient } = require(${JSON.stringify(CLIENT_MODULE)});
const [baseUrl, token, serialNumber, calls] = process.argv.slice(1);
const client = new RobotClient({ baseUrl, auth: { token }, timeoutMs: 5000, retry: { maxRetries: 0 } });
(async () => {
  const states = [];
  try {
    for (let i = 0; i < Number(calls); i++) states.push((await client.getRobotStatus({ serialNumber })).taskState);
    console.log(JSON.stringify({ states }));
  } catch (error) {
    console.log(JSON.stringify({ states, code: error.code, message: error.message }));
  } finally {
    client.close();
  }
})();
`;

interface ChildOutcome {
  states: string[];
  code?: string;
  message?: string;
}

async function callInChild(baseUrl: string, env: Record<string, string>): Promise<ChildOutcome> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/_proxy$|^NODE_EXTRA_CA_CERTS$/i.test(name)));
  const { stdout } = await promisify(execFile)(process.execPath, [...CHILD_NODE_OPTIONS, "-e", CHILD, baseUrl, TOKEN, SN, String(CALLS)], {
    env: { ...inherited, ...env },
    timeout: 20_000,
  });
  return JSON.parse(stdout.trim().split("\n").pop()!) as ChildOutcome;
}

describe("api: an https cloud through an http proxy (test CA, separate process)", function () {
  this.timeout(30_000);
  let directory: string;
  let caFile: string;
  let cloud: RecordingServer;
  let proxy: ProxyServer;

  before(async () => {
    const ca = await selfsigned.generate([{ name: "commonName", value: "robot-fleet test CA" }], {
      algorithm: "sha256",
      keySize: 2048,
      extensions: [
        { name: "basicConstraints", cA: true, critical: true },
        { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      ],
    });
    const leaf = await selfsigned.generate([{ name: "commonName", value: "127.0.0.1" }], {
      algorithm: "sha256",
      keySize: 2048,
      ca: { key: ca.private, cert: ca.cert },
      extensions: [
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
        { name: "extKeyUsage", serverAuth: true },
        { name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] },
      ],
    });
    directory = fs.mkdtempSync(path.join(os.tmpdir(), "robot-fleet-ca-"));
    caFile = path.join(directory, "ca.pem");
    fs.writeFileSync(caFile, ca.cert);
    cloud = await new RecordingServer({ key: leaf.private, cert: leaf.cert }).start();
    cloud.respondWith(() => ({ body: { serialNumber: SN, taskState: "IDLE", online: true } }));
    proxy = await new ProxyServer().start();
  });
  after(async () => {
    await cloud.stop();
    await proxy.stop();
    fs.rmSync(directory, { recursive: true, force: true });
  });
  beforeEach(() => {
    proxy.reset();
    cloud.requests.length = 0;
  });

  it("answers real calls through one CONNECT tunnel; the proxy never sees the token", async () => {
    assert.match(cloud.url, /^https:/);
    proxy.credentials = "ops:pw";
    const proxyUrl = `http://ops:pw@127.0.0.1:${new URL(proxy.url).port}`;
    const outcome = await callInChild(cloud.url, { HTTPS_PROXY: proxyUrl, NODE_EXTRA_CA_CERTS: caFile });
    assert.deepEqual(outcome, { states: ["IDLE", "IDLE", "IDLE"] });
    assert.equal(cloud.requests.length, CALLS);
    assert.equal(cloud.requests[0]!.headers.authorization, `Bearer ${TOKEN}`, "the cloud got the token, inside TLS");
    assert.equal(cloud.requests[0]!.path, `/openapi/v2alpha1/s/robots/${SN}/status`);
    assert.equal(proxy.tunnels.length, 1, "the keep-alive tunnel carried every call");
    assert.equal(proxy.tunnels[0]!.target, `127.0.0.1:${new URL(cloud.url).port}`);
    assert.equal(proxy.tunnels[0]!.headers["proxy-authorization"], `Basic ${Buffer.from("ops:pw").toString("base64")}`);
    const sent = Buffer.concat(proxy.tunnels[0]!.sent);
    assert.ok(sent.length > 500, `TLS records went through the tunnel (${sent.length} bytes)`);
    assert.ok(!sent.includes(TOKEN), "the token never crossed the proxy in clear");
    assert.ok(!sent.includes("Bearer"), "no request header crossed the proxy in clear");
    assert.equal(proxy.requests.length, 0, "no plain request went to the proxy");
  });

  it("refuses the cloud's certificate when the process does not trust the CA: nothing is sent to the cloud", async () => {
    const outcome = await callInChild(cloud.url, { HTTPS_PROXY: proxy.url });
    assert.deepEqual(outcome.states, []);
    assert.equal(outcome.code, "NETWORK_ERROR");
    assert.match(outcome.message ?? "", /certificate/i);
    assert.equal(proxy.tunnels.length, 1, "the tunnel was opened, the TLS handshake in it failed");
    assert.equal(cloud.requests.length, 0);
  });
});
