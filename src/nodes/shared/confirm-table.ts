import type { NumberSetting } from "../../api/settings/input-rules";

/** "Send when": the setting robot-command and robot-site-task share, and its bounds. */

/**
 * When the node sends its message: once the cloud accepted the command (its
 * answer, state WAITING), or once the robot's status shows the command's
 * effect (src/api/watching/confirmation.ts).
 */
export const SEND_WHEN = ["accepted", "shown"] as const;
export type SendWhen = (typeof SEND_WHEN)[number];

/** How long a command may take to show (seconds). */
export const CONFIRM_TIMEOUT = { default: 120, min: 1, max: 3600, integer: false, unit: "s" } as const satisfies NumberSetting;
