/** What the simulator's control endpoints (/_sim/...) take, beside the cloud's own requests. */
import { z } from "zod";

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
