/** Texts of the status under a node. */
import type { Translate } from "./i18n";
import { readStatus } from "../../api/watching/status-reader";
import { firstText } from "./settings";

/** Status texts stay short: the editor shows them under the node. */
export function shorten(text: string, max = 32): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** What a robot's status read shows, the same in robot-status and robot-site-task: "RUNNING 87%": the task state (or offline, or just "status read") and the battery when the status gives it. */
export function robotStatusText(status: Record<string, unknown>, t: Translate): string {
  const taskState = firstText(status.taskState);
  const state = taskState !== undefined ? taskStateWord(taskState, t) : t(status.online === false ? "status.offline" : "status.statusRead");
  const { battery } = readStatus(status);
  return battery === undefined ? state : `${state} ${Math.round(battery)}%`;
}

/**
 * One of the cloud's values in the runtime's language, from a group of the
 * catalogue (`taskStates.RUNNING`); a value the catalogue does not know, as
 * the cloud sent it. In English the catalogue keeps the cloud's own names.
 */
export function cloudWord(t: Translate, group: string, value: string): string {
  const key = `${group}.${value}`;
  const word = t(key);
  return word.endsWith(key) ? value : word;
}

/** A task state in the runtime's language (the shared catalogue's taskStates). */
export function taskStateWord(taskState: string, t: Translate): string {
  return cloudWord(t, "taskStates", taskState);
}
