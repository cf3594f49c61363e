/**
 * robot-config: the cloud's base URL, how to authenticate, and everything that
 * is per account. It owns the one RobotClient (and so the one request engine:
 * pool, pacing, queue, pause) that every node using this config shares, so a
 * token fetched with client credentials is fetched once for all of them and a
 * burst from many nodes is held and paced as one.
 */
import type { NodeAPI } from "node-red";
import { readAccountSettings } from "../api/account-settings";
import type { RobotClient } from "../api/client";
import { DEFAULT_BASE_URL } from "../api/rules";
import { clientModule } from "./api";
import { RobotApiError, invalidInput } from "../api/errors";
import { registerEditorApi } from "./editor-api";
import { editorTables } from "./editor-tables";
import type { RobotConfigCredentials, RobotConfigNode, RobotConfigProperties } from "./types";

export const CONFIG_CREDENTIALS = {
  token: { type: "password" },
  clientId: { type: "text" },
  clientSecret: { type: "password" },
  accessKeySecret: { type: "password" },
} as const;

export function createClient(config: RobotConfigProperties, credentials: RobotConfigCredentials): RobotClient {
  const settings = readAccountSettings(config);
  const baseUrl = config.baseUrl?.trim() || DEFAULT_BASE_URL;
  const common = {
    baseUrl,
    timeoutMs: settings.timeout * 1000,
    retry: { maxRetries: settings.maxRetries, maxRetryWaitMs: settings.maxRetryWait * 1000 },
    engine: { connections: settings.connections, rateLimit: settings.rateLimit, queueLimit: settings.queueLimit },
  };
  const { RobotClient } = clientModule();
  if (config.authMode === "clientCredentials") {
    const { clientId = "", clientSecret = "", accessKeySecret = "" } = credentials;
    for (const [field, value] of Object.entries({ clientId, clientSecret, accessKeySecret })) {
      if (!value) throw invalidInput(field, "is required for client-credential sign-in");
    }
    return new RobotClient({ ...common, auth: { clientId, clientSecret, accessKeySecret } });
  }
  if (!credentials.token) throw invalidInput("token", "no access token is configured");
  return new RobotClient({ ...common, auth: { token: credentials.token } });
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
    this.on("close", (_removed: boolean, done: () => void) => {
      // Every queued and running call of the account ends (quietly: its nodes are closing too).
      if ("client" in this.robot) this.robot.client.close();
      done();
    });
  }
  RED.nodes.registerType<RobotConfigNode, RobotConfigProperties, unknown, RobotConfigCredentials>("robot-config", RobotConfig, {
    credentials: CONFIG_CREDENTIALS,
    // Every dialog validates with the runtime's own tables (RED.settings.robotConfigTables).
    settings: { robotConfigTables: { value: editorTables(), exportable: true } },
  });
  registerEditorApi(RED);
}
