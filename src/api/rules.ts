/**
 * Plain rules the schemas, the nodes and the editor share, kept free of zod:
 * a module that needs only these (the node files when Node-RED loads them,
 * the editor's tables) does not pay for loading the schemas.
 */

/**
 * Serial numbers end up in URL paths. Letters, digits, '-' and '_' only: no
 * '/', '.', '%' or '?' can steer a request to another path.
 */
export const SERIAL_NUMBER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
/** What a value that fails SERIAL_NUMBER_PATTERN is told, after its field's name. */
export const SERIAL_NUMBER_RULE = "must be 1-128 letters, digits, '-' or '_'";

export const DEFAULT_BASE_URL = "https://openapi.gs-robot.com";

/**
 * What a URL may be: one of these protocols, and none of these parts. The
 * rules are data so that the editor's dialogs apply the same ones (they parse
 * with the same WHATWG URL); brokenUrlRule is their one check on the runtime.
 */
export interface UrlRules {
  readonly protocols: readonly string[];
  readonly forbiddenParts: readonly ("username" | "password" | "search" | "hash")[];
}

/** The URL `raw` stands for, or undefined when it is none. */
export function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** Which of `rules` a URL breaks: its protocol, or a part it must not hold; undefined when it keeps them. */
export function brokenUrlRule(url: URL, rules: UrlRules): "protocol" | "parts" | undefined {
  if (!rules.protocols.includes(url.protocol)) return "protocol";
  return rules.forbiddenParts.some((part) => url[part] !== "") ? "parts" : undefined;
}

/** What a base URL may be. */
export const BASE_URL_RULES = {
  protocols: ["http:", "https:"],
  forbiddenParts: ["username", "password", "search", "hash"],
} as const satisfies UrlRules;

/**
 * A map image's pre-signed download URL: http or https only (no file:, data:
 * or other schemes), no user name or password; its query is its signature.
 */
export const DOWNLOAD_URL_RULES = {
  protocols: ["http:", "https:"],
  forbiddenParts: ["username", "password"],
} as const satisfies UrlRules;

/**
 * What robot-config's Redis URL may be ("Share with other Node-RED
 * instances"), as data for the editor too: redis:// or rediss://, a user name
 * allowed (Redis ACLs), the password never (it is a credential).
 */
export const REDIS_URL_RULES = {
  protocols: ["redis:", "rediss:"],
  forbiddenParts: ["password", "search", "hash"],
} as const satisfies UrlRules;

/** Every Redis key of a shared account starts with the key prefix: this is what it may hold. */
export const REDIS_PREFIX_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const DEFAULT_REDIS_PREFIX = "robot-fleet";
