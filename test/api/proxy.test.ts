/**
 * Proxies as Node-RED users know them from the core http request node:
 * http_proxy / https_proxy / no_proxy (either case) read when a client is
 * made, through a forward proxy on loopback: http calls in absolute form with
 * Basic proxy credentials, https calls tunnelled with CONNECT so the token is
 * never seen by the proxy, a refused tunnel retried as a failed connection,
 * no_proxy honoured, and map downloads following the same rules without the
 * token. Plus the rules themselves (proxyFor: proxy-from-env's decision, read
 * from the environment).
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import { proxyFor } from "../../src/api/http/http";
import { failureOf } from "../support/failures";
import { ProxyServer } from "../support/proxy-server";
import { RecordingServer } from "../support/recording-server";

const TOKEN = "tok-proxy-3e9b7c1d";
const SN = "GS-S-000101";
const PROXY_VARIABLES = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"];

/** Sets proxy variables while `make` runs (until its promise settles) and puts the old ones back. */
function withEnvironment<T>(variables: Record<string, string>, make: () => T): T {
  const saved = Object.fromEntries(PROXY_VARIABLES.map((name) => [name, process.env[name]]));
  const restore = () => {
    for (const name of PROXY_VARIABLES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  };
  for (const name of PROXY_VARIABLES) delete process.env[name];
  Object.assign(process.env, variables);
  let result: T;
  try {
    result = make();
  } catch (error) {
    restore();
    throw error;
  }
  if (result instanceof Promise) return result.finally(restore) as T;
  restore();
  return result;
}

describe("api: proxies (http_proxy, https_proxy, no_proxy)", function () {
  let proxy: ProxyServer;
  let cloud: RecordingServer;
  const clients: RobotClient[] = [];

  function clientVia(variables: Record<string, string>, baseUrl = cloud.url, maxRetries = 0): RobotClient {
    const client = withEnvironment(
      variables,
      () => new RobotClient({ baseUrl, auth: { token: TOKEN }, timeoutMs: 3000, retry: { maxRetries, baseDelayMs: 10 } }),
    );
    clients.push(client);
    return client;
  }

  before(async () => {
    proxy = await new ProxyServer().start();
    cloud = await new RecordingServer().start();
  });
  after(async () => {
    await proxy.stop();
    await cloud.stop();
  });
  beforeEach(() => {
    proxy.reset();
    cloud.reset();
    cloud.respondWith(() => ({ body: { serialNumber: SN, taskState: "IDLE", online: true } }));
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  it("sends http calls through HTTP_PROXY in absolute form; the cloud gets the same request", async () => {
    const client = clientVia({ HTTP_PROXY: proxy.url });
    const status = await client.getRobotStatus({ serialNumber: SN });
    assert.equal(status.taskState, "IDLE");
    assert.deepEqual(
      proxy.requests.map((request) => [request.method, request.url]),
      [["GET", `${cloud.url}/openapi/v2alpha1/s/robots/${SN}/status`]],
    );
    assert.equal(cloud.requests[0]!.path, `/openapi/v2alpha1/s/robots/${SN}/status`);
    assert.equal(cloud.requests[0]!.headers.authorization, `Bearer ${TOKEN}`);
  });

  it("reads the lower-case names too, and sends the proxy's user and password as Basic Proxy-Authorization", async () => {
    proxy.credentials = "ops:s3cret pass";
    const withAuth = `http://ops:${encodeURIComponent("s3cret pass")}@${proxy.url.slice("http://".length)}`;
    const client = clientVia({ http_proxy: withAuth });
    await client.getRobotStatus({ serialNumber: SN });
    assert.equal(proxy.requests[0]!.headers["proxy-authorization"], `Basic ${Buffer.from("ops:s3cret pass").toString("base64")}`);
    assert.equal(cloud.requests[0]!.headers["proxy-authorization"], undefined, "the proxy keeps its credentials");

    const refused = await failureOf(clientVia({ HTTP_PROXY: proxy.url }).getRobotStatus({ serialNumber: SN }));
    assert.equal(refused.code, "HTTP_407");
  });

  it("goes straight to the cloud when NO_PROXY names it (host, host:port, a suffix or *)", async () => {
    const host = new URL(cloud.url);
    for (const noProxy of [host.hostname, `${host.hostname}:${host.port}`, "*", "example.test, 127.0.0.1"]) {
      await clientVia({ HTTP_PROXY: proxy.url, NO_PROXY: noProxy }).getRobotStatus({ serialNumber: SN });
    }
    assert.equal(proxy.requests.length, 0);
    assert.equal(cloud.requests.length, 4);
    await clientVia({ HTTP_PROXY: proxy.url, NO_PROXY: `${host.hostname}:1` }).getRobotStatus({ serialNumber: SN });
    assert.equal(proxy.requests.length, 1, "another port is not exempt");
  });

  it("tunnels https calls with CONNECT: the proxy sees the host and port, never the token", async () => {
    // The cloud here speaks plain http, so TLS inside the tunnel fails after its first bytes: enough to see
    // that the tunnel was asked for and that what went through it was a TLS handshake, not a request.
    const port = new URL(cloud.url).port;
    proxy.credentials = "ops:pw";
    const client = clientVia({ HTTPS_PROXY: `http://ops:pw@127.0.0.1:${new URL(proxy.url).port}` }, `https://127.0.0.1:${port}`);
    const failure = await failureOf(client.getRobotStatus({ serialNumber: SN }));
    assert.equal(failure.kind, "network");
    assert.equal(proxy.tunnels.length, 1);
    assert.equal(proxy.tunnels[0]!.target, `127.0.0.1:${port}`);
    assert.equal(proxy.tunnels[0]!.headers["proxy-authorization"], `Basic ${Buffer.from("ops:pw").toString("base64")}`);
    assert.equal(proxy.tunnels[0]!.headers.authorization, undefined);
    const sent = Buffer.concat(proxy.tunnels[0]!.sent);
    assert.equal(sent[0], 0x16, "a TLS handshake record went into the tunnel");
    assert.ok(!sent.includes(TOKEN), "the token never crossed the proxy in clear");
    assert.equal(proxy.requests.length, 0, "no plain request went to the proxy");
  });

  it("treats a refused tunnel as a failed connection: retried, then an error naming the proxy without its password", async () => {
    proxy.refuseTunnels = 403;
    const client = clientVia({ HTTPS_PROXY: `http://ops:hunter2@127.0.0.1:${new URL(proxy.url).port}` }, "https://robots.example.test", 2);
    const failure = await failureOf(client.submitCommand({ serialNumber: SN, remoteTaskCommandType: "PAUSE_TASK" }));
    assert.equal(failure.code, "NETWORK_ERROR");
    assert.equal(proxy.tunnels.length, 3, "nothing reached the cloud, so the command was tried 1 + maxRetries times");
    assert.match(failure.message, /proxy http:\/\/127\.0\.0\.1:\d+ answered 403/);
    assert.ok(!failure.message.includes("hunter2"));
  });

  it("fetches map images through the proxy as well, without the token", async () => {
    const objects = await new RecordingServer().start();
    try {
      objects.respondWith(() => ({ body: Buffer.from([0x89, 0x50, 0x4e, 0x47]), headers: { "Content-Type": "image/png" } }));
      const link = `${objects.url.replace("127.0.0.1", "localhost")}/maps/${SN}/floor-1.png?X-Signature=abc`;
      cloud.respondWith(() => ({ body: { downloadUri: link } }));
      // A download's proxy is decided when it is fetched (another host each time), by the environment then.
      const image = await withEnvironment({ HTTP_PROXY: proxy.url }, () =>
        clientVia({ HTTP_PROXY: proxy.url }).getMapImage({ serialNumber: SN, mapId: "m1", mapName: "Floor 1", mapVersion: "3" }),
      );
      assert.equal(image.contentType, "image/png");
      const download = proxy.requests.find((request) => request.url.startsWith(link.split("?")[0]!));
      assert.ok(download, `the download went through the proxy: ${proxy.requests.map((request) => request.url).join(", ")}`);
      assert.equal(download.headers.authorization, undefined);
      assert.equal(objects.requests[0]!.headers.authorization, undefined);
    } finally {
      await objects.stop();
    }
  });

  describe("the rules", function () {
    const target = (url: string) => new URL(url);
    const proxyWith = (variables: Record<string, string>, url: string) => withEnvironment(variables, () => proxyFor(target(url))?.href);
    it("picks https_proxy for https targets and http_proxy for http ones; a proxy without a scheme is http", () => {
      const env = { https_proxy: "proxy.corp:3128", http_proxy: "http://plain.corp:8080" };
      assert.equal(proxyWith(env, "https://openapi.gs-robot.com"), "http://proxy.corp:3128/");
      assert.equal(proxyWith(env, "http://127.0.0.1:18080"), "http://plain.corp:8080/");
      assert.equal(proxyWith({ HTTPS_PROXY: "proxy.corp:3128" }, "https://openapi.gs-robot.com"), "http://proxy.corp:3128/");
      assert.equal(proxyWith({}, "https://openapi.gs-robot.com"), undefined);
      assert.throws(() => proxyWith({ HTTPS_PROXY: "socks5://proxy:1080" }, "https://x.test"), /only http:\/\/ proxies/);
    });
    it("matches no_proxy entries by host, .suffix or *.suffix, port and *", () => {
      const cloudUrl = "https://openapi.gs-robot.com";
      const exempt = (noProxy: string, url = cloudUrl) =>
        proxyWith({ HTTPS_PROXY: "http://proxy.corp:3128", HTTP_PROXY: "http://proxy.corp:3128", NO_PROXY: noProxy }, url) === undefined;
      assert.equal(exempt("openapi.gs-robot.com"), true);
      assert.equal(exempt(".gs-robot.com"), true);
      assert.equal(exempt("*.gs-robot.com"), true);
      assert.equal(exempt("gs-robot.com"), false, "a name without a leading dot is that host only");
      assert.equal(exempt("robot.com"), false);
      assert.equal(exempt(".robot.com"), false, "a suffix counts at a dot only");
      assert.equal(exempt("openapi.gs-robot.com:443"), true);
      assert.equal(exempt("openapi.gs-robot.com:8443"), false);
      assert.equal(exempt("*"), true);
      assert.equal(exempt("example.test, .gs-robot.com"), true);
      assert.equal(exempt("[::1]", "http://[::1]:1880"), true);
      assert.equal(exempt(""), false);
    });
  });
});
