/** "Send when": the setting robot-command and robot-site-task share, and its bounds. */

/**
 * When the node sends its message: once the cloud accepted the command (its
 * answer, state WAITING), or once the robot's status shows the command's
 * effect (src/api/confirmation.ts).
 */
export const SEND_WHEN = ["accepted", "shown"] as const;
export type SendWhen = (typeof SEND_WHEN)[number];

/** How long a command may take to show, by default (seconds). */
export const DEFAULT_CONFIRM_TIMEOUT_S = 120;
export const CONFIRM_TIMEOUT_RANGE = { min: 1, max: 3600 } as const;
