/**
 * Statuses read for command confirmation, kept in one Redis hash per account
 * (serial number → the status and when it was read) for a minute, so that a
 * process confirming a command for a robot another process read lately uses
 * that read; a short claim per robot (SET NX, one interval) keeps two
 * processes from reading it at the same moment. Redis failing only means
 * reading for oneself.
 */
import type { StatusShare } from "../account/shared-account";
import type { RedisLink } from "./redis-link";

const KEEP_MS = 60_000;

export class SharedStatuses implements StatusShare {
  private readonly hashKey: string;

  constructor(private readonly link: RedisLink) {
    this.hashKey = link.key("confirm-statuses");
  }

  async recent(serialNumbers: readonly string[], freshMs: number): Promise<Map<string, Record<string, unknown>>> {
    const found = new Map<string, Record<string, unknown>>();
    if (!this.link.ready || serialNumbers.length === 0) return found;
    const values = await this.link.client.hmget(this.hashKey, ...serialNumbers);
    const since = Date.now() - freshMs;
    values.forEach((value, index) => {
      if (!value) return;
      try {
        const { at, status } = JSON.parse(value) as { at: number; status: Record<string, unknown> };
        if (at >= since) found.set(serialNumbers[index]!, status);
      } catch {
        // Not ours to read: read the robot instead.
      }
    });
    return found;
  }

  async claim(serialNumbers: readonly string[], forMs: number): Promise<string[]> {
    if (!this.link.ready || serialNumbers.length === 0) return [...serialNumbers];
    const pipeline = this.link.client.pipeline();
    for (const serialNumber of serialNumbers)
      pipeline.set(this.link.key("confirm-reading", serialNumber), this.link.instanceId, "PX", Math.max(100, Math.round(forMs)), "NX");
    const answers = (await pipeline.exec()) ?? [];
    return serialNumbers.filter((_serialNumber, index) => answers[index]?.[1] === "OK");
  }

  publish(statuses: readonly Record<string, unknown>[]): void {
    if (!this.link.ready || statuses.length === 0) return;
    const at = Date.now();
    const fields = statuses.flatMap((status) =>
      typeof status.serialNumber === "string" ? [status.serialNumber, JSON.stringify({ at, status })] : [],
    );
    if (fields.length === 0) return;
    void this.link.client
      .multi()
      .hset(this.hashKey, ...fields)
      .pexpire(this.hashKey, KEEP_MS)
      .exec()
      .catch(() => undefined);
  }
}
