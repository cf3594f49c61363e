/**
 * A copy of an account's state in a node's context. Node-RED deletes a node's
 * memory context when the node closes unless a context store is configured,
 * so the state itself lives in the package's memory (src/api/account/account-memory.ts)
 * and survives a redeploy there; this copy, written through the async context
 * API, is what the user's store (localfilesystem, or their own) carries
 * across a restart. Writes are coalesced: at most one at a time, the newest
 * state wins.
 */
import type { Node } from "node-red";

type AsyncContext = {
  get(key: string, callback: (error: Error | undefined, value: unknown) => void): void;
  set(key: string, value: unknown, callback: (error?: Error) => void): void;
};

export class ContextMirror {
  private writing: Promise<void> | undefined;
  private pending = false;

  /** `snapshot` gives the state as plain JSON each time it is written. */
  constructor(
    private readonly node: Node,
    private readonly key: string,
    private readonly snapshot: () => unknown,
  ) {}

  private get context(): AsyncContext {
    return this.node.context();
  }

  /** What the store holds under the key, or undefined (nothing stored, or the store failed: logged). */
  read(): Promise<unknown> {
    return new Promise((resolve) => {
      this.context.get(this.key, (error, value) => {
        if (error) this.node.warn(`context ${this.key}: ${error.message}`);
        resolve(error ? undefined : value);
      });
    });
  }

  /** The state changed: it is written soon, once however many changes come before. */
  changed(): void {
    this.pending = true;
    this.writing ??= Promise.resolve().then(() => this.writeWhilePending());
  }

  /** Resolves once every change so far is written. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeWhilePending(): Promise<void> {
    while (this.pending) {
      this.pending = false;
      await new Promise<void>((resolve) =>
        this.context.set(this.key, this.snapshot(), (error) => {
          if (error) this.node.warn(`context ${this.key}: ${error.message}`);
          resolve();
        }),
      );
    }
    this.writing = undefined;
  }
}
