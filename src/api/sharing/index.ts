/**
 * An account shared by several Node-RED instances through Redis: what
 * robot-config builds when it has a Redis URL, and nothing loads this module
 * (or ioredis and rate-limiter-flexible) when it has none.
 */
import type { AccountSharing } from "../account/shared-account";
import { RedisLink, type RedisLinkOptions } from "./redis-link";
import { SharedRate } from "./shared-rate";
import { SharedStatuses } from "./shared-statuses";
import { SharedDirectory } from "./shared-directory";
import { SharedToken } from "./shared-token";
import { RedisOccurrenceClaims, RedisReportClaims, RedisRobotClaims } from "./robot-claims";
import { RedisWatchLease } from "./watch-lease";

export interface ShareAccountOptions extends RedisLinkOptions {
  /** The account's Rate limit (calls per second for all instances together). */
  rateLimit: number;
  callTimeoutMs: number;
  /** With client credentials: the secret the shared token is encrypted with. A fixed token shares no token. */
  clientSecret?: string;
}

export function shareAccount(options: ShareAccountOptions): AccountSharing {
  const link = new RedisLink(options);
  return {
    gate: new SharedRate(link, { rateLimit: options.rateLimit, callTimeoutMs: options.callTimeoutMs }),
    statuses: new SharedStatuses(link),
    ...(options.clientSecret ? { token: new SharedToken(link, options.clientSecret) } : {}),
    watchLease: <State>(nodeId: string, intervalMs: number) => new RedisWatchLease<State>(link, nodeId, intervalMs),
    robotClaims: new RedisRobotClaims(link),
    occurrenceClaims: new RedisOccurrenceClaims(link),
    reportClaims: new RedisReportClaims(link),
    directory: new SharedDirectory(link),
    close: () => link.close(),
  };
}
