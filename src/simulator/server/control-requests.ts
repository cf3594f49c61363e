/** What the simulator's control endpoints (/_sim/...) take, beside the cloud's own requests. */
import { z } from "zod";
import { describeIssues } from "../../api/errors";
import { WEAR_PARTS } from "../../api/upkeep/facts";
import { Code, SimError } from "./sim-errors";

/** What PATCH /_sim/robots/<serial> may change (and RunningSimulator.updateRobot). */
export const RobotChanges = z.strictObject({
  online: z.boolean().optional(),
  /** false: the cloud cannot reach the robot, and answers any status read naming it 230003 (SimRobot.reachable). */
  reachable: z.boolean().optional(),
  batteryPercentage: z.number().min(0).max(100).optional(),
  charging: z.boolean().optional(),
  emergencyStop: z.boolean().optional(),
  localizationState: z.enum(["NORMAL", "LOST"]).optional(),
  taskState: z.enum(["IDLE", "RUNNING", "PAUSED", "OTHER"]).optional(),
  /** Places the robot on its current map: pixels of the map image, rows from its bottom edge, angle in degrees. */
  mapPosition: z
    .strictObject({
      x: z.number(),
      y: z.number(),
      angle: z
        .number()
        .gt(-180, "must be more than -180 and at most 180 degrees")
        .lte(180, "must be more than -180 and at most 180 degrees"),
    })
    .optional(),
});
export type RobotChanges = z.output<typeof RobotChanges>;

/** What POST /_sim/robots/<serial>/task/end takes: how the task ends (docs/cloud-api.md, taskEndStatus). */
export const EndTask = z.strictObject({ taskEndStatus: z.number().int().min(-1).max(3) });

const WearPartName = z.enum(WEAR_PARTS);

/**
 * What PATCH /_sim/robots/<serial>/wear takes (world/wear.ts, changeWear):
 * what a person does to a robot's wear parts, tanks and battery.
 */
export const WearChanges = z.strictObject({
  /** Parts replaced by a new one: usedLife 0, the time kept as the simulator's truth. */
  replace: z.array(WearPartName).min(1).optional(),
  /** Counters set by hand: usedLife 0 is a service engineer's reset; lifeSpan a part of another life. */
  parts: z
    .partialRecord(WearPartName, z.strictObject({ usedLife: z.number().min(0).optional(), lifeSpan: z.number().positive().optional() }))
    .optional(),
  /** 100 refills the clean water, 0 empties the recovery tank. */
  cleanWater: z.number().min(0).max(100).optional(),
  recoveryWater: z.number().min(0).max(100).optional(),
  battery: z
    .strictObject({
      /** A word, as recorded ("HEALTHY"). */
      soh: z.string().trim().min(1).optional(),
      cycleTimes: z.number().int().min(0).optional(),
      /** temperature1..n, °C. */
      temperatures: z.array(z.number().min(-40).max(150)).min(1).max(7).optional(),
    })
    .optional(),
});
export type WearChanges = z.output<typeof WearChanges>;

/** The query of GET /_sim/robots/<serial>/wear: the share left to say the crossing of, and the cleaning hours a day to date it by. */
export const WearQuery = z.strictObject({
  share: z.coerce.number().min(0).max(1).default(0.1),
  hoursPerDay: z.coerce.number().gt(0).max(24).optional(),
});
export type WearQuery = z.output<typeof WearQuery>;

/** A control request's body as its schema reads it; a SimError (400) naming the field when it does not fit. */
export function parsedOrRefused<Schema extends z.ZodType>(schema: Schema, raw: unknown): z.output<Schema> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new SimError(Code.INVALID_ARGUMENT, describeIssues(parsed.error).message);
  return parsed.data;
}
