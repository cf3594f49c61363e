/**
 * robot-config's Test button as the editor calls it (GET robot-fleet/config/<id>/test
 * on the admin API, through real Node-RED): each way a first call fails is
 * named for what it is, so a person knows whether to fix the URL, the
 * credentials or the network.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { flowWith, helper, loadFlow, useRecordingServerAndNodeRed } from "../support/node-red";

interface TestAnswer {
  status: number;
  body: { robots?: number; error?: { code: string; message: string } };
}

async function pressTest(): Promise<TestAnswer> {
  const answer = await (helper.request() as unknown as { get(path: string): Promise<{ status: number; body: TestAnswer["body"] }> }).get("/robot-fleet/config/config/test");
  return { status: answer.status, body: answer.body };
}

/** A loopback port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("robot-config: the Test button's answers", function () {
  const stub = useRecordingServerAndNodeRed();

  it("lists the robots when the account works", async () => {
    stub.server.respondWith(() => ({ body: { robots: [{ serialNumber: "GS-S-1" }, { serialNumber: "GS-S-2" }], total: "2" } }));
    await loadFlow([], flowWith(stub.server.url, []));
    const answer = await pressTest();
    assert.equal(answer.status, 200);
    assert.equal(answer.body.robots, 2);
  });

  it("names a refused connection with the host and port it was refused by", async () => {
    const port = await closedPort();
    await loadFlow([], flowWith(`http://127.0.0.1:${port}`, [], { maxRetries: 0 }));
    const answer = await pressTest();
    assert.equal(answer.status, 502);
    assert.equal(answer.body.error?.code, "CONNECTION_REFUSED");
    assert.equal(answer.body.error?.message, `127.0.0.1:${port}`);
  });

  it("names refused credentials: a token the cloud answers 401 to", async () => {
    stub.server.respondWith(() => ({ status: 401, body: { code: 16, message: "token expired" } }));
    await loadFlow([], flowWith(stub.server.url, []));
    const answer = await pressTest();
    assert.equal(answer.body.error?.code, "CREDENTIALS_REFUSED");
    assert.match(answer.body.error.message, /token expired/);
  });

  it("names refused credentials: client credentials the token grant refuses", async () => {
    stub.server.respondWith((request) => (request.path.includes("oauth/token") ? { status: 401, body: { code: 16, message: "invalid client" } } : { body: { robots: [], total: "0" } }));
    await loadFlow([], flowWith(stub.server.url, [], { authMode: "clientCredentials" }), { config: { clientId: "id", clientSecret: "secret", accessKeySecret: "key" } });
    const answer = await pressTest();
    assert.equal(answer.body.error?.code, "CREDENTIALS_REFUSED");
  });

  it("names a robot the account may not read apart from refused credentials", async () => {
    stub.server.respondWith(() => ({ status: 403, body: { code: 7, message: "no access to robots" } }));
    await loadFlow([], flowWith(stub.server.url, []));
    const answer = await pressTest();
    assert.equal(answer.body.error?.code, "PERMISSION_DENIED");
  });

  it("names no answer within the timeout, with the timeout", async () => {
    stub.server.respondWith(() => ({ delayMs: 3000, body: { robots: [], total: "0" } }));
    await loadFlow([], flowWith(stub.server.url, [], { timeout: 1, maxRetries: 0 }));
    const answer = await pressTest();
    assert.equal(answer.body.error?.code, "TIMEOUT");
    assert.equal(answer.body.error?.message, "1");
  });
});
