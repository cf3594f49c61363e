/**
 * The config node's shapes, apart from its runtime: every robot node reads a
 * RobotConfigNode, and none of them needs to load robot-config.ts for it.
 */
import type { Node, NodeDef } from "node-red";
import type { AccountSettingName } from "../../api/settings/input-rules";
import type { RobotClient } from "../../api/client";
import type { RobotApiError } from "../../api/errors";

export type AuthMode = "token" | "clientCredentials";

export interface RobotConfigProperties extends NodeDef, Partial<Record<AccountSettingName, string | number>> {
  baseUrl: string;
  authMode: AuthMode;
  /** "Share with other Node-RED instances": empty shares nothing (and loads no Redis module). */
  redisUrl?: string;
  redisPrefix?: string;
}

export interface RobotConfigCredentials {
  token?: string;
  clientId?: string;
  clientSecret?: string;
  accessKeySecret?: string;
  redisPassword?: string;
}

export interface RobotConfigNode extends Node<RobotConfigCredentials> {
  /** The shared client, or the reason there is none (shown by every node that uses this config). */
  robot: { client: RobotClient } | { error: RobotApiError };
}
