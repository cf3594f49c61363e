/**
 * The paths measured outside Node-RED: bare node:http, tuned raw axios and
 * the typed client. Each does the same job per message: serialise the request
 * object, POST it with the bearer token, parse the JSON answer, within 10 s.
 */
import http from "node:http";
import axios from "axios";
import { RobotClient, type RobotClientOptions } from "../../src/api/client";
import { BENCH_TOKEN, COMMAND_REQUEST, COMMANDS_PATH, SERIAL } from "./answer-server";
import type { Target } from "./drive";
import { CONNECTIONS } from "./settings";

/** A path ready to measure, and what to release once its row is over. */
export interface Prepared {
  target: Target;
  cleanup?(): void;
}

const TIMEOUT_MS = 10_000;

/** node:http with a keep-alive agent: the floor every other path is compared with. */
export function bareHttp(baseUrl: string): Prepared {
  const { hostname, port } = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  return {
    target: (settle) => () => {
      let ended = false;
      const end = (error?: unknown) => {
        if (ended) return;
        ended = true;
        if (error === undefined) settle();
        else settle(error);
      };
      const body = JSON.stringify(COMMAND_REQUEST);
      const req = http.request(
        {
          hostname,
          port,
          path: COMMANDS_PATH,
          method: "POST",
          agent,
          timeout: TIMEOUT_MS,
          headers: {
            "Content-Type": "application/json",
            "Content-Length": Buffer.byteLength(body),
            Authorization: `Bearer ${BENCH_TOKEN}`,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", end);
          res.on("end", () => {
            if (res.statusCode !== 200) return end(new Error(`HTTP ${res.statusCode}`));
            try {
              JSON.parse(Buffer.concat(chunks).toString("utf8"));
              end();
            } catch (error) {
              end(error);
            }
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error("timed out")));
      req.on("error", end);
      req.end(body);
    },
    cleanup: () => agent.destroy(),
  };
}

/**
 * Hand-written axios as a careful engineer would tune it: a pooled keep-alive
 * agent, no redirect follower (maxRedirects 0 takes axios's plain http
 * transport), a string body, the answer read as text and parsed once. The
 * 10 s timeout is not a speed-up but part of the same job the client does.
 */
export function tunedAxios(baseUrl: string): Prepared {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const instance = axios.create({
    baseURL: baseUrl,
    httpAgent: agent,
    maxRedirects: 0,
    timeout: TIMEOUT_MS,
    responseType: "text",
    transformResponse: [(data: unknown) => data],
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${BENCH_TOKEN}` },
  });
  return {
    target: (settle) => () => {
      void instance
        .post<string>(COMMANDS_PATH, JSON.stringify(COMMAND_REQUEST))
        .then((answer) => {
          JSON.parse(answer.data);
          settle();
        })
        .catch((error: unknown) => settle(error ?? new Error("rejected")));
    },
    cleanup: () => agent.destroy(),
  };
}

/** The engine options the client takes once the request engine lands (an unknown key before). */
type BenchClientOptions = RobotClientOptions & { engine?: { connections: number; rateLimit: number; queueLimit: number } };

/** The typed client; one per row, so each row starts with its own pool. */
export function typedClient(baseUrl: string): Prepared {
  const options: BenchClientOptions = {
    baseUrl,
    auth: { token: BENCH_TOKEN },
    timeoutMs: TIMEOUT_MS,
    retry: { maxRetries: 0 },
    engine: { connections: CONNECTIONS, rateLimit: 0, queueLimit: 200_000 },
  };
  const client = new RobotClient(options);
  return {
    target: (settle) => () => {
      void client
        .submitCommand({ serialNumber: SERIAL, remoteTaskCommandType: "PAUSE_TASK" })
        .then(() => settle())
        .catch((error: unknown) => settle(error ?? new Error("rejected")));
    },
    // close() comes with the engine; before it the client holds nothing of its own.
    cleanup: () => (client as { close?: () => void }).close?.(),
  };
}
