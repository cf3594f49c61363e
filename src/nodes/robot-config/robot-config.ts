/**
 * robot-config: the cloud's base URL, how to authenticate, and everything that
 * is per account. It owns the one RobotClient (and so the one request engine:
 * pool, pacing, queue, pause) that every node using this config shares, so a
 * token fetched with client credentials is fetched once for all of them and a
 * burst from many nodes is held and paced as one.
 */
import type { NodeAPI } from "node-red";
import { readAccountSettings, type AccountSettings, DEFAULT_BASE_URL, DEFAULT_REDIS_PREFIX, REDIS_PREFIX_PATTERN, REDIS_URL_RULES, brokenUrlRule, parseUrl } from "../../api/settings/input-rules";
import type { RobotClient } from "../../api/client";
import type { AccountSharing } from "../../api/account/shared-account";
import { clientModule } from "../shared/api";
import { internalError, invalidInput } from "../../api/errors";
import { registerEditorApi } from "./editor-api";
import { robotDirectoryOf } from "../../api/account/robot-directory";
import { unreachableEventText, unreachableRobotsOf } from "../../api/watching/unreachable-robots";
import { editorTables } from "./editor-tables";
import type { RobotConfigCredentials, RobotConfigNode, RobotConfigProperties } from "../shared/types";

export const CONFIG_CREDENTIALS = {
  token: { type: "password" },
  clientId: { type: "text" },
  clientSecret: { type: "password" },
  accessKeySecret: { type: "password" },
  redisPassword: { type: "password" },
} as const;

type SharingLog = (level: "warn" | "info", text: string) => void;

/** The problem with a Redis URL, after its field's name, or undefined when it is usable (REDIS_URL_RULES). */
export function redisUrlProblem(value: string): string | undefined {
  const url = parseUrl(value);
  const broken = url ? brokenUrlRule(url, REDIS_URL_RULES) : "protocol";
  if (broken === "protocol") return "must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379";
  if (broken === "parts") return "must hold no password, query or fragment (the password is its own field)";
  return undefined;
}

/** The Redis settings as the runtime reads them: undefined when the URL is empty (not shared); a bad one names its field. */
export function readRedisSettings(config: Pick<RobotConfigProperties, "redisUrl" | "redisPrefix">): { url: string; prefix: string } | undefined {
  const url = (config.redisUrl ?? "").trim();
  if (url === "") return undefined;
  const urlProblem = redisUrlProblem(url);
  if (urlProblem) throw invalidInput("redisUrl", urlProblem);
  const prefix = (config.redisPrefix ?? "").trim() || DEFAULT_REDIS_PREFIX;
  if (!REDIS_PREFIX_PATTERN.test(prefix)) throw invalidInput("redisPrefix", "must be 1-64 letters, digits, '.', '_' or '-'");
  return { url, prefix };
}

/** The account's sharing when robot-config has a Redis URL (loading the Redis modules only then). */
function sharingOf(config: RobotConfigProperties, credentials: RobotConfigCredentials, account: { baseUrl: string; identity: string }, settings: AccountSettings, clientSecret: string | undefined, log: SharingLog): AccountSharing | undefined {
  const redis = readRedisSettings(config);
  if (!redis) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- no Redis module is loaded for an account that is not shared
  const { shareAccount } = require("../../api/sharing") as typeof import("../../api/sharing");
  const { url, prefix } = redis;
  return shareAccount({
    url,
    password: credentials.redisPassword || undefined,
    prefix,
    account,
    rateLimit: settings.rateLimit,
    callTimeoutMs: settings.timeout * 1000,
    clientSecret,
    log,
  });
}

export function createClient(config: RobotConfigProperties, credentials: RobotConfigCredentials, log: SharingLog = () => undefined): RobotClient {
  const settings = readAccountSettings(config);
  const baseUrl = config.baseUrl?.trim() || DEFAULT_BASE_URL;
  const common = {
    baseUrl,
    timeoutMs: settings.timeout * 1000,
    retry: { maxRetries: settings.maxRetries, maxRetryWaitMs: settings.maxRetryWait * 1000 },
    engine: { connections: settings.connections, rateLimit: settings.rateLimit, queueLimit: settings.queueLimit },
    arrivalRadius: settings.arrivalRadius,
  };
  const { RobotClient } = clientModule();
  if (config.authMode === "clientCredentials") {
    const { clientId = "", clientSecret = "", accessKeySecret = "" } = credentials;
    for (const [field, value] of Object.entries({ clientId, clientSecret, accessKeySecret })) {
      if (!value) throw invalidInput(field, "is required for client-credential sign-in");
    }
    const sharing = sharingOf(config, credentials, { baseUrl, identity: clientId }, settings, clientSecret, log);
    return new RobotClient({ ...common, auth: { clientId, clientSecret, accessKeySecret }, sharing });
  }
  if (!credentials.token) throw invalidInput("token", "no access token is configured");
  const sharing = sharingOf(config, credentials, { baseUrl, identity: credentials.token }, settings, undefined, log);
  return new RobotClient({ ...common, auth: { token: credentials.token }, sharing });
}

export default function registerRobotConfig(RED: NodeAPI): void {
  function RobotConfig(this: RobotConfigNode, config: RobotConfigProperties) {
    RED.nodes.createNode(this, config);
    let detachDirectory: () => void = () => undefined;
    let detachUnreachable: () => void = () => undefined;
    try {
      const log: SharingLog = (level, text) => (level === "warn" ? this.warn(text) : this.log(text));
      const client = createClient(config, this.credentials ?? {}, log);
      this.robot = { client };
      // Names, models and software versions come from the robot list: read now (unless a redeploy finds it fresh), then every interval.
      detachDirectory = robotDirectoryOf(client.accountKey).attach(client, readAccountSettings(config).robotListInterval * 60_000);
      // A robot whose status the cloud refuses is named once per backoff step, not at every poll (the api layer has no log).
      detachUnreachable = unreachableRobotsOf(client.accountKey).onEvent((event) =>
        event.kind === "refused" ? this.warn(unreachableEventText(event)) : this.log(unreachableEventText(event)),
      );
    } catch (error) {
      this.robot = {
        error: internalError(error),
      };
    }
    this.on("close", (_removed: boolean, done: () => void) => {
      // Every queued and running call of the account ends (quietly: its nodes are closing too).
      detachDirectory();
      detachUnreachable();
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
