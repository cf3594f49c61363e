/**
 * Why a robot cannot do an action, and what is wrong with an input, in the runtime's language (the shared
 * catalogue's "refusal" texts): what robot-command's NOT_ALLOWED and
 * NOT_CONFIRMED errors say after the robot's name. The English texts are
 * refusalText's (src/api/watching/robot-actions.ts), which a test keeps equal.
 */
import { RobotApiError, inputMessage } from "../../api/errors";
import { CHARGING_POINT } from "../../api/cloud/commands";
import type { ActionRefusal } from "../../api/watching/robot-actions";
import type { Translate } from "./i18n";

/** The refusal in words, e.g. "is cleaning Lobby: pause or stop it first" ("正在清洁 Lobby：请先暂停或停止"). */
export function refusalWords(t: Translate, refusal: ActionRefusal): string {
  switch (refusal.code) {
    case "busyWithTask":
      return refusal.task ? t("refusal.busyWithTask", { task: refusal.task }) : t("refusal.busyWithAnyTask");
    case "taskPaused":
      return refusal.task ? t("refusal.taskPaused", { task: refusal.task }) : t("refusal.anyTaskPaused");
    case "busyNavigating":
      if (!refusal.point) return t("refusal.busyNavigatingAnywhere");
      return t("refusal.busyNavigating", { point: refusal.point === CHARGING_POINT ? t("refusal.itsCharger") : refusal.point });
    default:
      return t(`refusal.${refusal.code}`);
  }
}

/**
 * Rewords a NOT_CONFIRMED error whose last status named a reason in the
 * runtime's language (the API words it in English); any other error is left.
 */
export function rewordNotConfirmed(t: Translate, error: unknown, serialNumber: string, timeoutMs: number, expects: string): void {
  if (!(error instanceof RobotApiError) || error.kind !== "not_confirmed" || !error.refusal) return;
  error.message = t("refusal.notConfirmed", {
    robot: serialNumber,
    refusal: refusalWords(t, error.refusal),
    seconds: timeoutMs / 1000,
    expects,
  });
}

/**
 * Rewords an INVALID_INPUT error in the runtime's language from the parts it
 * keeps (field names and the package's own problems, the shared catalogue's
 * `input` texts); a problem without a key (one particular to a node or the
 * schema's words) stays English. Code, field and cause do not change.
 */
export function rewordInvalidInput(t: Translate, error: unknown): void {
  if (!(error instanceof RobotApiError) || error.kind !== "invalid_input" || !error.wording) return;
  error.message = inputMessage(error.wording, (problem) => (typeof problem === "string" ? problem : t(`input.${problem.key}`, problem.params)), {
    separator: t("input.separator"),
    more: (count) => t("input.more", { count }),
  });
}
