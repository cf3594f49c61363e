/**
 * The robot list shared by the instances of an account (robot-directory.ts):
 * the last read in one key, kept a day, and a short claim (SET NX PX) on who
 * reads next, so the instances read the list once per interval between them.
 * Redis being down only means each instance reads for itself.
 */
import type { DirectoryRead, DirectoryShare } from "../account/robot-directory";
import type { RedisLink } from "./redis-link";

const KEEP_MS = 24 * 60 * 60_000;

export class SharedDirectory implements DirectoryShare {
  constructor(private readonly link: RedisLink) {}

  async load(): Promise<DirectoryRead | undefined> {
    // An instance that just started waits for its first connection attempt: it would otherwise read alone while Redis answers in ms.
    await this.link.joined;
    if (!this.link.ready) return undefined;
    const stored = await this.link.client.get(this.link.key("robot-directory"));
    if (!stored) return undefined;
    try {
      const read = JSON.parse(stored) as Partial<DirectoryRead>;
      return typeof read.at === "number" && Array.isArray(read.robots) ? { at: read.at, robots: read.robots } : undefined;
    } catch {
      // Not ours to read: the instance reads the list itself.
      return undefined;
    }
  }

  async claimRead(forMs: number): Promise<boolean> {
    if (!this.link.ready) return true;
    const answer = await this.link.client.set(
      this.link.key("robot-directory-reading"),
      this.link.instanceId,
      "PX",
      Math.max(100, Math.round(forMs)),
      "NX",
    );
    return answer === "OK";
  }

  async save(read: DirectoryRead): Promise<void> {
    if (!this.link.ready) return;
    await this.link.client.set(this.link.key("robot-directory"), JSON.stringify(read), "PX", KEEP_MS);
  }

  /** The read is saved (or failed): the next interval's reader may claim at once. */
  releaseRead(): void {
    this.link.releaseIfHeld(this.link.key("robot-directory-reading"), this.link.instanceId);
  }
}
