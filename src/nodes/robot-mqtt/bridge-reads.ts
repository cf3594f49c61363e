/**
 * The bridge's reads of the fleet: the statuses of the robots it publishes,
 * every robot handed on at every poll, and the v1 status of those with a task
 * under way (only it names the task and its progress).
 */
import { isTaskUnderWay, serialNumberOf } from "../../api/watching/status-reader";
import { robotDirectoryOf } from "../../api/account/robot-directory";
import type { RobotClient } from "../../api/client";
import { robotViewOf } from "../../api/mqtt/robot-view";
import { topicLevelProblem } from "../../api/mqtt/topics";
import { FleetWatcher, type PollSummary, type RobotUpdate } from "../../api/watching/watcher";
import { DEFAULT_BATTERY_THRESHOLDS } from "../../api/watching/watcher-state";
import { SERIAL_NUMBER_PATTERN } from "../../api/settings/input-rules";

/**
 * Reads the robots' statuses (S-line batch: navigation, cleaning modes,
 * remote control) and hands every robot on at every poll: the bridge decides
 * what changed by what it published, not by the watcher's thresholds.
 */
export class StatusReader extends FleetWatcher {
  constructor(
    private readonly account: RobotClient,
    private readonly names: readonly string[],
    private readonly signal: AbortSignal,
    /** A listed robot that cannot be published (nor asked about: the batch status takes serial numbers of letters, digits, - and _). */
    private readonly unpublishable: (serialNumber: string, problem: string) => void,
    private readonly intervalMs: number,
  ) {
    super(account, { serialNumbers: names, line: "s", thresholds: DEFAULT_BATTERY_THRESHOLDS, callOptions: { signal } });
  }

  /** When the last poll's reads began. */
  pollStartedAt = 0;

  override async poll(): Promise<{ updates: RobotUpdate[]; summary: PollSummary }> {
    this.pollStartedAt = Date.now();
    const options = { signal: this.signal };
    const listed = this.names.length > 0 ? this.names : (await this.account.listAllRobots(options)).map((robot) => robot.serialNumber);
    const wellFormed = listed.filter((serial) => {
      const problem = topicLevelProblem(serial) ?? (SERIAL_NUMBER_PATTERN.test(serial) ? undefined : "is not letters, digits, - and _");
      if (problem) this.unpublishable(serial, problem);
      return problem === undefined;
    });
    // One the node lists that the account does not have is left out too: named in a batch, it would fail the others' reads.
    const notOfAccount = this.names.length > 0 ? await robotDirectoryOf(this.account.accountKey).robotsNotOfAccount(wellFormed) : [];
    for (const serial of notOfAccount) this.unpublishable(serial, "names no robot of the account (the robot list does not name it)");
    const names = wellFormed.filter((serial) => !notOfAccount.includes(serial));
    const statuses = names.length === 0 ? [] : ((await this.account.batchGetStatuses(names, { ...options, line: "s" })) as Record<string, unknown>[]);
    this.fleetStatuses.record(statuses);
    await this.readRunningTasks(statuses);
    const updates = statuses.map((lean) => {
      const serialNumber = serialNumberOf(lean);
      // The robot's last reads of both shapes: a v1 read (this bridge's, or any node's of the account) gives its task's name and progress.
      const status = (serialNumber === undefined ? undefined : this.fleetStatuses.get(serialNumber)?.status) ?? lean;
      const view = robotViewOf(status);
      return { serialNumber: view.serialNumber, status, state: view.state, changes: {}, initial: false, wentOffline: false };
    });
    return { updates, summary: { robots: statuses.length, online: updates.filter((update) => update.state.online === true).length, at: new Date() } };
  }

  /**
   * The v1 status of each robot with a task under way that no one read in the
   * last half interval: only it names the task and its progress. One batch
   * call, and none while no robot works; a failed read leaves the task unnamed.
   */
  private async readRunningTasks(statuses: readonly Record<string, unknown>[]): Promise<void> {
    const fresh = Date.now() - this.intervalMs / 2;
    const running = statuses.flatMap((status) => {
      const serialNumber = serialNumberOf(status);
      const stale = serialNumber !== undefined && (this.fleetStatuses.readAt(serialNumber, "v1") ?? 0) < fresh;
      return stale && isTaskUnderWay(status.taskState) ? [serialNumber] : [];
    });
    if (running.length === 0) return;
    try {
      this.fleetStatuses.record(await this.account.batchGetStatuses(running, { signal: this.signal, line: "v1" }));
    } catch (error) {
      if (this.signal.aborted) throw error;
    }
  }
}
