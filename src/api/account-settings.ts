/**
 * The per-account settings of a robot-config node, declared once: the runtime
 * checks them with this table and the editor's dialog reads the same table
 * (in the exportable runtime setting `robotConfigTables`), so the dialog
 * accepts exactly what the runtime accepts.
 */
import { numberProblem, readNumberSetting, type NumberSetting } from "./number-settings";

export const ACCOUNT_SETTINGS = {
  /** Seconds a call may take, from sending to the whole answer. */
  timeout: { default: 10, min: 0.1, max: 600, integer: false, unit: "s" },
  /** Resends of a call that the cloud refused for rate limiting or that could not connect. */
  maxRetries: { default: 3, min: 0, max: 10, integer: true, unit: "" },
  /** Keep-alive sockets to the cloud, and so calls in flight at once. */
  connections: { default: 16, min: 1, max: 256, integer: true, unit: "" },
  /** Calls started per second for the whole account; 0 sends as fast as the connections allow. */
  rateLimit: { default: 20, min: 0, max: 10_000, integer: false, unit: "/s" },
  /** Calls allowed to wait for a connection or the rate limit; one more ends at once with QUEUE_FULL. */
  queueLimit: { default: 10_000, min: 1, max: 10_000_000, integer: true, unit: "" },
  /** The longest Retry-After the account waits out; a longer one fails the calls it would hold. */
  maxRetryWait: { default: 60, min: 0, max: 86_400, integer: false, unit: "s" },
} as const satisfies Record<string, NumberSetting>;

export type AccountSettingName = keyof typeof ACCOUNT_SETTINGS;
export type AccountSettings = Record<AccountSettingName, number>;

export const ACCOUNT_SETTING_NAMES = Object.keys(ACCOUNT_SETTINGS) as AccountSettingName[];

/** The problem with a value, in words that follow the field name, or undefined when it is acceptable. */
export function accountSettingProblem(name: AccountSettingName, value: unknown): string | undefined {
  return numberProblem(value, ACCOUNT_SETTINGS[name]);
}

/**
 * Reads the settings of a config node: an empty or missing value takes the
 * default (flows saved before a setting existed have none), anything else must
 * pass accountSettingProblem or the field is named in an INVALID_INPUT error.
 */
export function readAccountSettings(raw: Partial<Record<AccountSettingName, unknown>>): AccountSettings {
  const settings = {} as AccountSettings;
  for (const name of ACCOUNT_SETTING_NAMES) settings[name] = readNumberSetting(raw[name], name, ACCOUNT_SETTINGS[name]);
  return settings;
}
