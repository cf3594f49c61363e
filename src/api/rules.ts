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
 * What a base URL may be, as data so that the editor's dialog applies the
 * same rules (it parses with the same WHATWG URL): these protocols, and none
 * of these parts.
 */
export const BASE_URL_RULES = {
  protocols: ["http:", "https:"],
  forbiddenParts: ["username", "password", "search", "hash"],
} as const;

/**
 * What robot-config's Redis URL may be ("Share with other Node-RED
 * instances"), as data for the editor too: redis:// or rediss://, a user name
 * allowed (Redis ACLs), the password never (it is a credential).
 */
export const REDIS_URL_RULES = {
  protocols: ["redis:", "rediss:"],
  forbiddenParts: ["password", "search", "hash"],
} as const;

/** Every Redis key of a shared account starts with the key prefix: this is what it may hold. */
export const REDIS_PREFIX_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const DEFAULT_REDIS_PREFIX = "robot-fleet";
