/**
 * Who may call the simulated cloud: the fleet's accounts with their seeded
 * tokens, tokens granted to client credentials (they expire), and the
 * per-token rate limit.
 */
import { randomBytes } from "node:crypto";
import type http from "node:http";
import type { AccountSeed } from "../world/fleet";
import type { RateLimit } from "./options";
import { Code, SimError } from "./sim-errors";
import type { Parsed } from "../world/world";

export const DEFAULT_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;
const MAX_ISSUED_TOKENS = 1000;

interface TokenGrant {
  account: AccountSeed;
  /** Undefined for the seeded tokens, which never expire. */
  expiresAt: number | undefined;
}

class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: RateLimit | undefined,
    private readonly now: () => number,
  ) {}

  /** Counts one request of `key`; returns the seconds to wait when it is over the limit. */
  take(key: string): number | undefined {
    if (!this.limit) return undefined;
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.limit.windowMs) {
      if (this.windows.size > 10_000) this.windows.clear();
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= this.limit.requests) return Math.ceil((window.start + this.limit.windowMs - now) / 1000);
    window.count++;
    return undefined;
  }

  clear(): void {
    this.windows.clear();
  }
}

export class Accounts {
  private readonly tokens = new Map<string, TokenGrant>();
  private readonly issued: string[] = [];
  private readonly accounts: AccountSeed[];
  private readonly limiter: RateLimiter;

  constructor(
    seeded: readonly AccountSeed[],
    /** Access tokens of the first account (the demo account), replacing its seeded ones. */
    demoTokens: string[] | undefined,
    rateLimit: RateLimit | undefined,
    private readonly tokenLifetimeMs: number,
    private readonly now: () => number,
  ) {
    if (rateLimit && !(rateLimit.requests >= 1 && rateLimit.windowMs > 0)) {
      throw new Error("rateLimit needs requests >= 1 and windowMs > 0");
    }
    this.limiter = new RateLimiter(rateLimit, now);
    this.accounts = structuredClone([...seeded]);
    if (demoTokens && this.accounts[0]) this.accounts[0].tokens = [...demoTokens];
    for (const account of this.accounts) {
      for (const token of account.tokens) this.tokens.set(token, { account, expiresAt: undefined });
    }
  }

  /** Every token's rate-limit window starts afresh (a reset of the simulator). */
  clearLimits(): void {
    this.limiter.clear();
  }

  /** The bearer token's account, then one request counted against the token's rate limit. */
  authenticate(req: http.IncomingMessage): AccountSeed {
    const header = req.headers.authorization ?? "";
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (!token) {
      throw new SimError(Code.UNAUTHENTICATED, "Request is missing a bearer access token.", {
        transport: true,
        headers: { "WWW-Authenticate": "Bearer" },
      });
    }
    const grant = this.tokens.get(token);
    if (!grant || (grant.expiresAt !== undefined && this.now() >= grant.expiresAt)) {
      throw new SimError(Code.UNAUTHENTICATED, "The access token is invalid or has expired.", {
        transport: true,
        headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
      });
    }
    const waitSeconds = this.limiter.take(token);
    if (waitSeconds !== undefined) {
      throw new SimError(Code.RESOURCE_EXHAUSTED, "Rate limit exceeded: slow down and retry later.", {
        headers: { "Retry-After": String(waitSeconds) },
      });
    }
    return grant.account;
  }

  /** The open-access grant (docs/cloud-api.md): client id and secret, then the AccessKeySecret as open_access_key. */
  grant(request: Parsed<"grantToken">): Record<string, unknown> {
    const account = this.accounts.find((candidate) =>
      candidate.clients.some((client) => client.clientId === request.client_id && client.clientSecret === request.client_secret),
    );
    const client = account?.clients.find((candidate) => candidate.clientId === request.client_id);
    if (!account || !client) throw new SimError(Code.UNAUTHENTICATED, "Invalid client credentials.");
    if (request.open_access_key !== client.accessKeySecret) throw new SimError(Code.INVALID_ARGUMENT, "Invalid open access key");
    const accessToken = `sim-${randomBytes(18).toString("hex")}`;
    const expiresAt = this.now() + this.tokenLifetimeMs;
    this.tokens.set(accessToken, { account, expiresAt });
    this.issued.push(accessToken);
    while (this.issued.length > MAX_ISSUED_TOKENS) this.tokens.delete(this.issued.shift()!);
    // expires_in is an absolute epoch in milliseconds, as the real cloud answers it.
    return {
      token_type: "bearer",
      access_token: accessToken,
      expires_in: expiresAt,
      refresh_token: `sim-refresh-${randomBytes(18).toString("hex")}`,
    };
  }
}
