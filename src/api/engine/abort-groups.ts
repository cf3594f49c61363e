/**
 * Items grouped by the signal that aborts them, with one abort listener per
 * signal however many items share it: a node's signal is shared by every
 * message it has waiting, and fifty listeners on one signal would trip
 * Node's leak warning.
 */
export class AbortGroups<T> {
  private readonly groups = new WeakMap<AbortSignal, Set<T>>();

  /** `onAbort` gets the items still in the group when its signal aborts. */
  constructor(private readonly onAbort: (items: T[]) => void) {}

  add(signal: AbortSignal, item: T): void {
    let group = this.groups.get(signal);
    if (!group) {
      const created = new Set<T>();
      group = created;
      this.groups.set(signal, created);
      signal.addEventListener(
        "abort",
        () => {
          this.groups.delete(signal);
          this.onAbort([...created]);
        },
        { once: true },
      );
    }
    group.add(item);
  }

  /** Takes an item out once it has ended some other way. */
  delete(signal: AbortSignal, item: T): void {
    this.groups.get(signal)?.delete(item);
  }
}
