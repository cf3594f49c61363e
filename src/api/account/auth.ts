/**
 * Where the bearer token comes from: a fixed access token, or the cloud's
 * open-access grant with the portal's client credentials (docs/cloud-api.md).
 */
import { abortedError, invalidInput } from "../errors";
import type { TokenAnswer, TokenRequest } from "../cloud/schemas";
import { OPEN_ACCESS_GRANT_TYPE } from "../cloud/schemas";

export interface TokenSource {
  /** The token to send; `signal` lets a caller stop waiting for a grant that others still share. */
  getToken(signal?: AbortSignal): Promise<string>;
  /**
   * The server answered 401 to `token`. Returns true when a fresh token can be
   * fetched (so the request is worth sending once more).
   */
  invalidate(token: string): boolean;
  /** Values that must never appear in an error message or output: every token ever sent, and the secrets. */
  secrets(): string[];
}

/**
 * Tokens remembered for redaction. A config renews about once a day; a cloud
 * that hands out tokens already expired is kept from churning (see fetchToken),
 * so this bound is only reached by a grant every few seconds for an hour.
 */
const REMEMBERED_TOKENS = 1000;

/** Waits for `pending` unless `signal` aborts first; the shared work goes on for its other waiters. */
function unlessAborted<T>(pending: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return pending;
  if (signal.aborted) return Promise.reject(abortedError("grantToken"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError("grantToken"));
    signal.addEventListener("abort", onAbort, { once: true });
    const stopListening = () => signal.removeEventListener("abort", onAbort);
    pending.then(stopListening, stopListening);
    pending.then(resolve, reject);
  });
}

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** The portal's AccessKeySecret (not the AccessKeyID), sent as open_access_key. */
  accessKeySecret: string;
}

export class StaticTokenSource implements TokenSource {
  constructor(private readonly token: string) {}

  getToken(): Promise<string> {
    if (!this.token) return Promise.reject(invalidInput("token", "no access token is configured"));
    return Promise.resolve(this.token);
  }

  invalidate(): boolean {
    return false;
  }

  secrets(): string[] {
    return this.token ? [this.token] : [];
  }
}

/**
 * The grant's `expires_in` has been seen as an absolute epoch in milliseconds;
 * read it by magnitude: > 1e12 epoch ms, > 1e9 epoch s, else seconds from now.
 * Returns undefined when the answer gives no usable expiry.
 */
export function expiryFromExpiresIn(expiresIn: number | string | undefined, now: number): number | undefined {
  const value = Number(expiresIn);
  if (expiresIn === undefined || expiresIn === "" || !Number.isFinite(value) || value <= 0) return undefined;
  if (value > 1e12) return value;
  if (value > 1e9) return value * 1000;
  return now + value * 1000;
}

export type GrantFunction = (request: TokenRequest) => Promise<TokenAnswer>;

/** A token as kept for the account: the bearer and when to ask for the next one (epoch ms; Infinity: at a 401). */
export interface HeldToken {
  token: string;
  renewAt: number;
}

/**
 * Where the processes sharing an account keep its one token
 * (src/api/sharing/shared-token.ts): one of them asks the cloud, the others
 * use what it got, and a token the cloud refused is dropped for all.
 */
export interface SharedTokenStore {
  /** The account's token if one is held and not due for renewal; otherwise gets one by `grant`, asked by one process at a time. */
  tokenOr(grant: () => Promise<HeldToken>, now: number): Promise<HeldToken>;
  /** The cloud answered 401 to `token`: it is dropped for every process (unless another already replaced it). */
  drop(token: string): void;
}

/** A token is renewed this long before it expires (at most a tenth of its lifetime before). */
export const RENEW_BEFORE_MS = 5 * 60_000;

export interface ClientCredentialsOptions {
  now?: () => number;
  /** Shares the token with the other processes of the account (robot-config's Redis). */
  shared?: SharedTokenStore;
}

export class ClientCredentialsTokenSource implements TokenSource {
  private token: string | undefined;
  /** Every token this source has handed out, newest last: a server may echo an old one back. */
  private readonly sentTokens: string[] = [];
  private renewAt = 0;
  /** One grant in flight at a time: concurrent requests share it. */
  private pending: Promise<string> | undefined;
  private readonly now: () => number;
  private readonly shared: SharedTokenStore | undefined;

  constructor(
    private readonly credentials: ClientCredentials,
    private readonly grant: GrantFunction,
    options: ClientCredentialsOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.shared = options.shared;
  }

  getToken(signal?: AbortSignal): Promise<string> {
    if (this.token !== undefined && this.now() < this.renewAt) return Promise.resolve(this.token);
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = undefined;
    });
    return unlessAborted(this.pending, signal);
  }

  invalidate(token: string): boolean {
    if (this.token === token) this.token = undefined;
    this.shared?.drop(token);
    return true;
  }

  secrets(): string[] {
    const { clientSecret, accessKeySecret } = this.credentials;
    return [clientSecret, accessKeySecret, ...this.sentTokens].filter((secret) => secret !== "");
  }

  private async fetchToken(): Promise<string> {
    const held = this.shared ? await this.shared.tokenOr(() => this.grantToken(), this.now()) : await this.grantToken();
    this.token = held.token;
    this.renewAt = held.renewAt;
    if (!this.sentTokens.includes(held.token)) {
      this.sentTokens.push(held.token);
      if (this.sentTokens.length > REMEMBERED_TOKENS) this.sentTokens.shift();
    }
    return held.token;
  }

  /** Asks the cloud for a token, and says when to ask for the next. */
  private async grantToken(): Promise<HeldToken> {
    const requestedAt = this.now();
    const answer = await this.grant({
      grant_type: OPEN_ACCESS_GRANT_TYPE,
      client_id: this.credentials.clientId,
      client_secret: this.credentials.clientSecret,
      open_access_key: this.credentials.accessKeySecret,
    });
    const expiresAt = expiryFromExpiresIn(answer.expires_in, requestedAt);
    // Without a usable expiry (none, or already past when granted: a clock off on either side) the token is
    // kept until the server answers 401, rather than fetched again for every call.
    const renewAt =
      expiresAt === undefined || expiresAt <= requestedAt
        ? Number.POSITIVE_INFINITY
        : expiresAt - Math.min(RENEW_BEFORE_MS, Math.max(0, (expiresAt - requestedAt) / 10));
    return { token: answer.access_token, renewAt };
  }
}
