/**
 * robot-config: the cloud's base URL and how to authenticate. It owns the one
 * RobotClient that every node using this config shares, so a token fetched
 * with client credentials is fetched once for all of them.
 */
import type { Node, NodeAPI, NodeDef } from "node-red";
import { DEFAULT_BASE_URL, DEFAULT_TIMEOUT_MS, RobotClient } from "../api/client";
import { RobotApiError, invalidInput } from "../api/errors";

export type AuthMode = "token" | "clientCredentials";

export interface RobotConfigProperties extends NodeDef {
  baseUrl: string;
  /** Request timeout in seconds. */
  timeout: string | number;
  authMode: AuthMode;
  /** How many times a rate-limited call is retried before it is reported. */
  maxRetries: string | number;
}

export interface RobotConfigCredentials {
  token?: string;
  clientId?: string;
  clientSecret?: string;
  accessKeySecret?: string;
}

export interface RobotConfigNode extends Node<RobotConfigCredentials> {
  /** The shared client, or the reason there is none (shown by every node that uses this config). */
  robot: { client: RobotClient } | { error: RobotApiError };
}

export const CONFIG_CREDENTIALS = {
  token: { type: "password" },
  clientId: { type: "text" },
  clientSecret: { type: "password" },
  accessKeySecret: { type: "password" },
} as const;

function numberSetting(value: string | number | undefined, field: string, fallback: number, min: number): number {
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number < min) throw invalidInput(field, `must be a number of at least ${min}`);
  return number;
}

export function createClient(config: RobotConfigProperties, credentials: RobotConfigCredentials): RobotClient {
  const timeoutMs = numberSetting(config.timeout, "timeout", DEFAULT_TIMEOUT_MS / 1000, 0.1) * 1000;
  const maxRetries = Math.floor(numberSetting(config.maxRetries, "maxRetries", 3, 0));
  const baseUrl = config.baseUrl?.trim() || DEFAULT_BASE_URL;
  if (config.authMode === "clientCredentials") {
    const { clientId = "", clientSecret = "", accessKeySecret = "" } = credentials;
    for (const [field, value] of Object.entries({ clientId, clientSecret, accessKeySecret })) {
      if (!value) throw invalidInput(field, "is required for client-credential sign-in");
    }
    return new RobotClient({ baseUrl, timeoutMs, retry: { maxRetries }, auth: { clientId, clientSecret, accessKeySecret } });
  }
  if (!credentials.token) throw invalidInput("token", "no access token is configured");
  return new RobotClient({ baseUrl, timeoutMs, retry: { maxRetries }, auth: { token: credentials.token } });
}

export default function registerRobotConfig(RED: NodeAPI): void {
  function RobotConfig(this: RobotConfigNode, config: RobotConfigProperties) {
    RED.nodes.createNode(this, config);
    try {
      this.robot = { client: createClient(config, this.credentials ?? {}) };
    } catch (error) {
      this.robot = {
        error: error instanceof RobotApiError ? error : invalidInput("", String(error)),
      };
    }
  }
  RED.nodes.registerType<RobotConfigNode, RobotConfigProperties, unknown, RobotConfigCredentials>("robot-config", RobotConfig, {
    credentials: CONFIG_CREDENTIALS,
  });
}
