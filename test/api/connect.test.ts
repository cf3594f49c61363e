/**
 * Failures before the request is written are safe to send again: a connection
 * refused, or one that never gets ready (here a TLS handshake that a silent
 * loopback server never answers). Each is retried maxRetries times, counted,
 * and then reported as a network error that says it never connected.
 */
import assert from "node:assert/strict";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { RobotClient } from "../../src/api/client";
import { failureOf } from "../support/failures";

const COMMAND = { serialNumber: "GS-S-000101", remoteTaskCommandType: "RESUME_TASK" } as const;

describe("api: connections that never get ready", function () {
  let silent: net.Server;
  let port: number;
  let accepted = 0;
  let bytesReceived = 0;
  const sockets = new Set<net.Socket>();

  before(async () => {
    // Accepts every connection, reads what comes and never answers: a TLS client waits for its ServerHello.
    silent = net.createServer((socket) => {
      accepted++;
      sockets.add(socket);
      socket.on("data", (chunk) => (bytesReceived += chunk.length));
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    port = (silent.address() as AddressInfo).port;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });
  beforeEach(() => {
    accepted = 0;
    bytesReceived = 0;
  });

  it("a TLS handshake that never completes is a failed connect: a command is tried maxRetries+1 times, then reported", async function () {
    // Connect time is half the timeout: 300 ms here.
    const client = new RobotClient({
      baseUrl: `https://127.0.0.1:${port}`,
      auth: { token: "connect-test-token-81c2" },
      timeoutMs: 600,
      retry: { maxRetries: 2, baseDelayMs: 1 },
    });
    const error = await failureOf(client.submitCommand(COMMAND));
    assert.equal(error.kind, "network");
    assert.equal(error.connectFailed, true);
    assert.match(error.message, /could not connect within 0\.3 s/);
    assert.equal(accepted, 3, "one connection per try");
    // Only ClientHellos arrived: no HTTP request (and no token) was ever written.
    assert.ok(bytesReceived > 0);
    client.close();
  });

  it("the connect limit is only for connecting: the call's own timeout still ends a slow answer, which is not resent", async function () {
    const client = new RobotClient({
      baseUrl: `http://127.0.0.1:${port}`,
      auth: { token: "connect-test-token-81c2" },
      timeoutMs: 400,
      retry: { maxRetries: 2, baseDelayMs: 1 },
    });
    const error = await failureOf(client.submitCommand(COMMAND));
    assert.equal(error.kind, "timeout");
    assert.equal(accepted, 1, "a command that may have been delivered is never sent twice");
    client.close();
  });
});
